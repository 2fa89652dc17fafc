#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_KHR_memory_scope_semantics : require

// Device-wide scan and reduce of one buffer (vkc::Context::scan / reduce, vkc::ScanPlan). One module
// per (type, op); the host picks the mode by push constant:
//
//   MODE_SCAN          single-pass chained scan with decoupled look-back (Merrill and Garland 2016):
//                      one chunk of params.chunk_tiles tiles a work-group, taken from an atomic ticket
//                      (never by ID); a chunk posts its aggregate, looks back over its predecessors'
//                      posts, posts its inclusive prefix. A chunk of one tile, or of up to
//                      REGISTER_CHUNK_TILES full staged tiles, is held in registers through the
//                      look-back; a longer one is reduced from memory first and read again to scan it
//                      (reduce-then-scan inside the chunk: the second read mostly hits L2).
//   MODE_REDUCE        each work-group reduces a chunk of tiles; the last to finish reduces the chunk
//                      totals in order and writes the result to output item 0.
//   MODE_REDUCE_CHUNKS the same, but the last one turns the chunk totals into exclusive prefixes:
//   MODE_SCAN_CHUNKS   ... from which each work-group rescans its chunk. These two make the
//                      reproducible scan: every value is combined in an order fixed by the sizes alone.
//
// This file declares the interface (bindings, push constants, specialization constants) and picks
// the path; the building blocks are its private headers in device_scan/ beside it, included below in
// dependency order. The numbers the host shares with it (modes, flags, scratch words, constant ids) come from
// vkc/contract.h.
//
// Forward progress: Vulkan promises none between work-groups, so a chunk never waits without bound.
// After spin_limit polls of a predecessor that has not posted, the look-back computes that chunk's
// total from its input itself (the decoupled fallback of Smith, Levien and Owens, 2025) and goes on.
// FLAG_FORCE_FALLBACK makes every chunk do so for its predecessor without polling (a test setting).
//
// Bindings: 0 input items, 1 output items (may be the same memory: in place), 2 the scratch (uint
// words; its layout: device_scan/scratch.glsl), 3 an IndirectCount's buffer.
#include "vkc/contract.h"

layout(local_size_x_id = VKC_SPEC_WORKGROUP_SIZE_X, local_size_y_id = VKC_SPEC_WORKGROUP_SIZE_Y,
       local_size_z_id = VKC_SPEC_WORKGROUP_SIZE_Z) in;
layout(constant_id = VKC_SPEC_SUBGROUPS_PACKED) const bool subgroups_packed = true;
// A multiple of ITEM_VEC_WIDTH, at most VKC_ITEMS.
layout(constant_id = VKC_SPEC_ITEMS_PER_INVOCATION) const uint items_per_invocation = 32u;
layout(constant_id = VKC_SPEC_STAGED) const bool staged = false; // full tiles move through shared memory (coalesced)
layout(constant_id = VKC_SPEC_SCRATCH_CAPACITY) const uint scratch_capacity = VKC_MODULE_CAPACITY;
// Sized by a specialization constant whose default is the largest stage: Mesa 22 sizes shared arrays
// from the defaults.
layout(constant_id = VKC_SPEC_STAGE_ITEMS) const uint stage_items = VKC_STAGE_BYTES / ITEM_BYTES;
// The path a pipeline compiles: a plan's pipeline takes only the path it runs, since registers are
// allotted for the hungriest path in the pipeline, and a tile held in registers is latency-bound on
// occupancy (the chunk passes' code alone costs the look-back scan registers and speed). The default
// compiles every path and takes the mode from the push constants.
const uint PATH_LOOK_BACK = VKC_DEVICE_PATH_LOOK_BACK;                 // MODE_SCAN, a tile a work-group
const uint PATH_LOOK_BACK_CHUNKED = VKC_DEVICE_PATH_LOOK_BACK_CHUNKED; // MODE_SCAN, params.chunk_tiles > 1
const uint PATH_CHUNK_PASSES = VKC_DEVICE_PATH_CHUNK_PASSES; // MODE_REDUCE, MODE_REDUCE_CHUNKS, MODE_SCAN_CHUNKS
const uint PATH_ANY = VKC_DEVICE_PATH_ANY;
layout(constant_id = VKC_SPEC_KERNEL) const uint compiled_path = PATH_ANY;
#define VKC_SCRATCH_CAPACITY scratch_capacity
#define VKC_SUBGROUPS_PACKED subgroups_packed
// No alternating scratch halves (common.glsl): a work-group scan here runs only in the fallback, yet
// the register that says which half is next would be held throughout the tile.
#define VKC_SCAN_ALTERNATE_HALVES false
#define VKC_ITEMS VKC_DEVICE_MAX_ITEMS_PER_INVOCATION
#define VKC_ITEMS_ACTIVE items_per_invocation

// Float min and max combine ordered integer keys (vkc_ordered in common.glsl): each item becomes its
// key once, as it is first combined, and its bits again as it is written (device_scan/tile_io.glsl),
// so tiles, look-back and statuses run integer min and max, not ordered compares at every step.
// Exact like the float path: keys order every non-NaN float (-0 below +0), and a NaN reads as the
// integer identity, written back as the float one (+INF for min, -INF for max). 64-bit keys need
// shaderInt64, which double's shared-memory modules do without; half keeps its float items.
#if ITEM_FLOAT && (defined(ITEM_OP_min) || defined(ITEM_OP_max)) && \
    (ITEM_BYTES == 4 || (ITEM_BYTES == 8 && VKC_SUBGROUP_ARITHMETIC))
#define ITEM_KEYED 1
#undef ITEM_TYPE
#undef ITEM_VEC
#if ITEM_BYTES == 8
#define ITEM_TYPE int64_t
#define ITEM_VEC i64vec2
#else
#define ITEM_TYPE int
#define ITEM_VEC ivec4
#endif
#else
#define ITEM_KEYED 0
#endif
#include "custom_ops.glsl"
#define VKC_TYPE ITEM_TYPE
#define VKC_OP ITEM_OP
#include "vkc/block_scan.glsl"
#include "item_bits.glsl"

#if ITEM_VEC_WIDTH > 1
// The same memory seen as vectors of items, for 16-byte loads and stores (8 for 16-bit, 4 for 8-bit items).
layout(set = 0, binding = 0, std430) readonly buffer InputVectors { ITEM_VEC vectors_in[]; };
layout(set = 0, binding = 1, std430) writeonly buffer OutputVectors { ITEM_VEC vectors_out[]; };
#endif
layout(set = 0, binding = 0, std430) readonly buffer Input { ITEM_TYPE items_in[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Output { ITEM_TYPE items_out[]; };
layout(set = 0, binding = 2, std430) coherent buffer State { uint state[]; };
// A plan's IndirectCount: the count at word params.tiles (the binding starts at an aligned offset).
layout(set = 0, binding = 3, std430) readonly buffer IndirectCount { uint indirect_count_words[]; };

layout(push_constant, std430) uniform Params {
    uint count;       // items in this dispatch (with an indirect count: at most this many)
    uint tiles;       // ceil(count / tile items) (with an indirect count: the index of this dispatch's
                      // first item; the count's word in binding 3 is in flags bits 24-31)
    uint flags;
    uint mode;
    uint spin_limit;  // MODE_SCAN: bits 0-15 polls of an unposted predecessor before computing it,
                      // bits 16-31 predecessors a look-back round reads
    uint chunk_tiles; // tiles a work-group takes
    uint chunks;      // work-groups (MODE_SCAN: chunks, one status entry each)
    uint zero;        // 0 (see read_words)
} params;

const uint MODE_SCAN = VKC_DEVICE_MODE_SCAN, MODE_REDUCE = VKC_DEVICE_MODE_REDUCE,
           MODE_REDUCE_CHUNKS = VKC_DEVICE_MODE_REDUCE_CHUNKS, MODE_SCAN_CHUNKS = VKC_DEVICE_MODE_SCAN_CHUNKS;
const uint FLAG_EXCLUSIVE = VKC_DEVICE_FLAG_EXCLUSIVE;
const uint FLAG_CARRY_IN = VKC_DEVICE_FLAG_CARRY_IN;     // start from the carry the previous dispatch left
const uint FLAG_CARRY_SLOT = VKC_DEVICE_FLAG_CARRY_SLOT; // read the carry from slot 1 and write slot 0
const uint FLAG_FORCE_FALLBACK = VKC_DEVICE_FLAG_FORCE_FALLBACK; // test setting: never trust the post
const uint FLAG_IN_PLACE = VKC_DEVICE_FLAG_IN_PLACE; // a chunk's input is gone once it has posted
const uint FLAG_STATS = VKC_DEVICE_FLAG_STATS;       // count look-back rounds, chunks walked, fallbacks
const uint FLAG_PREFETCH = VKC_DEVICE_FLAG_PREFETCH; // look-back rounds touch a coming chunk's input

// The path this pipeline runs: the one compiled in, or, where all are, the one the push constants name.
const uint path_bits = compiled_path & VKC_DEVICE_PATH_MASK;
bool runs_look_back() {
    return compiled_path == PATH_ANY ? params.mode == MODE_SCAN : path_bits != PATH_CHUNK_PASSES;
}
bool runs_chunked_look_back() {
    return compiled_path == PATH_ANY ? params.chunk_tiles > 1u : path_bits == PATH_LOOK_BACK_CHUNKED;
}

uint tile_items() { return VKC_WORKGROUP_SIZE * items_per_invocation; }
uint group_index() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }
bool has_flag(uint f) { return (params.flags & f) != 0u; }

// The dispatch's items, tiles, chunks and tiles a chunk. A plan's pipeline with VKC_DEVICE_COUNT_ON_DEVICE
// (a count the GPU wrote: IndirectCount) derives them from the count in binding 3: the count's items
// from params.tiles on (this dispatch's first item), at most params.count (the host's bound for this
// dispatch, which sized its bindings and grid), as the host derives them from a count it knows
// (Layout, src/device_scan/internal.hpp): the look-back keeps params.chunk_tiles, the chunk passes
// split the tiles over at most params.chunks work-groups. Groups past the chunks exit at once. They
// are kept in shared memory, not in registers held through the tile. Other pipelines read all four
// from the push constants, and specialization leaves no trace of this.
// (Bit 31 set: PATH_ANY. One comparison, as && of specialization constants becomes code in glslang.)
const bool count_on_device =
    (compiled_path & (VKC_DEVICE_COUNT_ON_DEVICE | 0x80000000u)) == VKC_DEVICE_COUNT_ON_DEVICE;
shared uint device_counts[4]; // items, tiles, chunks, tiles a chunk
uint item_count() { return count_on_device ? device_counts[0] : params.count; }
uint tile_count() { return count_on_device ? device_counts[1] : params.tiles; }
uint chunk_count() { return count_on_device ? device_counts[2] : params.chunks; }
uint tiles_per_chunk() { return count_on_device ? device_counts[3] : params.chunk_tiles; }
void read_count_on_device() {
    if (gl_LocalInvocationIndex == 0u) {
        uint total = indirect_count_words[params.flags >> VKC_DEVICE_COUNT_WORD_SHIFT];
        uint items = min(total - min(total, params.tiles), params.count);
        uint tiles = items / tile_items() + (items % tile_items() != 0u ? 1u : 0u);
        uint chunk_tiles = params.chunk_tiles, chunks = (tiles + chunk_tiles - 1u) / chunk_tiles; // 0: no items
        if (!runs_look_back()) {
            uint groups = clamp(tiles, 1u, params.chunks);
            chunk_tiles = max((tiles + groups - 1u) / groups, 1u);
            chunks = max((tiles + chunk_tiles - 1u) / chunk_tiles, 1u);
        }
        device_counts[0] = items;
        device_counts[1] = tiles;
        device_counts[2] = chunks;
        device_counts[3] = chunk_tiles;
    }
    barrier();
}

#include "device_scan/scratch.glsl"
#include "device_scan/tile_io.glsl"
#include "device_scan/chunk_reduce.glsl"
#include "device_scan/look_back.glsl"
#include "device_scan/look_back_scan.glsl"
#include "device_scan/chunk_passes.glsl"

void main() {
    if (count_on_device) {
        read_count_on_device();
    }
    if (runs_look_back()) {
        scan_look_back();
    } else if (params.mode == MODE_SCAN_CHUNKS) {
        scan_chunks();
    } else {
        reduce_chunks();
    }
}
