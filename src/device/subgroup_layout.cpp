// The subgroup layout: which work-group shapes place their invocations in subgroups in local-index
// order (SubgroupLayout). Found by a probe module, in one submission to a queue the caller names:
// the engine's (Device::probe_subgroup_layout) or the Context's own. Plans never probe: they read
// what is known.
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "device/device_core.hpp"
#include "device/device_state.hpp"
#include "device/instance.hpp"
#include "submit/context_state.hpp"
#include "tuning/scan_tuning.hpp"

namespace vkc {

bool SubgroupLayout::is_packed(uint32_t size) const {
    for (uint32_t i = 0; i < std::min(size_count, max_sizes); ++i) {
        if (sizes[i] == size) return (packed >> i) & 1u;
    }
    return false;
}

namespace {
const ModuleInfo& layout_probe_module() {
    const ModuleInfo* probe = nullptr;
    for (const ModuleInfo& m : modules()) {
        if (m.collective == Collective::layout_probe) probe = &m;
    }
    if (!probe) throw Error("the layout probe module is missing from the build");
    return *probe;
}

// Whether the probe's output for a work-group of n invocations (at `place`: the local index each
// subgroup position holds) is in local-index order, so that subgroups are packed.
bool in_local_index_order(const void* place, uint64_t n) {
    std::vector<uint32_t> words(n);
    std::memcpy(words.data(), place, n * sizeof(uint32_t));
    for (uint64_t k = 0; k < n; ++k) {
        if (words[k] != k) return false;
    }
    return true;
}

// The temporary objects of one probe submission, destroyed however it ends.
struct ProbeObjects {
    const DeviceTable& vk;
    VkDevice device;
    const VkAllocationCallbacks* allocator;
    VkCommandPool pool = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    VkDescriptorPool descriptors = VK_NULL_HANDLE;
    ~ProbeObjects() {
        vk.vkDestroyDescriptorPool(device, descriptors, allocator);
        vk.vkDestroyFence(device, fence, allocator);
        vk.vkDestroyCommandPool(device, pool, allocator);
    }
};
} // namespace

std::vector<bool> DeviceState::probe_shapes(const std::vector<WorkgroupShape>& shapes, VkQueue queue,
                                            uint32_t family) {
    std::vector<bool> packed(shapes.size(), false);
    if (!any(info.features & Feature::subgroup_basic) || shapes.empty()) return packed;
    const ModuleInfo& probe = layout_probe_module();
    // One host-visible buffer, so the answers are read without a staged copy; a range per shape.
    const uint64_t align = std::max<uint64_t>(16, info.min_storage_buffer_offset_alignment);
    std::vector<uint64_t> offsets(shapes.size());
    uint64_t total = 0;
    for (size_t i = 0; i < shapes.size(); ++i) {
        offsets[i] = total;
        total += (shapes[i].size() + 1) * sizeof(uint32_t);
        total = (total + align - 1) / align * align;
    }
    const VkMemoryPropertyFlags visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    Buffer out = memory.make_buffer(total, visible, visible);
    std::vector<VkPipeline> pipelines_used;
    for (const WorkgroupShape& s : shapes) pipelines_used.push_back(pipelines.pipeline(probe, s, false, 1, false));

    ProbeObjects o{vk, device, allocator};
    VkCommandPoolCreateInfo p{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    p.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
    p.queueFamilyIndex = family;
    check(vk.vkCreateCommandPool(device, &p, allocator, &o.pool), "vkCreateCommandPool");
    VkCommandBufferAllocateInfo ca{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ca.commandPool = o.pool;
    ca.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ca.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    check(vk.vkAllocateCommandBuffers(device, &ca, &cmd), "vkAllocateCommandBuffers");
    VkFenceCreateInfo f{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    check(vk.vkCreateFence(device, &f, allocator, &o.fence), "vkCreateFence");
    const uint32_t sets = uint32_t(shapes.size());
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, module_max_bindings * sets};
    VkDescriptorPoolCreateInfo dp{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dp.maxSets = sets;
    dp.poolSizeCount = 1;
    dp.pPoolSizes = &size;
    check(vk.vkCreateDescriptorPool(device, &dp, allocator, &o.descriptors), "vkCreateDescriptorPool");
    std::vector<VkDescriptorSetLayout> layouts(sets, pipelines.set_layout);
    std::vector<VkDescriptorSet> set_list(sets);
    VkDescriptorSetAllocateInfo da{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    da.descriptorPool = o.descriptors;
    da.descriptorSetCount = sets;
    da.pSetLayouts = layouts.data();
    check(vk.vkAllocateDescriptorSets(device, &da, set_list.data()), "vkAllocateDescriptorSets");

    uint64_t failed_before = core->failed_allocations;
    VkCommandBufferBeginInfo b{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    b.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vk.vkBeginCommandBuffer(cmd, &b), "vkBeginCommandBuffer");
    for (uint32_t i = 0; i < sets; ++i) {
        uint64_t n = shapes[i].size();
        VkDescriptorBufferInfo range{out.handle(), offsets[i], (n + 1) * sizeof(uint32_t)};
        VkWriteDescriptorSet writes[module_max_bindings] = {};
        for (uint32_t w = 0; w < module_max_bindings; ++w) {
            writes[w] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            writes[w].dstSet = set_list[i];
            writes[w].dstBinding = w;
            writes[w].descriptorCount = 1;
            writes[w].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            writes[w].pBufferInfo = &range;
        }
        vk.vkUpdateDescriptorSets(device, module_max_bindings, writes, 0, nullptr);
        ModuleParams params{};
        params.count = uint32_t(n + 1);
        params.group_count = 1;
        vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines_used[i]);
        vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines.pipeline_layout, 0, 1, &set_list[i],
                                   0, nullptr);
        vk.vkCmdPushConstants(cmd, pipelines.pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                              module_push_constant_bytes, &params);
        vk.vkCmdDispatch(cmd, 1, 1, 1);
    }
    VkMemoryBarrier after{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    after.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    after.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &after, 0,
                            nullptr, 0, nullptr);
    check(vk.vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
    core->check_allocations(failed_before, "recording the subgroup layout probe");
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd;
    check(vk.vkQueueSubmit(queue, 1, &submit, o.fence), "vkQueueSubmit");
    constexpr uint64_t timeout_ns = 300ull * 1000 * 1000 * 1000;
    VkResult r = vk.vkWaitForFences(device, 1, &o.fence, VK_TRUE, timeout_ns);
    if (r == VK_TIMEOUT) throw Error("the device did not finish the subgroup layout probe within 300 s");
    check(r, "vkWaitForFences");

    const char* mapped = static_cast<const char*>(DeviceMemory::mapped(out));
    for (size_t i = 0; i < shapes.size(); ++i) packed[i] = in_local_index_order(mapped + offsets[i], shapes[i].size());
    return packed;
}

SubgroupLayout DeviceState::probe_layout(VkQueue queue, uint32_t family) {
    if (!queue) throw Error("probe_subgroup_layout: the queue is VK_NULL_HANDLE");
    auto families = queue_families(vki, physical);
    if (family >= families.size()) {
        throw Error("probe_subgroup_layout: queue family " + std::to_string(family) + " is not one of the device's " +
                    std::to_string(families.size()));
    }
    if (!(families[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) {
        throw Error("probe_subgroup_layout: queue family " + std::to_string(family) + " has no compute");
    }
    // The powers of 2, then the tuned sizes that are not one.
    std::vector<uint32_t> sizes;
    uint32_t limit = std::min(info.max_workgroup_invocations, info.max_workgroup_size[0]);
    for (uint32_t size = std::max(info.min_subgroup_size, 1u); size && size <= limit; size *= 2) sizes.push_back(size);
    for (uint32_t size : tuned_workgroup_sizes(info)) {
        if (std::find(sizes.begin(), sizes.end(), size) == sizes.end()) sizes.push_back(size);
    }
    sizes.resize(std::min<size_t>(sizes.size(), SubgroupLayout::max_sizes));
    std::vector<WorkgroupShape> shapes;
    for (uint32_t size : sizes) shapes.push_back({size, 1, 1});
    std::vector<bool> packed = probe_shapes(shapes, queue, family);
    SubgroupLayout found;
    found.size_count = uint32_t(sizes.size());
    for (size_t i = 0; i < sizes.size(); ++i) {
        found.sizes[i] = sizes[i];
        if (packed[i]) found.packed |= 1u << i;
        packed_shapes[std::make_tuple(sizes[i], 1u, 1u)] = packed[i];
    }
    layout = found;
    return layout;
}

// A Context's probe, on its own command buffer, as its other work.
bool ContextState::subgroups_packed(const WorkgroupShape& s) {
    auto key = std::make_tuple(s.x, s.y, s.z);
    if (auto it = dev.packed_shapes.find(key); it != dev.packed_shapes.end()) return it->second;
    if (s.y == 1 && s.z == 1 && dev.layout.is_packed(s.x)) return true;
    bool packed = false;
    if (any(dev.info.features & Feature::subgroup_basic)) {
        const ModuleInfo& probe = layout_probe_module();
        uint64_t n = s.size();
        const VkMemoryPropertyFlags visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                              VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        Buffer out = dev.memory.make_buffer((n + 1) * sizeof(uint32_t), visible, visible);
        ModuleParams params{};
        params.count = uint32_t(n + 1);
        params.group_count = 1;
        dispatch({&probe, s, false, 1, false, &params, &out, &out, nullptr, out.size(), 0, 1, 1});
        packed = in_local_index_order(DeviceMemory::mapped(out), n);
    }
    dev.packed_shapes[key] = packed;
    return packed;
}

bool DeviceState::known_packed(uint32_t size) const {
    if (layout.is_packed(size)) return true;
    auto it = packed_shapes.find(std::make_tuple(size, 1u, 1u)); // a Context's probe of another size
    return it != packed_shapes.end() && it->second;
}

SubgroupLayout Device::subgroup_layout() const { return state_->layout; }

SubgroupLayout Device::probe_subgroup_layout(VkQueue queue, uint32_t queue_family) {
    return state_->probe_layout(queue, queue_family);
}

bool Context::subgroups_packed(const WorkgroupShape& s) { return state_->subgroups_packed(s); }

} // namespace vkc
