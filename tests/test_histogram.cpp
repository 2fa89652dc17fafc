// Device-wide histograms (Context::histogram, plans on a caller's buffers) against the CPU reference of
// src/verify/histogram.cpp, at whatever subgroup width the entry runs (CTest runs lavapipe at every
// width, on the shared-memory path and with one CPU thread). The kernel uses no subgroup operation:
// the widths share the matrices out rather than each running them whole.
#include "support.hpp"

#include "verify/histogram.hpp"

#include <algorithm>
#include <cmath>
#include <string>

using namespace vkc;

namespace {

using verify::SamplePattern;
constexpr uint64_t tile_words = 256 * 16; // a work-group's tile: 4096 words of samples

HistogramOptions even(uint32_t bins, double lower, double upper, uint32_t channels = 1, uint32_t active = 1) {
    HistogramOptions o;
    o.channels = channels;
    o.active_channels = active;
    for (uint32_t c = 0; c < active; ++c) o.channel[c] = {bins + c, lower, upper};
    return o;
}
HistogramOptions ranged(uint32_t bins, double lower, double upper, uint32_t channels = 1, uint32_t active = 1) {
    HistogramOptions o = even(bins, lower, upper, channels, active);
    o.binning = Binning::range;
    return o;
}

void check_histogram(Type t, SamplePattern p, uint64_t pixels, const HistogramOptions& o, uint64_t seed = 1) {
    verify::HistogramCase c;
    c.sample = t;
    c.pattern = p;
    c.pixels = pixels;
    c.options = o;
    c.seed = seed;
    verify::Outcome outcome = verify::run_histogram_case(test::context(), c);
    INFO(c.label());
    CHECK_MESSAGE(outcome.status == verify::Status::pass, outcome.detail);
}


// Bounds that cut each sample type's values into bins with some samples outside.
void bounds_of(Type t, double& lower, double& upper) {
    switch (t) {
    case Type::u8: lower = 10, upper = 250; break;
    case Type::i8: lower = -100, upper = 100; break;
    case Type::u16: lower = 300, upper = 60000; break;
    case Type::i16: lower = -30000, upper = 20000; break;
    case Type::u32: lower = 1000, upper = 4000000000.0; break;
    case Type::i32: lower = -2000000000.0, upper = 1500000000.0; break;
    default: lower = -2.5, upper = 3.0; break; // f16, f32
    }
}

} // namespace

// Each (sample type, binning, channels) is a pipeline of its own: a width runs a third of them.
TEST_CASE("histogram: every sample type, even and range bins, one to four channels") {
    uint64_t index = 0;
    for (Type t : {Type::u8, Type::i8, Type::u16, Type::i16, Type::u32, Type::i32, Type::f16, Type::f32}) {
        for (Binning b : {Binning::even, Binning::range}) {
            const uint32_t channels = uint32_t(index % 4) + 1;
            const uint32_t active = std::max(1u, channels - uint32_t(index / 4 % 2));
            if (!test::share(index++, 3)) continue;
            double lower, upper;
            bounds_of(t, lower, upper);
            HistogramOptions o = b == Binning::even ? even(61, lower, upper, channels, active)
                                                    : ranged(37, lower, upper, channels, active);
            check_histogram(t, SamplePattern::in_bins, 3 * tile_words + 17, o, index);
            check_histogram(t, SamplePattern::edges, 1000, o, index + 100);
        }
    }
}

TEST_CASE("histogram: counts 0, 1, a tile +- 1, many tiles; random, in-bin and edge samples") {
    uint64_t index = 0;
    for (Type t : {Type::u8, Type::f32}) {
        const uint64_t tile = tile_words * (4 / size_of(t)); // samples a tile holds
        for (uint64_t n : {uint64_t(0), uint64_t(1), uint64_t(3), tile - 1, tile, tile + 1, 13 * tile + 5}) {
            for (SamplePattern p : {SamplePattern::random, SamplePattern::in_bins, SamplePattern::edges}) {
                if (!test::share(index++, 2)) continue;
                HistogramOptions o = t == Type::u8 ? even(256, 0, 256) : even(100, -1.0, 1.0);
                check_histogram(t, p, n, o, index);
            }
        }
    }
}

TEST_CASE("histogram: integer bins exactly, narrow and wide, up to the type's whole range") {
    if (!test::share(0, 2)) return;
    // The whole range of 32-bit samples: (upper - lower) x bins past 32 bits, the exact division.
    check_histogram(Type::u32, SamplePattern::random, 5000, even(1000, 0, 4294967296.0));
    check_histogram(Type::i32, SamplePattern::edges, 5000, even(7, -2147483648.0, 2147483648.0));
    check_histogram(Type::u32, SamplePattern::edges, 3000, even(1u << 20, 3, 4294967000.0));
    // bins wider than a value, and more bins than values (some never counted)
    check_histogram(Type::u16, SamplePattern::random, 4000, even(3, 5, 65536));
    check_histogram(Type::i8, SamplePattern::random, 4000, even(1000, -128, 128));
    check_histogram(Type::u8, SamplePattern::random, 4000, even(1, 0, 1));
    // bins a power of two values wide: a shift, up to 2^24 values a bin
    check_histogram(Type::u16, SamplePattern::random, 4000, even(1024, 0, 65536));
    check_histogram(Type::i32, SamplePattern::edges, 4000, even(256, -2147483648.0, 2147483648.0));
    check_histogram(Type::u32, SamplePattern::edges, 4000, even(16, 16, 16 + 16 * 8));
    check_histogram(Type::i16, SamplePattern::edges, 4000, even(100, 100, 200));
    // 8-bit samples over all 256 values in bins a power of two wide: no range checks; RGBA, 3 counted
    check_histogram(Type::i8, SamplePattern::random, 4000, even(64, -128, 128));
    HistogramOptions rgba = even(128, 0, 256, 4, 3);
    for (uint32_t c = 0; c < 3; ++c) rgba.channel[c].bins = 128 >> c;
    check_histogram(Type::u8, SamplePattern::random, 3 * tile_words + 1, rgba);
    // range bins over the whole 32-bit range
    check_histogram(Type::i32, SamplePattern::random, 4000, ranged(50, -2147483648.0, 2147483647.0));
}

TEST_CASE("histogram: many bins count with device atomics; few work-groups stride over many tiles") {
    if (!test::share(1, 2)) return;
    // past the shared capacity over all channels
    check_histogram(Type::u16, SamplePattern::in_bins, 2 * tile_words, even(5000, 0, 65536));
    check_histogram(Type::u8, SamplePattern::in_bins, 2 * tile_words, even(1500, 0, 256, 4, 3));
    check_histogram(Type::f32, SamplePattern::edges, tile_words, ranged(histogram_shared_bins + 1, -2.0, 2.0));
    HistogramOptions forced = even(256, 0, 256);
    forced.test.force_device_atomics = true;
    check_histogram(Type::u8, SamplePattern::in_bins, 3 * tile_words, forced);
    // range levels too many to stage in shared memory
    check_histogram(Type::i16, SamplePattern::in_bins, 3 * tile_words, ranged(2000, -30000, 30000));
    HistogramOptions strided = even(64, -1.0, 1.0);
    strided.test.groups = 3;
    check_histogram(Type::f32, SamplePattern::in_bins, 11 * tile_words + 7, strided);
}

TEST_CASE("histogram: plans on a caller's buffers at offsets, counts from the host and the GPU, accumulating") {
    Context& ctx = test::context();
    Device& gpu = ctx.device();
    const uint64_t bound = 5 * tile_words * 2 + 3; // u16 samples
    const uint64_t align = std::max<uint64_t>(256, ctx.info().min_storage_buffer_offset_alignment);
    auto round = [&](uint64_t b) { return (b + align - 1) / align * align; };
    HistogramOptions o = ranged(40, 0, 65536, 2, 2); // 2 channels of 40 and 41 bins
    o.channel[1].bins = 41;
    const uint64_t pixels_bound = bound / 2;
    const uint32_t bins = 81;
    const uint64_t at_samples = align, at_levels = at_samples + round(bound * 2), at_scratch = at_levels + round(83 * 4),
                   at_words = at_scratch + round(gpu.histogram_scratch_bytes(Type::u16, pixels_bound, o));
    // The words: the count read on the device at +0, a canary, then the histogram at +12 (off the
    // alignment), a canary after it.
    Buffer buffer = ctx.create_buffer(at_words + round(4 * (bins + 8)));
    uint64_t seed = 70;
    const std::vector<double> levels = verify::histogram_levels(Type::u16, o, seed);
    std::vector<uint32_t> level_words(levels.begin(), levels.end());
    ctx.upload(buffer, level_words.data(), level_words.size() * 4, at_levels);
    for (uint64_t pixels : {uint64_t(0), uint64_t(1), tile_words + 1, pixels_bound}) {
        for (bool indirect : {false, true}) {
            for (bool accumulate : {false, true}) {
                INFO("pixels " << pixels << (indirect ? ", read on the device" : "") << (accumulate ? ", accumulating" : ""));
                HistogramOptions opts = o;
                opts.accumulate = accumulate;
                std::vector<uint32_t> samples = verify::histogram_samples(Type::u16, SamplePattern::in_bins, bound, o, seed++);
                std::vector<uint8_t> packed = verify::pack_samples(Type::u16, samples);
                packed.resize((packed.size() + 3) / 4 * 4);
                std::vector<uint32_t> words(bins + 8, 0xcafef00du);
                words[0] = uint32_t(pixels);
                for (uint32_t b = 0; b < bins; ++b) words[3 + b] = accumulate ? b * 1000 : 0xdeadbeefu;
                ctx.upload(buffer, packed.data(), packed.size(), at_samples);
                ctx.upload(buffer, words.data(), words.size() * 4, at_words);
                HistogramRanges r;
                r.samples = {buffer.handle(), at_samples, packed.size()};
                r.levels = {buffer.handle(), at_levels, 83 * 4};
                r.histogram = {buffer.handle(), at_words + 12, bins * 4};
                r.scratch = {buffer.handle(), at_scratch, histogram_scratch_bytes_needed};
                HistogramPlan plan = indirect ? gpu.plan_histogram(Type::u16, IndirectCount{buffer.handle(), at_words, pixels_bound}, r, opts)
                                              : gpu.plan_histogram(Type::u16, pixels, r, opts);
                CHECK(plan.bins() == bins);
                CHECK(plan.dispatches() == (indirect || pixels > 0 ? 1u : 0u));
                ctx.run(plan);
                std::vector<uint32_t> got(words.size());
                ctx.download(buffer, got.data(), got.size() * 4, at_words);
                std::vector<uint32_t> head(samples.begin(), samples.begin() + pixels * 2);
                std::vector<uint32_t> want = verify::histogram_reference(Type::u16, head, o, levels);
                if (accumulate) {
                    for (uint32_t b = 0; b < bins; ++b) want[b] += b * 1000;
                }
                CHECK(got[0] == pixels);
                CHECK(got[1] == 0xcafef00du);
                CHECK(got[2] == 0xcafef00du);
                CHECK(std::vector<uint32_t>(got.begin() + 3, got.begin() + 3 + bins) == want);
                CHECK(got[3 + bins] == 0xcafef00du);
            }
        }
    }
}

// The calls' own work (uploads, downloads, checks) is the same at every width: half the widths run it.
TEST_CASE("histogram: Context calls on Buffers and host arrays") {
    if (!test::share(0, 2)) return;
    Context& ctx = test::context();
    std::vector<uint8_t> bytes = {0, 1, 2, 3, 4, 5, 6, 7, 8, 255};
    CHECK(ctx.histogram_even(std::span<const uint8_t>(bytes), 4, 0, 8) == std::vector<uint32_t>{2, 2, 2, 2});
    std::vector<float> xs = {-0.0f, 0.0f, 0.5f, 1.0f, 2.5f, std::nanf(""), -1.0f, 3.0f};
    std::vector<float> levels = {-1.0f, 0.0f, 1.0f, 3.0f};
    CHECK(ctx.histogram_range(std::span<const float>(xs), std::span<const float>(levels)) ==
          std::vector<uint32_t>{1, 3, 2});
    std::vector<half> halves = {half(0.25f), half(0.75f), half(-0.5f), half(1.0f)};
    CHECK(ctx.histogram_even(std::span<const half>(halves), 2, 0.0, 1.0) == std::vector<uint32_t>{1, 1});
    // RGBA, red and green counted: channel 0's 2 bins, then channel 1's 3 bins
    std::vector<uint8_t> rgba = {10, 200, 7, 7, 250, 0, 7, 7, 100, 100, 7, 7};
    HistogramOptions o;
    o.channels = 4;
    o.active_channels = 2;
    o.channel[0] = {2, 0, 256};
    o.channel[1] = {3, 0, 240};
    CHECK(ctx.histogram(std::span<const uint8_t>(rgba), o) == std::vector<uint32_t>{2, 1, 1, 1, 1});
    // On Buffers, accumulating into counts already there
    std::vector<int16_t> shorts = {-5, -1, 0, 4, 9, 10};
    Buffer samples = ctx.create_buffer(12), counts = ctx.create_buffer(8);
    ctx.upload(samples, shorts.data(), 12);
    std::vector<uint32_t> start = {100, 200};
    ctx.upload(counts, start.data(), 8);
    HistogramOptions acc;
    acc.channel[0] = {2, -5, 10};
    acc.accumulate = true;
    ctx.histogram(samples, counts, Type::i16, 6, acc);
    std::vector<uint32_t> got(2);
    ctx.download(counts, got.data(), 8);
    CHECK(got == std::vector<uint32_t>{103, 202});
}

TEST_CASE("histogram: bad arguments get errors that name the problem") {
    Context& ctx = test::context();
    Device& gpu = ctx.device();
    const uint64_t n = 1000;
    Buffer samples = ctx.create_buffer(n * 4), counts = ctx.create_buffer(1024), levels = ctx.create_buffer(1024),
           scratch = ctx.create_buffer(histogram_scratch_bytes_needed);
    std::vector<uint32_t> original(256, 0x5a5a5a5au);
    ctx.upload(counts, original.data(), 1024);
    auto whole = [](const Buffer& b) { return BufferRange{b.handle(), 0, b.size()}; };
    auto contains = [](const std::string& message, const char* part) {
        INFO(message);
        CHECK(message.find(part) != std::string::npos);
    };
    HistogramRanges r;
    r.samples = whole(samples);
    r.levels = whole(levels);
    r.histogram = whole(counts);
    r.scratch = whole(scratch);
    const HistogramOptions o = even(16, 0, 256);
    contains(test::error_of([&] { gpu.plan_histogram(Type::f64, n, r, o); }), "samples of type double are not supported");
    HistogramOptions bad = o;
    bad.binning = Binning(7);
    contains(test::error_of([&] { gpu.plan_histogram(Type::u8, n, r, bad); }), "binning 7 is not a Binning");
    bad = o;
    bad.channels = 5;
    contains(test::error_of([&] { gpu.plan_histogram(Type::u8, n, r, bad); }), "channels 5 is outside 1 to 4");
    bad = o;
    bad.active_channels = 2;
    contains(test::error_of([&] { gpu.plan_histogram(Type::u8, n, r, bad); }), "active_channels 2 is outside 1 to channels (1)");
    bad = o;
    bad.channel[0].bins = 0;
    contains(test::error_of([&] { gpu.plan_histogram(Type::u8, n, r, bad); }), "channel 0's bins 0 is outside 1 to");
    bad = even(16, 0, 257);
    contains(test::error_of([&] { gpu.plan_histogram(Type::u8, n, r, bad); }), "0 <= lower < upper <= 256 (uchar samples)");
    bad = even(16, 0.5, 20);
    contains(test::error_of([&] { gpu.plan_histogram(Type::u16, n, r, bad); }), "are not integers");
    bad = even(16, 3, 3);
    contains(test::error_of([&] { gpu.plan_histogram(Type::f32, n, r, bad); }), "lower below upper");
    bad = even(16, 0, std::nan(""));
    contains(test::error_of([&] { gpu.plan_histogram(Type::f32, n, r, bad); }), "must be finite numbers");
    HistogramOptions four = even(16, 0, 256, 4, 1);
    contains(test::error_of([&] { gpu.plan_histogram(Type::u8, histogram_max_samples, r, four); }),
             "the most one histogram takes");
    contains(test::error_of([&] { gpu.plan_histogram(Type::u32, 2 * n, r, o); }), "the samples range holds 4000 bytes");
    HistogramRanges short_counts = r;
    short_counts.histogram = {counts.handle(), 0, 32};
    contains(test::error_of([&] { gpu.plan_histogram(Type::u32, n, short_counts, o); }), "the histogram range holds 32 bytes");
    HistogramRanges odd = r;
    odd.histogram = {counts.handle(), 2, 1000};
    contains(test::error_of([&] { gpu.plan_histogram(Type::u32, n, odd, o); }), "the histogram offset 2 is not a multiple");
    HistogramRanges on_samples = r;
    on_samples.histogram = {samples.handle(), 64, 64};
    contains(test::error_of([&] { gpu.plan_histogram(Type::u32, n, on_samples, o); }), "the histogram range overlaps the samples range");
    HistogramRanges short_scratch = r;
    short_scratch.scratch = {scratch.handle(), 0, 16};
    contains(test::error_of([&] { gpu.plan_histogram(Type::u32, n, short_scratch, o); }), "the scratch range holds 16 bytes");
    HistogramRanges short_levels = r;
    short_levels.levels = {levels.handle(), 0, 16};
    contains(test::error_of([&] { gpu.plan_histogram(Type::u32, n, short_levels, ranged(16, 0, 256)); }),
             "the levels range holds 16 bytes");
    contains(test::error_of([&] { gpu.plan_histogram(Type::u32, IndirectCount{counts.handle(), 8, n}, r, o); }),
             "the IndirectCount's count lies in the histogram range");
    contains(test::error_of([&] { ctx.histogram(samples, counts, Type::u32, n, ranged(16, 0, 256)); }), "no levels were given");
    contains(test::error_of([&] { ctx.histogram(samples, counts, Type::u32, n, o, &levels); }), "levels were given");
    contains(test::error_of([&] { ctx.histogram(samples, counts, Type::u32, 2 * n, o); }), "the samples buffer holds 4000 bytes");
    contains(test::error_of([&] { ctx.histogram(samples, samples, Type::u8, 16, o); }), "the histogram's buffer is also an input's");
    std::vector<uint8_t> three(3);
    contains(test::error_of([&] { ctx.histogram(std::span<const uint8_t>(three), even(4, 0, 256, 2, 1)); }),
             "3 samples are not whole pixels of 2 channels");
    std::vector<float> descending = {1.0f, 0.0f}, one_sample = {0.5f};
    contains(test::error_of([&] {
                 ctx.histogram_range(std::span<const float>(one_sample), std::span<const float>(descending));
             }),
             "levels are not ascending");
    std::vector<double> wide_level = {0, 5e9};
    HistogramOptions one = ranged(1, 0, 1);
    std::vector<uint32_t> word(1, 3);
    contains(test::error_of([&] { ctx.histogram(std::span<const uint32_t>(word), one, wide_level); }),
             "the level 5000000000 is not a 32-bit unsigned integer");
    HistogramOptions acc = o;
    acc.accumulate = true;
    contains(test::error_of([&] { ctx.histogram(std::span<const uint8_t>(three), acc); }), "accumulate adds to a histogram");
    // Nothing was written by the refused calls.
    std::vector<uint32_t> after(256);
    ctx.download(counts, after.data(), 1024);
    CHECK(after == original);
}
