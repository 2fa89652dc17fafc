// The Vulkan types vkcollectives' public headers name, declared without <vulkan/vulkan_core.h>.
//
// The first inclusion of vulkan_core.h in a translation unit decides whether Vulkan's prototypes
// exist there: volk needs them absent (VK_NO_PROTOTYPES), an engine that links the loader needs them
// present. Declaring only the handles, exactly as vulkan_core.h does, leaves that choice to the
// engine: <vkc/vkc.hpp> may come before or after <volk.h> or <vulkan/vulkan.h>.
#pragma once

#include <cstdint>

#include <vulkan/vk_platform.h>

#ifndef VULKAN_CORE_H_
static_assert(sizeof(void*) == 8, "vkcollectives declares Vulkan's non-dispatchable handles as 64-bit pointers");
typedef struct VkInstance_T* VkInstance;
typedef struct VkPhysicalDevice_T* VkPhysicalDevice;
typedef struct VkDevice_T* VkDevice;
typedef struct VkQueue_T* VkQueue;
typedef struct VkCommandBuffer_T* VkCommandBuffer;
typedef struct VkBuffer_T* VkBuffer;
typedef struct VkDeviceMemory_T* VkDeviceMemory;
typedef struct VkPipelineCache_T* VkPipelineCache;
typedef uint64_t VkDeviceSize;
struct VkPhysicalDeviceFeatures2;
struct VkAllocationCallbacks;
typedef void(VKAPI_PTR* PFN_vkVoidFunction)(void);
typedef PFN_vkVoidFunction(VKAPI_PTR* PFN_vkGetInstanceProcAddr)(VkInstance instance, const char* pName);
#endif
