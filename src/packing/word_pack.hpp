// Lossless packing of sequences of 32-bit words, made for SPIR-V modules: the build packs the related
// modules of a family into one stream, the library unpacks a stream when it first needs one of them.
// The format and the algorithm are described in word_pack.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

namespace vkc::packing {

// Packs `words` into one self-describing stream (its header records the word count and a checksum).
// Throws std::length_error for 2^30 words or more, std::bad_alloc when memory runs out.
std::vector<uint8_t> pack_words(std::span<const uint32_t> words);

// The word count recorded in the header of `packed`, or 0 when the header is malformed. (An empty
// sequence also packs with a count of 0.)
size_t packed_word_count(std::span<const uint8_t> packed) noexcept;

// Unpacks `packed` into `out`. True only when the stream is well formed, holds exactly out.size()
// words and they match its checksum; on false, `out` holds unspecified words. Whatever the input,
// reads only within `packed`, writes only within `out`, ends in time proportional to out.size(),
// allocates nothing and throws nothing.
bool unpack_words(std::span<const uint8_t> packed, std::span<uint32_t> out) noexcept;

// Unpacks a stream front to back, as far as each call asks, so that the first words can be used
// before the rest are unpacked. Safe on any input, like unpack_words; the checksum is checked when
// the last word is unpacked.
class Unpacker {
public:
    virtual ~Unpacker() = default;
    // Unpacks until at least `words` words are in `out` (all of them for words >= out.size()).
    // False on damaged data; it then stays false.
    virtual bool unpack_until(size_t words) noexcept = 0;
    // The words unpacked so far (0 after damaged data).
    virtual size_t unpacked_words() const noexcept = 0;
};

// nullptr when the header is malformed, its word count is not out.size() or memory ran out.
std::unique_ptr<Unpacker> start_unpacking(std::span<const uint8_t> packed, std::span<uint32_t> out) noexcept;

} // namespace vkc::packing
