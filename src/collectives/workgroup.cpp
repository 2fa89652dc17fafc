// The work-group collectives (reduce, scans, broadcast, all, any): module choice, the checks on a
// request, and dispatch.
#include <algorithm>
#include <cstring>
#include <string>

#include "device/device_core.hpp"
#include "device/device_state.hpp"
#include "device/memory.hpp"
#include "submit/context_state.hpp"

namespace vkc {

namespace {
void check_host_items(const WorkgroupRequest& r, size_t host_size) {
    if (r.count == 0) throw Error("empty input: the request has 0 items; a collective needs at least one");
    bool vote = r.collective == Collective::all || r.collective == Collective::any;
    size_t want = vote ? sizeof(uint32_t) : size_of(r.type);
    if (host_size != want) {
        throw Error("host items of " + std::to_string(host_size) + " bytes do not match " +
                    (vote ? std::string("uint32 predicates") : std::string(name(r.type))) + " items of " +
                    std::to_string(want) + " bytes");
    }
}
} // namespace

uint64_t BroadcastSource::linear(const WorkgroupShape& s) const {
    switch (dims) {
    case 1: return id[0];
    case 2: return id[0] + uint64_t(id[1]) * s.x;
    default: return id[0] + uint64_t(s.x) * (id[1] + uint64_t(id[2]) * s.y);
    }
}

const ModuleInfo& DeviceState::select_module(Collective c, Type t, Op op, Path preferred) const {
    bool op_matters = has_op(c);
    bool type_matters = c != Collective::all && c != Collective::any;
    if (type_matters && op_matters && !has_op(t, op)) {
        throw Error(std::string(name(op)) + " is not defined on " + std::string(name(t)) + " items");
    }
    const ModuleInfo* shared = nullptr;
    const ModuleInfo* subgroup = nullptr;
    for (const ModuleInfo& m : modules()) {
        if (m.collective != c || (type_matters && m.type != t) || (op_matters && m.op != op)) continue;
        (m.path == Path::subgroup ? subgroup : shared) = &m;
    }
    Feature have = info.features;
    auto missing = [&](const ModuleInfo* m) { return m->required & ~have; };
    bool want_subgroup = preferred == Path::subgroup && !options.shared_memory_only;
    if (subgroup && want_subgroup && !any(missing(subgroup))) return *subgroup;
    if (shared && !any(missing(shared))) return *shared;
    std::string what = std::string(name(c)) + (op_matters ? std::string(" ") + std::string(name(op)) : "") +
                       (type_matters ? std::string(" on ") + std::string(name(t)) : "");
    if (!shared && !subgroup) throw Error("no module was built for " + what);
    const ModuleInfo* closest = shared ? shared : subgroup;
    throw UnsupportedError(info.name + " cannot run " + what + ": it lacks " + feature_names(missing(closest)));
}

void DeviceState::check_shape(const WorkgroupShape& s) const {
    const DeviceInfo& dev = info;
    if (s.x == 0 || s.y == 0 || s.z == 0) {
        throw Error("work-group size " + s.text() + " has a zero dimension; every dimension must be at least 1");
    }
    const char axis[3] = {'x', 'y', 'z'};
    const uint32_t dims[3] = {s.x, s.y, s.z};
    for (int i = 0; i < 3; ++i) {
        if (dims[i] > dev.max_workgroup_size[i]) {
            throw UnsupportedError("work-group size " + s.text() +
                                   " exceeds the device limit maxComputeWorkGroupSize." + axis[i] + " = " +
                                   std::to_string(dev.max_workgroup_size[i]));
        }
    }
    if (s.size() > dev.max_workgroup_invocations) {
        throw UnsupportedError("work-group size " + s.text() + " (" + std::to_string(s.size()) +
                               " invocations) exceeds the device limit maxComputeWorkGroupInvocations = " +
                               std::to_string(dev.max_workgroup_invocations));
    }
}

// Checks what a module needs of the shape, the item count and the buffers; returns the item bytes.
uint64_t DeviceState::check_module_use(const ModuleInfo& m, const WorkgroupShape& s, uint64_t count,
                                       const Buffer& input, const Buffer& output) const {
    const DeviceInfo& dev = info;
    if (count == 0) throw Error("empty input: the request has 0 items; a collective needs at least one");
    if (count > UINT32_MAX) {
        throw Error("count " + std::to_string(count) + " exceeds 2^32 - 1 items, the most one request can hold");
    }
    uint64_t bytes = count * size_of(m.type);
    check_range(input, bytes, 0, "input");
    check_range(output, bytes, 0, "output");
    if (bytes > dev.max_storage_buffer_range) {
        throw Error(std::to_string(bytes) + " bytes of items exceed the device limit maxStorageBufferRange = " +
                    std::to_string(dev.max_storage_buffer_range));
    }
    if (s.size() > m.max_workgroup_size) {
        throw UnsupportedError("work-group size " + s.text() + " exceeds " + std::to_string(m.max_workgroup_size) +
                               " invocations, the most module " + m.name + " is built for");
    }
    size_t shared = shared_memory_bytes(m);
    if (shared > dev.max_shared_memory) {
        throw UnsupportedError(std::string(m.name) + " needs " + std::to_string(shared) +
                               " bytes of shared memory; the device limit maxComputeSharedMemorySize is " +
                               std::to_string(dev.max_shared_memory));
    }
    return bytes;
}

// Work-groups as a grid of up to maxComputeWorkGroupCount[0] columns.
void DeviceState::grid_for(uint64_t groups, uint32_t& x, uint32_t& y) const {
    const DeviceInfo& dev = info;
    uint64_t gx = std::min<uint64_t>(groups, dev.max_workgroup_count[0]);
    uint64_t gy = (groups + gx - 1) / gx;
    if (gy > dev.max_workgroup_count[1]) {
        throw Error(std::to_string(groups) + " work-groups exceed the device's maxComputeWorkGroupCount");
    }
    x = uint32_t(gx);
    y = uint32_t(gy);
}

void Context::run(const WorkgroupRequest& r, const Buffer& input, Buffer& output) {
    const DeviceState& dev = *device_.state_;
    const WorkgroupShape& s = r.shape;
    dev.check_shape(s);
    (void)name(r.collective); // an invalid value is an Error
    if (is_block(r.collective)) throw Error("block collectives take a BlockRequest");
    if (r.collective == Collective::device_scan || r.collective == Collective::layout_probe) {
        throw Error(std::string(name(r.collective)) +
                    " is internal to the runtime: use Context::scan / reduce or subgroups_packed");
    }
    dev.memory.check_buffer(input, "the input");
    dev.memory.check_buffer(output, "the output");
    const ModuleInfo& m = dev.select_module(r.collective, r.type, r.op, Path::subgroup);
    uint64_t bytes = dev.check_module_use(m, s, r.count, input, output);
    uint64_t per_group = s.size();
    if (r.collective == Collective::copy || r.collective == Collective::read) {
        if (r.count % 4) throw Error("copy and read move 16 bytes per invocation: count must be a multiple of 4");
        per_group *= 4;
    }
    uint64_t groups = (r.count + per_group - 1) / per_group;
    // read strides over the buffer with as many groups as keep the device busy (4 loads each in flight)
    if (r.collective == Collective::read) groups = std::min<uint64_t>(groups, 4096);
    ModuleParams params{};
    params.count = uint32_t(r.count);
    params.group_count = uint32_t(groups);
    if (r.collective == Collective::broadcast) {
        const BroadcastSource& src = r.source;
        if (src.dims < 1 || src.dims > 3) {
            throw Error("broadcast source has " + std::to_string(src.dims) + " coordinates; give 1, 2 or 3");
        }
        if (src.dims == 1 ? src.id[0] >= s.size()
                          : (src.id[0] >= s.x || src.id[1] >= s.y || (src.dims == 3 && src.id[2] >= s.z))) {
            throw Error("broadcast source local id lies outside the work-group " + s.text());
        }
        uint64_t last_group_items = r.count - (groups - 1) * s.size();
        if (src.linear(s) >= last_group_items) {
            throw Error("broadcast source (linear local id " + std::to_string(src.linear(s)) +
                        ") lies past the end of the short last work-group, which holds " +
                        std::to_string(last_group_items) + " items");
        }
        params.source_dims = src.dims;
        for (int i = 0; i < 3; ++i) params.source[i] = src.id[i];
    }
    uint32_t grid_x, grid_y;
    dev.grid_for(groups, grid_x, grid_y);
    bool packed = m.path == Path::subgroup && subgroups_packed(s);
    state_->dispatch({&m, s, packed, 1, false, &params, &input, &output, nullptr, bytes, 0, grid_x, grid_y});
}

void ContextState::dispatch(const Dispatch& d) {
    Pipelines& pipelines = dev.pipelines;
    VkPipeline p = pipelines.pipeline(*d.module, d.shape, d.packed, d.items, d.staged, d.kernel_constant);
    check(vk.vkResetDescriptorPool(device, descriptor_pool, 0), "vkResetDescriptorPool");
    VkDescriptorSetAllocateInfo a{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    a.descriptorPool = descriptor_pool;
    a.descriptorSetCount = 1;
    a.pSetLayouts = &pipelines.set_layout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    check(vk.vkAllocateDescriptorSets(device, &a, &set), "vkAllocateDescriptorSets");
    // Binding 2 gets the output when there is no record: the layout has it, the shader writes it only
    // when told to.
    VkDescriptorBufferInfo buffers[3] = {{d.input->handle(), 0, d.bytes},
                                         {d.output->handle(), 0, d.bytes},
                                         d.record ? VkDescriptorBufferInfo{d.record->handle(), 0, d.record_bytes}
                                                  : VkDescriptorBufferInfo{d.output->handle(), 0, d.bytes}};
    VkWriteDescriptorSet writes[3] = {};
    for (uint32_t i = 0; i < 3; ++i) {
        writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        writes[i].dstSet = set;
        writes[i].dstBinding = i;
        writes[i].descriptorCount = 1;
        writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[i].pBufferInfo = &buffers[i];
    }
    vk.vkUpdateDescriptorSets(device, 3, writes, 0, nullptr);

    begin();
    // Uploads by copy must land before the shader reads, and an earlier run's writes too.
    VkMemoryBarrier before{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    before.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    before.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &before, 0, nullptr, 0, nullptr);
    vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, p);
    vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines.pipeline_layout, 0, 1, &set, 0, nullptr);
    vk.vkCmdPushConstants(cmd, pipelines.pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, module_push_constant_bytes,
                          d.push_constants);
    timed([&] { vk.vkCmdDispatch(cmd, d.grid_x, d.grid_y, 1); });
    finish_timed();
}

void Context::run_host(WorkgroupRequest request, const void* items, void* out, uint64_t count, size_t item_bytes) {
    request.count = count;
    check_host_items(request, item_bytes);
    uint64_t bytes = count * item_bytes; // count * item_bytes fits: the caller holds that many bytes
    Buffer buffer = create_buffer(bytes);
    upload(buffer, items, bytes);
    run(request, buffer, buffer);
    download(buffer, out, bytes);
}

} // namespace vkc
