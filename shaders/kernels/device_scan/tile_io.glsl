// vkcollectives device scan: moving tiles between memory and registers.
//
// Provides item_key / key_bits (items in registers and in memory), write_item and
// write_vector, and, on vkc/tile_io.glsl's loads, stores and stage, load_tile / store_tile in CUB's
// blocked arrangement, plus fetch_tile / unpack_tile, the two halves of a staged load. Private to
// shaders/kernels/device_scan.comp, included after device_scan/scratch.glsl.
#ifndef DEVICE_SCAN_TILE_IO_GLSL
#define DEVICE_SCAN_TILE_IO_GLSL

// Items in registers are what the operator combines; in memory they are the caller's bits. The two
// differ for float min and max (ITEM_KEYED, device_scan.comp), whose items are ordered integer keys:
// item_key turns bits into an item, key_bits an item into bits. Loads keep the bits as they came
// (fetched vectors included) and convert at the first use, so that no conversion waits on a load
// before the loads after it are issued; stores convert on the way out (write_item, write_vector).
#if ITEM_KEYED
#if ITEM_BYTES == 8
const int64_t KEY_MAGNITUDE = 0x7fffffffffffffffl, KEY_INFINITY = 0x7ff0000000000000l;
#else
const int KEY_MAGNITUDE = 0x7fffffff, KEY_INFINITY = 0x7f800000;
#endif
// The identity as it is written: the float identity.
#ifdef ITEM_OP_min
const ITEM_TYPE IDENTITY_WRITTEN = KEY_INFINITY; // +INF
#else
const ITEM_TYPE IDENTITY_WRITTEN = ~KEY_MAGNITUDE | KEY_INFINITY; // -INF
#endif
// vkc_ordered's formula (common.glsl) on the bits themselves, so that no float type (and for double
// no Float64 capability) enters the module; it is its own inverse. No float's key is the integer
// identity (those bits are a NaN), so it stands for the identity alone.
ITEM_TYPE flip_order(ITEM_TYPE x) { return x ^ ((x >> (ITEM_BYTES * 8 - 1)) & KEY_MAGNITUDE); }
ITEM_TYPE item_key(ITEM_TYPE bits) {
    return (bits & KEY_MAGNITUDE) > KEY_INFINITY ? ITEM_IDENTITY : flip_order(bits);
}
ITEM_TYPE key_bits(ITEM_TYPE key) { return key == ITEM_IDENTITY ? IDENTITY_WRITTEN : flip_order(key); }
const ITEM_TYPE IDENTITY_READ = KEY_MAGNITUDE; // bits that read as the identity (a NaN)
#else
#define item_key(x) (x)
#define key_bits(x) (x)
#define IDENTITY_READ ITEM_IDENTITY
#endif
// An item as read from memory, ready to combine.
#define PREPARE_LOADED(x) ITEM_PREPARE(item_key(x))
void write_item(uint at, ITEM_TYPE x) { items_out[at] = key_bits(x); }
#if ITEM_VEC_WIDTH > 1
void write_vector(uint at, ITEM_VEC x) {
#if ITEM_KEYED
    [[unroll]] for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
        x[c] = key_bits(x[c]);
    }
#endif
    vectors_out[at] = x;
}
#endif

// Staged: a full tile is read with striped vector loads (neighbouring invocations, neighbouring
// vectors: every load instruction coalesced) into shared memory, and each invocation takes its
// consecutive items from there (CUB's BLOCK_LOAD_WARP_TRANSPOSE); stores the other way round, through
// vkc/tile_io.glsl's stage. Each subgroup moves its own contiguous part of the tile: no work-group
// barrier (the host checks that subgroups are packed in local-index order before choosing the subgroup
// path). Without subgroups the whole work-group moves the tile, between barriers.
#define VKC_TYPE ITEM_TYPE
#define VKC_TILE_STAGE_ITEMS stage_items
#define VKC_TILE_ITEM_BYTES ITEM_BYTES
#define VKC_TILE_READ(i) items_in[i]
#define VKC_TILE_WRITE(i, x) items_out[i] = (x)
#define VKC_TILE_FROM_MEMORY(x) item_key(x)
#define VKC_TILE_TO_MEMORY(x) key_bits(x)
#if ITEM_VEC_WIDTH > 1
#define VKC_TILE_VEC ITEM_VEC
#define VKC_TILE_VEC_WIDTH ITEM_VEC_WIDTH
#define VKC_TILE_READ_VEC(v) vectors_in[v]
#define VKC_TILE_WRITE_VEC(v, x) vectors_out[v] = (x)
#endif
#include "vkc/tile_io.glsl"
#define TILE_IO(name) VKC_PASTE(VKC_PASTE(vkc_tile_, name), VKC_PASTE(_, ITEM_TYPE))
#undef VKC_TYPE

bool tile_full(uint tile) { return (tile + 1u) * tile_items() <= item_count(); }

// This invocation's part of the stage: its subgroup's, or with no subgroups the work-group's.
bool stage_per_subgroup() { return VKC_SUBGROUP_ARITHMETIC != 0; }
void stage_part(out uint part, out uint lanes, out uint lane) {
#if VKC_SUBGROUP_ARITHMETIC
    vkc_tile_part_subgroup(items_per_invocation, part, lanes, lane);
#else
    vkc_tile_part_workgroup(part, lanes, lane);
#endif
}

#if ITEM_VEC_WIDTH > 1
// A full staged tile in two steps, so that its loads can be in flight while other work is done: its
// striped vectors into registers (neighbouring lanes, neighbouring vectors), then through the stage
// into the blocked arrangement. Uniform: the barriers are safe.
void fetch_tile(uint tile, out ITEM_VEC x[VKC_ITEMS / ITEM_VEC_WIDTH]) {
    uint part, lanes, lane;
    stage_part(part, lanes, lane);
    TILE_IO(load_striped_vectors)(tile * tile_items(), x, part, lanes, lane);
}
void unpack_tile(ITEM_VEC x[VKC_ITEMS / ITEM_VEC_WIDTH], inout ITEM_TYPE items[VKC_ITEMS]) {
    uint part, lanes, lane;
    stage_part(part, lanes, lane);
    TILE_IO(striped_vectors_to_blocked)(x, items, part, lanes, lane, stage_per_subgroup());
    vkc_tile_sync(stage_per_subgroup()); // the stage is free again
}
#endif

void load_tile(uint tile, inout ITEM_TYPE items[VKC_ITEMS]) {
#if ITEM_VEC_WIDTH > 1
    if (staged && tile_full(tile)) { // uniform: the barriers are safe
        // The same two steps as the chunks that fetch before their look-back: as fast as storing each
        // load straight into the stage, and one code path.
        ITEM_VEC x[VKC_ITEMS / ITEM_VEC_WIDTH];
        fetch_tile(tile, x);
        unpack_tile(x, items);
        return;
    }
    // The last, partial tile: items past the count take the identity and are not written.
    TILE_IO(load_blocked_vectors)(tile * tile_items(), item_count(), ITEM_IDENTITY, items);
#else
    TILE_IO(load_blocked)(tile * tile_items(), item_count(), ITEM_IDENTITY, items);
#endif
}

void store_tile(uint tile, ITEM_TYPE items[VKC_ITEMS]) {
#if ITEM_VEC_WIDTH > 1
    if (staged && tile_full(tile)) {
        uint part, lanes, lane;
        stage_part(part, lanes, lane);
        TILE_IO(store_transposed_vectors)(tile * tile_items(), items, part, lanes, lane, stage_per_subgroup());
        vkc_tile_sync(stage_per_subgroup());
        return;
    }
    TILE_IO(store_blocked_vectors)(tile * tile_items(), item_count(), items);
#else
    TILE_IO(store_blocked)(tile * tile_items(), item_count(), items);
#endif
}

#endif
