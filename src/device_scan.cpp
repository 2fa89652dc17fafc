// Device-wide scan and reduce: plans (fills, dispatches and barriers recorded into any command
// buffer of the Context's device) and the convenience forms built on them.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <numeric>

#include "context_impl.hpp"
#include "vkc/contract.h"

namespace vkc {
namespace {

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
// The header (ticket, reduce's counter, carry slots, statistics, reduce's ticket), then the chunks'
// statuses (two arrays alternating in blocks of status_block words, a slot of status_slot_words each) or totals.
constexpr uint32_t state_header_words = VKC_STATE_HEADER_WORDS;
constexpr uint32_t ticket_word = VKC_STATE_TICKET, finished_word = VKC_STATE_FINISHED,
                   reduce_ticket_word = VKC_STATE_REDUCE_TICKET, dirty_word = VKC_STATE_DIRTY;
constexpr uint32_t stat_rounds_word = VKC_STATE_STAT_ROUNDS, stat_walked_word = VKC_STATE_STAT_WALKED,
                   stat_fallbacks_word = VKC_STATE_STAT_FALLBACKS;
constexpr uint32_t status_block = VKC_STATUS_BLOCK_WORDS, status_slot_words = VKC_STATUS_SLOT_WORDS;
constexpr uint32_t default_spin_limit = 256;
constexpr uint32_t max_items_per_invocation = VKC_DEVICE_MAX_ITEMS_PER_INVOCATION; // VKC_ITEMS in the kernel
// Look-back scans of this many 32-bit items or more take a wide tile of 32 items an invocation on
// GPUs (choose_tile): 224 invocations for integers, 256 for f32.
constexpr uint64_t wide_tile_min_items = 1ull << 22;
constexpr uint32_t wide_tile_integer_invocations = 224, wide_tile_float_invocations = 256;
// Look-back scans of this many 64-bit numbers or more take chunks of this many tiles on GPUs (choose_tile).
constexpr uint64_t chunked_min_items = 1ull << 20;
constexpr uint32_t default_look_back_chunk_tiles = 4;
// f64's chunks take work-groups of this many invocations from wide_tile_min_items up (choose_tile).
constexpr uint32_t f64_chunk_invocations = 128;
// Host arrays go to the device this many bytes at a time by default.
constexpr uint64_t default_stream_bytes = 256ull << 20;

uint32_t status_words(Type t) { return size_of(t) <= 2 ? 1 : uint32_t(size_of(t) / 2); }
// Predecessors a look-back round reads (capped at the work-group size by the shader).
// VKC_LOOKBACK_WINDOW overrides it, for kernel experiments.
uint32_t lookback_window(uint32_t workgroup_size) {
    if (const char* v = std::getenv("VKC_LOOKBACK_WINDOW")) return uint32_t(std::strtoul(v, nullptr, 10));
    return std::min<uint32_t>(workgroup_size, 32);
}
// VKC_LOOKBACK_STATS=1: the look-back counts its rounds, the tiles it walks back and its fallbacks
// (VKC_STATE_STAT_*), and Context::scan prints them per tile (a kernel experiment's diagnostic).
bool lookback_stats() { return std::getenv("VKC_LOOKBACK_STATS") != nullptr; }
// By default look-backs prefetch input of chunks about to start (flag_prefetch, device_scan.comp's
// look_back; compiled into the 64-bit types' chunks only) in dispatches of this many bytes of input or
// more. Smaller ones fit on a large GPU at once (no chunk is left to prefetch), and there the ticket
// read the prefetch starts with is all it adds: on the H100 f32 scans of 2^22 items ran 1.5 % slower
// with it, and of 2^16 items at 0.416 of a copy against 0.486 in the run before.
constexpr uint64_t prefetch_min_bytes = 32ull << 20;
uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }
uint64_t round_up(uint64_t a, uint64_t b) { return ceil_div(a, b) * b; }

enum class TileUse { look_back_scan, reduce };
// The tile for a scan of `count` items (0: any count), or for a reduce (which takes no look-back).
ScanTile choose_tile(const DeviceInfo& dev, Type type, const ScanOptions& o, uint64_t count, TileUse use) {
    bool cpu = dev.type == DeviceType::cpu;
    // GPUs: 256 invocations x 64 bytes of items (16 x 32-bit, 8 x 64-bit), except look-back scans of
    // 2^22 32-bit items or more, which take 32 items an invocation. On the H100 (results/README.md)
    // 128 x 32 ran the u32 scan at 0.733 of a copy against 0.710 for 256 x 16 at 2^28 and f32 at
    // 0.714 against 0.650 (but slower in reduce and the reproducible passes). Wider work-groups keep
    // more of the tile in flight per SM, where registers allow: u32 at 2^28 ran at 0.803 of a copy with
    // 128, 0.806 with 160, 0.812 with 192 and 0.814 with 224 invocations; f32 at 0.790, 0.797, 0.743
    // and 0.690 (its tile takes more registers: at 192 and up fewer work-groups fit an SM). u32 in
    // 224 x 32 also ran faster than 256 x 16 at 2^22 (0.532 of a copy against 0.460) and 2^24 (0.745
    // against 0.657), but not at 2^20 (0.370 against 0.416). Once the early look-back round's state
    // moved to shared memory (fourteenth session) u32 at 2^28 ran at 0.887 to 0.889 with 192, 0.906 to
    // 0.913 with 224 (56 registers) and 0.890 to 0.893 with 256; f32 at 0.869 with 160, 0.868 to 0.870
    // with 192, 0.867 to 0.870 with 224 and 0.887 to 0.892 with 256 (also faster at 2^22: 0.58 against
    // 0.55; at 2^24 the same within 0.01), so f32 takes 256.
    // CPUs (lavapipe): small tiles, so that tests reach many tiles and the look-back quickly.
    // Look-back scans of 2^20 64-bit numbers or more (u64, i64, f64) take chunks of 4 staged tiles,
    // all four held in registers through one look-back (device_scan.comp): on the H100 at 2^28 u64
    // ran at 0.81 of a copy against 0.716 with the chunk read twice and 0.473 with one tile in
    // registers; f64 0.78 against 0.698.
    // 32-bit items stay in registers (u32 0.68 chunked against 0.76); u32x2 was not measured.
    // f64's chunks take 128 invocations from 2^22 items up (118 registers against 122: four
    // work-groups an SM of half the size, the same 16 warps). On the H100, three passes in one call:
    // at 2^28 0.805 of a copy against 0.797 to 0.798, at 2^24 0.766 to 0.774 against 0.739 to 0.748,
    // at 2^22 0.698 to 0.711 against 0.679 to 0.692, but at 2^20 0.43 against 0.44 to 0.46; on the H200
    // 0.685 against 0.669 at 2^28. u64 gained at 2^22 and 2^24 and lost 1 % at 2^26 and 2^28
    // (results/device_scan_h200_reduce_and_64bit_trials.txt), so it keeps 256.
    bool number64 = size_of(type) == 8 && type != Type::u32x2;
    bool chunk_by_default = !cpu && number64 && count >= chunked_min_items;
    uint32_t chunk_tiles = o.reproducible || use == TileUse::reduce ? 1u
                           : o.look_back_chunk_tiles                 ? o.look_back_chunk_tiles
                           : chunk_by_default                        ? default_look_back_chunk_tiles
                                                                     : 1u;
    bool wide_tile = !cpu && size_of(type) == 4 && !o.reproducible && count >= wide_tile_min_items &&
                     !o.workgroup_size && !o.items_per_invocation && chunk_tiles == 1;
    uint32_t wide_size = type == Type::f32 ? wide_tile_float_invocations : wide_tile_integer_invocations;
    // (chunks no option asked for are the default ones)
    bool narrow_chunks = chunk_tiles > 1 && !o.look_back_chunk_tiles && type == Type::f64 && count >= wide_tile_min_items;
    uint32_t size = o.workgroup_size ? o.workgroup_size
                    : cpu            ? 64u
                    : wide_tile      ? wide_size
                    : narrow_chunks  ? f64_chunk_invocations
                                     : 256u;
    uint32_t lanes = std::max(1u, dev.max_subgroup_size);
    size = uint32_t(round_up(size, lanes));
    size = std::min(size, std::min<uint32_t>(dev.max_workgroup_invocations, dev.max_workgroup_size[0]));
    if (size % lanes) size -= size % lanes;
    if (size == 0) throw UnsupportedError(dev.name + ": no work-group size is a multiple of its subgroup size");
    uint32_t width = vector_width(type);
    uint32_t items = o.items_per_invocation ? o.items_per_invocation
                     : cpu                  ? 4u
                     : wide_tile            ? 32u
                                            : uint32_t(std::clamp<size_t>(64 / size_of(type), 1, 16));
    items = std::min(max_items_per_invocation, uint32_t(round_up(std::max(items, 1u), width)));
    bool fits = uint64_t(size) * items * size_of(type) <= 16384 && width > 1;
    // Through shared memory or straight into registers. On the H200 (results/README.md) the look-back
    // scan ran faster with direct blocked vector loads (0.48 of a copy against 0.34) and the
    // reproducible scan's passes faster staged (0.54 against 0.48). The 64-bit numbers' single
    // look-back tiles (below chunked_min_items) are staged: on the H100 at 2^16 the u64 scan ran at
    // 1.22 to 1.27 of CUB staged against 1.14 direct, and at 2^18 at 0.427 of a copy against 0.368
    // (f64 0.425 against 0.395). Their reduce tiles are not: staged, u64 reduces ran at 0.56 of a
    // read at 2^22 against 0.74 and 0.51 at 2^20 against 0.58. CPUs take the staged path, so the
    // tests run it at every width.
    bool staged_by_default =
        cpu || o.reproducible || chunk_tiles > 1 || (number64 && use == TileUse::look_back_scan);
    bool staged = o.staged < 0 ? staged_by_default : o.staged > 0;
    return {size, items, staged && fits, chunk_tiles};
}
// Reduce's tile: reduce takes no look-back, so its tile ignores the options' look-back chunks.
ScanTile reduce_tile(const Context& ctx, Type type, const ScanOptions& o) {
    return choose_tile(ctx.device(), type, o, 0, TileUse::reduce);
}
// The Context's own scratch is zeroed when made and kept zeroed (scratch_for).
ScanOptions on_own_scratch(ScanOptions o) {
    o.scratch_zeroed = true;
    return o;
}

// How a count splits into dispatches and each dispatch into tiles and chunks.
struct Layout {
    ScanTile tile;
    uint64_t segment_items = 0; // items of every segment but the last
    uint64_t segments = 0;
    uint64_t chunk_cap = 0;     // chunks a segment may have
    uint64_t items_of(uint64_t s, uint64_t count) const { return std::min(segment_items, count - s * segment_items); }
    uint64_t tiles_of(uint64_t items) const { return ceil_div(items, tile.items()); }
    uint64_t look_back_chunks_of(uint64_t tiles) const { return ceil_div(tiles, tile.look_back_chunk_tiles); }
    void chunks_of(uint64_t tiles, uint32_t& chunks, uint32_t& chunk_tiles) const {
        uint64_t c = std::max<uint64_t>(1, std::min(tiles, chunk_cap));
        chunk_tiles = uint32_t(std::max<uint64_t>(1, ceil_div(tiles, c)));
        chunks = uint32_t(std::max<uint64_t>(1, ceil_div(tiles, chunk_tiles)));
    }
};

} // namespace

struct ScanPlan::State {
    struct Step {
        enum Kind { fill, to_compute, compute_to_compute, dispatch } kind;
        VkBuffer buffer = VK_NULL_HANDLE; // fill
        VkDeviceSize offset = 0, size = 0;
        uint32_t set = 0;                 // dispatch: descriptor set index
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
    uint32_t carry_slot_after = 0; // where the running total is once the plan has run
    ~State() {
        if (pool) core->vk.vkDestroyDescriptorPool(core->device, pool, core->allocator);
    }
};

ScanPlan::ScanPlan() = default;
ScanPlan::ScanPlan(ScanPlan&&) noexcept = default;
ScanPlan& ScanPlan::operator=(ScanPlan&&) noexcept = default;
ScanPlan::~ScanPlan() = default;
uint64_t ScanPlan::count() const { return state_ ? state_->count : 0; }
uint32_t ScanPlan::dispatches() const { return state_ ? state_->dispatches : 0; }

void ScanPlan::record(VkCommandBuffer cmd) const {
    if (!state_ || state_->steps.empty()) return; // nothing to scan
    const State& s = *state_;
    if (!s.core->context_alive) throw Error("ScanPlan::record: the plan's Context was destroyed");
    const DeviceTable& vk = s.core->vk;
    const uint64_t failed_before = s.core->failed_allocations;
    vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s.pipeline);
    for (const State::Step& step : s.steps) {
        VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        switch (step.kind) {
        case State::Step::fill: vk.vkCmdFillBuffer(cmd, step.buffer, step.offset, step.size, 0); break;
        case State::Step::to_compute: // the fills land before the shader reads the state
            barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
            barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
            vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                                    &barrier, 0, nullptr, 0, nullptr);
            break;
        case State::Step::compute_to_compute: // one dispatch's state and output before the next fill and dispatch
            barrier.srcAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
            barrier.dstAccessMask =
                VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
            vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                    VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1,
                                    &barrier, 0, nullptr, 0, nullptr);
            break;
        case State::Step::dispatch:
            vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s.layout, 0, 1, &s.sets[step.set], 0,
                                       nullptr);
            vk.vkCmdPushConstants(cmd, s.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(DeviceScanParams),
                                  &step.params);
            vk.vkCmdDispatch(cmd, step.grid_x, step.grid_y, 1);
            break;
        }
    }
    s.core->check_allocations(failed_before, "ScanPlan::record");
}

ScanTile Context::scan_tile(Type type, const ScanOptions& o, uint64_t count) const {
    return choose_tile(impl_->info, type, o, count, TileUse::look_back_scan);
}

namespace {
Layout make_layout(const DeviceInfo& dev, const ScanTile& tile, Type type, uint64_t count, const ScanOptions& o,
                   bool reduce) {
    Layout l;
    l.tile = tile;
    uint64_t bytes = size_of(type);
    // Segments start at multiples of 256 bytes (the largest minStorageBufferOffsetAlignment) and of
    // the tile, hold at most 2^31 items (32-bit indices with room for a tile) and fit one binding.
    uint64_t step = tile.items();
    while ((step * bytes) % 256) step *= 2;
    uint64_t most = std::min<uint64_t>(dev.max_storage_buffer_range / bytes, 1ull << 31);
    if (o.segment_items) most = std::min(most, o.segment_items);
    l.segment_items = std::max(step, most / step * step);
    l.segments = ceil_div(count, l.segment_items);
    bool cpu = dev.type == DeviceType::cpu;
    // Reduces take fewer chunks than the reproducible scan: every group counts itself finished on one
    // word, and at 2^22 to 2^26 items 2048 groups contend for it. On the H100 a cap of 512 ran u32
    // reduces at 2^24 at 0.84 of a read against 0.77 (u64 0.89 against 0.85), the same at 2^28
    // (results/README.md). The reproducible scan's chunk passes were not measured with it. On the
    // H200 (results/device_scan_h200_reduce_and_64bit_trials.txt) caps of 396 to 2112 ran u32 and f32
    // reduces at 2^28 within 0.5 % of 512; 264 lost 3.5 % there (and gained at 2^22), fewer than one
    // group an SM lost half.
    l.chunk_cap = o.chunks ? o.chunks : cpu ? 8 : reduce ? 512 : 2048;
    return l;
}

// The words both status arrays take for this many chunks.
uint64_t status_array_words(uint64_t chunks) {
    return 2 * round_up(chunks * status_slot_words, status_block);
}

// `room_tile_items`: the items of the type's tile at count 0, the fewest a look-back posts for at any
// count (a tile; f64's larger counts post for chunks of four smaller tiles, 4096 items against 2048).
uint64_t state_words(Type type, const Layout& l, uint64_t count, bool look_back, uint64_t room_tile_items) {
    uint64_t first = std::min(count, l.segment_items); // the largest segment
    uint64_t tiles = l.tiles_of(first);
    uint32_t chunks, chunk_tiles;
    l.chunks_of(tiles, chunks, chunk_tiles);
    // Status room for every tile of the smallest shape, even where the count's tiles are larger or a
    // look-back posts once a chunk: so the need never falls as the count grows past the sizes that
    // widen the tile or turn chunks on (a caller sizes scratch for its largest count).
    uint64_t body = look_back ? status_array_words(ceil_div(first, room_tile_items))
                              : status_words(type) * chunks; // chunk totals
    return state_header_words + std::max<uint64_t>(body, 2);
}
} // namespace

namespace {
// Bytes of count items, or an Error where that overflows 64 bits (no buffer can hold them anyway).
uint64_t items_bytes(uint64_t count, Type type, const char* what) {
    uint64_t size = size_of(type);
    if (count > (uint64_t(1) << 62) / size) {
        throw Error(std::string(what) + ": " + std::to_string(count) + " items of " + std::string(name(type)) +
                    " are more bytes than any buffer holds");
    }
    return count * size;
}

void require_op(const char* what, Type type, Op op) {
    if (!has_op(type, op)) {
        throw Error(std::string(what) + ": " + std::string(name(op)) + " is not defined on " +
                    std::string(name(type)) + " items");
    }
}
} // namespace

uint64_t Context::scan_scratch_bytes(Type type, uint64_t count, const ScanOptions& o) const {
    items_bytes(count, type, "scan_scratch_bytes");
    Layout l = make_layout(impl_->info, scan_tile(type, o, count), type, count, o, false);
    return 4 * state_words(type, l, count, !o.reproducible, scan_tile(type, o).items());
}

uint64_t Context::reduce_scratch_bytes(Type type, uint64_t count, const ScanOptions& o) const {
    items_bytes(count, type, "reduce_scratch_bytes");
    Layout l = make_layout(impl_->info, reduce_tile(*this, type, o), type, count, o, true);
    return 4 * state_words(type, l, count, false, l.tile.items());
}

namespace {
bool overlaps(const BufferRange& a, uint64_t a_bytes, const BufferRange& b, uint64_t b_bytes) {
    return a.buffer == b.buffer && a.offset < b.offset + b_bytes && b.offset < a.offset + a_bytes;
}
} // namespace

ScanPlan Context::plan_scan(Type type, Op op, uint64_t count, const BufferRange& input, const BufferRange& output,
                            const BufferRange& scratch, const ScanOptions& o) {
    return impl_->make_plan(false, type, op, count, input, output, scratch, o, false, 0);
}

ScanPlan Context::plan_reduce(Type type, Op op, uint64_t count, const BufferRange& input, const BufferRange& result,
                              const BufferRange& scratch, const ScanOptions& o) {
    return impl_->make_plan(true, type, op, count, input, result, scratch, o, false, 0);
}

// One builder for scan and reduce. carry_in/carry_slot: a running total comes in from an earlier
// plan on the same scratch (streamed host arrays), in that slot.
ScanPlan Context::Impl::make_plan(bool reduce, Type type, Op op, uint64_t count, const BufferRange& in,
                            const BufferRange& out, const BufferRange& scratch, const ScanOptions& o, bool carry_in,
                            uint32_t carry_slot) {
    const DeviceInfo& dev = info;
    const char* what = reduce ? "reduce" : "scan";
    items_bytes(count, type, what);
    require_op(what, type, op);
    const ModuleInfo* m = &context.select_module(Collective::device_scan, type, op, o.algorithm);
    ScanTile tile = reduce ? reduce_tile(context, type, o) : context.scan_tile(type, o, count);
    if (m->path == Path::subgroup && !context.subgroups_packed({tile.workgroup_size})) {
        m = &context.select_module(Collective::device_scan, type, op, Path::shared_memory);
    }
    check_shape({tile.workgroup_size});
    uint64_t bytes = size_of(type);
    Layout l = make_layout(dev, tile, type, count, o, reduce);
    uint64_t in_bytes = count * bytes;
    uint64_t out_bytes = reduce ? bytes : in_bytes;
    uint64_t scratch_need = reduce ? context.reduce_scratch_bytes(type, count, o) : context.scan_scratch_bytes(type, count, o);
    uint64_t align = std::max<uint64_t>(16, dev.min_storage_buffer_offset_alignment);
    auto check_range = [&](const BufferRange& r, uint64_t need, const char* role) {
        if (!r.buffer) throw Error(std::string(what) + ": the " + role + " buffer is VK_NULL_HANDLE");
        if (r.offset % align) {
            throw Error(std::string(what) + ": the " + role + " offset " + std::to_string(r.offset) +
                        " is not a multiple of " + std::to_string(align) +
                        " (16 bytes and minStorageBufferOffsetAlignment)");
        }
        if (r.size < need) {
            throw Error(std::string(what) + ": the " + role + " range holds " + std::to_string(r.size) +
                        " bytes; " + std::to_string(need) + " are needed");
        }
    };
    if (count > 0 || reduce) {
        if (count > 0) check_range(in, in_bytes, "input");
        check_range(out, out_bytes, reduce ? "result" : "output");
        check_range(scratch, scratch_need, "scratch");
        bool same = in.buffer == out.buffer && in.offset == out.offset;
        if (count > 0 && !(same && !reduce) && overlaps(in, in_bytes, out, out_bytes)) {
            throw Error(std::string(what) + ": the " + (reduce ? "result" : "output") +
                        " range overlaps the input without being the same range");
        }
        if (overlaps(scratch, scratch_need, in, in_bytes) || overlaps(scratch, scratch_need, out, out_bytes)) {
            throw Error(std::string(what) + ": the scratch range overlaps the input or the output");
        }
    }
    ScanPlan plan;
    plan.state_ = std::make_unique<ScanPlan::State>();
    ScanPlan::State& st = *plan.state_;
    st.core = core;
    st.layout = pipeline_layout;
    st.count = count;
    st.carry_slot_after = carry_slot;
    // A reduce of nothing still runs one empty chunk, which writes the identity (or the carry).
    uint64_t segments = reduce ? std::max<uint64_t>(l.segments, 1) : l.segments;
    if (segments == 0) return plan;
    bool packed = m->path == Path::subgroup;
    // A pipeline compiles the path its plan takes (module_spec_kernel).
    uint32_t path = reduce || o.reproducible             ? device_scan_path_chunk_passes
                    : tile.look_back_chunk_tiles > 1 ? device_scan_path_look_back_chunked
                                                     : device_scan_path_look_back;
    st.pipeline = pipeline(*m, {tile.workgroup_size}, packed, tile.items_per_invocation, tile.staged, path);

    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, uint32_t(3 * segments)};
    VkDescriptorPoolCreateInfo dp{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dp.maxSets = uint32_t(segments);
    dp.poolSizeCount = 1;
    dp.pPoolSizes = &size;
    check(vk.vkCreateDescriptorPool(device, &dp, allocator, &st.pool), "vkCreateDescriptorPool");
    std::vector<VkDescriptorSetLayout> layouts(segments, set_layout);
    st.sets.resize(segments);
    VkDescriptorSetAllocateInfo a{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    a.descriptorPool = st.pool;
    a.descriptorSetCount = uint32_t(segments);
    a.pSetLayouts = layouts.data();
    check(vk.vkAllocateDescriptorSets(device, &a, st.sets.data()), "vkAllocateDescriptorSets");

    // The state binds the caller's whole scratch range, not only what this plan needs: a look-back
    // dispatch zeroes what the one before it posted, which a larger plan may have posted further on.
    uint64_t state_binding_bytes =
        std::max(scratch_need, std::min<uint64_t>(scratch.size, dev.max_storage_buffer_range) / 4 * 4);
    bool in_place = !reduce && in.buffer == out.buffer && in.offset == out.offset;
    uint32_t spin = std::min<uint32_t>(o.spin_limit ? o.spin_limit : default_spin_limit, 0xffff);
    using Step = ScanPlan::State::Step;
    auto fill = [&](VkDeviceSize offset, VkDeviceSize size) {
        st.steps.push_back({Step::fill, scratch.buffer, scratch.offset + offset, size});
    };
    auto dispatch = [&](uint32_t set, const DeviceScanParams& p, uint64_t groups) {
        Step step{Step::dispatch};
        step.set = set;
        step.params = p;
        grid_for(groups, step.grid_x, step.grid_y);
        st.steps.push_back(step);
        ++st.dispatches;
    };
    for (uint64_t s = 0; s < segments; ++s) {
        uint64_t items = count ? l.items_of(s, count) : 0;
        uint64_t tiles = l.tiles_of(items);
        uint64_t seg_bytes = items * bytes;
        VkDescriptorBufferInfo infos[3] = {
            {count ? in.buffer : out.buffer, count ? in.offset + s * l.segment_items * bytes : out.offset,
             std::max<uint64_t>(seg_bytes, bytes)},
            {out.buffer, reduce ? out.offset : out.offset + s * l.segment_items * bytes,
             reduce ? bytes : seg_bytes},
            {scratch.buffer, scratch.offset, state_binding_bytes}};
        VkWriteDescriptorSet writes[3] = {};
        for (uint32_t i = 0; i < 3; ++i) {
            writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            writes[i].dstSet = st.sets[s];
            writes[i].dstBinding = i;
            writes[i].descriptorCount = 1;
            writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            writes[i].pBufferInfo = &infos[i];
        }
        vk.vkUpdateDescriptorSets(device, 3, writes, 0, nullptr);

        DeviceScanParams p{};
        p.count = uint32_t(items);
        p.tiles = uint32_t(tiles);
        p.flags = (o.exclusive ? flag_exclusive : 0) | (carry_in || s > 0 ? flag_carry_in : 0) |
                  (st.carry_slot_after ? flag_carry_slot : 0) | (o.force_fallback ? flag_force_fallback : 0) |
                  (in_place ? flag_in_place : 0);
        if (s > 0) st.steps.push_back({Step::compute_to_compute});
        // A scan of one chunk takes no ticket and a reduce of one chunk counts no groups, so they need
        // no zeroed state: one dispatch, without a fill and the barrier after it (about 3
        // microseconds on the H100, most of a small scan's time). Every dispatch leaves the state
        // ready for the next (device_scan.comp), so on a scratch the caller keeps zeroed neither
        // needs a fill, nor do later segments.
        if (!reduce && !o.reproducible) {
            bool stats = lookback_stats();
            p.chunk_tiles = l.tile.look_back_chunk_tiles;
            p.chunks = uint32_t(l.look_back_chunks_of(tiles));
            bool zero_state = p.chunks > 1 && !o.scratch_zeroed;
            if (zero_state) {
                // The ticket, both dirty counts and both status arrays as far as this dispatch reaches.
                fill(4 * ticket_word, 4);
                fill(4 * dirty_word, 4 * (state_header_words - dirty_word + status_array_words(p.chunks)));
            }
            if (stats) {
                p.flags |= flag_stats;
                fill(4 * stat_rounds_word, 4 * 3); // the three counters are adjacent
            }
            if (zero_state || stats) st.steps.push_back({Step::to_compute});
            p.mode = mode_scan;
            p.spin_limit = spin | lookback_window(l.tile.workgroup_size) << 16;
            // In place, a chunk past the frontier could be stored while it is being prefetched: a
            // race, which the memory model leaves undefined even for a value no one uses.
            bool prefetch = o.look_back_prefetch < 0 ? items * size_of(type) >= prefetch_min_bytes
                                                      : o.look_back_prefetch > 0;
            if (prefetch && !in_place) p.flags |= flag_prefetch;
            dispatch(uint32_t(s), p, p.chunks);
        } else {
            l.chunks_of(tiles, p.chunks, p.chunk_tiles);
            if (p.chunks > 1 && !o.scratch_zeroed && s == 0) {
                // The counter, and from reduce's tile ticket on the chunk totals' words: the last group
                // trusts a total by its flag.
                fill(4 * finished_word, 4);
                fill(4 * reduce_ticket_word,
                     4 * (state_header_words - reduce_ticket_word + uint64_t(status_words(type)) * p.chunks));
                st.steps.push_back({Step::to_compute});
            }
            p.mode = reduce ? mode_reduce : mode_reduce_chunks;
            dispatch(uint32_t(s), p, p.chunks);
            if (!reduce) {
                st.steps.push_back({Step::compute_to_compute});
                p.mode = mode_scan_chunks;
                dispatch(uint32_t(s), p, p.chunks);
            }
        }
        st.carry_slot_after ^= 1; // this segment wrote the other slot
    }
    return plan;
}

// ---- on the Context's own buffers ----

namespace {
BufferRange whole(const Buffer& b) { return {b.handle(), 0, b.size()}; }
} // namespace

void Context::Impl::run_plan(const ScanPlan& plan) {
    begin();
    VkMemoryBarrier before{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    before.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    before.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &before, 0,
                            nullptr, 0, nullptr);
    timed([&] { plan.record(cmd); });
    finish_timed();
}

// The Context's own scratch, zeroed when it is made and kept zeroed by every plan on it
// (ScanOptions::scratch_zeroed), so its scans and reduces record no fill.
Buffer& Context::Impl::scratch_for(uint64_t bytes) {
    if (scratch.size() < bytes) {
        scratch = Buffer();
        Buffer fresh = context.create_buffer(std::max<uint64_t>(bytes, 4096));
        std::vector<uint8_t> zeros(fresh.size());
        context.upload(fresh, zeros.data(), zeros.size());
        scratch = std::move(fresh);
    }
    return scratch;
}

// Checks before the Context's own scratch grows for the call.
void Context::Impl::check_buffers(const char* what, const Buffer& input, uint64_t input_bytes, const Buffer& output,
                            uint64_t output_bytes) const {
    check_buffer(input, "the input");
    check_buffer(output, "the output");
    if (input.size() < input_bytes) {
        throw Error(std::string(what) + ": the input range holds " + std::to_string(input.size()) + " bytes; " +
                    std::to_string(input_bytes) + " are needed");
    }
    if (output.size() < output_bytes) {
        throw Error(std::string(what) + ": the " + (output_bytes == input_bytes ? "output" : "result") +
                    " range holds " + std::to_string(output.size()) + " bytes; " + std::to_string(output_bytes) +
                    " are needed");
    }
}

void Context::scan(const Buffer& input, Buffer& output, Type type, Op op, uint64_t count, const ScanOptions& o) {
    uint64_t bytes = items_bytes(count, type, "scan");
    impl_->check_buffers("scan", input, bytes, output, bytes);
    if (count == 0) return;
    Buffer& scratch = impl_->scratch_for(scan_scratch_bytes(type, count, o));
    ScanPlan plan =
        impl_->make_plan(false, type, op, count, whole(input), whole(output), whole(scratch), on_own_scratch(o), false, 0);
    impl_->run_plan(plan);
    // The counters cover one dispatch: segmented scans zero them per segment, so print single ones only.
    if (lookback_stats() && !o.reproducible && plan.dispatches() == 1) {
        uint32_t header[state_header_words];
        download(scratch, header, sizeof header);
        ScanTile tile = scan_tile(type, o, count);
        double chunks = double(ceil_div(ceil_div(count, tile.items()), tile.look_back_chunk_tiles));
        std::fprintf(stderr, "look-back: %.0f chunks; per chunk %.2f rounds, %.2f chunks walked, %.4f fallbacks\n",
                     chunks, header[stat_rounds_word] / chunks, header[stat_walked_word] / chunks,
                     header[stat_fallbacks_word] / chunks);
    }
}

void Context::reduce(const Buffer& input, Buffer& result, Type type, Op op, uint64_t count, const ScanOptions& o) {
    impl_->check_buffers("reduce", input, items_bytes(count, type, "reduce"), result, size_of(type));
    Buffer& scratch = impl_->scratch_for(reduce_scratch_bytes(type, count, o));
    BufferRange in = count ? whole(input) : BufferRange{};
    impl_->run_plan(impl_->make_plan(true, type, op, count, in, whole(result), whole(scratch), on_own_scratch(o), false, 0));
}

// Host arrays: chunks of stream_bytes go up, are scanned in place with the carry of the chunks
// before, and come down.
void Context::scan_host(const void* items, void* out, uint64_t count, Type type, Op op, const ScanOptions& o) {
    items_bytes(count, type, "scan");
    require_op("scan", type, op);
    if (count == 0) return;
    uint64_t bytes = size_of(type);
    ScanTile tile = scan_tile(type, o);
    uint64_t chunk = std::max<uint64_t>(1, (o.stream_bytes ? o.stream_bytes : default_stream_bytes) / bytes);
    chunk = std::min(round_up(chunk, tile.items()), count); // whole tiles, so every chunk is 16-byte aligned
    Buffer device = create_buffer(chunk * bytes);
    Buffer& scratch = impl_->scratch_for(scan_scratch_bytes(type, chunk, o));
    uint32_t slot = 0;
    for (uint64_t first = 0; first < count; first += chunk) {
        uint64_t n = std::min(chunk, count - first);
        upload(device, static_cast<const char*>(items) + first * bytes, n * bytes);
        ScanPlan plan = impl_->make_plan(false, type, op, n, whole(device), whole(device), whole(scratch),
                                  on_own_scratch(o), first > 0, slot);
        impl_->run_plan(plan);
        slot = plan.state_->carry_slot_after;
        download(device, static_cast<char*>(out) + first * bytes, n * bytes);
    }
}

void Context::reduce_host(const void* items, void* result, uint64_t count, Type type, Op op,
                          const ScanOptions& o) {
    items_bytes(count, type, "reduce");
    require_op("reduce", type, op);
    uint64_t bytes = size_of(type);
    ScanTile tile = reduce_tile(*this, type, o);
    uint64_t chunk = std::max<uint64_t>(1, (o.stream_bytes ? o.stream_bytes : default_stream_bytes) / bytes);
    chunk = std::max<uint64_t>(1, std::min(round_up(chunk, tile.items()), count));
    Buffer device = create_buffer(chunk * bytes);
    Buffer total = create_buffer(bytes);
    Buffer& scratch = impl_->scratch_for(reduce_scratch_bytes(type, chunk, o));
    uint32_t slot = 0;
    uint64_t first = 0;
    do {
        uint64_t n = std::min(chunk, count - first);
        if (n) upload(device, static_cast<const char*>(items) + first * bytes, n * bytes);
        ScanPlan plan = impl_->make_plan(true, type, op, n, n ? whole(device) : BufferRange{}, whole(total), whole(scratch),
                                  on_own_scratch(o), first > 0, slot);
        impl_->run_plan(plan);
        slot = plan.state_->carry_slot_after;
        first += n;
    } while (first < count);
    download(total, result, bytes);
}

VkInstance Context::vk_instance() const { return impl_->instance; }
VkPhysicalDevice Context::vk_physical_device() const { return impl_->physical; }
VkDevice Context::vk_device() const { return impl_->device; }
uint32_t Context::queue_family() const { return impl_->queue_family; }
VkQueue Context::queue() const { return impl_->queue; }

} // namespace vkc
