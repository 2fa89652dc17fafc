// Device-wide sort on a Context's own Buffers and on host arrays: a plan on the Context's queue, with
// alternate buffers and a scratch made for the call, and the result copied back where the passes
// left it in the alternates.
#include <algorithm>
#include <cstring>

#include "device/device_state.hpp"
#include "device/memory.hpp"
#include "sort/internal.hpp"
#include "submit/context_state.hpp"
#include "vkc/contract.h"

namespace vkc {

namespace {
BufferRange whole(const Buffer& b) { return {b.handle(), 0, b.size()}; }
} // namespace

void Context::run(const SortPlan& plan) {
    if (plan.state_ && plan.state_->core != state_->core) throw Error("run: the plan was made on another device");
    state_->run_recorded([&](VkCommandBuffer cmd) { plan.record(cmd); }, {});
}

void Context::sort(Buffer& keys, Type key, uint64_t count, const SortOptions& o) {
    sort_buffers(keys, nullptr, key, 0, count, o, "sort");
}

void Context::sort_pairs(Buffer& keys, Buffer& values, Type key, uint32_t value_bytes, uint64_t count,
                         const SortOptions& o) {
    if (value_bytes == 0) throw Error("sort_pairs: value_bytes is 0 (1, 2, 4, 8 or 16 bytes are supported)");
    sort_buffers(keys, &values, key, value_bytes, count, o, "sort_pairs");
}

void Context::sort_buffers(Buffer& keys, Buffer* values, Type key, uint32_t value_bytes, uint64_t count,
                           const SortOptions& o, const char* what) {
    DeviceState& dev = *device_.state_;
    check_sort_arguments(key, value_bytes, count, o, what);
    dev.memory.check_buffer(keys, "the keys");
    if (values) dev.memory.check_buffer(*values, "the values");
    const uint64_t key_bytes = count * size_of(key), value_range_bytes = count * value_bytes;
    if (keys.size() < key_bytes) {
        throw Error(std::string(what) + ": the keys buffer holds " + std::to_string(keys.size()) + " bytes; " +
                    std::to_string(key_bytes) + " are needed");
    }
    if (values && values->size() < value_range_bytes) {
        throw Error(std::string(what) + ": the values buffer holds " + std::to_string(values->size()) + " bytes; " +
                    std::to_string(value_range_bytes) + " are needed");
    }
    if (values && values->handle() == keys.handle()) {
        throw Error(std::string(what) + ": the keys and the values are the same buffer");
    }
    if (count == 0 || sort_passes(key, o) == 0) return;
    if (o.path == Path::subgroup && !dev.options.shared_memory_only && sort_subgroup_size_fits(dev.info)) {
        state_->subgroups_packed({sort_workgroup_size(Path::subgroup)});
    }
    Buffer keys_alternate = create_buffer(key_bytes);
    Buffer values_alternate = values ? create_buffer(value_range_bytes) : Buffer();
    Buffer scratch = create_buffer(sort_scratch_bytes_of(count, o));
    SortRanges ranges{{keys.handle(), 0, key_bytes}, whole(keys_alternate), {}, {}, whole(scratch)};
    if (values) {
        ranges.values = {values->handle(), 0, value_range_bytes};
        ranges.values_alternate = whole(values_alternate);
    }
    SortPlan plan = dev.make_sort_plan(key, value_bytes, count, ranges, o);
    std::vector<std::pair<BufferRange, BufferRange>> copies;
    if (plan.result_in_alternate()) {
        copies.push_back({{keys_alternate.handle(), 0, key_bytes}, ranges.keys});
        if (values) copies.push_back({{values_alternate.handle(), 0, value_range_bytes}, ranges.values});
    }
    state_->run_recorded([&](VkCommandBuffer cmd) { plan.record(cmd); }, copies);
}

// Host arrays: up, sorted on the device, down (one sort takes up to sort_max_count keys).
void Context::sort_host(void* keys, void* values, uint64_t count, Type key, uint32_t value_bytes,
                        const SortOptions& o) {
    const char* what = values ? "sort_pairs" : "sort";
    check_sort_arguments(key, value_bytes, count, o, what);
    if (count == 0) return;
    const uint64_t key_bytes = count * size_of(key);
    Buffer key_buffer = create_buffer(key_bytes);
    upload(key_buffer, keys, key_bytes);
    Buffer value_buffer;
    if (values) {
        value_buffer = create_buffer(count * value_bytes);
        upload(value_buffer, values, count * value_bytes);
    }
    sort_buffers(key_buffer, values ? &value_buffer : nullptr, key, value_bytes, count, o, what);
    download(key_buffer, keys, key_bytes);
    if (values) download(value_buffer, values, count * value_bytes);
}

} // namespace vkc
