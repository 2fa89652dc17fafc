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
//                      posts, posts its inclusive prefix. A chunk of one tile, or of up to 4 full
//                      staged tiles, is held in registers through the look-back; a longer one is
//                      reduced from memory first and read again to scan it (reduce-then-scan inside
//                      the chunk: the second read mostly hits L2).
//   MODE_REDUCE        each work-group reduces a chunk of tiles; the last to finish reduces the chunk
//                      totals in order and writes the result to output item 0.
//   MODE_REDUCE_CHUNKS the same, but the last one turns the chunk totals into exclusive prefixes:
//   MODE_SCAN_CHUNKS   ... from which each work-group rescans its chunk. These two make the
//                      reproducible scan: every value is combined in an order fixed by the sizes alone.
//
// Forward progress: Vulkan promises none between work-groups, so a chunk never waits without bound.
// After spin_limit polls of a predecessor that has not posted, the look-back computes that chunk's
// total from its input itself (the decoupled fallback of Smith, Levien and Owens, 2025) and goes on.
// FLAG_FORCE_FALLBACK makes every chunk do so for its predecessor without polling (a test setting).
//
// Bindings: 0 input items, 1 output items (may be the same memory: in place), 2 state (uint words).
// The state starts zeroed (by the host once, or before every plan where the caller does not promise
// to keep it so), and every dispatch leaves it ready for the next, so plans on a kept scratch record
// no fill and no barrier after one (a few microseconds, most of a small scan's time):
//   [0] MODE_SCAN: the ticket: bit 31 the dispatch's parity, bits 0-30 the chunks taken. The group
//       that takes the last ticket leaves the count zero and the parity flipped.
//   [1] MODE_REDUCE and MODE_REDUCE_CHUNKS: the finished-group counter, zero before and after each
//       dispatch (the last group to count resets it)
//   [2, 3] and [4, 5] carry slots: the running total in from the previous dispatch and out to the
//          next (buffers past maxStorageBufferRange, host arrays streamed in chunks), alternating
//   [6], [7], [8] with FLAG_STATS: look-back rounds, chunks walked back and fallbacks, summed over
//          chunks (zeroed by the host)
//   [9], [10] MODE_SCAN: status words (whole slots) the last dispatch of parity 0, 1 may have posted
//   [11] unused (a write to it, under a test that never passes, keeps look_back's prefetch loads)
//   [12, ...) MODE_SCAN: chunk status, a slot of STATUS_SLOT words a chunk, in two arrays, one a parity
//          (status_word_at). A dispatch posts in its parity's array, which is all zero when it
//          starts, and zeroes what the previous dispatch posted in the other one, so that is all
//          zero when the next dispatch starts. Other modes: chunk totals, STATUS_WORDS words each
//          (total_at), posted as statuses are and zeroed once read.
// A dispatch of one chunk takes no ticket, counts nothing and posts nothing.
// (Zeroing the dispatch's own posts instead would need every work-group to count out behind a
// device-scope release, which waits for its tile's stores: on the H100 that cost u32 scans at 2^28
// a sixth of their speed.)
// A status word is flag << 30 | 16 bits of the value, so 32-bit atomics carry flag and value
// together: a reader that sees the same flag in every word of a chunk has a consistent value, with no
// 64-bit atomics and no ordering between separate flag and value words.

layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 2) in;
layout(constant_id = 3) const bool subgroups_packed = true;
layout(constant_id = 4) const uint items_per_invocation = 32u; // a multiple of ITEM_VEC_WIDTH, at most 32
layout(constant_id = 5) const bool staged = false; // full tiles move through shared memory (coalesced)
layout(constant_id = 6) const uint scratch_capacity = VKC_MODULE_CAPACITY;
// Sized by a specialization constant whose default is the largest stage (16 KiB): Mesa 22 sizes shared
// arrays from the defaults.
layout(constant_id = 7) const uint stage_items = 16384 / ITEM_BYTES;
// The path a pipeline compiles: a plan's pipeline takes only the path it runs, since registers are
// allotted for the hungriest path in the pipeline, and a tile held in registers is latency-bound on
// occupancy (the chunk passes' code cost the u32 look-back scan 10 registers and 6 % of its speed on
// the H100). The default compiles every path and takes the mode from the push constants.
const uint PATH_LOOK_BACK = 0u;         // MODE_SCAN, a tile a work-group, held in registers
const uint PATH_LOOK_BACK_CHUNKED = 1u; // MODE_SCAN, chunks of params.chunk_tiles > 1 tiles (scan_chunk_twice)
const uint PATH_CHUNK_PASSES = 2u;      // MODE_REDUCE, MODE_REDUCE_CHUNKS, MODE_SCAN_CHUNKS
const uint PATH_ANY = 0xffffffffu;
layout(constant_id = 8) const uint compiled_path = PATH_ANY;
#define VKC_SCRATCH_CAPACITY scratch_capacity
#define VKC_SUBGROUPS_PACKED subgroups_packed
// Alternating scratch halves (common.glsl) cost the u32 look-back scan at 2^28 on the H100 2 % of its
// speed (0.774 of a copy against 0.792: a work-group scan here runs only in the fallback, but its
// register is held throughout), and gained u64 and f64 nothing beyond the spread.
#define VKC_SCAN_ALTERNATE_HALVES false
#define VKC_ITEMS 32 // max_items_per_invocation in src/device_scan.cpp
#define VKC_ITEMS_ACTIVE items_per_invocation

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

layout(push_constant, std430) uniform Params {
    uint count;       // items in this dispatch
    uint tiles;       // ceil(count / tile items)
    uint flags;
    uint mode;
    uint spin_limit;  // MODE_SCAN: bits 0-15 polls of an unposted predecessor before computing it,
                      // bits 16-31 predecessors a look-back round reads
    uint chunk_tiles; // tiles a work-group takes
    uint chunks;      // work-groups (MODE_SCAN: chunks, one status entry each)
    uint zero;        // 0 (see read_status)
} params;

const uint MODE_SCAN = 0u, MODE_REDUCE = 1u, MODE_REDUCE_CHUNKS = 2u, MODE_SCAN_CHUNKS = 3u;
const uint FLAG_EXCLUSIVE = 1u;
const uint FLAG_CARRY_IN = 2u;        // start from the carry the previous dispatch left
const uint FLAG_CARRY_SLOT = 4u;      // read the carry from slot 1 and write slot 0 (else the reverse)
const uint FLAG_FORCE_FALLBACK = 8u;  // test setting: never trust the predecessor's post
const uint FLAG_IN_PLACE = 16u;       // output aliases input: a tile's input is gone once it has posted
const uint FLAG_STATS = 32u;          // count look-back rounds, tiles walked and fallbacks (VKC_LOOKBACK_STATS)
const uint FLAG_PREFETCH = 64u;       // look-back rounds touch the input of a chunk about to start (look_back)
const uint STATE_TICKET = 0u, STATE_FINISHED = 1u;
const uint STATE_STAT_ROUNDS = 6u, STATE_STAT_WALKED = 7u, STATE_STAT_FALLBACKS = 8u; // zeroed with FLAG_STATS
const uint STATE_DIRTY = 9u; // + parity
const uint STATE_PREFETCH_SINK = 11u; // never written (see look_back's prefetch)
const uint STATE_REDUCE_TICKET = 12u; // reduce_by_ticket's pieces, zero between dispatches
// Words 13 to 15 are not used: the status slots start on a 32-byte sector.
const uint STATE_TILES = 16u;
const uint TICKET_COUNT = 0x7fffffffu; // and bit 31 the parity
const uint STATUS_WORDS = ITEM_BYTES <= 2 ? 1u : ITEM_BYTES / 2u;
// A look-back chunk's status takes a slot of STATUS_SLOT words (32 bytes, a sector of NVIDIA's L2), its
// first STATUS_WORDS used: chunks in flight post to sectors of their own while successors poll them.
// Packed (two words a chunk for 32-bit items, four for 64-bit), neighbours' posts and polls met in the
// same sectors: on the H100 at 2^28 items the u32 scan ran at 0.957 of a copy against 0.907, u64 at
// 0.864 against 0.847 and f64 at 0.859 against 0.832 (a 128-byte line a chunk: the same).
const uint STATUS_SLOT = 8u;
const uint STATUS_NONE = 0u, STATUS_AGGREGATE = 1u, STATUS_PREFIX = 2u;
// Reduce's chunk totals (and the reproducible scan's): a flag no look-back posts, since the totals
// share words with the status array a look-back scan leaves posted for the next one to zero.
const uint STATUS_TOTAL = 3u;

// The path this pipeline runs: the one compiled in, or, where all are, the one the push constants name.
bool runs_look_back() {
    return compiled_path == PATH_ANY ? params.mode == MODE_SCAN : compiled_path != PATH_CHUNK_PASSES;
}
bool runs_chunked_look_back() {
    return compiled_path == PATH_ANY ? params.chunk_tiles > 1u : compiled_path == PATH_LOOK_BACK_CHUNKED;
}

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
// The two arrays alternate in blocks of STATUS_BLOCK words, so a word's place depends on neither the
// count nor the type (plans of any size and type may share a scratch, and each zeroes the words the
// one before it posted), and a window of neighbouring chunks stays on neighbouring words.
const uint STATUS_BLOCK = 64u; // a multiple of STATUS_SLOT
uint status_word_at(uint parity, uint w) {
    return STATE_TILES + ((w / STATUS_BLOCK) * 2u + parity) * STATUS_BLOCK + w % STATUS_BLOCK;
}
// MODE_SCAN: the ticket (chunk), this dispatch's parity and the other parity's dirty count, from
// invocation 0. The parity is read from shared memory where it is used, not held in a register
// through the tile's look-back.
shared uint ticket, ticket_parity, other_dirty;
uint status_at(uint tile, uint k) { return status_word_at(ticket_parity, tile * STATUS_SLOT + k); }

// A flagged value in the STATUS_WORDS words from `first` (a chunk's slot lies in one block: STATUS_SLOT
// divides STATUS_BLOCK; chunk totals are adjacent words).
void post_words(uint first, uint flag, ITEM_TYPE value) {
    uvec2 bits = to_bits(value);
    [[unroll]] for (uint k = 0u; k < STATUS_WORDS; ++k) {
        uint piece = ((k < 2u ? bits.x : bits.y) >> (16u * (k & 1u))) & 0xffffu;
        atomicStore(state[first + k], (flag << 30u) | piece, gl_ScopeDevice, gl_StorageSemanticsBuffer,
                    gl_SemanticsRelaxed);
    }
}
void post(uint tile, uint flag, ITEM_TYPE value) { post_words(status_at(tile, 0u), flag, value); }

// `after` orders the read after whatever produced that value: it is masked with the push constant
// `zero` (always 0, unknown to the compiler) into the address, so the status load depends on it. A
// fence would do, but Mesa 22's lavapipe turns every memory barrier (and the one an acquire or
// release atomic implies) into a work-group barrier, which tears code that only some invocations run.
void read_words(uint first, uint after, out uint flag, out ITEM_TYPE value) {
    uvec2 bits = uvec2(0u);
    uint first_flag = 0u;
    bool same = true;
    [[unroll]] for (uint k = 0u; k < STATUS_WORDS; ++k) {
        uint at = first + k + (after & params.zero);
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
void read_status(uint tile, uint after, out uint flag, out ITEM_TYPE value) {
    read_words(status_at(tile, 0u), after, flag, value);
}

bool carry_in_present() { return has_flag(FLAG_CARRY_IN); }
ITEM_TYPE carry_in() { return carry_in_present() ? read_pair(carry_in_at()) : ITEM_IDENTITY; }

// ---- tiles in registers (CUB's blocked arrangement) --------------------------------------------
// Staged: a full tile is read with striped vector loads (neighbouring invocations, neighbouring
// vectors: every load instruction coalesced) into shared memory, and each invocation takes its
// consecutive items from there (CUB's BLOCK_LOAD_WARP_TRANSPOSE); stores the other way round. The
// padding spreads an invocation's consecutive items over the banks. The subgroup path
// needs subgroups packed in local-index order, which the host checks before choosing it.
// One padding item every 32 items, or every 16 of 8 bytes (a row of 32 banks either way for 4 and
// 8 bytes), so that invocations' runs of consecutive items start on different banks. 64-bit items
// padded every 32 ran the chunked look-back scan at 2^28 on the H100 at 0.677 of a copy (u64) and
// 0.671 (f64), against 0.689 and 0.679.
const uint STAGE_PAD_EVERY = ITEM_BYTES == 8u ? 16u : 32u;
shared ITEM_TYPE stage[stage_items + stage_items / STAGE_PAD_EVERY + 1u];
uint padded(uint at) { return at + at / STAGE_PAD_EVERY; }
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
            stage[padded(part + v * ITEM_VEC_WIDTH + c)] = x[j][c];
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
        // Written as these two steps, the u64 and f64 scans ran as fast as with each load stored
        // straight into the stage (H100, 2^24 to 2^28, two passes: within 0.002 of a copy).
        ITEM_VEC x[VKC_ITEMS / ITEM_VEC_WIDTH];
        fetch_tile(tile, x);
        unpack_tile(x, items);
        return;
    }
#endif
    if (first + items_per_invocation <= params.count) {
#if ITEM_VEC_WIDTH > 1
        [[unroll]] for (uint v = 0u; v < items_per_invocation / ITEM_VEC_WIDTH; ++v) {
            ITEM_VEC x = vectors_in[first / ITEM_VEC_WIDTH + v];
            [[unroll]] for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
                items[v * ITEM_VEC_WIDTH + c] = x[c];
            }
        }
#else
        [[unroll]] for (uint i = 0u; i < items_per_invocation; ++i) {
            items[i] = items_in[first + i];
        }
#endif
    } else {
        // The last, partial tile: items past the count take the identity and are not written.
        [[unroll]] for (uint i = 0u; i < items_per_invocation; ++i) {
            items[i] = first + i < params.count ? items_in[first + i] : ITEM_IDENTITY;
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
            vectors_out[base + v] = x;
        }
        stage_sync();
        return;
    }
#endif
    if (first + items_per_invocation <= params.count) {
#if ITEM_VEC_WIDTH > 1
        [[unroll]] for (uint v = 0u; v < items_per_invocation / ITEM_VEC_WIDTH; ++v) {
            ITEM_VEC x;
            [[unroll]] for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
                x[c] = items[v * ITEM_VEC_WIDTH + c];
            }
            vectors_out[first / ITEM_VEC_WIDTH + v] = x;
        }
#else
        [[unroll]] for (uint i = 0u; i < items_per_invocation; ++i) {
            items_out[first + i] = items[i];
        }
#endif
    } else {
        [[unroll]] for (uint i = 0u; i < items_per_invocation; ++i) {
            if (first + i < params.count) {
                items_out[first + i] = items[i];
            }
        }
    }
}

// ---- chunks: reduce, and the reproducible scan -------------------------------------------------
// A chunk's tiles: [first_tile_of(chunk), end_tile_of(chunk)); the last chunk may be short.
uint first_tile_of(uint chunk) { return chunk * params.chunk_tiles; }
uint end_tile_of(uint chunk) { return min(first_tile_of(chunk) + params.chunk_tiles, params.tiles); }

#if ITEM_COMMUTATIVE
// Items [begin, end) folded into this invocation's `own`, for operators that commute, where any
// arrangement will do: striped loads, four in flight, one accumulator per invocation.
ITEM_TYPE fold_striped(uint begin, uint end, ITEM_TYPE own) {
    const uint size = VKC_WORKGROUP_SIZE;
#if ITEM_VEC_WIDTH > 1
    uint v = begin / ITEM_VEC_WIDTH + gl_LocalInvocationIndex;
    uint vectors_end = end / ITEM_VEC_WIDTH;
    for (; v + 3u * size < vectors_end; v += 4u * size) {
        ITEM_VEC x0 = vectors_in[v], x1 = vectors_in[v + size], x2 = vectors_in[v + 2u * size],
                 x3 = vectors_in[v + 3u * size];
        [[unroll]] for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
            own = ITEM_COMBINE(own, ITEM_COMBINE(ITEM_COMBINE(ITEM_PREPARE(x0[c]), ITEM_PREPARE(x1[c])),
                                                 ITEM_COMBINE(ITEM_PREPARE(x2[c]), ITEM_PREPARE(x3[c]))));
        }
    }
    for (; v < vectors_end; v += size) {
        ITEM_VEC x = vectors_in[v];
        [[unroll]] for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
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
    return own;
}
#endif

// The work-group's total of every invocation's `own`, already prepared (vkc_workgroup_reduce_ would
// prepare it again, which custom operators' prepare steps need not survive).
ITEM_TYPE workgroup_total(ITEM_TYPE own) {
    ITEM_TYPE before, total;
    VKC_PASTE(vkc_workgroup_scan_core_, ITEM_OP)(own, before, total);
    return total;
}

ITEM_TYPE reduce_chunk(uint chunk) {
    uint tile_begin = first_tile_of(chunk);
    uint tile_end = end_tile_of(chunk);
#if ITEM_COMMUTATIVE
    return workgroup_total(fold_striped(tile_begin * tile_items(), min(tile_end * tile_items(), params.count),
                                        ITEM_IDENTITY));
#else
    // In order: tile by tile, each reduced in the blocked arrangement.
    ITEM_TYPE total = ITEM_IDENTITY;
    for (uint tile = tile_begin; tile < tile_end; ++tile) {
        ITEM_TYPE items[VKC_ITEMS];
        load_tile(tile, items);
        ITEM_TYPE part = VKC_PASTE(vkc_block_reduce_, ITEM_OP)(items);
        total = tile == tile_begin ? part : ITEM_COMBINE(total, part);
    }
    return total;
#endif
}

// MODE_REDUCE over more than one group, where no order of combination changes the result: operators
// that commute, on integers (exact). Each group starts with the piece of its index and takes more
// from a ticket (the next one taken while a piece loads), so groups that run faster take more and
// all finish together. With equal chunks the reduce ended when the slowest group did: on the H100 at
// 2^28 u32 ran at 0.982 of a read with 512 chunks, against 1.010 with 512 groups taking tiles by
// ticket (1.022 of CUB DeviceReduce against 0.994); pieces of two tiles ran at 1.003. Floats keep the
// chunks: a group's total would depend on which pieces it drew, and reduce is reproducible. So do
// shares under TICKET_MIN_SHARE tiles a group, where the next ticket is on the critical path: with
// shares of 4, u32 at 2^23 ran at 0.64 of a read by ticket against 0.75 in chunks (8: 0.82 and 0.81).
// Bounds, for llvmpipe, which ends every loop of an invocation once its loops have taken 65535 turns
// in all (gallivm's loop limiter) and runs groups one after another on one thread: a piece is one
// tile while a group's fair share is at most PIECES_A_SHARE tiles, else a whole fraction of the share,
// and a group takes at most twice its share. Together the groups may take twice the pieces there
// are, so none is left over.
#define REDUCE_BY_TICKET (ITEM_COMMUTATIVE && !ITEM_FLOAT)
#if REDUCE_BY_TICKET
const uint TICKET_MIN_SHARE = 8u;
const uint PIECES_A_SHARE = 256u;
shared uint next_piece[2]; // written by invocation 0 a piece ahead, alternating
// `share`: a group's fair share of the tiles, in tiles.
ITEM_TYPE reduce_by_ticket(uint share) {
    uint groups = params.chunks;
    uint piece_tiles = (share + PIECES_A_SHARE - 1u) / PIECES_A_SHARE;
    uint pieces = (params.tiles + piece_tiles - 1u) / piece_tiles;
    uint most = 2u * ((pieces + groups - 1u) / groups);
    uint held = 2u; // pieces this group has (uniform): its own, and the one drawn here
    if (gl_LocalInvocationIndex == 0u) {
        next_piece[0] = groups + atomicAdd(state[STATE_REDUCE_TICKET], 1u);
    }
    ITEM_TYPE own = ITEM_IDENTITY;
    uint piece = group_index();
    for (uint k = 0u; piece < pieces; ++k) { // uniform: `piece` comes from shared memory
        uint begin = piece * piece_tiles * tile_items();
        own = fold_striped(begin, min(begin + piece_tiles * tile_items(), params.count), own);
        barrier(); // next_piece[k & 1] was written, and next_piece[(k + 1) & 1] read by all, before it
        piece = next_piece[k & 1u];
        if (gl_LocalInvocationIndex == 0u && piece < pieces) {
            next_piece[(k + 1u) & 1u] = held < most ? groups + atomicAdd(state[STATE_REDUCE_TICKET], 1u) : pieces;
        }
        ++held;
    }
    return workgroup_total(own);
}
#endif

// The total of a whole (full) chunk from its input, lean on registers: the look-back's fallback runs
// while a tile is held in registers. Each invocation folds its own consecutive items, then one ordered
// work-group reduce (operators need not commute).
ITEM_TYPE reduce_chunk_input(uint chunk) {
    uint per_invocation = params.chunk_tiles * items_per_invocation;
    uint first = first_tile_of(chunk) * tile_items() + gl_LocalInvocationIndex * per_invocation;
    ITEM_TYPE own = ITEM_PREPARE(items_in[first]);
    for (uint i = 1u; i < per_invocation; ++i) {
        own = ITEM_COMBINE(own, ITEM_PREPARE(items_in[first + i]));
    }
    return workgroup_total(own);
}

// ---- the look-back: the whole work-group, in rounds ------------------------------------------------
// Each round the last invocations read one predecessor's status each (invocation m the one at
// distance size-1-m from the nearest chunk not yet folded, so that invocation order is chunk order),
// the nearest entry that is not an aggregate is found through shared memory, and one work-group
// reduce folds the aggregates in front of it (and it too, if it is an inclusive prefix). A round reads
// a window of chunks (chosen by the host); once it meets a silent one, rounds poll that chunk alone
// until it posts. Status lines are hot (every chunk in flight reads its predecessors'), and on the
// H100 polling a whole window at once cost more than a third of the speed. Folding a round's window
// in the last subgroup alone (one barrier a round instead of three) made rounds faster and scans
// slower on the H200: u32 0.806 -> 0.781 of a copy at 2^28, u64 0.694 -> 0.657 (f32 0.775 -> 0.79).
// Control flow is uniform across the work-group throughout (every decision comes from shared memory
// after a barrier), so no invocation spins alone and nothing relies on a subgroup staying converged
// in a loop (Vulkan promises that only with VK_KHR_shader_maximal_reconvergence; NVIDIA's driver
// split a subgroup-wide polling loop and folded garbage).
// Window flags, double-buffered by round parity (indexed by distance); `window_cut` holds the distance of the nearest entry
// that is not an aggregate, by shared atomicMin, in three slots in rotation, each reset two rounds
// before it is used again (scan_look_back resets all three first).
const uint STATUS_UNREAD = 3u; // past this round's reach
shared uint window_flags[2u * scratch_capacity];
shared uint window_cut[3];
shared uint recheck_flag;
shared ITEM_TYPE recheck_value;

// With FLAG_STATS: a look-back's rounds, the chunks it walked back over and its fallbacks, summed.
void count_look_back(uint rounds, uint walked, uint fallbacks) {
    if (has_flag(FLAG_STATS) && gl_LocalInvocationIndex == 0u) {
        atomicAdd(state[STATE_STAT_ROUNDS], rounds);
        atomicAdd(state[STATE_STAT_WALKED], walked);
        atomicAdd(state[STATE_STAT_FALLBACKS], fallbacks);
    }
}

// What a look-back reads for the entry `mine` chunks from the start: a chunk's status, or before chunk
// 0 the carry in as an inclusive prefix, and past that nothing (STATUS_UNREAD).
void read_entry(uint chunk, int mine, out uint flag, out ITEM_TYPE value) {
    flag = STATUS_UNREAD;
    value = ITEM_IDENTITY;
    if (mine >= 0) {
        read_status(uint(mine), 0u, flag, value);
        flag = has_flag(FLAG_FORCE_FALLBACK) && mine == int(chunk) - 1 ? STATUS_NONE : flag;
    } else if (mine == -1) {
        flag = STATUS_PREFIX;
        value = carry_in();
    }
}

uint look_back_window() { return clamp(params.spin_limit >> 16u, 1u, VKC_WORKGROUP_SIZE); }
uint look_back_distance() { return VKC_WORKGROUP_SIZE - 1u - gl_LocalInvocationIndex; }

// Prefetch while looking back (FLAG_PREFETCH): a work-group in its look-back holds its chunk's registers
// and has no load in flight. Each round its invocations load one word of every 32 bytes (a sector) of
// a chunk just past the frontier (the tickets taken so far), a work-group's width of sectors a round
// through that chunk, so that DRAM fills L2 with input a chunk about to start will read. A round's load
// is folded into prefetch_sink in the next round, so that no round waits for it, and the sink is read
// (in a test that never passes) once the look-back is over. Chunks that read the same frontier take
// different chunks past it: the frontier plus their own index modulo PREFETCH_SPREAD.
// H100, 2^28 items, / copy, without and with it in one call (results/README.md): u64 0.823 -> 0.847,
// f64 0.806 -> 0.834, f32 0.890 -> 0.907. A fixed distance (the chunk 8 MiB ahead of one's own) did
// about as well for u64 (0.838 to 0.844) and better for f32 (0.912 to 0.915), but the best distance
// follows the L2's size, which Vulkan does not report, and 32 MiB ahead cost u64 a tenth.
// Compiled only where measured to gain: the 64-bit types' chunked path (their single tiles are for small
// scans). Into u32's raked tile it brought registers from 56 to 72 (0.870 of a copy without the flag,
// 0.894 with, against 0.908 without the code). f32 took it until chunk statuses had slots of their own
// (STATUS_SLOT); since then f32 ran at 0.946 of a copy without the flag against 0.922 to 0.925 with it,
// and u64 at 0.864 with it against 0.855.
const bool LOOK_BACK_PREFETCH = ITEM_BYTES == 8 && compiled_path != PATH_LOOK_BACK;
const uint PREFETCH_SPREAD = 64u;
uint prefetch_sink = 0u;

// Where a look-back starts: nothing folded yet, or what look_back_first_round folded.
struct LookBackStart {
    ITEM_TYPE acc; // op over chunks (nearest, chunk), where `have`; the exclusive prefix, where `found`
    bool have;
    bool found;    // the first round met an inclusive prefix: no look-back is left to do
    int nearest;   // the nearest chunk not yet folded in
    uint round;    // the next round (window_flags and window_cut rotate by it)
};
LookBackStart look_back_begin(uint chunk) { return LookBackStart(ITEM_IDENTITY, false, false, int(chunk) - 1, 0u); }

// The look-back's first round alone, for a tile whose own loads are still in flight (scan_tile_raked):
// one window of predecessors read, the aggregates in front of the nearest other entry folded, and an
// inclusive prefix there folded too. start.found: it met one, and start.acc is the exclusive prefix;
// else `start` is where look_back goes on (polling and the fallback are look_back's). Uniform.
void look_back_first_round(uint chunk, out LookBackStart start) {
    const uint window = look_back_window();
    const uint distance = look_back_distance();
    start = look_back_begin(chunk);
    start.round = 1u;
    uint flag = STATUS_UNREAD;
    ITEM_TYPE value = ITEM_IDENTITY;
    if (distance < window) {
        read_entry(chunk, start.nearest - int(distance), flag, value);
        window_flags[distance] = flag; // round 0's half
        if (flag != STATUS_AGGREGATE) {
            atomicMin(window_cut[0], distance);
        }
    }
    barrier();
    uint cut = min(window_cut[0], window);
    uint cut_flag = cut < window ? window_flags[cut] : STATUS_UNREAD;
    if (gl_LocalInvocationIndex == 0u) {
        window_cut[2] = VKC_WORKGROUP_SIZE; // as round 0 of look_back would
    }
    uint folded = cut_flag == STATUS_PREFIX ? cut + 1u : cut;
    if (folded > 0u) { // uniform
        ITEM_TYPE unused;
        VKC_PASTE(vkc_workgroup_scan_core_, ITEM_OP)(distance < folded ? value : ITEM_IDENTITY, unused, start.acc);
        start.have = true;
        start.nearest -= int(folded);
    }
    start.found = cut_flag == STATUS_PREFIX;
    if (start.found) {
        count_look_back(1u, chunk - 1u - uint(start.nearest), 0u);
    }
}

// The exclusive prefix of `chunk` (> 0), in every invocation: op over every earlier chunk, and the carry
// in; from `start`, where look_back_first_round has taken the first round, else look_back_begin(chunk).
ITEM_TYPE look_back(uint chunk, LookBackStart start) {
    const uint window = look_back_window();
    const uint spin_limit = params.spin_limit & 0xffffu;
    const uint distance = look_back_distance();
    bool forced = has_flag(FLAG_FORCE_FALLBACK);
    bool have = start.have;
    ITEM_TYPE acc = start.acc; // op over chunks (nearest, chunk)
    int nearest = start.nearest; // the nearest chunk not yet folded in
    uint reach = window;            // chunks read this round: the window, or 1 while polling a silent one
    uint polls = 0u, fallbacks = 0u;
    // Every round either folds in at least one chunk or polls (at most spin_limit times for one silent
    // chunk), so this bound is never reached by a correct run; it guarantees the loop ends whatever the
    // device does, and past it the prefix is computed from the input outright.
    const uint max_rounds = (chunk + 1u) * (spin_limit + 2u);
    const uint sector_items = 32u / ITEM_BYTES;
    const bool prefetch = LOOK_BACK_PREFETCH && has_flag(FLAG_PREFETCH);
    uint prefetch_first = params.count; // the prefetched chunk's first item; the count: none
    if (prefetch) {
        // (the count wraps to 0 once the last ticket is taken: then no chunk is left to start)
        uint taken = atomicLoad(state[STATE_TICKET], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed) &
                     TICKET_COUNT;
        uint target = taken + chunk % PREFETCH_SPREAD;
        if (taken > chunk && target < params.chunks) {
            prefetch_first = first_tile_of(target) * tile_items();
        }
    }
    uint prefetch_pending = 0u;
    for (uint round = start.round; round < max_rounds; ++round) {
        // The prefetch from the second round on: in the first its address would wait for the ticket's
        // read, and the status reads behind it (which cost f32 scans of 2^16 items 6 % on the H100).
        prefetch_sink ^= prefetch_pending;
        uint sectors_before = (round - start.round - 1u) * VKC_WORKGROUP_SIZE; // of the chunk, by earlier rounds
        uint at = prefetch_first + (sectors_before + gl_LocalInvocationIndex) * sector_items;
        bool in_chunk = round > start.round && sectors_before * sector_items < params.chunk_tiles * tile_items();
        prefetch_pending = prefetch && in_chunk && at < params.count ? to_bits(items_in[at]).x : 0u;
        uint half_at = (round & 1u) * VKC_WORKGROUP_SIZE;
        uint slot = round % 3u;
        int mine = nearest - int(distance);
        uint flag = STATUS_UNREAD;
        ITEM_TYPE value = ITEM_IDENTITY;
        if (distance < reach) {
            read_entry(chunk, mine, flag, value);
            window_flags[half_at + distance] = flag;
            if (flag != STATUS_AGGREGATE) {
                atomicMin(window_cut[slot], distance);
            }
        }
        barrier();
        uint cut = min(window_cut[slot], reach); // == reach: every entry read was an aggregate
        uint cut_flag = cut < reach ? window_flags[half_at + cut] : STATUS_UNREAD;
        if (gl_LocalInvocationIndex == 0u) {
            window_cut[(round + 2u) % 3u] = VKC_WORKGROUP_SIZE;
        }
        // Entries nearer than the cut are aggregates, and an inclusive prefix at the cut ends the walk:
        // they go in, in chunk order, whatever happens next.
        uint folded = cut_flag == STATUS_PREFIX ? cut + 1u : cut;
        if (folded > 0u) { // uniform
            ITEM_TYPE part, unused;
            VKC_PASTE(vkc_workgroup_scan_core_, ITEM_OP)(distance < folded ? value : ITEM_IDENTITY, unused, part);
            acc = have ? ITEM_COMBINE(part, acc) : part;
            have = true;
            nearest -= int(folded);
            polls = 0u;
        }
        if (cut_flag == STATUS_PREFIX) {
            count_look_back(round + 1u, chunk - 1u - uint(nearest), fallbacks);
            return acc;
        }
        if (cut_flag == STATUS_UNREAD) {
            reach = window;
            continue;
        }
        // nearest is now the silent chunk: poll it alone.
        reach = 1u;
        if (polls < spin_limit && !(forced && nearest == int(chunk) - 1)) {
            ++polls; // (a back-off between polls, as CUB sleeps, measured no faster on the H200)
            continue;
        }
        // The fallback: compute the silent chunk's total ourselves.
        uint lost = uint(nearest);
        ITEM_TYPE computed = reduce_chunk_input(lost);
        ++fallbacks;
        if (has_flag(FLAG_IN_PLACE)) {
            // In place, the chunk may have posted and overwritten its input while we read it. It
            // posts before it stores (the device-scope barrier in chunk_prefix), so if any item read
            // was overwritten, a status read after the items (through `computed`, which every item
            // feeds) shows the post, and the posted value wins.
            if (gl_LocalInvocationIndex == 0u) {
                read_status(lost, to_bits(computed).x, recheck_flag, recheck_value);
            }
            barrier();
            uint again = recheck_flag;
            ITEM_TYPE posted = recheck_value;
            barrier(); // read before a later round writes them
            if (again == STATUS_PREFIX) {
                count_look_back(round + 1u, chunk - lost, fallbacks);
                return have ? ITEM_COMBINE(posted, acc) : posted;
            }
            if (again == STATUS_AGGREGATE) {
                computed = posted;
            }
        }
        acc = have ? ITEM_COMBINE(computed, acc) : computed;
        have = true;
        nearest = int(lost) - 1;
        reach = window;
        polls = 0u;
    }
    // Not reached in a correct run (see max_rounds): op over the input before this chunk, and the carry.
    ITEM_TYPE all = carry_in();
    bool started = carry_in_present();
    for (uint t = 0u; t < chunk; ++t) {
        ITEM_TYPE part = reduce_chunk_input(t);
        all = started ? ITEM_COMBINE(all, part) : part;
        started = true;
    }
    return all;
}

// The chunk's aggregate, for its successors' look-backs. Chunk 0 posts its inclusive prefix at once,
// and the last chunk posts nothing: no successor reads it (and a lone chunk leaves the state untouched).
void post_aggregate(uint chunk, ITEM_TYPE aggregate) {
    bool last = chunk == params.chunks - 1u;
    if (chunk > 0u && !last && gl_LocalInvocationIndex == 0u) {
        post(chunk, STATUS_AGGREGATE, aggregate);
    }
}

// Post the aggregate, look back, post the inclusive prefix; returns the chunk's exclusive prefix in
// every invocation, with `seeded` false where there is none (chunk 0 without a carry in). Uniform.
// `start`: where the look-back starts (look_back_begin, or look_back_first_round's result, which may
// have found the prefix already); `aggregate_posted`: the caller has posted it, or had no need to.
ITEM_TYPE chunk_prefix(uint chunk, ITEM_TYPE aggregate, LookBackStart start, bool aggregate_posted,
                       out bool seeded) {
    bool last = chunk == params.chunks - 1u;
    seeded = chunk > 0u || carry_in_present();
    if (!aggregate_posted) {
        post_aggregate(chunk, aggregate);
    }
    ITEM_TYPE exclusive = chunk == 0u ? carry_in() : start.found ? start.acc : look_back(chunk, start);
    if (LOOK_BACK_PREFETCH && params.zero != 0u && prefetch_sink == params.zero) { // never (zero is 0): keeps the prefetches
        state[STATE_PREFETCH_SINK] = prefetch_sink;
    }
    if (gl_LocalInvocationIndex == 0u) {
        ITEM_TYPE inclusive = seeded ? ITEM_COMBINE(exclusive, aggregate) : aggregate;
        if (last) {
            write_pair(carry_out_at(), inclusive);
        } else {
            post(chunk, STATUS_PREFIX, inclusive);
        }
    }
    if (has_flag(FLAG_IN_PLACE)) {
        // The chunk's posts (by invocation 0) happen before any invocation overwrites its input, so
        // a look-back that read overwritten items finds the post when it reads the status again.
        controlBarrier(gl_ScopeWorkgroup, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
    }
    return exclusive;
}

// ---- the look-back scan's tiles ------------------------------------------------------------------

// Subgroup modules: each subgroup takes a contiguous part of the tile and walks it in rounds of one
// vector a lane (neighbouring lanes, neighbouring vectors: every load and store coalesced, no
// shared-memory transpose). A lane scans its vector in registers, a subgroup scan joins the lanes,
// a running total joins the rounds, and shared memory joins the subgroups. Needs subgroups packed
// in local-index order and whole subgroups, which the host checks before it picks a subgroup module
// (and rounds the work-group size to).
// Items of 8 bytes (64-bit types and the uvec2 custom operators) take the blocked arrangement instead
// (RAKED_TILES 0): each round here costs a subgroup scan over two items a lane, or one, and a 64-bit
// subgroup scan is two shuffles a step. On the H100 the blocked tile ran the u64 scan at 0.495 of a
// copy against 0.46 raked, and f64 at 0.55 against 0.485 (results/README.md). Raked with the early
// look-back round and aggregate of the 32-bit tiles, 64-bit tiles of 16 items ran at 0.42 to 0.44 of
// a copy at 2^28 on the H200, against 0.69 for the chunks of four staged tiles that large scans take.
#define RAKED_TILES (VKC_SUBGROUP_ARITHMETIC && ITEM_BYTES <= 4)
#if RAKED_TILES
#if ITEM_VEC_WIDTH > 1
#define VEC_AT(v, c) v[c]
ITEM_VEC load_vector(uint at) { return vectors_in[at]; }
void store_vector(uint at, ITEM_VEC x) { vectors_out[at] = x; }
#else
#define VEC_AT(v, c) v
ITEM_VEC load_vector(uint at) { return items_in[at]; }
void store_vector(uint at, ITEM_VEC x) { items_out[at] = x; }
#endif
shared ITEM_TYPE subgroup_totals[scratch_capacity];

// What comes before a lane in round r of its subgroup's part: the earlier rounds (`rounds_before`),
// then the earlier lanes of this round.
ITEM_TYPE join_lanes_before(uint r, uint lane, ITEM_TYPE rounds_before, ITEM_TYPE lane_total) {
#if VKC_SUBGROUP_SHUFFLE_RELATIVE
    ITEM_TYPE lanes_before = subgroupShuffleUp(ITEM_SUBGROUP_INCLUSIVE(lane_total), 1u); // outside the select:
    lanes_before = lane == 0u ? ITEM_IDENTITY : lanes_before; // GLSL evaluates one side of ?: only
#else
    ITEM_TYPE lanes_before = ITEM_SUBGROUP_EXCLUSIVE(lane_total);
#endif
    return r == 0u ? lanes_before : lane == 0u ? rounds_before : ITEM_COMBINE(rounds_before, lanes_before);
}

// 32-bit items post the tile's aggregate before the lanes' subgroup scans, which wait until after the
// look-back: the aggregate needs only the rounds' subgroup reduces (a single instruction for 32-bit
// integer add, min, max and the bitwise ops on NVIDIA), and successors read it sooner. On the H100
// the u32 add scan ran at 0.755 of a copy against 0.737 at 2^28. f32 (whose subgroup reduce is a
// shuffle tree) first fell with it, 0.714 to 0.674; once the look-back pipeline compiled its path
// alone, the driver gave f32 without it 32 registers and spills (0.35), with it 56 and none (0.76).
#define EARLY_AGGREGATE (ITEM_BYTES == 4)

// With EARLY_AGGREGATE: each round's earlier rounds (before_lane) joined with this round's earlier lanes.
void join_rounds(uint lane, ITEM_VEC v[VKC_ITEMS / ITEM_VEC_WIDTH], inout ITEM_TYPE before_lane[VKC_ITEMS / ITEM_VEC_WIDTH]) {
    [[unroll]] for (uint r = 0u; r < items_per_invocation / ITEM_VEC_WIDTH; ++r) {
        before_lane[r] = join_lanes_before(r, lane, before_lane[r], VEC_AT(v[r], ITEM_VEC_WIDTH - 1u));
    }
}

// The early look-back round's result, parked in shared memory while the tile is scanned: held in
// registers instead, it took the u32 224 x 32 tile from 56 registers to 70 (4 work-groups an SM
// instead of 5) and ran at 0.871 of a copy at 2^28 against 0.906 (H100, same call).
shared LookBackStart early_look_back_start;
void scan_tile_raked(uint tile) {
    const uint lane = gl_SubgroupInvocationID, lanes = gl_SubgroupSize, subgroup = gl_SubgroupID;
    const uint rounds = items_per_invocation / ITEM_VEC_WIDTH;
    const uint first_vector = (tile * tile_items() + subgroup * lanes * items_per_invocation) / ITEM_VEC_WIDTH;
    const bool full = tile_full(tile); // uniform
    ITEM_VEC v[VKC_ITEMS / ITEM_VEC_WIDTH];
    [[unroll]] for (uint r = 0u; r < rounds; ++r) {
        uint at = first_vector + r * lanes + lane;
        if (full) {
            v[r] = load_vector(at);
        } else {
            // The last, partial tile: items past the count take the identity and are not written.
            [[unroll]] for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
                uint i = at * ITEM_VEC_WIDTH + c;
                VEC_AT(v[r], c) = i < params.count ? items_in[i] : ITEM_IDENTITY;
            }
        }
    }
    // Tiles of 8 rounds or more (the wide tiles of large scans) take the look-back's first round now,
    // while the loads above are in flight, before there is an aggregate to post: what predecessors
    // have posted by then is folded in, and a tile that finds an inclusive prefix posts its own at
    // once, with no aggregate and no rounds after its loads. Successors then find prefixes nearer and
    // walk back less. On the H100 at 2^28 this took u32 224 x 32 tiles from 0.815 of a copy to 0.87
    // and f32 160 x 32 from 0.793 to 0.857 (two early rounds: u32 0.857; four: 0.792); the 256 x 16
    // tiles of smaller scans lost with it (u32 at 2^20 0.405 -> 0.370), and so did the 64-bit chunks
    // held in registers (u64 at 2^28 0.829 -> 0.753), so they look back after posting their aggregate.
    // The first round is its own function, not a pass of look_back's loop: a shared loop cost f64's
    // chunked look-back 6 registers (122 -> 128) and a tenth of its speed (results/README.md), and a
    // round function that both call took this u32 tile from 56 registers to 70 (H200, 2^28: 0.806 ->
    // 0.758 of a copy), so the two keep their own copies of the round.
    const bool early_look_back = EARLY_AGGREGATE && rounds >= 8u;
    const bool first_round_taken = early_look_back && tile > 0u; // tile 0 has no predecessor to read
    if (first_round_taken) {
        LookBackStart first_round;
        look_back_first_round(tile, first_round);
        if (gl_LocalInvocationIndex == 0u) {
            early_look_back_start = first_round;
        }
    }
    // Per round: the lane's vector scanned in place (inclusive), and what comes before the lane
    // within the subgroup's part: earlier rounds, then earlier lanes of this round.
    ITEM_TYPE before_lane[VKC_ITEMS / ITEM_VEC_WIDTH];
    ITEM_TYPE running = ITEM_IDENTITY; // op over the subgroup's earlier rounds
    [[unroll]] for (uint r = 0u; r < rounds; ++r) {
        VEC_AT(v[r], 0) = ITEM_PREPARE(VEC_AT(v[r], 0));
        [[unroll]] for (uint c = 1u; c < ITEM_VEC_WIDTH; ++c) {
            VEC_AT(v[r], c) = ITEM_COMBINE(VEC_AT(v[r], c - 1u), ITEM_PREPARE(VEC_AT(v[r], c)));
        }
        ITEM_TYPE lane_total = VEC_AT(v[r], ITEM_VEC_WIDTH - 1u);
#if EARLY_AGGREGATE
        before_lane[r] = running; // the earlier rounds only: the lanes come in after the look-back
#else
        before_lane[r] = join_lanes_before(r, lane, running, lane_total);
#endif
        ITEM_TYPE round_total = ITEM_SUBGROUP_TOTAL(lane_total);
        running = r == 0u ? round_total : ITEM_COMBINE(running, round_total);
    }
    // Subgroup totals through shared memory: each invocation folds the earlier subgroups' totals
    // (its subgroup's prefix) and all of them (the tile's aggregate).
    if (lane == 0u) {
        subgroup_totals[subgroup] = running;
    }
    barrier();
    // (after that barrier: the first round's result, uniform, comes back from shared memory)
    LookBackStart start = first_round_taken ? early_look_back_start : look_back_begin(tile);
    ITEM_TYPE aggregate = subgroup_totals[0], before_subgroup = aggregate;
    const uint subgroups = VKC_WORKGROUP_SIZE / lanes; // (Mesa 22's gl_NumSubgroups predates specialisation)
    for (uint s = 1u; s < subgroups; ++s) {
        before_subgroup = s == subgroup ? aggregate : before_subgroup;
        aggregate = ITEM_COMBINE(aggregate, subgroup_totals[s]);
    }
    // A tile that looked back early posts its aggregate (unless it has its prefix already) before the
    // lanes' scans, which then run while the look-back's reads are in flight.
    if (early_look_back) {
        if (!start.found) {
            post_aggregate(tile, aggregate);
        }
        join_rounds(lane, v, before_lane);
    }
    bool seeded;
    ITEM_TYPE prefix = chunk_prefix(tile, aggregate, start, early_look_back, seeded);
    if (subgroup > 0u) {
        prefix = seeded ? ITEM_COMBINE(prefix, before_subgroup) : before_subgroup;
        seeded = true;
    }
    if (EARLY_AGGREGATE && !early_look_back) {
        join_rounds(lane, v, before_lane);
    }
    bool inclusive = !has_flag(FLAG_EXCLUSIVE);
    [[unroll]] for (uint r = 0u; r < rounds; ++r) {
        bool lane_seeded = seeded || r > 0u || lane > 0u;
        ITEM_TYPE seed = !seeded ? before_lane[r] : r == 0u && lane == 0u ? prefix
                                                                           : ITEM_COMBINE(prefix, before_lane[r]);
        ITEM_VEC x = v[r];
        [[unroll]] for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
            ITEM_TYPE through = lane_seeded ? ITEM_COMBINE(seed, VEC_AT(v[r], c)) : VEC_AT(v[r], c);
            ITEM_TYPE upto = c == 0u ? (lane_seeded ? seed : ITEM_IDENTITY)
                                     : (lane_seeded ? ITEM_COMBINE(seed, VEC_AT(v[r], c - 1u)) : VEC_AT(v[r], c - 1u));
            VEC_AT(x, c) = inclusive ? through : upto;
        }
        uint at = first_vector + r * lanes + lane;
        if (full) {
            store_vector(at, x);
        } else {
            [[unroll]] for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
                uint i = at * ITEM_VEC_WIDTH + c;
                if (i < params.count) {
                    items_out[i] = VEC_AT(x, c);
                }
            }
        }
    }
}
#else
// The blocked arrangement and the block scan, then the prefix in front.
void scan_tile_blocked(uint tile) {
    ITEM_TYPE items[VKC_ITEMS];
    load_tile(tile, items);
    ITEM_TYPE aggregate, unused;
    VKC_PASTE(vkc_block_scan_core_, ITEM_OP)(items, !has_flag(FLAG_EXCLUSIVE), VKC_PREFIX_NONE, ITEM_IDENTITY,
                                             aggregate, unused);
    bool seeded;
    ITEM_TYPE prefix = chunk_prefix(tile, aggregate, look_back_begin(tile), false, seeded);
    if (seeded) {
        [[unroll]] for (uint i = 0u; i < items_per_invocation; ++i) {
            items[i] = ITEM_COMBINE(prefix, items[i]);
        }
    }
    store_tile(tile, items);
}
#endif

// A tile of a chunk, loaded: scanned, seeded with what came before it in the chunk, and stored.
void scan_loaded_tile(uint tile, inout ITEM_TYPE items[VKC_ITEMS], inout ITEM_TYPE running, inout bool seeded) {
    ITEM_TYPE aggregate, prefix;
    VKC_PASTE(vkc_block_scan_core_, ITEM_OP)(items, !has_flag(FLAG_EXCLUSIVE),
                                             seeded ? VKC_PREFIX_UNIFORM : VKC_PREFIX_NONE, running,
                                             aggregate, prefix);
    running = seeded ? ITEM_COMBINE(running, aggregate) : aggregate;
    seeded = true;
    store_tile(tile, items);
}
// A chunk's tiles in turn from memory, in the blocked arrangement, seeded with the chunk's
// exclusive prefix (MODE_SCAN_CHUNKS, and MODE_SCAN's chunks of more than one tile).
// MODE_SCAN's full chunks fetch their first tile's vectors before the look-back (scan_chunk_twice)
// and take a loop of their own. On the H100 at 2^28 the u64 chunked scan ran at 0.716 of a copy with
// it; every tile through one loop with a fetched-flag parameter ran at 0.655, and the first tile
// peeled off in front of the one shared loop at 0.703 (f64 0.697 against 0.690). Why, we have not
// found.
#if ITEM_VEC_WIDTH > 1
ITEM_VEC first_tile_vectors[VKC_ITEMS / ITEM_VEC_WIDTH];
#endif
bool first_tile_fetched(uint chunk) { return runs_look_back() && staged && tile_full(end_tile_of(chunk) - 1u); }
void scan_chunk_tiles(uint chunk, ITEM_TYPE running, bool seeded) {
#if ITEM_VEC_WIDTH > 1
    if (first_tile_fetched(chunk)) { // uniform
        for (uint tile = first_tile_of(chunk); tile < end_tile_of(chunk); ++tile) {
            ITEM_TYPE items[VKC_ITEMS];
            if (tile == first_tile_of(chunk)) {
                unpack_tile(first_tile_vectors, items);
            } else {
                load_tile(tile, items);
            }
            scan_loaded_tile(tile, items, running, seeded);
        }
        return;
    }
#endif
    for (uint tile = first_tile_of(chunk); tile < end_tile_of(chunk); ++tile) {
        ITEM_TYPE items[VKC_ITEMS];
        load_tile(tile, items);
        scan_loaded_tile(tile, items, running, seeded);
    }
}

// A chunk of several tiles (past REGISTER_CHUNK_TILES, partial or not staged): reduced from memory,
// then read again and scanned. The second read comes soon after the first, mostly from L2, and a full
// chunk's first tile's loads go out before the look-back, whose wait they then overlap: on the H100
// at 2^28 that took u64 from 0.689 of a copy to 0.716 and f64 from 0.680 to 0.696 (prefetching each
// further tile while the one before is scanned as well cost more registers than it gained: 0.714 and
// 0.684; results/README.md).
void scan_chunk_twice(uint chunk) {
    ITEM_TYPE total = reduce_chunk(chunk);
#if ITEM_VEC_WIDTH > 1
    if (first_tile_fetched(chunk)) { // uniform
        fetch_tile(first_tile_of(chunk), first_tile_vectors);
    }
#endif
    bool seeded;
    ITEM_TYPE prefix = chunk_prefix(chunk, total, look_back_begin(chunk), false, seeded);
    scan_chunk_tiles(chunk, prefix, seeded);
}

// Full staged chunks of up to REGISTER_CHUNK_TILES tiles stay in registers through the look-back
// instead: every tile's loads go out at once, each tile is scanned on its own, the chunk posts its
// aggregate, looks back, and seeds and stores its tiles; one read of the input. On the H100 at 2^28,
// chunks of 4 tiles of 256 x 8 ran u64 at 0.81 of a copy against 0.716 read twice, f64 at 0.78
// against 0.698, at 124 registers (chunks of 3: 0.74; of 2: 0.54). The tiles are separate arrays:
// as an array of arrays NVIDIA's compiler kept them in local memory (2 KiB), at 0.14 of a copy.
// Joining the four tiles' scans with one barrier (each item combined once, after the look-back) took
// 130 to 132 registers, past the 128 at which two work-groups fit an SM: 0.40 of a copy on the H200.
// Commutative operators post the aggregate as soon as the loads land, folded from the fetched vectors
// in any order, and scan the tiles after that, before the look-back: successors, whose look-backs
// mostly wait for a predecessor's aggregate, read it a chunk's four unpacks and scans sooner. On the
// H100 at 2^28 u64 ran at 0.932 of a copy against 0.862, f64 at 0.934 against 0.857 (u64 at 128
// registers, against 122). For floats the posted aggregate may differ in its last bits from the
// chunk's scanned total, which its inclusive prefix takes: both are sums of the same items, which is
// all the default mode promises. Posted straight after the loads with the tiles scanned after the
// look-back instead, the aggregate ran at 0.55 against 0.69 (H200).
const uint REGISTER_CHUNK_TILES = 4u; // vkc::look_back_register_chunk_tiles
#if ITEM_VEC_WIDTH > 1
bool chunk_in_registers(uint chunk) {
    return staged && end_tile_of(chunk) - first_tile_of(chunk) <= REGISTER_CHUNK_TILES &&
           tile_full(end_tile_of(chunk) - 1u);
}
// Tile `first` or a later one of the chunk (`total`: op over the chunk's tiles before it, `before`
// receives that), moved from its fetched vectors into the blocked arrangement and scanned.
void unpack_and_scan(ITEM_VEC x[VKC_ITEMS / ITEM_VEC_WIDTH], inout ITEM_TYPE items[VKC_ITEMS], bool first,
                     inout ITEM_TYPE total, out ITEM_TYPE before) {
    unpack_tile(x, items);
    ITEM_TYPE aggregate, unused;
    VKC_PASTE(vkc_block_scan_core_, ITEM_OP)(items, !has_flag(FLAG_EXCLUSIVE), VKC_PREFIX_NONE, ITEM_IDENTITY,
                                             aggregate, unused);
    before = total;
    total = first ? aggregate : ITEM_COMBINE(total, aggregate);
}
// A scanned tile seeded with the chunk's exclusive prefix and the chunk's tiles before it, and stored.
void seed_and_store(uint tile, inout ITEM_TYPE items[VKC_ITEMS], bool first, ITEM_TYPE prefix, bool seeded,
                    ITEM_TYPE before) {
    ITEM_TYPE seed = first ? prefix : seeded ? ITEM_COMBINE(prefix, before) : before;
    if (seeded || !first) {
        [[unroll]] for (uint i = 0u; i < items_per_invocation; ++i) {
            items[i] = ITEM_COMBINE(seed, items[i]);
        }
    }
    store_tile(tile, items);
}
void scan_chunk_in_registers(uint chunk) {
    uint t = first_tile_of(chunk);
    uint tiles = end_tile_of(chunk) - t; // uniform
    ITEM_VEC x0[VKC_ITEMS / ITEM_VEC_WIDTH], x1[VKC_ITEMS / ITEM_VEC_WIDTH], x2[VKC_ITEMS / ITEM_VEC_WIDTH],
        x3[VKC_ITEMS / ITEM_VEC_WIDTH];
    ITEM_TYPE i0[VKC_ITEMS], i1[VKC_ITEMS], i2[VKC_ITEMS], i3[VKC_ITEMS];
    ITEM_TYPE b0, b1, b2, b3, total = ITEM_IDENTITY;
    fetch_tile(t, x0);
    if (tiles > 1u) fetch_tile(t + 1u, x1);
    if (tiles > 2u) fetch_tile(t + 2u, x2);
    if (tiles > 3u) fetch_tile(t + 3u, x3);
#if ITEM_COMMUTATIVE
    // A chunk of fewer tiles is the last one, which posts no aggregate.
    bool aggregate_posted = tiles == REGISTER_CHUNK_TILES; // uniform
    if (aggregate_posted) {
        ITEM_TYPE own = ITEM_IDENTITY;
        [[unroll]] for (uint j = 0u; j < items_per_invocation / ITEM_VEC_WIDTH; ++j) {
            [[unroll]] for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
                own = ITEM_COMBINE(own, ITEM_COMBINE(ITEM_COMBINE(ITEM_PREPARE(x0[j][c]), ITEM_PREPARE(x1[j][c])),
                                                     ITEM_COMBINE(ITEM_PREPARE(x2[j][c]), ITEM_PREPARE(x3[j][c]))));
            }
        }
        post_aggregate(chunk, workgroup_total(own));
    }
#else
    const bool aggregate_posted = false;
#endif
    unpack_and_scan(x0, i0, true, total, b0);
    if (tiles > 1u) unpack_and_scan(x1, i1, false, total, b1);
    if (tiles > 2u) unpack_and_scan(x2, i2, false, total, b2);
    if (tiles > 3u) unpack_and_scan(x3, i3, false, total, b3);
    bool seeded;
    ITEM_TYPE prefix = chunk_prefix(chunk, total, look_back_begin(chunk), aggregate_posted, seeded);
    seed_and_store(t, i0, true, prefix, seeded, b0);
    if (tiles > 1u) seed_and_store(t + 1u, i1, false, prefix, seeded, b1);
    if (tiles > 2u) seed_and_store(t + 2u, i2, false, prefix, seeded, b2);
    if (tiles > 3u) seed_and_store(t + 3u, i3, false, prefix, seeded, b3);
}
#endif

// One chunk a work-group. Work-groups that loop over tickets, taking the next ticket and loading its
// tile before this tile's look-back, ran at half the speed on the H100 (a taken ticket whose tile
// waits for its group's current one holds up every later tile's look-back).
void scan_look_back() {
    if (group_index() >= params.chunks) {
        return; // a spare group of a 2D grid: it takes no ticket (uniform)
    }
    const bool chained = params.chunks > 1u; // a lone chunk takes no ticket and touches no state
    if (gl_LocalInvocationIndex == 0u) {
        // Chunks in the order groups start, not by ID. Both dirty counts are read beside the ticket
        // (the parity is not known before it), so the read adds no trip to L2.
        uint dirty0 = 0u, dirty1 = 0u, chunk = 0u, parity = 0u;
        if (chained) {
            dirty0 = atomicLoad(state[STATE_DIRTY], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
            dirty1 = atomicLoad(state[STATE_DIRTY + 1u], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
            uint taken = atomicAdd(state[STATE_TICKET], 1u);
            chunk = taken & TICKET_COUNT;
            parity = taken >> 31u;
            if (chunk == params.chunks - 1u) {
                // Every ticket is taken: the next dispatch counts from zero, in the other array.
                atomicStore(state[STATE_TICKET], (parity ^ 1u) << 31u, gl_ScopeDevice, gl_StorageSemanticsBuffer,
                            gl_SemanticsRelaxed);
            }
            if (chunk == 0u) {
                atomicStore(state[STATE_DIRTY + parity], params.chunks * STATUS_SLOT, gl_ScopeDevice,
                            gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
            }
        }
        ticket = chunk;
        ticket_parity = parity;
        other_dirty = parity == 0u ? dirty1 : dirty0;
        for (uint k = 0u; k < 3u; ++k) {
            window_cut[k] = VKC_WORKGROUP_SIZE;
        }
    }
    barrier();
    uint chunk = ticket;
    if (chunk >= params.chunks) {
        return; // only where the state was not zeroed as the host promised: nothing is written
    }
    if (chained) {
        // The previous dispatch's posts in the other array, zeroed for the next dispatch (nothing in
        // this one reads them): stripes of the work-group's width, the chunk's own and every
        // params.chunks-th after it. First, so that nothing is held in registers for it through the
        // tile; bounded by the binding, so a state not zeroed as promised cannot send them past it.
        uint parity = ticket_parity ^ 1u;
        uint words = min(other_dirty, uint(state.length()));
        for (uint w = chunk * VKC_WORKGROUP_SIZE + gl_LocalInvocationIndex; w < words;
             w += params.chunks * VKC_WORKGROUP_SIZE) {
            uint at = status_word_at(parity, w);
            if (at < uint(state.length())) {
                state[at] = 0u;
            }
        }
    }
    if (runs_chunked_look_back()) {
#if ITEM_VEC_WIDTH > 1
        if (chunk_in_registers(chunk)) { // uniform
            scan_chunk_in_registers(chunk);
            return;
        }
#endif
        scan_chunk_twice(chunk);
    } else {
#if RAKED_TILES
        scan_tile_raked(chunk);
#else
        scan_tile_blocked(chunk);
#endif
    }
}

// ---- chunks: reduce, and the reproducible scan -------------------------------------------------
// MODE_REDUCE and MODE_REDUCE_CHUNKS: each group posts its chunk's total (reduce_by_ticket: the total
// of the pieces it drew) as a look-back status is posted (flag and value in the same words, at
// total_at), counts itself finished, and the last to count folds the totals. Since a total carries
// its flag (STATUS_TOTAL), the last group needs no fence to trust what it reads: it reads again while
// any total has not landed. (A device-scope release before the count, which waits for the total's
// store, and an acquire after it cost reduces of 2^16 items a tenth of their speed on the H100.)
// MODE_REDUCE_CHUNKS leaves each chunk's exclusive prefix in its words for MODE_SCAN_CHUNKS, which
// zeroes them; MODE_REDUCE zeroes the totals once read, for a look-back scan on the same state (they
// overlap its status arrays).
shared bool finished_last;
shared uint totals_missing[3]; // invocations that found a total not yet posted, by round, in rotation
uint total_at(uint chunk) { return STATE_TILES + chunk * STATUS_WORDS; }
// Rounds the last group reads the totals before it computes them itself. The totals it waits for
// were stored before their groups counted, so they land within microseconds: the bound is a guard.
// (Were it ever reached, a post landing after the zeroing below would leave a stale total behind;
// the value it carries is the same, but the words would no longer be zero for the next dispatch.)
const uint TOTALS_WAIT_ROUNDS = 65536u;

// Chunk totals [at, at + TOTALS_BATCH) as far as `end`, the identity past it, and whether all have
// been posted. The loads are not conditional (the index is clamped), so they issue together.
const uint TOTALS_BATCH = 8u;
void read_totals(uint at, uint end, out ITEM_TYPE totals[TOTALS_BATCH], out bool posted) {
    posted = true;
    [[unroll]] for (uint k = 0u; k < TOTALS_BATCH; ++k) {
        uint flag;
        ITEM_TYPE x;
        read_words(total_at(min(at + k, end - 1u)), 0u, flag, x);
        posted = posted && flag == STATUS_TOTAL;
        totals[k] = at + k < end ? x : ITEM_IDENTITY;
    }
}

// Past the wait's bound (or at once with FLAG_FORCE_FALLBACK): every chunk's total computed and posted
// again by this group, with the function its own group used, so the bits are the same.
void post_totals_again() {
    for (uint chunk = 0u; chunk < params.chunks; ++chunk) {
        ITEM_TYPE total = reduce_chunk(chunk);
        if (gl_LocalInvocationIndex == 0u) {
            post_words(total_at(chunk), STATUS_TOTAL, total);
        }
    }
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
}

// Op over the totals of chunks [begin, end), this invocation's run, once every total of the
// work-group's runs has been posted. Each invocation reads its run, its loads in flight together, and
// the rounds repeat while any invocation found a total missing. Uniform.
ITEM_TYPE fold_totals(uint begin, uint end, uint per_invocation) {
    for (uint round = 0u;; ++round) {
        uint slot = round % 3u;
        bool posted = true;
        ITEM_TYPE own = ITEM_IDENTITY;
        if (per_invocation == 1u && begin < end) {
            // One total an invocation (no more chunks than invocations): one load, not a clamped batch
            // of 8, which cost reduces of 2^16 items about 3 % on the H100.
            uint flag;
            read_words(total_at(begin), 0u, flag, own);
            posted = flag == STATUS_TOTAL;
        }
        for (uint at = begin; per_invocation > 1u && at < end; at += TOTALS_BATCH) {
            ITEM_TYPE totals[TOTALS_BATCH];
            bool batch_posted;
            read_totals(at, end, totals, batch_posted);
            posted = posted && batch_posted;
            [[unroll]] for (uint k = 0u; k < TOTALS_BATCH; ++k) {
                own = ITEM_COMBINE(own, totals[k]);
            }
        }
        if (!posted) {
            atomicAdd(totals_missing[slot], 1u);
        }
        barrier();
        uint missing = totals_missing[slot];
        if (gl_LocalInvocationIndex == 0u) {
            totals_missing[(round + 2u) % 3u] = 0u; // read in the round before this one, used two later
        }
        bool forced = has_flag(FLAG_FORCE_FALLBACK) && round == 0u;
        if (missing == 0u && !forced) {
            return own;
        }
        if (forced || round + 1u >= TOTALS_WAIT_ROUNDS) {
#if REDUCE_BY_TICKET
            if (params.mode == MODE_REDUCE) {
                // Any order gives the same result here, and which pieces each group drew is not known:
                // this group folds the whole input and reads no total (a late post could not be told
                // from one posted again).
                ITEM_TYPE all = workgroup_total(fold_striped(0u, params.count, ITEM_IDENTITY));
                return gl_LocalInvocationIndex == 0u ? all : ITEM_IDENTITY;
            }
#endif
            post_totals_again();
        }
    }
    return ITEM_IDENTITY; // not reached
}

void reduce_chunks() {
    uint chunk = group_index();
    if (chunk >= params.chunks) {
        return;
    }
    bool alone = params.chunks == 1u; // last without counting, and it has its total
#if REDUCE_BY_TICKET
    uint share = (params.tiles + params.chunks - 1u) / params.chunks;
    bool by_ticket = params.mode == MODE_REDUCE && !alone && share >= TICKET_MIN_SHARE;
    ITEM_TYPE total = by_ticket ? reduce_by_ticket(share) : reduce_chunk(chunk);
#else
    ITEM_TYPE total = reduce_chunk(chunk);
#endif
    if (gl_LocalInvocationIndex == 0u) {
        if (!alone) {
            post_words(total_at(chunk), STATUS_TOTAL, total);
        }
        finished_last = alone || atomicAdd(state[STATE_FINISHED], 1u) == params.chunks - 1u;
        for (uint k = 0u; k < 3u; ++k) {
            totals_missing[k] = 0u;
        }
    }
    barrier();
    if (!finished_last) {
        return;
    }
    // Each invocation folds its own run of consecutive totals and one ordered work-group scan joins
    // the runs: one trip to L2 and one scan, where a scan a work-group's width of totals at a time
    // took 8 of each for 2048 chunks.
    uint per_invocation = (params.chunks + VKC_WORKGROUP_SIZE - 1u) / VKC_WORKGROUP_SIZE;
    uint run_begin = min(gl_LocalInvocationIndex * per_invocation, params.chunks);
    uint run_end = min(run_begin + per_invocation, params.chunks);
    ITEM_TYPE own = !alone                           ? fold_totals(run_begin, run_end, per_invocation)
                    : gl_LocalInvocationIndex == 0u ? total
                                                    : ITEM_IDENTITY;
    ITEM_TYPE before, block_total;
    VKC_PASTE(vkc_workgroup_scan_core_, ITEM_OP)(own, before, block_total);
    bool started = carry_in_present();
    ITEM_TYPE running = started ? ITEM_COMBINE(carry_in(), block_total) : block_total;
    if (params.mode == MODE_REDUCE_CHUNKS) {
        // The exclusive prefix of each chunk in the run, in place of its total (chunk 0's, where
        // nothing comes before it, is not read).
        ITEM_TYPE prefix = !started ? before : gl_LocalInvocationIndex == 0u ? carry_in() : ITEM_COMBINE(carry_in(), before);
        bool seeded = started || gl_LocalInvocationIndex > 0u;
        for (uint at = run_begin; at < run_end; at += TOTALS_BATCH) {
            ITEM_TYPE totals[TOTALS_BATCH]; // (a lone chunk's was not posted; it is not used)
            bool unused;
            read_totals(at, run_end, totals, unused);
            [[unroll]] for (uint k = 0u; k < TOTALS_BATCH && at + k < run_end; ++k) {
                post_words(total_at(at + k), STATUS_PREFIX, prefix);
                prefix = seeded ? ITEM_COMBINE(prefix, totals[k]) : totals[k];
                seeded = true;
            }
        }
    }
    if (params.mode == MODE_REDUCE) {
        // Every total is read (the scan's barrier is past): zero again. Neighbouring invocations,
        // neighbouring words.
        for (uint at = gl_LocalInvocationIndex; at < STATUS_WORDS * params.chunks; at += VKC_WORKGROUP_SIZE) {
            state[STATE_TILES + at] = 0u;
        }
    }
    if (gl_LocalInvocationIndex == 0u) {
        write_pair(carry_out_at(), running);
        if (params.mode == MODE_REDUCE) {
            items_out[0] = running;
            state[STATE_REDUCE_TICKET] = 0u; // every group has drawn its last ticket
        }
        state[STATE_FINISHED] = 0u; // every group has counted: zero for the next dispatch
    }
}

// MODE_SCAN_CHUNKS: the chunk's tiles in turn, seeded with the chunk's exclusive prefix, whose words
// are then zeroed: one invocation reads it, then zeroes it once all have it.
shared ITEM_TYPE chunk_prefix_read;
void scan_chunks() {
    uint chunk = group_index();
    if (chunk >= params.chunks) {
        return;
    }
    if (gl_LocalInvocationIndex == 0u) {
        uint unused; // posted by the dispatch before, behind a pipeline barrier
        read_words(total_at(chunk), 0u, unused, chunk_prefix_read);
    }
    barrier();
    ITEM_TYPE prefix = chunk_prefix_read;
    if (gl_LocalInvocationIndex == 0u) {
        [[unroll]] for (uint k = 0u; k < STATUS_WORDS; ++k) {
            state[total_at(chunk) + k] = 0u;
        }
    }
    scan_chunk_tiles(chunk, prefix, chunk > 0u || carry_in_present());
}

void main() {
    if (runs_look_back()) {
        scan_look_back();
    } else if (params.mode == MODE_SCAN_CHUNKS) {
        scan_chunks();
    } else {
        reduce_chunks();
    }
}
