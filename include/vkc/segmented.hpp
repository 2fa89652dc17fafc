// vkcollectives: segmented scans and reductions, scans and reductions by key, and run-length
// encoding (CUB's DeviceScan::*ByKey, DeviceReduce::ReduceByKey, DeviceSegmentedReduce,
// DeviceSegmentedScan, DeviceRunLengthEncode::Encode and ::NonTrivialRuns, and scans and reductions
// over head flags), the vocabulary of the Context calls and of the plans an
// engine records into its own command buffers (Device::plan_segmented).
//
//   // sums of runs of equal keys: keys [7 7 2 2 2 7], values [1 2 3 4 5 6] -> keys [7 2 7], totals [3 12 6]
//   vkc::ReducedByKey<uint32_t, float> r = ctx.reduce_by_key(std::span<const uint32_t>(keys),
//                                                            std::span<const float>(values), vkc::Op::add);
//   // a scan that restarts at every head flag: values [1 2 3 4], flags [1 0 1 0] -> [1 3 3 7]
//   std::vector<uint32_t> s = ctx.segmented_scan(std::span<const uint32_t>(values), std::span<const uint32_t>(flags),
//                                                vkc::Op::add);
//   vkc::RunLengths<uint32_t> runs = ctx.run_length_encode(std::span<const uint32_t>(keys)); // [7 2 7], [2 3 1]
//   vkc::NonTrivialRuns long_runs = ctx.non_trivial_runs(std::span<const uint32_t>(keys)); // offsets [0 2], lengths [2 3]
//   // scans within [offsets[s], offsets[s + 1]): values [1 2 3 4 5], offsets [1 3 5] -> [1 2 5 4 9]
//   std::vector<uint32_t> t = ctx.scan_segments(std::span<const uint32_t>(values), std::span<const uint32_t>(offsets),
//                                               vkc::Op::add);
//   vkc::SegmentedPlan plan = gpu.plan_segmented(vkc::Type::f32, vkc::Op::add, count, ranges, options);
//   plan.record(cmd); // ranges.output holds the totals, ranges.segments their number
//
// Segments (SegmentedOptions::by):
//   head_flags  item i starts a segment where flags[i] (a uint32 an item) is not 0;
//   keys        item i starts a segment where keys[i] != keys[i - 1] (runs of equal keys; floats
//               compare as numbers: -0 == +0, and a NaN key is never equal, so it is a run of its own);
//   offsets     segment s holds items [offsets[s], offsets[s + 1]), for s < segment_count, from
//               segment_count + 1 ascending uint32 offsets (CUB's DeviceSegmentedReduce with begin
//               offsets and end offsets one further, as a sparse matrix's rows are stored); segments
//               may be empty (their total is the operator's identity) and items before offsets[0] or
//               from offsets[segment_count] on belong to none: scans do not write them (CUB's
//               DeviceSegmentedScan). Scans and reduce.
// With flags and keys, item 0 always starts a segment, and segments are consecutive and not empty.
//
// Output (SegmentedOptions::output):
//   scan_inclusive  output[i] = op over the items of i's segment up to and including i;
//   scan_exclusive  the same up to i, excluded: the operator's identity at a segment's first item
//                   (add 0, mul 1, min the type's largest value or +INF, max its smallest or -INF);
//   reduce          output[s] = op over segment s's items, for s < the number of segments; with keys,
//                   unique_keys[s] = segment s's first key (CUB's ReduceByKey); the number of segments
//                   goes to ranges.segments (not by offsets: the caller knows it);
//   run_lengths     keys only, no values: unique_keys[s] and output[s] = the run's length (uint32),
//                   with the number of runs (CUB's RunLengthEncode::Encode); the plan's value type is
//                   u32 and its op add;
//   non_trivial_runs keys only, no values: the runs of two keys or more (CUB's
//                   RunLengthEncode::NonTrivialRuns): unique_keys[r] = the run's first index (uint32),
//                   output[r] = its length (uint32), in order, with their number; u32 add as above.
// Operators: those of the scan (vkc::Op for the value type: add, mul, min, max, and for integers
// and, or, xor, logical_and, logical_or, logical_xor); min and max ignore NaN, as the scan does.
// Float add combines in an order the tiles fix: not the sequential order, so sums differ from a
// sequential sum by rounding.
//
// Algorithm: one pass. Work-groups take tiles of 2048 items by ticket, scan the tile's (heads, value)
// pairs (vkc/block_segmented.glsl), and find the tile's prefix pair by a decoupled look-back that
// never waits without bound (a tile whose predecessor has posted nothing for a while scans that
// predecessor's items itself). The work is the same whatever the segments' sizes: one huge segment
// and a million tiny ones run at the same speed.
//
// Values: u32, i32, f32, u64, i64, f64, and u8, i8, u16, i16 (they need the device's 8- or 16-bit
// storage access; combined as 32-bit integers and stored at their width: add and mul wrap as the
// type's, min and max stay in its range, and their identity is the type's largest or smallest
// value), and f16 (16-bit storage access; combined as floats and rounded to half once, when
// stored). Keys: the six 32- and 64-bit types. Count up to segmented_max_count.
#pragma once

#include "vkc/api.hpp"

#include <cstdint>
#include <memory>
#include <vector>

#include "vkc/device_scan.hpp"
#include "vkc/types.hpp"
#include "vkc/vulkan_handles.hpp"

namespace vkc {
VKC_API_BEGIN

enum class Segments : uint32_t { head_flags, keys, offsets };
enum class SegmentedOutput : uint32_t { scan_inclusive, scan_exclusive, reduce, run_lengths, non_trivial_runs };

// Test hooks: paths a test cannot reach on a small input otherwise. Default off.
struct SegmentedTestHooks {
    // Every tile scans its predecessor's items from the input instead of trusting its post.
    bool force_fallback = false;
};

struct SegmentedOptions {
    Segments by = Segments::keys;
    Type key = Type::u32; // Segments::keys: u32, i32, f32, u64, i64 or f64
    uint32_t segment_count = 0; // Segments::offsets: the segments (ranges.offsets holds one more offset)
    SegmentedOutput output = SegmentedOutput::reduce;
    // Path::shared_memory uses the shared-memory module even where subgroup shuffles exist.
    Path path = Path::subgroup;
    // Polls of a tile's status that has not been posted before the waiting tile scans that tile
    // itself. 0: the default (256); at most 65535.
    uint32_t spin_limit = 0;
    SegmentedTestHooks test;
};

// Items one segmented plan takes at most: a tile's status counts heads in 30 bits.
constexpr uint64_t segmented_max_count = (1ull << 30) - 1;
constexpr uint32_t segmented_tile_items = 2048; // items a work-group takes

// The caller's ranges of a segmented plan (Device::plan_segmented).
struct SegmentedRanges {
    BufferRange values;      // count values; unused by run_lengths
    BufferRange heads;       // Segments::head_flags: count uint32 flags; Segments::keys: count keys
    BufferRange offsets;     // Segments::offsets: segment_count + 1 ascending uint32 offsets, at most count
    // Scans: count values, and may be `values` itself (in place). Reduce: room for a total a segment
    // (count values holds every case; by offsets, segment_count values). Run lengths: room for a
    // uint32 a run (count); non-trivial runs: (count + 1) / 2 uint32 lengths.
    BufferRange output;
    // Keys with reduce, and run_lengths: room for a key a segment (count keys); non_trivial_runs:
    // (count + 1) / 2 uint32, the runs' first indices; else unused.
    BufferRange unique_keys;
    // Reduce (not by offsets), run_lengths and non_trivial_runs: 4 bytes, the number of segments or
    // runs (uint32); else unused.
    BufferRange segments;
    BufferRange scratch;     // segmented_scratch_bytes
};

// A segmented scan, reduction or run-length encoding recorded into command buffers the caller owns
// (Device::plan_segmented). It holds the descriptor set that points at the caller's buffers: keep
// it, and the buffers, alive until every command buffer it was recorded into has finished. Move only.
//
// record(cmd) records: a fill of the scratch range (vkCmdFillBuffer), a barrier, and one dispatch;
// with no items (a host count of 0), only a fill of the number of segments with 0 where there is one
// (by offsets, the dispatch still runs: empty segments get the identity).
// Bound state it changes: the compute pipeline, descriptor set 0 and push constants of the compute
// bind point. No queue submission, no waits.
// Barriers the caller owes:
//   before: its earlier writes to the values and heads (and earlier reads or writes of every range
//     the plan writes, an earlier plan on the same scratch included)
//     -> VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
//        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
//   after: VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT -> its readers of the
//     output, the unique keys and the number of segments.
// Buffers: every range needs VK_BUFFER_USAGE_STORAGE_BUFFER_BIT; the scratch and the number of
// segments also VK_BUFFER_USAGE_TRANSFER_DST_BIT.
class SegmentedPlan {
public:
    SegmentedPlan();
    SegmentedPlan(SegmentedPlan&&) noexcept;
    SegmentedPlan& operator=(SegmentedPlan&&) noexcept;
    ~SegmentedPlan();
    void record(VkCommandBuffer cmd) const;
    uint64_t count() const;      // items (with an IndirectCount: max_count)
    uint32_t dispatches() const; // compute dispatches it records (1; 0 for no items)
    Path path() const;           // of the module it runs

    struct State;

private:
    friend class Context;
    friend struct DeviceState;
    std::unique_ptr<State> state_;
};

// The call's name in errors: "segmented scan", "scan by key", "segmented reduce", "reduce by key",
// "run-length encode" or "non-trivial runs".
const char* segmented_call_name(const SegmentedOptions& options);

// What reduce_by_key and run_length_encode return on host arrays.
template <class K, class V>
struct ReducedByKey {
    std::vector<K> keys;   // each segment's key
    std::vector<V> totals; // op over its values
};
template <class K>
struct RunLengths {
    std::vector<K> keys;           // each run's key
    std::vector<uint32_t> lengths; // its length
};
// What non_trivial_runs returns: the runs of two equal keys or more.
struct NonTrivialRuns {
    std::vector<uint32_t> offsets; // each run's first index
    std::vector<uint32_t> lengths; // its length (2 or more)
};

VKC_API_END
} // namespace vkc
