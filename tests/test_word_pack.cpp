// The word packer of the embedded SPIR-V (src/packing/word_pack.cpp): round trips of the shapes it
// meets, and a decoder that rejects every damaged stream without touching memory outside its spans.
// Damaged streams are copied into buffers of their own size, so the sanitizer build sees any read past
// their end.
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <span>
#include <random>
#include <vector>

#include "packing/word_pack.hpp"

using vkc::packing::pack_words;
using vkc::packing::packed_word_count;
using vkc::packing::unpack_words;

namespace {

using Words = std::vector<uint32_t>;
using Bytes = std::vector<uint8_t>;

Words random_words(size_t count, uint32_t seed) {
    std::mt19937 rng(seed);
    Words words(count);
    for (uint32_t& w : words) w = uint32_t(rng());
    return words;
}

// A SPIR-V-like module: the header, then instructions (word count and opcode in one word, then
// operands that are ids, every id shifted by `id_shift`, or small literals).
Words synthetic_module(uint32_t id_shift, size_t instructions) {
    std::mt19937 rng(7); // the same instructions whatever the shift
    Words words = {0x07230203u, 0x00010300u, 0x000D000Bu, 1000 + id_shift, 0};
    for (size_t i = 0; i < instructions; ++i) {
        uint32_t operands = 1 + rng() % 4;
        words.push_back((operands + 1) << 16 | (rng() % 64 + 1));
        for (uint32_t k = 0; k < operands; ++k)
            words.push_back(rng() % 4 == 0 ? rng() % 16 : 20 + rng() % 200 + id_shift);
    }
    return words;
}

Words concatenate(std::initializer_list<Words> parts) {
    Words all;
    for (const Words& part : parts) all.insert(all.end(), part.begin(), part.end());
    return all;
}

// Packs, checks the header's count and the round trip; returns the packed size.
size_t check_round_trip(const Words& words) {
    Bytes packed = pack_words(words);
    CHECK(packed_word_count(packed) == words.size());
    Words out(words.size(), 0xDEADBEEFu);
    CHECK(unpack_words(packed, out));
    CHECK(out == words);
    return packed.size();
}

bool unpacks(const Bytes& packed, size_t word_count) {
    Words out(word_count);
    return unpack_words(packed, out);
}

} // namespace

TEST_CASE("word pack: an empty sequence round-trips") {
    Bytes packed = pack_words(Words{});
    CHECK(packed_word_count(packed) == 0);
    CHECK(unpack_words(packed, std::span<uint32_t>()));
    CHECK_FALSE(unpacks(packed, 1));
}

TEST_CASE("word pack: one word round-trips") {
    for (uint32_t word : {0u, 1u, 0x07230203u, 0x80000000u, 0xFFFFFFFFu}) {
        CAPTURE(word);
        check_round_trip({word});
    }
}

TEST_CASE("word pack: random words round-trip, at little more than their size") {
    for (size_t count : {2, 3, 4, 17, 1000, 100000}) {
        CAPTURE(count);
        size_t packed = check_round_trip(random_words(count, uint32_t(count)));
        CHECK(packed <= count * 4 + count / 4 + 32);
    }
}

TEST_CASE("word pack: sibling modules with shifted ids cost little more than one") {
    Words module = synthetic_module(0, 2000);
    size_t one = check_round_trip(module);
    CHECK(one < module.size() * 4);
    size_t three = check_round_trip(concatenate({module, synthetic_module(37, 2000), synthetic_module(1000, 2000)}));
    CHECK(three < one + one / 4);
}

TEST_CASE("word pack: long runs round-trip and pack to almost nothing") {
    const size_t count = 1 << 20;
    Words zeros(count, 0);
    CHECK(check_round_trip(zeros) < 100);
    Words pattern(count), counting(count);
    for (size_t i = 0; i < count; ++i) {
        pattern[i] = uint32_t(i % 7 * 0x01010101u);
        counting[i] = uint32_t(i * 3);
    }
    CHECK(check_round_trip(pattern) < 100);
    CHECK(check_round_trip(counting) < count / 64);
    CHECK(check_round_trip(concatenate({random_words(100, 1), zeros, random_words(100, 2), zeros})) < 1000);
}

TEST_CASE("word pack: packed_word_count reads the header and refuses a malformed one") {
    Words words = synthetic_module(0, 100);
    Bytes packed = pack_words(words);
    CHECK(packed_word_count(packed) == words.size());
    CHECK(packed_word_count(Bytes(packed.begin(), packed.begin() + 20)) == 0); // shorter than any stream
    Bytes bad_magic = packed;
    bad_magic[0] ^= 1;
    CHECK(packed_word_count(bad_magic) == 0);
    Bytes bad_raw_size = packed;
    bad_raw_size[15] = 0xFF; // raw section larger than the stream
    CHECK(packed_word_count(bad_raw_size) == 0);
    CHECK(packed_word_count(Bytes{}) == 0);
}

TEST_CASE("word pack: a wrong output size is rejected") {
    Words words = synthetic_module(5, 200);
    Bytes packed = pack_words(words);
    CHECK(unpacks(packed, words.size()));
    CHECK_FALSE(unpacks(packed, words.size() - 1));
    CHECK_FALSE(unpacks(packed, words.size() + 1));
    CHECK_FALSE(unpacks(packed, 0));
}

TEST_CASE("word pack: a stream cut at any length is rejected") {
    Words words = concatenate({synthetic_module(0, 100), synthetic_module(3, 100), random_words(50, 3)});
    Bytes packed = pack_words(words);
    REQUIRE(unpacks(packed, words.size()));
    for (size_t length = 0; length < packed.size(); ++length) {
        CAPTURE(length);
        CHECK_FALSE(unpacks(Bytes(packed.begin(), packed.begin() + std::ptrdiff_t(length)), words.size()));
    }
    Bytes extended = packed;
    extended.push_back(0);
    CHECK_FALSE(unpacks(extended, words.size()));
}

TEST_CASE("word pack: a stream with any bit flipped, or bytes overwritten, is rejected") {
    Words words = concatenate({synthetic_module(0, 60), synthetic_module(11, 60), random_words(20, 4)});
    const Bytes packed = pack_words(words);
    REQUIRE(unpacks(packed, words.size()));
    for (size_t bit = 0; bit < packed.size() * 8; ++bit) {
        CAPTURE(bit);
        Bytes damaged = packed;
        damaged[bit / 8] ^= uint8_t(1u << bit % 8);
        CHECK_FALSE(unpacks(damaged, words.size()));
    }
    std::mt19937 rng(5);
    for (int trial = 0; trial < 5000; ++trial) {
        CAPTURE(trial);
        Bytes damaged = packed;
        int bytes = 1 + trial % 4;
        for (int k = 0; k < bytes; ++k) damaged[rng() % damaged.size()] ^= uint8_t(1 + rng() % 255);
        if (damaged == packed) continue; // two changes undid each other
        CHECK_FALSE(unpacks(damaged, words.size()));
    }
}

TEST_CASE("word pack: random bytes are rejected, with or without a valid header") {
    const Bytes empty_stream = pack_words(Words{});
    std::mt19937 rng(6);
    for (int trial = 0; trial < 2000; ++trial) {
        CAPTURE(trial);
        Bytes garbage(rng() % 600);
        for (uint8_t& b : garbage) b = uint8_t(rng());
        size_t word_count = rng() % 5000;
        CHECK_FALSE(unpacks(garbage, word_count));
        if (garbage.size() <= empty_stream.size()) continue;
        // A plausible header (magic, count, raw section within the stream) so the decoder meets the garbage.
        std::copy(empty_stream.begin(), empty_stream.begin() + 4, garbage.begin());
        for (size_t i = 0; i < 4; ++i) garbage[4 + i] = uint8_t(word_count >> 8 * i);
        garbage[12] = uint8_t(rng() % (garbage.size() - empty_stream.size()));
        garbage[13] = garbage[14] = garbage[15] = 0;
        CHECK(packed_word_count(garbage) == word_count);
        CHECK_FALSE(unpacks(garbage, word_count));
    }
}

TEST_CASE("word pack: unpacking in steps gives the same words, and a damaged stream still fails") {
    Words words = concatenate({synthetic_module(0, 3000), synthetic_module(37, 3000), synthetic_module(74, 3000)});
    Bytes packed = pack_words(words);
    Words out(words.size(), 0);
    std::unique_ptr<vkc::packing::Unpacker> unpacker = vkc::packing::start_unpacking(packed, out);
    REQUIRE(unpacker);
    CHECK(unpacker->unpacked_words() == 0);
    // The first module only: a match may run past the end asked for, never past the stream.
    size_t first = synthetic_module(0, 3000).size();
    REQUIRE(unpacker->unpack_until(first));
    size_t done = unpacker->unpacked_words();
    CHECK(done >= first);
    CHECK(done < words.size());
    CHECK(std::equal(words.begin(), words.begin() + std::ptrdiff_t(done), out.begin()));
    CHECK(std::all_of(out.begin() + std::ptrdiff_t(done), out.end(), [](uint32_t w) { return w == 0; }));
    REQUIRE(unpacker->unpack_until(words.size() + 5));
    CHECK(unpacker->unpacked_words() == words.size());
    CHECK(out == words);
    CHECK(unpacker->unpack_until(words.size())); // asking again changes nothing

    CHECK(!vkc::packing::start_unpacking(packed, std::span<uint32_t>(out).first(words.size() - 1)));
    CHECK(!vkc::packing::start_unpacking(Bytes(packed.begin(), packed.begin() + 8), out));
    // A flipped bit near the end: the front unpacks, the checksum fails the last step, which stays failed.
    Bytes damaged = packed;
    damaged[damaged.size() - 3] ^= 0x10;
    std::unique_ptr<vkc::packing::Unpacker> second = vkc::packing::start_unpacking(damaged, out);
    REQUIRE(second);
    CHECK(!second->unpack_until(words.size()));
    CHECK(second->unpacked_words() == 0);
    CHECK(!second->unpack_until(1));
}
