// Shader modules and compute pipelines, created on first use and specialised per work-group
// shape and kernel constant, through the pipeline cache.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "device/device_core.hpp"
#include "environment.hpp"
#include "pipeline/float_controls.hpp"
#include "pipeline/pipelines.hpp"
#include "vkc/contract.h"

namespace vkc {

// One layout serves every module (see include/vkc/modules.hpp).
void Pipelines::set_up(const DeviceCore& device_core, const ContextOptions& options) {
    core = &device_core;
    const DeviceTable& vk = core->vk;
    VkDevice device = core->device;
    const VkAllocationCallbacks* allocator = core->allocator;
    VkDescriptorSetLayoutBinding bindings[module_max_bindings] = {};
    for (uint32_t i = 0; i < module_max_bindings; ++i) {
        bindings[i].binding = i;
        bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        bindings[i].descriptorCount = 1;
        bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo sl{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    sl.bindingCount = module_max_bindings;
    sl.pBindings = bindings;
    check(vk.vkCreateDescriptorSetLayout(device, &sl, allocator, &set_layout), "vkCreateDescriptorSetLayout");
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, module_push_constant_bytes};
    VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pl.setLayoutCount = 1;
    pl.pSetLayouts = &set_layout;
    pl.pushConstantRangeCount = 1;
    pl.pPushConstantRanges = &range;
    check(vk.vkCreatePipelineLayout(device, &pl, allocator, &pipeline_layout), "vkCreatePipelineLayout");
    create_pipeline_cache(options);
}

void Pipelines::destroy() {
    if (!core) return;
    const DeviceTable& vk = core->vk;
    VkDevice device = core->device;
    const VkAllocationCallbacks* allocator = core->allocator;
    for (auto& [key, p] : pipelines) {
        if (p.made) vk.vkDestroyPipeline(device, p.value, allocator);
    }
    for (auto& [key, m] : shader_modules) {
        if (m.made) vk.vkDestroyShaderModule(device, m.value, allocator);
    }
    for (auto& [key, made] : user_pipelines) {
        if (!made.made) continue;
        vk.vkDestroyPipeline(device, made.value.second, allocator);
        vk.vkDestroyShaderModule(device, made.value.first, allocator);
    }
    vk.vkDestroyPipelineLayout(device, pipeline_layout, allocator);
    vk.vkDestroyDescriptorSetLayout(device, set_layout, allocator);
    if (pipeline_cache && own_pipeline_cache) {
        save_pipeline_cache();
        vk.vkDestroyPipelineCache(device, pipeline_cache, allocator);
    }
}

template <class Value, class Make>
Value Pipelines::made_once(Slot<Value>& slot, Make&& make, std::unique_lock<std::mutex>& lock) {
    slot_made.wait(lock, [&] { return !slot.making; });
    if (slot.made) return slot.value;
    slot.making = true;
    lock.unlock();
    Value value{};
    try {
        value = make();
    } catch (...) {
        lock.lock();
        slot.making = false;
        slot_made.notify_all();
        throw;
    }
    lock.lock();
    slot.value = value;
    slot.made = true;
    slot.making = false;
    slot_made.notify_all();
    return value;
}

// The module's SPIR-V (or VKC_SPIRV_OVERRIDE's file), with DenormPreserve where the device keeps
// denormals.
VkShaderModule Pipelines::create_shader_module(const ModuleInfo& m) {
    const DeviceTable& vk = core->vk;
    VkShaderModule made = VK_NULL_HANDLE;
    VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    // For kernel experiments: VKC_SPIRV_OVERRIDE=<module name>=<file.spv> runs that file instead.
    std::vector<uint32_t> replacement;
    if (std::string spec = environment::spirv_override(); !spec.empty()) {
        std::string prefix = std::string(m.name) + "=";
        if (spec.rfind(prefix, 0) == 0) {
            std::FILE* f = std::fopen(spec.c_str() + prefix.size(), "rb");
            if (!f) throw Error("VKC_SPIRV_OVERRIDE: cannot open " + spec.substr(prefix.size()));
            uint32_t word;
            while (std::fread(&word, 4, 1, f) == 1) replacement.push_back(word);
            std::fclose(f);
            if (replacement.empty()) throw Error("VKC_SPIRV_OVERRIDE: " + spec.substr(prefix.size()) + " is empty");
        }
    }
    if (!replacement.empty()) {
        info.codeSize = replacement.size() * 4;
        info.pCode = replacement.data();
    } else {
        info.codeSize = m.code_bytes;
        info.pCode = m.code();
        if (!info.pCode) throw Error(std::string("out of host memory unpacking the SPIR-V of ") + m.name);
    }
    std::vector<uint32_t> patched;
    uint32_t width = denorm_preserve_width(m);
    if (width && denorm_preserve[width == 16 ? 0 : width == 32 ? 1 : 2]) {
        patched = with_denorm_preserve(static_cast<const uint32_t*>(info.pCode), info.codeSize / 4, width);
        info.codeSize = patched.size() * 4;
        info.pCode = patched.data();
    }
    check(vk.vkCreateShaderModule(core->device, &info, core->allocator, &made), "vkCreateShaderModule");
    return made;
}

VkPipeline Pipelines::pipeline(const ModuleInfo& m, const WorkgroupShape& shape, bool packed, uint32_t items,
                               bool staged, uint32_t kernel_constant) {
    auto key = std::make_tuple(&m, shape.x, shape.y, shape.z, packed, items, staged, kernel_constant);
    std::unique_lock lock(mutex);
    Slot<VkPipeline>& slot = pipelines[key];
    if (slot.made) return slot.value;
    VkShaderModule module = made_once(shader_modules[&m], [&] { return create_shader_module(m); }, lock);
    return made_once(slot, [&] {
        return create_pipeline(module, shape, packed, items, staged, kernel_constant,
                               std::string(m.name) + " " + shape.text() + " x" + std::to_string(items) +
                                   (staged ? " staged" : "") +
                                   (kernel_constant ? " constant 8 = " + std::to_string(kernel_constant) : ""));
    }, lock);
}

VkPipeline Pipelines::user_pipeline(std::span<const uint32_t> code, const WorkgroupShape& shape, bool packed,
                                    uint32_t kernel_constant, const char* what) {
    if (code.size() < 5 || code[0] != 0x07230203u) {
        throw Error(std::string(what) + ": the kernel's code is not SPIR-V (its first word is not 0x07230203)");
    }
    uint64_t hash = 14695981039346656037ull; // FNV-1a over the words
    for (uint32_t word : code) hash = (hash ^ word) * 1099511628211ull;
    UserKey key{hash, code.size(), shape.x, shape.y, shape.z, packed, kernel_constant};
    std::unique_lock lock(mutex);
    return made_once(user_pipelines[key], [&] { return create_user_pipeline(code, shape, packed, kernel_constant, what); },
                     lock).second;
}

std::pair<VkShaderModule, VkPipeline> Pipelines::create_user_pipeline(std::span<const uint32_t> code,
                                                                      const WorkgroupShape& shape, bool packed,
                                                                      uint32_t kernel_constant, const char* what) {
    const DeviceTable& vk = core->vk;
    VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
    info.codeSize = code.size() * 4;
    info.pCode = code.data();
    VkShaderModule module = VK_NULL_HANDLE;
    check(vk.vkCreateShaderModule(core->device, &info, core->allocator, &module), "vkCreateShaderModule");
    VkPipeline p = VK_NULL_HANDLE;
    try {
        p = create_pipeline(module, shape, packed, 1, false, kernel_constant,
                            std::string(what) + " kernel " + shape.text() + " constant 8 = " +
                                std::to_string(kernel_constant));
    } catch (...) {
        vk.vkDestroyShaderModule(core->device, module, core->allocator);
        throw;
    }
    return {module, p};
}

VkPipeline Pipelines::create_pipeline(VkShaderModule module, const WorkgroupShape& shape, bool packed, uint32_t items,
                                      bool staged, uint32_t kernel_constant, const std::string& label) {
    const DeviceTable& vk = core->vk;
    uint32_t stage_items = staged ? uint32_t(shape.size() * items) : 1u;
    const uint32_t values[9] = {shape.x,
                                shape.y,
                                shape.z,
                                packed ? VK_TRUE : VK_FALSE,
                                items,
                                staged ? VK_TRUE : VK_FALSE,
                                uint32_t(shape.size()),
                                stage_items,
                                kernel_constant};
    VkSpecializationMapEntry entries[9];
    for (uint32_t i = 0; i < 3; ++i) {
        entries[i] = {VKC_SPEC_WORKGROUP_SIZE_X + i, uint32_t(i * sizeof(uint32_t)), sizeof(uint32_t)};
    }
    entries[3] = {VKC_SPEC_SUBGROUPS_PACKED, 3 * sizeof(uint32_t), sizeof(VkBool32)};
    entries[4] = {VKC_SPEC_ITEMS_PER_INVOCATION, 4 * sizeof(uint32_t), sizeof(uint32_t)};
    entries[5] = {VKC_SPEC_STAGED, 5 * sizeof(uint32_t), sizeof(VkBool32)};
    entries[6] = {VKC_SPEC_SCRATCH_CAPACITY, 6 * sizeof(uint32_t), sizeof(uint32_t)};
    entries[7] = {VKC_SPEC_STAGE_ITEMS, 7 * sizeof(uint32_t), sizeof(uint32_t)};
    entries[8] = {VKC_SPEC_KERNEL, 8 * sizeof(uint32_t), sizeof(uint32_t)};
    VkSpecializationInfo spec{9, entries, sizeof(values), values};
    VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = module;
    info.stage.pName = "main";
    info.stage.pSpecializationInfo = &spec;
    info.layout = pipeline_layout;
    if (statistics) info.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    VkPipeline p = VK_NULL_HANDLE;
    auto start = std::chrono::steady_clock::now();
    check(vk.vkCreateComputePipelines(core->device, pipeline_cache, 1, &info, core->allocator, &p),
          "vkCreateComputePipelines");
    if (statistics) {
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
        report_statistics(p, label + " (made in " + std::to_string(int(ms + 0.5)) + " ms)");
    }
    return p;
}

// VKC_PIPELINE_STATS=1: what the driver says of each pipeline it compiled (registers, shared memory,
// spills on NVIDIA), on stderr. Occupancy is what limits latency-bound kernels such as the look-back
// scan, and no other tool sees it for Vulkan compute.
void Pipelines::report_statistics(VkPipeline p, const std::string& what) const {
    const DeviceTable& vk = core->vk;
    VkDevice device = core->device;
    VkPipelineInfoKHR pipeline_info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
    pipeline_info.pipeline = p;
    uint32_t executables = 0;
    if (vk.vkGetPipelineExecutablePropertiesKHR(device, &pipeline_info, &executables, nullptr) != VK_SUCCESS) return;
    for (uint32_t e = 0; e < executables; ++e) {
        VkPipelineExecutableInfoKHR exec{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
        exec.pipeline = p;
        exec.executableIndex = e;
        uint32_t n = 0;
        vk.vkGetPipelineExecutableStatisticsKHR(device, &exec, &n, nullptr);
        std::vector<VkPipelineExecutableStatisticKHR> stats(n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
        vk.vkGetPipelineExecutableStatisticsKHR(device, &exec, &n, stats.data());
        std::string line = "pipeline " + what + ":";
        for (const auto& s : stats) {
            line += std::string(" ") + s.name + "=";
            switch (s.format) {
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: line += s.value.b32 ? "true" : "false"; break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: line += std::to_string(s.value.i64); break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: line += std::to_string(s.value.u64); break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: line += std::to_string(s.value.f64); break;
            default: line += "?";
            }
        }
        std::fprintf(stderr, "%s\n", line.c_str());
    }
}

} // namespace vkc
