// vkcollectives: the device-wide select's CPU reference and case runner, shared by `vkc selftest`
// and the doctest suites.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "verify/verify.hpp"
#include "vkc/select.hpp"

namespace vkc::verify {

// Items a select case draws: every bit random; runs of equal items (a new value a quarter of the
// time); one item; floats with -0, +0, denormals, infinities and NaNs among ordinary numbers (for
// int types, small numbers of both signs).
enum class SelectPattern { random, runs, equal, floats_special };
// Flags of Selection::flagged: random, all set, none set, every other one.
enum class FlagPattern { random, all, none, alternating };
const char* name(SelectPattern);
const char* name(FlagPattern);
// The items' bits (32-bit types in the low half).
std::vector<uint64_t> select_items(Type item, SelectPattern, uint64_t count, uint64_t seed);
std::vector<uint32_t> select_flags(FlagPattern, uint64_t count, uint64_t seed);
// What a select must give: the output's items (all count of them with partition, else the kept ones)
// as bits, and the number kept.
std::vector<uint64_t> select_reference(Type item, const std::vector<uint64_t>& items, const std::vector<uint32_t>& flags,
                                       const SelectOptions& o, uint64_t& kept);

// A select of `count` items of a pattern through Context::select_host, checked against the reference.
struct SelectCase {
    Type item = Type::u32;
    uint64_t count = 0;
    SelectPattern pattern = SelectPattern::random;
    FlagPattern flags = FlagPattern::random;
    SelectOptions options;
    uint64_t seed = 1;
    std::string label() const; // "select uint n=1000 random flagged (alternating) partition"
};
Outcome run_select_case(Context& context, const SelectCase& c);

} // namespace vkc::verify
