// vkcollectives: the device-wide sort's CPU reference and case runner, shared by `vkc selftest` and
// the doctest suites.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "verify/verify.hpp"
#include "vkc/sort.hpp"

namespace vkc::verify {

// Keys a sort case draws: every bit random, one key, already in order, in reverse, five distinct
// keys, only the top byte or only the bottom byte set, and float keys with -0, +0, denormals,
// infinities and NaNs of both signs among ordinary numbers.
enum class SortPattern { random, equal, sorted, reversed, few, high_bits, low_bits, floats_special };
const char* name(SortPattern);
std::vector<uint32_t> sort_keys(SortPattern, uint64_t count, uint64_t seed);
// The same patterns for 64-bit keys (floats_special: doubles); 8- and 16-bit keys (halves) are drawn
// in src/verify/sort.cpp.
std::vector<uint64_t> sort_keys_64(SortPattern, uint64_t count, uint64_t seed);

// The order the sort must give: key indices, stable, by the options' bits of the ordered key (the
// order-preserving transform of int and float bits, complemented when descending).
std::vector<uint32_t> sort_reference_order(Type key, const std::vector<uint32_t>& keys, const SortOptions& o);
std::vector<uint32_t> sort_reference_order(Type key, const std::vector<uint64_t>& keys, const SortOptions& o);

// A sort of `count` keys of a pattern through Context::sort_host, with values of value_bytes (0: keys
// only) that hold each key's input index, so that stability shows; checked against the reference.
struct SortCase {
    Type key = Type::u32;
    uint32_t value_bytes = 0;
    uint64_t count = 0;
    SortPattern pattern = SortPattern::random;
    SortOptions options;
    uint64_t seed = 1;
    std::string label() const; // "sort uint n=1000 random bits [0, 32) descending values 8"
};
Outcome run_sort_case(Context& context, const SortCase& c);

} // namespace vkc::verify
