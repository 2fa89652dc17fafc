// Shared by the segmented scans' sources (src/segmented/): the checks every entry point makes and
// the plan's state. Not installed.
#pragma once

#include <cstdint>
#include <memory>

#include "device/device_core.hpp"
#include "vkc/contract.h"

#include "vkc/segmented.hpp"

namespace vkc {

// Key types the segments take: 32- and 64-bit integers and floats.
bool is_segmented_key(Type key);
// Value types: those, and 8- and 16-bit integers (combined as 32-bit integers, stored at their width).
bool is_segmented_value(Type value);
// Throws Error naming what is wrong: the value type, the operator, the key type, the output, the count.
void check_segmented_arguments(Type value, Op op, uint64_t count, const SegmentedOptions& o, const char* what);
// Scratch bytes a segmented plan of count items needs.
uint64_t segmented_scratch_bytes_of(uint64_t count);
// Whether the output holds a value a segment (reduce, run lengths, non-trivial runs) rather than one an item.
inline bool reduces(const SegmentedOptions& o) {
    return o.output == SegmentedOutput::reduce || o.output == SegmentedOutput::run_lengths ||
           o.output == SegmentedOutput::non_trivial_runs;
}
// Whether the plan reads values (run lengths and non-trivial runs count items instead).
inline bool has_values(const SegmentedOptions& o) {
    return o.output != SegmentedOutput::run_lengths && o.output != SegmentedOutput::non_trivial_runs;
}
// Whether it writes the unique keys range: the keys of reduce by key and run lengths, the first
// indices of non-trivial runs.
inline bool writes_unique_keys(const SegmentedOptions& o) { return o.by == Segments::keys && reduces(o); }
// Whether it writes the number of segments (by offsets the caller knows it).
inline bool writes_segment_count(const SegmentedOptions& o) { return reduces(o) && o.by != Segments::offsets; }

// The bytes of each range a segmented plan of `count` items reads or writes.
struct SegmentedBytes {
    uint64_t values; // count values
    uint64_t heads;  // the head flags, keys or offsets
    uint64_t output; // the scans, the totals or the lengths
    uint64_t unique_keys;
};
SegmentedBytes segmented_bytes(Type value, uint64_t count, const SegmentedOptions& o);

// Push constants of shaders/kernels/segmented.comp (its Params block), padded to 32 bytes like every module's.
struct SegmentedParams {
    uint32_t count, tiles, flags, limits;
    uint32_t segment_count; // by offsets
    uint32_t unused[3];
};
static_assert(sizeof(SegmentedParams) == module_push_constant_bytes);
static_assert(segmented_tile_items == VKC_SEGMENTED_WORKGROUP_SIZE * VKC_SEGMENTED_ITEMS);
static_assert(segmented_max_count == VKC_SEGMENTED_MAX_COUNT);

struct SegmentedPlan::State {
    std::shared_ptr<DeviceCore> core;
    VkPipeline pipeline = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VkDescriptorSet set = VK_NULL_HANDLE;
    BufferRange scratch;       // the range the fill zeroes
    BufferRange segments_zero; // no items (no pipeline): the number of segments' range (size 0: none)
    SegmentedParams params{};
    uint32_t grid_x = 0, grid_y = 0;
    uint64_t count = 0;
    Path path = Path::shared_memory;
    ~State() {
        if (pool) core->vk.vkDestroyDescriptorPool(core->device, pool, core->allocator);
    }
};

} // namespace vkc
