// vkcollectives: device-wide histograms (CUB's DeviceHistogram: HistogramEven, HistogramRange and
// their multi-channel forms), the vocabulary of Context::histogram and of the plans an engine records
// into its own command buffers (Device::plan_histogram).
//
//   // 256 even bins over [0, 256) of 8-bit samples
//   std::vector<uint32_t> counts = ctx.histogram_even(std::span<const uint8_t>(pixels), 256, 0.0, 256.0);
//   // bins between boundaries: bin i counts levels[i] <= x < levels[i + 1]
//   std::vector<uint32_t> by_range = ctx.histogram_range(std::span<const float>(xs), std::span<const float>(levels));
//   vkc::HistogramPlan plan = gpu.plan_histogram(vkc::Type::u8, pixels, ranges, options);
//   plan.record(cmd); // ranges.histogram holds the counts
//
// Samples come in pixels of 1 to 4 interleaved channels (RGBA: 4); the first active_channels of them
// get a histogram each (CUB's NUM_ACTIVE_CHANNELS: RGB of RGBA is 4 channels, 3 active). The
// histograms lie one after another in the output, channel 0's bins first, as uint32 counts.
//
// Bins:
//   even   `bins` bins of equal width over [lower, upper): a sample x with lower <= x < upper counts
//          in bin floor((x - lower) * bins / (upper - lower)). Integers: computed exactly. Floats
//          (f16 samples as floats): floor((x - lower) * scale) in float arithmetic, with
//          scale = float(bins / (upper - lower)), the last bin where rounding reaches `bins`.
//   range  bins + 1 ascending boundaries a channel: bin i counts levels[i] <= x < levels[i + 1].
// Samples outside the bins, and NaN samples, are counted nowhere. Floats compare as numbers (-0 == +0).
//
// Algorithm: one pass over the samples. Each work-group counts its share in shared memory (up to
// histogram_shared_bins bins over all active channels, with shared atomics), then adds its nonzero
// counts to the output with one atomic each; more bins are counted with device atomics directly.
// The counts do not depend on the order the work-groups run in.
//
// Samples: u8, i8, u16, i16, u32, i32, f16, f32, read as 32-bit words (no 8- or 16-bit storage
// feature is needed).
#pragma once

#include "vkc/api.hpp"

#include <cstdint>
#include <memory>

#include "vkc/device_scan.hpp"
#include "vkc/types.hpp"
#include "vkc/vulkan_handles.hpp"

namespace vkc {
VKC_API_BEGIN

enum class Binning : uint32_t { even, range };

// One active channel's bins.
struct HistogramChannel {
    uint32_t bins = 0;             // 1 to histogram_max_bins
    double lower = 0, upper = 0;   // Binning::even: [lower, upper), values of the sample type, lower < upper
};

// Test hooks: paths a test cannot reach on a small input otherwise. Default off.
struct HistogramTestHooks {
    bool force_device_atomics = false; // count with device atomics even where the bins fit in shared memory
    uint32_t groups = 0; // work-groups to run (0: the library's choice): few, so that each strides over many tiles
};

struct HistogramOptions {
    Binning binning = Binning::even;
    uint32_t channels = 1;           // interleaved samples a pixel, 1 to 4
    uint32_t active_channels = 1;    // the first this many channels get a histogram, 1 to channels
    HistogramChannel channel[4];      // each active channel's bins (with Binning::range only .bins)
    bool accumulate = false;         // add to the histogram's counts instead of starting from 0
    HistogramTestHooks test;
};

// Samples one histogram takes at most (pixels x channels): a bin counts in 32 bits.
constexpr uint64_t histogram_max_samples = 0xffffffffull;
constexpr uint32_t histogram_max_bins = 1u << 20;      // bins a channel
constexpr uint32_t histogram_shared_bins = 4096;       // bins over all active channels counted in shared memory
constexpr uint32_t histogram_scratch_bytes_needed = 128;// the bins' parameters, written at record time

// The caller's ranges of a histogram (Device::plan_histogram).
struct HistogramRanges {
    // pixels x channels samples, interleaved. Read as 32-bit words: 8- and 16-bit samples need the
    // range rounded up to 4 bytes (the words' unused bytes are not read as samples).
    BufferRange samples;
    // Binning::range: each active channel's bins + 1 boundaries, ascending, one channel after
    // another, as 32-bit numbers of the sample's kind: uint32 for u8, u16 and u32 samples, int32 for
    // i8, i16 and i32, float for f16 and f32. Else unused.
    BufferRange levels;
    BufferRange histogram; // each active channel's bins uint32 counts, one channel after another
    BufferRange scratch;   // histogram_scratch_bytes_needed bytes
};

// A histogram recorded into command buffers the caller owns (Device::plan_histogram). It holds the
// descriptor set that points at the caller's buffers: keep it, and the buffers, alive until every
// command buffer it was recorded into has finished. Move only.
//
// record(cmd) records: a vkCmdUpdateBuffer of the bins' parameters into the scratch, a fill of the
// histogram with 0 (unless accumulating), a barrier, and one dispatch.
// Bound state it changes: the compute pipeline, descriptor set 0 and push constants of the compute
// bind point. No queue submission, no waits.
// Barriers the caller owes:
//   before: its earlier writes to the samples and levels (and earlier reads or writes of the
//     histogram and the scratch, an earlier plan on the same scratch included)
//     -> VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
//        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
//   after: VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT -> its readers of the counts.
// Buffers: every range needs VK_BUFFER_USAGE_STORAGE_BUFFER_BIT; the scratch and the histogram also
// VK_BUFFER_USAGE_TRANSFER_DST_BIT.
class HistogramPlan {
public:
    HistogramPlan();
    HistogramPlan(HistogramPlan&&) noexcept;
    HistogramPlan& operator=(HistogramPlan&&) noexcept;
    ~HistogramPlan();
    void record(VkCommandBuffer cmd) const;
    uint64_t count() const;      // pixels (with an IndirectCount: max_count)
    uint32_t dispatches() const; // compute dispatches it records (1; 0 for no pixels)
    uint32_t bins() const;       // counts it writes, over all active channels

    struct State;

private:
    friend class Context;
    friend struct DeviceState;
    std::unique_ptr<State> state_;
};

VKC_API_END
} // namespace vkc
