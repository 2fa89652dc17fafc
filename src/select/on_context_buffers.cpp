// Device-wide select on a Context's own Buffers and on host arrays: a plan on the Context's queue,
// with a scratch and the number kept's buffer made for the call, the number read back.
#include <algorithm>
#include <string>

#include "device/device_state.hpp"
#include "device/memory.hpp"
#include "select/internal.hpp"
#include "submit/context_state.hpp"

namespace vkc {

void Context::run(const SelectPlan& plan) {
    if (plan.state_ && plan.state_->core != state_->core) throw Error("run: the plan was made on another device");
    state_->run_recorded([&](VkCommandBuffer cmd) { plan.record(cmd); }, {});
}

uint64_t Context::select(const Buffer& input, Buffer& output, Type item, uint64_t count, const SelectOptions& o,
                         const Buffer* flags) {
    DeviceState& dev = *device_.state_;
    const char* what = o.partition ? "partition" : o.by == Selection::unique ? "unique" : "select";
    check_select_arguments(item, count, o, what);
    if (o.command != KeptCommand::none) {
        throw Error(std::string(what) + ": Context::select returns the number kept; an indirect command needs a "
                    "plan (Device::plan_select)");
    }
    if ((o.by == Selection::flagged) != (flags != nullptr)) {
        throw Error(std::string(what) + (flags ? ": flags were given but SelectOptions::by is not flagged"
                                               : ": SelectOptions::by is flagged but no flags were given"));
    }
    dev.memory.check_buffer(input, "the input");
    dev.memory.check_buffer(output, "the output");
    if (flags) dev.memory.check_buffer(*flags, "the flags");
    const uint64_t bytes = count * size_of(item);
    auto check_size = [&](const Buffer& b, uint64_t need, const char* role) {
        if (b.size() < need) {
            throw Error(std::string(what) + ": the " + role + " buffer holds " + std::to_string(b.size()) +
                        " bytes; " + std::to_string(need) + " are needed");
        }
    };
    check_size(input, bytes, "input");
    check_size(output, bytes, "output");
    if (flags) check_size(*flags, count * 4, "flags");
    if (flags && (flags->handle() == output.handle())) {
        throw Error(std::string(what) + ": the flags and the output are the same buffer");
    }
    if (count == 0) return 0;
    if (o.path == Path::subgroup && !dev.options.shared_memory_only) state_->subgroups_packed({VKC_SELECT_WORKGROUP_SIZE});
    Buffer scratch = create_buffer(select_scratch_bytes_of(count));
    Buffer kept = create_buffer(4);
    SelectRanges ranges;
    ranges.input = {input.handle(), 0, bytes};
    ranges.output = {output.handle(), 0, bytes};
    if (flags) ranges.flags = {flags->handle(), 0, count * 4};
    ranges.kept = {kept.handle(), 0, 4};
    ranges.scratch = {scratch.handle(), 0, scratch.size()};
    SelectPlan plan = dev.make_select_plan(item, count, ranges, o);
    state_->run_recorded([&](VkCommandBuffer cmd) { plan.record(cmd); }, {});
    uint32_t n = 0;
    download(kept, &n, 4);
    return n;
}

// Host arrays: up, selected on the device, down (one select takes up to select_max_count items).
uint64_t Context::select_host(const void* items, const uint32_t* flags, void* out, uint64_t count, Type item,
                              const SelectOptions& o) {
    const char* what = o.partition ? "partition" : o.by == Selection::unique ? "unique" : "select";
    check_select_arguments(item, count, o, what);
    if (count == 0) return 0;
    const uint64_t bytes = count * size_of(item);
    Buffer input = create_buffer(bytes);
    upload(input, items, bytes);
    Buffer flag_buffer;
    if (flags) {
        flag_buffer = create_buffer(count * 4);
        upload(flag_buffer, flags, count * 4);
    }
    Buffer output = create_buffer(bytes);
    const uint64_t kept = select(input, output, item, count, o, flags ? &flag_buffer : nullptr);
    const uint64_t out_bytes = o.partition ? bytes : kept * size_of(item);
    if (out_bytes) download(output, out, out_bytes);
    return kept;
}

} // namespace vkc
