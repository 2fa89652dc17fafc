// ModuleInfo::code() and modules_manifest_json(): the embedded data, unpacked when first asked for.
#include "packing/module_streams.hpp"

#include <memory>
#include <mutex>
#include <new>

#include "packing/word_pack.hpp"
#include "vkc/modules.hpp"

namespace vkc {
namespace packing {

const uint32_t* unpacked_words(PackedStream& stream, size_t end) {
    if (stream.ready.load(std::memory_order_acquire) >= end) return stream.unpacked;
    // One stream at a time: unpacking takes milliseconds, and no word is unpacked twice.
    static std::mutex mutex;
    std::lock_guard lock(mutex);
    if (stream.ready.load(std::memory_order_relaxed) >= end) return stream.unpacked;
    if (!stream.unpacked) {
        std::unique_ptr<uint32_t[]> words(new (std::nothrow) uint32_t[stream.words]);
        if (!words) return nullptr;
        std::unique_ptr<Unpacker> unpacker = start_unpacking({stream.data, stream.bytes}, {words.get(), stream.words});
        if (!unpacker) return nullptr;
        stream.unpacked = words.release();
        stream.unpacker = unpacker.release();
    }
    // Modules come in table order (add first), so the common ones need only the front of a stream.
    if (!stream.unpacker->unpack_until(end)) return nullptr;
    size_t ready = stream.unpacker->unpacked_words();
    if (ready == stream.words) {
        delete stream.unpacker;
        stream.unpacker = nullptr;
    }
    stream.ready.store(ready, std::memory_order_release);
    return stream.unpacked;
}

} // namespace packing

std::string_view modules_manifest_json() {
    // A throwing initialiser leaves the static uninitialised, so a later call tries again.
    static const char* const text = [] {
        // Unpacked a byte a word, then narrowed: the words go, the text stays until the process ends.
        packing::PackedStream& stream = packing::manifest_stream();
        std::unique_ptr<uint32_t[]> words(new (std::nothrow) uint32_t[stream.words]);
        std::unique_ptr<char[]> chars(new (std::nothrow) char[stream.words + 1]);
        if (!words || !chars) throw Error("out of host memory unpacking manifest.json");
        if (!packing::unpack_words({stream.data, stream.bytes}, {words.get(), stream.words})) {
            throw Error("manifest.json: its packed data is damaged");
        }
        for (size_t i = 0; i < stream.words; ++i) chars[i] = char(words[i]);
        chars[stream.words] = '\0';
        return chars.release();
    }();
    return text;
}

const uint32_t* ModuleInfo::code() const {
    std::span<packing::PackedStream> streams = packing::module_streams();
    if (packed_stream >= streams.size()) return nullptr;
    packing::PackedStream& stream = streams[packed_stream];
    if (code_bytes < 4 || packed_offset > stream.words || code_bytes / 4 > stream.words - packed_offset) return nullptr;
    const uint32_t* words = packing::unpacked_words(stream, packed_offset + code_bytes / 4);
    return words ? words + packed_offset : nullptr;
}

} // namespace vkc
