#version 450
#extension GL_GOOGLE_include_directive : require

// Declared before the vkc headers: they size shared memory from gl_WorkGroupSize.
#include "vkc/contract.h" // the specialization-constant ids the runtime sets
layout(local_size_x_id = VKC_SPEC_WORKGROUP_SIZE_X, local_size_y_id = VKC_SPEC_WORKGROUP_SIZE_Y,
       local_size_z_id = VKC_SPEC_WORKGROUP_SIZE_Z) in;
// Each work-group scans `tiles_per_group` consecutive tiles of size x ITEMS items (blocked
// arrangement), carrying a running prefix from tile to tile when asked. Built per variant with
// -DITEM_TYPE, -DITEM_OP, -DCOLLECTIVE=<block_reduce|block_scan_inclusive|block_scan_exclusive>,
// -DVKC_SUBGROUP_ARITHMETIC=<0|1> (subgroup or raking algorithm).
// Specialization constants: 0-2 work-group size, 3 subgroups packed, 4 items per invocation (1..16),
// 5 staged: move tiles between memory and registers through shared memory, so that global loads and
// stores are coalesced (CUB's BLOCK_LOAD_TRANSPOSE); only where a tile fits in STAGE_ITEMS; 6, 7
// shared-memory sizes; 8 the flags and the batch of unstaged tiles (below).

layout(constant_id = VKC_SPEC_SUBGROUPS_PACKED) const bool subgroups_packed = true;
layout(constant_id = VKC_SPEC_ITEMS_PER_INVOCATION) const uint items_per_invocation = 1u;
layout(constant_id = VKC_SPEC_STAGED) const bool staged = false;
// Shared arrays sized by specialization constants whose defaults are the largest sizes: a driver
// that sizes them before specialization (Mesa 22) gets the largest, the others what the shape needs
// (16 KiB of stage where 2 KiB would do cost NVIDIA four fifths of the block scan's speed).
layout(constant_id = VKC_SPEC_SCRATCH_CAPACITY) const uint scratch_capacity = VKC_MODULE_CAPACITY;
layout(constant_id = VKC_SPEC_STAGE_ITEMS) const uint stage_items = VKC_STAGE_BYTES / ITEM_BYTES;
#define VKC_SCRATCH_CAPACITY scratch_capacity
// Tiles staged through the whole work-group pass barriers between one tile's scan and the next, so the
// scan's own last one is spare; tiles staged subgroup by subgroup do not.
bool staged_per_subgroup;
#define VKC_SCAN_TRAILING_BARRIER (!staged || staged_per_subgroup)
#define VKC_SUBGROUPS_PACKED subgroups_packed
#define VKC_ITEMS 16
#define VKC_ITEMS_ACTIVE items_per_invocation

#include "custom_ops.glsl"
// FLAG_CALLBACK: the running prefix is kept by a prefix callback (CUB's BlockPrefixCallbackOp), the
// header's callback forms; defined below, once the buffers and item helpers are declared.
#include "vkc/common.glsl" // the extensions that name ITEM_TYPE
ITEM_TYPE running_prefix_callback(ITEM_TYPE aggregate);
#define VKC_BLOCK_PREFIX_CALLBACK running_prefix_callback
#define VKC_TYPE ITEM_TYPE
#define VKC_OP ITEM_OP
#include "vkc/block_scan.glsl"

layout(set = 0, binding = 0, std430) readonly buffer Input { ITEM_TYPE items_in[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Output { ITEM_TYPE items_out[]; };
// Per tile t: [2t*size, 2t*size + size) the aggregate each invocation saw; then the running prefix
// each invocation holds after the tile. Written only when FLAG_RECORD is set.
layout(set = 0, binding = 2, std430) writeonly buffer Record { ITEM_TYPE record[]; };
#if ITEM_BYTES == 4
// Two 32-bit items an invocation are one 8-byte load and store: neighbouring invocations touch
// neighbouring pairs, coalesced without a trip through shared memory (the host does not stage them).
layout(set = 0, binding = 0, std430) readonly buffer InputPairs { uvec2 pairs_in[]; };
layout(set = 0, binding = 1, std430) writeonly buffer OutputPairs { uvec2 pairs_out[]; };
#endif
#if ITEM_VEC_WIDTH > 1
// The same memory as 16-byte vectors (8 bytes for 16-bit items, 4 for 8-bit): full staged tiles move
// one vector a lane, a quarter of the load and store instructions of one item a lane for 32-bit items.
layout(set = 0, binding = 0, std430) readonly buffer InputVectors { ITEM_VEC vectors_in[]; };
layout(set = 0, binding = 1, std430) writeonly buffer OutputVectors { ITEM_VEC vectors_out[]; };
#endif

layout(push_constant, std430) uniform Params {
    uint count;           // valid items; tiles past them are partial or empty
    uint tiles_per_group;
    uint flags;
    uint reserved;
    uvec4 seed;           // bits of the initial value / running prefix (xy), and of junk (zw)
} params;
const uint FLAG_SEEDED = VKC_BLOCK_FLAG_SEEDED;   // scans start from the seed
const uint FLAG_RUNNING = VKC_BLOCK_FLAG_RUNNING;  // the seed is a running prefix carried across tiles
const uint FLAG_RECORD = VKC_BLOCK_FLAG_RECORD;   // write aggregates and running prefixes to `record`
const uint FLAG_CALLBACK = VKC_BLOCK_FLAG_CALLBACK; // with FLAG_RUNNING: carry it through the prefix callback instead
// Specialization constant 8: the flags, compiled in, and in bits 8-11 how many unstaged tiles are
// loaded together (below). Context::run sets it, so that a pipeline holds only the mode and the batch
// it runs: on the H100 the other modes' code cost up to 4 registers and 1 % of the speed, and an
// 8-tile batch compiled into a pipeline that runs one tile a work-group cost it 0.56 -> 0.48 of a
// copy (results/README.md). The default reads the flags from the push constants and batches two.
const uint FLAGS_FROM_PUSH_CONSTANTS = VKC_BLOCK_FLAGS_FROM_PUSH_CONSTANTS;
layout(constant_id = VKC_SPEC_KERNEL) const uint compiled_flags = FLAGS_FROM_PUSH_CONSTANTS;
uint flags() { return compiled_flags == FLAGS_FROM_PUSH_CONSTANTS ? params.flags : compiled_flags; }
const uint BATCH_SHIFT = VKC_BLOCK_BATCH_SHIFT;
const uint MAX_BATCH = 8u;
const uint compiled_batch = compiled_flags == FLAGS_FROM_PUSH_CONSTANTS ? 2u : (compiled_flags >> BATCH_SHIFT) & 15u;

#include "item_bits.glsl"

// The callback's state, as a CUB prefix functor's: each caller's own running prefix. Every invocation
// of subgroup 0 calls it, but only invocation 0's state starts from the seed (the others from junk),
// so a scan that used any other caller's answer would fail the tests. Invocation 0 publishes the
// carry after the tile in `callback_carry`.
ITEM_TYPE callback_running;
shared ITEM_TYPE callback_carry;
ITEM_TYPE running_prefix_callback(ITEM_TYPE aggregate) {
    ITEM_TYPE prefix = callback_running;
    callback_running = ITEM_COMBINE(prefix, aggregate);
    if (gl_LocalInvocationIndex == 0u) {
        callback_carry = callback_running;
    }
    return prefix;
}

// Tiles move through vkc/tile_io.glsl's stage (its padding spreads an invocation's consecutive items
// over the banks).
#define VKC_TYPE ITEM_TYPE
#define VKC_TILE_STAGE_ITEMS stage_items
#define VKC_TILE_ITEM_BYTES ITEM_BYTES
#define VKC_TILE_READ(i) items_in[i]
#define VKC_TILE_WRITE(i, x) items_out[i] = (x)
#if ITEM_VEC_WIDTH > 1
#define VKC_TILE_VEC ITEM_VEC
#define VKC_TILE_VEC_WIDTH ITEM_VEC_WIDTH
#define VKC_TILE_READ_VEC(v) vectors_in[v]
#define VKC_TILE_WRITE_VEC(v, x) vectors_out[v] = (x)
#endif
#include "vkc/tile_io.glsl"
#define TILE_IO(name) VKC_PASTE(VKC_PASTE(vkc_tile_, name), VKC_PASTE(_, ITEM_TYPE))
#undef VKC_TYPE

// Per invocation, set once by main(): this subgroup's part of the tile (its first item, lanes, and
// this lane; vkc/tile_io.glsl), and how tiles move.
uint segment, lanes, lane;
bool paired, vectorised;

// Staged tiles of one item a lane, in two steps, so that a tile's loads can be in flight while the
// tile before it is scanned: this subgroup's part of the tile into registers, striped (every load
// issued before the first store to the stage; a full tile's without bounds checks), then through
// the stage into the blocked arrangement.
void fetch_striped(uint tile, out ITEM_TYPE striped[VKC_ITEMS]) {
    TILE_IO(load_striped)(tile * VKC_WORKGROUP_SIZE * items_per_invocation, params.count, ITEM_IDENTITY, striped,
                          segment, lanes, lane);
}
void unstage_striped(ITEM_TYPE striped[VKC_ITEMS], out ITEM_TYPE items[VKC_ITEMS]) {
    items = striped;
    TILE_IO(striped_to_blocked)(items, segment, lanes, lane, true);
}

// A tile's items into registers (blocked arrangement). Items past the count are not read; they take
// the identity and are not written. `vector_tile` is uniform: a full tile of whole vectors an invocation.
void load_items(uint tile, bool vector_tile, out ITEM_TYPE items[VKC_ITEMS]) {
    uint tile_base = tile * VKC_WORKGROUP_SIZE * items_per_invocation;
    uint base = tile_base + gl_LocalInvocationIndex * items_per_invocation;
    if (vector_tile) {
#if ITEM_VEC_WIDTH > 1
        TILE_IO(load_transposed_vectors)(tile_base, items, segment, lanes, lane, true);
#endif
    } else if (staged_per_subgroup) {
        ITEM_TYPE striped[VKC_ITEMS];
        fetch_striped(tile, striped);
        unstage_striped(striped, items);
    } else if (staged) {
        // The work-group's transpose; the scan's first barrier orders these reads before the stores
        // of the next tile.
        uint part, all_lanes, index;
        vkc_tile_part_workgroup(part, all_lanes, index);
        TILE_IO(load_transposed)(tile_base, params.count, ITEM_IDENTITY, items, part, all_lanes, index, false);
    } else if (paired && base + 2u <= params.count) {
#if ITEM_BYTES == 4
        uvec2 pair = pairs_in[base / 2u];
        items[0] = from_bits(uvec2(pair.x, 0u), ITEM_TYPE(0));
        items[1] = from_bits(uvec2(pair.y, 0u), ITEM_TYPE(0));
#endif
    } else {
        TILE_IO(load_blocked)(tile_base, params.count, ITEM_IDENTITY, items);
    }
}

// The tile's items back to memory, the way load_items read them.
void store_items(uint tile, bool vector_tile, ITEM_TYPE items[VKC_ITEMS]) {
    uint tile_base = tile * VKC_WORKGROUP_SIZE * items_per_invocation;
    uint base = tile_base + gl_LocalInvocationIndex * items_per_invocation;
    if (vector_tile) {
#if ITEM_VEC_WIDTH > 1
        TILE_IO(store_transposed_vectors)(tile_base, items, segment, lanes, lane, true);
#endif
        vkc_tile_sync(true); // the next tile's loads rewrite this part of the stage
    } else if (staged_per_subgroup) {
        TILE_IO(store_transposed)(tile_base, params.count, items, segment, lanes, lane, true);
        vkc_tile_sync(true); // the next tile's loads rewrite this part of the stage
    } else if (staged) {
        uint part, all_lanes, index;
        vkc_tile_part_workgroup(part, all_lanes, index);
        TILE_IO(store_transposed)(tile_base, params.count, items, part, all_lanes, index, false);
        barrier(); // the next tile's loads rewrite the stage, and its scan the scratch
    } else if (paired && base + 2u <= params.count) {
#if ITEM_BYTES == 4
        pairs_out[base / 2u] = uvec2(to_bits(items[0]).x, to_bits(items[1]).x);
#endif
    } else {
        TILE_IO(store_blocked)(tile_base, params.count, items);
    }
}

// The collective over one tile's items, in the mode the flags name; `running` is the prefix carried
// from tile to tile (FLAG_RUNNING). Then the items go back to memory, and the record is written.
void scan_and_store(uint tile, bool vector_tile, inout ITEM_TYPE items[VKC_ITEMS], inout ITEM_TYPE running,
                    ITEM_TYPE seed) {
    ITEM_TYPE aggregate;
#if defined(COLLECTIVE_block_reduce)
    aggregate = VKC_PASTE(vkc_block_reduce_, ITEM_OP)(items);
    [[unroll]] for (uint i = 0u; i < items_per_invocation; ++i) {
        items[i] = aggregate;
    }
#else
    bool seeded = (flags() & FLAG_SEEDED) != 0u;
    bool running_mode = (flags() & FLAG_RUNNING) != 0u;
    bool callback_mode = running_mode && (flags() & FLAG_CALLBACK) != 0u;
    if (callback_mode) {
        VKC_PASTE(VKC_PASTE(vkc_, COLLECTIVE), VKC_PASTE(_callback_, ITEM_OP))(items, aggregate);
        running = callback_carry; // written before the scan's prefix barriers
        barrier(); // read before the next tile's callback writes it
    } else if (running_mode) {
        VKC_PASTE(VKC_PASTE(vkc_, COLLECTIVE), VKC_PASTE(_running_, ITEM_OP))(items, running, aggregate);
    } else if (seeded) {
        VKC_PASTE(VKC_PASTE(vkc_, COLLECTIVE), VKC_PASTE(_seeded_, ITEM_OP))(items, seed, aggregate);
    } else {
        VKC_PASTE(VKC_PASTE(vkc_, COLLECTIVE), VKC_PASTE(_, ITEM_OP))(items, aggregate);
    }
#endif
    store_items(tile, vector_tile, items);
    if ((flags() & FLAG_RECORD) != 0u) {
        const uint size = VKC_WORKGROUP_SIZE;
        record[2u * tile * size + gl_LocalInvocationIndex] = aggregate;
        record[(2u * tile + 1u) * size + gl_LocalInvocationIndex] = running;
    }
}

// A staged tile fetched into `striped`: into the stage, then the tile two further on fetched into
// the same registers (`fetch_ahead`, uniform), so that its loads are in flight while this tile is
// scanned and stored.
void scan_striped(uint tile, inout ITEM_TYPE striped[VKC_ITEMS], bool fetch_ahead, inout ITEM_TYPE running,
                  ITEM_TYPE seed) {
    ITEM_TYPE items[VKC_ITEMS];
    unstage_striped(striped, items);
    if (fetch_ahead) {
        fetch_striped(tile + 2u, striped);
    }
    scan_and_store(tile, false, items, running, seed);
}

void main() {
    const uint size = VKC_WORKGROUP_SIZE;
    const uint tile_items = size * items_per_invocation;
    uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    // Only invocation 0's running prefix may matter: the others start from junk.
    ITEM_TYPE running = from_bits(gl_LocalInvocationIndex == 0u ? params.seed.xy : params.seed.zw + gl_LocalInvocationIndex,
                                  ITEM_TYPE(0));
    ITEM_TYPE seed = from_bits(params.seed.xy, ITEM_TYPE(0));
    callback_running = ITEM_PREPARE(running);
#if VKC_SUBGROUP_ARITHMETIC
    // Where subgroups are packed in order and full, each subgroup owns the contiguous part of the
    // tile its invocations hold, and moves it through the stage alone (CUB's warp transpose): no
    // work-group barrier on the way in or out.
    staged_per_subgroup = staged && subgroups_packed && size % gl_SubgroupSize == 0u;
    lanes = gl_SubgroupSize;
    lane = gl_SubgroupInvocationID;
    segment = gl_SubgroupID * lanes * items_per_invocation;
#else
    staged_per_subgroup = false;
    lanes = 1u;
    lane = 0u;
    segment = 0u;
#endif
    paired = ITEM_BYTES == 4 && items_per_invocation == 2u && !staged;
    // Full tiles of whole vectors an invocation move one vector a lane per round (every part then
    // starts vector-aligned). On the H100 at 2^28 the vectors took 12 and 16 items from 0.95 and 0.97
    // of a copy to 0.99 and 1.00. Other counts keep one item a lane: vectors with idle lanes in the
    // last round ran 3 items slower (0.957 against 0.981, 2 tiles a group) and 6 and 9 items no
    // faster (results/README.md).
    vectorised = ITEM_VEC_WIDTH > 1 && staged_per_subgroup && items_per_invocation % ITEM_VEC_WIDTH == 0u;
    // Unstaged tiles (1 and 2 items an invocation) are loaded several at a time, every tile's loads in
    // flight before the first tile's scan: one tile of one or two items an invocation keeps too few
    // bytes in flight to fill the memory system. The host picks the batch from the tiles a work-group
    // scans (one item: up to 8; two items: up to 2). On the H100 at 2^28 (results/README.md) one item
    // with 8 tiles a work-group went from 0.68 of a copy (one tile at a time) to 0.83 (two) and 0.92
    // (eight); two items with 4 tiles from 0.91 to 0.99 (two).
    const uint batch = staged ? 1u : clamp(compiled_batch, 1u, MAX_BATCH);
    // Staged tiles of one item a lane, with a batch of 2: two tiles' loads in flight, in two sets of
    // registers taken in turn. On the H100 at 2^28, 3 items with 2 tiles a work-group of 128 went from
    // 0.974 of a copy to 0.998 (one set, each tile's loads out before the tile in front is scanned:
    // 0.981), 6 items with 4 tiles from 0.980 to 0.988 (results/README.md).
    if (staged_per_subgroup && !vectorised && compiled_batch >= 2u) {
        uint first = group * params.tiles_per_group, n = params.tiles_per_group;
        ITEM_TYPE even[VKC_ITEMS], odd[VKC_ITEMS]; // the group's even and odd tiles
        fetch_striped(first, even);
        if (n > 1u) { // uniform
            fetch_striped(first + 1u, odd);
        }
        for (uint k = 0u; k < n; k += 2u) {
            scan_striped(first + k, even, k + 2u < n, running, seed);
            if (k + 1u < n) {
                scan_striped(first + k + 1u, odd, k + 3u < n, running, seed);
            }
        }
        return;
    }
    if (batch > 2u && items_per_invocation == 1u) {
        // One item an invocation: a batch of single items, not of 16-item arrays (a [8][16] array cost
        // the staged pipelines 3 % on the H100 even where its code was specialised away).
        for (uint k = 0u; k < params.tiles_per_group; k += batch) {
            uint first_tile = group * params.tiles_per_group + k;
            ITEM_TYPE held[MAX_BATCH];
            [[unroll]] for (uint b = 0u; b < MAX_BATCH; ++b) {
                uint at = (first_tile + b) * size + gl_LocalInvocationIndex;
                if (b < batch && k + b < params.tiles_per_group) { // uniform
                    held[b] = at < params.count ? items_in[at] : ITEM_IDENTITY;
                }
            }
            [[unroll]] for (uint b = 0u; b < MAX_BATCH; ++b) {
                if (b < batch && k + b < params.tiles_per_group) {
                    ITEM_TYPE items[VKC_ITEMS];
                    items[0] = held[b];
                    scan_and_store(first_tile + b, false, items, running, seed);
                }
            }
        }
        return;
    }
    for (uint k = 0u; k < params.tiles_per_group; k += min(batch, 2u)) {
        uint tile = group * params.tiles_per_group + k;
        const bool vector_tile = vectorised && (tile + 1u) * tile_items <= params.count; // uniform
        bool second = batch >= 2u && k + 1u < params.tiles_per_group; // uniform
        ITEM_TYPE items[VKC_ITEMS], next_items[VKC_ITEMS];
        load_items(tile, vector_tile, items);
        if (second) {
            load_items(tile + 1u, false, next_items);
        }
        scan_and_store(tile, vector_tile, items, running, seed);
        if (second) {
            scan_and_store(tile + 1u, false, next_items, running, seed);
        }
    }
}
