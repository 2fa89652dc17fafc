#version 450
#extension GL_GOOGLE_include_directive : require
// vkc/tile_io.glsl instantiated in a kernel of its own (tests/test_glsl_pieces.cpp): each mode moves
// tiles of uint items with one form (load or store, blocked, striped, transposed, vectors, at
// work-group or subgroup scope) and writes what the registers hold, or what was stored, for the CPU
// to check. Items pass a conversion on the way in and out (FROM_MEMORY / TO_MEMORY), as float keys do.
// Built with -DVKC_SUBGROUP_ARITHMETIC=0 and 1.
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint items_per_invocation = 8u;

layout(set = 0, binding = 0, std430) readonly buffer Input { uint items_in[]; };
layout(set = 0, binding = 0, std430) readonly buffer InputVectors { uvec4 vectors_in[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Output { uint items_out[]; };
layout(set = 0, binding = 1, std430) writeonly buffer OutputVectors { uvec4 vectors_out[]; };
// The registers after a load: tile t, invocation l, register i at (t * size + l) * 8 + i.
layout(set = 0, binding = 2, std430) writeonly buffer Registers { uint registers[]; };
layout(push_constant, std430) uniform Params {
    uint mode;
    uint count;
} params;

const uint CONVERT = 0x5a5a0000u; // FROM_MEMORY and TO_MEMORY: x ^ CONVERT (their own inverse)
const uint OOB = 0xdeadbeefu;

// The stage for the largest work-group the test runs (96 x 8): Mesa 22 sizes shared arrays before
// specialization, from the work-group size's default (1).
#define VKC_TILE_STAGE_ITEMS 768u
#define VKC_TYPE uint
#define VKC_ITEMS 8
#define VKC_ITEMS_ACTIVE items_per_invocation
#define VKC_TILE_READ(i) items_in[i]
#define VKC_TILE_WRITE(i, x) items_out[i] = (x)
#define VKC_TILE_VEC uvec4
#define VKC_TILE_VEC_WIDTH 4
#define VKC_TILE_READ_VEC(v) vectors_in[v]
#define VKC_TILE_WRITE_VEC(v, x) vectors_out[v] = (x)
#define VKC_TILE_FROM_MEMORY(x) ((x) ^ CONVERT)
#define VKC_TILE_TO_MEMORY(x) ((x) ^ CONVERT)
#include "vkc/tile_io.glsl"

// Loads (the registers are written out), then stores (from registers loaded blocked).
const uint LOAD_BLOCKED = 0u, LOAD_STRIPED = 1u, LOAD_TRANSPOSED = 2u, LOAD_WARP_TRANSPOSED = 3u,
           LOAD_STRIPED_EXCHANGED = 4u, LOAD_BLOCKED_EXCHANGED = 5u, LOAD_BLOCKED_VECTORS = 6u,
           LOAD_WARP_STRIPED_VECTORS_EXCHANGED = 7u, LOAD_WARP_TRANSPOSED_VECTORS = 8u,
           LOAD_WARP_BLOCKED_EXCHANGED_VECTORS = 9u;
const uint STORE_BLOCKED = 16u, STORE_STRIPED = 17u, STORE_TRANSPOSED = 18u, STORE_WARP_TRANSPOSED = 19u,
           STORE_BLOCKED_VECTORS = 20u, STORE_WARP_TRANSPOSED_VECTORS = 21u, STORE_WARP_STRIPED_VECTORS = 22u;

void main() {
    const uint size = gl_WorkGroupSize.x;
    uint tile = gl_WorkGroupID.x;
    uint first = tile * size * items_per_invocation;
    uint part, lanes, lane;
    vkc_tile_part_workgroup(part, lanes, lane);
    bool subgroup = false;
#if VKC_SUBGROUP_ARITHMETIC
    if (params.mode == LOAD_WARP_TRANSPOSED || params.mode == LOAD_WARP_STRIPED_VECTORS_EXCHANGED ||
        params.mode == LOAD_WARP_TRANSPOSED_VECTORS || params.mode == LOAD_WARP_BLOCKED_EXCHANGED_VECTORS ||
        params.mode == STORE_WARP_TRANSPOSED || params.mode == STORE_WARP_TRANSPOSED_VECTORS ||
        params.mode == STORE_WARP_STRIPED_VECTORS) {
        vkc_tile_part_subgroup(items_per_invocation, part, lanes, lane);
        subgroup = true;
    }
#endif
    uint items[VKC_ITEMS];
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
        items[i] = 0u;
    }
    uvec4 x[VKC_ITEMS / 4];
    switch (params.mode) {
    case LOAD_BLOCKED: vkc_tile_load_blocked_uint(first, params.count, OOB, items); break;
    case LOAD_STRIPED: vkc_tile_load_striped_uint(first, params.count, OOB, items, part, lanes, lane); break;
    case LOAD_TRANSPOSED:
    case LOAD_WARP_TRANSPOSED:
        vkc_tile_load_transposed_uint(first, params.count, OOB, items, part, lanes, lane, subgroup);
        break;
    case LOAD_STRIPED_EXCHANGED:
        vkc_tile_load_striped_uint(first, params.count, OOB, items, part, lanes, lane);
        vkc_tile_striped_to_blocked_uint(items, part, lanes, lane, subgroup);
        break;
    case LOAD_BLOCKED_EXCHANGED:
        vkc_tile_load_blocked_uint(first, params.count, OOB, items);
        vkc_tile_blocked_to_striped_uint(items, part, lanes, lane, subgroup);
        break;
    case LOAD_BLOCKED_VECTORS: vkc_tile_load_blocked_vectors_uint(first, params.count, OOB, items); break;
    case LOAD_WARP_STRIPED_VECTORS_EXCHANGED: // full tiles only
        vkc_tile_load_striped_vectors_uint(first, x, part, lanes, lane);
        vkc_tile_striped_vectors_to_blocked_uint(x, items, part, lanes, lane, subgroup);
        break;
    case LOAD_WARP_TRANSPOSED_VECTORS: vkc_tile_load_transposed_vectors_uint(first, items, part, lanes, lane, subgroup); break;
    case LOAD_WARP_BLOCKED_EXCHANGED_VECTORS: // the registers: vector j's components at 4j .. 4j + 3
        vkc_tile_load_blocked_uint(first, params.count, OOB, items);
        vkc_tile_blocked_to_striped_vectors_uint(items, x, part, lanes, lane, subgroup);
        [[unroll]] for (uint j = 0u; j < VKC_ITEMS / 4; ++j) {
            [[unroll]] for (uint c = 0u; c < 4u; ++c) {
                items[4u * j + c] = x[j][c];
            }
        }
        break;
    default: vkc_tile_load_blocked_uint(first, params.count, OOB, items); break;
    }
    if (params.mode < STORE_BLOCKED) {
        [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
            registers[(tile * size + gl_LocalInvocationIndex) * VKC_ITEMS + i] = items[i];
        }
        return;
    }
    vkc_tile_sync(false); // the loads' stage reads before the stores' writes
    switch (params.mode) {
    case STORE_BLOCKED: vkc_tile_store_blocked_uint(first, params.count, items); break;
    case STORE_STRIPED: // from striped registers
        vkc_tile_load_striped_uint(first, params.count, OOB, items, part, lanes, lane);
        vkc_tile_store_striped_uint(first, params.count, items, part, lanes, lane);
        break;
    case STORE_TRANSPOSED:
    case STORE_WARP_TRANSPOSED:
        vkc_tile_store_transposed_uint(first, params.count, items, part, lanes, lane, subgroup);
        break;
    case STORE_BLOCKED_VECTORS: vkc_tile_store_blocked_vectors_uint(first, params.count, items); break;
    case STORE_WARP_TRANSPOSED_VECTORS: vkc_tile_store_transposed_vectors_uint(first, items, part, lanes, lane, subgroup); break;
    case STORE_WARP_STRIPED_VECTORS:
        vkc_tile_blocked_to_striped_vectors_uint(items, x, part, lanes, lane, subgroup);
        vkc_tile_store_striped_vectors_uint(first, x, part, lanes, lane);
        break;
    }
}
