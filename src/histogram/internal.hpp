// Shared by the device-wide histogram's sources (src/histogram/): the checks every entry point makes,
// the bins' parameters and the plan's state. Not installed.
#pragma once

#include <cstdint>
#include <memory>

#include "device/device_core.hpp"
#include "vkc/contract.h"

#include "vkc/histogram.hpp"

namespace vkc {

// Sample types a histogram takes: 8-, 16- and 32-bit integers, halves and floats.
bool is_histogram_sample(Type sample);
// Throws Error naming what is wrong: the sample type, the binning, the channels, a channel's bins or
// bounds, the count.
void check_histogram_arguments(Type sample, uint64_t pixels, const HistogramOptions& o, const char* what);
// Bins over the active channels.
uint32_t histogram_total_bins(const HistogramOptions& o);
// Levels over the active channels (Binning::range: bins + 1 a channel; else 0).
uint32_t histogram_total_levels(const HistogramOptions& o);
// A level of the host's, as the 32-bit word the kernel reads (HistogramRanges::levels); throws Error
// naming `what` where the sample type cannot hold it.
uint32_t histogram_level_word(Type sample, double level, const char* what);

// Push constants of shaders/kernels/histogram.comp (its Params block), 32 bytes like every module's.
struct HistogramParams {
    uint32_t pixels, flags, total_bins, total_levels;
    uint32_t unused[4];
};
static_assert(sizeof(HistogramParams) == module_push_constant_bytes);
static_assert(histogram_shared_bins == VKC_HISTOGRAM_SHARED_BINS);
static_assert(histogram_scratch_bytes_needed == VKC_HISTOGRAM_SCRATCH_WORDS * 4);

struct HistogramPlan::State {
    std::shared_ptr<DeviceCore> core;
    VkPipeline pipeline = VK_NULL_HANDLE; // null: no pixels, only the fill
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VkDescriptorSet set = VK_NULL_HANDLE;
    BufferRange scratch;   // where the bins' parameters go
    BufferRange histogram; // the counts, filled with 0 first unless accumulating (size 0: accumulating)
    uint32_t bin_words[VKC_HISTOGRAM_SCRATCH_WORDS] = {};
    HistogramParams params{};
    uint32_t groups = 0;
    uint64_t count = 0;
    uint32_t bins = 0;
    ~State() {
        if (pool) core->vk.vkDestroyDescriptorPool(core->device, pool, core->allocator);
    }
};

} // namespace vkc
