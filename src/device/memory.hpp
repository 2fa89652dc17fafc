// The device's memory: its memory types and heap budget, and the Buffers made from them
// (src/device/memory.cpp). Not installed.
#pragma once

#include <cstdint>
#include <memory>

#include "device/vulkan_api.hpp"
#include "vkc/context.hpp"

namespace vkc {

struct DeviceCore;

// Throws Error naming `what` where [offset, offset + bytes) does not lie within the Buffer.
void check_range(const Buffer& b, uint64_t bytes, uint64_t offset, const char* what);

struct DeviceMemory {
    std::shared_ptr<DeviceCore> core; // the device Buffers are made on; each holds it too
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkPhysicalDeviceMemoryProperties properties{};
    uint64_t max_allocation_size = 0; // DeviceInfo::max_memory_allocation_size (0: not reported)
    bool budget = false;              // VK_EXT_memory_budget enabled on a device of ours

    // Reads the memory types and heaps of `physical`.
    void set_up(std::shared_ptr<DeviceCore> device, VkPhysicalDevice physical_device, uint64_t max_allocation);
    uint32_t memory_type(uint32_t allowed, VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid = 0) const;
    Buffer make_buffer(uint64_t bytes, VkMemoryPropertyFlags preferred, VkMemoryPropertyFlags fallback) const;
    // Throws Error where `bytes` more of the memory type's heap would pass its budget.
    void check_budget(uint32_t type, uint64_t bytes) const;
    // Throws Error unless the Buffer was made on this device (by this Context).
    void check_buffer(const Buffer& b, const char* role) const;
    // A Buffer's memory as the host sees it, where make_buffer mapped it (host-visible and coherent).
    static void* mapped(const Buffer& b) { return b.mapped_; }
};

} // namespace vkc
