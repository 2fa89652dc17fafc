// The Vulkan entry points the runtime calls, in tables each Context owns. The library defines no
// global Vulkan symbol and never loads into one: an engine's own loader setup (the loader's exports,
// its volk, a loader of its own) stays untouched, and Contexts of different options or threads never
// share a function pointer.
#pragma once

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan_core.h>

namespace vkc {

// Loader-level functions: vkGetInstanceProcAddr(VK_NULL_HANDLE, name).
#define VKC_GLOBAL_FUNCTIONS(X)                                                                                        \
    X(vkCreateInstance)                                                                                                \
    X(vkEnumerateInstanceLayerProperties)                                                                              \
    X(vkEnumerateInstanceExtensionProperties)

// Instance-level functions, vkEnumerateInstanceVersion included (null on a Vulkan 1.0 loader).
#define VKC_INSTANCE_FUNCTIONS(X)                                                                                      \
    X(vkDestroyInstance)                                                                                               \
    X(vkEnumeratePhysicalDevices)                                                                                      \
    X(vkEnumerateDeviceExtensionProperties)                                                                            \
    X(vkGetPhysicalDeviceProperties)                                                                                   \
    X(vkGetPhysicalDeviceProperties2)                                                                                  \
    X(vkGetPhysicalDeviceFeatures2)                                                                                    \
    X(vkGetPhysicalDeviceMemoryProperties)                                                                             \
    X(vkGetPhysicalDeviceMemoryProperties2)                                                                            \
    X(vkGetPhysicalDeviceQueueFamilyProperties)                                                                        \
    X(vkCreateDevice)                                                                                                  \
    X(vkGetDeviceProcAddr)

// Instance-level extension functions: null where the instance does not enable the extension.
#define VKC_INSTANCE_EXTENSION_FUNCTIONS(X)                                                                            \
    X(vkCreateDebugUtilsMessengerEXT)                                                                                  \
    X(vkDestroyDebugUtilsMessengerEXT)

#define VKC_DEVICE_FUNCTIONS(X)                                                                                        \
    X(vkDestroyDevice)                                                                                                 \
    X(vkGetDeviceQueue)                                                                                                \
    X(vkDeviceWaitIdle)                                                                                                \
    X(vkQueueSubmit)                                                                                                   \
    X(vkCreateBuffer)                                                                                                  \
    X(vkDestroyBuffer)                                                                                                 \
    X(vkGetBufferMemoryRequirements)                                                                                   \
    X(vkAllocateMemory)                                                                                                \
    X(vkFreeMemory)                                                                                                    \
    X(vkBindBufferMemory)                                                                                              \
    X(vkMapMemory)                                                                                                     \
    X(vkCreateCommandPool)                                                                                             \
    X(vkDestroyCommandPool)                                                                                            \
    X(vkAllocateCommandBuffers)                                                                                        \
    X(vkResetCommandBuffer)                                                                                            \
    X(vkBeginCommandBuffer)                                                                                            \
    X(vkEndCommandBuffer)                                                                                              \
    X(vkCreateFence)                                                                                                   \
    X(vkDestroyFence)                                                                                                  \
    X(vkResetFences)                                                                                                   \
    X(vkWaitForFences)                                                                                                 \
    X(vkCreateDescriptorSetLayout)                                                                                     \
    X(vkDestroyDescriptorSetLayout)                                                                                    \
    X(vkCreatePipelineLayout)                                                                                          \
    X(vkDestroyPipelineLayout)                                                                                         \
    X(vkCreateDescriptorPool)                                                                                          \
    X(vkDestroyDescriptorPool)                                                                                         \
    X(vkResetDescriptorPool)                                                                                           \
    X(vkAllocateDescriptorSets)                                                                                        \
    X(vkUpdateDescriptorSets)                                                                                          \
    X(vkCreateShaderModule)                                                                                            \
    X(vkDestroyShaderModule)                                                                                           \
    X(vkCreatePipelineCache)                                                                                           \
    X(vkDestroyPipelineCache)                                                                                          \
    X(vkGetPipelineCacheData)                                                                                          \
    X(vkMergePipelineCaches)                                                                                           \
    X(vkCreateComputePipelines)                                                                                        \
    X(vkDestroyPipeline)                                                                                               \
    X(vkCreateQueryPool)                                                                                               \
    X(vkDestroyQueryPool)                                                                                              \
    X(vkGetQueryPoolResults)                                                                                           \
    X(vkCmdBindPipeline)                                                                                               \
    X(vkCmdBindDescriptorSets)                                                                                         \
    X(vkCmdPushConstants)                                                                                              \
    X(vkCmdDispatch)                                                                                                   \
    X(vkCmdDispatchIndirect)                                                                                           \
    X(vkCmdPipelineBarrier)                                                                                            \
    X(vkCmdCopyBuffer)                                                                                                 \
    X(vkCmdFillBuffer)                                                                                                 \
    X(vkCmdUpdateBuffer)                                                                                               \
    X(vkCmdResetQueryPool)                                                                                             \
    X(vkCmdWriteTimestamp)

// Device-level extension functions: null where the device does not enable the extension.
#define VKC_DEVICE_EXTENSION_FUNCTIONS(X)                                                                              \
    X(vkGetPipelineExecutablePropertiesKHR)                                                                            \
    X(vkGetPipelineExecutableStatisticsKHR)

#define VKC_DECLARE_FUNCTION(name) PFN_##name name = nullptr;

struct InstanceTable {
    PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
    PFN_vkEnumerateInstanceVersion vkEnumerateInstanceVersion = nullptr;
    VKC_GLOBAL_FUNCTIONS(VKC_DECLARE_FUNCTION)
    VKC_INSTANCE_FUNCTIONS(VKC_DECLARE_FUNCTION)
    VKC_INSTANCE_EXTENSION_FUNCTIONS(VKC_DECLARE_FUNCTION)

    // The loader-level functions; throws Error where one is missing.
    void load_global(PFN_vkGetInstanceProcAddr get_instance_proc_addr);
    // The instance's functions; throws Error where a core one is missing.
    void load_instance(VkInstance instance);
};

struct DeviceTable {
    VKC_DEVICE_FUNCTIONS(VKC_DECLARE_FUNCTION)
    VKC_DEVICE_EXTENSION_FUNCTIONS(VKC_DECLARE_FUNCTION)

    // Throws Error where a core function is missing.
    void load(PFN_vkGetDeviceProcAddr get_device_proc_addr, VkDevice device);
};

#undef VKC_DECLARE_FUNCTION

// The VkResult's name, for error messages.
const char* result_name(VkResult result);

// The system's Vulkan loader (libvulkan.so.1), opened for one Context and closed with it.
class LoaderLibrary {
public:
    LoaderLibrary() = default;
    LoaderLibrary(const LoaderLibrary&) = delete;
    LoaderLibrary& operator=(const LoaderLibrary&) = delete;
    ~LoaderLibrary();
    // Opens the loader; throws Error naming the package to install where there is none.
    PFN_vkGetInstanceProcAddr open();

private:
    void* handle_ = nullptr;
};

} // namespace vkc
