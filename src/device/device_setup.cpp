// Making a Device (on an engine's device, without a queue) or a Context's device (its own, or an
// engine's with a queue), and the objects every pipeline uses (descriptor and pipeline layouts, the
// pipeline cache); and tearing them down. A Context's own submission objects are
// src/submit/context_state.hpp's.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "device/device_core.hpp"
#include "device/device_state.hpp"
#include "device/instance.hpp"
#include "environment.hpp"

namespace vkc {

DeviceQueue DeviceState::create(const ContextOptions& opts) {
    options = opts;
    options.validation = opts.validation || environment::validation();
    options.shared_memory_only = opts.shared_memory_only || environment::shared_memory_only();
    core = std::make_shared<DeviceCore>();
    if (opts.allocator) core->use_allocator(*opts.allocator);
    allocator = core->allocator;
    DeviceQueue queue;
    if (opts.adopt.device) {
        if (!opts.adopt.queue) throw Error("ContextOptions::adopt: queue is VK_NULL_HANDLE");
        queue = adopt_device(opts.adopt, "ContextOptions::adopt: ");
    } else {
        queue = create_device();
    }
    info.features = info.features & ~options.hide_features;
    if (options.persistent_pipeline_cache) { // a Context's own cache outlives the process; a Device's never
        VkPhysicalDeviceProperties properties;
        vki.vkGetPhysicalDeviceProperties(physical, &properties);
        pipelines.default_cache_file = default_pipeline_cache_file(properties);
    }
    set_up_device_objects();
    return queue;
}

void DeviceState::create(const DeviceCreateInfo& c) {
    options = {};
    options.shared_memory_only = c.shared_memory_only || environment::shared_memory_only();
    options.hide_features = c.hide_features;
    options.pipeline_cache = c.pipeline_cache;
    core = std::make_shared<DeviceCore>();
    if (c.allocator) core->use_allocator(*c.allocator);
    allocator = core->allocator;
    AdoptedDevice a;
    a.instance = c.instance;
    a.physical_device = c.physical_device;
    a.device = c.device;
    a.enabled_features = c.enabled_features;
    a.get_instance_proc_addr = c.get_instance_proc_addr;
    adopt_device(a, "DeviceCreateInfo: ");
    info.features = info.features & ~options.hide_features;
    layout = c.subgroup_layout;
    set_up_device_objects();
}

DeviceQueue DeviceState::adopt_device(const AdoptedDevice& a, const char* origin) {
    auto require = [origin](bool ok, const char* what) {
        if (!ok) throw Error(std::string(origin) + what);
    };
    require(a.instance, "instance is VK_NULL_HANDLE");
    require(a.physical_device, "physical_device is VK_NULL_HANDLE");
    require(a.device, "device is VK_NULL_HANDLE");
    Feature enabled = enabled_features_of(a.enabled_features);
    core->adopted = true;
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
    DeviceQueue queue;
    if (a.queue) {
        auto families = queue_families(vki, physical);
        require(a.queue_family < families.size(), "queue_family is not one of the device's queue families");
        require(families[a.queue_family].queueFlags & VK_QUEUE_COMPUTE_BIT, "queue_family has no compute");
        queue.family = a.queue_family;
        queue.queue = a.queue;
    }
    core->device = device = a.device;
    core->vk.load(vki.vkGetDeviceProcAddr, device);
    vk = core->vk;
    return queue;
}

DeviceQueue DeviceState::create_device() {
    core->vki.load_global(core->loader.open());
    core->instance = instance = create_instance(core->vki, options.validation, validation_on, allocator);
    core->vki.load_instance(instance);
    vki = core->vki;
    if (validation_on) {
        VkDebugUtilsMessengerCreateInfoEXT m{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
        m.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                            VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
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
    api_version = std::min(info.api_version, instance_api_version(vki));

    auto families = queue_families(vki, physical);
    DeviceQueue queue;
    bool found = false;
    for (uint32_t i = 0; i < families.size() && !found; ++i) {
        if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) {
            queue.family = i;
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
    pipelines.statistics = chain.executable_info.pipelineExecutableInfo == VK_TRUE;
    memory.budget = chain.memory_budget;

    float priority = 1.0f;
    VkDeviceQueueCreateInfo q{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    q.queueFamilyIndex = queue.family;
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
    vk.vkGetDeviceQueue(device, queue.family, 0, &queue.queue);
    return queue;
}

// The objects of a Device: its memory's properties, the layouts and the pipeline cache.
void DeviceState::set_up_device_objects() {
    memory.set_up(core, physical, info.max_memory_allocation_size);
    for (uint32_t i = 0; i < 3; ++i) pipelines.denorm_preserve[i] = keeps_denormals(16u << i);
    pipelines.set_up(*core, options);
}

// Float controls are core from Vulkan 1.2; earlier devices would need VK_KHR_shader_float_controls.
bool DeviceState::keeps_denormals(uint32_t width) const {
    int index = width == 16 ? 0 : width == 32 ? 1 : 2;
    return api_version >= VK_API_VERSION_1_2 && info.float_controls_known && info.denorm_preserve[index];
}

void DeviceState::destroy() {
    // A Context's own submissions were each waited for, and its ContextState, destroyed first, waited
    // for its device; the caller's command buffers are the caller's to finish.
    if (device) pipelines.destroy();
    if (core) core->context_alive = false;
    memory.core.reset();
    core.reset(); // the device goes with the last Buffer or plan that holds it
}

} // namespace vkc
