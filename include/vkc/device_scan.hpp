// vkcollectives: device-wide scan and reduce, the vocabulary of Context::scan / reduce and of the
// plans an engine records into its own command buffers.
//
//   ctx.scan(buffer, buffer, vkc::Type::u32, vkc::Op::add, n);            // in place, inclusive
//   std::vector<float> sums = ctx.scan(std::span<const float>(host), vkc::Op::add);
//   double total = ctx.reduce(std::span<const double>(host), vkc::Op::add);
//
// Algorithm: a single-pass chained scan with decoupled look-back (tiles, or chunks of tiles, from an
// atomic ticket; a work-group that waits too long for a predecessor computes it from the input), or, with
// ScanOptions::reproducible, a reduce-then-scan over chunks whose order is fixed by the sizes alone.
// Reduce of floats always works that way; integer reduces take their tiles by ticket (exact in any
// order). Buffers larger than maxStorageBufferRange are scanned in segments
// with the running total carried on the device; host arrays are streamed through the device in chunks.
#pragma once

#include "vkc/api.hpp"

#include <cstdint>
#include <memory>

#include "vkc/types.hpp"
#include "vkc/vulkan_handles.hpp"

namespace vkc {
VKC_API_BEGIN


// Overrides of the tuning the library chooses for the device (benchmarks, `vkc tune`-style searches
// and experiments set them; results are the same whatever they say). Each 0 or -1 means: chosen for
// the device. The resolved values of a plan come from one place (src/tuning/scan_policy.cpp).
struct ScanTuningOverrides {
    // Tile shape: invocations per work-group and items per invocation. The work-group size is rounded
    // up to a multiple of the subgroup size and items to a multiple of the vector width (4 items, 2
    // for 64-bit types), at most 32.
    uint32_t workgroup_size = 0;
    uint32_t items_per_invocation = 0;
    // Full tiles move between memory and registers through shared memory, for coalesced loads and
    // stores (tiles up to 16 KiB), in the reproducible scan's passes, in look-back chunks of several
    // tiles, in 64-bit numbers' look-back tiles and in shared-memory modules (reduce: on CPUs). A
    // look-back tile held in registers by a subgroup module ignores it: each subgroup walks its part
    // of the tile with vector loads that are coalesced as they are. -1: chosen; 0 off; 1 on.
    int staged = -1;
    // Tiles one work-group of the look-back scan takes, so fewer, longer links join the chain. 1: the
    // tile stays in registers through the look-back; 2 to look_back_register_chunk_tiles full staged
    // tiles of a type loaded as vectors: all of them stay in registers; more, or a chunk that is
    // partial or not staged: the chunk is reduced from memory first, then read again (mostly from L2)
    // and scanned. The reproducible mode ignores it.
    uint32_t look_back_chunk_tiles = 0;
    // Polls of a predecessor that has posted nothing before a tile computes it itself (default 256);
    // at most 65535.
    uint32_t spin_limit = 0;
    // While a look-back waits, its work-group loads one word of every 32 bytes of a chunk about to
    // start, so that DRAM fills L2 with that input meanwhile (the 64-bit types' chunks: other tiles
    // compile it out and ignore the setting; in-place scans never do). -1: in dispatches of 32 MiB
    // of input or more; 0 off; 1 on.
    int look_back_prefetch = -1;
    // Work-groups of reduce and of the reproducible scan (each takes a contiguous chunk of tiles; in
    // integer reduces, pieces by ticket). Results are reproducible for a fixed value.
    uint32_t chunks = 0;
};

// Test hooks: paths a test cannot reach on a small input otherwise. Default off.
struct ScanTestHooks {
    // Every tile computes its predecessor's total from the input instead of trusting what that
    // predecessor posted (the look-back's fallback path), and the last work-group of reduce and of
    // the reproducible scan computes every chunk's total itself and posts it again (the path past its
    // wait for the posts' bound).
    bool force_fallback = false;
    // The most items one dispatch takes (0: as many as maxStorageBufferRange allows), so that small
    // buffers take the segmented path.
    uint64_t segment_items = 0;
};

// What a scan or reduce computes and how it may use the caller's resources.
struct ScanOptions {
    // Exclusive scan (item i gets op over items 0..i-1; item 0 gets the identity). Default inclusive.
    bool exclusive = false;
    // Bit-identical results run after run on the same device, driver and library, however the GPU
    // schedules the work (reduce-then-scan over chunks: one more read of the input). Default off:
    // the look-back combines whatever its predecessors have posted, so float sums may differ in the
    // last bits between runs. Integer results are exact either way.
    bool reproducible = false;
    // Plans only: the caller zeroed its scratch range once (vkCmdFillBuffer with 0, or a zeroed
    // upload) before the first plan that used it, and every plan on it since was made with this
    // set, so plans record no fill of it and no barrier after the fill (about 3 microseconds on an
    // H100, most of a small scan's or reduce's time). Every such plan, of any type, op, size or
    // options, leaves the scratch ready for the next when it completes (not a plan that did not
    // complete: device lost; zero the range again then). Give every such plan the same range
    // (buffer, offset and size), sized for the largest of them. Default off: the scratch may hold
    // anything, and plans that take more than one work-group zero what they use first (a plan made
    // without it leaves the range fit only for plans made without it, until the caller zeroes it
    // again). Context::scan and reduce keep their own scratch this way.
    bool scratch_zeroed = false;
    // Path::shared_memory uses the shared-memory module even where subgroup arithmetic exists.
    Path path = Path::subgroup;
    // Host-array forms only: bytes moved to the device at a time. 0: up to 256 MiB.
    uint64_t stream_bytes = 0;
    ScanTuningOverrides tuning;
    ScanTestHooks test;
};

// What Device::prepare_scans makes ready: the pipelines that plan_scan (or plan_reduce) of this type,
// op and options will run for any count from 1 to max_count, with a host count or an IndirectCount.
struct ScanPreparation {
    Type type = Type::u32;
    Op op = Op::add;
    uint64_t max_count = 0;
    bool reduce = false;         // plan_reduce's pipelines rather than plan_scan's
    bool indirect_count = false; // plans whose count is an IndirectCount (max_count its bound)
    ScanOptions options;
};

constexpr uint32_t look_back_register_chunk_tiles = 4;

struct ScanTile {
    uint32_t workgroup_size = 0;
    uint32_t items_per_invocation = 0;
    bool staged = false; // through shared memory (see ScanTuningOverrides::staged)
    uint32_t look_back_chunk_tiles = 1; // tiles a look-back work-group takes (ScanOptions says more)
    uint64_t items() const { return uint64_t(workgroup_size) * items_per_invocation; }
};

// Part of a caller's buffer. offset must be a multiple of 16 and of minStorageBufferOffsetAlignment.
struct BufferRange {
    VkBuffer buffer = nullptr;
    VkDeviceSize offset = 0;
    VkDeviceSize size = 0; // bytes
};

// An item count the GPU writes (a culling pass's output, say), read when the plan's command buffer
// executes, as vkCmdDrawIndirectCount reads its draw count: a uint32 at count_buffer_offset (a
// multiple of 4) in count_buffer (VK_BUFFER_USAGE_STORAGE_BUFFER_BIT; not in the output or scratch
// range: every work-group reads it as it starts). max_count bounds it on the host:
// the input, output and scratch are sized for max_count items, the grid is, and a count past it
// scans (or reduces) the first max_count items. Items past the count are neither read nor written
// (a reduce of 0 items writes the identity). max_count is at most 2^32 - 1; past one binding
// (maxStorageBufferRange) it takes a dispatch a segment, as a host count does.
struct IndirectCount {
    VkBuffer count_buffer = nullptr;
    VkDeviceSize count_buffer_offset = 0;
    uint64_t max_count = 0;
};

// A scan or reduce recorded into command buffers the caller owns (Device::plan_scan / plan_reduce).
// It holds the descriptor sets that point at the caller's buffers: keep it, and the buffers, alive
// until every command buffer it was recorded into has finished. Move only.
//
// record(cmd) records, on the Device's device (cmd must come from it, in a queue family with
// compute):
//   fills of the scratch range (vkCmdFillBuffer), compute dispatches, and barriers between them
//   (a scan of one tile or a reduce of one chunk is a single dispatch, with no fill; with
//   ScanOptions::scratch_zeroed a scan or reduce records no fill: a dispatch a binding, and two a
//   binding for the reproducible scan).
// Bound state it changes: the compute pipeline, descriptor set 0 and push constants of the compute
// bind point. No queue submission, no waits.
// Barriers the caller owes:
//   before: its earlier writes to the input (and earlier reads or writes of the output and scratch,
//     including an earlier plan on the same scratch and the fill that zeroed it)
//     -> VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
//        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
//   before, with an IndirectCount: its write of the count -> VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
//     VK_ACCESS_SHADER_READ_BIT (the barrier for the input covers it);
//   after: VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT -> its readers of the output.
// Buffers: input and output need VK_BUFFER_USAGE_STORAGE_BUFFER_BIT, scratch that and
// VK_BUFFER_USAGE_TRANSFER_DST_BIT. Output may be the input range (in place).
class ScanPlan {
public:
    ScanPlan();
    ScanPlan(ScanPlan&&) noexcept;
    ScanPlan& operator=(ScanPlan&&) noexcept;
    ~ScanPlan();
    void record(VkCommandBuffer cmd) const;
    uint64_t count() const;          // items (with an IndirectCount: max_count)
    uint32_t dispatches() const;     // compute dispatches it records
    // The path of the module it runs: subgroup where the device has subgroup arithmetic for the type
    // and the plan's work-group size is known to be packed (SubgroupLayout), else shared_memory.
    Path path() const;

    struct State;

private:
    friend class Context;
    friend struct DeviceState;
    std::unique_ptr<State> state_;
};

VKC_API_END
} // namespace vkc
