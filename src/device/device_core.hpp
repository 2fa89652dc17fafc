// DeviceCore: the Vulkan instance and device a Device or Context works on, with their function
// tables, the allocation callbacks every object is created with, and the validation messages seen on
// the instance. Buffers and plans hold it too. Not installed.
#pragma once

#include <atomic>
#include <cstdint>
#include <mutex>
#include <string>

#include "device/vulkan_api.hpp"
#include "vkc/types.hpp"

namespace vkc {

inline void check(VkResult result, const char* what) {
    if (result != VK_SUCCESS) {
        throw Error(std::string(what) + " failed with " + result_name(result) + " (VkResult " +
                    std::to_string(int(result)) + ")");
    }
}

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

} // namespace vkc
