// The instance and the physical devices: creating the instance (validation on request), listing
// and describing devices, choosing one, and the feature chain a device is created with.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "device/device_core.hpp"
#include "device/instance.hpp"
#include "environment.hpp"

namespace vkc {

namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    return s;
}

bool has_extension(const std::vector<VkExtensionProperties>& list, const char* name) {
    return std::any_of(list.begin(), list.end(),
                       [&](const VkExtensionProperties& e) { return std::strcmp(e.extensionName, name) == 0; });
}

std::vector<VkExtensionProperties> device_extensions(const InstanceTable& vki, VkPhysicalDevice pd) {
    uint32_t n = 0;
    vki.vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, nullptr);
    std::vector<VkExtensionProperties> list(n);
    vki.vkEnumerateDeviceExtensionProperties(pd, nullptr, &n, list.data());
    return list;
}

} // namespace

DeviceFeatureChain::DeviceFeatureChain(const InstanceTable& vki, VkPhysicalDevice pd, uint32_t api_version) {
    auto exts = device_extensions(vki, pd);
    bool v12 = api_version >= VK_API_VERSION_1_2;
    core.pNext = &storage16;
    void** tail = &storage16.pNext;
    if (v12 || has_extension(exts, VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME)) {
        *tail = &float16;
        tail = &float16.pNext;
        if (!v12) extensions.push_back(VK_KHR_SHADER_FLOAT16_INT8_EXTENSION_NAME);
    }
    if (v12 || has_extension(exts, VK_KHR_SHADER_SUBGROUP_EXTENDED_TYPES_EXTENSION_NAME)) {
        *tail = &extended;
        tail = &extended.pNext;
        if (!v12) extensions.push_back(VK_KHR_SHADER_SUBGROUP_EXTENDED_TYPES_EXTENSION_NAME);
    }
    if (v12 || has_extension(exts, VK_KHR_8BIT_STORAGE_EXTENSION_NAME)) {
        *tail = &storage8;
        tail = &storage8.pNext;
        if (!v12) extensions.push_back(VK_KHR_8BIT_STORAGE_EXTENSION_NAME);
    }
    // Buffers are checked against the heap's budget where the device can tell it.
    if (has_extension(exts, VK_EXT_MEMORY_BUDGET_EXTENSION_NAME)) {
        extensions.push_back(VK_EXT_MEMORY_BUDGET_EXTENSION_NAME);
        memory_budget = true;
    }
    if (environment::pipeline_stats() && has_extension(exts, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME)) {
        *tail = &executable_info;
        tail = &executable_info.pNext;
        extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    }
    vki.vkGetPhysicalDeviceFeatures2(pd, &core);
}

DeviceInfo describe(const InstanceTable& vki, VkPhysicalDevice pd, uint32_t index) {
    DeviceInfo info;
    info.index = index;
    auto exts = device_extensions(vki, pd);
    VkPhysicalDeviceProperties base{};
    vki.vkGetPhysicalDeviceProperties(pd, &base);
    bool v12 = base.apiVersion >= VK_API_VERSION_1_2;
    bool v13 = base.apiVersion >= VK_API_VERSION_1_3;

    VkPhysicalDeviceProperties2 props{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2};
    VkPhysicalDeviceSubgroupProperties subgroup{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_PROPERTIES};
    VkPhysicalDeviceSubgroupSizeControlProperties size_control{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SUBGROUP_SIZE_CONTROL_PROPERTIES};
    VkPhysicalDeviceDriverProperties driver{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES};
    props.pNext = &subgroup;
    void** tail = &subgroup.pNext;
    bool has_size_control = v13 || has_extension(exts, VK_EXT_SUBGROUP_SIZE_CONTROL_EXTENSION_NAME);
    if (has_size_control) {
        *tail = &size_control;
        tail = &size_control.pNext;
    }
    bool has_driver = v12 || has_extension(exts, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME);
    if (has_driver) {
        *tail = &driver;
        tail = &driver.pNext;
    }
    VkPhysicalDeviceMaintenance3Properties maintenance3{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES};
    *tail = &maintenance3; // core in Vulkan 1.1
    tail = &maintenance3.pNext;
    VkPhysicalDeviceFloatControlsProperties float_controls{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES};
    bool has_float_controls = v12 || has_extension(exts, VK_KHR_SHADER_FLOAT_CONTROLS_EXTENSION_NAME);
    if (has_float_controls) {
        *tail = &float_controls;
        tail = &float_controls.pNext;
    }
    // The multiprocessor count, from whichever vendor extension reports it.
    VkPhysicalDeviceShaderSMBuiltinsPropertiesNV nv_sms{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
    VkPhysicalDeviceShaderCorePropertiesAMD amd_cores{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_AMD};
    VkPhysicalDeviceShaderCoreProperties2AMD amd_cores2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_PROPERTIES_2_AMD};
    VkPhysicalDeviceShaderCoreBuiltinsPropertiesARM arm_cores{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CORE_BUILTINS_PROPERTIES_ARM};
    auto chain_if = [&](bool present, auto& s) {
        if (!present) return false;
        *tail = &s;
        tail = &s.pNext;
        return true;
    };
    bool has_nv_sms = chain_if(has_extension(exts, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME), nv_sms);
    bool has_amd_cores = chain_if(has_extension(exts, VK_AMD_SHADER_CORE_PROPERTIES_EXTENSION_NAME), amd_cores);
    bool has_amd_cores2 = chain_if(has_extension(exts, VK_AMD_SHADER_CORE_PROPERTIES_2_EXTENSION_NAME), amd_cores2);
    bool has_arm_cores = chain_if(has_extension(exts, VK_ARM_SHADER_CORE_BUILTINS_EXTENSION_NAME), arm_cores);
    vki.vkGetPhysicalDeviceProperties2(pd, &props);

    info.compute_units = has_nv_sms       ? nv_sms.shaderSMCount
                         : has_amd_cores2 ? amd_cores2.activeComputeUnitCount
                         : has_amd_cores  ? amd_cores.shaderEngineCount * amd_cores.shaderArraysPerEngineCount *
                                               amd_cores.computeUnitsPerShaderArray
                         : has_arm_cores  ? arm_cores.shaderCoreCount
                                          : 0;
    info.name = base.deviceName;
    info.driver = has_driver ? std::string(driver.driverName) + " " + driver.driverInfo : "unknown driver";
    info.type = DeviceType(base.deviceType);
    info.api_version = base.apiVersion;
    info.subgroup_size = subgroup.subgroupSize;
    info.min_subgroup_size = has_size_control ? size_control.minSubgroupSize : subgroup.subgroupSize;
    info.max_subgroup_size = has_size_control ? size_control.maxSubgroupSize : subgroup.subgroupSize;
    info.max_workgroup_invocations = base.limits.maxComputeWorkGroupInvocations;
    for (int i = 0; i < 3; ++i) {
        info.max_workgroup_size[i] = base.limits.maxComputeWorkGroupSize[i];
        info.max_workgroup_count[i] = base.limits.maxComputeWorkGroupCount[i];
    }
    info.max_shared_memory = base.limits.maxComputeSharedMemorySize;
    info.max_memory_allocation_size = maintenance3.maxMemoryAllocationSize;
    info.float_controls_known = has_float_controls;
    info.denorm_preserve[0] = float_controls.shaderDenormPreserveFloat16;
    info.denorm_preserve[1] = float_controls.shaderDenormPreserveFloat32;
    info.denorm_preserve[2] = float_controls.shaderDenormPreserveFloat64;
    info.denorm_flush[0] = float_controls.shaderDenormFlushToZeroFloat16;
    info.denorm_flush[1] = float_controls.shaderDenormFlushToZeroFloat32;
    info.denorm_flush[2] = float_controls.shaderDenormFlushToZeroFloat64;
    info.max_storage_buffer_range = base.limits.maxStorageBufferRange;
    info.min_storage_buffer_offset_alignment = base.limits.minStorageBufferOffsetAlignment;

    Feature f = Feature::none;
    if (subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) {
        if (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BASIC_BIT) f = f | Feature::subgroup_basic;
        if (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_VOTE_BIT) f = f | Feature::subgroup_vote;
        if (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_ARITHMETIC_BIT) f = f | Feature::subgroup_arithmetic;
        if (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_BIT) f = f | Feature::subgroup_shuffle;
        if (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_BALLOT_BIT) f = f | Feature::subgroup_ballot;
        if (subgroup.supportedOperations & VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT) {
            f = f | Feature::subgroup_shuffle_relative;
        }
    }
    DeviceFeatureChain chain(vki, pd, base.apiVersion);
    if (chain.extended.shaderSubgroupExtendedTypes) f = f | Feature::subgroup_extended_types;
    if (chain.float16.shaderFloat16) f = f | Feature::shader_float16;
    if (chain.storage16.storageBuffer16BitAccess) f = f | Feature::storage_buffer_16bit;
    if (chain.core.features.shaderInt64) f = f | Feature::shader_int64;
    if (chain.core.features.shaderFloat64) f = f | Feature::shader_float64;
    if (chain.core.features.shaderInt16) f = f | Feature::shader_int16;
    if (chain.float16.shaderInt8) f = f | Feature::shader_int8;
    if (chain.storage8.storageBuffer8BitAccess) f = f | Feature::storage_buffer_8bit;
    info.features = f;
    return info;
}

// What an adopted device's creation chain enabled (AdoptedDevice::enabled_features).
Feature enabled_features_of(const VkPhysicalDeviceFeatures2* chain) {
    Feature f = Feature::none;
    if (!chain) return f;
    if (chain->sType != VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2) {
        throw Error("ContextOptions::adopt: enabled_features is not a VkPhysicalDeviceFeatures2 (sType " +
                    std::to_string(chain->sType) + ")");
    }
    auto add = [&](VkBool32 on, Feature bit) { f = on ? f | bit : f; };
    add(chain->features.shaderInt64, Feature::shader_int64);
    add(chain->features.shaderFloat64, Feature::shader_float64);
    add(chain->features.shaderInt16, Feature::shader_int16);
    for (auto* s = static_cast<const VkBaseInStructure*>(chain->pNext); s; s = s->pNext) {
        switch (s->sType) {
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES:
            add(reinterpret_cast<const VkPhysicalDeviceVulkan11Features*>(s)->storageBuffer16BitAccess,
                Feature::storage_buffer_16bit);
            break;
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES: {
            auto* v = reinterpret_cast<const VkPhysicalDeviceVulkan12Features*>(s);
            add(v->shaderFloat16, Feature::shader_float16);
            add(v->shaderInt8, Feature::shader_int8);
            add(v->storageBuffer8BitAccess, Feature::storage_buffer_8bit);
            add(v->shaderSubgroupExtendedTypes, Feature::subgroup_extended_types);
            break;
        }
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES:
            add(reinterpret_cast<const VkPhysicalDevice16BitStorageFeatures*>(s)->storageBuffer16BitAccess,
                Feature::storage_buffer_16bit);
            break;
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES:
            add(reinterpret_cast<const VkPhysicalDevice8BitStorageFeatures*>(s)->storageBuffer8BitAccess,
                Feature::storage_buffer_8bit);
            break;
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES: {
            auto* v = reinterpret_cast<const VkPhysicalDeviceShaderFloat16Int8Features*>(s);
            add(v->shaderFloat16, Feature::shader_float16);
            add(v->shaderInt8, Feature::shader_int8);
            break;
        }
        case VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SUBGROUP_EXTENDED_TYPES_FEATURES:
            add(reinterpret_cast<const VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures*>(s)
                    ->shaderSubgroupExtendedTypes,
                Feature::subgroup_extended_types);
            break;
        default: break;
        }
    }
    return f;
}

uint32_t instance_api_version(const InstanceTable& vki) {
    uint32_t loader_version = VK_API_VERSION_1_0;
    if (vki.vkEnumerateInstanceVersion) vki.vkEnumerateInstanceVersion(&loader_version);
    return std::min(loader_version, uint32_t(VK_API_VERSION_1_3));
}

VkInstance create_instance(const InstanceTable& vki, bool want_validation, bool& validation_on,
                           const VkAllocationCallbacks* allocator) {
    if (instance_api_version(vki) < VK_API_VERSION_1_1) {
        throw UnsupportedError("the Vulkan loader offers only Vulkan 1.0; vkcollectives needs 1.1");
    }
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "vkcollectives";
    app.apiVersion = instance_api_version(vki);

    std::vector<const char*> layers, extensions;
    validation_on = false;
    if (want_validation) {
        uint32_t n = 0;
        vki.vkEnumerateInstanceLayerProperties(&n, nullptr);
        std::vector<VkLayerProperties> available(n);
        vki.vkEnumerateInstanceLayerProperties(&n, available.data());
        for (auto& l : available) {
            if (std::strcmp(l.layerName, "VK_LAYER_KHRONOS_validation") == 0) validation_on = true;
        }
        if (validation_on) {
            layers.push_back("VK_LAYER_KHRONOS_validation");
            extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
        }
    }
    // Validation includes synchronization validation (hazards between the Context's own commands and
    // uploads), where the layer offers VK_EXT_validation_features.
    VkValidationFeatureEnableEXT sync = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
    VkValidationFeaturesEXT features{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
    features.enabledValidationFeatureCount = 1;
    features.pEnabledValidationFeatures = &sync;
    bool with_sync = false;
    if (validation_on) {
        uint32_t n = 0;
        vki.vkEnumerateInstanceExtensionProperties("VK_LAYER_KHRONOS_validation", &n, nullptr);
        std::vector<VkExtensionProperties> layer_extensions(n);
        vki.vkEnumerateInstanceExtensionProperties("VK_LAYER_KHRONOS_validation", &n, layer_extensions.data());
        with_sync = has_extension(layer_extensions, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
        if (with_sync) extensions.push_back(VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME);
    }
    VkInstanceCreateInfo info{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
    if (with_sync) info.pNext = &features;
    info.pApplicationInfo = &app;
    info.enabledLayerCount = uint32_t(layers.size());
    info.ppEnabledLayerNames = layers.data();
    info.enabledExtensionCount = uint32_t(extensions.size());
    info.ppEnabledExtensionNames = extensions.data();
    VkInstance instance = VK_NULL_HANDLE;
    check(vki.vkCreateInstance(&info, allocator, &instance), "vkCreateInstance");
    return instance;
}

std::vector<VkPhysicalDevice> physical_devices(const InstanceTable& vki, VkInstance instance) {
    uint32_t n = 0;
    check(vki.vkEnumeratePhysicalDevices(instance, &n, nullptr), "vkEnumeratePhysicalDevices");
    std::vector<VkPhysicalDevice> list(n);
    check(vki.vkEnumeratePhysicalDevices(instance, &n, list.data()), "vkEnumeratePhysicalDevices");
    return list;
}

std::vector<VkQueueFamilyProperties> queue_families(const InstanceTable& vki, VkPhysicalDevice pd) {
    uint32_t n = 0;
    vki.vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
    std::vector<VkQueueFamilyProperties> families(n);
    vki.vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, families.data());
    return families;
}

void require_vulkan_1_1(const DeviceInfo& info) {
    if (info.api_version < VK_API_VERSION_1_1) {
        throw UnsupportedError(info.name + " offers only Vulkan 1.0; vkcollectives needs 1.1");
    }
}

namespace {
int type_rank(DeviceType t) {
    switch (t) {
    case DeviceType::discrete_gpu: return 0;
    case DeviceType::integrated_gpu: return 1;
    case DeviceType::virtual_gpu: return 2;
    case DeviceType::cpu: return 3;
    default: return 4;
    }
}
} // namespace

uint32_t choose_device(const std::vector<DeviceInfo>& devices, std::string choice) {
    if (devices.empty()) throw Error("no Vulkan device found (for a CPU device: apt-get install mesa-vulkan-drivers)");
    std::string source = "ContextOptions::device";
    if (choice.empty()) {
        if (std::string asked = environment::device(); !asked.empty()) {
            choice = asked;
            source = "VKC_DEVICE";
        }
    }
    if (choice.empty()) {
        auto best = std::min_element(devices.begin(), devices.end(), [](const DeviceInfo& a, const DeviceInfo& b) {
            return type_rank(a.type) < type_rank(b.type);
        });
        return best->index;
    }
    bool numeric = std::all_of(choice.begin(), choice.end(), [](unsigned char c) { return std::isdigit(c); });
    if (numeric) {
        unsigned long i = std::stoul(choice);
        if (i < devices.size()) return uint32_t(i);
    } else {
        for (auto& d : devices) {
            if (lower(d.name).find(lower(choice)) != std::string::npos) return d.index;
        }
    }
    std::string list;
    for (auto& d : devices) list += "\n  " + std::to_string(d.index) + ": " + d.name;
    throw Error(source + "=\"" + choice + "\" matches no device; the devices are:" + list);
}

std::string DeviceInfo::type_name() const {
    switch (type) {
    case DeviceType::discrete_gpu: return "discrete GPU";
    case DeviceType::integrated_gpu: return "integrated GPU";
    case DeviceType::virtual_gpu: return "virtual GPU";
    case DeviceType::cpu: return "CPU";
    default: return "other";
    }
}

std::vector<DeviceInfo> list_devices() {
    DeviceCore core;
    core.vki.load_global(core.loader.open());
    bool validation = false;
    core.instance = create_instance(core.vki, false, validation, nullptr);
    core.vki.load_instance(core.instance);
    std::vector<DeviceInfo> out;
    auto list = physical_devices(core.vki, core.instance);
    for (uint32_t i = 0; i < list.size(); ++i) out.push_back(describe(core.vki, list[i], i));
    return out;
}

VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                                     VkDebugUtilsMessageTypeFlagsEXT,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
    auto* core = static_cast<DeviceCore*>(user);
    std::lock_guard<std::mutex> lock(core->validation_mutex);
    ++core->validation_count;
    core->validation_last = data && data->pMessage ? data->pMessage : "(no message)";
    return VK_FALSE;
}

} // namespace vkc
