// Segmented scan, reduce and run-length encoding plans (include/vkc/segmented.hpp): a fill of the
// scratch and one dispatch of shaders/kernels/segmented.comp, made once and recorded into any
// command buffer of the device.
#include <algorithm>
#include <string>
#include <vector>

#include "device/device_state.hpp"
#include "pipeline/plan_bindings.hpp"
#include "segmented/internal.hpp"
#include "vkc/contract.h"

namespace vkc {

namespace {
constexpr uint32_t segmented_bindings = 7; // values, output, scratch, count, heads, unique keys, segments
constexpr uint32_t default_spin_limit = 256;

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// The key order the kernel compares by (VKC_SEGMENTED_KEY_ORDER_SHIFT).
uint32_t order_of(Type key) {
    return key == Type::i32 || key == Type::i64 ? 1u : key == Type::f32 || key == Type::f64 ? 2u : 0u;
}
} // namespace

SegmentedPlan::SegmentedPlan() = default;
SegmentedPlan::SegmentedPlan(SegmentedPlan&&) noexcept = default;
SegmentedPlan& SegmentedPlan::operator=(SegmentedPlan&&) noexcept = default;
SegmentedPlan::~SegmentedPlan() = default;
uint64_t SegmentedPlan::count() const { return state_ ? state_->count : 0; }
uint32_t SegmentedPlan::dispatches() const { return state_ && state_->pipeline ? 1 : 0; }
Path SegmentedPlan::path() const { return state_ ? state_->path : Path::shared_memory; }

void SegmentedPlan::record(VkCommandBuffer cmd) const {
    if (!state_) return;
    const State& s = *state_;
    if (!s.core->context_alive) throw Error("SegmentedPlan::record: the plan's Context was destroyed");
    const DeviceTable& vk = s.core->vk;
    const uint64_t failed_before = s.core->failed_allocations;
    if (!s.pipeline) { // no items: no segments
        if (s.segments_zero.size) vk.vkCmdFillBuffer(cmd, s.segments_zero.buffer, s.segments_zero.offset, 4, 0);
        s.core->check_allocations(failed_before, "SegmentedPlan::record");
        return;
    }
    record_scratch_zeroing(vk, cmd, s.scratch);
    record_dispatch(vk, cmd, s.pipeline, s.layout, s.set, &s.params, sizeof(SegmentedParams), s.grid_x, s.grid_y);
    s.core->check_allocations(failed_before, "SegmentedPlan::record");
}

bool is_segmented_key(Type key) {
    return key == Type::u32 || key == Type::i32 || key == Type::f32 || key == Type::u64 || key == Type::i64 ||
           key == Type::f64;
}

bool is_segmented_value(Type value) {
    return is_segmented_key(value) || value == Type::u8 || value == Type::i8 || value == Type::u16 || value == Type::i16 ||
           value == Type::f16;
}

const char* segmented_call_name(const SegmentedOptions& o) {
    const bool keys = o.by == Segments::keys;
    switch (o.output) {
    case SegmentedOutput::scan_inclusive:
    case SegmentedOutput::scan_exclusive: return keys ? "scan by key" : "segmented scan";
    case SegmentedOutput::reduce: return keys ? "reduce by key" : "segmented reduce";
    case SegmentedOutput::non_trivial_runs: return "non-trivial runs";
    default: return "run-length encode";
    }
}

void check_segmented_arguments(Type value, Op op, uint64_t count, const SegmentedOptions& o, const char* what) {
    const std::string w(what);
    if (uint32_t(o.by) > uint32_t(Segments::offsets)) {
        throw Error(w + ": SegmentedOptions::by " + std::to_string(uint32_t(o.by)) + " is not a Segments");
    }
    if (uint32_t(o.output) > uint32_t(SegmentedOutput::non_trivial_runs)) {
        throw Error(w + ": SegmentedOptions::output " + std::to_string(uint32_t(o.output)) +
                    " is not a SegmentedOutput");
    }
    if (o.by == Segments::offsets && o.segment_count > segmented_max_count) {
        throw Error(w + ": segment_count " + std::to_string(o.segment_count) + " is past " +
                    std::to_string(segmented_max_count));
    }
    if (!has_values(o)) {
        if (o.by != Segments::keys) throw Error(w + ": runs are runs of keys; SegmentedOptions::by is not keys");
        if (value != Type::u32 || op != Op::add) {
            throw Error(w + ": run lengths are counted as uint add; the plan's value type is " +
                        std::string(name(value)) + " and its op " + std::string(name(op)));
        }
    }
    if (!is_segmented_value(value)) {
        throw Error(w + ": values of type " + std::string(name(value)) +
                    " are not supported (uchar, char, ushort, short, half, uint, int, float, ulong, long and double values are)");
    }
    if (!has_op(value, op)) {
        throw Error(w + ": " + std::string(name(op)) + " is not defined on " + std::string(name(value)) + " values");
    }
    if (o.by == Segments::keys && !is_segmented_key(o.key)) {
        throw Error(w + ": keys of type " + std::string(name(o.key)) +
                    " are not supported (uint, int, float, ulong, long and double keys are)");
    }
    if (o.spin_limit > 65535) throw Error(w + ": spin_limit " + std::to_string(o.spin_limit) + " is past 65535");
    if (count > segmented_max_count) {
        throw Error(w + ": " + std::to_string(count) + " items are past " + std::to_string(segmented_max_count) +
                    ", the most one segmented plan takes");
    }
}

uint64_t segmented_scratch_bytes_of(uint64_t count) {
    return (VKC_SEGMENTED_STATUSES + std::max<uint64_t>(1, ceil_div(count, segmented_tile_items)) *
                                         uint64_t(VKC_SEGMENTED_STATUS_SLOT)) * sizeof(uint32_t);
}

SegmentedBytes segmented_bytes(Type value, uint64_t count, const SegmentedOptions& o) {
    const bool keys = o.by == Segments::keys, by_offsets = o.by == Segments::offsets;
    const uint64_t runs_bytes = (count + 1) / 2 * 4; // non-trivial runs: at most one in two items
    SegmentedBytes b;
    b.values = count * size_of(value);
    b.heads = by_offsets ? (uint64_t(o.segment_count) + 1) * 4 : count * (keys ? size_of(o.key) : 4);
    const bool non_trivial = o.output == SegmentedOutput::non_trivial_runs;
    b.output = by_offsets && reduces(o) ? uint64_t(o.segment_count) * size_of(value) : non_trivial ? runs_bytes : b.values;
    b.unique_keys = non_trivial ? runs_bytes : b.heads;
    return b;
}

uint64_t DeviceState::segmented_scratch_bytes(Type value, uint64_t count, const SegmentedOptions& o) const {
    check_segmented_arguments(value, Op::add, count, o, "segmented_scratch_bytes"); // what the size depends on
    return segmented_scratch_bytes_of(count);
}

SegmentedPlan DeviceState::make_segmented_plan(Type value, Op op, uint64_t count, const SegmentedRanges& r,
                                               const SegmentedOptions& o, const IndirectCount* indirect) {
    const char* what = segmented_call_name(o);
    check_segmented_arguments(value, op, count, o, what);
    const DeviceInfo& dev = info;
    const ModuleInfo* m = &select_module(Collective::segmented, value, op, o.path);
    check_shape({VKC_SEGMENTED_WORKGROUP_SIZE});
    if (shared_memory_bytes(*m) > dev.max_shared_memory) {
        throw UnsupportedError(std::string(what) + ": it needs " + std::to_string(shared_memory_bytes(*m)) +
                               " bytes of shared memory; the device has " + std::to_string(dev.max_shared_memory));
    }
    const bool keys = o.by == Segments::keys;
    const bool by_offsets = o.by == Segments::offsets;
    const bool reducing = reduces(o);
    const bool reads_values = has_values(o);
    const bool writes_count = writes_segment_count(o);
    const bool writes_unique = writes_unique_keys(o);
    const SegmentedBytes bytes = segmented_bytes(value, count, o);
    const uint64_t value_bytes = bytes.values, head_bytes = bytes.heads, output_bytes = bytes.output;
    // A reduce by offsets writes empty segments even for no items.
    const bool dispatches = by_offsets && reducing ? o.segment_count > 0 : count > 0;
    const uint64_t scratch_need = segmented_scratch_bytes_of(count);
    const uint64_t align = std::max<uint64_t>(16, dev.min_storage_buffer_offset_alignment);
    const bool in_place = !reducing && count > 0 && r.output.buffer == r.values.buffer && r.output.offset == r.values.offset;
    // The number of segments is written even for 0 items.
    std::vector<RangeRole> roles;
    if (writes_count) roles.push_back({&r.segments, 4, 4, "segments"});
    const BufferRange& heads = by_offsets ? r.offsets : r.heads;
    if (dispatches) {
        if (reads_values && count > 0) roles.push_back({&r.values, value_bytes, align, "values", in_place});
        roles.push_back({&heads, head_bytes, align, by_offsets ? "offsets" : keys ? "keys" : "head flags", false});
        if (!in_place) roles.push_back({&r.output, output_bytes, align, o.output == SegmentedOutput::non_trivial_runs ? "output (lengths)" : "output"});
        if (writes_unique) {
            roles.push_back({&r.unique_keys, bytes.unique_keys, align,
                             o.output == SegmentedOutput::non_trivial_runs ? "unique keys (offsets)" : "unique keys"});
        }
        roles.push_back({&r.scratch, scratch_need, align, "scratch"});
    }
    check_roles(roles, dev.max_storage_buffer_range, what);
    if (indirect) check_indirect_count(*indirect, roles, what);
    const auto [count_info, count_word] = count_binding(indirect, {r.scratch.buffer, r.scratch.offset, scratch_need},
                                                        dev.min_storage_buffer_offset_alignment);

    SegmentedPlan plan;
    plan.state_ = std::make_unique<SegmentedPlan::State>();
    SegmentedPlan::State& st = *plan.state_;
    st.core = core;
    st.layout = pipelines.pipeline_layout;
    st.count = count;
    st.path = m->path;
    if (!dispatches) { // record() fills the number of segments with 0
        if (writes_count) st.segments_zero = {r.segments.buffer, r.segments.offset, 4};
        return plan;
    }
    st.scratch = {r.scratch.buffer, r.scratch.offset, scratch_need};
    const uint32_t shape = uint32_t(o.by) |
                           (keys ? uint32_t(size_of(o.key) / 4) : 1u) << VKC_SEGMENTED_KEY_WORDS_SHIFT |
                           (keys ? order_of(o.key) : 0u) << VKC_SEGMENTED_KEY_ORDER_SHIFT |
                           uint32_t(o.output) << VKC_SEGMENTED_OUTPUT_SHIFT;
    const bool packed = m->path == Path::subgroup && known_packed(VKC_SEGMENTED_WORKGROUP_SIZE);
    st.pipeline = pipelines.pipeline(*m, {VKC_SEGMENTED_WORKGROUP_SIZE}, packed, 0, false, shape);

    allocate_sets(vk, device, allocator, pipelines.set_layout, 1, st.pool, &st.set);
    const uint64_t min_align = dev.min_storage_buffer_offset_alignment;
    // Bindings a plan does not use see ranges it reads (never written through them).
    const WordBinding segments = writes_count ? word_binding(r.segments, 4, min_align)
                                              : WordBinding{{heads.buffer, heads.offset, head_bytes}, 0};
    // No items by offsets: the values' binding sees the offsets (never read through it).
    const bool values_bound = reads_values && count > 0;
    const BufferRange& values = values_bound ? r.values : heads;
    const BufferRange& unique = writes_unique ? r.unique_keys : heads;
    VkDescriptorBufferInfo infos[segmented_bindings] = {{values.buffer, values.offset, values_bound ? value_bytes : head_bytes},
                                                        {r.output.buffer, r.output.offset, output_bytes},
                                                        {r.scratch.buffer, r.scratch.offset, scratch_need},
                                                        count_info,
                                                        {heads.buffer, heads.offset, head_bytes},
                                                        {unique.buffer, unique.offset, writes_unique ? bytes.unique_keys : head_bytes},
                                                        segments.info};
    write_storage_buffers(vk, device, st.set, infos, segmented_bindings);

    const uint64_t tiles = std::max<uint64_t>(1, ceil_div(count, segmented_tile_items));
    SegmentedParams& p = st.params;
    p.count = uint32_t(count);
    p.tiles = uint32_t(tiles);
    p.flags = (o.test.force_fallback ? VKC_SEGMENTED_FLAG_FORCE_FALLBACK : 0u) |
              (in_place ? VKC_SEGMENTED_FLAG_IN_PLACE : 0u) |
              segments.word << VKC_SEGMENTED_SEGMENTS_WORD_SHIFT;
    if (indirect) p.flags |= VKC_SEGMENTED_FLAG_COUNT_ON_DEVICE | count_word << VKC_DEVICE_COUNT_WORD_SHIFT;
    p.limits = o.spin_limit ? o.spin_limit : default_spin_limit;
    p.segment_count = by_offsets ? o.segment_count : 0;
    grid_for(tiles, st.grid_x, st.grid_y);
    return plan;
}

} // namespace vkc
