// The instance and physical-device side of the runtime (device/instance.cpp), used where a Context
// makes or adopts its device. Not installed.
#pragma once

#include <string>
#include <vector>

#include "device/vulkan_api.hpp"
#include "vkc/context.hpp"

namespace vkc {

// Feature structs queried and then enabled as they are: what the device has of them, we use.
struct DeviceFeatureChain {
    VkPhysicalDeviceFeatures2 core{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    VkPhysicalDevice16BitStorageFeatures storage16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
    VkPhysicalDeviceShaderFloat16Int8Features float16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
    VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures extended{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SUBGROUP_EXTENDED_TYPES_FEATURES};
    VkPhysicalDevice8BitStorageFeatures storage8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
    // Only with VKC_PIPELINE_STATS=1 (a diagnostic for kernel work, see Pipelines::report_statistics).
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable_info{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    std::vector<const char*> extensions; // device extensions these structs need on a Vulkan 1.1 device
    bool memory_budget = false;          // VK_EXT_memory_budget is among them

    // Builds the chain from what the device knows about, so no struct it cannot parse is passed.
    DeviceFeatureChain(const InstanceTable& vki, VkPhysicalDevice pd, uint32_t api_version);
    DeviceFeatureChain(const DeviceFeatureChain&) = delete;
};

// The features a device's creation may enable or leave off; the subgroup operations are properties.
constexpr Feature optional_device_features = Feature::subgroup_extended_types | Feature::shader_float16 |
                                             Feature::storage_buffer_16bit | Feature::shader_int64 |
                                             Feature::shader_float64 | Feature::shader_int8 | Feature::shader_int16 |
                                             Feature::storage_buffer_8bit;

DeviceInfo describe(const InstanceTable& vki, VkPhysicalDevice pd, uint32_t index);
// The vkc::Feature set a device was created with, from its enabled-features chain.
Feature enabled_features_of(const VkPhysicalDeviceFeatures2* chain);
// The Vulkan version the library's own instances ask for: the loader's, up to 1.3.
uint32_t instance_api_version(const InstanceTable& vki);
// A Vulkan 1.1 instance; validation_on tells whether the validation layer could be enabled.
VkInstance create_instance(const InstanceTable& vki, bool want_validation, bool& validation_on,
                           const VkAllocationCallbacks* allocator);
std::vector<VkPhysicalDevice> physical_devices(const InstanceTable& vki, VkInstance instance);
std::vector<VkQueueFamilyProperties> queue_families(const InstanceTable& vki, VkPhysicalDevice pd);
// Throws UnsupportedError naming the device where it offers less than Vulkan 1.1.
void require_vulkan_1_1(const DeviceInfo& info);
// The index of the device `choice` names (an index or part of a name; empty: the best GPU).
uint32_t choose_device(const std::vector<DeviceInfo>& devices, std::string choice);
// Counts validation messages on the DeviceCore passed as user data.
VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                                     VkDebugUtilsMessageTypeFlagsEXT,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* data, void* user);

} // namespace vkc
