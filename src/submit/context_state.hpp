// The Context's own state beside its Device (include/vkc/context.hpp): the queue it submits to, its one
// command buffer, fence and descriptor pool, timestamps, and the scratch of its device-wide scans.
// Submission and timing are src/submit/submit.cpp's; dispatch is src/collectives/workgroup.cpp's.
// Not installed.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "device/vulkan_api.hpp"
#include "vkc/context.hpp"

namespace vkc {

struct DeviceCore;
struct DeviceState;
struct DeviceQueue;

struct ContextState {
    // On the device of `dev`, which outlives it (the Context's Device); create() makes its objects.
    ContextState(DeviceState& dev, const DeviceQueue& queue);
    // Waits for the device (unless adopted), then destroys what create() made.
    ~ContextState();
    ContextState(const ContextState&) = delete;
    ContextState& operator=(const ContextState&) = delete;

    DeviceState& dev;
    std::shared_ptr<DeviceCore> core; // held until the Context's own objects are destroyed
    // core's table and handles, for brevity.
    const DeviceTable& vk;
    VkDevice device;
    const VkAllocationCallbacks* allocator;

    uint32_t queue_family = 0;
    VkQueue queue = VK_NULL_HANDLE;
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkFence fence = VK_NULL_HANDLE;
    VkDescriptorPool descriptor_pool = VK_NULL_HANDLE; // the one set of a dispatch
    // DeviceCore::failed_allocations when cmd began recording.
    uint64_t allocations_at_begin = 0;
    // Two queries around each repetition while timing is on.
    VkQueryPool timestamps = VK_NULL_HANDLE;
    bool timing = false;
    uint32_t timing_repeats = 1;
    double last_gpu_ms = 0;
    double timestamp_period_ns = 0; // 0: the queue has no timestamps
    // The scratch of device-wide scans and reduces on the Context's own buffers.
    Buffer scratch;

    // The command pool and buffer, fence and descriptor pool on the queue's family.
    void create();
    void begin();
    void submit_and_wait();
    // Records `record` between timestamps while timing is on (timing_repeats times).
    void timed(const std::function<void()>& record);
    void finish_timed();

    // The Context's answer for any shape, probed on its queue the first time it is asked.
    bool subgroups_packed(const WorkgroupShape& shape);

    // One dispatch of a work-group or block module on the Context's command buffer, waited for.
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
    // A plan of the Context's device on its command buffer, waited for.
    void run_plan(const ScanPlan&);
    // What `record` records (a sort or select plan), timed, then the copies (source, destination
    // ranges of equal size) after it, and a barrier that makes everything visible to later
    // submissions and the host; waited for.
    void run_recorded(const std::function<void(VkCommandBuffer)>& record,
                      const std::vector<std::pair<BufferRange, BufferRange>>& copies);
};

} // namespace vkc
