// ModuleInfo::code() and modules_manifest_json(): the embedded data, unpacked when first asked for.
#include "packing/module_streams.hpp"

#include <mutex>
#include <new>

#include "vkc/modules.hpp"

namespace vkc {
namespace packing {

const uint32_t* unpacked_bytes(PackedStream& stream, size_t end, Unpacked* failure) {
    if (stream.ready.load(std::memory_order_acquire) >= end) return stream.unpacked;
    // One stream at a time: no byte is unpacked twice. Readers of the bytes already final may go on
    // meanwhile: the frames only write past them.
    static std::mutex mutex;
    std::lock_guard lock(mutex);
    if (stream.ready.load(std::memory_order_relaxed) >= end) return stream.unpacked;
    auto fail = [failure](Unpacked why) -> const uint32_t* {
        if (failure) *failure = why;
        return nullptr;
    };
    if (stream.damaged || end > stream.unpacked_bytes) return fail(Unpacked::damaged);
    if (!stream.unpacked) {
        // Whole words, and at least one zero byte past the end.
        size_t words = stream.unpacked_bytes / 4 + 1;
        stream.unpacked = new (std::nothrow) uint32_t[words];
        if (!stream.unpacked) return fail(Unpacked::out_of_memory);
        stream.unpacked[words - 1] = 0;
    }
    // Modules come in table order (add first), so the common ones need only the front of a stream.
    Unpacked result = unpack_frames({stream.data, stream.bytes},
                                    {reinterpret_cast<uint8_t*>(stream.unpacked), stream.unpacked_bytes}, stream.at, end);
    stream.ready.store(stream.at.unpacked, std::memory_order_release);
    if (result == Unpacked::damaged) stream.damaged = true;
    return result == Unpacked::ok ? stream.unpacked : fail(result);
}

} // namespace packing

std::string_view modules_manifest_json() {
    packing::PackedStream& stream = packing::manifest_stream();
    packing::Unpacked failure = packing::Unpacked::ok;
    const uint32_t* text = packing::unpacked_bytes(stream, stream.unpacked_bytes, &failure);
    if (!text) {
        throw Error(failure == packing::Unpacked::out_of_memory ? "out of host memory unpacking manifest.json"
                                                                : "manifest.json: its packed data is damaged");
    }
    return {reinterpret_cast<const char*>(text), stream.unpacked_bytes};
}

const uint32_t* ModuleInfo::code() const {
    std::span<packing::PackedStream> streams = packing::module_streams();
    if (packed_stream >= streams.size()) return nullptr;
    packing::PackedStream& stream = streams[packed_stream];
    size_t words = stream.unpacked_bytes / 4;
    if (code_bytes < 4 || packed_offset > words || code_bytes / 4 > words - packed_offset) return nullptr;
    const uint32_t* unpacked = packing::unpacked_bytes(stream, (packed_offset + code_bytes / 4) * size_t(4));
    return unpacked ? unpacked + packed_offset : nullptr;
}

} // namespace vkc
