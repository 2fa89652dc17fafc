#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_KHR_memory_scope_semantics : require

// Device-wide scan and reduce of one buffer (vkc::Context::scan / reduce, vkc::ScanPlan). One module
// per (type, op); the host picks the mode by push constant:
//
//   MODE_SCAN          single-pass chained scan with decoupled look-back (Merrill and Garland 2016):
//                      one tile a work-group, taken from an atomic ticket (never by ID); a tile posts its
//                      aggregate, looks back over its predecessors' posts, posts its inclusive prefix.
//   MODE_REDUCE        each work-group reduces a chunk of tiles; the last to finish reduces the chunk
//                      totals in order and writes the result to output item 0.
//   MODE_REDUCE_CHUNKS the same, but the last one turns the chunk totals into exclusive prefixes:
//   MODE_SCAN_CHUNKS   ... from which each work-group rescans its chunk. These two make the
//                      reproducible scan: every value is combined in an order fixed by the sizes alone.
//
// Forward progress: Vulkan promises none between work-groups, so a tile never waits without bound.
// After spin_limit polls of a predecessor that has not posted, the look-back computes that tile's
// total from its input itself (the decoupled fallback of Smith, Levien and Owens, 2025) and goes on.
// FLAG_FORCE_FALLBACK makes every tile do so for its predecessor without polling (a test setting).
//
// Bindings: 0 input items, 1 output items (may be the same memory: in place), 2 state (uint words):
//   [0] ticket or finished-group counter, zeroed by the host before each dispatch
//   [2, 3] and [4, 5] carry slots: the running total in from the previous dispatch and out to the
//          next (buffers past maxStorageBufferRange, host arrays streamed in chunks), alternating
//   [8, ...) MODE_SCAN: tile status, STATUS_WORDS words a tile, zeroed by the host before each
//          dispatch; other modes: chunk totals, two words each.
// A status word is flag << 30 | 16 bits of the value, so 32-bit atomics carry flag and value
// together: a reader that sees the same flag in every word of a tile has a consistent value, with no
// 64-bit atomics and no ordering between separate flag and value words.

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const bool subgroups_packed = true;
layout(constant_id = 4) const uint items_per_invocation = 16u; // a multiple of ITEM_VEC_WIDTH, at most 16
layout(constant_id = 5) const bool staged = false; // full tiles move through shared memory (coalesced)
layout(constant_id = 6) const uint scratch_capacity = VKC_MODULE_CAPACITY;
// Sized by a specialization constant whose default is the largest stage (16 KiB): Mesa 22 sizes shared
// arrays from the defaults.
layout(constant_id = 7) const uint stage_items = 16384 / ITEM_BYTES;
#define VKC_SCRATCH_CAPACITY scratch_capacity
#define VKC_SUBGROUPS_PACKED subgroups_packed
#define VKC_ITEMS 16
#define VKC_ITEMS_ACTIVE items_per_invocation

#include "custom_ops.glsl"
ITEM_TYPE tile_prefix(ITEM_TYPE aggregate);
#define VKC_BLOCK_PREFIX_CALLBACK tile_prefix
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

layout(push_constant, std430) uniform Params {
    uint count;       // items in this dispatch
    uint tiles;       // ceil(count / tile items)
    uint flags;
    uint mode;
    uint spin_limit;  // MODE_SCAN: polls of an unposted predecessor before computing it
    uint chunk_tiles; // other modes: tiles a work-group takes
    uint chunks;      // other modes: work-groups
    uint zero;        // 0 (see read_status)
} params;

const uint MODE_SCAN = 0u, MODE_REDUCE = 1u, MODE_REDUCE_CHUNKS = 2u, MODE_SCAN_CHUNKS = 3u;
const uint FLAG_EXCLUSIVE = 1u;
const uint FLAG_CARRY_IN = 2u;        // start from the carry the previous dispatch left
const uint FLAG_CARRY_SLOT = 4u;      // read the carry from slot 1 and write slot 0 (else the reverse)
const uint FLAG_FORCE_FALLBACK = 8u;  // test setting: never trust the predecessor's post
const uint FLAG_IN_PLACE = 16u;       // output aliases input: a tile's input is gone once it has posted
const uint STATE_COUNTER = 0u;
const uint STATE_TILES = 8u;
const uint STATUS_WORDS = ITEM_BYTES <= 2 ? 1u : ITEM_BYTES / 2u;
const uint STATUS_NONE = 0u, STATUS_AGGREGATE = 1u, STATUS_PREFIX = 2u;

uint tile_items() { return VKC_WORKGROUP_SIZE * items_per_invocation; }
uint group_index() { return gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x; }
bool has_flag(uint f) { return (params.flags & f) != 0u; }

// ---- carry between dispatches, chunk totals ----------------------------------------------------
uint carry_in_at() { return has_flag(FLAG_CARRY_SLOT) ? 4u : 2u; }
uint carry_out_at() { return has_flag(FLAG_CARRY_SLOT) ? 2u : 4u; }
ITEM_TYPE read_pair(uint at) { return from_bits(uvec2(state[at], state[at + 1u]), ITEM_TYPE(0)); }
void write_pair(uint at, ITEM_TYPE value) {
    uvec2 bits = to_bits(value);
    state[at] = bits.x;
    state[at + 1u] = bits.y;
}

// ---- tile status -------------------------------------------------------------------------------
// Control flow here and in the look-back stays uniform across the subgroup (the same trip counts in
// every lane, per-lane differences only in selects and single guarded stores): without
// VK_KHR_shader_maximal_reconvergence a driver may run the subgroup operations that follow a
// divergent branch or loop with some lanes missing (NVIDIA's did, and the look-back folded garbage).
void post(uint tile, uint flag, ITEM_TYPE value, uint lane, uint lanes) {
    uvec2 bits = to_bits(value);
    for (uint k0 = 0u; k0 < STATUS_WORDS; k0 += lanes) {
        uint k = k0 + lane;
        uint piece = ((k < 2u ? bits.x : bits.y) >> (16u * (k & 1u))) & 0xffffu;
        if (k < STATUS_WORDS) {
            atomicStore(state[STATE_TILES + tile * STATUS_WORDS + k], (flag << 30u) | piece, gl_ScopeDevice,
                        gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
        }
    }
}

// `after` orders the read after whatever produced that value: it is masked with the push constant
// `zero` (always 0, unknown to the compiler) into the address, so the status load depends on it. A
// fence would do, but Mesa 22's lavapipe turns every memory barrier (and the one an acquire or
// release atomic implies) into a work-group barrier, which tears the look-back's divergent code.
void read_status(uint tile, uint after, out uint flag, out ITEM_TYPE value) {
    uvec2 bits = uvec2(0u);
    uint first_flag = 0u;
    bool same = true;
    for (uint k = 0u; k < STATUS_WORDS; ++k) {
        uint at = STATE_TILES + tile * STATUS_WORDS + k + (after & params.zero);
        uint word = atomicLoad(state[at], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
        uint f = word >> 30u;
        first_flag = k == 0u ? f : first_flag;
        same = same && f == first_flag;
        uint piece = (word & 0xffffu) << (16u * (k & 1u));
        if (k < 2u) {
            bits.x |= piece;
        } else {
            bits.y |= piece;
        }
    }
    flag = same ? first_flag : STATUS_NONE; // read between an aggregate's and a prefix's post: not yet
    value = from_bits(bits, ITEM_TYPE(0));
}

// ---- the look-back: invocation 0 alone ------------------------------------------------------------
// The block scan calls the prefix callback in every invocation of subgroup 0; only invocation 0 works
// in it. A subgroup-wide look-back (a window of predecessors a lane each) needs its lanes converged
// inside the polling loop, which Vulkan promises only with VK_KHR_shader_maximal_reconvergence: on
// NVIDIA's driver the subgroup split there and the look-back folded garbage or never ended. One
// invocation reading one predecessor at a time needs nothing of the kind.
uint lookback_lanes() { return 1u; }
uint lookback_lane() { return 0u; }
int lanes_max(int v) { return v; }
ITEM_TYPE lanes_fold(ITEM_TYPE v) { return v; }
ITEM_TYPE lanes_pick(ITEM_TYPE v, int lane) { return v; }

// The total of a whole tile from its input, by the look-back lanes, each over a contiguous part so
// that the order holds for operators that do not commute.
ITEM_TYPE reduce_tile_alone(uint tile) {
    uint lanes = lookback_lanes();
    uint per_lane = tile_items() / lanes; // the host makes the work-group a multiple of the subgroup
    uint begin = tile * tile_items() + lookback_lane() * per_lane;
    ITEM_TYPE acc = ITEM_PREPARE(items_in[begin]);
    for (uint i = 1u; i < per_lane; ++i) {
        acc = ITEM_COMBINE(acc, ITEM_PREPARE(items_in[begin + i]));
    }
    return lanes_fold(acc);
}

bool carry_in_present() { return has_flag(FLAG_CARRY_IN); }
ITEM_TYPE carry_in() { return carry_in_present() ? read_pair(carry_in_at()) : ITEM_IDENTITY; }

// The exclusive prefix of `tile` (> 0): op over every earlier tile, and the carry in. A window of
// `lanes` predecessors is read at once (lane lanes-1 holds the nearest); posted inclusive prefixes
// end the walk, posted aggregates are folded in, and a tile that has posted nothing is polled, then
// computed from its input.
ITEM_TYPE look_back(uint tile) {
    const uint lanes = lookback_lanes();
    const uint lane = lookback_lane();
    bool forced = has_flag(FLAG_FORCE_FALLBACK);
    bool have = false;
    ITEM_TYPE acc = ITEM_IDENTITY; // op over tiles (nearest, tile)
    int nearest = int(tile) - 1;    // the nearest tile not yet folded in
    uint polls = 0u;
    // Every round either polls (at most spin_limit times for one silent tile) or folds in at least one
    // tile, so this bound is never reached by a correct run; it guarantees the loop ends whatever the
    // device does, and past it the prefix is computed from the input outright.
    const uint max_rounds = (tile + 1u) * (params.spin_limit + 2u);
    for (uint round = 0u; round < max_rounds; ++round) {
        int mine = nearest - int(lanes - 1u - lane);
        // Every lane reads a status (lanes before tile 0 read tile 0's and ignore it): no branch.
        uint flag;
        ITEM_TYPE value;
        read_status(uint(max(mine, 0)), 0u, flag, value);
        bool silenced = forced && mine == int(tile) - 1;
        flag = mine < 0 ? STATUS_PREFIX : silenced ? STATUS_NONE : flag; // before tile 0: the carry, as a prefix
        ITEM_TYPE carry = carry_in();
        value = mine == -1 ? carry : mine < 0 ? ITEM_IDENTITY : value;
        int prefix_lane = lanes_max(flag == STATUS_PREFIX ? int(lane) : -1);
        int missing_lane = lanes_max(flag == STATUS_NONE && int(lane) > prefix_lane ? int(lane) : -1);
        int missing_tile = nearest - int(lanes - 1u) + missing_lane;
        if (missing_lane >= 0 && polls < params.spin_limit && !(forced && missing_tile == int(tile) - 1)) {
            ++polls; // (a back-off between polls, as CUB sleeps, measured no faster on the H200)
            continue;
        }
        int low = missing_lane >= 0 ? missing_lane + 1 : max(prefix_lane, 0); // lanes [low, lanes) fold in
        if (low < int(lanes)) {
            ITEM_TYPE part = lanes_fold(int(lane) >= low ? value : ITEM_IDENTITY);
            acc = have ? ITEM_COMBINE(part, acc) : part;
            have = true;
        }
        if (missing_lane < 0) {
            if (prefix_lane >= 0) {
                return acc;
            }
            nearest -= int(lanes);
            polls = 0u;
            continue;
        }
        // The fallback: compute the silent tile's total ourselves.
        uint lost = uint(missing_tile);
        ITEM_TYPE computed = reduce_tile_alone(lost);
        if (has_flag(FLAG_IN_PLACE)) {
            // In place, the tile may have posted and overwritten its input while we read it. It
            // posts before it stores (the device-scope barrier in scan_look_back), so a lane that
            // read overwritten items sees a post here, read after the items (through `computed`,
            // which every lane's items feed); the posted value wins.
            uint again;
            ITEM_TYPE posted;
            read_status(lost, to_bits(computed).x, again, posted);
            int saw_prefix = lanes_max(again == STATUS_PREFIX ? int(lane) : -1);
            int saw_aggregate = lanes_max(again == STATUS_AGGREGATE ? int(lane) : -1);
            if (saw_prefix >= 0) {
                ITEM_TYPE p = lanes_pick(posted, saw_prefix);
                return have ? ITEM_COMBINE(p, acc) : p;
            }
            if (saw_aggregate >= 0) {
                computed = lanes_pick(posted, saw_aggregate);
            }
        }
        acc = have ? ITEM_COMBINE(computed, acc) : computed;
        have = true;
        nearest = min(int(lost), nearest) - 1; // always moves back
        polls = 0u;
    }
    // Not reached in a correct run (see max_rounds): op over the input before this tile, and the carry.
    ITEM_TYPE all = carry_in();
    bool started = carry_in_present();
    for (uint t = 0u; t < tile; ++t) {
        ITEM_TYPE part = reduce_tile_alone(t);
        all = started ? ITEM_COMBINE(all, part) : part;
        started = true;
    }
    return all;
}

uint current_tile;

// The block scan's prefix callback (invocation 0 does the work): post, look back, post.
ITEM_TYPE tile_prefix(ITEM_TYPE aggregate) {
    if (gl_LocalInvocationIndex != 0u) {
        return ITEM_IDENTITY; // ignored: invocation 0's answer is the prefix
    }
    uint lane = lookback_lane(), lanes = lookback_lanes();
    uint tile = current_tile;
    ITEM_TYPE exclusive = carry_in();
    bool seeded = tile > 0u || carry_in_present();
    if (tile > 0u) {
        post(tile, STATUS_AGGREGATE, aggregate, lane, lanes);
        exclusive = look_back(tile);
    }
    ITEM_TYPE inclusive = seeded ? ITEM_COMBINE(exclusive, aggregate) : aggregate;
    post(tile, STATUS_PREFIX, inclusive, lane, lanes);
    if (tile == params.tiles - 1u && lane == 0u) {
        write_pair(carry_out_at(), inclusive);
    }
    return exclusive;
}

// ---- tiles in registers (CUB's blocked arrangement) --------------------------------------------
// Staged: a full tile is read with striped vector loads (neighbouring invocations, neighbouring
// vectors: every load instruction coalesced) into shared memory, and each invocation takes its
// consecutive items from there (CUB's BLOCK_LOAD_WARP_TRANSPOSE); stores the other way round. One
// padding item per 32 spreads an invocation's consecutive items over the banks. The subgroup path
// needs subgroups packed in local-index order, which the host checks before choosing it.
shared ITEM_TYPE stage[stage_items + stage_items / 32u + 1u];
uint padded(uint at) { return at + at / 32u; }
bool tile_full(uint tile) { return (tile + 1u) * tile_items() <= params.count; }

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

void load_tile(uint tile, inout ITEM_TYPE items[VKC_ITEMS]) {
    uint first = tile * tile_items() + gl_LocalInvocationIndex * items_per_invocation;
#if ITEM_VEC_WIDTH > 1
    if (staged && tile_full(tile)) { // uniform: the barriers are safe
        uint part = stage_part();
        uint base = (tile * tile_items() + part) / ITEM_VEC_WIDTH;
        for (uint j = 0u; j < items_per_invocation / ITEM_VEC_WIDTH; ++j) {
            uint v = j * stage_lanes() + stage_lane(); // neighbouring lanes, neighbouring vectors
            ITEM_VEC x = vectors_in[base + v];
            for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
                stage[padded(part + v * ITEM_VEC_WIDTH + c)] = x[c];
            }
        }
        stage_sync();
        for (uint i = 0u; i < items_per_invocation; ++i) {
            items[i] = stage[padded(gl_LocalInvocationIndex * items_per_invocation + i)];
        }
        stage_sync(); // the stage is free again
        return;
    }
#endif
    if (first + items_per_invocation <= params.count) {
#if ITEM_VEC_WIDTH > 1
        for (uint v = 0u; v < items_per_invocation / ITEM_VEC_WIDTH; ++v) {
            ITEM_VEC x = vectors_in[first / ITEM_VEC_WIDTH + v];
            for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
                items[v * ITEM_VEC_WIDTH + c] = x[c];
            }
        }
#else
        for (uint i = 0u; i < items_per_invocation; ++i) {
            items[i] = items_in[first + i];
        }
#endif
    } else {
        // The last, partial tile: items past the count take the identity and are not written.
        for (uint i = 0u; i < items_per_invocation; ++i) {
            items[i] = first + i < params.count ? items_in[first + i] : ITEM_IDENTITY;
        }
    }
}

void store_tile(uint tile, ITEM_TYPE items[VKC_ITEMS]) {
    uint first = tile * tile_items() + gl_LocalInvocationIndex * items_per_invocation;
#if ITEM_VEC_WIDTH > 1
    if (staged && tile_full(tile)) {
        for (uint i = 0u; i < items_per_invocation; ++i) {
            stage[padded(gl_LocalInvocationIndex * items_per_invocation + i)] = items[i];
        }
        stage_sync();
        uint part = stage_part();
        uint base = (tile * tile_items() + part) / ITEM_VEC_WIDTH;
        for (uint j = 0u; j < items_per_invocation / ITEM_VEC_WIDTH; ++j) {
            uint v = j * stage_lanes() + stage_lane();
            ITEM_VEC x;
            for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
                x[c] = stage[padded(part + v * ITEM_VEC_WIDTH + c)];
            }
            vectors_out[base + v] = x;
        }
        stage_sync();
        return;
    }
#endif
    if (first + items_per_invocation <= params.count) {
#if ITEM_VEC_WIDTH > 1
        for (uint v = 0u; v < items_per_invocation / ITEM_VEC_WIDTH; ++v) {
            ITEM_VEC x;
            for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
                x[c] = items[v * ITEM_VEC_WIDTH + c];
            }
            vectors_out[first / ITEM_VEC_WIDTH + v] = x;
        }
#else
        for (uint i = 0u; i < items_per_invocation; ++i) {
            items_out[first + i] = items[i];
        }
#endif
    } else {
        for (uint i = 0u; i < items_per_invocation; ++i) {
            if (first + i < params.count) {
                items_out[first + i] = items[i];
            }
        }
    }
}

shared uint ticket;

// One tile a work-group. (Work-groups that loop over tickets measured 3 % faster on the H200 but gave
// wrong sums on Mesa 22's lavapipe with two threads; one tile a group is right on both.)
void scan_look_back() {
    if (gl_LocalInvocationIndex == 0u) {
        ticket = atomicAdd(state[STATE_COUNTER], 1u); // tiles in the order groups start, not by ID
    }
    barrier();
    current_tile = ticket;
    if (current_tile >= params.tiles) {
        return; // a spare group of a 2D grid
    }
    ITEM_TYPE items[VKC_ITEMS];
    load_tile(current_tile, items);
    ITEM_TYPE aggregate, prefix;
    VKC_PASTE(vkc_block_scan_core_, ITEM_OP)(items, !has_flag(FLAG_EXCLUSIVE), VKC_PREFIX_CALLBACK, ITEM_IDENTITY,
                                             aggregate, prefix);
    if (has_flag(FLAG_IN_PLACE)) {
        // The tile's posts (by subgroup 0) happen before any invocation overwrites its input, so a
        // look-back that read overwritten items finds the post when it reads the status again.
        controlBarrier(gl_ScopeWorkgroup, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
    }
    store_tile(current_tile, items);
}

// ---- chunks: reduce, and the reproducible scan -------------------------------------------------
ITEM_TYPE reduce_chunk(uint chunk) {
    uint tile_begin = chunk * params.chunk_tiles;
    uint tile_end = min(tile_begin + params.chunk_tiles, params.tiles);
    ITEM_TYPE total = ITEM_IDENTITY;
#if ITEM_COMMUTATIVE
    // Any arrangement will do: striped loads, four in flight, one accumulator per invocation.
    const uint size = VKC_WORKGROUP_SIZE;
    uint begin = tile_begin * tile_items();
    uint end = min(tile_end * tile_items(), params.count);
    ITEM_TYPE own = ITEM_IDENTITY;
#if ITEM_VEC_WIDTH > 1
    uint v = begin / ITEM_VEC_WIDTH + gl_LocalInvocationIndex;
    uint vectors_end = end / ITEM_VEC_WIDTH;
    for (; v + 3u * size < vectors_end; v += 4u * size) {
        ITEM_VEC x0 = vectors_in[v], x1 = vectors_in[v + size], x2 = vectors_in[v + 2u * size],
                 x3 = vectors_in[v + 3u * size];
        for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
            own = ITEM_COMBINE(own, ITEM_COMBINE(ITEM_COMBINE(ITEM_PREPARE(x0[c]), ITEM_PREPARE(x1[c])),
                                                 ITEM_COMBINE(ITEM_PREPARE(x2[c]), ITEM_PREPARE(x3[c]))));
        }
    }
    for (; v < vectors_end; v += size) {
        ITEM_VEC x = vectors_in[v];
        for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
            own = ITEM_COMBINE(own, ITEM_PREPARE(x[c]));
        }
    }
    uint i = vectors_end * ITEM_VEC_WIDTH + gl_LocalInvocationIndex; // the count's last partial vector
#else
    uint i = begin + gl_LocalInvocationIndex;
#endif
    for (; i < end; i += size) {
        own = ITEM_COMBINE(own, ITEM_PREPARE(items_in[i]));
    }
    ITEM_TYPE before;
    VKC_PASTE(vkc_workgroup_scan_core_, ITEM_OP)(own, before, total);
#else
    // In order: tile by tile, each reduced in the blocked arrangement.
    for (uint tile = tile_begin; tile < tile_end; ++tile) {
        ITEM_TYPE items[VKC_ITEMS];
        load_tile(tile, items);
        ITEM_TYPE part = VKC_PASTE(vkc_block_reduce_, ITEM_OP)(items);
        total = tile == tile_begin ? part : ITEM_COMBINE(total, part);
    }
#endif
    return total;
}

shared bool finished_last;

// MODE_REDUCE and MODE_REDUCE_CHUNKS: chunk totals, then the last group to finish walks them.
void reduce_chunks() {
    uint chunk = group_index();
    if (chunk >= params.chunks) {
        return;
    }
    ITEM_TYPE total = reduce_chunk(chunk);
    // The total lands (device scope) before the count says so, and the last group to count reads
    // every total after it counted. Barriers in uniform control flow only (see read_status).
    if (gl_LocalInvocationIndex == 0u) {
        write_pair(STATE_TILES + 2u * chunk, total);
    }
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
    if (gl_LocalInvocationIndex == 0u) {
        finished_last = atomicAdd(state[STATE_COUNTER], 1u) == params.chunks - 1u;
    }
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeDevice, gl_StorageSemanticsBuffer | gl_StorageSemanticsShared,
                   gl_SemanticsAcquireRelease);
    if (!finished_last) {
        return;
    }
    // Every chunk total is in: scan them in order, a work-group's width at a time, from the carry.
    bool started = carry_in_present();
    ITEM_TYPE running = carry_in();
    for (uint base = 0u; base < params.chunks; base += VKC_WORKGROUP_SIZE) {
        uint at = base + gl_LocalInvocationIndex;
        ITEM_TYPE x = at < params.chunks ? read_pair(STATE_TILES + 2u * at) : ITEM_IDENTITY;
        ITEM_TYPE before, block_total;
        VKC_PASTE(vkc_workgroup_scan_core_, ITEM_OP)(x, before, block_total);
        if (params.mode == MODE_REDUCE_CHUNKS && at < params.chunks) {
            ITEM_TYPE exclusive = started ? (gl_LocalInvocationIndex == 0u ? running : ITEM_COMBINE(running, before))
                                          : before;
            write_pair(STATE_TILES + 2u * at, exclusive);
        }
        running = started ? ITEM_COMBINE(running, block_total) : block_total;
        started = true;
    }
    if (gl_LocalInvocationIndex == 0u) {
        write_pair(carry_out_at(), running);
        if (params.mode == MODE_REDUCE) {
            items_out[0] = running;
        }
    }
}

// MODE_SCAN_CHUNKS: the chunk's tiles in turn, seeded with the chunk's exclusive prefix.
void scan_chunks() {
    uint chunk = group_index();
    if (chunk >= params.chunks) {
        return;
    }
    ITEM_TYPE running = read_pair(STATE_TILES + 2u * chunk);
    bool seeded = chunk > 0u || carry_in_present();
    uint tile_begin = chunk * params.chunk_tiles;
    uint tile_end = min(tile_begin + params.chunk_tiles, params.tiles);
    for (uint tile = tile_begin; tile < tile_end; ++tile) {
        ITEM_TYPE items[VKC_ITEMS];
        load_tile(tile, items);
        ITEM_TYPE aggregate, prefix;
        VKC_PASTE(vkc_block_scan_core_, ITEM_OP)(items, !has_flag(FLAG_EXCLUSIVE),
                                                 seeded ? VKC_PREFIX_UNIFORM : VKC_PREFIX_NONE, running,
                                                 aggregate, prefix);
        running = seeded ? ITEM_COMBINE(running, aggregate) : aggregate;
        seeded = true;
        store_tile(tile, items);
    }
}

void main() {
    if (params.mode == MODE_SCAN) {
        scan_look_back();
    } else if (params.mode == MODE_SCAN_CHUNKS) {
        scan_chunks();
    } else {
        reduce_chunks();
    }
}
