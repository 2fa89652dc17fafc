// The state behind a vkc::Device (include/vkc/device.hpp): the device it works on, what it knows of
// it, its memory and pipelines, and what the Device's calls forward to. A Context's queue and command
// buffer are not here (src/submit/context_state.hpp). Not installed.
#pragma once

#include <compare>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <tuple>
#include <vector>

#include "device/memory.hpp"
#include "device/vulkan_api.hpp"
#include "pipeline/pipelines.hpp"
#include "tuning/scan_policy.hpp"
#include "vkc/context.hpp"
#include "vkc/select.hpp"
#include "vkc/sort.hpp"

namespace vkc {

struct DeviceCore;
struct SortRanges;

// A queue of the device, for a Context's submissions.
struct DeviceQueue {
    uint32_t family = 0;
    VkQueue queue = VK_NULL_HANDLE;
};

struct DeviceState {
    ContextOptions options; // a Device's DeviceCreateInfo is kept here too (adopt, allocator, cache)
    std::shared_ptr<DeviceCore> core;
    // Copies of core's handles and tables, for brevity: they never change once the device is made.
    InstanceTable vki;
    DeviceTable vk;
    VkInstance instance = VK_NULL_HANDLE;
    VkDevice device = VK_NULL_HANDLE;
    const VkAllocationCallbacks* allocator = nullptr;
    bool validation_on = false;

    VkPhysicalDevice physical = VK_NULL_HANDLE;
    DeviceInfo info;
    DeviceMemory memory;
    Pipelines pipelines;
    // The subgroup layout: what plans may use (SubgroupLayout's sizes), and every shape a Context has
    // probed for its own dispatches (which plans of a Context may use too).
    SubgroupLayout layout;
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, bool> packed_shapes;

    // The Vulkan version the device is used at: the lower of the instance's and the device's; 0 where
    // unknown (an adopted device: its instance's version is the engine's).
    uint32_t api_version = 0;

    // A Context's device (its own, or adopted with a queue): returns the queue it submits to.
    DeviceQueue create(const ContextOptions& opts);
    void create(const DeviceCreateInfo& create); // the engine door's: no queue
    void destroy();

    // What the public Device forwards to (its comments say what each does).
    const ModuleInfo& select_module(Collective, Type, Op, Path preferred) const;
    // Plans' answer: whether 1D work-groups of `size` are known to be packed (never probes).
    bool known_packed(uint32_t size) const;
    // One submission to `queue` that probes every shape; waits for it.
    std::vector<bool> probe_shapes(const std::vector<WorkgroupShape>& shapes, VkQueue queue, uint32_t family);
    // probe_shapes for the 1D powers of 2 up to the device's limit, into `layout`.
    SubgroupLayout probe_layout(VkQueue queue, uint32_t family);
    ScanTile scan_tile(Type, const ScanOptions&, uint64_t count) const;
    uint64_t scan_scratch_bytes(Type, uint64_t count, const ScanOptions&) const;
    uint64_t reduce_scratch_bytes(Type, uint64_t count, const ScanOptions&) const;
    // Both, with `what` (the caller's call) naming the errors.
    uint64_t scratch_bytes_for(bool reduce, Type, uint64_t count, const ScanOptions&, const char* what) const;
    ScanPlan plan_scan(Type, Op, uint64_t count, const BufferRange& input, const BufferRange& output,
                       const BufferRange& scratch, const ScanOptions&);
    ScanPlan plan_reduce(Type, Op, uint64_t count, const BufferRange& input, const BufferRange& result,
                         const BufferRange& scratch, const ScanOptions&);
    // Device-wide scan and reduce (src/device_scan/). One builder for both; carry_in/carry_slot: a
    // running total comes in from an earlier plan on the same scratch (streamed host arrays);
    // indirect: the count is read on the device, count is its bound.
    ScanPlan make_plan(bool reduce, Type, Op, uint64_t count, const BufferRange& in, const BufferRange& out,
                       const BufferRange& scratch, const ScanOptions&, bool carry_in, uint32_t carry_slot,
                       const IndirectCount* indirect = nullptr);
    // The module a scan or reduce of these arguments runs and its policy, checked against the device
    // (`what` names the errors), and the pipeline they make (made now where not yet).
    const ModuleInfo& scan_module(bool reduce, Type, Op, uint64_t count, const ScanOptions&, const char* what,
                                  ScanPolicy& policy) const;
    // What a scan's or reduce's pipeline is made of (Pipelines::pipeline's arguments): plans and
    // prepare_scans name pipelines alike, so a preparation makes what a plan will ask for, once.
    struct ScanPipelineKey {
        const ModuleInfo* module = nullptr;
        uint32_t workgroup_size = 0, items_per_invocation = 0;
        bool staged = false;
        uint32_t kernel = 0; // the kernel path, with VKC_DEVICE_COUNT_ON_DEVICE for an IndirectCount
        auto operator<=>(const ScanPipelineKey&) const = default;
    };
    static ScanPipelineKey scan_pipeline_key(const ModuleInfo&, const ScanPolicy&, bool indirect);
    VkPipeline scan_pipeline(const ScanPipelineKey&);
    void prepare_scans(std::span<const ScanPreparation>, uint32_t threads);
    // Device-wide sort (src/sort/): value_bytes 0 sorts keys only; indirect: the count is read on the
    // device, count is its bound.
    uint64_t sort_scratch_bytes(Type key, uint64_t count, const SortOptions&) const;
    SortPlan make_sort_plan(Type key, uint32_t value_bytes, uint64_t count, const SortRanges& ranges,
                            const SortOptions&, const IndirectCount* indirect = nullptr);
    // Device-wide select (src/select/); indirect: the count is read on the device, count is its bound.
    uint64_t select_scratch_bytes(Type item, uint64_t count, const SelectOptions&) const;
    SelectPlan make_select_plan(Type item, uint64_t count, const SelectRanges& ranges, const SelectOptions&,
                                const IndirectCount* indirect = nullptr);
    // Device-wide histograms (src/histogram/); indirect: the count is read on the device, pixels is its bound.
    uint64_t histogram_scratch_bytes(Type sample, uint64_t pixels, const HistogramOptions&) const;
    HistogramPlan make_histogram_plan(Type sample, uint64_t pixels, const HistogramRanges& ranges,
                                      const HistogramOptions&, const IndirectCount* indirect = nullptr);
    // Segmented scans and reductions, by key, run-length encoding (src/segmented/); indirect: the count
    // is read on the device, count is its bound.
    uint64_t segmented_scratch_bytes(Type value, uint64_t count, const SegmentedOptions&) const;
    SegmentedPlan make_segmented_plan(Type value, Op op, uint64_t count, const SegmentedRanges& ranges,
                                      const SegmentedOptions&, const IndirectCount* indirect = nullptr);
    // Whether float add and mul modules of this bit width are created with DenormPreserve.
    bool keeps_denormals(uint32_t width) const;

    // Throws Error where the shape is empty or past the device's work-group limits.
    void check_shape(const WorkgroupShape&) const;
    // Checks a request's count, buffers and shape against the module and the device; returns the
    // bytes of items.
    uint64_t check_module_use(const ModuleInfo&, const WorkgroupShape&, uint64_t count, const Buffer& input,
                              const Buffer& output) const;
    // A grid of `groups` work-groups within maxComputeWorkGroupCount (x, then y).
    void grid_for(uint64_t groups, uint32_t& x, uint32_t& y) const;

private:
    // Makes the Context's own instance and device; returns its queue.
    DeviceQueue create_device();
    // origin: what the caller passed the handles in, for the errors ("DeviceCreateInfo: "). Returns
    // a.queue and its family (none where a.queue is null).
    DeviceQueue adopt_device(const AdoptedDevice& a, const char* origin);
    // The memory properties, layouts and pipeline cache, once the device is made or adopted.
    void set_up_device_objects();
};

} // namespace vkc
