// Packing the embedded modules into zstd frames (frames.hpp): the build's side, not the library's.
#include <memory>
#include <stdexcept>
#include <string>

#include <zstd.h>

#include "packing/frames.hpp"

namespace vkc::packing {

std::vector<uint8_t> pack_frames(std::span<const uint8_t> content, std::span<const size_t> parts, int level) {
    std::unique_ptr<ZSTD_CCtx, size_t (*)(ZSTD_CCtx*)> context(ZSTD_createCCtx(), ZSTD_freeCCtx);
    if (!context) throw std::bad_alloc();
    auto check = [](size_t r) {
        if (ZSTD_isError(r)) throw std::runtime_error(std::string("zstd: ") + ZSTD_getErrorName(r));
        return r;
    };
    std::vector<uint8_t> packed;
    size_t offset = 0;
    for (size_t bytes : parts) {
        if (bytes > content.size() - offset) throw std::runtime_error("pack_frames: parts larger than the content");
        check(ZSTD_CCtx_reset(context.get(), ZSTD_reset_session_and_parameters));
        check(ZSTD_CCtx_setParameter(context.get(), ZSTD_c_compressionLevel, level));
        check(ZSTD_CCtx_setParameter(context.get(), ZSTD_c_checksumFlag, 1));
        // The pieces before this one: matches reach back into them as within one frame (the
        // content size in each header is the default, ZSTD_c_contentSizeFlag).
        if (offset != 0) check(ZSTD_CCtx_refPrefix(context.get(), content.data(), offset));
        size_t at = packed.size();
        packed.resize(at + ZSTD_compressBound(bytes));
        size_t written = check(ZSTD_compress2(context.get(), packed.data() + at, packed.size() - at,
                                              content.data() + offset, bytes));
        packed.resize(at + written);
        offset += bytes;
    }
    if (offset != content.size()) throw std::runtime_error("pack_frames: parts smaller than the content");
    return packed;
}

} // namespace vkc::packing
