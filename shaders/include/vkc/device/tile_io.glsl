// vkcollectives device scan: moving tiles between memory and registers.
//
// Provides item_key / key_bits (items in registers and in memory), read_item, write_item and
// write_vector, the stage (shared memory through which full tiles pass so that global loads and
// stores are coalesced) and load_tile / store_tile in CUB's blocked arrangement, plus fetch_tile /
// unpack_tile, the two halves of a staged load. Used by shaders/kernels/device_scan.comp, after
// vkc/device/scratch.glsl.
#ifndef VKC_DEVICE_TILE_IO_GLSL
#define VKC_DEVICE_TILE_IO_GLSL

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
ITEM_TYPE read_item(uint at) { return item_key(items_in[at]); }
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
// consecutive items from there (CUB's BLOCK_LOAD_WARP_TRANSPOSE); stores the other way round. The
// padding spreads an invocation's consecutive items over the banks. The subgroup path
// needs subgroups packed in local-index order, which the host checks before choosing it.
// One padding item every 32 items, or every 16 of 8 bytes (a row of 32 banks either way for 4 and
// 8 bytes), so that invocations' runs of consecutive items start on different banks (64-bit items
// padded every 32 would still meet on the same banks, and measured slower).
const uint STAGE_PAD_EVERY = ITEM_BYTES == 8u ? 16u : 32u;
shared ITEM_TYPE stage[stage_items + stage_items / STAGE_PAD_EVERY + 1u];
uint padded(uint at) { return at + at / STAGE_PAD_EVERY; }
bool tile_full(uint tile) { return (tile + 1u) * tile_items() <= item_count(); }

// Each subgroup moves its own contiguous part of the tile (CUB's warp transpose): no work-group
// barrier. Without subgroups the whole work-group does, between barriers.
#if VKC_SUBGROUP_ARITHMETIC
uint stage_lanes() { return gl_SubgroupSize; }
uint stage_lane() { return gl_SubgroupInvocationID; }
uint stage_part() { return gl_SubgroupID * gl_SubgroupSize * items_per_invocation; } // first item of the part
void stage_sync() {
    subgroupMemoryBarrierShared();
    subgroupBarrier();
}
#else
uint stage_lanes() { return VKC_WORKGROUP_SIZE; }
uint stage_lane() { return gl_LocalInvocationIndex; }
uint stage_part() { return 0u; }
void stage_sync() { barrier(); }
#endif

#if ITEM_VEC_WIDTH > 1
// A full staged tile in two steps, so that its loads can be in flight while other work is done: its
// striped vectors into registers (neighbouring lanes, neighbouring vectors), then through the stage
// into the blocked arrangement. Uniform: the barriers are safe.
void fetch_tile(uint tile, out ITEM_VEC x[VKC_ITEMS / ITEM_VEC_WIDTH]) {
    uint base = (tile * tile_items() + stage_part()) / ITEM_VEC_WIDTH;
    [[unroll]] for (uint j = 0u; j < items_per_invocation / ITEM_VEC_WIDTH; ++j) {
        x[j] = vectors_in[base + j * stage_lanes() + stage_lane()];
    }
}
void unpack_tile(ITEM_VEC x[VKC_ITEMS / ITEM_VEC_WIDTH], inout ITEM_TYPE items[VKC_ITEMS]) {
    uint part = stage_part();
    [[unroll]] for (uint j = 0u; j < items_per_invocation / ITEM_VEC_WIDTH; ++j) {
        uint v = j * stage_lanes() + stage_lane();
        [[unroll]] for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
            stage[padded(part + v * ITEM_VEC_WIDTH + c)] = item_key(x[j][c]);
        }
    }
    stage_sync();
    [[unroll]] for (uint i = 0u; i < items_per_invocation; ++i) {
        items[i] = stage[padded(gl_LocalInvocationIndex * items_per_invocation + i)];
    }
    stage_sync(); // the stage is free again
}
#endif

void load_tile(uint tile, inout ITEM_TYPE items[VKC_ITEMS]) {
    uint first = tile * tile_items() + gl_LocalInvocationIndex * items_per_invocation;
#if ITEM_VEC_WIDTH > 1
    if (staged && tile_full(tile)) { // uniform: the barriers are safe
        // The same two steps as the chunks that fetch before their look-back: as fast as storing each
        // load straight into the stage, and one code path.
        ITEM_VEC x[VKC_ITEMS / ITEM_VEC_WIDTH];
        fetch_tile(tile, x);
        unpack_tile(x, items);
        return;
    }
#endif
    if (first + items_per_invocation <= item_count()) {
#if ITEM_VEC_WIDTH > 1
        [[unroll]] for (uint v = 0u; v < items_per_invocation / ITEM_VEC_WIDTH; ++v) {
            ITEM_VEC x = vectors_in[first / ITEM_VEC_WIDTH + v];
            [[unroll]] for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
                items[v * ITEM_VEC_WIDTH + c] = item_key(x[c]);
            }
        }
#else
        [[unroll]] for (uint i = 0u; i < items_per_invocation; ++i) {
            items[i] = read_item(first + i);
        }
#endif
    } else {
        // The last, partial tile: items past the count take the identity and are not written.
        [[unroll]] for (uint i = 0u; i < items_per_invocation; ++i) {
            items[i] = first + i < item_count() ? read_item(first + i) : ITEM_IDENTITY;
        }
    }
}

void store_tile(uint tile, ITEM_TYPE items[VKC_ITEMS]) {
    uint first = tile * tile_items() + gl_LocalInvocationIndex * items_per_invocation;
#if ITEM_VEC_WIDTH > 1
    if (staged && tile_full(tile)) {
        [[unroll]] for (uint i = 0u; i < items_per_invocation; ++i) {
            stage[padded(gl_LocalInvocationIndex * items_per_invocation + i)] = items[i];
        }
        stage_sync();
        uint part = stage_part();
        uint base = (tile * tile_items() + part) / ITEM_VEC_WIDTH;
        [[unroll]] for (uint j = 0u; j < items_per_invocation / ITEM_VEC_WIDTH; ++j) {
            uint v = j * stage_lanes() + stage_lane();
            ITEM_VEC x;
            [[unroll]] for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
                x[c] = stage[padded(part + v * ITEM_VEC_WIDTH + c)];
            }
            write_vector(base + v, x);
        }
        stage_sync();
        return;
    }
#endif
    if (first + items_per_invocation <= item_count()) {
#if ITEM_VEC_WIDTH > 1
        [[unroll]] for (uint v = 0u; v < items_per_invocation / ITEM_VEC_WIDTH; ++v) {
            ITEM_VEC x;
            [[unroll]] for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
                x[c] = items[v * ITEM_VEC_WIDTH + c];
            }
            write_vector(first / ITEM_VEC_WIDTH + v, x);
        }
#else
        [[unroll]] for (uint i = 0u; i < items_per_invocation; ++i) {
            write_item(first + i, items[i]);
        }
#endif
    } else {
        [[unroll]] for (uint i = 0u; i < items_per_invocation; ++i) {
            if (first + i < item_count()) {
                write_item(first + i, items[i]);
            }
        }
    }
}

#endif
