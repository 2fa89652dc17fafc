// vkcollectives: the device-wide histogram's CPU reference and case runner, shared by `vkc selftest`
// and the doctest suites.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "verify/verify.hpp"
#include "vkc/histogram.hpp"

namespace vkc::verify {

// Samples a histogram case draws: every bit random (for narrow bins most fall outside); inside the
// channel's bounds nine times in ten, random bits else; and the values at the edges: the bounds
// themselves, one below and one past them, the type's extremes, and for floats -0, +0, denormals,
// infinities and NaNs.
enum class SamplePattern { random, in_bins, edges };
const char* name(SamplePattern);
// Sample i's bits (8- and 16-bit samples in the low bits); channel c of pixel p is sample p x channels + c.
std::vector<uint32_t> histogram_samples(Type sample, SamplePattern, uint64_t count, const HistogramOptions& o,
                                        uint64_t seed);
// Binning::range: each active channel's bins + 1 ascending levels, drawn between the channel's lower
// and upper (repeats allowed: a bin may be empty), as values of the sample type.
std::vector<double> histogram_levels(Type sample, const HistogramOptions& o, uint64_t seed);
// The counts a histogram must give: each active channel's bins, one after another.
std::vector<uint32_t> histogram_reference(Type sample, const std::vector<uint32_t>& samples, const HistogramOptions& o,
                                          std::span<const double> levels);
// Samples' bits packed as the host array of the sample type (bytes of size_of(sample) each).
std::vector<uint8_t> pack_samples(Type sample, const std::vector<uint32_t>& samples);

// A histogram of `pixels` pixels of a pattern through Context::histogram_host, checked against the
// reference.
struct HistogramCase {
    Type sample = Type::u8;
    uint64_t pixels = 0;
    SamplePattern pattern = SamplePattern::in_bins;
    HistogramOptions options;
    uint64_t seed = 1;
    std::string label() const; // "histogram uchar n=1000 even 256 bins [0, 256) in bins"
};
Outcome run_histogram_case(Context& context, const HistogramCase& c);

} // namespace vkc::verify
