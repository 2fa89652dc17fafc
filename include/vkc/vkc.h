/* vkcollectives' C API: the engine's door, for engines in C, in C++ without exceptions, or in any
 * language that calls C (Rust, Zig, ...). C99; nothing is thrown across it.
 *
 * A VkcDevice is made from the engine's own Vulkan objects, without a queue. It records and never
 * submits: plans are recorded into the engine's command buffers on the engine's buffers, and no call
 * but vkcProbeSubgroupLayout touches a queue or allocates device memory. Every call that can fail
 * returns a VkcResult; the message of the calling thread's last failure is vkcGetLastErrorMessage().
 *
 *   VkcDeviceCreateInfo create = {0};
 *   create.instance = instance; create.physicalDevice = physical; create.device = device;
 *   create.pEnabledFeatures = &enabled;                  // the chain given to vkCreateDevice
 *   VkcDevice gpu;
 *   if (vkcCreateDevice(&create, &gpu) != VKC_SUCCESS) fprintf(stderr, "%s\n", vkcGetLastErrorMessage());
 *   vkcProbeSubgroupLayout(gpu, queue, family, NULL);    // optional, at load time: subgroup modules
 *
 *   VkcPlanCreateInfo plan_info = {0};
 *   plan_info.primitive = VKC_PRIMITIVE_SCAN; plan_info.type = VKC_TYPE_U32; plan_info.op = VKC_OP_ADD;
 *   plan_info.count = n;
 *   vkcGetScratchSize(gpu, &plan_info, &scratch_bytes);
 *   plan_info.input = (VkcBufferRange){src, 0, n * 4};
 *   plan_info.output = (VkcBufferRange){dst, 0, n * 4};
 *   plan_info.scratch = (VkcBufferRange){scratch, 0, scratch_bytes};
 *   VkcPlan plan;
 *   vkcCreatePlan(gpu, &plan_info, &plan);
 *   vkcCmdRecordPlan(plan, cmd);                         // in the engine's frame, as often as wanted
 *   ...
 *   vkcDestroyPlan(plan); vkcDestroyDevice(gpu);         // once the GPU is done with them
 *
 * What the caller owes a recorded plan (barriers before and after, bound state it changes, buffer
 * usages, lifetimes) is the C++ API's, written out in include/vkc/device_scan.hpp. Objects are not
 * thread safe: use a VkcDevice and its plans from one thread at a time.
 *
 * Include order: in C99, include the engine's Vulkan header (vulkan.h or volk.h) before this one, so
 * that the handle types are declared once; C11 and C++ accept either order. */
#ifndef VKC_VKC_H_
#define VKC_VKC_H_

#include <stddef.h>
#include <stdint.h>

#include "vkc/vulkan_handles.h"

#if defined(__GNUC__) || defined(__clang__)
#define VKC_C_API __attribute__((visibility("default")))
#else
#define VKC_C_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum VkcResult {
    VKC_SUCCESS = 0,
    VKC_ERROR_INVALID_ARGUMENT = -1,      /* a bad handle, range, count, type or op; the message names it */
    VKC_ERROR_UNSUPPORTED = -2,           /* the device, or this build's module set, lacks what it needs (named) */
    VKC_ERROR_OUT_OF_HOST_MEMORY = -3,
    VKC_ERROR_OUT_OF_DEVICE_MEMORY = -4,
    VKC_ERROR_VULKAN = -5,                /* a Vulkan call failed (named, with its VkResult) */
    VKC_ERROR_INCOMPLETE = -6,            /* vkcGetPipelineCacheData: the buffer was too small */
    VKC_ERROR_UNKNOWN = -7
} VkcResult;

/* Item types; the values are vkc::Type's. 8- and 16-bit integers and half need the device features
 * their modules list (vkc modules). */
typedef enum VkcType {
    VKC_TYPE_F16 = 0,
    VKC_TYPE_I32 = 1,
    VKC_TYPE_U32 = 2,
    VKC_TYPE_I64 = 3,
    VKC_TYPE_U64 = 4,
    VKC_TYPE_F32 = 5,
    VKC_TYPE_F64 = 6,
    VKC_TYPE_I8 = 7,
    VKC_TYPE_U8 = 8,
    VKC_TYPE_I16 = 9,
    VKC_TYPE_U16 = 10
} VkcType;

/* Operators; the values are vkc::Op's. Bitwise and logical operators are for integers. */
typedef enum VkcOp {
    VKC_OP_ADD = 0,
    VKC_OP_MIN = 1,
    VKC_OP_MAX = 2,
    VKC_OP_MUL = 3,
    VKC_OP_AND = 4,
    VKC_OP_OR = 5,
    VKC_OP_XOR = 6,
    VKC_OP_LOGICAL_AND = 7,
    VKC_OP_LOGICAL_OR = 8,
    VKC_OP_LOGICAL_XOR = 9
} VkcOp;

/* What a plan of VkcPlanCreateInfo computes (sorts have VkcSortPlanCreateInfo). */
typedef enum VkcPrimitive {
    VKC_PRIMITIVE_SCAN = 0,  /* output[i] = input[0] op ... op input[i] (exclusive: up to i - 1) */
    VKC_PRIMITIVE_REDUCE = 1 /* output[0] = input[0] op ... op input[count - 1]; the identity for 0 items */
} VkcPrimitive;

typedef enum VkcPlanFlagBits {
    VKC_PLAN_EXCLUSIVE_BIT = 0x1,      /* scan: item i gets op over items 0..i-1, item 0 the identity */
    VKC_PLAN_REPRODUCIBLE_BIT = 0x2,   /* bit-identical float results run after run */
    VKC_PLAN_SCRATCH_ZEROED_BIT = 0x4, /* the scratch range was zeroed once: record no fill (ScanOptions) */
    VKC_PLAN_SHARED_MEMORY_BIT = 0x8   /* use the shared-memory module even where subgroups would do */
} VkcPlanFlagBits;
typedef uint32_t VkcPlanFlags;

typedef enum VkcDeviceFlagBits {
    VKC_DEVICE_SHARED_MEMORY_ONLY_BIT = 0x1 /* never use subgroup modules (also VKC_SHARED_MEMORY_ONLY=1) */
} VkcDeviceFlagBits;
typedef uint32_t VkcDeviceFlags;

/* Which 1D work-group sizes pack their invocations into subgroups in local-index order
 * (vkc::SubgroupLayout): sizes[0 .. sizeCount - 1] were probed, bit i of packedMask says sizes[i] is
 * packed. Plain data: an engine may keep it with its pipeline cache and pass it back. */
#define VKC_SUBGROUP_LAYOUT_MAX_SIZES 32
typedef struct VkcSubgroupLayout {
    uint32_t sizeCount;
    uint32_t sizes[VKC_SUBGROUP_LAYOUT_MAX_SIZES];
    uint32_t packedMask;
} VkcSubgroupLayout;

typedef struct VkcDeviceCreateInfo {
    VkInstance instance;             /* created for Vulkan 1.1 or later */
    VkPhysicalDevice physicalDevice;
    VkDevice device;
    /* The chain the device was created with (Vulkan cannot be asked what was enabled); NULL: none. */
    const struct VkPhysicalDeviceFeatures2* pEnabledFeatures;
    /* Optional: the engine's vkGetInstanceProcAddr; NULL: the system loader's (libvulkan.so.1). */
    PFN_vkGetInstanceProcAddr pfnGetInstanceProcAddr;
    /* Optional: the engine's pipeline cache on this device; VK_NULL_HANDLE: one of the device's own. */
    VkPipelineCache pipelineCache;
    /* Optional: host allocation callbacks for every Vulkan object made; copied. */
    const struct VkAllocationCallbacks* pAllocationCallbacks;
    /* Optional: an earlier probe's answer for this device and driver; zeroes: none known. */
    VkcSubgroupLayout subgroupLayout;
    VkcDeviceFlags flags;
} VkcDeviceCreateInfo;

typedef struct VkcBufferRange {
    VkBuffer buffer;
    VkDeviceSize offset; /* a multiple of 16 and of minStorageBufferOffsetAlignment */
    VkDeviceSize size;   /* bytes */
} VkcBufferRange;

typedef struct VkcPlanCreateInfo {
    VkcPrimitive primitive;
    VkcType type;
    VkcOp op;
    VkcPlanFlags flags;
    /* Items. With countBuffer set, the bound: the plan reads a uint32 count from countBuffer at
     * countBufferOffset (a multiple of 4) when it executes, clamped to this; at most 2^32 - 1. */
    uint64_t count;
    VkBuffer countBuffer;
    VkDeviceSize countBufferOffset;
    VkcBufferRange input;
    VkcBufferRange output;  /* scan: count items (may be the input range: in place); reduce: one item */
    VkcBufferRange scratch; /* vkcGetScratchSize bytes */
} VkcPlanCreateInfo;

/* A device-wide radix sort (include/vkc/sort.hpp): LSD by 8-bit digits, stable. Each pass moves the
 * keys (and values) from one range of a pair to the other, starting at `keys`: the sorted keys end
 * in keysAlternate when vkcGetPlanResultInAlternate says so (an odd number of passes). */
typedef enum VkcSortFlagBits {
    VKC_SORT_DESCENDING_BIT = 0x1,   /* largest first (still stable) */
    VKC_SORT_SHARED_MEMORY_BIT = 0x2 /* use the shared-memory module even where subgroups would do */
} VkcSortFlagBits;
typedef uint32_t VkcSortFlags;
typedef struct VkcSortPlanCreateInfo {
    VkcType keyType;     /* VKC_TYPE_U32, _I32, _F32, _U64, _I64 or _F64: ordered as numbers (float: -0 before
                          * +0, NaNs at the ends) */
    uint32_t valueBytes; /* 0: keys only; 1, 2, 4, 8 or 16: values moved with their keys */
    VkcSortFlags flags;
    uint32_t beginBit;   /* sort by bits [beginBit, endBit) of the ordered key; endBit 0: every bit */
    uint32_t endBit;
    /* Keys, at most 2^32 - 1 (each range within maxStorageBufferRange). With countBuffer set, the
     * bound: the plan reads a uint32 count from countBuffer at countBufferOffset (a multiple of 4)
     * when it executes, clamped to this. */
    uint64_t count;
    VkBuffer countBuffer;
    VkDeviceSize countBufferOffset;
    VkcBufferRange keys;
    VkcBufferRange keysAlternate;
    VkcBufferRange values;          /* valueBytes != 0 only */
    VkcBufferRange valuesAlternate; /* valueBytes != 0 only */
    VkcBufferRange scratch;         /* vkcGetSortScratchSize bytes */
} VkcSortPlanCreateInfo;

/* A device-wide select, unique or partition (include/vkc/select.hpp): one pass, stable. The kept items
 * go to output[0, kept); kept (a uint32) to keptCount, and optionally an indirect command built from
 * it to command. */
typedef enum VkcSelection {
    VKC_SELECTION_FLAGGED = 0,   /* items whose uint32 flag is not 0 */
    VKC_SELECTION_PREDICATE = 1, /* items the predicate accepts */
    VKC_SELECTION_UNIQUE = 2     /* the first item of every run of equal items */
} VkcSelection;
/* x the item, a and b the operands; comparisons follow the item type (floats as numbers: NaN
 * unordered, -0 == +0); the bits forms test the bits. */
typedef enum VkcPredicate {
    VKC_PREDICATE_LESS = 0,          /* x < a */
    VKC_PREDICATE_LESS_EQUAL = 1,    /* x <= a */
    VKC_PREDICATE_GREATER = 2,       /* x > a */
    VKC_PREDICATE_GREATER_EQUAL = 3, /* x >= a */
    VKC_PREDICATE_EQUAL = 4,         /* x == a */
    VKC_PREDICATE_NOT_EQUAL = 5,     /* x != a */
    VKC_PREDICATE_INSIDE = 6,        /* a <= x < b */
    VKC_PREDICATE_OUTSIDE = 7,       /* x < a or x >= b */
    VKC_PREDICATE_BITS_ALL = 8,      /* (x & a) == a */
    VKC_PREDICATE_BITS_ANY = 9       /* (x & a) != 0 */
} VkcPredicate;
typedef enum VkcKeptCommand {
    VKC_KEPT_COMMAND_NONE = 0,
    VKC_KEPT_COMMAND_DISPATCH = 1,    /* VkDispatchIndirectCommand {ceil(kept / commandParameter), 1, 1} */
    VKC_KEPT_COMMAND_DRAW = 2,        /* VkDrawIndirectCommand {commandParameter, kept, 0, 0} */
    VKC_KEPT_COMMAND_DRAW_INDEXED = 3 /* VkDrawIndexedIndirectCommand {commandParameter, kept, 0, 0, 0} */
} VkcKeptCommand;
typedef enum VkcSelectFlagBits {
    VKC_SELECT_PARTITION_BIT = 0x1,    /* the items not kept follow the kept ones, last first */
    VKC_SELECT_SHARED_MEMORY_BIT = 0x2 /* use the shared-memory module even where subgroups would do */
} VkcSelectFlagBits;
typedef uint32_t VkcSelectFlags;
typedef struct VkcSelectPlanCreateInfo {
    VkcType itemType; /* VKC_TYPE_U8, _I8, _U16, _I16, _F16 (8- or 16-bit storage access), _U32, _I32,
                       * _F32, _U64, _I64 or _F64 */
    VkcSelection selection;
    VkcPredicate predicate;   /* VKC_SELECTION_PREDICATE only */
    uint64_t operandA;        /* the operands' bits, of itemType (its low bytes for 8- to 32-bit types) */
    uint64_t operandB;
    VkcSelectFlags flags;
    VkcKeptCommand command;
    uint32_t commandParameter; /* DISPATCH: kept items a work-group takes (1 to 65535); DRAW and
                                * DRAW_INDEXED: the vertex or index count of an instance */
    /* Items, at most 2^30 - 1. With countBuffer set, the bound: the plan reads a uint32 count from
     * countBuffer at countBufferOffset (a multiple of 4) when it executes, clamped to this. */
    uint64_t count;
    VkBuffer countBuffer;
    VkDeviceSize countBufferOffset;
    VkcBufferRange input;
    VkcBufferRange flagsBuffer; /* VKC_SELECTION_FLAGGED only: count uint32 flags */
    VkcBufferRange output;      /* count items; may be the input range (in place) without partition */
    VkcBufferRange keptCount;   /* 4 bytes */
    VkcBufferRange commandBuffer; /* the command's 12, 16 or 20 bytes, where command is not NONE */
    VkcBufferRange scratch;     /* vkcGetSelectScratchSize bytes */
} VkcSelectPlanCreateInfo;

/* A device-wide histogram (include/vkc/histogram.hpp): the counts of each active channel's bins, one
 * channel after another, as uint32. Samples outside the bins, and NaNs, count nowhere. */
typedef enum VkcBinning {
    VKC_BINNING_EVEN = 0, /* bins[c] bins of equal width over [lower[c], upper[c]) */
    VKC_BINNING_RANGE = 1 /* bin i counts levels[i] <= x < levels[i + 1] (bins[c] + 1 levels a channel) */
} VkcBinning;
typedef enum VkcHistogramFlagBits {
    VKC_HISTOGRAM_ACCUMULATE_BIT = 0x1 /* add to the counts in the histogram range instead of zeroing them */
} VkcHistogramFlagBits;
typedef uint32_t VkcHistogramFlags;
typedef struct VkcHistogramPlanCreateInfo {
    VkcType sampleType; /* VKC_TYPE_U8, _I8, _U16, _I16, _U32, _I32, _F16 or _F32 */
    VkcBinning binning;
    uint32_t channels;       /* interleaved samples a pixel, 1 to 4 */
    uint32_t activeChannels; /* the first this many get a histogram, 1 to channels */
    uint32_t bins[4];        /* each active channel's bins */
    double lower[4];         /* VKC_BINNING_EVEN: each active channel's [lower, upper), values of sampleType */
    double upper[4];
    VkcHistogramFlags flags;
    /* Pixels, at most (2^32 - 1) / channels. With countBuffer set, the bound: the plan reads a uint32
     * count from countBuffer at countBufferOffset (a multiple of 4) when it executes, clamped to this. */
    uint64_t count;
    VkBuffer countBuffer;
    VkDeviceSize countBufferOffset;
    VkcBufferRange samples;   /* count x channels samples, read as 32-bit words (rounded up to 4 bytes) */
    VkcBufferRange levels;    /* VKC_BINNING_RANGE: 32-bit levels of the sample's kind (uint32, int32, float) */
    VkcBufferRange histogram; /* the bins' uint32 counts */
    VkcBufferRange scratch;   /* vkcGetHistogramScratchSize bytes */
} VkcHistogramPlanCreateInfo;

/* Segmented scans and reductions, by key, and run-length encoding (include/vkc/segmented.hpp). Item 0
 * always starts a segment. */
typedef enum VkcSegments {
    VKC_SEGMENTS_HEAD_FLAGS = 0, /* item i starts a segment where its uint32 flag is not 0 */
    VKC_SEGMENTS_KEYS = 1,       /* where its key differs from item i - 1's (floats as numbers) */
    VKC_SEGMENTS_OFFSETS = 2     /* segment s holds items [offsets[s], offsets[s + 1]); scans leave
                                  * items outside every segment unwritten */
} VkcSegments;
typedef enum VkcSegmentedOutput {
    VKC_SEGMENTED_SCAN_INCLUSIVE = 0, /* a value an item: op over its segment up to it */
    VKC_SEGMENTED_SCAN_EXCLUSIVE = 1, /* the same before it: the op's identity at a segment's first item */
    VKC_SEGMENTED_REDUCE = 2,         /* a total a segment, with its first key (keys), and their number */
    VKC_SEGMENTED_RUN_LENGTHS = 3,    /* keys only: each run's key and uint32 length, and their number;
                                       * valueType VKC_TYPE_U32 and op VKC_OP_ADD */
    VKC_SEGMENTED_NON_TRIVIAL_RUNS = 4 /* keys only: each run of 2 keys or more, its uint32 first index
                                        * (in uniqueKeys) and length (in output), and their number;
                                        * valueType VKC_TYPE_U32 and op VKC_OP_ADD */
} VkcSegmentedOutput;
typedef enum VkcSegmentedFlagBits {
    VKC_SEGMENTED_SHARED_MEMORY_BIT = 0x1 /* use the shared-memory module even where subgroups would do */
} VkcSegmentedFlagBits;
typedef uint32_t VkcSegmentedFlags;
typedef struct VkcSegmentedPlanCreateInfo {
    VkcType valueType; /* VKC_TYPE_U32, _I32, _F32, _U64, _I64 or _F64 */
    VkcOp op;          /* any operator of the scan for valueType */
    VkcSegments segments;
    VkcType keyType;   /* VKC_SEGMENTS_KEYS: one of valueType's six */
    uint32_t segmentCount; /* VKC_SEGMENTS_OFFSETS: the segments (offsets holds one more offset) */
    VkcSegmentedOutput outputKind;
    VkcSegmentedFlags flags;
    /* Items, at most 2^30 - 1. With countBuffer set, the bound: the plan reads a uint32 count from
     * countBuffer at countBufferOffset (a multiple of 4) when it executes, clamped to this. */
    uint64_t count;
    VkBuffer countBuffer;
    VkDeviceSize countBufferOffset;
    VkcBufferRange values;     /* count values; unused by run lengths */
    VkcBufferRange heads;      /* count uint32 head flags, or count keys */
    VkcBufferRange offsets;    /* VKC_SEGMENTS_OFFSETS: segmentCount + 1 ascending uint32, at most count */
    VkcBufferRange output;     /* count values (run lengths: uint32; REDUCE by offsets, segmentCount values;
                                * NON_TRIVIAL_RUNS, (count + 1) / 2 uint32); scans may name the values
                                * (in place) */
    VkcBufferRange uniqueKeys; /* REDUCE by keys and RUN_LENGTHS: room for count keys; NON_TRIVIAL_RUNS:
                                * (count + 1) / 2 uint32 */
    VkcBufferRange segmentsOut; /* REDUCE by flags or keys, RUN_LENGTHS, NON_TRIVIAL_RUNS: 4 bytes, the
                                 * number of segments or runs */
    VkcBufferRange scratch;    /* vkcGetSegmentedScratchSize bytes */
} VkcSegmentedPlanCreateInfo;

typedef struct VkcDevice_T* VkcDevice;
typedef struct VkcPlan_T* VkcPlan;

/* The calling thread's last error message ("" if none); valid until its next failing call. */
VKC_C_API const char* vkcGetLastErrorMessage(void);
/* "VKC_SUCCESS", "VKC_ERROR_INVALID_ARGUMENT", ... */
VKC_C_API const char* vkcResultName(VkcResult result);

VKC_C_API VkcResult vkcCreateDevice(const VkcDeviceCreateInfo* pCreateInfo, VkcDevice* pDevice);
/* NULL is ignored. Plans made on the device must be destroyed first. */
VKC_C_API void vkcDestroyDevice(VkcDevice device);

/* The probe of the subgroup layout: one submission to `queue` (of a family with compute) and a wait
 * on a fence of its own; the caller synchronises the queue for this call as for its own submits.
 * pLayout may be NULL. */
VKC_C_API VkcResult vkcProbeSubgroupLayout(VkcDevice device, VkQueue queue, uint32_t queueFamily,
                                           VkcSubgroupLayout* pLayout);
VKC_C_API void vkcGetSubgroupLayout(VkcDevice device, VkcSubgroupLayout* pLayout);

/* Scratch bytes a plan of pCreateInfo's primitive, type, flags and count needs (its ranges are not
 * read). */
VKC_C_API VkcResult vkcGetScratchSize(VkcDevice device, const VkcPlanCreateInfo* pCreateInfo, VkDeviceSize* pBytes);

/* Checks every argument (nothing is recorded on a failure) and makes the plan. */
VKC_C_API VkcResult vkcCreatePlan(VkcDevice device, const VkcPlanCreateInfo* pCreateInfo, VkcPlan* pPlan);
/* Makes every pipeline the plans of pCreateInfos[0 .. count - 1] would run, for any count from 1 to
 * their count (their bound with a countBuffer; their ranges are not read), on threadCount threads at
 * once (0: the CPU's, at most 8), so that vkcCreatePlan finds them ready (vkc::Device::prepare_scans).
 * Plans may be made on several threads at once on one device. */
VKC_C_API VkcResult vkcPrepareScans(VkcDevice device, uint32_t count, const VkcPlanCreateInfo* pCreateInfos,
                                    uint32_t threadCount);
/* Scratch bytes a sort of pCreateInfo's key type and count needs (its ranges are not read). */
VKC_C_API VkcResult vkcGetSortScratchSize(VkcDevice device, const VkcSortPlanCreateInfo* pCreateInfo,
                                          VkDeviceSize* pBytes);
/* Checks every argument (nothing is recorded on a failure) and makes a sort plan. */
VKC_C_API VkcResult vkcCreateSortPlan(VkcDevice device, const VkcSortPlanCreateInfo* pCreateInfo, VkcPlan* pPlan);
/* Scratch bytes a select of pCreateInfo's item type and count needs (its ranges are not read). */
VKC_C_API VkcResult vkcGetSelectScratchSize(VkcDevice device, const VkcSelectPlanCreateInfo* pCreateInfo,
                                            VkDeviceSize* pBytes);
/* Checks every argument (nothing is recorded on a failure) and makes a select plan. */
VKC_C_API VkcResult vkcCreateSelectPlan(VkcDevice device, const VkcSelectPlanCreateInfo* pCreateInfo,
                                        VkcPlan* pPlan);
/* Scratch bytes a histogram needs (its ranges are not read; the bins are checked). */
VKC_C_API VkcResult vkcGetHistogramScratchSize(VkcDevice device, const VkcHistogramPlanCreateInfo* pCreateInfo,
                                               VkDeviceSize* pBytes);
/* Checks every argument (nothing is recorded on a failure) and makes a histogram plan. */
VKC_C_API VkcResult vkcCreateHistogramPlan(VkcDevice device, const VkcHistogramPlanCreateInfo* pCreateInfo,
                                           VkcPlan* pPlan);
/* Scratch bytes a segmented plan of pCreateInfo's count needs (its ranges are not read). */
VKC_C_API VkcResult vkcGetSegmentedScratchSize(VkcDevice device, const VkcSegmentedPlanCreateInfo* pCreateInfo,
                                               VkDeviceSize* pBytes);
/* Checks every argument (nothing is recorded on a failure) and makes a segmented plan. */
VKC_C_API VkcResult vkcCreateSegmentedPlan(VkcDevice device, const VkcSegmentedPlanCreateInfo* pCreateInfo,
                                           VkcPlan* pPlan);
/* A sort plan: 1 where its result is in keysAlternate (and valuesAlternate), 0 where it is in keys;
 * 0 for other plans. */
VKC_C_API uint32_t vkcGetPlanResultInAlternate(VkcPlan plan);

/* Records the plan's fills, dispatches and barriers into the command buffer; no submit, no wait. */
VKC_C_API VkcResult vkcCmdRecordPlan(VkcPlan plan, VkCommandBuffer commandBuffer);
/* Compute dispatches the plan records. */
VKC_C_API uint32_t vkcGetPlanDispatchCount(VkcPlan plan);
/* NULL is ignored. The GPU must be done with every command buffer that recorded it. */
VKC_C_API void vkcDestroyPlan(VkcPlan plan);

/* The device's pipeline cache data, in Vulkan's two-call idiom: pData NULL sets *pSize; otherwise
 * writes at most *pSize bytes, VKC_ERROR_INCOMPLETE when they were not all. */
VKC_C_API VkcResult vkcGetPipelineCacheData(VkcDevice device, size_t* pSize, void* pData);

/* Tuning text written by `vkc tune` (include/vkc/tuning.hpp, docs/tuning.md), for plans and scratch
 * sizes asked for after the call, on every VkcDevice of the process; size 0 clears it. A bad line is
 * VKC_ERROR_INVALID_ARGUMENT naming it, and leaves the tuning in effect as it was. */
VKC_C_API VkcResult vkcSetTuning(const char* pText, size_t size);

#ifdef __cplusplus
}
#endif

#endif /* VKC_VKC_H_ */
