// Segmented scans and reductions on a Context's own Buffers and on host arrays: a plan on the
// Context's queue, with a scratch and the number of segments' buffer made for the call, the number
// read back.
#include <string>

#include "device/device_state.hpp"
#include "device/memory.hpp"
#include "segmented/internal.hpp"
#include "submit/context_state.hpp"

namespace vkc {

void Context::run(const SegmentedPlan& plan) {
    if (plan.state_ && plan.state_->core != state_->core) throw Error("run: the plan was made on another device");
    state_->run_recorded([&](VkCommandBuffer cmd) { plan.record(cmd); }, {});
}

uint64_t Context::segmented(const Buffer* values, const Buffer& heads, Buffer& output, Buffer* unique_keys,
                            Type value, Op op, uint64_t count, const SegmentedOptions& o) {
    DeviceState& dev = *device_.state_;
    const char* what = segmented_call_name(o);
    check_segmented_arguments(value, op, count, o, what);
    const bool keys = o.by == Segments::keys;
    const bool by_offsets = o.by == Segments::offsets;
    const bool reducing = reduces(o);
    if (has_values(o) != (values != nullptr)) {
        throw Error(std::string(what) + (values ? ": values were given, but runs take none"
                                                : ": no values were given"));
    }
    if (writes_unique_keys(o) != (unique_keys != nullptr)) {
        throw Error(std::string(what) + (unique_keys ? ": a unique keys buffer was given, but only reduce by key, "
                                                       "run lengths and non-trivial runs write one"
                                                     : ": no buffer for the unique keys was given"));
    }
    if (values) dev.memory.check_buffer(*values, "the values");
    const char* heads_name = by_offsets ? "offsets" : keys ? "keys" : "head flags";
    dev.memory.check_buffer(heads, (std::string("the ") + heads_name).c_str());
    dev.memory.check_buffer(output, "the output");
    if (unique_keys) dev.memory.check_buffer(*unique_keys, "the unique keys");
    const SegmentedBytes bytes = segmented_bytes(value, count, o);
    const uint64_t value_bytes = bytes.values, head_bytes = bytes.heads, output_bytes = bytes.output;
    auto check_size = [&](const Buffer& b, uint64_t need, const char* role) {
        if (b.size() < need) {
            throw Error(std::string(what) + ": the " + role + " buffer holds " + std::to_string(b.size()) +
                        " bytes; " + std::to_string(need) + " are needed");
        }
    };
    if (values) check_size(*values, value_bytes, "values");
    check_size(heads, head_bytes, heads_name);
    check_size(output, output_bytes, "output");
    if (unique_keys) check_size(*unique_keys, bytes.unique_keys, "unique keys");
    if (heads.handle() == output.handle() || (unique_keys && unique_keys->handle() == heads.handle())) {
        throw Error(std::string(what) + ": the " + heads_name + " and an output are the same buffer");
    }
    if (by_offsets && reducing ? o.segment_count == 0 : count == 0) return 0;
    if (o.path == Path::subgroup && !dev.options.shared_memory_only) {
        state_->subgroups_packed({VKC_SEGMENTED_WORKGROUP_SIZE});
    }
    Buffer scratch = create_buffer(segmented_scratch_bytes_of(count));
    Buffer segments = create_buffer(4);
    SegmentedRanges ranges;
    if (values) ranges.values = {values->handle(), 0, value_bytes};
    (by_offsets ? ranges.offsets : ranges.heads) = {heads.handle(), 0, head_bytes};
    ranges.output = {output.handle(), 0, output_bytes};
    if (unique_keys) ranges.unique_keys = {unique_keys->handle(), 0, bytes.unique_keys};
    ranges.segments = {segments.handle(), 0, 4};
    ranges.scratch = {scratch.handle(), 0, scratch.size()};
    SegmentedPlan plan = dev.make_segmented_plan(value, op, count, ranges, o);
    state_->run_recorded([&](VkCommandBuffer cmd) { plan.record(cmd); }, {});
    if (!reducing) return count;
    if (by_offsets) return o.segment_count;
    uint32_t n = 0;
    download(segments, &n, 4);
    return n;
}

// Host arrays: up, through the device, down (one plan takes up to segmented_max_count items).
uint64_t Context::segmented_host(const void* values, const void* heads, void* out, void* unique_keys, uint64_t count,
                                 Type value, Op op, const SegmentedOptions& o) {
    const char* what = segmented_call_name(o);
    check_segmented_arguments(value, op, count, o, what);
    const bool by_offsets = o.by == Segments::offsets;
    const bool reducing = reduces(o);
    if (by_offsets && reducing ? o.segment_count == 0 : count == 0) return 0;
    const SegmentedBytes bytes = segmented_bytes(value, count, o);
    // No items by offsets: the values' binding sees the offsets (never read through it).
    const bool reads_values = has_values(o);
    Buffer value_buffer;
    if (reads_values && count > 0) {
        value_buffer = create_buffer(bytes.values);
        upload(value_buffer, values, bytes.values);
    }
    Buffer head_buffer = create_buffer(bytes.heads);
    upload(head_buffer, heads, bytes.heads);
    // Scans by offsets run in place, so that items outside every segment keep their values.
    const bool in_place = by_offsets && !reducing;
    Buffer output_buffer;
    if (!in_place) output_buffer = create_buffer(bytes.output);
    Buffer& output = in_place ? value_buffer : output_buffer;
    Buffer key_buffer;
    if (unique_keys) key_buffer = create_buffer(bytes.unique_keys);
    const uint64_t n = segmented(reads_values ? (count > 0 ? &value_buffer : &head_buffer) : nullptr, head_buffer, output,
                                 unique_keys ? &key_buffer : nullptr, value, op, count, o);
    // Each output's element: a value, or a uint32 length with non-trivial runs.
    const uint64_t element = o.output == SegmentedOutput::non_trivial_runs ? 4 : size_of(value);
    download(output, out, n * element);
    const uint64_t key_element = o.output == SegmentedOutput::non_trivial_runs ? 4 : count ? bytes.heads / count : 0;
    if (unique_keys && n) download(key_buffer, unique_keys, n * key_element);
    return n;
}

} // namespace vkc
