// The objects every compute pipeline of a device uses (one descriptor set layout and one pipeline
// layout serve every module, see include/vkc/modules.hpp), the shader modules and pipelines made on
// first use (src/pipeline/pipeline.cpp), and the pipeline cache they are created through
// (src/pipeline/pipeline_cache.cpp). Not installed.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "device/vulkan_api.hpp"
#include "vkc/context.hpp"

namespace vkc {

struct DeviceCore;

struct Pipelines {
    const DeviceCore* core = nullptr; // the device they are made on (set_up)
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
    VkPipelineCache pipeline_cache = VK_NULL_HANDLE;
    bool own_pipeline_cache = false; // created here (not ContextOptions::pipeline_cache)
    std::string pipeline_cache_path; // ContextOptions::pipeline_cache_path
    bool statistics = false;         // VKC_PIPELINE_STATS=1 and the driver can tell
    // Whether float add and mul modules of 16, 32 and 64 bits are created with DenormPreserve
    // (DeviceState::keeps_denormals).
    bool denorm_preserve[3] = {false, false, false};
    std::map<const ModuleInfo*, VkShaderModule> shader_modules;
    // (module, shape x y z, packed, items, staged, kernel constant): pipeline()'s arguments
    using PipelineKey = std::tuple<const ModuleInfo*, uint32_t, uint32_t, uint32_t, bool, uint32_t, bool, uint32_t>;
    std::map<PipelineKey, VkPipeline> pipelines;

    // The layouts, and the pipeline cache: options.pipeline_cache, or one of its own (from
    // options.pipeline_cache_data, or the file pipeline_cache_path or VKC_PIPELINE_CACHE names).
    void set_up(const DeviceCore& device, const ContextOptions& options);
    // Destroys what set_up and pipeline() made; saves the cache of its own to its file first.
    void destroy();
    // kernel_constant: specialization constant 8 (module_spec_kernel), whose use is the kernel's: the
    // device-scan path, or the block flags; modules that declare none ignore it.
    VkPipeline pipeline(const ModuleInfo& m, const WorkgroupShape& shape, bool packed, uint32_t items, bool staged,
                        uint32_t kernel_constant = 0);
    std::vector<uint8_t> pipeline_cache_data() const;

private:
    void create_pipeline_cache(const ContextOptions& options);
    void save_pipeline_cache() const;
    void report_statistics(VkPipeline p, const std::string& what) const;
};

} // namespace vkc
