// Submission and timing: the Context's one command buffer, its fence, and timestamp queries.
#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "context_impl.hpp"

namespace vkc {

void DeviceState::begin() {
    allocations_at_begin = core->failed_allocations;
    check(vk.vkResetCommandBuffer(cmd, 0), "vkResetCommandBuffer");
    VkCommandBufferBeginInfo b{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    b.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vk.vkBeginCommandBuffer(cmd, &b), "vkBeginCommandBuffer");
}

void DeviceState::submit_and_wait() {
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

void DeviceState::timed(const std::function<void()>& record) {
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
void DeviceState::finish_timed() {
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

void Context::set_timing(bool on, uint32_t repeats) {
    if (repeats < 1 || repeats > 1024)
        throw Error("set_timing: repeats " + std::to_string(repeats) + " is outside 1 to 1024");
    if (on && (!impl()->timestamps || impl()->timing_repeats != repeats)) {
        if (impl()->timestamp_period_ns == 0) throw UnsupportedError(impl()->info.name + " has no compute timestamps");
        if (impl()->timestamps) impl()->vk.vkDestroyQueryPool(impl()->device, impl()->timestamps, impl()->allocator);
        impl()->timestamps = VK_NULL_HANDLE;
        VkQueryPoolCreateInfo q{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        q.queryType = VK_QUERY_TYPE_TIMESTAMP;
        q.queryCount = 2 * repeats;
        check(impl()->vk.vkCreateQueryPool(impl()->device, &q, impl()->allocator, &impl()->timestamps),
              "vkCreateQueryPool");
        impl()->timing_repeats = repeats;
    }
    impl()->timing = on;
}

double Context::last_gpu_ms() const { return impl()->last_gpu_ms; }

} // namespace vkc
