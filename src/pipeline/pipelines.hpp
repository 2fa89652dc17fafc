// The objects every compute pipeline of a device uses (one descriptor set layout and one pipeline
// layout serve every module, see include/vkc/modules.hpp), the shader modules and pipelines made on
// first use (src/pipeline/pipeline.cpp), and the pipeline cache they are created through
// (src/pipeline/pipeline_cache.cpp). Not installed.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "device/vulkan_api.hpp"
#include "vkc/context.hpp"

namespace vkc {

struct DeviceCore;

// The file a Context keeps its own pipeline cache in when none is named: one per device and driver
// (vendor, device and pipelineCacheUUID in its name) under $XDG_CACHE_HOME/vkcollectives, else
// $HOME/.cache/vkcollectives; empty where neither directory is known.
std::string default_pipeline_cache_file(const VkPhysicalDeviceProperties& properties);

struct Pipelines {
    const DeviceCore* core = nullptr; // the device they are made on (set_up)
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
    VkPipelineCache pipeline_cache = VK_NULL_HANDLE;
    bool own_pipeline_cache = false; // created here (not ContextOptions::pipeline_cache)
    // The file the own cache was read from and is saved to, chosen once when it is made
    // (ContextOptions::pipeline_cache_path, VKC_PIPELINE_CACHE, default_cache_file); empty: none.
    std::string cache_file;
    // Where a Context's own cache lives when no file is named (default_pipeline_cache_file); empty for
    // a Device, which writes no file the engine did not name.
    std::string default_cache_file;
    // The own cache's size as read from its file (0: no file was read); saving is skipped while the
    // cache has grown no larger, so that Contexts that compiled nothing new write nothing.
    size_t loaded_cache_bytes = 0;
    bool statistics = false;         // VKC_PIPELINE_STATS=1 and the driver can tell
    // Whether float add and mul modules of 16, 32 and 64 bits are created with DenormPreserve
    // (DeviceState::keeps_denormals).
    bool denorm_preserve[3] = {false, false, false};
    // Made once, by whichever thread asks first; threads that ask meanwhile wait for it (made_once).
    template <class Value>
    struct Slot {
        Value value{};
        bool made = false;
        bool making = false;
    };
    std::map<const ModuleInfo*, Slot<VkShaderModule>> shader_modules;
    // (module, shape x y z, packed, items, staged, kernel constant): pipeline()'s arguments
    using PipelineKey = std::tuple<const ModuleInfo*, uint32_t, uint32_t, uint32_t, bool, uint32_t, bool, uint32_t>;
    std::map<PipelineKey, Slot<VkPipeline>> pipelines;
    // (a hash of the code, its words, shape x y z, packed, kernel constant): user_pipeline()'s
    using UserKey = std::tuple<uint64_t, size_t, uint32_t, uint32_t, uint32_t, bool, uint32_t>;
    std::map<UserKey, Slot<std::pair<VkShaderModule, VkPipeline>>> user_pipelines;

    // The layouts, and the pipeline cache: options.pipeline_cache, or one of its own (from
    // options.pipeline_cache_data, or cache_file).
    void set_up(const DeviceCore& device, const ContextOptions& options);
    // Destroys what set_up and pipeline() made; saves the cache of its own to its file first.
    void destroy();
    // kernel_constant: specialization constant 8 (module_spec_kernel), whose use is the kernel's: the
    // device-scan path, or the block flags; modules that declare none ignore it.
    VkPipeline pipeline(const ModuleInfo& m, const WorkgroupShape& shape, bool packed, uint32_t items, bool staged,
                        uint32_t kernel_constant = 0);
    // A pipeline of the caller's SPIR-V (a kernel template compiled with an engine's own code, as
    // vkc/device_select.glsl takes a predicate), on the shared layout and cache with the same
    // specialization constants; kept by the code's contents and the arguments until destroy().
    VkPipeline user_pipeline(std::span<const uint32_t> code, const WorkgroupShape& shape, bool packed,
                             uint32_t kernel_constant, const char* what);
    std::vector<uint8_t> pipeline_cache_data() const;

private:
    // Guards the maps and their slots: pipeline() and user_pipeline() may run on several threads at
    // once (plans made on an engine's loading threads, Device::prepare_scans), and each slot is made
    // outside the lock, so that different pipelines compile side by side.
    std::mutex mutex;
    std::condition_variable slot_made;
    // The slot's value, made by `make` if no thread has made it; a `make` that throws leaves the
    // slot empty for the next caller.
    template <class Value, class Make>
    Value made_once(Slot<Value>& slot, Make&& make, std::unique_lock<std::mutex>& lock);
    VkShaderModule create_shader_module(const ModuleInfo& m);
    std::pair<VkShaderModule, VkPipeline> create_user_pipeline(std::span<const uint32_t> code,
                                                               const WorkgroupShape& shape, bool packed,
                                                               uint32_t kernel_constant, const char* what);
    VkPipeline create_pipeline(VkShaderModule module, const WorkgroupShape& shape, bool packed, uint32_t items,
                               bool staged, uint32_t kernel_constant, const std::string& label);
    void create_pipeline_cache(const ContextOptions& options);
    void save_pipeline_cache() const;
    void report_statistics(VkPipeline p, const std::string& what) const;
};

} // namespace vkc
