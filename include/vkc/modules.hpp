// vkcollectives: the embedded SPIR-V modules and what an engine needs to build a pipeline from one.
//
// Every module shares one interface, so one descriptor-set layout and pipeline layout serve them all:
//   set 0, binding 0: storage buffer, the input items (read only)
//   set 0, binding 1: storage buffer, the output items (written only where the item is live)
//   set 0, bindings 2 and 3: storage buffers of block and device scans and the sort (block: the
//     per-tile record; device scan and sort: the scratch, and the count of a plan with an IndirectCount)
//   set 0, bindings 4 and 5: storage buffers of the sort, the values in and out; of select, the flags
//     and the number kept
//   set 0, binding 6: storage buffer of select, the indirect command; a layout with all seven serves
//     every module
//   push constants: ModuleParams below, 32 bytes, compute stage
//   specialization constants 0, 1, 2: work-group size x, y, z (uint32)
//   specialization constant 6 (reduce, scans, block): shared scratch capacity in invocations, at least
//     the work-group size; default max_workgroup_size
//   specialization constants 4, 5, 7 (block, device_scan): items per invocation, staged (VkBool32),
//     stage items; 8 (block, device_scan): the kernel's own (module_spec_kernel)
//   specialization constant 3 (reduce and scans): VkBool32, true where the device packs invocations
//     into subgroups in local-index order at this shape (vkc::SubgroupLayout); false makes
//     them use shared memory only
// Shared memory: (max_workgroup_size + 1) items for reduce and scans, one item for broadcast, one uint
// for all/any.
#pragma once

#include "vkc/api.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "vkc/types.hpp"

namespace vkc {
VKC_API_BEGIN


struct ModuleParams {
    uint32_t count;        // live items; the last group is short when count is not a multiple of its size
    uint32_t group_count;  // work-groups holding items: ceil(count / size)
    uint32_t source_dims;  // broadcast: 1, 2 or 3 coordinates in source; ignored otherwise
    uint32_t reserved;     // 0
    uint32_t source[4];    // broadcast: local id (x, y, z) of the source invocation
};
static_assert(sizeof(ModuleParams) == 32);

// Push constants of block modules (collectives block_*), 32 bytes.
struct BlockParams {
    uint32_t count;           // valid items
    uint32_t tiles_per_group; // tiles each work-group scans in turn
    uint32_t flags;           // 1: seeded, 2: running prefix, 4: write the record (binding 2), 8: by callback
    uint32_t reserved;
    uint32_t seed[4];         // seed bits (low word first); [2], [3]: junk other invocations start from
};
static_assert(sizeof(BlockParams) == 32);
// Push constants of device_scan modules, 32 bytes (shaders/kernels/device_scan.comp says more).
struct DeviceScanParams {
    uint32_t count;       // items in this dispatch
    uint32_t tiles;       // ceil(count / tile items); with an IndirectCount, this dispatch's first item
    uint32_t flags;       // 1 exclusive, 2 carry in, 4 carry slot, 8 force fallback, 16 in place, 32 statistics,
                          // 64 prefetch while looking back; with an IndirectCount, bits 24-31: the
                          // count's word in binding 3
    uint32_t mode;        // 0 look-back scan, 1 reduce, 2 chunk prefixes, 3 scan chunks
    uint32_t spin_limit;  // mode 0: bits 0-15 polls of an unposted predecessor before computing it,
                          // bits 16-31 predecessors a look-back round reads
    uint32_t chunk_tiles; // tiles a work-group takes
    uint32_t chunks;      // work-groups (mode 0: chunks, one status entry each)
    uint32_t zero;        // always 0: the look-back orders loads through it
};
static_assert(sizeof(DeviceScanParams) == 32);
constexpr uint32_t module_spec_items_per_invocation = 4; // block modules
constexpr uint32_t module_spec_staged = 5;                // block modules: VkBool32
constexpr uint32_t module_spec_scratch_capacity = 6;      // reduce, scans, block: invocations (>= size)
constexpr uint32_t module_spec_stage_items = 7;           // block modules: items the stage holds
// Constant 8 is each kernel's own. device_scan: the path a pipeline compiles (0 the look-back scan of
// a tile in registers, 1 of chunks of tiles, 2 reduce and the reproducible scan's passes; the
// default, 0xffffffff, every path, by DeviceScanParams::mode; see device_scan.comp), with 0x100 set
// where the count is read from binding 3 (IndirectCount). Block modules:
// BlockParams::flags compiled in, and in bits 8-11 how many unstaged tiles an invocation loads
// together, 1 to 8 (the default, 0xffffffff, reads the flags from the push constants, batch 2).
constexpr uint32_t module_spec_kernel = 8;
constexpr uint32_t block_batch_shift = 8;
// Block modules stage tiles of up to this many bytes in shared memory for coalesced loads/stores
// (plus one padding item per 32).
constexpr uint32_t block_stage_bytes = 16384;

constexpr uint32_t module_input_binding = 0;
constexpr uint32_t module_output_binding = 1;
constexpr uint32_t module_max_bindings = 7; // the shared layout's storage buffers
constexpr uint32_t module_spec_workgroup_size_x = 0; // then y = 1, z = 2
constexpr uint32_t module_spec_subgroups_packed = 3;
constexpr uint32_t module_push_constant_bytes = sizeof(ModuleParams);

struct ModuleInfo {
    const char* name;       // e.g. "scan_inclusive_add_uint_subgroup"
    Collective collective;
    Type type;              // item type; all/any read uint predicates
    Op op;                  // add for collectives without an operator
    Path path;
    Feature required;       // what the device must support to run it
    uint32_t max_workgroup_size; // invocations its shared scratch is sized for
    uint32_t binding_count; // 2; 3 for block modules (binding 2: per-tile record, see BlockParams); 4 device_scan;
                            // 6 radix_sort; 7 select; 5 histogram; 7 segmented
    size_t code_bytes;      // size of the SPIR-V
    // The SPIR-V 1.3 words, entry point "main". The library keeps its modules packed, a stream per
    // kernel, type and path, and unpacks a stream when one of its modules is first asked for (safe
    // from any thread); the words then stay until the process ends. nullptr if host memory ran out.
    const uint32_t* code() const;
    // Where code() finds the words: the packed stream, and the module's first word in it.
    uint32_t packed_stream;
    uint32_t packed_offset;
};

// Every module the build made, in the order of shaders/variants.txt.
std::span<const ModuleInfo> modules();

// manifest.json of the modules above (installed beside their .spv files in share/vkcollectives/spirv):
// per module its file, entry point, bindings, push constants, specialization constants and the Vulkan
// features, extensions and subgroup operations it needs. Unpacked on the first call (the text then
// stays until the process ends); throws vkc::Error if host memory runs out.
std::string_view modules_manifest_json();

// Shared memory (bytes) a module uses.
size_t shared_memory_bytes(const ModuleInfo&);

VKC_API_END
} // namespace vkc
