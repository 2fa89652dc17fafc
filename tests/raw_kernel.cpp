#include "raw_kernel.hpp"

#include <fstream>
#include <iterator>
#include <stdexcept>

namespace vkc::test {

namespace {
void check(VkResult r, const char* what) {
    if (r != VK_SUCCESS) throw std::runtime_error(std::string(what) + " failed: VkResult " + std::to_string(r));
}
} // namespace

std::string test_shader_path(const std::string& name) { return std::string(VKC_TEST_SHADER_DIR) + "/" + name + ".spv"; }

RawKernel::RawKernel(Context& context, const std::string& spirv_path, uint32_t bindings, uint32_t push_bytes)
    : context_(context), device_(context.vk_device()), bindings_(bindings), push_bytes_(push_bytes) {
    std::ifstream file(spirv_path, std::ios::binary);
    if (!file) throw std::runtime_error("cannot read " + spirv_path);
    std::vector<char> bytes{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
    std::vector<uint32_t> code((bytes.size() + 3) / 4);
    std::copy(bytes.begin(), bytes.end(), reinterpret_cast<char*>(code.data()));
    VkShaderModuleCreateInfo m{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    m.codeSize = bytes.size();
    m.pCode = code.data();
    check(vkCreateShaderModule(device_, &m, nullptr, &module_), "vkCreateShaderModule");
    std::vector<VkDescriptorSetLayoutBinding> list(bindings);
    for (uint32_t b = 0; b < bindings; ++b) {
        list[b] = {b, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    }
    VkDescriptorSetLayoutCreateInfo s{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    s.bindingCount = bindings;
    s.pBindings = list.data();
    check(vkCreateDescriptorSetLayout(device_, &s, nullptr, &set_layout_), "vkCreateDescriptorSetLayout");
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
    VkPipelineLayoutCreateInfo l{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    l.setLayoutCount = 1;
    l.pSetLayouts = &set_layout_;
    l.pushConstantRangeCount = push_bytes ? 1 : 0;
    l.pPushConstantRanges = &range;
    check(vkCreatePipelineLayout(device_, &l, nullptr, &layout_), "vkCreatePipelineLayout");
}

RawKernel::~RawKernel() {
    vkDestroyPipelineLayout(device_, layout_, nullptr);
    vkDestroyDescriptorSetLayout(device_, set_layout_, nullptr);
    vkDestroyShaderModule(device_, module_, nullptr);
}

void RawKernel::run(const std::vector<uint32_t>& constants, const std::vector<const Buffer*>& buffers,
                    const void* push, uint32_t groups) {
    if (buffers.size() != bindings_) throw std::runtime_error("RawKernel::run: one buffer a binding");
    // The objects of one run, destroyed however it ends.
    struct Objects {
        VkDevice device;
        VkPipeline pipeline = VK_NULL_HANDLE;
        VkDescriptorPool descriptors = VK_NULL_HANDLE;
        VkCommandPool pool = VK_NULL_HANDLE;
        VkFence fence = VK_NULL_HANDLE;
        ~Objects() {
            vkDestroyFence(device, fence, nullptr);
            vkDestroyCommandPool(device, pool, nullptr);
            vkDestroyDescriptorPool(device, descriptors, nullptr);
            vkDestroyPipeline(device, pipeline, nullptr);
        }
    } o{device_};

    std::vector<VkSpecializationMapEntry> entries(constants.size());
    for (uint32_t i = 0; i < constants.size(); ++i) entries[i] = {i, i * 4u, 4};
    VkSpecializationInfo spec{uint32_t(entries.size()), entries.data(), constants.size() * 4, constants.data()};
    VkComputePipelineCreateInfo p{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    p.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    p.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    p.stage.module = module_;
    p.stage.pName = "main";
    p.stage.pSpecializationInfo = &spec;
    p.layout = layout_;
    check(vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &p, nullptr, &o.pipeline), "vkCreateComputePipelines");

    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, bindings_};
    VkDescriptorPoolCreateInfo dp{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dp.maxSets = 1;
    dp.poolSizeCount = 1;
    dp.pPoolSizes = &size;
    check(vkCreateDescriptorPool(device_, &dp, nullptr, &o.descriptors), "vkCreateDescriptorPool");
    VkDescriptorSetAllocateInfo da{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    da.descriptorPool = o.descriptors;
    da.descriptorSetCount = 1;
    da.pSetLayouts = &set_layout_;
    VkDescriptorSet set = VK_NULL_HANDLE;
    check(vkAllocateDescriptorSets(device_, &da, &set), "vkAllocateDescriptorSets");
    std::vector<VkDescriptorBufferInfo> infos(bindings_);
    std::vector<VkWriteDescriptorSet> writes(bindings_);
    for (uint32_t b = 0; b < bindings_; ++b) {
        infos[b] = {buffers[b]->handle(), 0, VK_WHOLE_SIZE};
        writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        writes[b].dstSet = set;
        writes[b].dstBinding = b;
        writes[b].descriptorCount = 1;
        writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[b].pBufferInfo = &infos[b];
    }
    vkUpdateDescriptorSets(device_, bindings_, writes.data(), 0, nullptr);

    VkCommandPoolCreateInfo cp{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    cp.queueFamilyIndex = context_.queue_family();
    check(vkCreateCommandPool(device_, &cp, nullptr, &o.pool), "vkCreateCommandPool");
    VkCommandBufferAllocateInfo ca{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ca.commandPool = o.pool;
    ca.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ca.commandBufferCount = 1;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    check(vkAllocateCommandBuffers(device_, &ca, &cmd), "vkAllocateCommandBuffers");
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer");
    // The Context's uploads before, its downloads after.
    VkMemoryBarrier before{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_TRANSFER_WRITE_BIT,
                           VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &before, 0,
                         nullptr, 0, nullptr);
    vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, o.pipeline);
    vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout_, 0, 1, &set, 0, nullptr);
    if (push_bytes_) vkCmdPushConstants(cmd, layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes_, push);
    vkCmdDispatch(cmd, groups, 1, 1);
    VkMemoryBarrier after{VK_STRUCTURE_TYPE_MEMORY_BARRIER, nullptr, VK_ACCESS_SHADER_WRITE_BIT,
                          VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &after, 0,
                         nullptr, 0, nullptr);
    check(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
    VkFenceCreateInfo f{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    check(vkCreateFence(device_, &f, nullptr, &o.fence), "vkCreateFence");
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd;
    check(vkQueueSubmit(context_.queue(), 1, &submit, o.fence), "vkQueueSubmit");
    check(vkWaitForFences(device_, 1, &o.fence, VK_TRUE, 120ull * 1000 * 1000 * 1000), "vkWaitForFences");
}

} // namespace vkc::test
