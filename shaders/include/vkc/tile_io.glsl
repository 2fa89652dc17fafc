// vkcollectives: moving a tile of items between memory and registers (CUB's BlockLoad, BlockStore and
// BlockExchange).
//
// A tile is VKC_WORKGROUP_SIZE x items-per-invocation items. In registers it is held in one of two
// arrangements (CUB's terms):
//   blocked  invocation t holds tile items [t*N, t*N + N)   (what vkc/block_scan.glsl scans)
//   striped  item j of lane l is item part + j*lanes + l    (what coalesced memory accesses read)
// where a "part" is a contiguous share of the tile moved by `lanes` invocations: the whole tile by the
// whole work-group (part 0, VKC_WORKGROUP_SIZE lanes, lane gl_LocalInvocationIndex), or each
// subgroup's own share (CUB's warp transpose: part gl_SubgroupID * gl_SubgroupSize * N,
// gl_SubgroupSize lanes, lane gl_SubgroupInvocationID; only where the work-group's subgroups are
// full and packed in local-index order, vkc/common.glsl's VKC_SUBGROUPS_PACKED). vkc_tile_part_*
// below give both.
//
// A template, once per item type: define VKC_TYPE and VKC_ITEMS (the register array's length, a
// compile-time constant), and optionally
//   VKC_ITEMS_ACTIVE        items used per invocation (default VKC_ITEMS; may be a specialization
//                           constant no larger than VKC_ITEMS)
//   VKC_TILE_STAGE_ITEMS    items the shared-memory stage holds (default VKC_WORKGROUP_SIZE * VKC_ITEMS)
//   VKC_TILE_ITEM_BYTES     the item's size; 8 pads the stage every 16 items instead of 32
//   VKC_TILE_READ(i)        item i of the source, VKC_TILE_WRITE(i, x) to the destination: the
//                           loads and stores (without them only the exchanges are defined)
//   VKC_TILE_VEC, VKC_TILE_VEC_WIDTH   a vector of items (uvec4, 4) for 16-byte accesses, with
//   VKC_TILE_READ_VEC(v), VKC_TILE_WRITE_VEC(v, x)   vector v of the source and destination
//   VKC_TILE_FROM_MEMORY(x), VKC_TILE_TO_MEMORY(x)   what an item becomes on its way into registers and
//                           back (default: itself), e.g. float bits to ordered integer keys
// then include. The VKC_TILE_* parameters are undefined at the end; VKC_TYPE and VKC_ITEMS are kept
// (vkc/block_scan.glsl, included after, takes them too). For type uint it defines
//
//   // shared memory (work-group or subgroup scope; call in uniform control flow of that scope):
//   void vkc_tile_striped_to_blocked_uint(inout uint items[VKC_ITEMS], uint part, uint lanes, uint lane, bool subgroup);
//   void vkc_tile_blocked_to_striped_uint(inout uint items[VKC_ITEMS], uint part, uint lanes, uint lane, bool subgroup);
//   void vkc_tile_striped_vectors_to_blocked_uint(VEC x[VKC_ITEMS / W], out uint items[VKC_ITEMS], part, lanes, lane, subgroup);
//   void vkc_tile_blocked_to_striped_vectors_uint(uint items[VKC_ITEMS], out VEC x[VKC_ITEMS / W], part, lanes, lane, subgroup);
//   // memory (`first`: the tile's first item; `count`: items in the source; items at or past it are
//   // not read, take `oob`, and are not written):
//   void vkc_tile_load_blocked_uint(uint first, uint count, uint oob, out uint items[VKC_ITEMS]);
//   void vkc_tile_store_blocked_uint(uint first, uint count, uint items[VKC_ITEMS]);
//   void vkc_tile_load_striped_uint(uint first, uint count, uint oob, out uint items[VKC_ITEMS], uint part, uint lanes, uint lane);
//   void vkc_tile_store_striped_uint(uint first, uint count, uint items[VKC_ITEMS], uint part, uint lanes, uint lane);
//   // the two in one pass through the stage (CUB's BLOCK_LOAD_TRANSPOSE / BLOCK_STORE_TRANSPOSE, and
//   // the WARP_ forms at subgroup scope): blocked registers, striped memory accesses
//   void vkc_tile_load_transposed_uint(uint first, uint count, uint oob, out uint items[VKC_ITEMS], part, lanes, lane, subgroup);
//   void vkc_tile_store_transposed_uint(uint first, uint count, uint items[VKC_ITEMS], part, lanes, lane, subgroup);
//   // vectors (a full tile, first a multiple of W; vectors keep the memory's bits):
//   void vkc_tile_load_blocked_vectors_uint(uint first, uint count, uint oob, out uint items[VKC_ITEMS]); // partial: items
//   void vkc_tile_store_blocked_vectors_uint(uint first, uint count, uint items[VKC_ITEMS]);
//   void vkc_tile_load_striped_vectors_uint(uint first, out VEC x[VKC_ITEMS / W], uint part, uint lanes, uint lane);
//   void vkc_tile_load_transposed_vectors_uint(uint first, out uint items[VKC_ITEMS], part, lanes, lane, subgroup);
//   void vkc_tile_store_striped_vectors_uint(uint first, VEC x[VKC_ITEMS / W], uint part, uint lanes, uint lane);
//   // blocked_to_striped_vectors and store_striped_vectors in one loop (CUB's BLOCK_STORE_WARP_TRANSPOSE):
//   void vkc_tile_store_transposed_vectors_uint(uint first, uint items[VKC_ITEMS], uint part, uint lanes, uint lane, bool subgroup);
//
// The exchanges go through the stage: write, barrier of the scope, read. As in CUB, the stage may be
// written again only after the caller's next barrier of that scope. Example, 2 invocations x 2 items,
// work-group scope (part 0, lanes 2): striped registers [a c | b d] (invocation 0 holds a and c)
// become blocked [a b | c d]; memory [a b c d] loaded striped gives [a c | b d], loaded blocked
// [a b | c d]. The kernels that use them: shaders/kernels/block_scan.comp, device_scan.comp, and
// tests/shaders/tile_io_test.comp, which checks every form against the CPU.

#include "common.glsl"

#if !defined(VKC_TYPE) || !defined(VKC_ITEMS)
#error "define VKC_TYPE and VKC_ITEMS before including vkc/tile_io.glsl"
#endif
#ifndef VKC_ITEMS_ACTIVE
#define VKC_ITEMS_ACTIVE VKC_ITEMS
#endif
#ifndef VKC_TILE_STAGE_ITEMS
#define VKC_TILE_STAGE_ITEMS (VKC_WORKGROUP_SIZE * VKC_ITEMS)
#endif
#ifndef VKC_TILE_FROM_MEMORY
#define VKC_TILE_FROM_MEMORY(x) (x)
#endif
#ifndef VKC_TILE_TO_MEMORY
#define VKC_TILE_TO_MEMORY(x) (x)
#endif

#define VKC_TILE_FN(name) VKC_PASTE(VKC_PASTE(vkc_tile_, name), VKC_PASTE(_, VKC_TYPE))
#define VKC_TILE_STAGE VKC_PASTE(vkc_tile_stage_, VKC_TYPE)

// Part, lanes and lane of the two scopes (see the top). Defined once, whatever the type.
#ifndef VKC_TILE_PARTS_DEFINED
#define VKC_TILE_PARTS_DEFINED
void vkc_tile_part_workgroup(out uint part, out uint lanes, out uint lane) {
    part = 0u;
    lanes = VKC_WORKGROUP_SIZE;
    lane = gl_LocalInvocationIndex;
}
#if VKC_SUBGROUP_ARITHMETIC
void vkc_tile_part_subgroup(uint items_per_invocation, out uint part, out uint lanes, out uint lane) {
    part = gl_SubgroupID * gl_SubgroupSize * items_per_invocation;
    lanes = gl_SubgroupSize;
    lane = gl_SubgroupInvocationID;
}
#endif
// Orders the scope's shared-memory accesses: the subgroup's, or the work-group's.
void vkc_tile_sync(bool subgroup) {
#if VKC_SUBGROUP_ARITHMETIC
    if (subgroup) {
        subgroupMemoryBarrierShared();
        subgroupBarrier();
        return;
    }
#endif
    barrier();
}
#endif

// One padding item every 32 items (every 16 of 8 bytes: a row of 32 four-byte banks either way), so
// that invocations' runs of consecutive items start on different banks (8-byte items padded every 32
// still meet on the same banks, and measured slower in the device scan).
#if defined(VKC_TILE_ITEM_BYTES) && VKC_TILE_ITEM_BYTES == 8
#define VKC_TILE_PAD_EVERY 16u
#else
#define VKC_TILE_PAD_EVERY 32u
#endif
shared VKC_TYPE VKC_TILE_STAGE[VKC_TILE_STAGE_ITEMS + VKC_TILE_STAGE_ITEMS / VKC_TILE_PAD_EVERY + 1u];
uint VKC_TILE_FN(padded)(uint at) { return at + at / VKC_TILE_PAD_EVERY; }

// ---- exchanges through the stage -----------------------------------------------------------------
void VKC_TILE_FN(striped_to_blocked)(inout VKC_TYPE items[VKC_ITEMS], uint part, uint lanes, uint lane,
                                     bool subgroup) {
    [[unroll]] for (uint j = 0u; j < VKC_ITEMS_ACTIVE; ++j) {
        VKC_TILE_STAGE[VKC_TILE_FN(padded)(part + j * lanes + lane)] = items[j];
    }
    vkc_tile_sync(subgroup);
    uint mine = gl_LocalInvocationIndex * VKC_ITEMS_ACTIVE;
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS_ACTIVE; ++i) {
        items[i] = VKC_TILE_STAGE[VKC_TILE_FN(padded)(mine + i)];
    }
}

void VKC_TILE_FN(blocked_to_striped)(inout VKC_TYPE items[VKC_ITEMS], uint part, uint lanes, uint lane,
                                     bool subgroup) {
    uint mine = gl_LocalInvocationIndex * VKC_ITEMS_ACTIVE;
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS_ACTIVE; ++i) {
        VKC_TILE_STAGE[VKC_TILE_FN(padded)(mine + i)] = items[i];
    }
    vkc_tile_sync(subgroup);
    [[unroll]] for (uint j = 0u; j < VKC_ITEMS_ACTIVE; ++j) {
        items[j] = VKC_TILE_STAGE[VKC_TILE_FN(padded)(part + j * lanes + lane)];
    }
}

#ifdef VKC_TILE_VEC
// Vector v of the part (v = j*lanes + lane) holds items part + v*W ... part + v*W + W-1.
void VKC_TILE_FN(striped_vectors_to_blocked)(VKC_TILE_VEC x[VKC_ITEMS / VKC_TILE_VEC_WIDTH],
                                             out VKC_TYPE items[VKC_ITEMS], uint part, uint lanes, uint lane,
                                             bool subgroup) {
    [[unroll]] for (uint j = 0u; j < VKC_ITEMS_ACTIVE / VKC_TILE_VEC_WIDTH; ++j) {
        uint v = j * lanes + lane;
        [[unroll]] for (uint c = 0u; c < VKC_TILE_VEC_WIDTH; ++c) {
            VKC_TILE_STAGE[VKC_TILE_FN(padded)(part + v * VKC_TILE_VEC_WIDTH + c)] = VKC_TILE_FROM_MEMORY(x[j][c]);
        }
    }
    vkc_tile_sync(subgroup);
    uint mine = gl_LocalInvocationIndex * VKC_ITEMS_ACTIVE;
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS_ACTIVE; ++i) {
        items[i] = VKC_TILE_STAGE[VKC_TILE_FN(padded)(mine + i)];
    }
}

void VKC_TILE_FN(blocked_to_striped_vectors)(VKC_TYPE items[VKC_ITEMS],
                                             out VKC_TILE_VEC x[VKC_ITEMS / VKC_TILE_VEC_WIDTH], uint part,
                                             uint lanes, uint lane, bool subgroup) {
    uint mine = gl_LocalInvocationIndex * VKC_ITEMS_ACTIVE;
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS_ACTIVE; ++i) {
        VKC_TILE_STAGE[VKC_TILE_FN(padded)(mine + i)] = items[i];
    }
    vkc_tile_sync(subgroup);
    [[unroll]] for (uint j = 0u; j < VKC_ITEMS_ACTIVE / VKC_TILE_VEC_WIDTH; ++j) {
        uint v = j * lanes + lane;
        [[unroll]] for (uint c = 0u; c < VKC_TILE_VEC_WIDTH; ++c) {
            x[j][c] = VKC_TILE_TO_MEMORY(VKC_TILE_STAGE[VKC_TILE_FN(padded)(part + v * VKC_TILE_VEC_WIDTH + c)]);
        }
    }
}
#endif

// ---- loads and stores --------------------------------------------------------------------------
#ifdef VKC_TILE_READ
void VKC_TILE_FN(load_blocked)(uint first, uint count, VKC_TYPE oob, out VKC_TYPE items[VKC_ITEMS]) {
    uint base = first + gl_LocalInvocationIndex * VKC_ITEMS_ACTIVE;
    if (base + VKC_ITEMS_ACTIVE <= count) {
        [[unroll]] for (uint i = 0u; i < VKC_ITEMS_ACTIVE; ++i) {
            items[i] = VKC_TILE_FROM_MEMORY(VKC_TILE_READ(base + i));
        }
    } else {
        [[unroll]] for (uint i = 0u; i < VKC_ITEMS_ACTIVE; ++i) {
            items[i] = base + i < count ? VKC_TILE_FROM_MEMORY(VKC_TILE_READ(base + i)) : oob;
        }
    }
}

// A full tile (first + its items within count, uniform) reads without bounds checks.
void VKC_TILE_FN(load_striped)(uint first, uint count, VKC_TYPE oob, out VKC_TYPE items[VKC_ITEMS], uint part,
                               uint lanes, uint lane) {
    if (first + VKC_WORKGROUP_SIZE * VKC_ITEMS_ACTIVE <= count) {
        [[unroll]] for (uint j = 0u; j < VKC_ITEMS_ACTIVE; ++j) {
            items[j] = VKC_TILE_FROM_MEMORY(VKC_TILE_READ(first + part + j * lanes + lane));
        }
    } else {
        [[unroll]] for (uint j = 0u; j < VKC_ITEMS_ACTIVE; ++j) {
            uint at = first + part + j * lanes + lane;
            items[j] = at < count ? VKC_TILE_FROM_MEMORY(VKC_TILE_READ(at)) : oob;
        }
    }
}

// CUB's BLOCK_LOAD_TRANSPOSE (work-group scope) and BLOCK_LOAD_WARP_TRANSPOSE (subgroup scope): the
// part's items read striped straight into the stage, then taken blocked.
void VKC_TILE_FN(load_transposed)(uint first, uint count, VKC_TYPE oob, out VKC_TYPE items[VKC_ITEMS], uint part,
                                  uint lanes, uint lane, bool subgroup) {
    if (first + VKC_WORKGROUP_SIZE * VKC_ITEMS_ACTIVE <= count) {
        [[unroll]] for (uint j = 0u; j < VKC_ITEMS_ACTIVE; ++j) {
            uint at = part + j * lanes + lane;
            VKC_TILE_STAGE[VKC_TILE_FN(padded)(at)] = VKC_TILE_FROM_MEMORY(VKC_TILE_READ(first + at));
        }
    } else {
        [[unroll]] for (uint j = 0u; j < VKC_ITEMS_ACTIVE; ++j) {
            uint at = part + j * lanes + lane;
            VKC_TILE_STAGE[VKC_TILE_FN(padded)(at)] =
                first + at < count ? VKC_TILE_FROM_MEMORY(VKC_TILE_READ(first + at)) : oob;
        }
    }
    vkc_tile_sync(subgroup);
    uint mine = gl_LocalInvocationIndex * VKC_ITEMS_ACTIVE;
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS_ACTIVE; ++i) {
        items[i] = VKC_TILE_STAGE[VKC_TILE_FN(padded)(mine + i)];
    }
}
#endif

#ifdef VKC_TILE_WRITE
void VKC_TILE_FN(store_blocked)(uint first, uint count, VKC_TYPE items[VKC_ITEMS]) {
    uint base = first + gl_LocalInvocationIndex * VKC_ITEMS_ACTIVE;
    if (base + VKC_ITEMS_ACTIVE <= count) {
        [[unroll]] for (uint i = 0u; i < VKC_ITEMS_ACTIVE; ++i) {
            VKC_TILE_WRITE(base + i, VKC_TILE_TO_MEMORY(items[i]));
        }
    } else {
        [[unroll]] for (uint i = 0u; i < VKC_ITEMS_ACTIVE; ++i) {
            if (base + i < count) {
                VKC_TILE_WRITE(base + i, VKC_TILE_TO_MEMORY(items[i]));
            }
        }
    }
}

void VKC_TILE_FN(store_striped)(uint first, uint count, VKC_TYPE items[VKC_ITEMS], uint part, uint lanes,
                                uint lane) {
    if (first + VKC_WORKGROUP_SIZE * VKC_ITEMS_ACTIVE <= count) {
        [[unroll]] for (uint j = 0u; j < VKC_ITEMS_ACTIVE; ++j) {
            VKC_TILE_WRITE(first + part + j * lanes + lane, VKC_TILE_TO_MEMORY(items[j]));
        }
    } else {
        [[unroll]] for (uint j = 0u; j < VKC_ITEMS_ACTIVE; ++j) {
            uint at = first + part + j * lanes + lane;
            if (at < count) {
                VKC_TILE_WRITE(at, VKC_TILE_TO_MEMORY(items[j]));
            }
        }
    }
}

// CUB's BLOCK_STORE_TRANSPOSE and BLOCK_STORE_WARP_TRANSPOSE: blocked items into the stage, then out
// striped, each straight from the stage.
void VKC_TILE_FN(store_transposed)(uint first, uint count, VKC_TYPE items[VKC_ITEMS], uint part, uint lanes,
                                   uint lane, bool subgroup) {
    uint mine = gl_LocalInvocationIndex * VKC_ITEMS_ACTIVE;
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS_ACTIVE; ++i) {
        VKC_TILE_STAGE[VKC_TILE_FN(padded)(mine + i)] = items[i];
    }
    vkc_tile_sync(subgroup);
    if (first + VKC_WORKGROUP_SIZE * VKC_ITEMS_ACTIVE <= count) {
        [[unroll]] for (uint j = 0u; j < VKC_ITEMS_ACTIVE; ++j) {
            uint at = part + j * lanes + lane;
            VKC_TILE_WRITE(first + at, VKC_TILE_TO_MEMORY(VKC_TILE_STAGE[VKC_TILE_FN(padded)(at)]));
        }
    } else {
        [[unroll]] for (uint j = 0u; j < VKC_ITEMS_ACTIVE; ++j) {
            uint at = part + j * lanes + lane;
            if (first + at < count) {
                VKC_TILE_WRITE(first + at, VKC_TILE_TO_MEMORY(VKC_TILE_STAGE[VKC_TILE_FN(padded)(at)]));
            }
        }
    }
}
#endif

#if defined(VKC_TILE_VEC) && defined(VKC_TILE_READ_VEC) && defined(VKC_TILE_READ)
// Whole vectors where the invocation's items are all within count; else item by item.
void VKC_TILE_FN(load_blocked_vectors)(uint first, uint count, VKC_TYPE oob, out VKC_TYPE items[VKC_ITEMS]) {
    uint base = first + gl_LocalInvocationIndex * VKC_ITEMS_ACTIVE;
    if (base + VKC_ITEMS_ACTIVE <= count) {
        [[unroll]] for (uint v = 0u; v < VKC_ITEMS_ACTIVE / VKC_TILE_VEC_WIDTH; ++v) {
            VKC_TILE_VEC x = VKC_TILE_READ_VEC(base / VKC_TILE_VEC_WIDTH + v);
            [[unroll]] for (uint c = 0u; c < VKC_TILE_VEC_WIDTH; ++c) {
                items[v * VKC_TILE_VEC_WIDTH + c] = VKC_TILE_FROM_MEMORY(x[c]);
            }
        }
    } else {
        [[unroll]] for (uint i = 0u; i < VKC_ITEMS_ACTIVE; ++i) {
            items[i] = base + i < count ? VKC_TILE_FROM_MEMORY(VKC_TILE_READ(base + i)) : oob;
        }
    }
}

// BLOCK_LOAD_WARP_TRANSPOSE with vectors: a full tile's part read as striped vectors straight into
// the stage, then taken blocked.
void VKC_TILE_FN(load_transposed_vectors)(uint first, out VKC_TYPE items[VKC_ITEMS], uint part, uint lanes,
                                          uint lane, bool subgroup) {
    uint base = (first + part) / VKC_TILE_VEC_WIDTH;
    [[unroll]] for (uint j = 0u; j < VKC_ITEMS_ACTIVE / VKC_TILE_VEC_WIDTH; ++j) {
        uint v = j * lanes + lane;
        VKC_TILE_VEC x = VKC_TILE_READ_VEC(base + v);
        [[unroll]] for (uint c = 0u; c < VKC_TILE_VEC_WIDTH; ++c) {
            VKC_TILE_STAGE[VKC_TILE_FN(padded)(part + v * VKC_TILE_VEC_WIDTH + c)] = VKC_TILE_FROM_MEMORY(x[c]);
        }
    }
    vkc_tile_sync(subgroup);
    uint mine = gl_LocalInvocationIndex * VKC_ITEMS_ACTIVE;
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS_ACTIVE; ++i) {
        items[i] = VKC_TILE_STAGE[VKC_TILE_FN(padded)(mine + i)];
    }
}

// A full tile's part, striped vectors as they are in memory (convert with the exchange).
void VKC_TILE_FN(load_striped_vectors)(uint first, out VKC_TILE_VEC x[VKC_ITEMS / VKC_TILE_VEC_WIDTH], uint part,
                                       uint lanes, uint lane) {
    uint base = (first + part) / VKC_TILE_VEC_WIDTH;
    [[unroll]] for (uint j = 0u; j < VKC_ITEMS_ACTIVE / VKC_TILE_VEC_WIDTH; ++j) {
        x[j] = VKC_TILE_READ_VEC(base + j * lanes + lane);
    }
}
#endif

#if defined(VKC_TILE_VEC) && defined(VKC_TILE_WRITE_VEC) && defined(VKC_TILE_WRITE)
void VKC_TILE_FN(store_blocked_vectors)(uint first, uint count, VKC_TYPE items[VKC_ITEMS]) {
    uint base = first + gl_LocalInvocationIndex * VKC_ITEMS_ACTIVE;
    if (base + VKC_ITEMS_ACTIVE <= count) {
        [[unroll]] for (uint v = 0u; v < VKC_ITEMS_ACTIVE / VKC_TILE_VEC_WIDTH; ++v) {
            VKC_TILE_VEC x;
            [[unroll]] for (uint c = 0u; c < VKC_TILE_VEC_WIDTH; ++c) {
                x[c] = VKC_TILE_TO_MEMORY(items[v * VKC_TILE_VEC_WIDTH + c]);
            }
            VKC_TILE_WRITE_VEC(base / VKC_TILE_VEC_WIDTH + v, x);
        }
    } else {
        [[unroll]] for (uint i = 0u; i < VKC_ITEMS_ACTIVE; ++i) {
            if (base + i < count) {
                VKC_TILE_WRITE(base + i, VKC_TILE_TO_MEMORY(items[i]));
            }
        }
    }
}

// CUB's BLOCK_STORE_WARP_TRANSPOSE with vectors: a full tile's blocked items through the stage, then
// out as striped vectors, each built from the stage as it is written.
void VKC_TILE_FN(store_transposed_vectors)(uint first, VKC_TYPE items[VKC_ITEMS], uint part, uint lanes, uint lane,
                                           bool subgroup) {
    uint mine = gl_LocalInvocationIndex * VKC_ITEMS_ACTIVE;
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS_ACTIVE; ++i) {
        VKC_TILE_STAGE[VKC_TILE_FN(padded)(mine + i)] = items[i];
    }
    vkc_tile_sync(subgroup);
    uint base = (first + part) / VKC_TILE_VEC_WIDTH;
    [[unroll]] for (uint j = 0u; j < VKC_ITEMS_ACTIVE / VKC_TILE_VEC_WIDTH; ++j) {
        uint v = j * lanes + lane;
        VKC_TILE_VEC x;
        [[unroll]] for (uint c = 0u; c < VKC_TILE_VEC_WIDTH; ++c) {
            x[c] = VKC_TILE_TO_MEMORY(VKC_TILE_STAGE[VKC_TILE_FN(padded)(part + v * VKC_TILE_VEC_WIDTH + c)]);
        }
        VKC_TILE_WRITE_VEC(base + v, x);
    }
}

// Vectors already in memory form (blocked_to_striped_vectors converts).
void VKC_TILE_FN(store_striped_vectors)(uint first, VKC_TILE_VEC x[VKC_ITEMS / VKC_TILE_VEC_WIDTH], uint part,
                                        uint lanes, uint lane) {
    uint base = (first + part) / VKC_TILE_VEC_WIDTH;
    [[unroll]] for (uint j = 0u; j < VKC_ITEMS_ACTIVE / VKC_TILE_VEC_WIDTH; ++j) {
        VKC_TILE_WRITE_VEC(base + j * lanes + lane, x[j]);
    }
}
#endif

#undef VKC_TILE_FN
#undef VKC_TILE_STAGE
#undef VKC_TILE_PAD_EVERY
#undef VKC_TILE_STAGE_ITEMS
#undef VKC_TILE_ITEM_BYTES
#undef VKC_TILE_READ
#undef VKC_TILE_WRITE
#undef VKC_TILE_VEC
#undef VKC_TILE_VEC_WIDTH
#undef VKC_TILE_READ_VEC
#undef VKC_TILE_WRITE_VEC
#undef VKC_TILE_FROM_MEMORY
#undef VKC_TILE_TO_MEMORY
