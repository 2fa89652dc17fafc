// DeviceCore: the instance and device a Context, its Buffers and plans share, and the allocation
// callbacks every object is created with.
#include <cstdlib>

#include "device/device_core.hpp"

namespace vkc {

namespace {
VKAPI_ATTR void* VKAPI_CALL counted_allocation(void* user, size_t size, size_t alignment,
                                               VkSystemAllocationScope scope) {
    auto* core = static_cast<DeviceCore*>(user);
    void* p = core->caller_allocator.pfnAllocation(core->caller_allocator.pUserData, size, alignment, scope);
    if (!p) ++core->failed_allocations;
    return p;
}
VKAPI_ATTR void* VKAPI_CALL counted_reallocation(void* user, void* original, size_t size, size_t alignment,
                                                 VkSystemAllocationScope scope) {
    auto* core = static_cast<DeviceCore*>(user);
    void* p = core->caller_allocator.pfnReallocation(core->caller_allocator.pUserData, original, size, alignment,
                                                     scope);
    if (!p && size) ++core->failed_allocations;
    return p;
}
VKAPI_ATTR void VKAPI_CALL counted_free(void* user, void* memory) {
    auto* core = static_cast<DeviceCore*>(user);
    core->caller_allocator.pfnFree(core->caller_allocator.pUserData, memory);
}
VKAPI_ATTR void VKAPI_CALL counted_internal_allocation(void* user, size_t size, VkInternalAllocationType type,
                                                       VkSystemAllocationScope scope) {
    auto* core = static_cast<DeviceCore*>(user);
    if (core->caller_allocator.pfnInternalAllocation) {
        core->caller_allocator.pfnInternalAllocation(core->caller_allocator.pUserData, size, type, scope);
    }
}
VKAPI_ATTR void VKAPI_CALL counted_internal_free(void* user, size_t size, VkInternalAllocationType type,
                                                 VkSystemAllocationScope scope) {
    auto* core = static_cast<DeviceCore*>(user);
    if (core->caller_allocator.pfnInternalFree) {
        core->caller_allocator.pfnInternalFree(core->caller_allocator.pUserData, size, type, scope);
    }
}
} // namespace

void DeviceCore::use_allocator(const VkAllocationCallbacks& callbacks) {
    if (!callbacks.pfnAllocation || !callbacks.pfnReallocation || !callbacks.pfnFree) {
        throw Error("ContextOptions::allocator: pfnAllocation, pfnReallocation and pfnFree must all be set");
    }
    caller_allocator = callbacks;
    counting_allocator.pUserData = this;
    counting_allocator.pfnAllocation = counted_allocation;
    counting_allocator.pfnReallocation = counted_reallocation;
    counting_allocator.pfnFree = counted_free;
    counting_allocator.pfnInternalAllocation = callbacks.pfnInternalAllocation ? counted_internal_allocation : nullptr;
    counting_allocator.pfnInternalFree = callbacks.pfnInternalFree ? counted_internal_free : nullptr;
    allocator = &counting_allocator;
}

void DeviceCore::check_allocations(uint64_t before, const char* what) const {
    if (failed_allocations != before) {
        throw Error(std::string(what) +
                    " failed with VK_ERROR_OUT_OF_HOST_MEMORY: an allocation through "
                    "ContextOptions::allocator failed while recording, and the driver did not report it");
    }
}

DeviceCore::~DeviceCore() {
    if (adopted) return;
    if (device) vk.vkDestroyDevice(device, allocator);
    if (messenger) vki.vkDestroyDebugUtilsMessengerEXT(instance, messenger, allocator);
    if (instance) vki.vkDestroyInstance(instance, allocator);
}

} // namespace vkc
