// Device-wide radix sort plans (include/vkc/sort.hpp): a fill of the scratch, the counting dispatch
// and a dispatch a digit pass of shaders/kernels/radix_sort.comp (or, for a tile of keys or fewer,
// one dispatch), made once and recorded into any command buffer of the device.
#include <algorithm>
#include <string>

#include "device/device_state.hpp"
#include "environment.hpp"
#include "pipeline/plan_bindings.hpp"
#include "sort/internal.hpp"
#include "vkc/contract.h"

namespace vkc {

namespace {
constexpr uint32_t sort_bindings = 6; // keys in, keys out, scratch, count, values in, values out
constexpr uint32_t default_spin_limit = 256;
// Work-groups of the counting dispatch at most: each counts a run of tiles into shared memory first,
// so that few add their counts to the scratch's.
constexpr uint64_t histogram_groups = 1024;

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

// The key transform the kernel orders by (VKC_SORT_TRANSFORM_SHIFT).
uint32_t transform_of(Type key) {
    return is_signed_integer(key) ? 1u : is_float(key) ? 2u : 0u;
}
// 8- and 16-bit keys and 1- and 2-byte values: the uchar module's views of the bindings move them.
bool narrow_sort(Type key, uint32_t value_bytes) { return size_of(key) < 4 || value_bytes == 1 || value_bytes == 2; }
} // namespace

SortPlan::SortPlan() = default;
SortPlan::SortPlan(SortPlan&&) noexcept = default;
SortPlan& SortPlan::operator=(SortPlan&&) noexcept = default;
SortPlan::~SortPlan() = default;
uint64_t SortPlan::count() const { return state_ ? state_->count : 0; }
uint32_t SortPlan::passes() const { return state_ ? state_->passes : 0; }
uint32_t SortPlan::dispatches() const { return state_ ? uint32_t(state_->dispatches.size()) : 0; }
bool SortPlan::result_in_alternate() const { return state_ && state_->passes % 2 == 1; }
Path SortPlan::path() const { return state_ ? state_->path : Path::shared_memory; }

void SortPlan::record(VkCommandBuffer cmd) const {
    if (!state_ || state_->dispatches.empty()) return; // nothing to sort
    const State& s = *state_;
    if (!s.core->context_alive) throw Error("SortPlan::record: the plan's Context was destroyed");
    const DeviceTable& vk = s.core->vk;
    const uint64_t failed_before = s.core->failed_allocations;
    if (s.scratch.size) record_scratch_zeroing(vk, cmd, s.scratch); // none for one work-group's sort
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s.pipeline);
    for (size_t i = 0; i < s.dispatches.size(); ++i) {
        const State::Dispatch& d = s.dispatches[i];
        if (i > 0) { // the counts, or the pass before, land before the next pass reads them
            barrier.srcAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
            barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
            vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0,
                                    1, &barrier, 0, nullptr, 0, nullptr);
        }
        vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s.layout, 0, 1, &s.sets[d.set], 0, nullptr);
        vk.vkCmdPushConstants(cmd, s.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(SortParams), &d.params);
        vk.vkCmdDispatch(cmd, d.grid_x, d.grid_y, 1);
    }
    s.core->check_allocations(failed_before, "SortPlan::record");
}

bool is_sort_key(Type key) { return is_integer(key) || is_float(key); }

uint32_t sort_passes(Type key, const SortOptions& o) {
    uint32_t end = o.end_bit ? o.end_bit : uint32_t(8 * size_of(key));
    return end > o.begin_bit ? uint32_t(ceil_div(end - o.begin_bit, VKC_SORT_DIGIT_BITS)) : 0;
}

void check_sort_arguments(Type key, uint32_t value_bytes, uint64_t count, const SortOptions& o, const char* what) {
    if (!is_sort_key(key)) {
        throw Error(std::string(what) + ": keys of type " + std::string(name(key)) +
                    " are not supported (uchar, char, ushort, short, half, uint, int, float, ulong, long and double "
                    "keys are)");
    }
    if (value_bytes != 0 && value_bytes != 1 && value_bytes != 2 && value_bytes != 4 && value_bytes != 8 &&
        value_bytes != 16) {
        throw Error(std::string(what) + ": values of " + std::to_string(value_bytes) +
                    " bytes are not supported (1, 2, 4, 8 or 16 bytes are)");
    }
    uint32_t key_bits = uint32_t(8 * size_of(key));
    uint32_t end = o.end_bit ? o.end_bit : key_bits;
    if (end > key_bits || o.begin_bit > end) {
        throw Error(std::string(what) + ": the bit range [" + std::to_string(o.begin_bit) + ", " +
                    std::to_string(o.end_bit) + ") is not within the key's " + std::to_string(key_bits) +
                    " bits with begin_bit <= end_bit");
    }
    if (o.spin_limit > 65535) {
        throw Error(std::string(what) + ": spin_limit " + std::to_string(o.spin_limit) + " is past 65535");
    }
    if (count > sort_max_count) {
        throw Error(std::string(what) + ": " + std::to_string(count) + " keys are past " +
                    std::to_string(sort_max_count) + ", the most one sort takes");
    }
}

SortGrid sort_grid(uint64_t count, const SortOptions& o) {
    SortGrid g;
    g.tiles = std::max<uint64_t>(1, ceil_div(count, sort_tile_keys));
    g.tiles_per_group = uint32_t(ceil_div(g.tiles, histogram_groups));
    // A counting work-group's tiles lie in one portion: it adds its counts to that portion's.
    const uint32_t limit = o.test.portion_tiles ? o.test.portion_tiles : VKC_SORT_PORTION_TILES;
    g.portion_tiles = std::max(g.tiles_per_group, limit / g.tiles_per_group * g.tiles_per_group);
    g.portions = ceil_div(g.tiles, g.portion_tiles);
    return g;
}

uint64_t sort_scratch_bytes_of(uint64_t count, const SortOptions& o) {
    const SortGrid g = sort_grid(count, o);
    const uint64_t digits = 1u << VKC_SORT_DIGIT_BITS;
    return (VKC_SORT_HISTOGRAMS + g.histogram_rows() * VKC_SORT_MAX_PASSES * digits + 2 * g.tiles * digits) *
           sizeof(uint32_t);
}

uint64_t DeviceState::sort_scratch_bytes(Type key, uint64_t count, const SortOptions& o) const {
    check_sort_arguments(key, 0, count, o, "sort_scratch_bytes");
    return sort_scratch_bytes_of(count, o);
}

SortPlan DeviceState::make_sort_plan(Type key, uint32_t value_bytes, uint64_t count, const SortRanges& r,
                                     const SortOptions& o, const IndirectCount* indirect) {
    const char* what = value_bytes ? "sort_pairs" : "sort";
    check_sort_arguments(key, value_bytes, count, o, what);
    const DeviceInfo& dev = info;
    // The subgroup module ranks a subgroup's keys by ballots into 16-bit counters, a subgroup's
    // counters a row: it needs its 512 invocations packed into 32 subgroups or fewer, of at most 128
    // (a ballot's bits). Elsewhere the shared-memory module of 256 invocations sorts. 8- and 16-bit
    // keys and 1- and 2-byte values take the uchar module (8- and 16-bit storage access).
    const Type module_type = narrow_sort(key, value_bytes) ? Type::u8 : Type::u32;
    const ModuleInfo* m = &select_module(Collective::radix_sort, module_type, Op::add, o.path);
    if (m->path == Path::subgroup && (!sort_subgroup_size_fits(dev) || !known_packed(sort_workgroup_size(Path::subgroup)) ||
                                      dev.min_subgroup_size < 16 || dev.max_subgroup_size > 128)) {
        m = &select_module(Collective::radix_sort, module_type, Op::add, Path::shared_memory);
    }
    const uint32_t size = sort_workgroup_size(m->path);
    check_shape({size});
    if (shared_memory_bytes(*m) > dev.max_shared_memory) {
        throw UnsupportedError(std::string(what) + ": the sort needs " + std::to_string(shared_memory_bytes(*m)) +
                               " bytes of shared memory; the device has " + std::to_string(dev.max_shared_memory));
    }
    const uint64_t key_bytes = count * size_of(key), value_range_bytes = count * value_bytes;
    const uint64_t scratch_need = sort_scratch_bytes_of(count, o);
    const uint64_t align = std::max<uint64_t>(16, dev.min_storage_buffer_offset_alignment);
    std::vector<RangeRole> roles = {{&r.keys, key_bytes, align, "keys"},
                                    {&r.keys_alternate, key_bytes, align, "alternate keys"}};
    if (value_bytes) {
        roles.push_back({&r.values, value_range_bytes, align, "values"});
        roles.push_back({&r.values_alternate, value_range_bytes, align, "alternate values"});
    }
    roles.push_back({&r.scratch, scratch_need, align, "scratch"});
    if (count == 0) roles.clear(); // nothing is bound
    check_roles(roles, dev.max_storage_buffer_range, what);
    if (indirect) check_indirect_count(*indirect, roles, what);
    const auto [count_info, count_word] = count_binding(indirect, {r.scratch.buffer, r.scratch.offset, scratch_need},
                                                        dev.min_storage_buffer_offset_alignment);

    SortPlan plan;
    plan.state_ = std::make_unique<SortPlan::State>();
    SortPlan::State& st = *plan.state_;
    st.core = core;
    st.layout = pipelines.pipeline_layout;
    st.count = count;
    st.path = m->path;
    const uint32_t passes = sort_passes(key, o);
    if (count == 0 || passes == 0) return plan; // nothing moves
    st.passes = passes;
    // A tile of keys or fewer (the most an IndirectCount may give, with one) sorts in one dispatch
    // of one work-group, which holds the keys through every pass: it reads `keys` and writes the
    // range the result belongs in, `keys` itself after an even number of passes.
    const bool small = count <= sort_tile_keys;
    if (!small) st.scratch = {r.scratch.buffer, r.scratch.offset, scratch_need};
    const bool small_in_place = small && passes % 2 == 0;
    const uint32_t key_size = uint32_t(size_of(key));
    const SortGrid grid = sort_grid(count, o);
    const uint32_t shape = (value_bytes >= 4 ? value_bytes / 4 : value_bytes ? 1 : 0) |
                           (key_size == 8 ? 1u : 0u) << VKC_SORT_KEY_WORDS_SHIFT |
                           (key_size < 4 ? key_size : 0u) << VKC_SORT_NARROW_KEY_SHIFT |
                           (value_bytes < 4 ? value_bytes : 0u) << VKC_SORT_NARROW_VALUE_SHIFT |
                           (small ? 1u : 0u) << VKC_SORT_SMALL_SHIFT |
                           (grid.portions > 1 ? 1u : 0u) << VKC_SORT_PORTIONS_SHIFT;
    st.pipeline = pipelines.pipeline(*m, {size}, m->path == Path::subgroup, 0, false, shape);

    allocate_sets(vk, device, allocator, pipelines.set_layout, 2, st.pool, st.sets);
    // Keys only: the value bindings see the keys' ranges, never read or written (value_words is 0).
    const BufferRange& values = value_bytes ? r.values : r.keys;
    const BufferRange& values_alternate = value_bytes ? r.values_alternate : r.keys_alternate;
    const uint64_t values_bytes = value_bytes ? value_range_bytes : key_bytes;
    for (uint32_t set = 0; set < 2; ++set) {
        // Set 0 moves keys -> alternate, set 1 alternate -> keys, or keys -> keys in place.
        const BufferRange& keys_from = set && !small_in_place ? r.keys_alternate : r.keys;
        const BufferRange& keys_to = set ? r.keys : r.keys_alternate;
        const BufferRange& values_from = set && !small_in_place ? values_alternate : values;
        const BufferRange& values_to = set ? values : values_alternate;
        VkDescriptorBufferInfo infos[sort_bindings] = {{keys_from.buffer, keys_from.offset, key_bytes},
                                                       {keys_to.buffer, keys_to.offset, key_bytes},
                                                       {r.scratch.buffer, r.scratch.offset, scratch_need},
                                                       count_info,
                                                       {values_from.buffer, values_from.offset, values_bytes},
                                                       {values_to.buffer, values_to.offset, values_bytes}};
        write_storage_buffers(vk, device, st.sets[set], infos, sort_bindings);
    }

    SortParams p{};
    p.count = uint32_t(count);
    p.tiles = uint32_t(grid.tiles);
    p.portion_tiles = grid.portion_tiles;
    p.flags = (o.descending ? VKC_SORT_FLAG_DESCENDING : 0u) |
              (o.test.force_fallback ? VKC_SORT_FLAG_FORCE_FALLBACK : 0u) |
              transform_of(key) << VKC_SORT_TRANSFORM_SHIFT;
    if (indirect) p.flags |= VKC_SORT_FLAG_COUNT_ON_DEVICE | count_word << VKC_DEVICE_COUNT_WORD_SHIFT;
    if (environment::lookback_stats()) p.flags |= VKC_SORT_FLAG_STATS; // VKC_LOOKBACK_STATS=1
    p.spin_limit = o.spin_limit ? o.spin_limit : default_spin_limit;
    const uint32_t end = o.end_bit ? o.end_bit : uint32_t(8 * size_of(key));
    auto add = [&](uint32_t set, const SortParams& params, uint64_t groups) {
        SortPlan::State::Dispatch d;
        d.set = set;
        d.params = params;
        grid_for(groups, d.grid_x, d.grid_y);
        st.dispatches.push_back(d);
    };
    if (small) {
        SortParams one = p;
        one.mode = VKC_SORT_MODE_SMALL;
        one.bits = o.begin_bit | end << 8 | passes << 16;
        add(small_in_place ? 1 : 0, one, 1);
        return plan;
    }
    SortParams h = p;
    h.mode = VKC_SORT_MODE_HISTOGRAM;
    h.bits = o.begin_bit | end << 8 | passes << 16;
    h.tiles_per_group = grid.tiles_per_group;
    add(0, h, ceil_div(grid.tiles, h.tiles_per_group));
    for (uint32_t pass = 0; pass < passes; ++pass) {
        uint32_t bit = o.begin_bit + pass * VKC_SORT_DIGIT_BITS;
        if (pass > 0 && grid.portions > 1) { // the portions of this pass's input count its digits
            SortParams c = h;
            c.mode = VKC_SORT_MODE_PORTION_COUNT;
            c.bits = bit | std::min(bit + VKC_SORT_DIGIT_BITS, end) << 8 | 1u << 16 | pass << 24;
            add(pass % 2, c, ceil_div(grid.tiles, c.tiles_per_group));
        }
        SortParams s = p;
        s.mode = VKC_SORT_MODE_PASS;
        s.bits = bit | std::min(VKC_SORT_DIGIT_BITS, end - bit) << 8 | pass << 16;
        add(pass % 2, s, grid.tiles);
    }
    return plan;
}

} // namespace vkc
