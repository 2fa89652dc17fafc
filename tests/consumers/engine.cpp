// An engine that embeds vkcollectives, built the ways engines are built (tests/consumers/CMakeLists.txt):
//   ENGINE_VOLK=0: it links the Vulkan loader and calls Vulkan through vulkan.h's prototypes;
//   ENGINE_VOLK=1: it compiles its own volk and calls Vulkan through volk's globals;
//   VKC_FIRST=1: <vkc/vkc.hpp> comes before the engine's Vulkan header, else after.
// It makes its own instance, device and buffers, makes a vkc::Device of them, records scan plans
// into its own command buffers (a count it knows, and one its GPU writes) and checks the sums; then
// it makes Contexts of its own with and without validation, on several threads, and checks that its
// own Vulkan calls still work afterwards.
// Exit 0 and "engine: ok" on success.
#if VKC_FIRST
#include <vkc/vkc.hpp>
#endif
#if ENGINE_VOLK
#include <volk.h>
#else
#include <vulkan/vulkan.h>
#endif
#if !VKC_FIRST
#include <vkc/vkc.hpp>
#endif

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

namespace {

void must(VkResult r, const char* what) {
    if (r != VK_SUCCESS) {
        std::fprintf(stderr, "engine: %s failed with %d\n", what, int(r));
        std::exit(1);
    }
}

void expect(bool ok, const std::string& what) {
    if (!ok) {
        std::fprintf(stderr, "engine: %s\n", what.c_str());
        std::exit(1);
    }
}

struct Engine {
    VkInstance instance = VK_NULL_HANDLE;
    VkPhysicalDevice physical = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    uint32_t family = 0;
    VkQueue queue = VK_NULL_HANDLE;

    Engine() {
#if ENGINE_VOLK
        must(volkInitialize(), "volkInitialize");
#endif
        VkApplicationInfo app{VK_STRUCTURE_TYPE_APPLICATION_INFO};
        app.apiVersion = VK_API_VERSION_1_1;
        VkInstanceCreateInfo ii{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO};
        ii.pApplicationInfo = &app;
        must(vkCreateInstance(&ii, nullptr, &instance), "vkCreateInstance");
#if ENGINE_VOLK
        volkLoadInstance(instance);
#endif
        uint32_t n = 0;
        must(vkEnumeratePhysicalDevices(instance, &n, nullptr), "vkEnumeratePhysicalDevices");
        std::vector<VkPhysicalDevice> list(n);
        must(vkEnumeratePhysicalDevices(instance, &n, list.data()), "vkEnumeratePhysicalDevices");
        expect(n > 0, "no Vulkan device");
        const char* want = std::getenv("VKC_DEVICE");
        physical = list[0];
        for (VkPhysicalDevice pd : list) {
            VkPhysicalDeviceProperties p{};
            vkGetPhysicalDeviceProperties(pd, &p);
            if (want && std::strstr(p.deviceName, want)) physical = pd;
        }
        uint32_t families = 0;
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, nullptr);
        std::vector<VkQueueFamilyProperties> props(families);
        vkGetPhysicalDeviceQueueFamilyProperties(physical, &families, props.data());
        while (family < families && !(props[family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++family;
        expect(family < families, "no compute queue");
        float priority = 1.0f;
        VkDeviceQueueCreateInfo q{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
        q.queueFamilyIndex = family;
        q.queueCount = 1;
        q.pQueuePriorities = &priority;
        VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO};
        di.queueCreateInfoCount = 1;
        di.pQueueCreateInfos = &q;
        must(vkCreateDevice(physical, &di, nullptr, &device), "vkCreateDevice");
        vkGetDeviceQueue(device, family, 0, &queue);
    }
    ~Engine() {
        vkDestroyDevice(device, nullptr);
        vkDestroyInstance(instance, nullptr);
    }

    vkc::DeviceCreateInfo create_info() const {
        vkc::DeviceCreateInfo c;
        c.instance = instance;
        c.physical_device = physical;
        c.device = device;
#if ENGINE_VOLK
        c.get_instance_proc_addr = vkGetInstanceProcAddr; // the engine's loader, as volk found it
#endif
        return c;
    }
};

// A host-visible buffer of the engine's, read and written directly.
struct HostBuffer {
    const Engine& e;
    VkBuffer buffer = VK_NULL_HANDLE;
    VkDeviceMemory memory = VK_NULL_HANDLE;
    void* data = nullptr;
    HostBuffer(const Engine& engine, VkDeviceSize size) : e(engine) {
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
        expect(type < mem.memoryTypeCount, "no host-visible memory");
        VkMemoryAllocateInfo a{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
        a.allocationSize = need.size;
        a.memoryTypeIndex = type;
        must(vkAllocateMemory(e.device, &a, nullptr, &memory), "vkAllocateMemory");
        must(vkBindBufferMemory(e.device, buffer, memory, 0), "vkBindBufferMemory");
        must(vkMapMemory(e.device, memory, 0, VK_WHOLE_SIZE, 0, &data), "vkMapMemory");
    }
    ~HostBuffer() {
        vkDestroyBuffer(e.device, buffer, nullptr);
        vkFreeMemory(e.device, memory, nullptr);
    }
};

// Records into a command buffer of the engine's, between a barrier from the host's writes and one to
// its reads, submits it and waits.
template <class Record>
void run_commands(const Engine& e, Record&& record) {
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
    VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    must(vkBeginCommandBuffer(cmd, &begin), "vkBeginCommandBuffer");
    VkMemoryBarrier before{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    before.srcAccessMask = VK_ACCESS_HOST_WRITE_BIT;
    before.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_HOST_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &before, 0,
                         nullptr, 0, nullptr);
    record(cmd);
    VkMemoryBarrier after{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    after.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    after.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &after, 0,
                         nullptr, 0, nullptr);
    must(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
    VkFence fence = VK_NULL_HANDLE;
    VkFenceCreateInfo f{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    must(vkCreateFence(e.device, &f, nullptr, &fence), "vkCreateFence");
    VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    submit.commandBufferCount = 1;
    submit.pCommandBuffers = &cmd;
    must(vkQueueSubmit(e.queue, 1, &submit, fence), "vkQueueSubmit");
    must(vkWaitForFences(e.device, 1, &fence, VK_TRUE, UINT64_MAX), "vkWaitForFences");
    vkDestroyFence(e.device, fence, nullptr);
    vkDestroyCommandPool(e.device, pool, nullptr);
}

// The engine's frame: vkcollectives scan plans recorded into its own command buffers, with the
// barriers the plans' contract asks of the caller (include/vkc/device_scan.hpp). First a count the
// engine knows; then one that a pass of the engine's writes on the GPU (here a fill), read by a plan
// made for a bound: items past the count must keep what they held.
void scan_in_engine(const Engine& e) {
    vkc::Device gpu(e.create_info());
    // At load time, on the engine's own terms: one submission to its queue, so that plans use the
    // subgroup modules where the device packs subgroups in order.
    gpu.probe_subgroup_layout(e.queue, e.family);
    const uint64_t bound = 100000;
    const VkDeviceSize bytes = bound * sizeof(uint32_t);
    const VkDeviceSize scratch_bytes = gpu.scan_scratch_bytes(vkc::Type::u32, bound);
    HostBuffer input(e, bytes), output(e, bytes), scratch(e, scratch_bytes), counts(e, 16);
    auto* in = static_cast<uint32_t*>(input.data);
    for (uint64_t i = 0; i < bound; ++i) in[i] = uint32_t(i * 2654435761u >> 20);
    auto* out = static_cast<uint32_t*>(output.data);
    auto check = [&](uint64_t count, const char* which) {
        uint32_t sum = 0;
        for (uint64_t i = 0; i < bound; ++i) {
            sum += in[i];
            uint32_t want = i < count ? sum : 0xabababab;
            expect(out[i] == want, std::string(which) + " scan item " + std::to_string(i) + ": " +
                                       std::to_string(out[i]) + ", expected " + std::to_string(want));
        }
    };

    std::memset(out, 0xab, bytes);
    vkc::ScanPlan plan = gpu.plan_scan(vkc::Type::u32, vkc::Op::add, bound, {input.buffer, 0, bytes},
                                       {output.buffer, 0, bytes}, {scratch.buffer, 0, scratch_bytes});
    run_commands(e, [&](VkCommandBuffer cmd) { plan.record(cmd); });
    check(bound, "direct");

    const uint32_t gpu_count = 77777;
    std::memset(out, 0xab, bytes);
    vkc::ScanPlan indirect = gpu.plan_scan(vkc::Type::u32, vkc::Op::add, vkc::IndirectCount{counts.buffer, 4, bound},
                                           {input.buffer, 0, bytes}, {output.buffer, 0, bytes},
                                           {scratch.buffer, 0, scratch_bytes});
    run_commands(e, [&](VkCommandBuffer cmd) {
        vkCmdFillBuffer(cmd, counts.buffer, 4, 4, gpu_count);
        VkMemoryBarrier count_written{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        count_written.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        count_written.dstAccessMask = VK_ACCESS_SHADER_READ_BIT;
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                             &count_written, 0, nullptr, 0, nullptr);
        indirect.record(cmd);
    });
    check(gpu_count, "indirect");
}

// Contexts of the library's own, of different options, on several threads at once, destroyed in
// another order than made: none may disturb another or the engine.
void own_contexts() {
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([t] {
            vkc::ContextOptions with, without;
            with.validation = (t % 2) == 0;
            auto first = std::make_unique<vkc::Context>(with);
            auto second = std::make_unique<vkc::Context>(without);
            std::vector<uint32_t> items(5000, 3);
            auto sums = second->scan(std::span<const uint32_t>(items), vkc::Op::add);
            first.reset(); // the validating one first: its messenger must go with its own instance
            expect(sums.back() == 15000, "own Context scan: " + std::to_string(sums.back()));
            vkc::Buffer kept = second->create_buffer(64);
            second.reset(); // a Buffer may outlive its Context
        });
    }
    for (auto& t : threads) t.join();
}

} // namespace

int main() {
    try {
        Engine engine;
        scan_in_engine(engine);
        own_contexts();
        // The engine's own Vulkan calls still go where they went.
        uint32_t n = 0;
        must(vkEnumeratePhysicalDevices(engine.instance, &n, nullptr), "vkEnumeratePhysicalDevices after vkc");
        expect(n > 0, "the engine's instance lost its devices");
    } catch (const vkc::Error& e) {
        std::fprintf(stderr, "engine: vkc::Error: %s\n", e.what());
        return 1;
    }
    std::printf("engine: ok\n");
    return 0;
}
