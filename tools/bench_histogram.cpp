// vkc bench histogram: the device-wide histogram (HistogramPlan on the Context's buffers) against a read
// of the samples' bytes measured in the same run (a histogram reads its samples once and writes a few
// counts: the read is its memory bound) and, given bench/cuda/cub_histogram's output, against CUB's
// DeviceHistogram on the same samples: a hash of the index over the bins' whole range.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <type_traits>
#include <vector>

#include "arguments.hpp"
#include "bench.hpp"
#include "vkc/vkc.hpp"

namespace vkc::tool {

namespace {

using HistogramBenchOptions = SweepOptions;

// The cases, in the tables' order: CUB's op name (bench/cuda/cub_histogram), the sample type, the bins.
struct Case {
    const char* op;
    Type type;
    Binning binning;
    uint32_t bins;     // a channel
    uint32_t channels; // samples a pixel
    uint32_t active;   // channels counted
    double lower, upper; // even bins: [lower, upper)
    const char* what;
};
constexpr uint32_t range_bins = 256;
constexpr Case cases[] = {
    {"even_u8_256", Type::u8, Binning::even, 256, 1, 1, 0, 256, "u8, 256 even bins over [0, 256)"},
    {"even_u8x4_3_256", Type::u8, Binning::even, 256, 4, 3, 0, 256,
     "u8 RGBA pixels, 256 even bins over [0, 256) for each of R, G and B (A not counted)"},
    {"even_u16_1024", Type::u16, Binning::even, 1024, 1, 1, 0, 65536, "u16, 1024 even bins over [0, 65536)"},
    {"even_u32_256", Type::u32, Binning::even, 256, 1, 1, 0, 4294967296.0, "u32, 256 even bins over [0, 2^32)"},
    {"even_f32_1024", Type::f32, Binning::even, 1024, 1, 1, 0, 1, "f32 in [0, 1), 1024 even bins over [0, 1)"},
    {"range_f32_256", Type::f32, Binning::range, range_bins, 1, 1, 0, 0,
     "f32 in [0, 1), 256 bins between the levels i / 257 (i = 0 to 256; samples from 256/257 up count nowhere)"},
};

// bench/cuda/cub_histogram's samples (its hash32(i) is hash(i + 1) here): the hash's top bits, so that
// each type's samples cover its bins evenly; f32: k / 2^24 for the top 24 bits k, exact, in [0, 1).
uint32_t bits_at(uint64_t i) { return hash(uint32_t(i) + 1); }
float level_at(uint32_t i) { return float(i) / 257.0f; }

// The bin of a sample as histogram.hpp defines it, or -1 for none.
int64_t bin_of(const Case& c, double x, const std::vector<float>& levels) {
    if (c.binning == Binning::range) {
        if (!(x >= levels.front() && x < levels.back())) return -1;
        return (std::upper_bound(levels.begin(), levels.end(), float(x)) - levels.begin()) - 1;
    }
    if (!(x >= c.lower && x < c.upper)) return -1;
    if (is_float(c.type)) {
        const float lower = float(c.lower), upper = float(c.upper);
        const float scale = float(double(c.bins) / (double(upper) - double(lower)));
        return std::min<int64_t>(int64_t(std::floor((float(x) - lower) * scale)), c.bins - 1);
    }
    return int64_t(uint64_t(x - c.lower) * c.bins / uint64_t(c.upper - c.lower)); // exact in 64 bits
}

// Samples [from, to) of the case's type into host (the sample's bytes at i x size), counted into want.
template <class T>
void make_samples(const Case& c, uint64_t from, uint64_t to, std::vector<unsigned char>& host,
                  std::vector<uint32_t>& want, const std::vector<float>& levels) {
    for (uint64_t i = from; i < to; ++i) {
        const uint32_t h = bits_at(i);
        T x;
        if constexpr (sizeof(T) == 1) x = T(h >> 24);
        else if constexpr (sizeof(T) == 2) x = T(h >> 16);
        else if constexpr (std::is_same_v<T, float>) x = float(h >> 8) * (1.0f / 16777216.0f);
        else x = h;
        std::memcpy(&host[i * sizeof(T)], &x, sizeof(T));
        const uint32_t channel = uint32_t(i % c.channels);
        if (channel >= c.active) continue;
        const int64_t bin = bin_of(c, double(x), levels);
        if (bin >= 0) ++want[size_t(channel) * c.bins + size_t(bin)];
    }
}

int run(const HistogramBenchOptions& o) {
    ContextOptions co;
    co.device = o.device;
    Context ctx(co);
    ctx.set_timing(true, 1);
    const DeviceInfo& d = ctx.info();
    CubRows cub; // bench/cuda/cub_histogram rows: op,type,n,median_ms,gitems_per_s
    if (!o.cub_csv.empty()) cub = read_cub_rows(o.cub_csv, 3);
    const uint64_t max_n = uint64_t(1) << o.max_log2;
    std::printf("# vkc bench histogram: %s (%s), %s, 2^%d to 2^%d samples, median of %d runs, each measurement "
                "after 300 ms of its own work\n",
                d.name.c_str(), d.driver.c_str(), today().c_str(), o.min_log2, o.max_log2, o.runs);
    std::printf("# G samples/s: input samples a second (RGBA: 4 a pixel); GB/s: the samples' bytes a second;\n"
                "# / read: the time a read of the samples' bytes takes (a compute-shader uvec4 pass, this run) over\n"
                "# the histogram's; CUB: bench/cuda/cub_histogram on this GPU (DeviceHistogram). Samples: a hash\n"
                "# of the index over the bins' whole range; the plan's time includes zeroing the counts\n");
    // The samples, up to 32-bit ones; the read's output must be as large as its input (nothing is
    // written to it).
    Buffer samples = ctx.create_buffer(max_n * 4), sink = ctx.create_buffer(max_n * 4),
           counts = ctx.create_buffer(1024 * 4), levels = ctx.create_buffer((range_bins + 1) * 4),
           scratch = ctx.create_buffer(histogram_scratch_bytes_needed);
    std::vector<float> level_host;
    for (uint32_t i = 0; i <= range_bins; ++i) level_host.push_back(level_at(i));
    ctx.upload(levels, level_host.data(), level_host.size() * 4); // float boundaries for float samples
    std::vector<unsigned char> host(max_n * 4);
    int failures = 0;
    for (const Case& c : cases) {
        const std::string type(short_name(c.type));
        const uint32_t total_bins = c.bins * c.active;
        HistogramOptions ho;
        ho.binning = c.binning;
        ho.channels = c.channels;
        ho.active_channels = c.active;
        for (uint32_t ch = 0; ch < c.active; ++ch) ho.channel[ch] = {c.bins, c.lower, c.upper};
        std::printf("\n%s: %s\n\n", c.op, c.what);
        std::printf("| samples | read GB/s | G samples/s | GB/s | / read | CUB G samples/s | / CUB |\n"
                    "|---:|---:|---:|---:|---:|---:|---:|\n");
        // A sample depends on its index only: each size's samples are the last size's and more, and so
        // are its counts.
        std::vector<uint32_t> want(total_bins);
        uint64_t made = 0;
        for (int e = o.min_log2; e <= o.max_log2; e += o.step) {
            const uint64_t n = uint64_t(1) << e;
            switch (c.type) {
            case Type::u8: make_samples<uint8_t>(c, made, n, host, want, level_host); break;
            case Type::u16: make_samples<uint16_t>(c, made, n, host, want, level_host); break;
            case Type::u32: make_samples<uint32_t>(c, made, n, host, want, level_host); break;
            default: make_samples<float>(c, made, n, host, want, level_host); break;
            }
            made = n;
            const uint64_t bytes = n * size_of(c.type); // whole words: n >= 2^10
            ctx.upload(samples, host.data(), bytes);
            auto median = [&](const std::function<void()>& timed) { return median_gpu_ms(ctx, o.runs, timed); };
            WorkgroupRequest read{Collective::read, Type::u32, Op::add, {256}, bytes / 4};
            const double read_ms = median([&] { ctx.run(read, samples, sink); });
            HistogramRanges r;
            r.samples = {samples.handle(), 0, bytes};
            if (c.binning == Binning::range) r.levels = {levels.handle(), 0, levels.size()};
            r.histogram = {counts.handle(), 0, uint64_t(total_bins) * 4};
            r.scratch = {scratch.handle(), 0, scratch.size()};
            HistogramPlan plan = ctx.device().plan_histogram(c.type, n / c.channels, r, ho);
            const double ms = median([&] { ctx.run(plan); });
            std::vector<uint32_t> got(total_bins);
            ctx.download(counts, got.data(), uint64_t(total_bins) * 4);
            for (uint32_t b = 0; b < total_bins; ++b) {
                if (got[b] != want[b]) {
                    std::printf("FAIL %s n=%llu: bin %u counts %u (want %u)\n", c.op, (unsigned long long)n, b, got[b],
                                want[b]);
                    ++failures;
                    break;
                }
            }
            auto it = cub.find({c.op, type, n});
            const double cub_ms = it == cub.end() ? 0 : it->second;
            char cub_rate[32] = "-", vs_cub[32] = "-";
            if (cub_ms > 0) {
                std::snprintf(cub_rate, sizeof cub_rate, "%.2f", n / cub_ms * 1e-6);
                std::snprintf(vs_cub, sizeof vs_cub, "%.3f", cub_ms / ms);
            }
            std::printf("| 2^%d | %.0f | %.2f | %.0f | %.3f | %s | %s |\n", e, bytes / read_ms * 1e-6, n / ms * 1e-6,
                        bytes / ms * 1e-6, read_ms / ms, cub_rate, vs_cub);
            std::fflush(stdout);
        }
    }
    std::printf("\nbench: %d checks failed\n", failures);
    return failures ? 1 : 0;
}

} // namespace

const char* bench_histogram_usage =
    "  bench histogram [options]   device-wide histograms (even bins of u8, RGBA u8, u16, u32 and f32 samples;\n"
    "                              f32 between levels) by size; samples a second, ratio to a read of the\n"
    "                              samples' bytes, and to CUB when given\n"
    "    --device X --min-log2 16 --max-log2 28 --step 2 --runs 15\n"
    "    --cub FILE (output of bench/cuda/cub_histogram)\n";

int bench_histogram(int argc, char** argv) {
    Arguments args(argc, argv);
    args.next(); // "histogram"
    HistogramBenchOptions o;
    while (args.next()) {
        if (!o.take(args)) args.unknown();
    }
    o.check();
    return run(o);
}

} // namespace vkc::tool
