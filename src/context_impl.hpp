// The Context's insides, shared by the runtime's sources: device/ (instance, device, memory),
// pipeline/, submit/, collectives/ and device_scan. Not installed.
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

// Throws Error naming `what` where [offset, offset + bytes) does not lie within the Buffer.
void check_range(const Buffer& b, uint64_t bytes, uint64_t offset, const char* what);

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

struct DeviceState {
    ContextOptions options; // a Device's DeviceCreateInfo is kept here too (adopt, allocator, cache)
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
    // The subgroup layout: what plans may use (SubgroupLayout's sizes), and every shape a Context has
    // probed for its own dispatches (which plans of a Context may use too).
    SubgroupLayout layout;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, bool> packed_shapes;
    // A Context's: a queue, its command buffer and fence, a descriptor pool for dispatches. A Device
    // made from DeviceCreateInfo has none of them and never submits.
    bool has_queue = false;
    bool statistics = false; // VKC_PIPELINE_STATS=1 and the driver can tell
    bool memory_budget = false; // VK_EXT_memory_budget enabled on a device of ours
    Buffer scratch; // device-wide scan and reduce on the Context's own buffers

    bool adopted = false; // the device and instance are the engine's (ContextOptions::adopt)
    // The Vulkan version the device is used at: the lower of the instance's and the device's; 0 where
    // unknown (an adopted device: its instance's version is the engine's).
    uint32_t api_version = 0;
    VkPipelineCache pipeline_cache = VK_NULL_HANDLE;
    bool own_pipeline_cache = false; // created here (not ContextOptions::pipeline_cache)

    void create(const ContextOptions& opts);     // a Context's
    void create(const DeviceCreateInfo& create); // the engine door's
    void create_device();
    // origin: what the caller passed the handles in, for the errors ("DeviceCreateInfo: ").
    void adopt_device(const AdoptedDevice& a, const char* origin);
    void set_up_device_objects();
    void set_up_submission();
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
    // What the public Context and Device forward to (their comments say what each does).
    const ModuleInfo& select_module(Collective, Type, Op, Path preferred) const;
    // The Context's answer for any shape, probed on its queue the first time it is asked.
    bool subgroups_packed(const WorkgroupShape& shape);
    // Plans' answer: whether 1D work-groups of `size` are known to be packed (never probes).
    bool known_packed(uint32_t size) const;
    // One submission to `queue` that probes every shape; waits for it.
    std::vector<bool> probe_shapes(const std::vector<WorkgroupShape>& shapes, VkQueue queue, uint32_t family);
    // probe_shapes for the 1D powers of 2 up to the device's limit, into `layout`.
    SubgroupLayout probe_layout(VkQueue queue, uint32_t family);
    ScanTile scan_tile(Type, const ScanOptions&, uint64_t count) const;
    uint64_t scan_scratch_bytes(Type, uint64_t count, const ScanOptions&) const;
    uint64_t reduce_scratch_bytes(Type, uint64_t count, const ScanOptions&) const;
    // Both, with `what` (the caller's call) naming the errors.
    uint64_t scratch_bytes_for(bool reduce, Type, uint64_t count, const ScanOptions&, const char* what) const;
    ScanPlan plan_scan(Type, Op, uint64_t count, const BufferRange& input, const BufferRange& output,
                       const BufferRange& scratch, const ScanOptions&);
    ScanPlan plan_reduce(Type, Op, uint64_t count, const BufferRange& input, const BufferRange& result,
                         const BufferRange& scratch, const ScanOptions&);
    std::vector<uint8_t> pipeline_cache_data() const;
    // Whether float add and mul modules of this bit width are created with DenormPreserve.
    bool keeps_denormals(uint32_t width) const;
    // kernel_constant: specialization constant 8 (module_spec_kernel), whose use is the kernel's: the
    // device-scan path, or the block flags; modules that declare none ignore it.
    VkPipeline pipeline(const ModuleInfo& m, const WorkgroupShape& shape, bool packed, uint32_t items, bool staged,
                        uint32_t kernel_constant = 0);

    // One dispatch of a work-group or block module on the Context's command buffer.
    struct Dispatch {
        const ModuleInfo* module;
        WorkgroupShape shape;
        bool packed;                // subgroups packed in local-index order at this shape
        uint32_t items;             // items per invocation (block modules)
        bool staged;                // block modules: tiles go through shared memory
        const void* push_constants; // module_push_constant_bytes
        const Buffer* input;
        Buffer* output;
        Buffer* record; // binding 2, or null
        uint64_t bytes, record_bytes;
        uint32_t grid_x, grid_y;
        uint32_t kernel_constant = 0; // block modules: their flags (module_spec_kernel)
    };
    void dispatch(const Dispatch&);
    // Throws Error where the shape is empty or past the device's work-group limits.
    void check_shape(const WorkgroupShape&) const;
    // Checks a request's count, buffers and shape against the module and the device; returns the
    // bytes of items.
    uint64_t check_module_use(const ModuleInfo&, const WorkgroupShape&, uint64_t count, const Buffer& input,
                              const Buffer& output) const;
    // A grid of `groups` work-groups within maxComputeWorkGroupCount (x, then y).
    void grid_for(uint64_t groups, uint32_t& x, uint32_t& y) const;

    // Device-wide scan and reduce (src/device_scan/). One builder for both; carry_in/carry_slot: a
    // running total comes in from an earlier plan on the same scratch (streamed host arrays);
    // indirect: the count is read on the device, count is its bound.
    ScanPlan make_plan(bool reduce, Type, Op, uint64_t count, const BufferRange& in, const BufferRange& out,
                       const BufferRange& scratch, const ScanOptions&, bool carry_in, uint32_t carry_slot,
                       const IndirectCount* indirect = nullptr);
    void run_plan(const ScanPlan&);
    void check_buffers(const char* what, const Buffer& input, uint64_t input_bytes, const Buffer& output,
                       uint64_t output_bytes) const;
};

} // namespace vkc
