// The embedded modules' packed form: zstd frames (libzstd), one a module, each packed with the
// modules before it in its stream as its prefix. The stream then unpacks front to back, a module at a
// time, with no decoder state kept between calls; a frame matches into the earlier modules as one
// frame over the whole stream would (3 % more bytes, docs/decisions.md). Each frame records its size
// and a checksum of its content. manifest.json is one frame.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace vkc::packing {

// How far a stream is unpacked: the packed bytes read and the bytes written.
struct FrameCursor {
    size_t packed = 0;
    size_t unpacked = 0;
};

enum class Unpacked { ok, damaged, out_of_memory };

// Unpacks frames of `packed` from `at` into `out` until at least `until` bytes of `out` are written
// (whole frames, so a module at a time). `damaged` when a frame is malformed, fails its checksum,
// writes past `out`, or the frames end before `until`, or when `out` is full and packed bytes are
// left over; `at` then stays where the last good frame ended. Reads only within `packed`, writes
// only within `out` from at.unpacked on, and reads `out` before at.unpacked (the prefix).
Unpacked unpack_frames(std::span<const uint8_t> packed, std::span<uint8_t> out, FrameCursor& at, size_t until) noexcept;

// The packer, for tools/spirv_pack.cpp and the tests (pack_frames.cpp, not part of the library):
// `parts` are the sizes of consecutive pieces of `content`, each packed as one frame at zstd's
// `level`. Throws std::runtime_error if libzstd fails, std::bad_alloc if memory runs out.
std::vector<uint8_t> pack_frames(std::span<const uint8_t> content, std::span<const size_t> parts, int level);

} // namespace vkc::packing
