// The C API (include/vkc/vkc.h): the engine door's calls, each catching what the C++ API throws and
// turning it into a VkcResult and the thread's last message.
#include "vkc/vkc.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <string>
#include <vector>

#include "vkc/device.hpp"
#include "vkc/tuning.hpp"

struct VkcDevice_T {
    vkc::Device device;
};
// A scan or reduce plan, a sort, select, histogram or segmented plan: vkcCmdRecordPlan records
// whichever it holds.
struct VkcPlan_T {
    enum class Kind { scan, sort, select, histogram, segmented };
    Kind kind = Kind::scan;
    vkc::ScanPlan plan;
    vkc::SortPlan sort;
    vkc::SelectPlan select;
    vkc::HistogramPlan histogram;
    vkc::SegmentedPlan segmented;
};

namespace {

// The C enums carry vkc::Type's and vkc::Op's values.
#define VKC_TYPE(enumerator, value, ...) static_assert(uint32_t(vkc::Type::enumerator) == value);
#define VKC_OP(enumerator, value, ...) static_assert(uint32_t(vkc::Op::enumerator) == value);
#include "vkc/types.def"
static_assert(VKC_TYPE_F16 == uint32_t(vkc::Type::f16) && VKC_TYPE_I8 == uint32_t(vkc::Type::i8) &&
              VKC_TYPE_U16 == uint32_t(vkc::Type::u16) && VKC_TYPE_F64 == uint32_t(vkc::Type::f64));
static_assert(VKC_OP_ADD == uint32_t(vkc::Op::add) && VKC_OP_MUL == uint32_t(vkc::Op::mul) &&
              VKC_OP_AND == uint32_t(vkc::Op::bit_and) && VKC_OP_LOGICAL_XOR == uint32_t(vkc::Op::logical_xor));

thread_local std::string last_error;

VkcResult fail(VkcResult result, const char* message) {
    try {
        last_error = message;
    } catch (...) {
        last_error.clear(); // no memory for the message: the result still says what happened
    }
    return result;
}

// Runs body, mapping what it throws to a VkcResult and the thread's message.
template <class Body>
VkcResult guarded(Body&& body) {
    try {
        body();
        return VKC_SUCCESS;
    } catch (const vkc::UnsupportedError& e) {
        return fail(VKC_ERROR_UNSUPPORTED, e.what());
    } catch (const vkc::Error& e) {
        const char* m = e.what();
        if (std::strstr(m, "out of device memory")) return fail(VKC_ERROR_OUT_OF_DEVICE_MEMORY, m);
        if (std::strstr(m, "out of host memory")) return fail(VKC_ERROR_OUT_OF_HOST_MEMORY, m);
        if (std::strstr(m, " failed with VK_")) return fail(VKC_ERROR_VULKAN, m);
        if (std::strstr(m, "no module was built")) return fail(VKC_ERROR_UNSUPPORTED, m); // -DVKC_TYPES left it out
        return fail(VKC_ERROR_INVALID_ARGUMENT, m);
    } catch (const std::bad_alloc&) {
        return fail(VKC_ERROR_OUT_OF_HOST_MEMORY, "out of host memory");
    } catch (const std::exception& e) {
        return fail(VKC_ERROR_UNKNOWN, e.what());
    } catch (...) {
        return fail(VKC_ERROR_UNKNOWN, "an unknown error");
    }
}

bool known_type(uint32_t t) { return t <= VKC_TYPE_U16; }
bool known_op(uint32_t op) { return op <= VKC_OP_LOGICAL_XOR; }

vkc::BufferRange range(const VkcBufferRange& r) { return {r.buffer, r.offset, r.size}; }

static_assert(VKC_SUBGROUP_LAYOUT_MAX_SIZES == vkc::SubgroupLayout::max_sizes);
vkc::SubgroupLayout from_c(const VkcSubgroupLayout& c) {
    vkc::SubgroupLayout l;
    l.size_count = std::min<uint32_t>(c.sizeCount, vkc::SubgroupLayout::max_sizes);
    std::copy(c.sizes, c.sizes + l.size_count, l.sizes);
    l.packed = c.packedMask;
    return l;
}
VkcSubgroupLayout to_c(const vkc::SubgroupLayout& l) {
    VkcSubgroupLayout c{};
    c.sizeCount = l.size_count;
    std::copy(l.sizes, l.sizes + l.size_count, c.sizes);
    c.packedMask = l.packed;
    return c;
}

vkc::ScanOptions options_of(const VkcPlanCreateInfo& info) {
    const uint32_t known = VKC_PLAN_EXCLUSIVE_BIT | VKC_PLAN_REPRODUCIBLE_BIT | VKC_PLAN_SCRATCH_ZEROED_BIT |
                           VKC_PLAN_SHARED_MEMORY_BIT;
    if (info.flags & ~known) throw vkc::Error("VkcPlanCreateInfo::flags has unknown bits " + std::to_string(info.flags & ~known));
    if (info.primitive != VKC_PRIMITIVE_SCAN && info.primitive != VKC_PRIMITIVE_REDUCE) {
        throw vkc::Error("VkcPlanCreateInfo::primitive " + std::to_string(uint32_t(info.primitive)) +
                         " is not a VkcPrimitive");
    }
    if (!known_type(uint32_t(info.type))) {
        throw vkc::Error("VkcPlanCreateInfo::type " + std::to_string(uint32_t(info.type)) + " is not a VkcType");
    }
    if (!known_op(uint32_t(info.op))) {
        throw vkc::Error("VkcPlanCreateInfo::op " + std::to_string(uint32_t(info.op)) + " is not a VkcOp");
    }
    if ((info.flags & VKC_PLAN_EXCLUSIVE_BIT) && info.primitive == VKC_PRIMITIVE_REDUCE) {
        throw vkc::Error("VKC_PLAN_EXCLUSIVE_BIT is for scans; a reduce has no exclusive form");
    }
    vkc::ScanOptions o;
    o.exclusive = info.flags & VKC_PLAN_EXCLUSIVE_BIT;
    o.reproducible = info.flags & VKC_PLAN_REPRODUCIBLE_BIT;
    o.scratch_zeroed = info.flags & VKC_PLAN_SCRATCH_ZEROED_BIT;
    o.path = (info.flags & VKC_PLAN_SHARED_MEMORY_BIT) ? vkc::Path::shared_memory : vkc::Path::subgroup;
    return o;
}

vkc::SortOptions sort_options_of(const VkcSortPlanCreateInfo& info) {
    const uint32_t known = VKC_SORT_DESCENDING_BIT | VKC_SORT_SHARED_MEMORY_BIT;
    if (info.flags & ~known) {
        throw vkc::Error("VkcSortPlanCreateInfo::flags has unknown bits " + std::to_string(info.flags & ~known));
    }
    if (!known_type(uint32_t(info.keyType))) {
        throw vkc::Error("VkcSortPlanCreateInfo::keyType " + std::to_string(uint32_t(info.keyType)) +
                         " is not a VkcType");
    }
    vkc::SortOptions o;
    o.begin_bit = info.beginBit;
    o.end_bit = info.endBit;
    o.descending = info.flags & VKC_SORT_DESCENDING_BIT;
    o.path = (info.flags & VKC_SORT_SHARED_MEMORY_BIT) ? vkc::Path::shared_memory : vkc::Path::subgroup;
    return o;
}

vkc::SelectOptions select_options_of(const VkcSelectPlanCreateInfo& info) {
    const uint32_t known = VKC_SELECT_PARTITION_BIT | VKC_SELECT_SHARED_MEMORY_BIT;
    if (info.flags & ~known) {
        throw vkc::Error("VkcSelectPlanCreateInfo::flags has unknown bits " + std::to_string(info.flags & ~known));
    }
    if (!known_type(uint32_t(info.itemType))) {
        throw vkc::Error("VkcSelectPlanCreateInfo::itemType " + std::to_string(uint32_t(info.itemType)) +
                         " is not a VkcType");
    }
    if (uint32_t(info.selection) > VKC_SELECTION_UNIQUE) {
        throw vkc::Error("VkcSelectPlanCreateInfo::selection " + std::to_string(uint32_t(info.selection)) +
                         " is not a VkcSelection");
    }
    vkc::SelectOptions o;
    o.by = vkc::Selection(info.selection);
    o.predicate.kind = vkc::SelectPredicate::Kind(info.predicate);
    o.predicate.type = vkc::Type(info.itemType);
    o.predicate.a = info.operandA;
    o.predicate.b = info.operandB;
    o.partition = info.flags & VKC_SELECT_PARTITION_BIT;
    o.path = (info.flags & VKC_SELECT_SHARED_MEMORY_BIT) ? vkc::Path::shared_memory : vkc::Path::subgroup;
    o.command = vkc::KeptCommand(info.command);
    if (o.command == vkc::KeptCommand::dispatch) o.command_group_items = info.commandParameter;
    else o.command_vertices = info.commandParameter;
    return o;
}
static_assert(uint32_t(vkc::SelectPredicate::Kind::bits_any) == VKC_PREDICATE_BITS_ANY &&
              uint32_t(vkc::KeptCommand::draw_indexed) == VKC_KEPT_COMMAND_DRAW_INDEXED &&
              uint32_t(vkc::Selection::unique) == VKC_SELECTION_UNIQUE);

vkc::HistogramOptions histogram_options_of(const VkcHistogramPlanCreateInfo& info) {
    const uint32_t known = VKC_HISTOGRAM_ACCUMULATE_BIT;
    if (info.flags & ~known) {
        throw vkc::Error("VkcHistogramPlanCreateInfo::flags has unknown bits " + std::to_string(info.flags & ~known));
    }
    if (!known_type(uint32_t(info.sampleType))) {
        throw vkc::Error("VkcHistogramPlanCreateInfo::sampleType " + std::to_string(uint32_t(info.sampleType)) +
                         " is not a VkcType");
    }
    vkc::HistogramOptions o;
    o.binning = vkc::Binning(info.binning);
    o.channels = info.channels;
    o.active_channels = info.activeChannels;
    for (int c = 0; c < 4; ++c) o.channel[c] = {info.bins[c], info.lower[c], info.upper[c]};
    o.accumulate = info.flags & VKC_HISTOGRAM_ACCUMULATE_BIT;
    return o;
}
static_assert(uint32_t(vkc::Binning::range) == VKC_BINNING_RANGE);

vkc::SegmentedOptions segmented_options_of(const VkcSegmentedPlanCreateInfo& info) {
    const uint32_t known = VKC_SEGMENTED_SHARED_MEMORY_BIT;
    if (info.flags & ~known) {
        throw vkc::Error("VkcSegmentedPlanCreateInfo::flags has unknown bits " + std::to_string(info.flags & ~known));
    }
    if (!known_type(uint32_t(info.valueType)) || (info.segments == VKC_SEGMENTS_KEYS && !known_type(uint32_t(info.keyType)))) {
        throw vkc::Error("VkcSegmentedPlanCreateInfo::valueType or keyType is not a VkcType");
    }
    if (!known_op(uint32_t(info.op))) {
        throw vkc::Error("VkcSegmentedPlanCreateInfo::op " + std::to_string(uint32_t(info.op)) + " is not a VkcOp");
    }
    vkc::SegmentedOptions o;
    o.by = vkc::Segments(info.segments);
    o.key = info.segments == VKC_SEGMENTS_KEYS ? vkc::Type(info.keyType) : vkc::Type::u32;
    o.segment_count = info.segmentCount;
    o.output = vkc::SegmentedOutput(info.outputKind);
    o.path = (info.flags & VKC_SEGMENTED_SHARED_MEMORY_BIT) ? vkc::Path::shared_memory : vkc::Path::subgroup;
    return o;
}
static_assert(uint32_t(vkc::Segments::offsets) == VKC_SEGMENTS_OFFSETS &&
              uint32_t(vkc::SegmentedOutput::run_lengths) == VKC_SEGMENTED_RUN_LENGTHS &&
              uint32_t(vkc::SegmentedOutput::non_trivial_runs) == VKC_SEGMENTED_NON_TRIVIAL_RUNS);

} // namespace

extern "C" {

const char* vkcGetLastErrorMessage(void) { return last_error.c_str(); }

const char* vkcResultName(VkcResult result) {
    switch (result) {
    case VKC_SUCCESS: return "VKC_SUCCESS";
    case VKC_ERROR_INVALID_ARGUMENT: return "VKC_ERROR_INVALID_ARGUMENT";
    case VKC_ERROR_UNSUPPORTED: return "VKC_ERROR_UNSUPPORTED";
    case VKC_ERROR_OUT_OF_HOST_MEMORY: return "VKC_ERROR_OUT_OF_HOST_MEMORY";
    case VKC_ERROR_OUT_OF_DEVICE_MEMORY: return "VKC_ERROR_OUT_OF_DEVICE_MEMORY";
    case VKC_ERROR_VULKAN: return "VKC_ERROR_VULKAN";
    case VKC_ERROR_INCOMPLETE: return "VKC_ERROR_INCOMPLETE";
    case VKC_ERROR_UNKNOWN: return "VKC_ERROR_UNKNOWN";
    }
    return "not a VkcResult";
}

VkcResult vkcCreateDevice(const VkcDeviceCreateInfo* info, VkcDevice* out) {
    if (!out) return fail(VKC_ERROR_INVALID_ARGUMENT, "vkcCreateDevice: pDevice is NULL");
    *out = nullptr;
    if (!info) return fail(VKC_ERROR_INVALID_ARGUMENT, "vkcCreateDevice: pCreateInfo is NULL");
    return guarded([&] {
        if (info->flags & ~uint32_t(VKC_DEVICE_SHARED_MEMORY_ONLY_BIT)) {
            throw vkc::Error("VkcDeviceCreateInfo::flags has unknown bits");
        }
        vkc::DeviceCreateInfo c;
        c.instance = info->instance;
        c.physical_device = info->physicalDevice;
        c.device = info->device;
        c.enabled_features = reinterpret_cast<const VkPhysicalDeviceFeatures2*>(info->pEnabledFeatures);
        c.get_instance_proc_addr = info->pfnGetInstanceProcAddr;
        c.pipeline_cache = info->pipelineCache;
        c.allocator = reinterpret_cast<const VkAllocationCallbacks*>(info->pAllocationCallbacks);
        c.subgroup_layout = from_c(info->subgroupLayout);
        c.shared_memory_only = info->flags & VKC_DEVICE_SHARED_MEMORY_ONLY_BIT;
        *out = new VkcDevice_T{vkc::Device(c)};
    });
}

void vkcDestroyDevice(VkcDevice device) { delete device; }

VkcResult vkcProbeSubgroupLayout(VkcDevice device, VkQueue queue, uint32_t family, VkcSubgroupLayout* layout) {
    if (!device) return fail(VKC_ERROR_INVALID_ARGUMENT, "vkcProbeSubgroupLayout: device is NULL");
    return guarded([&] {
        vkc::SubgroupLayout l = device->device.probe_subgroup_layout(queue, family);
        if (layout) *layout = to_c(l);
    });
}

void vkcGetSubgroupLayout(VkcDevice device, VkcSubgroupLayout* layout) {
    if (!device || !layout) return;
    vkc::SubgroupLayout l = device->device.subgroup_layout();
    *layout = to_c(l);
}

VkcResult vkcGetScratchSize(VkcDevice device, const VkcPlanCreateInfo* info, VkDeviceSize* bytes) {
    if (!device || !info || !bytes) {
        return fail(VKC_ERROR_INVALID_ARGUMENT, "vkcGetScratchSize: device, pCreateInfo or pBytes is NULL");
    }
    return guarded([&] {
        vkc::ScanOptions o = options_of(*info);
        vkc::Type t = vkc::Type(info->type);
        *bytes = info->primitive == VKC_PRIMITIVE_SCAN ? device->device.scan_scratch_bytes(t, info->count, o)
                                                       : device->device.reduce_scratch_bytes(t, info->count, o);
    });
}

VkcResult vkcCreatePlan(VkcDevice device, const VkcPlanCreateInfo* info, VkcPlan* out) {
    if (!out) return fail(VKC_ERROR_INVALID_ARGUMENT, "vkcCreatePlan: pPlan is NULL");
    *out = nullptr;
    if (!device || !info) return fail(VKC_ERROR_INVALID_ARGUMENT, "vkcCreatePlan: device or pCreateInfo is NULL");
    return guarded([&] {
        vkc::ScanOptions o = options_of(*info);
        vkc::Type t = vkc::Type(info->type);
        vkc::Op op = vkc::Op(info->op);
        vkc::Device& d = device->device;
        bool scan = info->primitive == VKC_PRIMITIVE_SCAN;
        vkc::ScanPlan plan;
        if (info->countBuffer) {
            vkc::IndirectCount count{info->countBuffer, info->countBufferOffset, info->count};
            plan = scan ? d.plan_scan(t, op, count, range(info->input), range(info->output), range(info->scratch), o)
                        : d.plan_reduce(t, op, count, range(info->input), range(info->output), range(info->scratch), o);
        } else {
            plan = scan ? d.plan_scan(t, op, info->count, range(info->input), range(info->output), range(info->scratch), o)
                        : d.plan_reduce(t, op, info->count, range(info->input), range(info->output), range(info->scratch),
                                        o);
        }
        VkcPlan_T* made = new VkcPlan_T{};
        made->plan = std::move(plan);
        *out = made;
    });
}

VkcResult vkcPrepareScans(VkcDevice device, uint32_t count, const VkcPlanCreateInfo* infos, uint32_t threads) {
    if (!device || (count && !infos)) {
        return fail(VKC_ERROR_INVALID_ARGUMENT, "vkcPrepareScans: device or pCreateInfos is NULL");
    }
    return guarded([&] {
        std::vector<vkc::ScanPreparation> preparations(count);
        for (uint32_t i = 0; i < count; ++i) {
            const VkcPlanCreateInfo& info = infos[i];
            vkc::ScanPreparation& p = preparations[i];
            p.type = vkc::Type(info.type);
            p.op = vkc::Op(info.op);
            p.max_count = info.count;
            p.reduce = info.primitive != VKC_PRIMITIVE_SCAN;
            p.indirect_count = bool(info.countBuffer);
            p.options = options_of(info);
        }
        device->device.prepare_scans(preparations, threads);
    });
}

VkcResult vkcGetSortScratchSize(VkcDevice device, const VkcSortPlanCreateInfo* info, VkDeviceSize* bytes) {
    if (!device || !info || !bytes) {
        return fail(VKC_ERROR_INVALID_ARGUMENT, "vkcGetSortScratchSize: device, pCreateInfo or pBytes is NULL");
    }
    return guarded([&] {
        *bytes = device->device.sort_scratch_bytes(vkc::Type(info->keyType), info->count, sort_options_of(*info));
    });
}

VkcResult vkcCreateSortPlan(VkcDevice device, const VkcSortPlanCreateInfo* info, VkcPlan* out) {
    if (!out) return fail(VKC_ERROR_INVALID_ARGUMENT, "vkcCreateSortPlan: pPlan is NULL");
    *out = nullptr;
    if (!device || !info) return fail(VKC_ERROR_INVALID_ARGUMENT, "vkcCreateSortPlan: device or pCreateInfo is NULL");
    return guarded([&] {
        vkc::SortOptions o = sort_options_of(*info);
        vkc::Type key = vkc::Type(info->keyType);
        vkc::Device& d = device->device;
        vkc::SortPlan plan;
        if (info->countBuffer) {
            vkc::IndirectCount count{info->countBuffer, info->countBufferOffset, info->count};
            plan = info->valueBytes
                       ? d.plan_sort_pairs(key, info->valueBytes, count, range(info->keys), range(info->keysAlternate),
                                           range(info->values), range(info->valuesAlternate), range(info->scratch), o)
                       : d.plan_sort(key, count, range(info->keys), range(info->keysAlternate), range(info->scratch), o);
        } else {
            plan = info->valueBytes ? d.plan_sort_pairs(key, info->valueBytes, info->count, range(info->keys),
                                                        range(info->keysAlternate), range(info->values),
                                                        range(info->valuesAlternate), range(info->scratch), o)
                                    : d.plan_sort(key, info->count, range(info->keys), range(info->keysAlternate),
                                                  range(info->scratch), o);
        }
        VkcPlan_T* made = new VkcPlan_T{};
        made->sort = std::move(plan);
        made->kind = VkcPlan_T::Kind::sort;
        *out = made;
    });
}

VkcResult vkcGetSelectScratchSize(VkcDevice device, const VkcSelectPlanCreateInfo* info, VkDeviceSize* bytes) {
    if (!device || !info || !bytes) {
        return fail(VKC_ERROR_INVALID_ARGUMENT, "vkcGetSelectScratchSize: device, pCreateInfo or pBytes is NULL");
    }
    return guarded([&] {
        *bytes = device->device.select_scratch_bytes(vkc::Type(info->itemType), info->count, select_options_of(*info));
    });
}

VkcResult vkcCreateSelectPlan(VkcDevice device, const VkcSelectPlanCreateInfo* info, VkcPlan* out) {
    if (!out) return fail(VKC_ERROR_INVALID_ARGUMENT, "vkcCreateSelectPlan: pPlan is NULL");
    *out = nullptr;
    if (!device || !info) return fail(VKC_ERROR_INVALID_ARGUMENT, "vkcCreateSelectPlan: device or pCreateInfo is NULL");
    return guarded([&] {
        vkc::SelectOptions o = select_options_of(*info);
        vkc::SelectRanges r;
        r.input = range(info->input);
        r.flags = range(info->flagsBuffer);
        r.output = range(info->output);
        r.kept = range(info->keptCount);
        r.command = range(info->commandBuffer);
        r.scratch = range(info->scratch);
        vkc::Type item = vkc::Type(info->itemType);
        vkc::Device& d = device->device;
        vkc::SelectPlan plan =
            info->countBuffer
                ? d.plan_select(item, vkc::IndirectCount{info->countBuffer, info->countBufferOffset, info->count}, r, o)
                : d.plan_select(item, info->count, r, o);
        VkcPlan_T* made = new VkcPlan_T{};
        made->select = std::move(plan);
        made->kind = VkcPlan_T::Kind::select;
        *out = made;
    });
}

VkcResult vkcGetHistogramScratchSize(VkcDevice device, const VkcHistogramPlanCreateInfo* info, VkDeviceSize* bytes) {
    if (!device || !info || !bytes) {
        return fail(VKC_ERROR_INVALID_ARGUMENT, "vkcGetHistogramScratchSize: device, pCreateInfo or pBytes is NULL");
    }
    return guarded([&] {
        *bytes = device->device.histogram_scratch_bytes(vkc::Type(info->sampleType), info->count,
                                                         histogram_options_of(*info));
    });
}

VkcResult vkcCreateHistogramPlan(VkcDevice device, const VkcHistogramPlanCreateInfo* info, VkcPlan* out) {
    if (!out) return fail(VKC_ERROR_INVALID_ARGUMENT, "vkcCreateHistogramPlan: pPlan is NULL");
    *out = nullptr;
    if (!device || !info) return fail(VKC_ERROR_INVALID_ARGUMENT, "vkcCreateHistogramPlan: device or pCreateInfo is NULL");
    return guarded([&] {
        vkc::HistogramOptions o = histogram_options_of(*info);
        vkc::HistogramRanges r;
        r.samples = range(info->samples);
        r.levels = range(info->levels);
        r.histogram = range(info->histogram);
        r.scratch = range(info->scratch);
        vkc::Type sample = vkc::Type(info->sampleType);
        vkc::Device& d = device->device;
        vkc::HistogramPlan plan =
            info->countBuffer
                ? d.plan_histogram(sample, vkc::IndirectCount{info->countBuffer, info->countBufferOffset, info->count}, r, o)
                : d.plan_histogram(sample, info->count, r, o);
        VkcPlan_T* made = new VkcPlan_T{};
        made->histogram = std::move(plan);
        made->kind = VkcPlan_T::Kind::histogram;
        *out = made;
    });
}

VkcResult vkcGetSegmentedScratchSize(VkcDevice device, const VkcSegmentedPlanCreateInfo* info, VkDeviceSize* bytes) {
    if (!device || !info || !bytes) {
        return fail(VKC_ERROR_INVALID_ARGUMENT, "vkcGetSegmentedScratchSize: device, pCreateInfo or pBytes is NULL");
    }
    return guarded([&] {
        *bytes = device->device.segmented_scratch_bytes(vkc::Type(info->valueType), info->count,
                                                         segmented_options_of(*info));
    });
}

VkcResult vkcCreateSegmentedPlan(VkcDevice device, const VkcSegmentedPlanCreateInfo* info, VkcPlan* out) {
    if (!out) return fail(VKC_ERROR_INVALID_ARGUMENT, "vkcCreateSegmentedPlan: pPlan is NULL");
    *out = nullptr;
    if (!device || !info) return fail(VKC_ERROR_INVALID_ARGUMENT, "vkcCreateSegmentedPlan: device or pCreateInfo is NULL");
    return guarded([&] {
        vkc::SegmentedOptions o = segmented_options_of(*info);
        vkc::SegmentedRanges r;
        r.values = range(info->values);
        r.heads = range(info->heads);
        r.output = range(info->output);
        r.unique_keys = range(info->uniqueKeys);
        r.offsets = range(info->offsets);
        r.segments = range(info->segmentsOut);
        r.scratch = range(info->scratch);
        const vkc::Type value = vkc::Type(info->valueType);
        const vkc::Op op = vkc::Op(info->op);
        vkc::Device& d = device->device;
        vkc::SegmentedPlan plan =
            info->countBuffer
                ? d.plan_segmented(value, op, vkc::IndirectCount{info->countBuffer, info->countBufferOffset, info->count}, r, o)
                : d.plan_segmented(value, op, info->count, r, o);
        VkcPlan_T* made = new VkcPlan_T{};
        made->segmented = std::move(plan);
        made->kind = VkcPlan_T::Kind::segmented;
        *out = made;
    });
}

uint32_t vkcGetPlanResultInAlternate(VkcPlan plan) {
    return plan && plan->kind == VkcPlan_T::Kind::sort && plan->sort.result_in_alternate();
}

VkcResult vkcCmdRecordPlan(VkcPlan plan, VkCommandBuffer cmd) {
    if (!plan) return fail(VKC_ERROR_INVALID_ARGUMENT, "vkcCmdRecordPlan: plan is NULL");
    if (!cmd) return fail(VKC_ERROR_INVALID_ARGUMENT, "vkcCmdRecordPlan: commandBuffer is VK_NULL_HANDLE");
    return guarded([&] {
        switch (plan->kind) {
        case VkcPlan_T::Kind::sort: plan->sort.record(cmd); break;
        case VkcPlan_T::Kind::select: plan->select.record(cmd); break;
        case VkcPlan_T::Kind::histogram: plan->histogram.record(cmd); break;
        case VkcPlan_T::Kind::segmented: plan->segmented.record(cmd); break;
        default: plan->plan.record(cmd); break;
        }
    });
}

uint32_t vkcGetPlanDispatchCount(VkcPlan plan) {
    if (!plan) return 0;
    switch (plan->kind) {
    case VkcPlan_T::Kind::sort: return plan->sort.dispatches();
    case VkcPlan_T::Kind::select: return plan->select.dispatches();
    case VkcPlan_T::Kind::histogram: return plan->histogram.dispatches();
    case VkcPlan_T::Kind::segmented: return plan->segmented.dispatches();
    default: return plan->plan.dispatches();
    }
}

void vkcDestroyPlan(VkcPlan plan) { delete plan; }

VkcResult vkcGetPipelineCacheData(VkcDevice device, size_t* size, void* data) {
    if (!device || !size) return fail(VKC_ERROR_INVALID_ARGUMENT, "vkcGetPipelineCacheData: device or pSize is NULL");
    VkcResult result = VKC_SUCCESS;
    VkcResult r = guarded([&] {
        std::vector<uint8_t> bytes = device->device.pipeline_cache_data();
        if (!data) {
            *size = bytes.size();
            return;
        }
        size_t n = std::min(*size, bytes.size());
        std::memcpy(data, bytes.data(), n);
        *size = n;
        if (n < bytes.size()) result = fail(VKC_ERROR_INCOMPLETE, "vkcGetPipelineCacheData: pData holds fewer bytes than the cache");
    });
    return r != VKC_SUCCESS ? r : result;
}

VkcResult vkcSetTuning(const char* text, size_t size) {
    if (!text && size) return fail(VKC_ERROR_INVALID_ARGUMENT, "vkcSetTuning: pText is NULL and size is not 0");
    return guarded([&] { vkc::set_tuning(std::string_view(text ? text : "", size)); });
}

} // extern "C"
