// Device-wide select plans (include/vkc/select.hpp): a fill of the scratch, the command's fixed
// words, and one dispatch of shaders/kernels/select.comp, made once and recorded into any command
// buffer of the device.
#include <algorithm>
#include <string>
#include <vector>

#include "device/device_state.hpp"
#include "pipeline/plan_bindings.hpp"
#include "select/internal.hpp"
#include "vkc/contract.h"

namespace vkc {

namespace {
constexpr uint32_t select_bindings = 7; // items in, items out, scratch, count, flags, kept, command
constexpr uint32_t default_spin_limit = 256;

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// The item order the kernel compares by (VKC_SELECT_ORDER_SHIFT).
uint32_t order_of(Type item) {
    if (is_signed_integer(item)) return 1u;
    return item == Type::f16 || item == Type::f32 || item == Type::f64 ? 2u : 0u;
}

} // namespace

SelectPlan::SelectPlan() = default;
SelectPlan::SelectPlan(SelectPlan&&) noexcept = default;
SelectPlan& SelectPlan::operator=(SelectPlan&&) noexcept = default;
SelectPlan::~SelectPlan() = default;
uint64_t SelectPlan::count() const { return state_ ? state_->count : 0; }
uint32_t SelectPlan::dispatches() const { return state_ && state_->pipeline ? 1 : 0; }
Path SelectPlan::path() const { return state_ ? state_->path : Path::shared_memory; }

void SelectPlan::record(VkCommandBuffer cmd) const {
    if (!state_) return;
    const State& s = *state_;
    if (!s.core->context_alive) throw Error("SelectPlan::record: the plan's Context was destroyed");
    const DeviceTable& vk = s.core->vk;
    const uint64_t failed_before = s.core->failed_allocations;
    // The command's fixed words, and its kept-dependent one as for none kept.
    if (s.command.size) vk.vkCmdUpdateBuffer(cmd, s.command.buffer, s.command.offset, s.command.size, s.command_words);
    if (!s.pipeline) { // no items: none kept
        vk.vkCmdFillBuffer(cmd, s.kept_zero.buffer, s.kept_zero.offset, 4, 0);
        s.core->check_allocations(failed_before, "SelectPlan::record");
        return;
    }
    record_scratch_zeroing(vk, cmd, s.scratch);
    record_dispatch(vk, cmd, s.pipeline, s.layout, s.set, &s.params, sizeof(SelectParams), s.grid_x, s.grid_y);
    s.core->check_allocations(failed_before, "SelectPlan::record");
}

bool is_select_item(Type item) { return is_integer(item) || is_float(item); }

uint32_t select_command_bytes(KeptCommand command) {
    switch (command) {
    case KeptCommand::dispatch: return 12;
    case KeptCommand::draw: return 16;
    case KeptCommand::draw_indexed: return 20;
    default: return 0;
    }
}

void check_select_arguments(Type item, uint64_t count, const SelectOptions& o, const char* what) {
    const std::string w(what);
    if (!is_select_item(item)) {
        throw Error(w + ": items of type " + std::string(name(item)) +
                    " are not supported (uchar, char, ushort, short, half, uint, int, float, ulong, long and double "
                    "items are)");
    }
    if (uint32_t(o.by) > uint32_t(Selection::unique)) {
        throw Error(w + ": SelectOptions::by " + std::to_string(uint32_t(o.by)) + " is not a Selection");
    }
    if (o.by == Selection::predicate) {
        if (uint32_t(o.predicate.kind) > uint32_t(SelectPredicate::Kind::bits_any)) {
            throw Error(w + ": the predicate's kind " + std::to_string(uint32_t(o.predicate.kind)) +
                        " is not a SelectPredicate::Kind");
        }
        if (o.predicate.type != item) {
            throw Error(w + ": the predicate's operands are " + std::string(name(o.predicate.type)) +
                        " but the items are " + std::string(name(item)));
        }
    }
    if (uint32_t(o.command) > uint32_t(KeptCommand::draw_indexed)) {
        throw Error(w + ": SelectOptions::command " + std::to_string(uint32_t(o.command)) + " is not a KeptCommand");
    }
    if (o.command == KeptCommand::dispatch && (o.command_group_items < 1 || o.command_group_items > 65535)) {
        throw Error(w + ": command_group_items " + std::to_string(o.command_group_items) +
                    " is outside 1 to 65535");
    }
    if (o.spin_limit > 65535) throw Error(w + ": spin_limit " + std::to_string(o.spin_limit) + " is past 65535");
    if (!o.kernel.empty() && o.by != Selection::predicate) {
        throw Error(w + ": an engine's own kernel is given but SelectOptions::by is not predicate");
    }
    if (!o.kernel.empty() && size_of(item) < 4) {
        throw Error(w + ": an engine's own kernel selects 32- and 64-bit items; the items are " + std::string(name(item)));
    }
    if (count > select_max_count) {
        throw Error(w + ": " + std::to_string(count) + " items are past " + std::to_string(select_max_count) +
                    ", the most one select takes");
    }
}

uint64_t select_scratch_bytes_of(uint64_t count) {
    return (VKC_SELECT_STATUSES +
            std::max<uint64_t>(1, ceil_div(count, select_tile_items)) * uint64_t(VKC_SELECT_STATUS_SLOT)) *
           sizeof(uint32_t);
}

uint64_t DeviceState::select_scratch_bytes(Type item, uint64_t count, const SelectOptions& o) const {
    // Only what the size depends on: a query need not name the predicate.
    SelectOptions shape;
    shape.spin_limit = o.spin_limit;
    shape.by = Selection::unique;
    check_select_arguments(item, count, shape, "select_scratch_bytes");
    return select_scratch_bytes_of(count);
}

SelectPlan DeviceState::make_select_plan(Type item, uint64_t count, const SelectRanges& r, const SelectOptions& o,
                                         const IndirectCount* indirect) {
    const char* what = o.partition ? "partition" : o.by == Selection::unique ? "unique" : "select";
    check_select_arguments(item, count, o, what);
    const DeviceInfo& dev = info;
    const ModuleInfo* m = &select_module(Collective::select, select_module_type(item), Op::add, o.path);
    check_shape({VKC_SELECT_WORKGROUP_SIZE});
    if (shared_memory_bytes(*m) > dev.max_shared_memory) {
        throw UnsupportedError(std::string(what) + ": select needs " + std::to_string(shared_memory_bytes(*m)) +
                               " bytes of shared memory; the device has " + std::to_string(dev.max_shared_memory));
    }
    const uint64_t item_bytes = count * size_of(item);
    const uint64_t command_bytes = select_command_bytes(o.command);
    const uint64_t scratch_need = select_scratch_bytes_of(count);
    const uint64_t align = std::max<uint64_t>(16, dev.min_storage_buffer_offset_alignment);
    const bool in_place = r.output.buffer == r.input.buffer && r.output.offset == r.input.offset && count > 0;
    if (in_place && o.partition) {
        throw Error(std::string(what) + ": the output is the input; partition is not done in place");
    }
    // The kept count and the command are written even for 0 items.
    std::vector<RangeRole> roles = {{&r.kept, 4, 4, "kept"}};
    if (command_bytes) roles.push_back({&r.command, command_bytes, 4, "command"});
    if (count > 0) {
        roles.push_back({&r.input, item_bytes, align, "input", in_place});
        if (!in_place) roles.push_back({&r.output, item_bytes, align, "output"});
        if (o.by == Selection::flagged) roles.push_back({&r.flags, count * 4, align, "flags", false});
        roles.push_back({&r.scratch, scratch_need, align, "scratch"});
    }
    check_roles(roles, dev.max_storage_buffer_range, what);
    if (indirect) check_indirect_count(*indirect, roles, what);
    const auto [count_info, count_word] = count_binding(indirect, {r.scratch.buffer, r.scratch.offset, scratch_need},
                                                        dev.min_storage_buffer_offset_alignment);

    SelectPlan plan;
    plan.state_ = std::make_unique<SelectPlan::State>();
    SelectPlan::State& st = *plan.state_;
    st.core = core;
    st.layout = pipelines.pipeline_layout;
    st.count = count;
    st.path = m->path;
    if (command_bytes) {
        st.command = {r.command.buffer, r.command.offset, command_bytes};
        // dispatch {0, 1, 1}; draw {vertices, 0, 0, 0}; draw_indexed {indices, 0, 0, 0, 0}
        if (o.command == KeptCommand::dispatch) st.command_words[1] = st.command_words[2] = 1;
        else st.command_words[0] = o.command_vertices;
    }
    if (count == 0) { // no dispatch: record() fills the number kept with 0
        st.kept_zero = {r.kept.buffer, r.kept.offset, 4};
        return plan;
    }
    st.scratch = {r.scratch.buffer, r.scratch.offset, scratch_need};
    const uint32_t kind = o.by == Selection::predicate ? uint32_t(o.predicate.kind) : 0u;
    const uint32_t shape = uint32_t(size_of(item)) / 4 | uint32_t(o.by) << VKC_SELECT_BY_SHIFT |
                           uint32_t(o.partition) << VKC_SELECT_PARTITION_SHIFT |
                           order_of(item) << VKC_SELECT_ORDER_SHIFT | kind << VKC_SELECT_PREDICATE_SHIFT;
    const bool packed = m->path == Path::subgroup && known_packed(VKC_SELECT_WORKGROUP_SIZE);
    st.pipeline = o.kernel.empty()
                      ? pipelines.pipeline(*m, {VKC_SELECT_WORKGROUP_SIZE}, packed, 0, false, shape)
                      : pipelines.user_pipeline(o.kernel, {VKC_SELECT_WORKGROUP_SIZE},
                                                known_packed(VKC_SELECT_WORKGROUP_SIZE), shape, what);

    allocate_sets(vk, device, allocator, pipelines.set_layout, 1, st.pool, &st.set);
    const uint64_t min_align = dev.min_storage_buffer_offset_alignment;
    const WordBinding kept = word_binding(r.kept, 4, min_align);
    const WordBinding command = command_bytes ? word_binding(r.command, command_bytes, min_align) : kept;
    // Bindings a selection does not read see ranges it does read (never written through them).
    const BufferRange& flags = o.by == Selection::flagged ? r.flags : r.input;
    const uint64_t flag_bytes = o.by == Selection::flagged ? count * 4 : item_bytes;
    VkDescriptorBufferInfo infos[select_bindings] = {{r.input.buffer, r.input.offset, item_bytes},
                                                     {r.output.buffer, r.output.offset, item_bytes},
                                                     {r.scratch.buffer, r.scratch.offset, scratch_need},
                                                     count_info,
                                                     {flags.buffer, flags.offset, flag_bytes},
                                                     kept.info,
                                                     command.info};
    write_storage_buffers(vk, device, st.set, infos, select_bindings);

    const uint64_t tiles = ceil_div(count, select_tile_items);
    SelectParams& p = st.params;
    p.count = uint32_t(count);
    p.tiles = uint32_t(tiles);
    p.flags = (o.test.force_fallback ? VKC_SELECT_FLAG_FORCE_FALLBACK : 0u) |
              (in_place ? VKC_SELECT_FLAG_IN_PLACE : 0u) | uint32_t(o.command) << VKC_SELECT_COMMAND_SHIFT |
              kept.word << VKC_SELECT_KEPT_WORD_SHIFT | command.word << VKC_SELECT_COMMAND_WORD_SHIFT;
    if (indirect) p.flags |= VKC_SELECT_FLAG_COUNT_ON_DEVICE | count_word << VKC_DEVICE_COUNT_WORD_SHIFT;
    p.limits = (o.spin_limit ? o.spin_limit : default_spin_limit) |
               (o.command == KeptCommand::dispatch ? o.command_group_items : 1u) << 16;
    p.a[0] = uint32_t(o.predicate.a);
    p.a[1] = uint32_t(o.predicate.a >> 32);
    p.b[0] = uint32_t(o.predicate.b);
    p.b[1] = uint32_t(o.predicate.b >> 32);
    grid_for(tiles, st.grid_x, st.grid_y);
    return plan;
}

} // namespace vkc
