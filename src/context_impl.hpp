// The Context's insides, shared by the runtime's sources (context.cpp: device, buffers, pipelines;
// device_scan.cpp: device-wide scan and reduce). Not installed.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <tuple>

#include <atomic>
#include <memory>
#include <mutex>

#include "device/vulkan_api.hpp"
#include "vkc/context.hpp"

namespace vkc {

inline void check(VkResult result, const char* what) {
    if (result != VK_SUCCESS) {
        throw Error(std::string(what) + " failed with " + result_name(result) + " (VkResult " +
                    std::to_string(int(result)) + ")");
    }
}

// Items a kernel moves in one vector load (ITEM_VEC_WIDTH, cmake/VkcShaders.cmake): 16 bytes of 32- and
// 64-bit items, 8 of 16-bit, 4 of 8-bit; the uvec2 custom operators' items load as they are.
inline uint32_t vector_width(Type t) { return t == Type::u32x2 ? 1 : size_of(t) == 8 ? 2 : 4; }

// The Vulkan device and instance a Context works on, with their function tables. Buffers and plans
// hold it too, so it lives until the last of them is gone, whatever order the caller destroys them in.
struct DeviceCore {
    LoaderLibrary loader; // unused where the engine handed over its vkGetInstanceProcAddr
    InstanceTable vki;
    DeviceTable vk;
    VkInstance instance = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    bool adopted = false; // the device and instance are the engine's: never destroyed here
    // False once the Context is destroyed: its pipelines are gone, so plans may no longer record.
    std::atomic<bool> context_alive{true};
    // The caller's callbacks (ContextOptions::allocator), copied so that the struct need not outlive the
    // Context, and the wrapper every object is created with: it counts the allocations that failed, so
    // that a command the driver dropped for want of memory without saying so (Mesa 22.3's lavapipe
    // records nothing and ends the command buffer with VK_SUCCESS) is reported, not run.
    VkAllocationCallbacks caller_allocator{};
    VkAllocationCallbacks counting_allocator{};
    const VkAllocationCallbacks* allocator = nullptr;
    std::atomic<uint64_t> failed_allocations{0};
    void use_allocator(const VkAllocationCallbacks& callbacks);
    // Throws Error where an allocation failed since `before` (a failed_allocations value).
    void check_allocations(uint64_t before, const char* what) const;

    // Validation messages seen on the instance (the layer may call from any thread).
    std::atomic<uint64_t> validation_count{0};
    mutable std::mutex validation_mutex;
    std::string validation_last;

    DeviceCore() = default;
    DeviceCore(const DeviceCore&) = delete;
    DeviceCore& operator=(const DeviceCore&) = delete;
    ~DeviceCore();
};

struct Context::Impl {
    ContextOptions options;
    std::shared_ptr<DeviceCore> core;
    // Copies of core's handles and tables, for brevity: they never change once the device is made.
    InstanceTable vki;
    DeviceTable vk;
    VkInstance instance = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    const VkAllocationCallbacks* allocator = nullptr;
    bool validation_on = false;

    VkPhysicalDevice physical = VK_NULL_HANDLE;
    DeviceInfo info;
    VkPhysicalDeviceMemoryProperties memory{};
    uint32_t queue_family = 0;
    VkQueue queue = VK_NULL_HANDLE;
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    uint64_t allocations_at_begin = 0; // DeviceCore::failed_allocations when cmd began recording
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VkPipelineLayout pipeline_layout = VK_NULL_HANDLE;
    VkDescriptorPool descriptor_pool = VK_NULL_HANDLE;
    std::map<const ModuleInfo*, VkShaderModule> shader_modules;
    // (module, shape x y z, packed, items, staged, kernel constant): Impl::pipeline's arguments
    using PipelineKey = std::tuple<const ModuleInfo*, uint32_t, uint32_t, uint32_t, bool, uint32_t, bool, uint32_t>;
    std::map<PipelineKey, VkPipeline> pipelines;
    VkQueryPool timestamps = VK_NULL_HANDLE; // two queries around each repetition while timing is on
    bool timing = false;
    uint32_t timing_repeats = 1;
    double last_gpu_ms = 0;
    double timestamp_period_ns = 0; // 0: the queue has no timestamps
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, bool> packed_shapes;
    bool statistics = false; // VKC_PIPELINE_STATS=1 and the driver can tell
    bool memory_budget = false; // VK_EXT_memory_budget enabled on a device of ours
    Buffer scratch; // device-wide scan and reduce on the Context's own buffers

    bool adopted = false; // the device and instance are the engine's (ContextOptions::adopt)
    VkPipelineCache pipeline_cache = VK_NULL_HANDLE;
    bool own_pipeline_cache = false; // created here (not ContextOptions::pipeline_cache)

    void create(const ContextOptions& opts);
    void create_device();
    void adopt_device(const AdoptedDevice& a);
    void set_up_device_objects();
    void create_pipeline_cache();
    void save_pipeline_cache() const;
    // Throws Error unless the Buffer was made by this Context.
    void check_buffer(const Buffer& b, const char* role) const;
    void destroy();
    uint32_t memory_type(uint32_t allowed, VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid = 0) const;
    Buffer make_buffer(uint64_t bytes, VkMemoryPropertyFlags preferred, VkMemoryPropertyFlags fallback);
    // Throws Error where `bytes` more of the memory type's heap would pass its budget.
    void check_budget(uint32_t type, uint64_t bytes) const;
    void begin();
    void submit_and_wait();
    void timed(const std::function<void()>& record);
    void finish_timed();
    void report_statistics(VkPipeline p, const std::string& what);
    // kernel_constant: specialization constant 8 (module_spec_kernel), whose use is the kernel's: the
    // device-scan path, or the block flags; modules that declare none ignore it.
    VkPipeline pipeline(const ModuleInfo& m, const WorkgroupShape& shape, bool packed, uint32_t items, bool staged,
                        uint32_t kernel_constant = 0);
};

} // namespace vkc
