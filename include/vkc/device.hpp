// vkcollectives: the device, the front door for engines. A vkc::Device is made from an engine's own
// Vulkan device (ContextOptions::adopt) or opens one itself; it creates pipelines from the embedded
// modules through a pipeline cache, and gives what an engine records into its own command buffers:
// the device-wide scan's tiles, scratch sizes and plans (include/vkc/device_scan.hpp).
//
//   vkc::ContextOptions options;
//   options.adopt = {instance, physical_device, device, queue_family, queue, &enabled_features};
//   vkc::Device gpu(options);
//   uint64_t scratch_bytes = gpu.scan_scratch_bytes(vkc::Type::u32, count);
//   vkc::ScanPlan plan = gpu.plan_scan(vkc::Type::u32, vkc::Op::add, count, input, output, scratch);
//   plan.record(command_buffer);                        // as often as wanted, in the engine's frame
//
// vkc::Context (include/vkc/context.hpp) builds on it with Buffers and a queue of its own.
// Not thread safe: use one Device per thread.
#pragma once

#include "vkc/api.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "vkc/device_scan.hpp"
#include "vkc/modules.hpp"
#include "vkc/types.hpp"
#include "vkc/vulkan_handles.hpp"

namespace vkc {
VKC_API_BEGIN

struct DeviceCore; // private: the device a Context, its Buffers and plans share

// VkPhysicalDeviceType, by the same values.
enum class DeviceType : uint32_t { other = 0, integrated_gpu = 1, discrete_gpu = 2, virtual_gpu = 3, cpu = 4 };

struct DeviceInfo {
    uint32_t index = 0; // position in the instance's device list (VKC_DEVICE=<index>)
    std::string name;   // VkPhysicalDeviceProperties::deviceName
    std::string driver; // driver name and info where the device reports them
    DeviceType type = DeviceType::other;
    uint32_t api_version = 0;
    uint32_t subgroup_size = 0;       // default subgroup size in compute
    uint32_t min_subgroup_size = 0;   // range the device may use (equal to subgroup_size without
    uint32_t max_subgroup_size = 0;   // VK_EXT_subgroup_size_control)
    Feature features = Feature::none; // what of vkc::Feature the device supports
    uint32_t max_workgroup_invocations = 0;
    uint32_t max_workgroup_size[3] = {0, 0, 0};
    uint32_t max_workgroup_count[3] = {0, 0, 0};
    uint32_t max_shared_memory = 0; // bytes
    uint64_t max_storage_buffer_range = 0;
    uint64_t min_storage_buffer_offset_alignment = 0;
    uint64_t max_memory_allocation_size = 0; // maxMemoryAllocationSize: the largest Buffer
    // Float controls (VkPhysicalDeviceFloatControlsProperties) for 16-, 32- and 64-bit floats: whether a
    // module may ask the device to preserve denormals, or to flush them. Neither says what the device
    // does by default: NVIDIA flushes float32 denormals in add and mul (min and max keep them on every
    // device, see README). False where the device does not report float controls.
    bool float_controls_known = false;
    bool denorm_preserve[3] = {false, false, false};
    bool denorm_flush[3] = {false, false, false};
    std::string type_name() const; // "discrete GPU", "CPU", ...
};

// Lists the Vulkan devices (creates a temporary instance). Throws Error when no Vulkan loader exists.
std::vector<DeviceInfo> list_devices();

// An engine's own Vulkan device, for a Context to work on instead of creating one
// (ContextOptions::adopt): its plans then record into the engine's command buffers on the engine's
// VkBuffers. The Context destroys none of these objects; they must outlive it, and so must every
// command buffer that recorded its plans finish before it is destroyed.
struct AdoptedDevice {
    // The instance must have been created for Vulkan 1.1 or later (vkc queries the device with
    // vkGetPhysicalDeviceProperties2 and Features2), and the device must offer Vulkan 1.1.
    VkInstance instance = nullptr;
    VkPhysicalDevice physical_device = nullptr;
    VkDevice device = nullptr;
    // A queue of a family with compute. The Context submits to it only in its own calls that wait for
    // their result (run, scan and reduce on Buffers or host arrays, upload, download); the caller keeps
    // its own use of the queue apart from those, as Vulkan's external synchronisation asks.
    uint32_t queue_family = 0;
    VkQueue queue = nullptr;
    // The VkPhysicalDeviceFeatures2 chain the device was created with, since Vulkan cannot be asked
    // what was enabled (a device made with pEnabledFeatures: wrap those in a VkPhysicalDeviceFeatures2).
    // Read: shaderInt64, shaderFloat64, shaderInt16, and in the chain VkPhysicalDeviceVulkan11Features,
    // VkPhysicalDeviceVulkan12Features, or the 8/16-bit storage, float16/int8 and subgroup extended
    // types structs. Modules that need a feature the chain does not enable are not used (a request
    // that has no other module gets an UnsupportedError naming the feature). Null: none enabled.
    const VkPhysicalDeviceFeatures2* enabled_features = nullptr;
    // Optional: the engine's vkGetInstanceProcAddr (its own loader, or one that puts its layers in
    // front), from which every instance and device function the Context calls is loaded. Null
    // (default): the system loader's, from libvulkan.so.1.
    PFN_vkGetInstanceProcAddr get_instance_proc_addr = nullptr;
};

struct ContextOptions {
    // Which device: its index in list_devices() ("1") or part of its name ("llvmpipe"), any case.
    // Empty (default): the VKC_DEVICE environment variable, else a discrete GPU, else an integrated
    // GPU, else whatever exists (lavapipe included).
    std::string device;
    // Enable VK_LAYER_KHRONOS_validation when installed, with synchronization validation, and count its
    // warnings and errors. Default off; VKC_VALIDATION=1 turns it on too.
    bool validation = false;
    // Never use subgroup modules, as on a device without subgroup arithmetic. Default off;
    // VKC_SHARED_MEMORY_ONLY=1 turns it on too.
    bool shared_memory_only = false;
    // Treat these features as missing, as on a device without them (tests use it to reach the
    // fallback and error paths on a device that has everything). Default none.
    Feature hide_features = Feature::none;
    // Work on an engine's device instead of creating one (adopt.device set). `device` is then
    // ignored, and so is `validation`: layers are the engine's to enable on its instance.
    AdoptedDevice adopt;
    // Optional: host memory callbacks for every Vulkan object the Context creates (the instance and
    // device too, where it creates them). Copied: the struct need not outlive this call, the
    // functions and their pUserData must outlive the Context and its Buffers and plans. Default null.
    const VkAllocationCallbacks* allocator = nullptr;
    // Optional: a pipeline cache of the caller's on the same device, through which every pipeline is
    // created (an engine's own, that it saves as it likes). The Context neither destroys nor saves it.
    // Default null: the Context makes its own, loaded from and saved to pipeline_cache_path.
    VkPipelineCache pipeline_cache = nullptr;
    // File the Context's own pipeline cache is read from when it is made and written to when it is
    // destroyed (data of another device or driver is ignored by Vulkan). Empty (default): the
    // VKC_PIPELINE_CACHE environment variable; if that is empty too, the cache lives in memory only.
    std::string pipeline_cache_path;
    // Initial data for the Context's own pipeline cache (from Context::pipeline_cache_data() of an
    // earlier run), used where no file is named. Default empty.
    std::vector<uint8_t> pipeline_cache_data;
};

// The options a Device is made with (the name is older than vkc::Device).
using DeviceOptions = ContextOptions;

struct DeviceState; // private (src/context_impl.hpp)

class Device {
public:
    // The engine's device where options.adopt.device is set, else one the Device opens (see
    // ContextOptions). Throws Error or UnsupportedError naming what is missing.
    explicit Device(const ContextOptions& options = {});
    ~Device();
    Device(Device&&) noexcept;
    Device& operator=(Device&&) noexcept;

    const DeviceInfo& info() const;
    // The module that runs this collective on this device: the subgroup path when the device supports
    // it for the type, else the shared-memory path. Throws UnsupportedError naming what is missing.
    // `preferred` shared_memory picks the shared-memory module even where subgroups would do.
    const ModuleInfo& select_module(Collective, Type, Op, Path preferred = Path::subgroup) const;

    // ---- Device-wide scan and reduce (include/vkc/device_scan.hpp) ----
    // Every type and op of the work-group collectives; count may be 0 (scan: nothing happens;
    // reduce: the identity) and beyond 2^32. Throws Error naming what is wrong with the arguments.

    // The tile a scan of count items of this type uses on this device; reduce uses the tile of count
    // 0. The shape and the look-back's chunk may depend on count, and the items a tile holds may grow
    // with it (GPUs: 32-bit look-back scans of 2^22 items or more), never fall below count 0's.
    ScanTile scan_tile(Type, const ScanOptions& = {}, uint64_t count = 0) const;
    // Scratch bytes a plan needs for count items.
    uint64_t scan_scratch_bytes(Type, uint64_t count, const ScanOptions& = {}) const;
    uint64_t reduce_scratch_bytes(Type, uint64_t count, const ScanOptions& = {}) const;
    // Plans to record into the caller's command buffers, on the caller's buffers of this device.
    // reduce writes one item to `result`.
    ScanPlan plan_scan(Type, Op, uint64_t count, const BufferRange& input, const BufferRange& output,
                       const BufferRange& scratch, const ScanOptions& = {});
    ScanPlan plan_reduce(Type, Op, uint64_t count, const BufferRange& input, const BufferRange& result,
                         const BufferRange& scratch, const ScanOptions& = {});
    // The same with the count read on the device when the plan executes (IndirectCount): size the
    // buffers and the scratch for count.max_count (scan_scratch_bytes(type, count.max_count)).
    ScanPlan plan_scan(Type, Op, const IndirectCount& count, const BufferRange& input, const BufferRange& output,
                       const BufferRange& scratch, const ScanOptions& = {});
    ScanPlan plan_reduce(Type, Op, const IndirectCount& count, const BufferRange& input, const BufferRange& result,
                         const BufferRange& scratch, const ScanOptions& = {});

    // The pipeline cache pipelines are created through (ContextOptions::pipeline_cache, or the
    // Device's own), and its data (vkGetPipelineCacheData), for a caller that stores it itself and
    // passes it back as pipeline_cache_data.
    VkPipelineCache vk_pipeline_cache() const;
    std::vector<uint8_t> pipeline_cache_data() const;
    // Validation messages (warnings and errors) seen, where the Device enabled the layer on an
    // instance of its own.
    uint64_t validation_messages() const;

protected:
    std::unique_ptr<DeviceState> state_;
};

VKC_API_END
} // namespace vkc
