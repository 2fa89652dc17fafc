// Submission and timing: the Context's queue, its one command buffer, fence and descriptor pool, and
// timestamp queries.
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "device/device_core.hpp"
#include "device/device_state.hpp"
#include "device/instance.hpp"
#include "submit/context_state.hpp"

namespace vkc {

ContextState::ContextState(DeviceState& device_state, const DeviceQueue& q)
    : dev(device_state), core(device_state.core), vk(core->vk), device(core->device), allocator(core->allocator),
      queue_family(q.family), queue(q.queue) {}

// The command buffer and fence on the queue's family, the descriptor pool of the Context's dispatches,
// and the timestamps' period.
void ContextState::create() {
    VkPhysicalDeviceProperties base{};
    dev.vki.vkGetPhysicalDeviceProperties(dev.physical, &base);
    timestamp_period_ns = queue_families(dev.vki, dev.physical)[queue_family].timestampValidBits
                              ? base.limits.timestampPeriod
                              : 0;
    VkCommandPoolCreateInfo p{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    p.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
    p.queueFamilyIndex = queue_family;
    check(vk.vkCreateCommandPool(device, &p, allocator, &pool), "vkCreateCommandPool");
    VkCommandBufferAllocateInfo a{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    a.commandPool = pool;
    a.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    a.commandBufferCount = 1;
    check(vk.vkAllocateCommandBuffers(device, &a, &cmd), "vkAllocateCommandBuffers");
    VkFenceCreateInfo f{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    check(vk.vkCreateFence(device, &f, allocator, &fence), "vkCreateFence");
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, module_max_bindings};
    VkDescriptorPoolCreateInfo dp{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dp.maxSets = 1;
    dp.poolSizeCount = 1;
    dp.pPoolSizes = &size;
    check(vk.vkCreateDescriptorPool(device, &dp, allocator, &descriptor_pool), "vkCreateDescriptorPool");
}

ContextState::~ContextState() {
    // An adopted device is not waited on as a whole: its other queues are the engine's (and
    // vkDeviceWaitIdle would need them all externally synchronised). The Context's own submissions
    // were each waited for; the caller's command buffers are the caller's to finish.
    if (!core->adopted) vk.vkDeviceWaitIdle(device);
    scratch = Buffer();
    vk.vkDestroyDescriptorPool(device, descriptor_pool, allocator);
    if (timestamps) vk.vkDestroyQueryPool(device, timestamps, allocator);
    vk.vkDestroyFence(device, fence, allocator);
    vk.vkDestroyCommandPool(device, pool, allocator);
}

void ContextState::begin() {
    allocations_at_begin = core->failed_allocations;
    check(vk.vkResetCommandBuffer(cmd, 0), "vkResetCommandBuffer");
    VkCommandBufferBeginInfo b{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    b.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vk.vkBeginCommandBuffer(cmd, &b), "vkBeginCommandBuffer");
}

void ContextState::submit_and_wait() {
    check(vk.vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
    core->check_allocations(allocations_at_begin, "recording the Context's commands");
    VkSubmitInfo s{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    s.commandBufferCount = 1;
    s.pCommandBuffers = &cmd;
    check(vk.vkResetFences(device, 1, &fence), "vkResetFences");
    check(vk.vkQueueSubmit(queue, 1, &s, fence), "vkQueueSubmit");
    constexpr uint64_t timeout_ns = 300ull * 1000 * 1000 * 1000;
    VkResult r = vk.vkWaitForFences(device, 1, &fence, VK_TRUE, timeout_ns);
    if (r == VK_TIMEOUT) throw Error("the device did not finish the work within 300 s");
    check(r, "vkWaitForFences");
}

void ContextState::timed(const std::function<void()>& record) {
    if (!timing) return record();
    vk.vkCmdResetQueryPool(cmd, timestamps, 0, 2 * timing_repeats);
    for (uint32_t r = 0; r < timing_repeats; ++r) {
        if (r > 0) { // the repetition before has finished with the buffers this one uses
            VkMemoryBarrier between{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
            between.srcAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                                    VK_ACCESS_TRANSFER_WRITE_BIT;
            between.dstAccessMask = between.srcAccessMask;
            VkPipelineStageFlags stages = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
            vk.vkCmdPipelineBarrier(cmd, stages, stages, 0, 1, &between, 0, nullptr, 0, nullptr);
        }
        vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, timestamps, 2 * r);
        record();
        vk.vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, timestamps, 2 * r + 1);
    }
}

// Ends the command buffer's compute work: shader writes made visible to copies and the host, submit,
// wait, and the median GPU time of the timed repetitions.
void ContextState::finish_timed() {
    VkMemoryBarrier after{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    after.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    after.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_HOST_READ_BIT;
    vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                            VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &after, 0, nullptr, 0,
                            nullptr);
    submit_and_wait();
    if (timing) {
        std::vector<uint64_t> ticks(2 * timing_repeats);
        check(vk.vkGetQueryPoolResults(device, timestamps, 0, 2 * timing_repeats, ticks.size() * sizeof(uint64_t),
                                       ticks.data(), sizeof(uint64_t),
                                       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
              "vkGetQueryPoolResults");
        std::vector<double> ms(timing_repeats);
        for (uint32_t r = 0; r < timing_repeats; ++r) {
            ms[r] = double(ticks[2 * r + 1] - ticks[2 * r]) * timestamp_period_ns * 1e-6;
        }
        std::sort(ms.begin(), ms.end());
        last_gpu_ms = ms[ms.size() / 2];
    }
}

namespace {
void record_barrier(const DeviceTable& vk, VkCommandBuffer cmd, VkPipelineStageFlags from, VkAccessFlags from_access,
                    VkPipelineStageFlags to, VkAccessFlags to_access) {
    VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    b.srcAccessMask = from_access;
    b.dstAccessMask = to_access;
    vk.vkCmdPipelineBarrier(cmd, from, to, 0, 1, &b, 0, nullptr, 0, nullptr);
}
} // namespace

void ContextState::run_recorded(const std::function<void(VkCommandBuffer)>& record,
                                const std::vector<std::pair<BufferRange, BufferRange>>& copies) {
    begin();
    constexpr VkPipelineStageFlags compute_and_transfer =
        VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT;
    record_barrier(vk, cmd, compute_and_transfer, VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT,
                   compute_and_transfer,
                   VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
    timed([&] { record(cmd); });
    if (!copies.empty()) {
        record_barrier(vk, cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT,
                       VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT);
        for (const auto& [from, to] : copies) {
            VkBufferCopy region{from.offset, to.offset, from.size};
            vk.vkCmdCopyBuffer(cmd, from.buffer, to.buffer, 1, &region);
        }
        record_barrier(vk, cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                       compute_and_transfer | VK_PIPELINE_STAGE_HOST_BIT,
                       VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_HOST_READ_BIT);
    }
    finish_timed();
}

void Context::set_timing(bool on, uint32_t repeats) {
    if (repeats < 1 || repeats > 1024)
        throw Error("set_timing: repeats " + std::to_string(repeats) + " is outside 1 to 1024");
    ContextState& c = *state_;
    if (on && (!c.timestamps || c.timing_repeats != repeats)) {
        if (c.timestamp_period_ns == 0) throw UnsupportedError(info().name + " has no compute timestamps");
        if (c.timestamps) c.vk.vkDestroyQueryPool(c.device, c.timestamps, c.allocator);
        c.timestamps = VK_NULL_HANDLE;
        VkQueryPoolCreateInfo q{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        q.queryType = VK_QUERY_TYPE_TIMESTAMP;
        q.queryCount = 2 * repeats;
        check(c.vk.vkCreateQueryPool(c.device, &q, c.allocator, &c.timestamps), "vkCreateQueryPool");
        c.timing_repeats = repeats;
    }
    c.timing = on;
}

double Context::last_gpu_ms() const { return state_->last_gpu_ms; }

} // namespace vkc
