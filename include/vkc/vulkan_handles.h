/* The Vulkan types vkcollectives' public headers name (C and C++), declared without
 * <vulkan/vulkan_core.h>.
 *
 * The first inclusion of vulkan_core.h in a translation unit decides whether Vulkan's prototypes
 * exist there: volk needs them absent (VK_NO_PROTOTYPES), an engine that links the loader needs them
 * present. Declaring only the handles, exactly as vulkan_core.h does, leaves that choice to the
 * engine: <vkc/vkc.hpp> and <vkc/vkc.h> may come before or after <volk.h> or <vulkan/vulkan.h>
 * (in C99, which has no repeated typedefs, after). */
#ifndef VKC_VULKAN_HANDLES_H_
#define VKC_VULKAN_HANDLES_H_

#include <stdint.h>

#include <vulkan/vk_platform.h>

#ifndef VULKAN_CORE_H_
/* Non-dispatchable handles are pointers only where pointers have 64 bits. */
typedef char vkc_requires_64bit_pointers[sizeof(void*) == 8 ? 1 : -1];
typedef struct VkInstance_T* VkInstance;
typedef struct VkPhysicalDevice_T* VkPhysicalDevice;
typedef struct VkDevice_T* VkDevice;
typedef struct VkQueue_T* VkQueue;
typedef struct VkCommandBuffer_T* VkCommandBuffer;
typedef struct VkBuffer_T* VkBuffer;
typedef struct VkDeviceMemory_T* VkDeviceMemory;
typedef struct VkPipelineCache_T* VkPipelineCache;
typedef uint64_t VkDeviceSize;
typedef void(VKAPI_PTR* PFN_vkVoidFunction)(void);
typedef PFN_vkVoidFunction(VKAPI_PTR* PFN_vkGetInstanceProcAddr)(VkInstance instance, const char* pName);
#endif
struct VkPhysicalDeviceFeatures2;
struct VkAllocationCallbacks;

#endif /* VKC_VULKAN_HANDLES_H_ */
