// The host runtime: instance and device creation, buffers, pipelines and dispatch.
// Every Vulkan call goes through the tables of the Context's DeviceCore (device/vulkan_api.hpp).
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <tuple>
#include <utility>

#include "context_impl.hpp"
#include "vkc/contract.h"

namespace vkc {
namespace {

bool env_flag(const char* name) {
    const char* v = std::getenv(name);
    return v && *v && std::strcmp(v, "0") != 0;
}

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

bool pipeline_statistics_asked() {
    const char* v = std::getenv("VKC_PIPELINE_STATS");
    return v && std::strcmp(v, "0") != 0;
}

// Feature structs queried and then enabled as they are: what the device has of them, we use.
struct DeviceFeatureChain {
    VkPhysicalDeviceFeatures2 core{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    VkPhysicalDevice16BitStorageFeatures storage16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES};
    VkPhysicalDeviceShaderFloat16Int8Features float16{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES};
    VkPhysicalDeviceShaderSubgroupExtendedTypesFeatures extended{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SUBGROUP_EXTENDED_TYPES_FEATURES};
    VkPhysicalDevice8BitStorageFeatures storage8{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES};
    // Only with VKC_PIPELINE_STATS=1 (a diagnostic for kernel work, see Impl::report_statistics).
    VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR executable_info{
        VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR};
    std::vector<const char*> extensions; // device extensions these structs need on a Vulkan 1.1 device
    bool memory_budget = false;          // VK_EXT_memory_budget is among them

    // Builds the chain from what the device knows about, so no struct it cannot parse is passed.
    DeviceFeatureChain(const InstanceTable& vki, VkPhysicalDevice pd, uint32_t api_version) {
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
        if (pipeline_statistics_asked() && has_extension(exts, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME)) {
            *tail = &executable_info;
            tail = &executable_info.pNext;
            extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
        }
        vki.vkGetPhysicalDeviceFeatures2(pd, &core);
    }
    DeviceFeatureChain(const DeviceFeatureChain&) = delete;
};

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
    vki.vkGetPhysicalDeviceProperties2(pd, &props);

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

// The features a device's creation may enable or leave off; the subgroup operations are properties.
constexpr Feature optional_device_features = Feature::subgroup_extended_types | Feature::shader_float16 |
                                             Feature::storage_buffer_16bit | Feature::shader_int64 |
                                             Feature::shader_float64 | Feature::shader_int8 | Feature::shader_int16 |
                                             Feature::storage_buffer_8bit;

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

VkInstance create_instance(const InstanceTable& vki, bool want_validation, bool& validation_on,
                           const VkAllocationCallbacks* allocator) {
    uint32_t loader_version = VK_API_VERSION_1_0;
    if (vki.vkEnumerateInstanceVersion) vki.vkEnumerateInstanceVersion(&loader_version);
    if (loader_version < VK_API_VERSION_1_1) {
        throw UnsupportedError("the Vulkan loader offers only Vulkan 1.0; vkcollectives needs 1.1");
    }
    VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
    app.pApplicationName = "vkcollectives";
    app.apiVersion = std::min(loader_version, uint32_t(VK_API_VERSION_1_3));

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

int type_rank(DeviceType t) {
    switch (t) {
    case DeviceType::discrete_gpu: return 0;
    case DeviceType::integrated_gpu: return 1;
    case DeviceType::virtual_gpu: return 2;
    case DeviceType::cpu: return 3;
    default: return 4;
    }
}

uint32_t choose_device(const std::vector<DeviceInfo>& devices, std::string choice) {
    if (devices.empty()) throw Error("no Vulkan device found (for a CPU device: apt-get install mesa-vulkan-drivers)");
    std::string source = "ContextOptions::device";
    if (choice.empty()) {
        const char* env = std::getenv("VKC_DEVICE");
        if (env && *env) {
            choice = env;
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

VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                                     VkDebugUtilsMessageTypeFlagsEXT,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* data, void* user);

} // namespace

uint64_t BroadcastSource::linear(const WorkgroupShape& s) const {
    switch (dims) {
    case 1: return id[0];
    case 2: return id[0] + uint64_t(id[1]) * s.x;
    default: return id[0] + uint64_t(s.x) * (id[1] + uint64_t(id[2]) * s.y);
    }
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
    void* p = core->caller_allocator.pfnReallocation(core->caller_allocator.pUserData, original, size, alignment, scope);
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
        throw Error(std::string(what) + " failed with VK_ERROR_OUT_OF_HOST_MEMORY: an allocation through "
                    "ContextOptions::allocator failed while recording, and the driver did not report it");
    }
}

DeviceCore::~DeviceCore() {
    if (adopted) return;
    if (device) vk.vkDestroyDevice(device, allocator);
    if (messenger) vki.vkDestroyDebugUtilsMessengerEXT(instance, messenger, allocator);
    if (instance) vki.vkDestroyInstance(instance, allocator);
}

namespace {
VKAPI_ATTR VkBool32 VKAPI_CALL on_validation_message(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                                     VkDebugUtilsMessageTypeFlagsEXT,
                                                     const VkDebugUtilsMessengerCallbackDataEXT* data, void* user) {
    auto* core = static_cast<DeviceCore*>(user);
    std::lock_guard<std::mutex> lock(core->validation_mutex);
    ++core->validation_count;
    core->validation_last = data && data->pMessage ? data->pMessage : "(no message)";
    return VK_FALSE;
}
} // namespace

void Context::Impl::create(const ContextOptions& opts) {
    options = opts;
    options.validation = opts.validation || env_flag("VKC_VALIDATION");
    options.shared_memory_only = opts.shared_memory_only || env_flag("VKC_SHARED_MEMORY_ONLY");
    core = std::make_shared<DeviceCore>();
    if (opts.allocator) core->use_allocator(*opts.allocator);
    allocator = core->allocator;
    if (opts.adopt.device) {
        adopt_device(opts.adopt);
    } else {
        create_device();
    }
    info.features = info.features & ~options.hide_features;
    set_up_device_objects();
}

void Context::Impl::adopt_device(const AdoptedDevice& a) {
    auto require = [](bool ok, const char* what) {
        if (!ok) throw Error(std::string("ContextOptions::adopt: ") + what);
    };
    require(a.instance, "instance is VK_NULL_HANDLE");
    require(a.physical_device, "physical_device is VK_NULL_HANDLE");
    require(a.device, "device is VK_NULL_HANDLE");
    require(a.queue, "queue is VK_NULL_HANDLE");
    Feature enabled = enabled_features_of(a.enabled_features);
    core->adopted = adopted = true;
    core->vki.load_global(a.get_instance_proc_addr ? a.get_instance_proc_addr : core->loader.open());
    core->vki.load_instance(a.instance);
    vki = core->vki;
    core->instance = instance = a.instance;
    physical = a.physical_device;
    auto list = physical_devices(vki, instance);
    auto found = std::find(list.begin(), list.end(), physical);
    require(found != list.end(), "physical_device is not one of the instance's devices");
    info = describe(vki, physical, uint32_t(found - list.begin()));
    require_vulkan_1_1(info);
    info.features = (info.features & ~optional_device_features) | (info.features & enabled);
    auto families = queue_families(vki, physical);
    require(a.queue_family < families.size(), "queue_family is not one of the device's queue families");
    require(families[a.queue_family].queueFlags & VK_QUEUE_COMPUTE_BIT, "queue_family has no compute");
    queue_family = a.queue_family;
    core->device = device = a.device;
    queue = a.queue;
    core->vk.load(vki.vkGetDeviceProcAddr, device);
    vk = core->vk;
}

void Context::Impl::create_device() {
    core->vki.load_global(core->loader.open());
    core->instance = instance = create_instance(core->vki, options.validation, validation_on, allocator);
    core->vki.load_instance(instance);
    vki = core->vki;
    if (validation_on) {
        VkDebugUtilsMessengerCreateInfoEXT m{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
        m.messageSeverity =
            VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
        m.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                        VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
        m.pfnUserCallback = on_validation_message;
        m.pUserData = core.get();
        check(vki.vkCreateDebugUtilsMessengerEXT(instance, &m, allocator, &core->messenger),
              "vkCreateDebugUtilsMessengerEXT");
    }

    auto list = physical_devices(vki, instance);
    std::vector<DeviceInfo> infos;
    for (uint32_t i = 0; i < list.size(); ++i) infos.push_back(describe(vki, list[i], i));
    uint32_t chosen = choose_device(infos, options.device);
    physical = list[chosen];
    info = infos[chosen];
    require_vulkan_1_1(info);

    auto families = queue_families(vki, physical);
    bool found = false;
    for (uint32_t i = 0; i < families.size() && !found; ++i) {
        if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
            queue_family = i;
            found = true;
        }
    }
    if (!found) throw UnsupportedError(info.name + " has no compute queue");

    // Enable exactly the optional features we may use, where the device has them.
    DeviceFeatureChain chain(vki, physical, info.api_version);
    VkPhysicalDeviceFeatures enabled{};
    enabled.shaderInt64 = chain.core.features.shaderInt64;
    enabled.shaderFloat64 = chain.core.features.shaderFloat64;
    enabled.shaderInt16 = chain.core.features.shaderInt16;
    chain.core.features = enabled;
    chain.storage8 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_8BIT_STORAGE_FEATURES, chain.storage8.pNext,
                      chain.storage8.storageBuffer8BitAccess};
    chain.storage16 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_16BIT_STORAGE_FEATURES, chain.storage16.pNext,
                       chain.storage16.storageBuffer16BitAccess};
    chain.float16 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_FLOAT16_INT8_FEATURES, chain.float16.pNext,
                     chain.float16.shaderFloat16, chain.float16.shaderInt8};
    statistics = chain.executable_info.pipelineExecutableInfo == VK_TRUE;
    memory_budget = chain.memory_budget;

    float priority = 1.0f;
    VkDeviceQueueCreateInfo q{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    q.queueFamilyIndex = queue_family;
    q.queueCount = 1;
    q.pQueuePriorities = &priority;
    VkDeviceCreateInfo d{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
    d.pNext = &chain.core;
    d.queueCreateInfoCount = 1;
    d.pQueueCreateInfos = &q;
    d.enabledExtensionCount = uint32_t(chain.extensions.size());
    d.ppEnabledExtensionNames = chain.extensions.data();
    check(vki.vkCreateDevice(physical, &d, allocator, &device), "vkCreateDevice");
    core->device = device;
    core->vk.load(vki.vkGetDeviceProcAddr, device);
    vk = core->vk;
    vk.vkGetDeviceQueue(device, queue_family, 0, &queue);
}

// The Context's own objects on its device, created or adopted.
void Context::Impl::set_up_device_objects() {
    vki.vkGetPhysicalDeviceMemoryProperties(physical, &memory);
    VkPhysicalDeviceProperties base{};
    vki.vkGetPhysicalDeviceProperties(physical, &base);
    timestamp_period_ns = queue_families(vki, physical)[queue_family].timestampValidBits ? base.limits.timestampPeriod : 0;

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

    // One layout serves every module (see include/vkc/modules.hpp).
    VkDescriptorSetLayoutBinding bindings[3] = {};
    for (uint32_t i = 0; i < 3; ++i) {
        bindings[i].binding = i;
        bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        bindings[i].descriptorCount = 1;
        bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo sl{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    sl.bindingCount = 3;
    sl.pBindings = bindings;
    check(vk.vkCreateDescriptorSetLayout(device, &sl, allocator, &set_layout), "vkCreateDescriptorSetLayout");
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, module_push_constant_bytes};
    VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pl.setLayoutCount = 1;
    pl.pSetLayouts = &set_layout;
    pl.pushConstantRangeCount = 1;
    pl.pPushConstantRanges = &range;
    check(vk.vkCreatePipelineLayout(device, &pl, allocator, &pipeline_layout), "vkCreatePipelineLayout");
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 3};
    VkDescriptorPoolCreateInfo dp{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dp.maxSets = 1;
    dp.poolSizeCount = 1;
    dp.pPoolSizes = &size;
    check(vk.vkCreateDescriptorPool(device, &dp, allocator, &descriptor_pool), "vkCreateDescriptorPool");
    create_pipeline_cache();
}

void Context::Impl::destroy() {
    if (device) {
        // An adopted device is not waited on as a whole: its other queues are the engine's (and
        // vkDeviceWaitIdle would need them all externally synchronised). The Context's own
        // submissions were each waited for; the caller's command buffers are the caller's to finish.
        if (!adopted) vk.vkDeviceWaitIdle(device);
        scratch = Buffer();
        for (auto& [key, p] : pipelines) vk.vkDestroyPipeline(device, p, allocator);
        for (auto& [key, m] : shader_modules) vk.vkDestroyShaderModule(device, m, allocator);
        vk.vkDestroyDescriptorPool(device, descriptor_pool, allocator);
        if (timestamps) vk.vkDestroyQueryPool(device, timestamps, allocator);
        vk.vkDestroyPipelineLayout(device, pipeline_layout, allocator);
        vk.vkDestroyDescriptorSetLayout(device, set_layout, allocator);
        vk.vkDestroyFence(device, fence, allocator);
        vk.vkDestroyCommandPool(device, pool, allocator);
        if (pipeline_cache && own_pipeline_cache) {
            save_pipeline_cache();
            vk.vkDestroyPipelineCache(device, pipeline_cache, allocator);
        }
    }
    if (core) core->context_alive = false;
    core.reset(); // the device goes with the last Buffer or plan that holds it
}

uint32_t Context::Impl::memory_type(uint32_t allowed, VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid) const {
    for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
        VkMemoryPropertyFlags flags = memory.memoryTypes[i].propertyFlags;
        if ((allowed & (1u << i)) && (flags & want) == want && !(flags & avoid)) return i;
    }
    return UINT32_MAX;
}

Buffer Context::Impl::make_buffer(uint64_t bytes, VkMemoryPropertyFlags preferred, VkMemoryPropertyFlags fallback) {
    if (bytes == 0) throw Error("buffer size 0: a buffer needs at least one byte");
    if (info.max_memory_allocation_size && bytes > info.max_memory_allocation_size) {
        throw Error("a buffer of " + std::to_string(bytes) + " bytes exceeds the device limit maxMemoryAllocationSize = " +
                    std::to_string(info.max_memory_allocation_size));
    }
    Buffer b;
    b.owner_ = core;
    b.size_ = bytes;
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = bytes;
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                 VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    check(vk.vkCreateBuffer(device, &info, allocator, &b.buffer_), "vkCreateBuffer");
    VkMemoryRequirements req;
    vk.vkGetBufferMemoryRequirements(device, b.buffer_, &req);
    uint32_t type = memory_type(req.memoryTypeBits, preferred);
    if (type == UINT32_MAX) type = memory_type(req.memoryTypeBits, fallback);
    if (type == UINT32_MAX) throw Error("no memory type fits a buffer of " + std::to_string(bytes) + " bytes");
    check_budget(type, req.size);
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = type;
    VkResult r = vk.vkAllocateMemory(device, &alloc, allocator, &b.memory_);
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY) {
        throw Error("vkAllocateMemory failed: out of device memory for a buffer of " + std::to_string(bytes) + " bytes");
    }
    check(r, "vkAllocateMemory");
    check(vk.vkBindBufferMemory(device, b.buffer_, b.memory_, 0), "vkBindBufferMemory");
    VkMemoryPropertyFlags flags = memory.memoryTypes[type].propertyFlags;
    const VkMemoryPropertyFlags mappable = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if ((flags & mappable) == mappable) {
        check(vk.vkMapMemory(device, b.memory_, 0, VK_WHOLE_SIZE, 0, &b.mapped_), "vkMapMemory");
    }
    return b;
}

void Context::Impl::check_budget(uint32_t type, uint64_t bytes) const {
    if (!memory_budget) return;
    VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
    VkPhysicalDeviceMemoryProperties2 properties{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2};
    properties.pNext = &budget;
    vki.vkGetPhysicalDeviceMemoryProperties2(physical, &properties);
    uint32_t heap = memory.memoryTypes[type].heapIndex;
    uint64_t total = budget.heapBudget[heap], used = std::min(budget.heapUsage[heap], total);
    if (total && bytes > total - used) {
        throw Error("a buffer of " + std::to_string(bytes) + " bytes exceeds the memory budget of heap " +
                    std::to_string(heap) + ": " + std::to_string(total - used) + " of " + std::to_string(total) +
                    " bytes are free (VK_EXT_memory_budget)");
    }
}

void Context::Impl::begin() {
    allocations_at_begin = core->failed_allocations;
    check(vk.vkResetCommandBuffer(cmd, 0), "vkResetCommandBuffer");
    VkCommandBufferBeginInfo b{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    b.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    check(vk.vkBeginCommandBuffer(cmd, &b), "vkBeginCommandBuffer");
}

void Context::Impl::submit_and_wait() {
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

VkPipeline Context::Impl::pipeline(const ModuleInfo& m, const WorkgroupShape& shape, bool packed, uint32_t items,
                                   bool staged, uint32_t kernel_constant) {
    auto key = std::make_tuple(&m, shape.x, shape.y, shape.z, packed, items, staged, kernel_constant);
    auto it = pipelines.find(key);
    if (it != pipelines.end()) return it->second;
    VkShaderModule& module = shader_modules[&m];
    if (!module) {
        VkShaderModuleCreateInfo info{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
        info.codeSize = m.code_bytes;
        info.pCode = m.code;
        // For kernel experiments: VKC_SPIRV_OVERRIDE=<module name>=<file.spv> runs that file instead.
        std::vector<uint32_t> replacement;
        if (const char* o = std::getenv("VKC_SPIRV_OVERRIDE")) {
            std::string spec = o;
            std::string prefix = std::string(m.name) + "=";
            if (spec.rfind(prefix, 0) == 0) {
                std::FILE* f = std::fopen(spec.c_str() + prefix.size(), "rb");
                if (!f) throw Error("VKC_SPIRV_OVERRIDE: cannot open " + spec.substr(prefix.size()));
                uint32_t word;
                while (std::fread(&word, 4, 1, f) == 1) replacement.push_back(word);
                std::fclose(f);
                info.codeSize = replacement.size() * 4;
                info.pCode = replacement.data();
            }
        }
        check(vk.vkCreateShaderModule(device, &info, allocator, &module), "vkCreateShaderModule");
    }
    uint32_t stage_items = staged ? uint32_t(shape.size() * items) : 1u;
    const uint32_t values[9] = {shape.x,      shape.y,
                                shape.z,      packed ? VK_TRUE : VK_FALSE,
                                items,        staged ? VK_TRUE : VK_FALSE,
                                uint32_t(shape.size()), stage_items,
                                kernel_constant};
    VkSpecializationMapEntry entries[9];
    for (uint32_t i = 0; i < 3; ++i) {
        entries[i] = {VKC_SPEC_WORKGROUP_SIZE_X + i, uint32_t(i * sizeof(uint32_t)), sizeof(uint32_t)};
    }
    entries[3] = {VKC_SPEC_SUBGROUPS_PACKED, 3 * sizeof(uint32_t), sizeof(VkBool32)};
    entries[4] = {VKC_SPEC_ITEMS_PER_INVOCATION, 4 * sizeof(uint32_t), sizeof(uint32_t)};
    entries[5] = {VKC_SPEC_STAGED, 5 * sizeof(uint32_t), sizeof(VkBool32)};
    entries[6] = {VKC_SPEC_SCRATCH_CAPACITY, 6 * sizeof(uint32_t), sizeof(uint32_t)};
    entries[7] = {VKC_SPEC_STAGE_ITEMS, 7 * sizeof(uint32_t), sizeof(uint32_t)};
    entries[8] = {VKC_SPEC_KERNEL, 8 * sizeof(uint32_t), sizeof(uint32_t)};
    VkSpecializationInfo spec{9, entries, sizeof(values), values};
    VkComputePipelineCreateInfo info{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    info.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    info.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    info.stage.module = module;
    info.stage.pName = "main";
    info.stage.pSpecializationInfo = &spec;
    info.layout = pipeline_layout;
    if (statistics) info.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR;
    VkPipeline p = VK_NULL_HANDLE;
    check(vk.vkCreateComputePipelines(device, pipeline_cache, 1, &info, allocator, &p), "vkCreateComputePipelines");
    if (statistics) {
        report_statistics(p, std::string(m.name) + " " + shape.text() + " x" + std::to_string(items) +
                                 (staged ? " staged" : "") +
                                 (kernel_constant ? " constant 8 = " + std::to_string(kernel_constant) : ""));
    }
    pipelines[key] = p;
    return p;
}

// VKC_PIPELINE_STATS=1: what the driver says of each pipeline it compiled (registers, shared memory,
// spills on NVIDIA), on stderr. Occupancy is what limits latency-bound kernels such as the look-back
// scan, and no other tool sees it for Vulkan compute.
void Context::Impl::report_statistics(VkPipeline p, const std::string& what) {
    VkPipelineInfoKHR pipeline_info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
    pipeline_info.pipeline = p;
    uint32_t executables = 0;
    if (vk.vkGetPipelineExecutablePropertiesKHR(device, &pipeline_info, &executables, nullptr) != VK_SUCCESS) return;
    for (uint32_t e = 0; e < executables; ++e) {
        VkPipelineExecutableInfoKHR exec{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
        exec.pipeline = p;
        exec.executableIndex = e;
        uint32_t n = 0;
        vk.vkGetPipelineExecutableStatisticsKHR(device, &exec, &n, nullptr);
        std::vector<VkPipelineExecutableStatisticKHR> stats(n, {VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR});
        vk.vkGetPipelineExecutableStatisticsKHR(device, &exec, &n, stats.data());
        std::string line = "pipeline " + what + ":";
        for (const auto& s : stats) {
            line += std::string(" ") + s.name + "=";
            switch (s.format) {
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR: line += s.value.b32 ? "true" : "false"; break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR: line += std::to_string(s.value.i64); break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR: line += std::to_string(s.value.u64); break;
            case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR: line += std::to_string(s.value.f64); break;
            default: line += "?";
            }
        }
        std::fprintf(stderr, "%s\n", line.c_str());
    }
}

// Records the timed work: once, or with timing on `timing_repeats` times back to back, each between
// its own pair of timestamps. A timestamp at the bottom of the pipe is written once every command
// before it has finished, as a CUDA event is: so each pair holds one repetition's GPU time and none
// of the host's, as the CUB peers time their launches on a stream kept busy.
void Context::Impl::timed(const std::function<void()>& record) {
    if (!timing) return record();
    vk.vkCmdResetQueryPool(cmd, timestamps, 0, 2 * timing_repeats);
    for (uint32_t r = 0; r < timing_repeats; ++r) {
        if (r > 0) { // the repetition before has finished with the buffers this one uses
            VkMemoryBarrier between{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
            between.srcAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
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
void Context::Impl::finish_timed() {
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
                                       ticks.data(), sizeof(uint64_t), VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
              "vkGetQueryPoolResults");
        std::vector<double> ms(timing_repeats);
        for (uint32_t r = 0; r < timing_repeats; ++r) {
            ms[r] = double(ticks[2 * r + 1] - ticks[2 * r]) * timestamp_period_ns * 1e-6;
        }
        std::sort(ms.begin(), ms.end());
        last_gpu_ms = ms[ms.size() / 2];
    }
}

// ---- Buffer ----

Buffer::Buffer(Buffer&& o) noexcept { *this = std::move(o); }
Buffer& Buffer::operator=(Buffer&& o) noexcept {
    if (this != &o) {
        release();
        owner_ = std::exchange(o.owner_, nullptr);
        buffer_ = std::exchange(o.buffer_, VK_NULL_HANDLE);
        memory_ = std::exchange(o.memory_, VK_NULL_HANDLE);
        mapped_ = std::exchange(o.mapped_, nullptr);
        size_ = std::exchange(o.size_, 0);
    }
    return *this;
}
Buffer::~Buffer() { release(); }
void Buffer::release() {
    if (!owner_) return;
    if (buffer_) owner_->vk.vkDestroyBuffer(owner_->device, buffer_, owner_->allocator);
    if (memory_) owner_->vk.vkFreeMemory(owner_->device, memory_, owner_->allocator);
    owner_.reset();
    buffer_ = VK_NULL_HANDLE;
    memory_ = VK_NULL_HANDLE;
    mapped_ = nullptr;
    size_ = 0;
}

// ---- Context ----

Context::Context(const ContextOptions& options) : impl_(std::make_unique<Impl>()) {
    try {
        impl_->create(options);
    } catch (...) {
        impl_->destroy();
        throw;
    }
}
Context::~Context() { impl_->destroy(); }

const DeviceInfo& Context::device() const { return impl_->info; }
bool Context::validation_enabled() const { return impl_->validation_on; }
uint64_t Context::validation_messages() const { return impl_->core->validation_count; }
std::string Context::last_validation_message() const {
    std::lock_guard<std::mutex> lock(impl_->core->validation_mutex);
    return impl_->core->validation_last;
}

void Context::Impl::check_buffer(const Buffer& b, const char* role) const {
    if (!b.owner_) throw Error(std::string(role) + " is an empty Buffer (moved from, or never created)");
    if (b.owner_ != core) throw Error(std::string(role) + " is a Buffer of another Context");
}

// ---- Pipeline cache ----

namespace {
std::string pipeline_cache_file(const ContextOptions& o) {
    if (!o.pipeline_cache_path.empty()) return o.pipeline_cache_path;
    const char* env = std::getenv("VKC_PIPELINE_CACHE");
    return env ? env : "";
}
} // namespace

void Context::Impl::create_pipeline_cache() {
    if (options.pipeline_cache) {
        pipeline_cache = options.pipeline_cache;
        return;
    }
    std::vector<uint8_t> data = options.pipeline_cache_data;
    std::string file = pipeline_cache_file(options);
    if (!file.empty()) {
        std::ifstream in(file, std::ios::binary);
        if (in) data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    VkPipelineCacheCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    info.initialDataSize = data.size();
    info.pInitialData = data.empty() ? nullptr : data.data();
    // Data of another device or driver version is ignored by the implementation; data it rejects
    // outright (a truncated file) is dropped here, and the cache starts empty.
    if (vk.vkCreatePipelineCache(device, &info, allocator, &pipeline_cache) != VK_SUCCESS) {
        info.initialDataSize = 0;
        info.pInitialData = nullptr;
        check(vk.vkCreatePipelineCache(device, &info, allocator, &pipeline_cache), "vkCreatePipelineCache");
    }
    own_pipeline_cache = true;
}

namespace {
// vkGetPipelineCacheData's two calls: the size, then the bytes.
std::vector<uint8_t> read_pipeline_cache(const DeviceTable& vk, VkDevice device, VkPipelineCache cache) {
    size_t size = 0;
    check(vk.vkGetPipelineCacheData(device, cache, &size, nullptr), "vkGetPipelineCacheData");
    std::vector<uint8_t> data(size);
    VkResult r = vk.vkGetPipelineCacheData(device, cache, &size, data.data());
    if (r != VK_SUCCESS && r != VK_INCOMPLETE) check(r, "vkGetPipelineCacheData");
    data.resize(size);
    return data;
}
} // namespace

std::vector<uint8_t> Context::pipeline_cache_data() const {
    return read_pipeline_cache(impl_->vk, impl_->device, impl_->pipeline_cache);
}

VkPipelineCache Context::vk_pipeline_cache() const { return impl_->pipeline_cache; }

// Written to a temporary file and renamed, so that processes sharing the file never read half of one.
void Context::Impl::save_pipeline_cache() const {
    std::string file = pipeline_cache_file(options);
    if (file.empty()) return;
    try {
        std::vector<uint8_t> data = read_pipeline_cache(vk, device, pipeline_cache);
        if (data.empty()) return;
        std::string tmp = file + ".tmp" + std::to_string(reinterpret_cast<uintptr_t>(this));
        {
            std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
            if (!out.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()))) return;
        }
        std::rename(tmp.c_str(), file.c_str());
    } catch (...) {
        // A cache that cannot be saved costs the next process its pipelines' compile time, nothing else.
    }
}

const ModuleInfo& Context::select_module(Collective c, Type t, Op op, Path preferred) const {
    bool op_matters = has_op(c);
    bool type_matters = c != Collective::all && c != Collective::any;
    if (type_matters && op_matters && !has_op(t, op)) {
        throw Error(std::string(name(op)) + " is not defined on " + std::string(name(t)) + " items");
    }
    const ModuleInfo* shared = nullptr;
    const ModuleInfo* subgroup = nullptr;
    for (const ModuleInfo& m : modules()) {
        if (m.collective != c || (type_matters && m.type != t) || (op_matters && m.op != op)) continue;
        (m.path == Path::subgroup ? subgroup : shared) = &m;
    }
    Feature have = impl_->info.features;
    auto missing = [&](const ModuleInfo* m) { return m->required & ~have; };
    bool want_subgroup = preferred == Path::subgroup && !impl_->options.shared_memory_only;
    if (subgroup && want_subgroup && !any(missing(subgroup))) return *subgroup;
    if (shared && !any(missing(shared))) return *shared;
    std::string what = std::string(name(c)) + (op_matters ? std::string(" ") + std::string(name(op)) : "") +
                       (type_matters ? std::string(" on ") + std::string(name(t)) : "");
    if (!shared && !subgroup) throw Error("no module was built for " + what);
    const ModuleInfo* closest = shared ? shared : subgroup;
    throw UnsupportedError(impl_->info.name + " cannot run " + what + ": it lacks " +
                           feature_names(missing(closest)));
}

Buffer Context::create_buffer(uint64_t bytes) {
    return impl_->make_buffer(bytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
}

namespace {
void check_range(const Buffer& b, uint64_t bytes, uint64_t offset, const char* what) {
    if (!b.handle()) throw Error(std::string(what) + ": the buffer is empty (moved from or default constructed)");
    if (offset > b.size() || bytes > b.size() - offset) {
        throw Error(std::string(what) + ": " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset) +
                    " run past the end of a buffer of " + std::to_string(b.size()) + " bytes");
    }
}
} // namespace

namespace {
constexpr uint64_t staging_bytes = uint64_t(256) << 20; // host-visible bytes an upload or download holds
} // namespace

void Context::upload(Buffer& dst, const void* src, uint64_t bytes, uint64_t offset) {
    check_range(dst, bytes, offset, "upload");
    impl_->check_buffer(dst, "upload: the destination");
    if (bytes == 0) return;
    if (dst.mapped_) {
        std::memcpy(static_cast<char*>(dst.mapped_) + offset, src, bytes);
        return;
    }
    // Through a staging buffer of at most staging_bytes, so that uploads of any size need no host-visible
    // allocation of their size.
    const uint64_t chunk = std::min(bytes, staging_bytes);
    const VkMemoryPropertyFlags visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    Buffer staging = impl_->make_buffer(chunk, visible, visible);
    for (uint64_t done = 0; done < bytes; done += chunk) {
        uint64_t n = std::min(chunk, bytes - done);
        std::memcpy(staging.mapped_, static_cast<const char*>(src) + done, n);
        impl_->begin();
        VkBufferCopy region{0, offset + done, n};
        impl_->vk.vkCmdCopyBuffer(impl_->cmd, staging.buffer_, dst.buffer_, 1, &region);
        impl_->submit_and_wait();
    }
}

void Context::download(const Buffer& src, void* dst, uint64_t bytes, uint64_t offset) {
    check_range(src, bytes, offset, "download");
    impl_->check_buffer(src, "download: the source");
    if (bytes == 0) return;
    if (src.mapped_) {
        std::memcpy(dst, static_cast<const char*>(src.mapped_) + offset, bytes);
        return;
    }
    const uint64_t chunk = std::min(bytes, staging_bytes);
    const VkMemoryPropertyFlags visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    Buffer staging = impl_->make_buffer(chunk, visible | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, visible);
    for (uint64_t done = 0; done < bytes; done += chunk) {
        uint64_t n = std::min(chunk, bytes - done);
        impl_->begin();
        VkBufferCopy region{offset + done, 0, n};
        impl_->vk.vkCmdCopyBuffer(impl_->cmd, src.buffer_, staging.buffer_, 1, &region);
        impl_->submit_and_wait();
        std::memcpy(static_cast<char*>(dst) + done, staging.mapped_, n);
    }
}

void Context::check_host_items(const WorkgroupRequest& r, size_t host_size) const {
    if (r.count == 0) throw Error("empty input: the request has 0 items; a collective needs at least one");
    bool vote = r.collective == Collective::all || r.collective == Collective::any;
    size_t want = vote ? sizeof(uint32_t) : size_of(r.type);
    if (host_size != want) {
        throw Error("host items of " + std::to_string(host_size) + " bytes do not match " +
                    (vote ? std::string("uint32 predicates") : std::string(name(r.type))) + " items of " +
                    std::to_string(want) + " bytes");
    }
}

void Context::check_shape(const WorkgroupShape& s) const {
    const DeviceInfo& dev = impl_->info;
    if (s.x == 0 || s.y == 0 || s.z == 0) {
        throw Error("work-group size " + s.text() + " has a zero dimension; every dimension must be at least 1");
    }
    const char axis[3] = {'x', 'y', 'z'};
    const uint32_t dims[3] = {s.x, s.y, s.z};
    for (int i = 0; i < 3; ++i) {
        if (dims[i] > dev.max_workgroup_size[i]) {
            throw UnsupportedError("work-group size " + s.text() + " exceeds the device limit maxComputeWorkGroupSize." +
                                   axis[i] + " = " + std::to_string(dev.max_workgroup_size[i]));
        }
    }
    if (s.size() > dev.max_workgroup_invocations) {
        throw UnsupportedError("work-group size " + s.text() + " (" + std::to_string(s.size()) +
                               " invocations) exceeds the device limit maxComputeWorkGroupInvocations = " +
                               std::to_string(dev.max_workgroup_invocations));
    }
}

// Checks what a module needs of the shape, the item count and the buffers; returns the item bytes.
uint64_t Context::check_module_use(const ModuleInfo& m, const WorkgroupShape& s, uint64_t count, const Buffer& input,
                                   const Buffer& output) const {
    const DeviceInfo& dev = impl_->info;
    if (count == 0) throw Error("empty input: the request has 0 items; a collective needs at least one");
    if (count > UINT32_MAX) {
        throw Error("count " + std::to_string(count) + " exceeds 2^32 - 1 items, the most one request can hold");
    }
    uint64_t bytes = count * size_of(m.type);
    check_range(input, bytes, 0, "input");
    check_range(output, bytes, 0, "output");
    if (bytes > dev.max_storage_buffer_range) {
        throw Error(std::to_string(bytes) + " bytes of items exceed the device limit maxStorageBufferRange = " +
                    std::to_string(dev.max_storage_buffer_range));
    }
    if (s.size() > m.max_workgroup_size) {
        throw UnsupportedError("work-group size " + s.text() + " exceeds " + std::to_string(m.max_workgroup_size) +
                               " invocations, the most module " + m.name + " is built for");
    }
    size_t shared = shared_memory_bytes(m);
    if (shared > dev.max_shared_memory) {
        throw UnsupportedError(std::string(m.name) + " needs " + std::to_string(shared) +
                               " bytes of shared memory; the device limit maxComputeSharedMemorySize is " +
                               std::to_string(dev.max_shared_memory));
    }
    return bytes;
}

// Work-groups as a grid of up to maxComputeWorkGroupCount[0] columns.
void Context::grid_for(uint64_t groups, uint32_t& x, uint32_t& y) const {
    const DeviceInfo& dev = impl_->info;
    uint64_t gx = std::min<uint64_t>(groups, dev.max_workgroup_count[0]);
    uint64_t gy = (groups + gx - 1) / gx;
    if (gy > dev.max_workgroup_count[1]) {
        throw Error(std::to_string(groups) + " work-groups exceed the device's maxComputeWorkGroupCount");
    }
    x = uint32_t(gx);
    y = uint32_t(gy);
}

void Context::run(const WorkgroupRequest& r, const Buffer& input, Buffer& output) {
    const WorkgroupShape& s = r.shape;
    check_shape(s);
    (void)name(r.collective); // an invalid value is an Error
    if (is_block(r.collective)) throw Error("block collectives take a BlockRequest");
    if (r.collective == Collective::device_scan || r.collective == Collective::layout_probe) {
        throw Error(std::string(name(r.collective)) +
                    " is internal to the runtime: use Context::scan / reduce or subgroups_packed");
    }
    impl_->check_buffer(input, "the input");
    impl_->check_buffer(output, "the output");
    const ModuleInfo& m = select_module(r.collective, r.type, r.op);
    uint64_t bytes = check_module_use(m, s, r.count, input, output);
    uint64_t per_group = s.size();
    if (r.collective == Collective::copy || r.collective == Collective::read) {
        if (r.count % 4) throw Error("copy and read move 16 bytes per invocation: count must be a multiple of 4");
        per_group *= 4;
    }
    uint64_t groups = (r.count + per_group - 1) / per_group;
    // read strides over the buffer with as many groups as keep the device busy (4 loads each in flight)
    if (r.collective == Collective::read) groups = std::min<uint64_t>(groups, 4096);
    ModuleParams params{};
    params.count = uint32_t(r.count);
    params.group_count = uint32_t(groups);
    if (r.collective == Collective::broadcast) {
        const BroadcastSource& src = r.source;
        if (src.dims < 1 || src.dims > 3) {
            throw Error("broadcast source has " + std::to_string(src.dims) + " coordinates; give 1, 2 or 3");
        }
        if (src.dims == 1 ? src.id[0] >= s.size() : (src.id[0] >= s.x || src.id[1] >= s.y ||
                                                     (src.dims == 3 && src.id[2] >= s.z))) {
            throw Error("broadcast source local id lies outside the work-group " + s.text());
        }
        uint64_t last_group_items = r.count - (groups - 1) * s.size();
        if (src.linear(s) >= last_group_items) {
            throw Error("broadcast source (linear local id " + std::to_string(src.linear(s)) +
                        ") lies past the end of the short last work-group, which holds " +
                        std::to_string(last_group_items) + " items");
        }
        params.source_dims = src.dims;
        for (int i = 0; i < 3; ++i) params.source[i] = src.id[i];
    }
    uint32_t grid_x, grid_y;
    grid_for(groups, grid_x, grid_y);
    bool packed = m.path == Path::subgroup && subgroups_packed(s);
    dispatch({&m, s, packed, 1, false, &params, &input, &output, nullptr, bytes, 0, grid_x, grid_y});
}

void Context::run(const BlockRequest& r, const Buffer& input, Buffer& output, Buffer* record) {
    const WorkgroupShape& s = r.shape;
    check_shape(s);
    if (!is_block(r.collective)) throw Error(std::string(name(r.collective)) + " takes a WorkgroupRequest");
    impl_->check_buffer(input, "the input");
    impl_->check_buffer(output, "the output");
    if (record) impl_->check_buffer(*record, "the record");
    if (r.items_per_invocation < 1 || r.items_per_invocation > 16) {
        throw Error("items_per_invocation " + std::to_string(r.items_per_invocation) + " is outside 1 to 16");
    }
    if (r.tiles_per_group < 1) throw Error("tiles_per_group is 0; each work-group needs at least one tile");
    const ModuleInfo& m = select_module(r.collective, r.type, r.op, r.algorithm);
    uint64_t bytes = check_module_use(m, s, r.count, input, output);
    uint64_t tile = s.size() * r.items_per_invocation;
    uint64_t tiles = (r.count + tile - 1) / tile;
    uint64_t groups = (tiles + r.tiles_per_group - 1) / r.tiles_per_group;
    uint64_t record_bytes = 2 * groups * r.tiles_per_group * s.size() * size_of(m.type);
    if (record) check_range(*record, record_bytes, 0, "record");
    if ((groups * r.tiles_per_group + 1) * tile > uint64_t(UINT32_MAX)) {
        throw Error("the tiles of this request span more than 2^32 items, past the block modules' 32-bit indices");
    }
    BlockParams params{};
    params.count = uint32_t(r.count);
    params.tiles_per_group = r.tiles_per_group;
    if (r.prefix_callback && !r.running) {
        throw Error("BlockRequest.prefix_callback carries a running prefix: it needs running = true");
    }
    params.flags = (r.seeded ? VKC_BLOCK_FLAG_SEEDED : 0u) | (r.running ? VKC_BLOCK_FLAG_RUNNING : 0u) |
                   (record ? VKC_BLOCK_FLAG_RECORD : 0u) | (r.prefix_callback ? VKC_BLOCK_FLAG_CALLBACK : 0u);
    params.seed[0] = uint32_t(r.seed_bits);
    params.seed[1] = uint32_t(r.seed_bits >> 32);
    params.seed[2] = 0x9e3779b9u; // junk for every invocation but the first: a running prefix must ignore it
    params.seed[3] = 0x7f4a7c15u;
    uint32_t grid_x, grid_y;
    grid_for(groups, grid_x, grid_y);
    bool packed = m.path == Path::subgroup && subgroups_packed(s);
    // One item per invocation is striped and blocked at once: no stage needed.
    // Tiles go through shared memory for coalesced access, except where an invocation's items are one
    // 8-byte vector (two 32-bit items: the kernel loads and stores them as one, already coalesced).
    bool paired = r.items_per_invocation == 2 && size_of(m.type) == 4;
    bool staged = r.items_per_invocation > 1 && !paired && tile * size_of(m.type) <= block_stage_bytes;
    // For kernel experiments: VKC_BLOCK_STAGED=0 loads tiles straight into registers.
    if (const char* v = std::getenv("VKC_BLOCK_STAGED")) staged = staged && std::atoi(v) != 0;
    // Unstaged tiles are loaded several at a time (the kernel's batch, compiled in beside the flags):
    // one item an invocation up to 8 tiles, two items 2. Staged tiles moved one item a lane (item
    // counts that are not whole vectors) take a batch of 2: two register sets taken in turn, two
    // tiles' loads in flight. Staged tiles of whole vectors take 1, so that their pipelines do not
    // compile the two-set loop. A batch deeper than the tiles a work-group scans would only hold
    // registers (on the H100 it cost one tile a group 0.56 -> 0.48 of a copy).
    bool staged_scalars = staged && r.items_per_invocation % vector_width(m.type) != 0;
    uint32_t batch = staged && !staged_scalars ? 1u
                                               : std::min(r.tiles_per_group, r.items_per_invocation == 1 ? 8u : 2u);
    // VKC_BLOCK_BATCH=N (1 to 8) overrides it, for kernel experiments (for staged tiles of one item a
    // lane, 1 turns the two register sets off).
    if (const char* v = std::getenv("VKC_BLOCK_BATCH")) batch = std::clamp(std::atoi(v), 1, 8);
    dispatch({&m, s, packed, r.items_per_invocation, staged, &params, &input, &output, record, bytes, record_bytes,
              grid_x, grid_y, params.flags | batch << VKC_BLOCK_BATCH_SHIFT});
}

bool Context::subgroups_packed(const WorkgroupShape& s) {
    auto key = std::make_tuple(s.x, s.y, s.z);
    auto it = impl_->packed_shapes.find(key);
    if (it != impl_->packed_shapes.end()) return it->second;
    bool packed = false;
    if (any(impl_->info.features & Feature::subgroup_basic)) {
        const ModuleInfo* probe = nullptr;
        for (const ModuleInfo& m : modules()) {
            if (m.collective == Collective::layout_probe) probe = &m;
        }
        if (!probe) throw Error("the layout probe module is missing from the build");
        uint64_t n = s.size();
        Buffer out = create_buffer((n + 1) * sizeof(uint32_t));
        ModuleParams params{};
        params.count = uint32_t(n + 1);
        params.group_count = 1;
        dispatch({probe, s, false, 1, false, &params, &out, &out, nullptr, out.size(), 0, 1, 1});
        std::vector<uint32_t> place(n + 1);
        download(out, place.data(), out.size());
        packed = true;
        for (uint32_t i = 0; i < n; ++i) packed = packed && place[i] == i;
    }
    impl_->packed_shapes[key] = packed;
    return packed;
}

void Context::dispatch(const Dispatch& d) {
    VkPipeline pipeline = impl_->pipeline(*d.module, d.shape, d.packed, d.items, d.staged, d.kernel_constant);
    auto& vk = impl_->vk;
    check(vk.vkResetDescriptorPool(impl_->device, impl_->descriptor_pool, 0), "vkResetDescriptorPool");
    VkDescriptorSetAllocateInfo a{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    a.descriptorPool = impl_->descriptor_pool;
    a.descriptorSetCount = 1;
    a.pSetLayouts = &impl_->set_layout;
    VkDescriptorSet set = VK_NULL_HANDLE;
    check(vk.vkAllocateDescriptorSets(impl_->device, &a, &set), "vkAllocateDescriptorSets");
    // Binding 2 gets the output when there is no record: the layout has it, the shader writes it only
    // when told to.
    VkDescriptorBufferInfo buffers[3] = {{d.input->handle(), 0, d.bytes},
                                         {d.output->handle(), 0, d.bytes},
                                         d.record ? VkDescriptorBufferInfo{d.record->handle(), 0, d.record_bytes}
                                                  : VkDescriptorBufferInfo{d.output->handle(), 0, d.bytes}};
    VkWriteDescriptorSet writes[3] = {};
    for (uint32_t i = 0; i < 3; ++i) {
        writes[i] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        writes[i].dstSet = set;
        writes[i].dstBinding = i;
        writes[i].descriptorCount = 1;
        writes[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        writes[i].pBufferInfo = &buffers[i];
    }
    vk.vkUpdateDescriptorSets(impl_->device, 3, writes, 0, nullptr);

    impl_->begin();
    // Uploads by copy must land before the shader reads, and an earlier run's writes too.
    VkMemoryBarrier before{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    before.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    before.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    vk.vkCmdPipelineBarrier(impl_->cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &before, 0, nullptr, 0, nullptr);
    vk.vkCmdBindPipeline(impl_->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
    vk.vkCmdBindDescriptorSets(impl_->cmd, VK_PIPELINE_BIND_POINT_COMPUTE, impl_->pipeline_layout, 0, 1, &set, 0,
                               nullptr);
    vk.vkCmdPushConstants(impl_->cmd, impl_->pipeline_layout, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                          module_push_constant_bytes, d.push_constants);
    impl_->timed([&] { vk.vkCmdDispatch(impl_->cmd, d.grid_x, d.grid_y, 1); });
    impl_->finish_timed();
}

void Context::set_timing(bool on, uint32_t repeats) {
    if (repeats < 1 || repeats > 1024) throw Error("set_timing: repeats " + std::to_string(repeats) + " is outside 1 to 1024");
    if (on && (!impl_->timestamps || impl_->timing_repeats != repeats)) {
        if (impl_->timestamp_period_ns == 0) throw UnsupportedError(impl_->info.name + " has no compute timestamps");
        if (impl_->timestamps) impl_->vk.vkDestroyQueryPool(impl_->device, impl_->timestamps, impl_->allocator);
        impl_->timestamps = VK_NULL_HANDLE;
        VkQueryPoolCreateInfo q{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
        q.queryType = VK_QUERY_TYPE_TIMESTAMP;
        q.queryCount = 2 * repeats;
        check(impl_->vk.vkCreateQueryPool(impl_->device, &q, impl_->allocator, &impl_->timestamps), "vkCreateQueryPool");
        impl_->timing_repeats = repeats;
    }
    impl_->timing = on;
}

double Context::last_gpu_ms() const { return impl_->last_gpu_ms; }

} // namespace vkc
