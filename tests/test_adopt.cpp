// ContextOptions::adopt: a Context on an engine's own instance and device, its plans recorded into the
// engine's command buffer on the engine's buffers, the way an engine that owns its Vulkan objects uses
// vkcollectives.
#include <vulkan/vulkan.h> // the loader's exports, as an engine that links libvulkan calls them

#include "support.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <random>
#include <string>
#include <vector>

#include <unistd.h>

using namespace vkc;

namespace {

uint32_t engine_messages = 0;
std::string engine_last_message;
VKAPI_ATTR VkBool32 VKAPI_CALL count_engine_message(VkDebugUtilsMessageSeverityFlagBitsEXT,
                                                    VkDebugUtilsMessageTypeFlagsEXT,
                                                    const VkDebugUtilsMessengerCallbackDataEXT* data, void*) {
    ++engine_messages;
    engine_last_message = data->pMessage ? data->pMessage : "";
    return VK_FALSE;
}

void must(VkResult r, const char* what) {
    if (r != VK_SUCCESS) throw Error(std::string(what) + " failed: " + std::to_string(r));
}

// What an engine makes for itself: an instance (with the validation layer where the tests have it), the
// device the tests run on, one compute queue, and the optional features it chooses to enable.
struct EngineDevice {
    VkInstance instance = VK_NULL_HANDLE;
    VkDebugUtilsMessengerEXT messenger = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    uint32_t family = 0;
    VkQueue queue = VK_NULL_HANDLE;
    VkPhysicalDeviceFeatures2 features{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2};
    VkPhysicalDeviceVulkan12Features features12{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};

    // with_64bit: shaderInt64 and (Vulkan 1.2) subgroup extended types enabled where the device has them.
    explicit EngineDevice(bool with_64bit) {
        test::context(); // the device the tests share, whose name the engine looks for
        bool validation = test::context().validation_enabled();
        VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
        app.apiVersion = VK_API_VERSION_1_2;
        const char* layer = "VK_LAYER_KHRONOS_validation";
        // The engine validates its frames with synchronization validation, as the plans' barrier
        // contract is what it checks.
        const char* extensions[] = {VK_EXT_DEBUG_UTILS_EXTENSION_NAME, VK_EXT_VALIDATION_FEATURES_EXTENSION_NAME};
        VkValidationFeatureEnableEXT sync = VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT;
        VkValidationFeaturesEXT features_on{VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT};
        features_on.enabledValidationFeatureCount = 1;
        features_on.pEnabledValidationFeatures = &sync;
        VkInstanceCreateInfo ii{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
        ii.pApplicationInfo = &app;
        ii.enabledLayerCount = validation ? 1 : 0;
        ii.ppEnabledLayerNames = &layer;
        ii.enabledExtensionCount = validation ? 2 : 0;
        ii.ppEnabledExtensionNames = extensions;
        if (validation) ii.pNext = &features_on;
        must(vkCreateInstance(&ii, nullptr, &instance), "vkCreateInstance");
        if (validation) {
            VkDebugUtilsMessengerCreateInfoEXT m{VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT};
            m.messageSeverity =
                VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
            m.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT | VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT;
            m.pfnUserCallback = count_engine_message;
            // Extension functions are not loader exports: an engine fetches them from its instance.
            auto create = reinterpret_cast<PFN_vkCreateDebugUtilsMessengerEXT>(
                vkGetInstanceProcAddr(instance, "vkCreateDebugUtilsMessengerEXT"));
            must(create(instance, &m, nullptr, &messenger), "vkCreateDebugUtilsMessengerEXT");
        }
        uint32_t n = 0;
        must(vkEnumeratePhysicalDevices(instance, &n, nullptr), "vkEnumeratePhysicalDevices");
        std::vector<VkPhysicalDevice> list(n);
        must(vkEnumeratePhysicalDevices(instance, &n, list.data()), "vkEnumeratePhysicalDevices");
        VkPhysicalDeviceProperties props{};
        for (VkPhysicalDevice pd : list) {
            vkGetPhysicalDeviceProperties(pd, &props);
            if (test::context().info().name == props.deviceName) {
                physical = pd;
                break;
            }
        }
        if (!physical) throw Error("the engine's instance does not list " + test::context().info().name);
        uint32_t families = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, nullptr);
        std::vector<VkQueueFamilyProperties> family_list(families);
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, family_list.data());
        while (family < families && !(family_list[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;
        if (family == families) throw Error("no compute queue");

        // Query, then keep only what this engine enables.
        bool v12 = props.apiVersion >= VK_API_VERSION_1_2;
        features.pNext = v12 ? &features12 : nullptr;
        vkGetPhysicalDeviceFeatures2(physical, &features);
        VkPhysicalDeviceFeatures2 supported = features;
        VkPhysicalDeviceVulkan12Features supported12 = features12;
        features.features = {};
        features12 = {VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES};
        if (with_64bit) {
            features.features.shaderInt64 = supported.features.shaderInt64;
            features12.shaderSubgroupExtendedTypes = supported12.shaderSubgroupExtendedTypes;
        }

        float priority = 1.0f;
        VkDeviceQueueCreateInfo q{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
        q.queueFamilyIndex = family;
        q.queueCount = 1;
        q.pQueuePriorities = &priority;
        VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
        di.pNext = &features;
        di.queueCreateInfoCount = 1;
        di.pQueueCreateInfos = &q;
        must(vkCreateDevice(physical, &di, nullptr, &device), "vkCreateDevice");
        vkGetDeviceQueue(device, family, 0, &queue);
    }
    ~EngineDevice() {
        if (device) vkDestroyDevice(device, nullptr);
        if (messenger) {
            reinterpret_cast<PFN_vkDestroyDebugUtilsMessengerEXT>(
                vkGetInstanceProcAddr(instance, "vkDestroyDebugUtilsMessengerEXT"))(instance, messenger, nullptr);
        }
        if (instance) vkDestroyInstance(instance, nullptr);
    }
    EngineDevice(const EngineDevice&) = delete;

    AdoptedDevice adopted() const { return {instance, physical, device, family, queue, &features}; }
    DeviceCreateInfo create_info() const {
        DeviceCreateInfo c;
        c.instance = instance;
        c.physical_device = physical;
        c.device = device;
        c.enabled_features = &features;
        return c;
    }
};

// A buffer of the engine's own, in host-visible memory so that the test reads and writes it directly.
struct EngineBuffer {
    const EngineDevice& e;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    uint8_t* bytes = nullptr;

    EngineBuffer(const EngineDevice& engine, uint64_t size) : e(engine) {
        VkBufferCreateInfo b{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
        b.size = size;
        b.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
        must(vkCreateBuffer(e.device, &b, nullptr, &buffer), "vkCreateBuffer");
        VkMemoryRequirements need{};
        vkGetBufferMemoryRequirements(e.device, buffer, &need);
        VkPhysicalDeviceMemoryProperties mem{};
        vkGetPhysicalDeviceMemoryProperties(e.physical, &mem);
        const VkMemoryPropertyFlags want = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
        uint32_t type = 0;
        while (type < mem.memoryTypeCount &&
               !((need.memoryTypeBits >> type & 1) && (mem.memoryTypes[type].propertyFlags & want) == want)) {
            ++type;
        }
        if (type == mem.memoryTypeCount) throw Error("no host-visible memory for a storage buffer");
        VkMemoryAllocateInfo a{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        a.allocationSize = need.size;
        a.memoryTypeIndex = type;
        must(vkAllocateMemory(e.device, &a, nullptr, &memory), "vkAllocateMemory");
        must(vkBindBufferMemory(e.device, buffer, memory, 0), "vkBindBufferMemory");
        void* p = nullptr;
        must(vkMapMemory(e.device, memory, 0, VK_WHOLE_SIZE, 0, &p), "vkMapMemory");
        bytes = static_cast<uint8_t*>(p);
    }
    ~EngineBuffer() {
        vkDestroyBuffer(e.device, buffer, nullptr);
        vkFreeMemory(e.device, memory, nullptr);
    }
};

// Records the plan into a command buffer of the engine's own between the barriers the header asks
// for, submits it to the engine's queue and waits.
void run_in_engine_commands(const EngineDevice& e, const ScanPlan& plan) {
    VkCommandPool pool = VK_NULL_HANDLE;
    VkCommandPoolCreateInfo p{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    p.queueFamilyIndex = e.family;
    must(vkCreateCommandPool(e.device, &p, nullptr, &pool), "vkCreateCommandPool");
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    VkCommandBufferAllocateInfo a{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    a.commandPool = pool;
    a.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    a.commandBufferCount = 1;
    must(vkAllocateCommandBuffers(e.device, &a, &cmd), "vkAllocateCommandBuffers");
    VkCommandBufferBeginInfo b{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    vkBeginCommandBuffer(cmd, &b);
    VkMemoryBarrier before{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    before.srcAccessMask = VK_ACCESS_HOST_WRITE_BIT;
    before.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_HOST_BIT,
                              VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &before, 0,
                              nullptr, 0, nullptr);
    plan.record(cmd);
    VkMemoryBarrier after{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    after.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    after.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &after, 0,
                              nullptr, 0, nullptr);
    vkEndCommandBuffer(cmd);
    VkFence fence = VK_NULL_HANDLE;
    VkFenceCreateInfo f{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    must(vkCreateFence(e.device, &f, nullptr, &fence), "vkCreateFence");
    VkSubmitInfo s{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    s.commandBufferCount = 1;
    s.pCommandBuffers = &cmd;
    must(vkQueueSubmit(e.queue, 1, &s, fence), "vkQueueSubmit");
    must(vkWaitForFences(e.device, 1, &fence, VK_TRUE, 300ull * 1000 * 1000 * 1000), "vkWaitForFences");
    vkDestroyFence(e.device, fence, nullptr);
    vkDestroyCommandPool(e.device, pool, nullptr);
}

// A scan of `count` random items of T recorded on the engine's buffers, input and output at non-zero
// offsets in one buffer whose other bytes hold a pattern; checked against a CPU scan, and the pattern
// checked unchanged.
const DeviceInfo& info_of(const Context& c) { return c.info(); }
const DeviceInfo& info_of(const Device& d) { return d.info(); }

// ctx: a Device made from the engine's device, or a Context's.
template <class T, class Planner>
void check_engine_scan(Planner& ctx, const EngineDevice& e, Type type, bool exclusive, uint64_t count, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<T> in(count);
    for (auto& x : in) x = T(rng() % 1000);
    const uint64_t align = std::max<uint64_t>(256, info_of(ctx).min_storage_buffer_offset_alignment);
    const uint64_t bytes = count * sizeof(T);
    const uint64_t in_at = align, out_at = (in_at + bytes + align) / align * align;
    const uint64_t data_size = out_at + bytes + align;
    ScanOptions o;
    o.exclusive = exclusive;
    const uint64_t scratch_bytes = ctx.scan_scratch_bytes(type, count, o);
    EngineBuffer data(e, data_size), scratch(e, align + scratch_bytes);
    for (uint64_t i = 0; i < data_size; ++i) data.bytes[i] = uint8_t(rng());
    std::vector<uint8_t> pattern(data.bytes, data.bytes + data_size);
    std::memcpy(data.bytes + in_at, in.data(), bytes);
    ScanPlan plan = ctx.plan_scan(type, Op::add, count, {data.buffer, in_at, bytes}, {data.buffer, out_at, bytes},
                                  {scratch.buffer, align, scratch_bytes}, o);
    run_in_engine_commands(e, plan);
    T running = 0;
    uint64_t wrong = 0, first_wrong = count;
    for (uint64_t i = 0; i < count; ++i) {
        T want = exclusive ? running : T(running + in[i]);
        running = T(running + in[i]);
        T got;
        std::memcpy(&got, data.bytes + out_at + i * sizeof(T), sizeof(T));
        if (got != want && wrong++ == 0) first_wrong = i;
    }
    CHECK_MESSAGE(wrong == 0, wrong << " items wrong, the first at " << first_wrong);
    uint64_t changed = 0;
    for (uint64_t i = 0; i < data_size; ++i) {
        bool inside = (i >= in_at && i < in_at + bytes) || (i >= out_at && i < out_at + bytes);
        if (!inside && data.bytes[i] != pattern[i]) ++changed;
    }
    CHECK_MESSAGE(changed == 0, changed << " bytes outside the input and output changed");
}

} // namespace

TEST_CASE("adopted device: plans recorded into the engine's command buffer on the engine's buffers") {
    engine_messages = 0;
    {
        EngineDevice engine(true);
        ContextOptions options;
        options.adopt = engine.adopted();
        Context ctx(options);
        CHECK(ctx.vk_device() == engine.device);
        CHECK(ctx.queue() == engine.queue);
        CHECK(ctx.info().name == test::context().info().name);
        const uint64_t tile = ctx.device().scan_tile(Type::u32).items();
        check_engine_scan<uint32_t>(ctx.device(), engine, Type::u32, false, 7 * tile + 5, 1);
        check_engine_scan<uint32_t>(ctx.device(), engine, Type::u32, true, 3 * tile - 1, 2);
        if (engine.features.features.shaderInt64) {
            check_engine_scan<uint64_t>(ctx.device(), engine, Type::u64, true, 5 * ctx.device().scan_tile(Type::u64).items() + 3, 3);
        }
        // The Context's own calls submit to the engine's queue.
        std::vector<uint32_t> items(1000);
        for (uint32_t i = 0; i < items.size(); ++i) items[i] = i % 7;
        std::vector<uint32_t> sums = ctx.scan(std::span<const uint32_t>(items), Op::add);
        uint32_t running = 0, wrong = 0;
        for (uint32_t i = 0; i < items.size(); ++i) wrong += sums[i] != (running += items[i]);
        CHECK(wrong == 0);
        CHECK(ctx.reduce(std::span<const uint32_t>(items), Op::add) == running);
    } // the Context goes first, then the engine's device and instance: nothing of theirs destroyed twice
    CHECK_MESSAGE(engine_messages == 0, "validation messages on the engine's instance: " << engine_last_message);
}

TEST_CASE("engine device: a vkc::Device made from the engine's device sizes scratch and records plans") {
    engine_messages = 0;
    {
        EngineDevice engine(true);
        Device gpu(engine.create_info());
        CHECK(gpu.info().name == test::context().info().name);
        const uint64_t tile = gpu.scan_tile(Type::u32).items();
        check_engine_scan<uint32_t>(gpu, engine, Type::u32, false, 9 * tile + 7, 11);
        check_engine_scan<uint32_t>(gpu, engine, Type::u32, true, tile + 1, 12);
        if (engine.features.features.shaderInt64) {
            check_engine_scan<uint64_t>(gpu, engine, Type::u64, false, 4 * gpu.scan_tile(Type::u64).items() + 1, 13);
        }
        CHECK(gpu.vk_pipeline_cache() != VK_NULL_HANDLE);
        CHECK(!gpu.pipeline_cache_data().empty());
        // A moved-from Device is empty; the moved-to one keeps working.
        Device moved = std::move(gpu);
        check_engine_scan<uint32_t>(moved, engine, Type::u32, false, 2 * tile, 14);
        // A Context on the same device holds the same kind of Device.
        ContextOptions options;
        options.adopt = engine.adopted();
        Context ctx(options);
        CHECK(ctx.device().info().name == moved.info().name);
        check_engine_scan<uint32_t>(ctx.device(), engine, Type::u32, false, 3 * tile + 2, 15);
    }
    CHECK_MESSAGE(engine_messages == 0, "validation messages on the engine's instance: " << engine_last_message);
}

namespace {
// Sets (or, with null, unsets) an environment variable for a scope, and puts it back after.
struct ScopedEnvironment {
    std::string name;
    std::optional<std::string> before;
    ScopedEnvironment(const char* n, const char* value) : name(n) {
        if (const char* v = std::getenv(n)) before = v;
        if (value) ::setenv(n, value, 1);
        else ::unsetenv(n);
    }
    ~ScopedEnvironment() {
        if (before) ::setenv(name.c_str(), before->c_str(), 1);
        else ::unsetenv(name.c_str());
    }
};

std::vector<std::filesystem::path> files_in(const std::filesystem::path& dir) {
    std::vector<std::filesystem::path> found;
    if (!std::filesystem::exists(dir)) return found;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
        if (entry.is_regular_file()) found.push_back(entry.path());
    }
    return found;
}

uint32_t last_sum(Context& ctx, const std::vector<uint32_t>& items) {
    return ctx.scan(std::span<const uint32_t>(items), Op::add).back();
}
} // namespace

TEST_CASE("pipeline cache: a Context keeps its own in the user's cache directory; a Device never writes one") {
    const auto home = std::filesystem::temp_directory_path() / ("vkc_xdg_" + std::to_string(::getpid()));
    std::filesystem::remove_all(home);
    ScopedEnvironment xdg("XDG_CACHE_HOME", home.c_str());
    ScopedEnvironment named("VKC_PIPELINE_CACHE", nullptr);
    const std::filesystem::path dir = home / "vkcollectives";
    const std::vector<uint32_t> items(1000, 1);
    ContextOptions options;
    options.device = test::context().info().name;

    SUBCASE("by default: one file for the device and driver, read back by the next Context") {
        { Context first(options); CHECK(last_sum(first, items) == 1000); }
        std::vector<std::filesystem::path> files = files_in(dir);
        REQUIRE(files.size() == 1);
        const std::string name = files[0].filename().string();
        CHECK_MESSAGE(name.rfind("pipelines-", 0) == 0, name);
        // pipelines-<vendor>-<device>-<pipelineCacheUUID, 32 hex digits>.bin
        REQUIRE_MESSAGE(name.size() > 37, name);
        CHECK_MESSAGE(name.substr(name.size() - 4) == ".bin", name);
        const std::string uuid = name.substr(name.size() - 36, 32);
        CHECK_MESSAGE(uuid.find_first_not_of("0123456789abcdef") == std::string::npos, name);
        CHECK_MESSAGE(name[name.size() - 37] == '-', name);
        CHECK(std::filesystem::file_size(files[0]) > 0);
        // Contexts that compiled nothing the file lacks leave it as it is (lavapipe's cache holds no
        // pipelines); on a driver that keeps them, each merges what the others saved before it writes.
        const auto written = std::filesystem::last_write_time(files[0]);
        {
            Context a(options), b(options);
            CHECK(last_sum(a, items) == 1000);
            CHECK(last_sum(b, items) == 1000);
        }
        CHECK(files_in(dir) == files); // no temporary file left behind
        CHECK(std::filesystem::last_write_time(files[0]) == written);
        Context again(options);
        CHECK(last_sum(again, items) == 1000);
        CHECK(!again.device().pipeline_cache_data().empty());
    }
    SUBCASE("persistent_pipeline_cache off: memory only") {
        options.persistent_pipeline_cache = false;
        { Context ctx(options); CHECK(last_sum(ctx, items) == 1000); }
        CHECK(files_in(dir).empty());
    }
    SUBCASE("VKC_PIPELINE_CACHE=none: memory only") {
        ScopedEnvironment none("VKC_PIPELINE_CACHE", "none");
        { Context ctx(options); CHECK(last_sum(ctx, items) == 1000); }
        CHECK(files_in(home).size() == files_in(home / "mesa_shader_cache").size()); // nothing of ours
    }
    SUBCASE("a named file wins over the default") {
        options.pipeline_cache_path = (home / "mine.bin").string();
        { Context ctx(options); CHECK(last_sum(ctx, items) == 1000); }
        CHECK(std::filesystem::exists(home / "mine.bin"));
        CHECK(files_in(dir).empty());
    }
    SUBCASE("a vkc::Device on the engine's device writes no file") {
        engine_messages = 0;
        {
            EngineDevice engine(false);
            Device gpu(engine.create_info());
            check_engine_scan<uint32_t>(gpu, engine, Type::u32, false, 3 * gpu.scan_tile(Type::u32).items() + 1, 21);
        }
        CHECK(files_in(dir).empty());
        CHECK_MESSAGE(engine_messages == 0, "validation messages on the engine's instance: " << engine_last_message);
    }
    std::filesystem::remove_all(home);
}

TEST_CASE("adopted device: features the engine did not enable are not used, and bad handles are named") {
    engine_messages = 0;
    {
        EngineDevice engine(false); // no optional features: 64-bit items cannot run
        ContextOptions options;
        options.adopt = engine.adopted();
        Context ctx(options);
        CHECK(!any(ctx.info().features & Feature::shader_int64));
        BufferRange none{};
        try {
            ctx.device().plan_scan(Type::u64, Op::add, 100, none, none, none);
            FAIL("a u64 plan on a device without shaderInt64 enabled was accepted");
        } catch (const Error& e) {
            CHECK_MESSAGE(dynamic_cast<const UnsupportedError*>(&e) != nullptr, e.what());
            CHECK_MESSAGE(std::string(e.what()).find("shaderInt64") != std::string::npos, e.what());
        }
        check_engine_scan<uint32_t>(ctx.device(), engine, Type::u32, false, 2 * ctx.device().scan_tile(Type::u32).items() + 1, 4);

        auto refused = [&](AdoptedDevice bad, const char* named) {
            ContextOptions o;
            o.adopt = bad;
            try {
                Context c(o);
                FAIL("adopting with " << named << " wrong was accepted");
            } catch (const Error& e) {
                CHECK_MESSAGE(std::string(e.what()).find(named) != std::string::npos, e.what());
            }
        };
        AdoptedDevice bad = engine.adopted();
        bad.queue = VK_NULL_HANDLE;
        refused(bad, "queue is VK_NULL_HANDLE");
        bad = engine.adopted();
        bad.physical_device = VK_NULL_HANDLE;
        refused(bad, "physical_device");
        bad = engine.adopted();
        bad.queue_family = 1000;
        refused(bad, "queue_family");
        VkPhysicalDeviceFeatures2 wrong_chain = engine.features;
        wrong_chain.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
        bad = engine.adopted();
        bad.enabled_features = &wrong_chain;
        refused(bad, "enabled_features");
    }
    CHECK_MESSAGE(engine_messages == 0, "validation messages on the engine's instance: " << engine_last_message);
}

// ---- Faults: every device memory allocation may fail (host allocations: tests/faults.cpp) ------------
namespace {
// Device memory: an engine's vkGetInstanceProcAddr (AdoptedDevice::get_instance_proc_addr) whose
// vkAllocateMemory fails its n-th call with VK_ERROR_OUT_OF_DEVICE_MEMORY.
struct FailingMemory {
    static inline PFN_vkAllocateMemory real_allocate = nullptr;
    static inline PFN_vkGetDeviceProcAddr real_device_proc = nullptr;
    static inline int64_t countdown = -1;
    static VKAPI_ATTR VkResult VKAPI_CALL allocate(VkDevice d, const VkMemoryAllocateInfo* info,
                                                   const VkAllocationCallbacks* a, VkDeviceMemory* memory) {
        if (countdown >= 0 && countdown-- == 0) return VK_ERROR_OUT_OF_DEVICE_MEMORY;
        return real_allocate(d, info, a, memory);
    }
    static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL device_proc(VkDevice d, const char* name) {
        if (std::strcmp(name, "vkAllocateMemory") == 0) {
            real_allocate = reinterpret_cast<PFN_vkAllocateMemory>(real_device_proc(d, name));
            return reinterpret_cast<PFN_vkVoidFunction>(allocate);
        }
        return real_device_proc(d, name);
    }
    static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL instance_proc(VkInstance i, const char* name) {
        if (std::strcmp(name, "vkGetDeviceProcAddr") == 0) {
            real_device_proc = reinterpret_cast<PFN_vkGetDeviceProcAddr>(vkGetInstanceProcAddr(i, name));
            return reinterpret_cast<PFN_vkVoidFunction>(device_proc);
        }
        return vkGetInstanceProcAddr(i, name);
    }
};

// A scan and a plan on a Context; the result is checked, so a fault may give an Error, never a wrong answer.
void scan_and_plan(Context& ctx) {
    std::vector<uint32_t> items(3000);
    for (size_t i = 0; i < items.size(); ++i) items[i] = uint32_t(i * 7 + 1);
    std::vector<uint32_t> sums = ctx.scan(std::span<const uint32_t>(items), Op::add);
    uint32_t want = 0;
    for (size_t i = 0; i < items.size(); ++i) {
        want += items[i];
        if (sums[i] != want) throw std::logic_error("wrong sum at item " + std::to_string(i));
    }
    uint64_t scratch = ctx.device().scan_scratch_bytes(Type::u32, items.size());
    Buffer data = ctx.create_buffer(items.size() * 4), scratch_buffer = ctx.create_buffer(scratch);
    ScanPlan plan = ctx.device().plan_scan(Type::u32, Op::add, items.size(), {data.handle(), 0, items.size() * 4},
                                  {data.handle(), 0, items.size() * 4}, {scratch_buffer.handle(), 0, scratch});
    CHECK(plan.dispatches() >= 1);
}
} // namespace

TEST_CASE("faults: every device memory allocation of a scan and a plan may fail") {
    EngineDevice engine(false);
    AdoptedDevice adopted = engine.adopted();
    adopted.get_instance_proc_addr = FailingMemory::instance_proc;
    ContextOptions options;
    options.adopt = adopted;
    Context ctx(options);
    int errors = 0;
    for (int64_t n = 0;; ++n) {
        FailingMemory::countdown = n;
        bool failed = false;
        try {
            scan_and_plan(ctx);
        } catch (const Error& e) {
            failed = true;
            ++errors;
            CHECK_MESSAGE(std::string(e.what()).find("out of device memory") != std::string::npos, e.what());
        }
        FailingMemory::countdown = -1;
        if (!failed) break;
        scan_and_plan(ctx); // the Context still works
        REQUIRE(n < 1000);
    }
    CHECK(errors > 0);
}

namespace {
bool has(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }
using test::error_of;

// An engine's vkGetInstanceProcAddr that counts what vkc calls: submissions and waits on a queue,
// device memory, command pools and fences.
struct CallCounter {
    static inline std::map<std::string, int> calls;
    static inline PFN_vkGetDeviceProcAddr real_device_proc = nullptr;
    static inline std::map<std::string, PFN_vkVoidFunction> real;
    template <class R, class... A>
    static R forward(const char* name, A... args) {
        ++calls[name];
        using F = R(VKAPI_PTR*)(A...);
        return reinterpret_cast<F>(real[name])(args...);
    }
    static VKAPI_ATTR VkResult VKAPI_CALL submit(VkQueue q, uint32_t n, const VkSubmitInfo* s, VkFence f) {
        return forward<VkResult>("vkQueueSubmit", q, n, s, f);
    }
    static VKAPI_ATTR VkResult VKAPI_CALL submit2(VkQueue q, uint32_t n, const void* s, VkFence f) {
        return forward<VkResult>("vkQueueSubmit2", q, n, s, f);
    }
    static VKAPI_ATTR VkResult VKAPI_CALL queue_wait(VkQueue q) { return forward<VkResult>("vkQueueWaitIdle", q); }
    static VKAPI_ATTR VkResult VKAPI_CALL device_wait(VkDevice d) { return forward<VkResult>("vkDeviceWaitIdle", d); }
    static VKAPI_ATTR VkResult VKAPI_CALL allocate(VkDevice d, const VkMemoryAllocateInfo* i,
                                                   const VkAllocationCallbacks* a, VkDeviceMemory* m) {
        return forward<VkResult>("vkAllocateMemory", d, i, a, m);
    }
    static VKAPI_ATTR VkResult VKAPI_CALL create_pool(VkDevice d, const VkCommandPoolCreateInfo* i,
                                                      const VkAllocationCallbacks* a, VkCommandPool* p) {
        return forward<VkResult>("vkCreateCommandPool", d, i, a, p);
    }
    static VKAPI_ATTR VkResult VKAPI_CALL create_fence(VkDevice d, const VkFenceCreateInfo* i,
                                                       const VkAllocationCallbacks* a, VkFence* f) {
        return forward<VkResult>("vkCreateFence", d, i, a, f);
    }
    static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL device_proc(VkDevice d, const char* name) {
        static const std::map<std::string, PFN_vkVoidFunction> counted = {
            {"vkQueueSubmit", reinterpret_cast<PFN_vkVoidFunction>(submit)},
            {"vkQueueSubmit2", reinterpret_cast<PFN_vkVoidFunction>(submit2)},
            {"vkQueueSubmit2KHR", reinterpret_cast<PFN_vkVoidFunction>(submit2)},
            {"vkQueueWaitIdle", reinterpret_cast<PFN_vkVoidFunction>(queue_wait)},
            {"vkDeviceWaitIdle", reinterpret_cast<PFN_vkVoidFunction>(device_wait)},
            {"vkAllocateMemory", reinterpret_cast<PFN_vkVoidFunction>(allocate)},
            {"vkCreateCommandPool", reinterpret_cast<PFN_vkVoidFunction>(create_pool)},
            {"vkCreateFence", reinterpret_cast<PFN_vkVoidFunction>(create_fence)}};
        PFN_vkVoidFunction f = real_device_proc(d, name);
        auto it = counted.find(name);
        if (it == counted.end() || !f) return f;
        // vkQueueSubmit2KHR counts as vkQueueSubmit2
        real[std::strcmp(name, "vkQueueSubmit2KHR") == 0 ? "vkQueueSubmit2" : name] = f;
        return it->second;
    }
    static VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL instance_proc(VkInstance i, const char* name) {
        if (std::strcmp(name, "vkGetDeviceProcAddr") == 0) {
            real_device_proc = reinterpret_cast<PFN_vkGetDeviceProcAddr>(vkGetInstanceProcAddr(i, name));
            return reinterpret_cast<PFN_vkVoidFunction>(device_proc);
        }
        return vkGetInstanceProcAddr(i, name);
    }
    static int total() {
        int n = 0;
        for (auto& [name, count] : calls) n += count;
        return n;
    }
    static std::string listed() {
        std::string s;
        for (auto& [name, count] : calls) s += name + " x" + std::to_string(count) + " ";
        return s;
    }
};

// Plans of every kind on throwaway ranges of one engine buffer; returns the scan and reduce plans'
// paths (the sort's follow their own rule, src/sort/plan.cpp).
std::vector<Path> plan_every_kind(Device& gpu, const EngineDevice& e, uint64_t count) {
    const uint64_t align = std::max<uint64_t>(256, gpu.info().min_storage_buffer_offset_alignment);
    const uint64_t bytes = (count * 4 + align - 1) / align * align;
    const uint64_t scratch = std::max({gpu.scan_scratch_bytes(Type::u32, count), gpu.reduce_scratch_bytes(Type::u32, count),
                                       gpu.sort_scratch_bytes(Type::u32, count)});
    EngineBuffer buffer(e, 2 * bytes + scratch + 2 * align);
    BufferRange in{buffer.buffer, 0, count * 4}, out{buffer.buffer, bytes, count * 4},
        scratch_range{buffer.buffer, 2 * bytes, scratch};
    IndirectCount indirect{buffer.buffer, 2 * bytes + scratch + align, count};
    std::vector<Path> paths;
    for (const ScanPlan& p : {gpu.plan_scan(Type::u32, Op::add, count, in, out, scratch_range),
                              gpu.plan_reduce(Type::u32, Op::max, count, in, {buffer.buffer, bytes, 4}, scratch_range),
                              gpu.plan_scan(Type::u32, Op::add, indirect, in, out, scratch_range),
                              gpu.plan_reduce(Type::u32, Op::add, indirect, in, {buffer.buffer, bytes, 4}, scratch_range)}) {
        CHECK(p.dispatches() >= 1);
        paths.push_back(p.path());
    }
    for (const SortPlan& p : {gpu.plan_sort(Type::u32, count, in, out, scratch_range),
                              gpu.plan_sort(Type::f32, indirect, in, out, scratch_range)}) {
        // One work-group for a tile of keys or fewer; else the count, then four passes.
        CHECK(p.dispatches() == (count <= sort_tile_keys ? 1u : 5u));
    }
    return paths;
}
} // namespace

TEST_CASE("engine device: a vkc::Device records and never submits; the layout comes from a probe the engine calls") {
    engine_messages = 0;
    {
        EngineDevice engine(false);
        DeviceCreateInfo create = engine.create_info();
        create.get_instance_proc_addr = CallCounter::instance_proc;
        CallCounter::calls.clear();
        Device gpu(create);
        const uint64_t tile = gpu.scan_tile(Type::u32).items();
        CHECK(gpu.subgroup_layout().size_count == 0);
        // No layout known: plans take the shared-memory modules, which need none, and are correct.
        for (Path p : plan_every_kind(gpu, engine, 5 * tile + 3)) CHECK(p == Path::shared_memory);
        check_engine_scan<uint32_t>(gpu, engine, Type::u32, false, 6 * tile + 1, 21);
        check_engine_scan<uint32_t>(gpu, engine, Type::u32, true, 2 * tile + 9, 22);
        CHECK_MESSAGE(CallCounter::total() == 0, "the Device called " << CallCounter::listed());

        // The engine names a queue: one submission, one fence and pool of the probe's own, one buffer.
        SubgroupLayout layout = gpu.probe_subgroup_layout(engine.queue, engine.family);
        CHECK(CallCounter::calls["vkQueueSubmit"] == 1);
        CHECK(CallCounter::calls["vkAllocateMemory"] == 1);
        CHECK(CallCounter::calls["vkQueueWaitIdle"] + CallCounter::calls["vkDeviceWaitIdle"] == 0);
        const uint32_t size = gpu.scan_tile(Type::u32).workgroup_size;
        bool subgroups = any(gpu.info().features & Feature::subgroup_basic);
        CHECK(layout.size_count != 0);
        // The tile sizes the tuning picks are probed, powers of 2 or not (a wide 32-bit tile at 2^28).
        for (uint64_t count : {uint64_t(0), uint64_t(1) << 28}) {
            uint32_t tile_size = gpu.scan_tile(Type::u32, {}, count).workgroup_size;
            CHECK(std::count(layout.sizes, layout.sizes + layout.size_count, tile_size) == 1);
        }
        CHECK(gpu.subgroup_layout().packed == layout.packed);
        // Lavapipe and the GPUs the tests run on pack in order; a device that does not still runs, on
        // the shared-memory modules.
        Path want = subgroups && layout.is_packed(size) ? test::preferred_path() : Path::shared_memory;
        CallCounter::calls.clear();
        for (Path p : plan_every_kind(gpu, engine, 5 * tile + 3)) CHECK(p == want);
        check_engine_scan<uint32_t>(gpu, engine, Type::u32, false, 6 * tile + 1, 23);
        check_engine_scan<uint32_t>(gpu, engine, Type::u32, true, 2 * tile + 9, 24);

        // The answer passed back when a Device is made again (as an engine keeps it with its pipeline
        // cache): the same plans, no probe.
        create.subgroup_layout = layout;
        Device again(create);
        CHECK(again.subgroup_layout().packed == layout.packed);
        for (Path p : plan_every_kind(again, engine, 5 * tile + 3)) CHECK(p == want);
        CHECK_MESSAGE(CallCounter::total() == 0, "the Devices called " << CallCounter::listed());

        // Bad queues are named before anything is submitted.
        CHECK(has(error_of([&] { gpu.probe_subgroup_layout(VK_NULL_HANDLE, engine.family); }), "queue is VK_NULL_HANDLE"));
        CHECK(has(error_of([&] { gpu.probe_subgroup_layout(engine.queue, 1000); }), "queue family 1000"));
        CHECK(CallCounter::total() == 0);
    }
    CHECK(CallCounter::calls["vkDeviceWaitIdle"] == 0); // nor when the Devices go
    CHECK_MESSAGE(engine_messages == 0, "validation messages on the engine's instance: " << engine_last_message);
}
