// vkcollectives: the device, the front door for engines. A vkc::Device is made from an engine's own
// Vulkan device (DeviceCreateInfo); it creates pipelines from the embedded modules through a pipeline
// cache, and gives what an engine records into its own command buffers: the device-wide scan's
// tiles, scratch sizes and plans (include/vkc/device_scan.hpp). It records and never submits: no
// call of it touches a queue or allocates device memory, except probe_subgroup_layout, which the
// engine calls with a queue it names.
//
//   vkc::DeviceCreateInfo create{instance, physical_device, device, &enabled_features};
//   vkc::Device gpu(create);
//   uint64_t scratch_bytes = gpu.scan_scratch_bytes(vkc::Type::u32, count);
//   vkc::ScanPlan plan = gpu.plan_scan(vkc::Type::u32, vkc::Op::add, count, input, output, scratch);
//   plan.record(command_buffer);                        // as often as wanted, in the engine's frame
//
// vkc::Context (include/vkc/context.hpp) builds on it with Buffers and a queue of its own.
// Threads: plans may be made on several threads at once (an engine's loading threads), and
// prepare_scans beside them; pipelines are made once, whichever thread asks first. The other calls
// (probe_subgroup_layout, moving or destroying the Device) want no other call of the Device running.
#pragma once

#include "vkc/api.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "vkc/device_scan.hpp"
#include "vkc/modules.hpp"
#include "vkc/histogram.hpp"
#include "vkc/segmented.hpp"
#include "vkc/select.hpp"
#include "vkc/sort.hpp"
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
    // Multiprocessors (NVIDIA SMs, AMD compute units, Arm shader cores) where an extension reports
    // them (VK_NV_shader_sm_builtins, VK_AMD_shader_core_properties(2), VK_ARM_shader_core_builtins);
    // 0 where none does. The tuning scales what fills the GPU with it (docs/decisions.md).
    uint32_t compute_units = 0;
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

// Which 1D work-group sizes place their invocations in subgroups in local-index order (subgroup s
// holds local indices [s * S, (s + 1) * S), S the subgroup size), as the subgroup modules of the
// device-wide scan need. Vulkan does not promise it, so it is found by running a probe on the device
// (Device::probe_subgroup_layout, or a Context in its waiting calls): the powers of 2 from the smallest
// subgroup size to the device's limit, and the sizes the library's tuning picks for the device. A
// size not listed counts as not packed: plans of that size use the shared-memory modules, which need
// no layout. Plain data: an engine may store it (keyed by device and driver) and pass it back.
struct SubgroupLayout {
    static constexpr uint32_t max_sizes = 32;
    uint32_t size_count = 0;        // entries of `sizes` in use
    uint32_t sizes[max_sizes] = {}; // work-group sizes probed
    uint32_t packed = 0;            // bit i: sizes[i] is packed in local-index order
    // Whether `size` invocations are known to be packed (false for a size not probed).
    bool is_packed(uint32_t size) const;
};

// The engine's door: an engine's own Vulkan device, for a vkc::Device that records into the
// engine's command buffers on the engine's VkBuffers. The Device destroys none of these objects; they
// must outlive it, and every command buffer that recorded its plans must finish before it goes.
struct DeviceCreateInfo {
    // The instance must have been created for Vulkan 1.1 or later (vkc queries the device with
    // vkGetPhysicalDeviceProperties2 and Features2), and the device must offer Vulkan 1.1.
    VkInstance instance = nullptr;
    VkPhysicalDevice physical_device = nullptr;
    VkDevice device = nullptr;
    // The VkPhysicalDeviceFeatures2 chain the device was created with, since Vulkan cannot be asked
    // what was enabled (a device made with pEnabledFeatures: wrap those in a VkPhysicalDeviceFeatures2).
    // Read: shaderInt64, shaderFloat64, shaderInt16, and in the chain VkPhysicalDeviceVulkan11Features,
    // VkPhysicalDeviceVulkan12Features, or the 8/16-bit storage, float16/int8 and subgroup extended
    // types structs. Modules that need a feature the chain does not enable are not used (a request
    // that has no other module gets an UnsupportedError naming the feature). Null: none enabled.
    const VkPhysicalDeviceFeatures2* enabled_features = nullptr;
    // Optional: the engine's vkGetInstanceProcAddr (its own loader, or one that puts its layers in
    // front), from which every instance and device function vkc calls is loaded. Null (default): the
    // system loader's, from libvulkan.so.1.
    PFN_vkGetInstanceProcAddr get_instance_proc_addr = nullptr;
    // Optional: a pipeline cache of the engine's on this device, through which every pipeline is
    // created; neither destroyed nor saved here. Null (default): the Device keeps one in memory
    // (Device::pipeline_cache_data gives its data).
    VkPipelineCache pipeline_cache = nullptr;
    // Optional: host memory callbacks for every Vulkan object the Device creates. Copied: the struct
    // need not outlive this call, the functions and their pUserData must outlive the Device and its
    // plans. Default null.
    const VkAllocationCallbacks* allocator = nullptr;
    // The subgroup layout an earlier probe of this device and driver found (Device::subgroup_layout).
    // Default: none known, so plans use the shared-memory modules until probe_subgroup_layout runs.
    SubgroupLayout subgroup_layout;
    // Restrictions, as on a device that lacks what they name (tests use them to reach the fallback and
    // error paths on a device that has everything): never use subgroup modules (also
    // VKC_SHARED_MEMORY_ONLY=1), treat these features as missing. Default off, none.
    bool shared_memory_only = false;
    Feature hide_features = Feature::none;
};

struct DeviceState; // private (src/device/device_state.hpp)

class Context;

class Device {
public:
    // Works on the engine's device. Records and never submits: neither this constructor nor any
    // call but probe_subgroup_layout allocates device memory or touches a queue. Throws Error or
    // UnsupportedError naming what is wrong or missing.
    explicit Device(const DeviceCreateInfo& create);
    ~Device();
    Device(Device&&) noexcept;
    Device& operator=(Device&&) noexcept;

    const DeviceInfo& info() const;
    // The module that runs this collective on this device: the subgroup path when the device supports
    // it for the type, else the shared-memory path. Throws UnsupportedError naming what is missing.
    // `preferred` shared_memory picks the shared-memory module even where subgroups would do.
    const ModuleInfo& select_module(Collective, Type, Op, Path preferred = Path::subgroup) const;

    // ---- The subgroup layout (SubgroupLayout) ----
    // What is known of it: from DeviceCreateInfo::subgroup_layout, probe_subgroup_layout, or the
    // Context's probe. An engine may store it with its pipeline cache and pass it back next time.
    SubgroupLayout subgroup_layout() const;
    // Runs the layout probe for every 1D power-of-2 work-group size from the smallest subgroup size
    // to the device's limit: one submission to `queue` (of a family with compute), then a wait on a
    // fence of its own. The caller owns the queue's external synchronisation for this call, as for
    // its own vkQueueSubmit. It creates and destroys a small host-visible buffer, a command pool and
    // a fence. Plans made after it use the subgroup modules where the layout allows.
    SubgroupLayout probe_subgroup_layout(VkQueue queue, uint32_t queue_family);

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
    // Makes every pipeline the listed scans and reductions will run, on `threads` threads at once (0:
    // the CPU's hardware threads, at most 8; 1: this thread alone), so that their plans, made later
    // on any thread, find them ready: a new driver compiles each in tens to hundreds of milliseconds,
    // at load time instead of at the first plan. Returns when every one is made; throws the first
    // Error (naming the preparation: "prepare_scans: preparation 2: ...") once every thread has stopped.
    void prepare_scans(std::span<const ScanPreparation> preparations, uint32_t threads = 0);

    // ---- Device-wide radix sort (include/vkc/sort.hpp) ----
    // Keys u8, i8, u16, i16, f16, u32, i32, f32, u64, i64, f64; values of 1, 2, 4, 8 or 16 bytes; count
    // up to sort_max_count, 0 included (nothing happens). Throws Error naming what is wrong with the
    // arguments.

    // Scratch bytes a sort of count keys needs (the same for keys and pairs).
    uint64_t sort_scratch_bytes(Type key, uint64_t count, const SortOptions& = {}) const;
    // Sorts keys[0, count) using keys_alternate as the other buffer of the pair: the result is in
    // keys_alternate where SortPlan::result_in_alternate(), else in keys. Ranges must not overlap.
    SortPlan plan_sort(Type key, uint64_t count, const BufferRange& keys, const BufferRange& keys_alternate,
                       const BufferRange& scratch, const SortOptions& = {});
    // The same, with values of value_bytes each moved with their keys (values in `values`, the result
    // in values_alternate exactly when the keys' is in keys_alternate).
    SortPlan plan_sort_pairs(Type key, uint32_t value_bytes, uint64_t count, const BufferRange& keys,
                             const BufferRange& keys_alternate, const BufferRange& values,
                             const BufferRange& values_alternate, const BufferRange& scratch, const SortOptions& = {});
    // With the count read on the device when the plan executes (IndirectCount): size the buffers and
    // the scratch for count.max_count.
    SortPlan plan_sort(Type key, const IndirectCount& count, const BufferRange& keys,
                       const BufferRange& keys_alternate, const BufferRange& scratch, const SortOptions& = {});
    SortPlan plan_sort_pairs(Type key, uint32_t value_bytes, const IndirectCount& count, const BufferRange& keys,
                             const BufferRange& keys_alternate, const BufferRange& values,
                             const BufferRange& values_alternate, const BufferRange& scratch, const SortOptions& = {});

    // ---- Device-wide select, unique and partition (include/vkc/select.hpp) ----
    // Items u32, i32, f32, u64, i64, f64; count up to select_max_count, 0 included (the number kept,
    // 0, is still written). Throws Error naming what is wrong with the arguments.

    // Scratch bytes a select of count items needs.
    uint64_t select_scratch_bytes(Type item, uint64_t count, const SelectOptions& = {}) const;
    // Keeps input's items by options.by into output[0, kept) and writes kept to ranges.kept (and the
    // command to ranges.command). Ranges must not overlap, except output == input (in place, without
    // partition).
    SelectPlan plan_select(Type item, uint64_t count, const SelectRanges& ranges, const SelectOptions& = {});
    // With the count read on the device when the plan executes (IndirectCount): size the buffers and
    // the scratch for count.max_count.
    SelectPlan plan_select(Type item, const IndirectCount& count, const SelectRanges& ranges,
                           const SelectOptions& = {});

    // ---- Device-wide histograms (include/vkc/histogram.hpp) ----
    // Samples u8, i8, u16, i16, u32, i32, f16, f32; pixels x channels up to histogram_max_samples, 0
    // included (the counts are still zeroed unless accumulating). Throws Error naming what is wrong.

    // Scratch bytes a histogram needs (histogram_scratch_bytes_needed; the arguments are checked).
    uint64_t histogram_scratch_bytes(Type sample, uint64_t pixels, const HistogramOptions& = {}) const;
    // Counts ranges.samples' pixels into ranges.histogram by the options' bins. Ranges must not overlap
    // the histogram or the scratch.
    HistogramPlan plan_histogram(Type sample, uint64_t pixels, const HistogramRanges& ranges,
                                 const HistogramOptions& = {});
    // With the pixel count read on the device when the plan executes (IndirectCount): size the samples'
    // range for count.max_count.
    HistogramPlan plan_histogram(Type sample, const IndirectCount& pixels, const HistogramRanges& ranges,
                                 const HistogramOptions& = {});

    // ---- Segmented scans and reductions, by key, run-length encoding (include/vkc/segmented.hpp) ----
    // Values and keys u32, i32, f32, u64, i64, f64; count up to segmented_max_count, 0 included (the
    // number of segments is still written). Throws Error naming what is wrong.

    // Scratch bytes a segmented plan of count items needs.
    uint64_t segmented_scratch_bytes(Type value, uint64_t count, const SegmentedOptions& = {}) const;
    // Scans or reduces ranges.values by the segments of ranges.heads (flags or keys) into
    // ranges.output (and ranges.unique_keys, ranges.segments), as options.output says. Run lengths:
    // value Type::u32 and Op::add.
    SegmentedPlan plan_segmented(Type value, Op op, uint64_t count, const SegmentedRanges& ranges,
                                 const SegmentedOptions& = {});
    // With the count read on the device when the plan executes (IndirectCount): size the ranges and
    // the scratch for count.max_count.
    SegmentedPlan plan_segmented(Type value, Op op, const IndirectCount& count, const SegmentedRanges& ranges,
                                 const SegmentedOptions& = {});

    // The pipeline cache pipelines are created through (DeviceCreateInfo::pipeline_cache, or the
    // Device's own), and its data (vkGetPipelineCacheData), for a caller that stores it itself.
    VkPipelineCache vk_pipeline_cache() const;
    std::vector<uint8_t> pipeline_cache_data() const;
    // The file the Device's own pipeline cache was read from and is saved to when it is destroyed
    // (ContextOptions::pipeline_cache_path, VKC_PIPELINE_CACHE, or a Context's default file in the
    // user's cache directory); empty where there is none (the engine's cache, memory only).
    std::string pipeline_cache_file() const;

private:
    friend class Context;
    Device() = default; // a Context's, made on its own or an adopted device
    std::unique_ptr<DeviceState> state_;
};

VKC_API_END
} // namespace vkc
