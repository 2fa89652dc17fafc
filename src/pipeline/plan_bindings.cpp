// Checks and descriptor sets of the plans' ranges (pipeline/plan_bindings.hpp).
#include "pipeline/plan_bindings.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "device/device_core.hpp"
#include "vkc/modules.hpp"

namespace vkc {

bool overlaps(const BufferRange& a, uint64_t a_bytes, const BufferRange& b, uint64_t b_bytes) {
    return a.buffer == b.buffer && a.offset < b.offset + b_bytes && b.offset < a.offset + a_bytes;
}

void check_range(const BufferRange& r, uint64_t need, uint64_t align, const char* what, const char* role) {
    if (!r.buffer) throw Error(std::string(what) + ": the " + role + " buffer is VK_NULL_HANDLE");
    if (r.offset % align) {
        throw Error(std::string(what) + ": the " + role + " offset " + std::to_string(r.offset) +
                    " is not a multiple of " + std::to_string(align) +
                    " (16 bytes and minStorageBufferOffsetAlignment)");
    }
    if (r.size < need) {
        throw Error(std::string(what) + ": the " + role + " range holds " + std::to_string(r.size) + " bytes; " +
                    std::to_string(need) + " are needed");
    }
}

void check_indirect_count(const IndirectCount& count, const char* what) {
    if (!count.count_buffer) throw Error(std::string(what) + ": the IndirectCount's count_buffer is VK_NULL_HANDLE");
    if (count.count_buffer_offset % 4) {
        throw Error(std::string(what) + ": the IndirectCount's count_buffer_offset " +
                    std::to_string(count.count_buffer_offset) + " is not a multiple of 4");
    }
}

void check_roles(const std::vector<RangeRole>& roles, uint64_t max_storage_buffer_range, const char* what) {
    for (const RangeRole& role : roles) {
        check_range(*role.range, role.bytes, role.align, what, role.name);
        if (role.bytes > max_storage_buffer_range) {
            throw Error(std::string(what) + ": the " + role.name + " range needs " + std::to_string(role.bytes) +
                        " bytes, past maxStorageBufferRange (" + std::to_string(max_storage_buffer_range) + ")");
        }
    }
    for (size_t i = 0; i < roles.size(); ++i) {
        for (size_t j = i + 1; j < roles.size(); ++j) {
            if (overlaps(*roles[i].range, roles[i].bytes, *roles[j].range, roles[j].bytes)) {
                throw Error(std::string(what) + ": the " + roles[i].name + " range overlaps the " + roles[j].name +
                            " range");
            }
        }
    }
}

void check_indirect_count(const IndirectCount& count, const std::vector<RangeRole>& roles, const char* what) {
    check_indirect_count(count, what);
    BufferRange count_range{count.count_buffer, count.count_buffer_offset, 4};
    for (const RangeRole& role : roles) {
        if (role.written && overlaps(count_range, 4, *role.range, role.bytes)) {
            throw Error(std::string(what) + ": the IndirectCount's count lies in the " + role.name + " range");
        }
    }
}

CountBinding count_binding(const IndirectCount& count, uint64_t min_offset_alignment) {
    VkDeviceSize at = count.count_buffer_offset;
    VkDeviceSize align = std::max<uint64_t>(1, min_offset_alignment);
    VkDeviceSize base = at / align * align;
    return {{count.count_buffer, base, at + 4 - base}, uint32_t((at - base) / 4)};
}

CountBinding count_binding(const IndirectCount* count, VkDescriptorBufferInfo placeholder, uint64_t min_offset_alignment) {
    return count ? count_binding(*count, min_offset_alignment) : CountBinding{placeholder, 0};
}

WordBinding word_binding(const BufferRange& range, uint64_t bytes, uint64_t min_offset_alignment) {
    CountBinding b = count_binding(IndirectCount{range.buffer, range.offset, 0}, min_offset_alignment);
    b.info.range = range.offset + bytes - b.info.offset;
    return {b.info, b.word};
}

void allocate_sets(const DeviceTable& vk, VkDevice device, const VkAllocationCallbacks* allocator,
                   VkDescriptorSetLayout layout, uint32_t sets, VkDescriptorPool& pool, VkDescriptorSet* out) {
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, module_max_bindings * sets};
    VkDescriptorPoolCreateInfo dp{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dp.maxSets = sets;
    dp.poolSizeCount = 1;
    dp.pPoolSizes = &size;
    check(vk.vkCreateDescriptorPool(device, &dp, allocator, &pool), "vkCreateDescriptorPool");
    std::vector<VkDescriptorSetLayout> layouts(sets, layout);
    VkDescriptorSetAllocateInfo a{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    a.descriptorPool = pool;
    a.descriptorSetCount = sets;
    a.pSetLayouts = layouts.data();
    check(vk.vkAllocateDescriptorSets(device, &a, out), "vkAllocateDescriptorSets");
}

void write_storage_buffers(const DeviceTable& vk, VkDevice device, VkDescriptorSet set,
                           const VkDescriptorBufferInfo* infos, uint32_t count) {
    std::vector<VkWriteDescriptorSet> writes(count, {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET});
    for (uint32_t i = 0; i < count; ++i) {
        writes[i].dstSet = set;
        writes[i].dstBinding = i;
        writes[i].descriptorCount = 1;
        writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[i].pBufferInfo = &infos[i];
    }
    vk.vkUpdateDescriptorSets(device, count, writes.data(), 0, nullptr);
}

void record_scratch_zeroing(const DeviceTable& vk, VkCommandBuffer cmd, const BufferRange& scratch) {
    vk.vkCmdFillBuffer(cmd, scratch.buffer, scratch.offset, scratch.size, 0);
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier,
                            0, nullptr, 0, nullptr);
}

void record_dispatch(const DeviceTable& vk, VkCommandBuffer cmd, VkPipeline pipeline, VkPipelineLayout layout,
                     VkDescriptorSet set, const void* params, uint32_t bytes, uint32_t grid_x, uint32_t grid_y) {
    vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
    vk.vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, bytes, params);
    vk.vkCmdDispatch(cmd, grid_x, grid_y, 1);
}

} // namespace vkc
