// vkc bench first-call: what a new process waits for before its first scan, and then its first sort.
// Two ways in:
//   own device: Context creation (instance and device included), then the first scan;
//   --engine:   the process makes its instance and device through the loader first, as an engine
//               does, and the Context adopts them: the library's share apart from the driver's.
// The first scan and the first sort create their pipelines, through the Context's pipeline cache
// file (VKC_PIPELINE_CACHE, else the user's cache directory; VKC_PIPELINE_CACHE=none: nothing
// kept): run it twice to see the cold and the warm figure.
#include "bench.hpp"

#include <vulkan/vulkan.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "vkc/vkc.hpp"

namespace vkc::tool {
namespace {

using Clock = std::chrono::steady_clock;
double ms(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); }

void vk_check(VkResult r, const char* call) {
    if (r != VK_SUCCESS) throw std::runtime_error(std::string(call) + " failed: VkResult " + std::to_string(r));
}

// An engine's instance and device, made through the loader with every Vulkan 1.1/1.2 feature the
// device offers enabled.
struct EngineDevice {
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    VkQueue queue = VK_NULL_HANDLE;
    uint32_t family = 0;
    VkPhysicalDeviceVulkan12Features v12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
    VkPhysicalDeviceVulkan11Features v11{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES, &v12};
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2, &v11};
    double instance_ms = 0, device_ms = 0;

    explicit EngineDevice(const std::string& want) {
        auto t0 = Clock::now();
        VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
        app.apiVersion = VK_API_VERSION_1_2;
        VkInstanceCreateInfo ici{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
        ici.pApplicationInfo = &app;
        vk_check(vkCreateInstance(&ici, nullptr, &instance), "vkCreateInstance");
        auto t1 = Clock::now();
        uint32_t n = 0;
        vkEnumeratePhysicalDevices(instance, &n, nullptr);
        std::vector<VkPhysicalDevice> devices(n);
        vkEnumeratePhysicalDevices(instance, &n, devices.data());
        for (VkPhysicalDevice d : devices) {
            VkPhysicalDeviceProperties p;
            vkGetPhysicalDeviceProperties(d, &p);
            bool named = !want.empty() && std::string(p.deviceName).find(want) != std::string::npos;
            bool discrete = want.empty() && p.deviceType == VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU;
            if (named || discrete || (want.empty() && !physical)) physical = d;
            if (named || discrete) break;
        }
        if (!physical) throw std::runtime_error("no Vulkan device matches '" + want + "'");
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(physical, &p);
        if (p.apiVersion < VK_API_VERSION_1_2) v11.pNext = nullptr; // no Vulkan 1.2 feature struct
        vkGetPhysicalDeviceFeatures2(physical, &features);
        uint32_t families = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, nullptr);
        std::vector<VkQueueFamilyProperties> props(families);
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, props.data());
        while (family < families && !(props[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;
        if (family == families) throw std::runtime_error("the device has no compute queue");
        float priority = 1.0f;
        VkDeviceQueueCreateInfo qci{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
        qci.queueFamilyIndex = family;
        qci.queueCount = 1;
        qci.pQueuePriorities = &priority;
        VkDeviceCreateInfo dci{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO, &features};
        dci.queueCreateInfoCount = 1;
        dci.pQueueCreateInfos = &qci;
        vk_check(vkCreateDevice(physical, &dci, nullptr, &device), "vkCreateDevice");
        vkGetDeviceQueue(device, family, 0, &queue);
        auto t2 = Clock::now();
        instance_ms = ms(t0, t1);
        device_ms = ms(t1, t2);
    }
    ~EngineDevice() {
        if (device) vkDestroyDevice(device, nullptr);
        if (instance) vkDestroyInstance(instance, nullptr);
    }
    AdoptedDevice adopted() const { return {instance, physical, device, family, queue, &features}; }
};

} // namespace

int bench_first_call(const std::string& device, bool engine, int prepare_threads) {
    std::optional<EngineDevice> own;
    if (engine) own.emplace(device);
    auto t0 = Clock::now();
    ContextOptions options;
    options.device = device;
    if (own) options.adopt = own->adopted();
    Context ctx(options);
    auto t1 = Clock::now();
    // What an engine would make ready at load time: every tile choice of the common scans and
    // reductions, on its loading threads.
    double prepare_ms = 0;
    std::vector<ScanPreparation> preparations;
    if (prepare_threads > 0) {
        ctx.device().probe_subgroup_layout(ctx.queue(), ctx.queue_family()); // so that the subgroup modules count
        for (Type type : {Type::u32, Type::u64, Type::f32, Type::f64}) {
            for (Op op : {Op::add, Op::min, Op::max}) {
                for (bool reduce : {false, true}) {
                    ScanPreparation p;
                    p.type = type;
                    p.op = op;
                    p.reduce = reduce;
                    p.max_count = uint64_t(1) << 28;
                    preparations.push_back(p);
                }
            }
        }
        auto p0 = Clock::now();
        ctx.device().prepare_scans(preparations, uint32_t(prepare_threads));
        prepare_ms = ms(p0, Clock::now());
    }
    const uint64_t n = uint64_t(1) << 20;
    std::vector<uint32_t> data(n);
    uint32_t want = 0;
    for (uint64_t i = 0; i < n; ++i) want += data[i] = hash(uint32_t(i));
    Buffer buffer = ctx.create_buffer(n * 4), out = ctx.create_buffer(n * 4);
    ctx.upload(buffer, data.data(), n * 4);
    auto t2 = Clock::now();
    ctx.scan(buffer, out, Type::u32, Op::add, n);
    auto t3 = Clock::now();
    ctx.scan(buffer, out, Type::u32, Op::add, n);
    auto t4 = Clock::now();
    uint32_t last = 0;
    ctx.download(out, &last, 4, (n - 1) * 4);
    // The first sort: its subgroup layout probe and pipelines, then one more.
    Buffer keys = ctx.create_buffer(n * 4);
    ctx.upload(keys, data.data(), n * 4);
    auto t5 = Clock::now();
    ctx.sort(keys, Type::u32, n);
    auto t6 = Clock::now();
    ctx.upload(keys, data.data(), n * 4);
    auto t7 = Clock::now();
    ctx.sort(keys, Type::u32, n);
    auto t8 = Clock::now();
    std::vector<uint32_t> sorted(n);
    ctx.download(keys, sorted.data(), n * 4);
    const std::string cache = ctx.device().pipeline_cache_file();
    std::printf("# vkc bench first-call%s: %s (%s), %s; pipeline cache file %s\n", engine ? " --engine" : "",
                ctx.info().name.c_str(), ctx.info().driver.c_str(), today().c_str(),
                cache.empty() ? "none (memory only)" : cache.c_str());
    if (own) {
        std::printf("engine's instance %.1f ms and device %.1f ms (the driver's); ", own->instance_ms, own->device_ms);
    }
    std::printf("context %.1f ms; first scan of 2^20 u32 %.1f ms (pipelines included); second %.2f ms; "
                "context to first result %.1f ms\n",
                ms(t0, t1), ms(t2, t3), ms(t3, t4), ms(t0, t1) + ms(t2, t3));
    std::printf("first sort of 2^20 u32 keys %.1f ms (pipelines included); second %.2f ms\n", ms(t5, t6), ms(t7, t8));
    if (prepare_threads > 0) {
        std::printf("prepare_scans of %zu scans and reductions (u32 u64 f32 f64 x add min max, up to 2^28 items) on %d "
                    "threads: %.1f ms, before the first scan\n",
                    preparations.size(), prepare_threads, prepare_ms);
    }
    if (last != want) {
        std::printf("FAIL: the last sum is %u, expected %u\n", last, want);
        return 1;
    }
    std::vector<uint32_t> want_sorted(data);
    std::sort(want_sorted.begin(), want_sorted.end());
    if (sorted != want_sorted) {
        std::printf("FAIL: the sorted keys differ from std::sort's\n");
        return 1;
    }
    return 0;
}

} // namespace vkc::tool
