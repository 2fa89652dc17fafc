#include "device/vulkan_api.hpp"

#include <dlfcn.h>

#include <string>

#include "vkc/types.hpp"

namespace vkc {

namespace {
[[noreturn]] void missing(const char* name) {
    throw Error(std::string("the Vulkan implementation does not provide ") + name);
}
} // namespace

void InstanceTable::load_global(PFN_vkGetInstanceProcAddr gipa) {
    vkGetInstanceProcAddr = gipa;
#define VKC_LOAD(name)                                                                                                 \
    name = reinterpret_cast<PFN_##name>(gipa(VK_NULL_HANDLE, #name));                                                 \
    if (!name) missing(#name);
    VKC_GLOBAL_FUNCTIONS(VKC_LOAD)
#undef VKC_LOAD
    vkEnumerateInstanceVersion =
        reinterpret_cast<PFN_vkEnumerateInstanceVersion>(gipa(VK_NULL_HANDLE, "vkEnumerateInstanceVersion"));
}

void InstanceTable::load_instance(VkInstance instance) {
#define VKC_LOAD(name)                                                                                                 \
    name = reinterpret_cast<PFN_##name>(vkGetInstanceProcAddr(instance, #name));                                      \
    if (!name) missing(#name);
    VKC_INSTANCE_FUNCTIONS(VKC_LOAD)
#undef VKC_LOAD
#define VKC_LOAD_OPTIONAL(name) name = reinterpret_cast<PFN_##name>(vkGetInstanceProcAddr(instance, #name));
    VKC_INSTANCE_EXTENSION_FUNCTIONS(VKC_LOAD_OPTIONAL)
#undef VKC_LOAD_OPTIONAL
}

void DeviceTable::load(PFN_vkGetDeviceProcAddr gdpa, VkDevice device) {
#define VKC_LOAD(name)                                                                                                 \
    name = reinterpret_cast<PFN_##name>(gdpa(device, #name));                                                         \
    if (!name) missing(#name);
    VKC_DEVICE_FUNCTIONS(VKC_LOAD)
#undef VKC_LOAD
#define VKC_LOAD_OPTIONAL(name) name = reinterpret_cast<PFN_##name>(gdpa(device, #name));
    VKC_DEVICE_EXTENSION_FUNCTIONS(VKC_LOAD_OPTIONAL)
#undef VKC_LOAD_OPTIONAL
}

const char* result_name(VkResult result) {
    switch (result) {
    case VK_SUCCESS: return "VK_SUCCESS";
    case VK_NOT_READY: return "VK_NOT_READY";
    case VK_TIMEOUT: return "VK_TIMEOUT";
    case VK_INCOMPLETE: return "VK_INCOMPLETE";
    case VK_ERROR_OUT_OF_HOST_MEMORY: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case VK_ERROR_OUT_OF_DEVICE_MEMORY: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case VK_ERROR_INITIALIZATION_FAILED: return "VK_ERROR_INITIALIZATION_FAILED";
    case VK_ERROR_DEVICE_LOST: return "VK_ERROR_DEVICE_LOST";
    case VK_ERROR_MEMORY_MAP_FAILED: return "VK_ERROR_MEMORY_MAP_FAILED";
    case VK_ERROR_LAYER_NOT_PRESENT: return "VK_ERROR_LAYER_NOT_PRESENT";
    case VK_ERROR_EXTENSION_NOT_PRESENT: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case VK_ERROR_FEATURE_NOT_PRESENT: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case VK_ERROR_INCOMPATIBLE_DRIVER: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case VK_ERROR_TOO_MANY_OBJECTS: return "VK_ERROR_TOO_MANY_OBJECTS";
    case VK_ERROR_FRAGMENTED_POOL: return "VK_ERROR_FRAGMENTED_POOL";
    case VK_ERROR_OUT_OF_POOL_MEMORY: return "VK_ERROR_OUT_OF_POOL_MEMORY";
    case VK_ERROR_UNKNOWN: return "VK_ERROR_UNKNOWN";
    default: return "an error";
    }
}

LoaderLibrary::~LoaderLibrary() {
    if (handle_) dlclose(handle_);
}

PFN_vkGetInstanceProcAddr LoaderLibrary::open() {
    if (!handle_) {
        // RTLD_LOCAL: the loader's exports stay out of the global namespace, whatever the engine links.
        handle_ = dlopen("libvulkan.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!handle_) handle_ = dlopen("libvulkan.so", RTLD_NOW | RTLD_LOCAL);
        if (!handle_) throw Error("no Vulkan loader: libvulkan.so.1 was not found (Debian: apt-get install libvulkan1)");
    }
    auto gipa = reinterpret_cast<PFN_vkGetInstanceProcAddr>(dlsym(handle_, "vkGetInstanceProcAddr"));
    if (!gipa) throw Error("the Vulkan loader libvulkan.so.1 does not export vkGetInstanceProcAddr");
    return gipa;
}

} // namespace vkc
