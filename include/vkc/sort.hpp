// vkcollectives: device-wide radix sort, the vocabulary of Context::sort and of the plans an engine
// records into its own command buffers (Device::plan_sort, plan_sort_pairs).
//
//   std::vector<float> sorted = ctx.sort(std::span<const float>(host));          // ascending
//   ctx.sort_pairs(keys, values, vkc::Type::u32, 4, count);                       // on Buffers
//   vkc::SortPlan plan = gpu.plan_sort(vkc::Type::u32, count, keys, keys_alternate, scratch);
//   plan.record(cmd);  // the sorted keys are in plan.result_in_alternate() ? keys_alternate : keys
//
// Algorithm: LSD radix sort by 8-bit digits. One read of the keys counts every pass's digits; then a
// dispatch a pass reads each key once and writes it once (Onesweep's traffic): work-groups take
// tiles of 4096 keys by ticket, rank them by the digit in shared memory (no subgroup operation: the
// same at every subgroup width), and find the keys of each digit before them by a decoupled
// look-back that never waits without bound (a tile whose predecessor has posted nothing for a while
// counts that predecessor's keys itself). Stable: equal keys keep their input order. A pass whose
// digit is the same for every key copies the keys instead (its place in the double buffer kept).
//
// Keys: u8, i8, u16, i16, f16, u32, i32, f32, u64, i64 and f64, ordered as numbers (floats: -0
// before +0; NaNs with the sign bit set first, the others last, as CUB places them); 8 bits a pass,
// so 64-bit keys take 8 passes unless a bit range says fewer. Values: 1, 2, 4, 8 or 16 bytes each,
// moved with their keys. 8- and 16-bit keys and 1- and 2-byte values need the device's 8- and
// 16-bit storage access (their module reads and writes them at their width).
#pragma once

#include "vkc/api.hpp"

#include <cstdint>
#include <memory>

#include "vkc/device_scan.hpp"
#include "vkc/types.hpp"
#include "vkc/vulkan_handles.hpp"

namespace vkc {
VKC_API_BEGIN

// Test hooks: paths a test cannot reach on a small input otherwise. Default off.
struct SortTestHooks {
    // Every tile counts its predecessor's digits from the keys instead of trusting its post (the
    // look-back's fallback).
    bool force_fallback = false;
    // Tiles a look-back portion holds (0: as many as a status word counts, 262143): small portions
    // take the path of sorts past 2^30 keys on small inputs. Rounded down to whole runs of the
    // counting dispatch's work-groups (1 tile a group up to 1024 tiles).
    uint32_t portion_tiles = 0;
};

struct SortOptions {
    // Sort by key bits [begin_bit, end_bit) of the ordered key (the bits as an unsigned number, after
    // the order-preserving transform of int and float keys); 8 bits a pass. end_bit 0 means every bit
    // of the key. begin_bit == end_bit sorts nothing (the keys stay where they are).
    uint32_t begin_bit = 0;
    uint32_t end_bit = 0;
    // Largest first. Still stable: equal keys keep their input order.
    bool descending = false;
    // Path::shared_memory uses the shared-memory module even where subgroup arithmetic exists.
    Path path = Path::subgroup;
    // Polls of a tile's status that has not been posted before the waiting tile counts that tile's
    // keys itself. 0: the default (256); at most 65535.
    uint32_t spin_limit = 0;
    SortTestHooks test;
};

// Keys one sort takes at most (a uint32 index). A tile's status word counts keys in 30 bits, so a
// sort of more keys than that looks back in portions of tiles (src/sort/, docs/design.md).
constexpr uint64_t sort_max_count = (1ull << 32) - 1;
constexpr uint32_t sort_tile_keys = 4096; // keys a work-group takes

// A sort recorded into command buffers the caller owns (Device::plan_sort / plan_sort_pairs). It
// holds the descriptor sets that point at the caller's buffers: keep it, and the buffers, alive until
// every command buffer it was recorded into has finished. Move only.
//
// record(cmd) records: a fill of the scratch range (vkCmdFillBuffer), a counting dispatch, and a
// dispatch a pass (past 2^30 - 4096 keys, also a counting dispatch before each pass after the
// first), with barriers between them. Each pass moves the keys (and values) from one buffer
// of the pair to the other, starting at `keys`: the sorted keys end in `keys_alternate` when the
// number of passes is odd (result_in_alternate()). Both ranges of a pair may be written. A sort of
// sort_tile_keys keys or fewer (its count, or an IndirectCount's max_count) records one dispatch and
// leaves the scratch as it was: one work-group takes every pass and writes the result where the rule
// above puts it.
// Bound state it changes: the compute pipeline, descriptor set 0 and push constants of the compute
// bind point. No queue submission, no waits.
// Barriers the caller owes:
//   before: its earlier writes to the keys and values (and earlier reads or writes of every range the
//     plan writes, an earlier plan on the same scratch included)
//     -> VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
//        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
//   after: VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT -> its readers of the result.
// Buffers: keys and values need VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, scratch that and
// VK_BUFFER_USAGE_TRANSFER_DST_BIT.
class SortPlan {
public:
    SortPlan();
    SortPlan(SortPlan&&) noexcept;
    SortPlan& operator=(SortPlan&&) noexcept;
    ~SortPlan();
    void record(VkCommandBuffer cmd) const;
    uint64_t count() const;       // keys (with an IndirectCount: max_count)
    uint32_t passes() const;      // digit passes: ceil((end_bit - begin_bit) / 8)
    uint32_t dispatches() const;  // compute dispatches it records
    bool result_in_alternate() const; // the sorted keys (and values) are in the alternate ranges
    Path path() const;            // of the module it runs

    struct State;

private:
    friend class Context;
    friend struct DeviceState;
    std::unique_ptr<State> state_;
};

VKC_API_END
} // namespace vkc
