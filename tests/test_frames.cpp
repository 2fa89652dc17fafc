// The packed form of the embedded SPIR-V (src/packing/frames.hpp): zstd frames, one a module, each
// with the modules before it as its prefix. Round trips, unpacking front to back a module at a time,
// and damaged streams, which fail cleanly: never `ok` with other bytes than were packed, and never a
// read or write outside the spans (the sanitizer build copies each damaged stream into a buffer of its
// own size, so it sees any read past the end).
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <span>
#include <vector>

#include "packing/frames.hpp"

using vkc::packing::FrameCursor;
using vkc::packing::pack_frames;
using vkc::packing::unpack_frames;
using vkc::packing::Unpacked;

namespace {

using Bytes = std::vector<uint8_t>;

// A SPIR-V-like module: the header, then instructions (word count and opcode in one word, then
// operands that are ids, every id shifted by `id_shift`, or small literals).
Bytes synthetic_module(uint32_t id_shift, size_t instructions) {
    std::mt19937 rng(7); // the same instructions whatever the shift
    std::vector<uint32_t> words = {0x07230203u, 0x00010300u, 0x000D000Bu, 1000 + id_shift, 0};
    for (size_t i = 0; i < instructions; ++i) {
        uint32_t operands = 1 + rng() % 4;
        words.push_back((operands + 1) << 16 | (rng() % 64 + 1));
        for (uint32_t k = 0; k < operands; ++k)
            words.push_back(rng() % 4 == 0 ? rng() % 16 : 20 + rng() % 200 + id_shift);
    }
    Bytes bytes(words.size() * 4);
    std::memcpy(bytes.data(), words.data(), bytes.size());
    return bytes;
}

Bytes random_bytes(size_t count, uint32_t seed) {
    std::mt19937 rng(seed);
    Bytes bytes(count);
    for (uint8_t& b : bytes) b = uint8_t(rng());
    return bytes;
}

// The modules concatenated, and their sizes.
struct Stream {
    Bytes content;
    std::vector<size_t> parts;
};

Stream stream_of(std::initializer_list<Bytes> modules) {
    Stream s;
    for (const Bytes& m : modules) {
        s.content.insert(s.content.end(), m.begin(), m.end());
        s.parts.push_back(m.size());
    }
    return s;
}

Bytes pack(const Stream& s) { return pack_frames(s.content, s.parts, 19); }

// Unpacks all of `packed` (in a buffer of its own size) into `size` bytes.
Unpacked unpack_all(const Bytes& packed, size_t size, Bytes* out = nullptr) {
    std::unique_ptr<uint8_t[]> exact(new uint8_t[packed.size()]);
    std::copy(packed.begin(), packed.end(), exact.get());
    Bytes result(size, 0xA5);
    FrameCursor at;
    Unpacked r = unpack_frames({exact.get(), packed.size()}, result, at, size);
    if (out) *out = result;
    return r;
}

} // namespace

TEST_CASE("frames: modules round-trip, and a later frame matches into the earlier ones") {
    Bytes module = synthetic_module(0, 2000);
    Stream one = stream_of({module});
    Bytes packed_one = pack(one);
    CHECK(packed_one.size() < module.size());
    Bytes out;
    CHECK(unpack_all(packed_one, module.size(), &out) == Unpacked::ok);
    CHECK(out == module);

    Stream three = stream_of({module, synthetic_module(37, 2000), synthetic_module(1000, 2000)});
    Bytes packed_three = pack(three);
    CHECK(unpack_all(packed_three, three.content.size(), &out) == Unpacked::ok);
    CHECK(out == three.content);
    Bytes packed_twice = pack(stream_of({module, module}));
    CHECK(packed_twice.size() < packed_one.size() + 100); // the second frame, a match into the first
    CHECK(unpack_all(packed_twice, module.size() * 2, &out) == Unpacked::ok);

    Stream text = stream_of({random_bytes(1, 1)});
    CHECK(unpack_all(pack(text), 1, &out) == Unpacked::ok);
    CHECK(out == text.content);
    Stream noise = stream_of({random_bytes(100000, 2), random_bytes(3, 3)});
    CHECK(unpack_all(pack(noise), noise.content.size(), &out) == Unpacked::ok);
    CHECK(out == noise.content);
}

TEST_CASE("frames: a stream unpacks front to back, a module at a time") {
    Stream s = stream_of({synthetic_module(0, 3000), synthetic_module(37, 3000), synthetic_module(74, 3000)});
    Bytes packed = pack(s);
    Bytes out(s.content.size(), 0);
    FrameCursor at;
    CHECK(unpack_frames(packed, out, at, 0) == Unpacked::ok);
    CHECK(at.unpacked == 0);
    // One byte of the first module asks for all of it, and no more.
    REQUIRE(unpack_frames(packed, out, at, 1) == Unpacked::ok);
    CHECK(at.unpacked == s.parts[0]);
    CHECK(std::equal(out.begin(), out.begin() + std::ptrdiff_t(s.parts[0]), s.content.begin()));
    CHECK(std::all_of(out.begin() + std::ptrdiff_t(s.parts[0]), out.end(), [](uint8_t b) { return b == 0; }));
    // The third: through the second, each with the bytes before it as its prefix.
    REQUIRE(unpack_frames(packed, out, at, s.content.size()) == Unpacked::ok);
    CHECK(at.unpacked == s.content.size());
    CHECK(at.packed == packed.size());
    CHECK(out == s.content);
    CHECK(unpack_frames(packed, out, at, s.content.size()) == Unpacked::ok); // asking again changes nothing
}

TEST_CASE("frames: a wrong size, a cut or an extended stream is damaged") {
    Stream s = stream_of({synthetic_module(0, 100), synthetic_module(3, 100), random_bytes(50, 3)});
    Bytes packed = pack(s);
    REQUIRE(unpack_all(packed, s.content.size()) == Unpacked::ok);
    CHECK(unpack_all(packed, s.content.size() - 1) == Unpacked::damaged);
    CHECK(unpack_all(packed, s.content.size() + 1) == Unpacked::damaged);
    for (size_t length = 0; length < packed.size(); ++length) {
        CAPTURE(length);
        CHECK(unpack_all(Bytes(packed.begin(), packed.begin() + std::ptrdiff_t(length)), s.content.size()) ==
              Unpacked::damaged);
    }
    Bytes extended = packed;
    extended.push_back(0);
    CHECK(unpack_all(extended, s.content.size()) == Unpacked::damaged);
    Bytes out(s.content.size());
    FrameCursor beyond{packed.size() + 1, 0};
    CHECK(unpack_frames(packed, out, beyond, out.size()) == Unpacked::damaged);
    FrameCursor past_until;
    CHECK(unpack_frames(packed, out, past_until, out.size() + 1) == Unpacked::damaged);
}

TEST_CASE("frames: a stream with any bit flipped, or bytes overwritten, never unpacks to other bytes") {
    Stream s = stream_of({synthetic_module(0, 60), synthetic_module(11, 60), random_bytes(20, 4)});
    const Bytes packed = pack(s);
    REQUIRE(unpack_all(packed, s.content.size()) == Unpacked::ok);
    size_t rejected = 0, trials = 0;
    auto check_damaged = [&](const Bytes& damaged) {
        Bytes out;
        Unpacked r = unpack_all(damaged, s.content.size(), &out);
        // A flip the frames do not depend on (say, a window size the one-shot decoder never needs)
        // may unpack, but only to the same bytes.
        CHECK((r != Unpacked::ok || out == s.content));
        CHECK(r != Unpacked::out_of_memory);
        rejected += r != Unpacked::ok;
        ++trials;
    };
    for (size_t bit = 0; bit < packed.size() * 8; ++bit) {
        CAPTURE(bit);
        Bytes damaged = packed;
        damaged[bit / 8] ^= uint8_t(1u << bit % 8);
        check_damaged(damaged);
    }
    std::mt19937 rng(5);
    for (int trial = 0; trial < 3000; ++trial) {
        CAPTURE(trial);
        Bytes damaged = packed;
        int bytes = 1 + trial % 4;
        for (int k = 0; k < bytes; ++k) damaged[rng() % damaged.size()] ^= uint8_t(1 + rng() % 255);
        if (damaged == packed) continue; // two changes undid each other
        check_damaged(damaged);
    }
    CHECK(rejected * 100 >= trials * 99);
}

TEST_CASE("frames: random bytes are damaged") {
    std::mt19937 rng(6);
    for (int trial = 0; trial < 2000; ++trial) {
        CAPTURE(trial);
        Bytes garbage = random_bytes(rng() % 600, uint32_t(trial));
        if (trial % 2 && garbage.size() >= 4) { // zstd's magic number, so that the decoder meets the garbage
            garbage[0] = 0x28, garbage[1] = 0xB5, garbage[2] = 0x2F, garbage[3] = 0xFD;
        }
        CHECK(unpack_all(garbage, 1 + rng() % 5000) == Unpacked::damaged);
    }
}
