// The VkPipelineCache pipelines are created through: the caller's, or the Context's own, kept in a
// file (ContextOptions::pipeline_cache_path, VKC_PIPELINE_CACHE, or one per device and driver in the
// user's cache directory).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "device/device_core.hpp"
#include "environment.hpp"
#include "pipeline/pipelines.hpp"

namespace vkc {

// ---- Pipeline cache ----

namespace {
std::vector<uint8_t> read_file(const std::string& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return {};
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

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

// A cache holding `data` (none: an empty one).
VkResult create_cache(const DeviceCore& core, const std::vector<uint8_t>& data, VkPipelineCache* cache) {
    VkPipelineCacheCreateInfo info{VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO};
    info.initialDataSize = data.size();
    info.pInitialData = data.empty() ? nullptr : data.data();
    return core.vk.vkCreatePipelineCache(core.device, &info, core.allocator, cache);
}

// The file a Context's own cache lives in: the caller's, VKC_PIPELINE_CACHE's ("none": none), else
// the default (a Context's in the user's cache directory; none for a Device).
std::string chosen_cache_file(const std::string& named_by_caller, const std::string& default_file) {
    if (!named_by_caller.empty()) return named_by_caller;
    std::string named = environment::pipeline_cache();
    if (named == "none") return "";
    return named.empty() ? default_file : named;
}

// Contexts of one process that share a file save it one at a time, each merging what the last wrote.
std::mutex& file_mutex() {
    static std::mutex m;
    return m;
}
} // namespace

std::string default_pipeline_cache_file(const VkPhysicalDeviceProperties& properties) {
    std::filesystem::path dir;
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    if (xdg && *xdg == '/') dir = xdg; // the XDG base directory spec: relative paths are to be ignored
    else if (home && *home) dir = std::filesystem::path(home) / ".cache";
    else return "";
    char name[96];
    int n = std::snprintf(name, sizeof name, "pipelines-%04x-%04x-", properties.vendorID, properties.deviceID);
    for (uint8_t byte : properties.pipelineCacheUUID) {
        n += std::snprintf(name + n, sizeof name - size_t(n), "%02x", byte);
    }
    return (dir / "vkcollectives" / (std::string(name) + ".bin")).string();
}

void Pipelines::create_pipeline_cache(const ContextOptions& options) {
    if (options.pipeline_cache) {
        pipeline_cache = options.pipeline_cache;
        return;
    }
    const DeviceTable& vk = core->vk;
    VkDevice device = core->device;
    std::vector<uint8_t> data = options.pipeline_cache_data;
    cache_file = chosen_cache_file(options.pipeline_cache_path, default_cache_file);
    bool from_file = false;
    if (!cache_file.empty()) {
        // No lock: saves replace the file by a rename, so a read sees the old file or the new one whole.
        std::vector<uint8_t> saved = read_file(cache_file);
        from_file = !saved.empty();
        if (from_file) data = std::move(saved);
    }
    // Data of another device or driver version is ignored by the implementation; data it rejects
    // outright (a truncated file) is dropped here, and the cache starts empty.
    if (create_cache(*core, data, &pipeline_cache) != VK_SUCCESS) {
        check(create_cache(*core, {}, &pipeline_cache), "vkCreatePipelineCache");
        from_file = false;
    }
    own_pipeline_cache = true;
    size_t size = 0;
    if (from_file && vk.vkGetPipelineCacheData(device, pipeline_cache, &size, nullptr) == VK_SUCCESS) {
        loaded_cache_bytes = size;
    }
    // A driver may keep less than it was given (a size limit): then later processes compile again.
    if (environment::pipeline_stats() && !cache_file.empty()) {
        std::fprintf(stderr, "pipeline cache %s: %zu bytes read, the driver's cache holds %zu\n", cache_file.c_str(),
                     from_file ? data.size() : size_t(0), loaded_cache_bytes);
    }
}

std::vector<uint8_t> Pipelines::pipeline_cache_data() const {
    return read_pipeline_cache(core->vk, core->device, pipeline_cache);
}

// What other Contexts and processes saved to the file since this one read it is merged in first, so
// that Contexts which run side by side (the selftest's jobs, an application's threads) keep each
// other's pipelines. Written to a temporary file and renamed, so that processes sharing the file
// never read half of one.
void Pipelines::save_pipeline_cache() const {
    const std::string& file = cache_file;
    if (file.empty()) return;
    const DeviceTable& vk = core->vk;
    VkDevice device = core->device;
    try {
        size_t size = 0;
        check(vk.vkGetPipelineCacheData(device, pipeline_cache, &size, nullptr), "vkGetPipelineCacheData");
        const bool stats = environment::pipeline_stats();
        if (loaded_cache_bytes && size <= loaded_cache_bytes) { // nothing compiled here that the file lacks
            if (stats) std::fprintf(stderr, "pipeline cache %s: not saved, %zu bytes held\n", file.c_str(), size);
            return;
        }
        std::lock_guard lock(file_mutex());
        std::vector<uint8_t> saved = read_file(file);
        VkPipelineCache theirs = VK_NULL_HANDLE;
        if (!saved.empty() && create_cache(*core, saved, &theirs) == VK_SUCCESS) {
            vk.vkMergePipelineCaches(device, pipeline_cache, 1, &theirs);
            vk.vkDestroyPipelineCache(device, theirs, core->allocator);
        }
        std::vector<uint8_t> data = read_pipeline_cache(vk, device, pipeline_cache);
        if (data.empty()) return;
        std::filesystem::path path(file);
        std::error_code ignored;
        if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ignored);
        // Unique to this thread and moment: processes that save at once each write a file of their own.
        std::string tmp = file + ".tmp" +
                          std::to_string(std::hash<std::thread::id>{}(std::this_thread::get_id()) ^
                                         uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) ^
                                         reinterpret_cast<uintptr_t>(this));
        {
            std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
            if (!out.write(reinterpret_cast<const char*>(data.data()), std::streamsize(data.size()))) return;
        }
        std::rename(tmp.c_str(), file.c_str());
        if (stats) {
            std::fprintf(stderr, "pipeline cache %s: %zu bytes saved (%zu held before merging %zu from the file)\n",
                         file.c_str(), data.size(), size, saved.size());
        }
    } catch (...) {
        // A cache that cannot be saved costs the next process its pipelines' compile time, nothing else.
    }
}

} // namespace vkc
