// The device-wide histogram's CPU reference and case runner (verify/histogram.hpp).
#include "verify/histogram.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>

#include "verify/runner.hpp"

namespace vkc::verify {

namespace {
uint32_t sample_mask(Type t) { return size_of(t) == 4 ? 0xffffffffu : (1u << (8 * size_of(t))) - 1u; }

// A sample's value from its bits: floats (halves widened) as float, integers sign-extended.
float float_of(Type t, uint32_t bits) {
    return t == Type::f16 ? float(half::from_bits(uint16_t(bits))) : std::bit_cast<float>(bits);
}
int64_t integer_of(Type t, uint32_t bits) {
    if (!is_signed_integer(t)) return int64_t(bits);
    const int shift = 64 - int(size_of(t)) * 8;
    return int64_t(uint64_t(bits) << shift) >> shift;
}
uint32_t bits_of(Type t, double v) {
    if (t == Type::f16) return half(float(v)).bits;
    if (t == Type::f32) return std::bit_cast<uint32_t>(float(v));
    return uint32_t(uint64_t(int64_t(v))) & sample_mask(t);
}
// The type's integer range, as doubles.
void limits_of(Type t, double& low, double& high) {
    const int bits = int(size_of(t)) * 8;
    low = is_signed_integer(t) ? -std::ldexp(1.0, bits - 1) : 0.0;
    high = is_signed_integer(t) ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
}

// The bin of a sample in one channel, or false where it is in none.
bool bin_of(Type t, uint32_t bits, const HistogramOptions& o, const HistogramChannel& ch, const double* levels,
            uint32_t& bin) {
    if (is_float(t)) {
        const float x = float_of(t, bits);
        if (std::isnan(x)) return false;
        if (o.binning == Binning::range) {
            std::vector<float> l(levels, levels + ch.bins + 1);
            if (!(x >= l[0] && x < l[ch.bins])) return false;
            bin = uint32_t(std::upper_bound(l.begin(), l.end(), x) - l.begin() - 1);
            return true;
        }
        const float lower = float(ch.lower), upper = float(ch.upper);
        if (!(x >= lower && x < upper)) return false;
        const float scale = float(double(ch.bins) / (double(upper) - double(lower)));
        const float offset = x - lower;
        const float scaled = offset * scale;
        bin = std::min(uint32_t(scaled), ch.bins - 1);
        return true;
    }
    const int64_t x = integer_of(t, bits);
    if (o.binning == Binning::range) {
        std::vector<int64_t> l(levels, levels + ch.bins + 1);
        if (!(x >= l[0] && x < l[ch.bins])) return false;
        bin = uint32_t(std::upper_bound(l.begin(), l.end(), x) - l.begin() - 1);
        return true;
    }
    const int64_t lower = int64_t(ch.lower), upper = int64_t(ch.upper);
    if (x < lower || x >= upper) return false;
    bin = uint32_t(uint64_t(x - lower) * ch.bins / uint64_t(upper - lower));
    return true;
}
} // namespace

const char* name(SamplePattern p) {
    switch (p) {
    case SamplePattern::random: return "random bits";
    case SamplePattern::in_bins: return "in bins";
    case SamplePattern::edges: return "edges";
    }
    return "?";
}

std::vector<uint32_t> histogram_samples(Type t, SamplePattern p, uint64_t count, const HistogramOptions& o,
                                        uint64_t seed) {
    std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ull + 7);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    const uint32_t channels = std::max(1u, o.channels);
    std::vector<uint32_t> out(count);
    double type_low, type_high;
    limits_of(t, type_low, type_high);
    for (uint64_t i = 0; i < count; ++i) {
        const HistogramChannel& ch = o.channel[std::min<uint64_t>(i % channels, std::max(1u, o.active_channels) - 1)];
        const uint32_t random_bits = uint32_t(rng()) & sample_mask(t);
        // inside [lower, upper): integers uniformly, floats as lower + (upper - lower) x u
        double inside = ch.lower + (ch.upper - ch.lower) * unit(rng);
        if (!is_float(t)) inside = std::min(std::floor(inside), ch.upper - 1);
        if (p == SamplePattern::random || (p == SamplePattern::in_bins && rng() % 10 == 0)) {
            out[i] = random_bits;
        } else if (p == SamplePattern::in_bins || rng() % 2 == 0) {
            out[i] = bits_of(t, inside);
        } else if (is_float(t)) {
            const float lower = float(ch.lower), upper = float(ch.upper);
            const float inf = std::numeric_limits<float>::infinity();
            const float edges[] = {lower, upper, std::nextafter(upper, -inf), std::nextafter(lower, -inf),
                                   std::nextafter(lower, inf), 0.0f, -0.0f, 1e-40f, -1e-40f, inf, -inf,
                                   std::numeric_limits<float>::quiet_NaN(), -std::numeric_limits<float>::quiet_NaN(),
                                   6e-8f, -6e-8f};
            const float e = edges[rng() % std::size(edges)];
            out[i] = t == Type::f16 ? half(e).bits : std::bit_cast<uint32_t>(e);
        } else {
            const double edges[] = {ch.lower, ch.lower - 1, ch.upper - 1, ch.upper, type_low, type_high, 0, -1, 1};
            const double e = std::clamp(edges[rng() % std::size(edges)], type_low, type_high);
            out[i] = bits_of(t, e);
        }
    }
    return out;
}

std::vector<double> histogram_levels(Type t, const HistogramOptions& o, uint64_t seed) {
    std::mt19937_64 rng(seed * 0x2545f4914f6cdd1dull + 3);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    double type_low, type_high;
    limits_of(t, type_low, type_high);
    // levels are 32-bit numbers: integers up to the 32-bit type's largest
    const double level_high = is_signed_integer(t) ? 2147483647.0 : 4294967295.0;
    std::vector<double> levels;
    for (uint32_t c = 0; c < o.active_channels; ++c) {
        const HistogramChannel& ch = o.channel[c];
        std::vector<double> l(ch.bins + 1);
        for (double& v : l) {
            v = ch.lower + (ch.upper - ch.lower) * unit(rng);
            v = is_float(t) ? double(float(v)) : std::min(std::floor(v), level_high);
        }
        l.front() = is_float(t) ? double(float(ch.lower)) : ch.lower;
        l.back() = is_float(t) ? double(float(ch.upper)) : std::min(ch.upper, level_high);
        std::sort(l.begin(), l.end());
        levels.insert(levels.end(), l.begin(), l.end());
    }
    return levels;
}

std::vector<uint32_t> histogram_reference(Type t, const std::vector<uint32_t>& samples, const HistogramOptions& o,
                                          std::span<const double> levels) {
    uint32_t first_bin[4] = {}, first_level[4] = {}, total = 0, total_levels = 0;
    for (uint32_t c = 0; c < o.active_channels; ++c) {
        first_bin[c] = total;
        first_level[c] = total_levels;
        total += o.channel[c].bins;
        total_levels += o.channel[c].bins + 1;
    }
    std::vector<uint32_t> counts(total);
    for (uint64_t i = 0; i < samples.size(); ++i) {
        const uint32_t c = uint32_t(i % o.channels);
        if (c >= o.active_channels) continue;
        uint32_t bin;
        const double* l = o.binning == Binning::range ? levels.data() + first_level[c] : nullptr;
        if (bin_of(t, samples[i], o, o.channel[c], l, bin)) ++counts[first_bin[c] + bin];
    }
    return counts;
}

std::vector<uint8_t> pack_samples(Type t, const std::vector<uint32_t>& samples) {
    const size_t bytes = size_of(t);
    std::vector<uint8_t> out(samples.size() * bytes);
    for (size_t i = 0; i < samples.size(); ++i) std::memcpy(out.data() + i * bytes, &samples[i], bytes); // little-endian
    return out;
}

std::string HistogramCase::label() const {
    const HistogramOptions& o = options;
    std::string s = "histogram " + std::string(name(sample)) + " n=" + std::to_string(pixels);
    if (o.channels > 1) {
        s += " " + std::to_string(o.channels) + " channels (" + std::to_string(o.active_channels) + " active)";
    }
    char bounds[80];
    std::snprintf(bounds, sizeof bounds, " [%.9g, %.9g)", o.channel[0].lower, o.channel[0].upper);
    s += (o.binning == Binning::even ? " even " : " range ") + std::to_string(o.channel[0].bins) + " bins" + bounds +
         " " + name(pattern);
    if (o.test.force_device_atomics) s += " device atomics";
    return s;
}

Outcome run_histogram_case(Context& ctx, const HistogramCase& c) {
    return detail::guarded(ctx, Collective::histogram, Type::u32, Op::add, [&](detail::Runner& r) {
        const HistogramOptions& o = c.options;
        const std::vector<uint32_t> samples = histogram_samples(c.sample, c.pattern, c.pixels * o.channels, o, c.seed);
        const std::vector<double> levels =
            o.binning == Binning::range ? histogram_levels(c.sample, o, c.seed) : std::vector<double>{};
        const std::vector<uint32_t> want = histogram_reference(c.sample, samples, o, levels);
        const std::vector<uint8_t> packed = pack_samples(c.sample, samples);
        const std::vector<uint32_t> got = ctx.histogram_host(packed.data(), samples.size(), c.sample, o, levels);
        if (got.size() != want.size()) {
            r.fail(std::to_string(got.size()) + " counts (want " + std::to_string(want.size()) + ")");
            return;
        }
        for (size_t b = 0; b < want.size(); ++b) {
            if (got[b] != want[b]) {
                r.fail("bin " + std::to_string(b) + ": " + std::to_string(got[b]) + " (want " + std::to_string(want[b]) +
                       ")");
                return;
            }
        }
        r.validation_clean();
    });
}

} // namespace vkc::verify
