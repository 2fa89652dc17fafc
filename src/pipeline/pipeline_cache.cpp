// The VkPipelineCache pipelines are created through: the caller's, or the Context's own, kept in a
// file (ContextOptions::pipeline_cache_path or VKC_PIPELINE_CACHE).
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "device/device_core.hpp"
#include "environment.hpp"
#include "pipeline/pipelines.hpp"

namespace vkc {

// ---- Pipeline cache ----

namespace {
std::string pipeline_cache_file(const std::string& path) {
    if (!path.empty()) return path;
    return environment::pipeline_cache();
}
} // namespace

void Pipelines::create_pipeline_cache(const ContextOptions& options) {
    if (options.pipeline_cache) {
        pipeline_cache = options.pipeline_cache;
        return;
    }
    const DeviceTable& vk = core->vk;
    VkDevice device = core->device;
    const VkAllocationCallbacks* allocator = core->allocator;
    pipeline_cache_path = options.pipeline_cache_path;
    std::vector<uint8_t> data = options.pipeline_cache_data;
    std::string file = pipeline_cache_file(pipeline_cache_path);
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

std::vector<uint8_t> Pipelines::pipeline_cache_data() const {
    return read_pipeline_cache(core->vk, core->device, pipeline_cache);
}

// Written to a temporary file and renamed, so that processes sharing the file never read half of one.
void Pipelines::save_pipeline_cache() const {
    std::string file = pipeline_cache_file(pipeline_cache_path);
    if (file.empty()) return;
    try {
        std::vector<uint8_t> data = read_pipeline_cache(core->vk, core->device, pipeline_cache);
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

} // namespace vkc
