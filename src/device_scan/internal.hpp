// Shared by the device-wide scan's sources (src/device_scan/): the scratch layout, how a count
// splits into segments, tiles and chunks, and the checks every entry point makes. Not installed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "device/device_core.hpp"
#include "tuning/scan_policy.hpp"
#include "vkc/contract.h"

namespace vkc {

// Modes, flags, code paths (module_spec_kernel) and scratch words: the contract with device_scan.comp.
constexpr uint32_t mode_scan = VKC_DEVICE_MODE_SCAN, mode_reduce = VKC_DEVICE_MODE_REDUCE,
                   mode_reduce_chunks = VKC_DEVICE_MODE_REDUCE_CHUNKS, mode_scan_chunks = VKC_DEVICE_MODE_SCAN_CHUNKS;
constexpr uint32_t device_scan_path_look_back = VKC_DEVICE_PATH_LOOK_BACK,
                   device_scan_path_look_back_chunked = VKC_DEVICE_PATH_LOOK_BACK_CHUNKED,
                   device_scan_path_chunk_passes = VKC_DEVICE_PATH_CHUNK_PASSES;
constexpr uint32_t flag_exclusive = VKC_DEVICE_FLAG_EXCLUSIVE, flag_carry_in = VKC_DEVICE_FLAG_CARRY_IN,
                   flag_carry_slot = VKC_DEVICE_FLAG_CARRY_SLOT, flag_force_fallback = VKC_DEVICE_FLAG_FORCE_FALLBACK,
                   flag_in_place = VKC_DEVICE_FLAG_IN_PLACE, flag_stats = VKC_DEVICE_FLAG_STATS,
                   flag_prefetch = VKC_DEVICE_FLAG_PREFETCH;
constexpr uint32_t count_word_shift = VKC_DEVICE_COUNT_WORD_SHIFT; // IndirectCount: the count's word in flags
// The header (ticket, reduce's counter, carry slots, statistics, reduce's ticket), then the chunks'
// statuses (two arrays alternating in blocks of status_block words, a slot of status_slot_words each) or totals.
constexpr uint32_t state_header_words = VKC_STATE_HEADER_WORDS;
constexpr uint32_t ticket_word = VKC_STATE_TICKET, finished_word = VKC_STATE_FINISHED,
                   reduce_ticket_word = VKC_STATE_REDUCE_TICKET, dirty_word = VKC_STATE_DIRTY;
constexpr uint32_t stat_rounds_word = VKC_STATE_STAT_ROUNDS, stat_walked_word = VKC_STATE_STAT_WALKED,
                   stat_fallbacks_word = VKC_STATE_STAT_FALLBACKS;
constexpr uint32_t status_block = VKC_STATUS_BLOCK_WORDS, status_slot_words = VKC_STATUS_SLOT_WORDS;
// Host arrays go to the device this many bytes at a time by default.
constexpr uint64_t default_stream_bytes = 256ull << 20;

inline uint32_t status_words(Type t) { return VKC_STATUS_WORDS(uint32_t(size_of(t))); }
inline uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
inline uint64_t round_up(uint64_t a, uint64_t b) { return ceil_div(a, b) * b; }

// The Context's own scratch is zeroed when made and kept zeroed (scratch_for).
inline ScanOptions on_own_scratch(ScanOptions o) {
    o.scratch_zeroed = true;
    return o;
}

// How a count splits into dispatches (segments) and each dispatch into tiles and chunks.
struct Layout {
    ScanTile tile;
    uint64_t segment_items = 0; // items of every segment but the last
    uint64_t segments = 0;
    uint64_t chunk_cap = 0; // chunks a segment may have
    uint64_t items_of(uint64_t s, uint64_t count) const { return std::min(segment_items, count - s * segment_items); }
    uint64_t tiles_of(uint64_t items) const { return ceil_div(items, tile.items()); }
    uint64_t look_back_chunks_of(uint64_t tiles) const { return ceil_div(tiles, tile.look_back_chunk_tiles); }
    // The most chunks chunks_of gives any count of up to this many tiles (it gives some counts fewer
    // than smaller ones): the chunk totals' room, and an indirect count's work-groups.
    uint64_t most_chunks_of(uint64_t tiles) const { return std::clamp<uint64_t>(tiles, 1, chunk_cap); }
    void chunks_of(uint64_t tiles, uint32_t& chunks, uint32_t& chunk_tiles) const {
        uint64_t c = std::max<uint64_t>(1, std::min(tiles, chunk_cap));
        chunk_tiles = uint32_t(std::max<uint64_t>(1, ceil_div(tiles, c)));
        chunks = uint32_t(std::max<uint64_t>(1, ceil_div(tiles, chunk_tiles)));
    }
};
Layout make_layout(const DeviceInfo& dev, const ScanPolicy& policy, Type type, uint64_t count);
// The words both status arrays take for this many chunks.
uint64_t status_array_words(uint64_t chunks);
// Scratch words a plan of count items needs (layout.cpp says how they are counted).
uint64_t state_words(Type type, const Layout& l, uint64_t count, bool look_back, uint64_t room_tile_items);
// Scratch bytes of a plan with this layout and policy.
uint64_t scratch_bytes(const Layout& l, const ScanPolicy& policy, Type type, uint64_t count);
// Bytes of count items, or an Error where that overflows 64 bits (no buffer can hold them anyway).
uint64_t items_bytes(uint64_t count, Type type, const char* what);
// Throws Error where the tile's pipeline needs more shared memory than the device has.
void check_tile_fits(const DeviceInfo& dev, Type type, const ScanTile& tile, const char* what);
// Throws Error where op is not defined on the type.
void require_op(const char* what, Type type, Op op);

struct ScanPlan::State {
    struct Step {
        enum Kind { fill, to_compute, compute_to_compute, dispatch } kind;
        VkBuffer buffer = VK_NULL_HANDLE; // fill
        VkDeviceSize offset = 0, size = 0;
        uint32_t set = 0; // dispatch: descriptor set index
        DeviceScanParams params{};
        uint32_t grid_x = 0, grid_y = 0;
    };
    std::shared_ptr<DeviceCore> core; // keeps the device alive while the plan exists
    VkPipeline pipeline = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    std::vector<VkDescriptorSet> sets;
    std::vector<Step> steps;
    uint64_t count = 0;
    uint32_t dispatches = 0;
    Path path = Path::shared_memory; // of the module its pipeline runs
    uint32_t carry_slot_after = 0; // where the running total is once the plan has run
    ~State() {
        if (pool) core->vk.vkDestroyDescriptorPool(core->device, pool, core->allocator);
    }
};

} // namespace vkc
