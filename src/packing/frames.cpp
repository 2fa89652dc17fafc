// Unpacking the embedded modules' zstd frames (frames.hpp).
#include "packing/frames.hpp"

#include <memory>

#include <zstd.h>
#include <zstd_errors.h> // ZSTD_getErrorCode

namespace vkc::packing {

Unpacked unpack_frames(std::span<const uint8_t> packed, std::span<uint8_t> out, FrameCursor& at,
                       size_t until) noexcept {
    if (at.packed > packed.size() || at.unpacked > out.size() || until > out.size()) return Unpacked::damaged;
    if (at.unpacked >= until) return Unpacked::ok;
    std::unique_ptr<ZSTD_DCtx, size_t (*)(ZSTD_DCtx*)> context(ZSTD_createDCtx(), ZSTD_freeDCtx);
    if (!context) return Unpacked::out_of_memory;
    while (at.unpacked < until) {
        const uint8_t* frame = packed.data() + at.packed;
        size_t frame_bytes = ZSTD_findFrameCompressedSize(frame, packed.size() - at.packed);
        if (ZSTD_isError(frame_bytes)) return Unpacked::damaged;
        // The header's content size (unknown or an error: ULLONG_MAX or just below), within `out`.
        unsigned long long content = ZSTD_getFrameContentSize(frame, frame_bytes);
        if (content == 0 || content > out.size() - at.unpacked) return Unpacked::damaged;
        // The bytes unpacked so far are the frame's prefix: raw content its matches may reach into.
        if (at.unpacked != 0) {
            size_t r = ZSTD_DCtx_refPrefix(context.get(), out.data(), at.unpacked);
            if (ZSTD_isError(r)) return Unpacked::out_of_memory; // its one failure: a small allocation
        }
        size_t written = ZSTD_decompressDCtx(context.get(), out.data() + at.unpacked, size_t(content), frame, frame_bytes);
        if (ZSTD_isError(written)) {
            return ZSTD_getErrorCode(written) == ZSTD_error_memory_allocation ? Unpacked::out_of_memory
                                                                               : Unpacked::damaged;
        }
        if (written != content) return Unpacked::damaged;
        at.packed += frame_bytes;
        at.unpacked += written;
    }
    if (at.unpacked == out.size() && at.packed != packed.size()) return Unpacked::damaged; // trailing bytes
    return Unpacked::ok;
}

} // namespace vkc::packing
