// vkcollectives: the segmented scans' and reductions' CPU reference and case runner, shared by
// `vkc selftest` and the doctest suites.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "verify/verify.hpp"
#include "vkc/segmented.hpp"

namespace vkc::verify {

// Where segments start: at random (a head an item in 8), every item its own segment, one segment of
// every item, one huge segment between segments of 1 to 3 items, lengths of 1 to 16 at random.
// With keys, floats also carry -0 after +0 (the same run) and NaN keys (a run each).
enum class SegmentPattern { random, every_item, one, huge_among_tiny, short_runs };
const char* name(SegmentPattern);
// Head flags of a pattern: heads[i] != 0 where item i starts a segment (item 0's flag left random:
// it starts one anyway).
std::vector<uint32_t> segment_heads(SegmentPattern, uint64_t count, uint64_t seed);
// Offsets of Segments::offsets whose segments are the pattern's, with empty segments among them
// now and then, and (seed by seed) items before the first segment and after the last.
std::vector<uint32_t> segment_offsets(SegmentPattern, uint64_t count, uint64_t seed);
// Keys (bits, 32-bit types in the low half) whose runs are the pattern's segments, or near them
// (float keys: -0 and +0 are one run, a NaN a run of its own).
std::vector<uint64_t> segment_keys(Type key, SegmentPattern, uint64_t count, uint64_t seed);

// A segmented scan, reduction or run-length encoding of `count` items through
// Context::segmented_host, checked against the CPU reference: exact for integers and for float min,
// max and mul (bit for bit), float add within the summation bound of each segment. special: float
// values include NaNs, infinities, signed zeros and denormals (min and max).
struct SegmentedCase {
    Type value = Type::u32;
    Op op = Op::add;
    uint64_t count = 0;
    SegmentPattern pattern = SegmentPattern::random;
    SegmentedOptions options;
    bool special = false;
    uint64_t seed = 1;
    std::string label() const; // "reduce by key float add (keys ulong) n=1000 random forced fallback"
};
Outcome run_segmented_case(Context& context, const SegmentedCase& c);

} // namespace vkc::verify
