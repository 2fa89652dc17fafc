// Device-wide scan and reduce plans: the fills, dispatches and barriers of a scan or reduce, made
// once and recorded into any command buffer of the device.
#include <algorithm>
#include <cstring>

#include "device/device_state.hpp"
#include "device_scan/internal.hpp"
#include "environment.hpp"
#include "pipeline/plan_bindings.hpp"

namespace vkc {

namespace {
constexpr uint32_t scan_bindings = 4; // device_scan.comp's: input, output, scratch, count
} // namespace

ScanPlan::ScanPlan() = default;
ScanPlan::ScanPlan(ScanPlan&&) noexcept = default;
ScanPlan& ScanPlan::operator=(ScanPlan&&) noexcept = default;
ScanPlan::~ScanPlan() = default;
uint64_t ScanPlan::count() const { return state_ ? state_->count : 0; }
uint32_t ScanPlan::dispatches() const { return state_ ? state_->dispatches : 0; }
Path ScanPlan::path() const { return state_ ? state_->path : Path::shared_memory; }

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
            barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                    VK_ACCESS_TRANSFER_WRITE_BIT;
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

ScanPlan DeviceState::plan_scan(Type type, Op op, uint64_t count, const BufferRange& input, const BufferRange& output,
                                const BufferRange& scratch, const ScanOptions& o) {
    return make_plan(false, type, op, count, input, output, scratch, o, false, 0);
}

ScanPlan DeviceState::plan_reduce(Type type, Op op, uint64_t count, const BufferRange& input, const BufferRange& result,
                                  const BufferRange& scratch, const ScanOptions& o) {
    return make_plan(true, type, op, count, input, result, scratch, o, false, 0);
}

// One builder for scan and reduce. carry_in/carry_slot: a running total comes in from an earlier
// plan on the same scratch (streamed host arrays), in that slot.
const ModuleInfo& DeviceState::scan_module(bool reduce, Type type, Op op, uint64_t count, const ScanOptions& o,
                                           const char* what, ScanPolicy& policy) const {
    items_bytes(count, type, what);
    require_op(what, type, op);
    const ModuleInfo* m = &select_module(Collective::device_scan, type, op, o.path);
    policy = resolve_scan_policy(info, type, o, count, reduce);
    if (m->path == Path::subgroup && !known_packed(policy.tile.workgroup_size)) {
        m = &select_module(Collective::device_scan, type, op, Path::shared_memory);
    }
    check_shape({policy.tile.workgroup_size});
    check_tile_fits(info, type, policy.tile, what);
    return *m;
}

DeviceState::ScanPipelineKey DeviceState::scan_pipeline_key(const ModuleInfo& m, const ScanPolicy& policy,
                                                             bool indirect) {
    // A pipeline compiles the path its plan takes (module_spec_kernel).
    const ScanTile& tile = policy.tile;
    return {&m, tile.workgroup_size, tile.items_per_invocation, tile.staged,
            policy.kernel_path | (indirect ? VKC_DEVICE_COUNT_ON_DEVICE : 0u)};
}

VkPipeline DeviceState::scan_pipeline(const ScanPipelineKey& k) {
    return pipelines.pipeline(*k.module, {k.workgroup_size}, k.module->path == Path::subgroup, k.items_per_invocation,
                              k.staged, k.kernel);
}

ScanPlan DeviceState::make_plan(bool reduce, Type type, Op op, uint64_t count, const BufferRange& in,
                                const BufferRange& out, const BufferRange& scratch, const ScanOptions& o, bool carry_in,
                                uint32_t carry_slot, const IndirectCount* indirect) {
    const DeviceInfo& dev = info;
    const char* what = reduce ? "reduce" : "scan";
    ScanPolicy policy;
    const ModuleInfo* m = &scan_module(reduce, type, op, count, o, what, policy);
    uint64_t bytes = size_of(type);
    Layout l = make_layout(dev, policy, type, count);
    // The count word is a uint32, and each dispatch's first item is a 32-bit push constant.
    if (indirect && count > UINT32_MAX) {
        throw Error(std::string(what) + ": an IndirectCount's max_count of " + std::to_string(count) +
                    " items is past 4294967295, the most its uint32 count can name");
    }
    uint64_t in_bytes = count * bytes;
    uint64_t out_bytes = reduce ? bytes : in_bytes;
    uint64_t scratch_need = scratch_bytes(l, policy, type, count);
    uint64_t align = std::max<uint64_t>(16, dev.min_storage_buffer_offset_alignment);
    if (count > 0 || reduce) {
        if (count > 0) check_range(in, in_bytes, align, what, "input");
        check_range(out, out_bytes, align, what, reduce ? "result" : "output");
        check_range(scratch, scratch_need, align, what, "scratch");
        bool same = in.buffer == out.buffer && in.offset == out.offset;
        if (count > 0 && !(same && !reduce) && overlaps(in, in_bytes, out, out_bytes)) {
            throw Error(std::string(what) + ": the " + (reduce ? "result" : "output") +
                        " range overlaps the input without being the same range");
        }
        if (overlaps(scratch, scratch_need, in, in_bytes) || overlaps(scratch, scratch_need, out, out_bytes)) {
            throw Error(std::string(what) + ": the scratch range overlaps the input or the output");
        }
    }
    if (indirect) {
        check_indirect_count(*indirect, what);
        // Every work-group reads the count as it starts, while others write the output and scratch.
        BufferRange count_range{indirect->count_buffer, indirect->count_buffer_offset, 4};
        if (overlaps(count_range, 4, scratch, scratch_need) || overlaps(count_range, 4, out, out_bytes)) {
            throw Error(std::string(what) + ": the IndirectCount's count lies in the scratch or the " +
                        (reduce ? "result" : "output") + " range");
        }
    }
    ScanPlan plan;
    plan.state_ = std::make_unique<ScanPlan::State>();
    ScanPlan::State& st = *plan.state_;
    st.core = core;
    st.layout = pipelines.pipeline_layout;
    st.count = count;
    st.path = m->path;
    st.carry_slot_after = carry_slot;
    // A reduce of nothing still runs one empty chunk, which writes the identity (or the carry).
    uint64_t segments = reduce ? std::max<uint64_t>(l.segments, 1) : l.segments;
    if (segments == 0) return plan;
    st.pipeline = scan_pipeline(scan_pipeline_key(*m, policy, indirect != nullptr));

    st.sets.resize(segments);
    allocate_sets(vk, device, allocator, pipelines.set_layout, uint32_t(segments), st.pool, st.sets.data());

    // The state binds the caller's whole scratch range, not only what this plan needs: a look-back
    // dispatch zeroes what the one before it posted, which a larger plan may have posted further on.
    uint64_t state_binding_bytes = std::max(scratch_need,
                                            std::min<uint64_t>(scratch.size, dev.max_storage_buffer_range) / 4 * 4);
    bool in_place = !reduce && in.buffer == out.buffer && in.offset == out.offset;
    using Step = ScanPlan::State::Step;
    auto fill_words = [&](uint64_t first, uint64_t words) {
        st.steps.push_back({Step::fill, scratch.buffer, scratch.offset + 4 * first, 4 * words});
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
        // Binding 3: an IndirectCount's buffer from the aligned offset at or before its count (the
        // shader reads word count_word), else the scratch again (bound, never read). Each segment
        // scans the count's items from its first on, at most its own.
        const auto [count_info, count_word] = count_binding(indirect, {scratch.buffer, scratch.offset, state_binding_bytes},
                                                            dev.min_storage_buffer_offset_alignment);
        VkDescriptorBufferInfo infos[scan_bindings] = {
            {count ? in.buffer : out.buffer, count ? in.offset + s * l.segment_items * bytes : out.offset,
             std::max<uint64_t>(seg_bytes, bytes)},
            {out.buffer, reduce ? out.offset : out.offset + s * l.segment_items * bytes, reduce ? bytes : seg_bytes},
            {scratch.buffer, scratch.offset, state_binding_bytes},
            count_info};
        write_storage_buffers(vk, device, st.sets[s], infos, scan_bindings);

        DeviceScanParams p{};
        p.count = uint32_t(items);
        p.tiles = indirect ? uint32_t(s * l.segment_items) : uint32_t(tiles);
        p.flags = (o.exclusive ? flag_exclusive : 0) | (carry_in || s > 0 ? flag_carry_in : 0) |
                  (st.carry_slot_after ? flag_carry_slot : 0) | (policy.force_fallback ? flag_force_fallback : 0) |
                  (in_place ? flag_in_place : 0) | count_word << count_word_shift;
        if (s > 0) st.steps.push_back({Step::compute_to_compute});
        // A scan of one chunk takes no ticket and a reduce of one chunk counts no groups, so they need
        // no zeroed state: one dispatch, without a fill and the barrier after it (about 3
        // microseconds on the H100, most of a small scan's time). Every dispatch leaves the state
        // ready for the next (device_scan.comp), so on a scratch the caller keeps zeroed neither
        // needs a fill, nor do later segments.
        if (policy.kernel_path != device_scan_path_chunk_passes) {
            bool stats = environment::lookback_stats();
            p.chunk_tiles = l.tile.look_back_chunk_tiles;
            p.chunks = uint32_t(l.look_back_chunks_of(tiles));
            bool zero_state = p.chunks > 1 && !o.scratch_zeroed;
            if (zero_state) {
                // The ticket, both dirty counts and both status arrays as far as this dispatch reaches
                // (with an indirect count: as far as its bound's would).
                fill_words(ticket_word, 1);
                fill_words(dirty_word, state_header_words - dirty_word + status_array_words(p.chunks));
            }
            if (stats) {
                p.flags |= flag_stats;
                fill_words(stat_rounds_word, 3); // the three counters are adjacent
            }
            if (zero_state || stats) st.steps.push_back({Step::to_compute});
            p.mode = mode_scan;
            p.spin_limit = policy.spin_limit | policy.look_back_window << 16;
            // In place, a chunk past the frontier could be stored while it is being prefetched: a
            // race, which the memory model leaves undefined even for a value no one uses.
            bool prefetch = items * size_of(type) >= policy.prefetch_min_bytes;
            if (prefetch && !in_place) p.flags |= flag_prefetch;
            dispatch(uint32_t(s), p, p.chunks);
        } else {
            l.chunks_of(tiles, p.chunks, p.chunk_tiles);
            // An indirect count's work-groups: as many as any count up to its bound may split into
            // (the shader splits the count it reads as chunks_of does).
            if (indirect) p.chunks = uint32_t(l.most_chunks_of(tiles));
            bool zero_state = p.chunks > 1 && !o.scratch_zeroed && s == 0;
            if (zero_state) {
                // The counter, and from reduce's tile ticket on the chunk totals' words: the last group
                // trusts a total by its flag.
                fill_words(finished_word, 1);
                fill_words(reduce_ticket_word,
                           state_header_words - reduce_ticket_word + uint64_t(status_words(type)) * p.chunks);
            }
            if (zero_state) st.steps.push_back({Step::to_compute});
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

} // namespace vkc
