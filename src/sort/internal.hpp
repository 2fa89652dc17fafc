// Shared by the device-wide sort's sources (src/sort/): the ranges a plan works on and the checks
// every entry point makes. Not installed.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "device/device_core.hpp"
#include "vkc/contract.h"

#include "vkc/sort.hpp"

namespace vkc {

// The caller's ranges of a sort: each pass moves keys (and values) from one of a pair to the other.
struct SortRanges {
    BufferRange keys, keys_alternate;
    BufferRange values, values_alternate; // pairs only
    BufferRange scratch;
};

// Key types the sort takes: 32- and 64-bit integers and floats.
bool is_sort_key(Type key);
// Digit passes of a sort by these options (0 when the bit range is empty).
uint32_t sort_passes(Type key, const SortOptions& o);
// Throws Error naming what is wrong: the key type, the value size, the bit range, the count.
void check_sort_arguments(Type key, uint32_t value_bytes, uint64_t count, const SortOptions& o, const char* what);
// How a sort of count keys (at least one tile) splits into the counting dispatch's work-groups and
// the look-back's portions.
struct SortGrid {
    uint64_t tiles = 1;
    uint32_t tiles_per_group = 1; // the counting dispatch's run of tiles a work-group
    uint32_t portion_tiles = 1;   // a multiple of tiles_per_group
    uint64_t portions = 1;
    uint64_t histogram_rows() const { return portions > 1 ? portions + 1 : 1; } // scratch rows of counts
};
SortGrid sort_grid(uint64_t count, const SortOptions& o);
// Scratch bytes a sort of count keys needs.
uint64_t sort_scratch_bytes_of(uint64_t count, const SortOptions& o);

// Push constants of radix_sort.comp (its Params block), 32 bytes like every module's.
struct SortParams {
    uint32_t count, tiles, flags, mode, bits, spin_limit, tiles_per_group, portion_tiles;
};
static_assert(sizeof(SortParams) == module_push_constant_bytes);
static_assert(sort_tile_keys == VKC_SORT_WORKGROUP_SIZE * VKC_SORT_ITEMS);
static_assert(sort_tile_keys == VKC_SORT_SUBGROUP_WORKGROUP_SIZE * VKC_SORT_SUBGROUP_ITEMS);
// Invocations of the module of a path (radix_sort.comp): the tile is the same.
constexpr uint32_t sort_workgroup_size(Path path) {
    return path == Path::subgroup ? VKC_SORT_SUBGROUP_WORKGROUP_SIZE : VKC_SORT_WORKGROUP_SIZE;
}
// Whether the device's limits allow the subgroup module's work-group.
inline bool sort_subgroup_size_fits(const DeviceInfo& dev) {
    const uint32_t size = sort_workgroup_size(Path::subgroup);
    return size <= dev.max_workgroup_invocations && size <= dev.max_workgroup_size[0];
}
static_assert(sort_max_count == VKC_SORT_MAX_COUNT);
// A portion's status words count its keys in 30 bits.
static_assert(uint64_t(VKC_SORT_PORTION_TILES) * sort_tile_keys < (1u << 30));

struct SortPlan::State {
    struct Dispatch {
        uint32_t set = 0;
        SortParams params{};
        uint32_t grid_x = 0, grid_y = 0;
    };
    std::shared_ptr<DeviceCore> core;
    VkPipeline pipeline = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VkDescriptorSet sets[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE}; // keys -> alternate, and back
    BufferRange scratch;       // the range the fill zeroes (none for one work-group's sort)
    std::vector<Dispatch> dispatches;
    uint64_t count = 0;
    uint32_t passes = 0;
    Path path = Path::shared_memory;
    ~State() {
        if (pool) core->vk.vkDestroyDescriptorPool(core->device, pool, core->allocator);
    }
};

} // namespace vkc
