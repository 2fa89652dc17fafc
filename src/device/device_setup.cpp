// Making a Device (on an engine's device, without a queue) or a Context's device (its own, or an
// engine's with a queue), the objects every pipeline uses (descriptor and pipeline layouts, the
// pipeline cache) and a Context's submission objects; and tearing them down.
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "context_impl.hpp"
#include "environment.hpp"
#include "device/instance.hpp"

namespace vkc {

void DeviceState::create(const ContextOptions& opts) {
    options = opts;
    options.validation = opts.validation || environment::validation();
    options.shared_memory_only = opts.shared_memory_only || environment::shared_memory_only();
    core = std::make_shared<DeviceCore>();
    if (opts.allocator) core->use_allocator(*opts.allocator);
    allocator = core->allocator;
    has_queue = true;
    if (opts.adopt.device) {
        if (!opts.adopt.queue) throw Error("ContextOptions::adopt: queue is VK_NULL_HANDLE");
        adopt_device(opts.adopt, "ContextOptions::adopt: ");
    } else {
        create_device();
    }
    info.features = info.features & ~options.hide_features;
    set_up_device_objects();
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

void DeviceState::adopt_device(const AdoptedDevice& a, const char* origin) {
    auto require = [origin](bool ok, const char* what) {
        if (!ok) throw Error(std::string(origin) + what);
    };
    require(a.instance, "instance is VK_NULL_HANDLE");
    require(a.physical_device, "physical_device is VK_NULL_HANDLE");
    require(a.device, "device is VK_NULL_HANDLE");
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
    if (a.queue) {
        auto families = queue_families(vki, physical);
        require(a.queue_family < families.size(), "queue_family is not one of the device's queue families");
        require(families[a.queue_family].queueFlags & VK_QUEUE_COMPUTE_BIT, "queue_family has no compute");
        queue_family = a.queue_family;
        queue = a.queue;
    }
    core->device = device = a.device;
    core->vk.load(vki.vkGetDeviceProcAddr, device);
    vk = core->vk;
}

void DeviceState::create_device() {
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

// The objects of a Device (layouts, pipeline cache) and, with a queue, of a Context.
void DeviceState::set_up_device_objects() {
    vki.vkGetPhysicalDeviceMemoryProperties(physical, &memory);
    if (has_queue) set_up_submission();

    // One layout serves every module (see include/vkc/modules.hpp).
    VkDescriptorSetLayoutBinding bindings[module_max_bindings] = {};
    for (uint32_t i = 0; i < module_max_bindings; ++i) {
        bindings[i].binding = i;
        bindings[i].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
        bindings[i].descriptorCount = 1;
        bindings[i].stageFlags = VK_SHADER_STAGE_COMPUTE_BIT;
    }
    VkDescriptorSetLayoutCreateInfo sl{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    sl.bindingCount = module_max_bindings;
    sl.pBindings = bindings;
    check(vk.vkCreateDescriptorSetLayout(device, &sl, allocator, &set_layout), "vkCreateDescriptorSetLayout");
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, module_push_constant_bytes};
    VkPipelineLayoutCreateInfo pl{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pl.setLayoutCount = 1;
    pl.pSetLayouts = &set_layout;
    pl.pushConstantRangeCount = 1;
    pl.pPushConstantRanges = &range;
    check(vk.vkCreatePipelineLayout(device, &pl, allocator, &pipeline_layout), "vkCreatePipelineLayout");
    if (has_queue) { // a Context's dispatches
        VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, module_max_bindings};
        VkDescriptorPoolCreateInfo dp{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
        dp.maxSets = 1;
        dp.poolSizeCount = 1;
        dp.pPoolSizes = &size;
        check(vk.vkCreateDescriptorPool(device, &dp, allocator, &descriptor_pool), "vkCreateDescriptorPool");
    }
    create_pipeline_cache();
}

// A Context's command buffer and fence on its queue's family, and its timestamps.
void DeviceState::set_up_submission() {
    VkPhysicalDeviceProperties base{};
    vki.vkGetPhysicalDeviceProperties(physical, &base);
    timestamp_period_ns = queue_families(vki, physical)[queue_family].timestampValidBits ? base.limits.timestampPeriod
                                                                                         : 0;
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
}

void DeviceState::destroy() {
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

} // namespace vkc
