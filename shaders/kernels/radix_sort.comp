#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_memory_scope_semantics : require

// Device-wide LSD radix sort of 32- and 64-bit keys, with values of 1, 2 or 4 words (vkc::SortPlan,
// Context::sort). The host records, for a sort by bits [begin, end):
//
//   MODE_HISTOGRAM  one read of the keys counts every pass's digits (8 bits a pass) into the scratch;
//                   the last work-group to finish turns the counts into each digit's start;
//   MODE_PORTION_COUNT  past 2^30 keys only (the look-back then works in portions of tiles): before
//                   each pass after the first, a read of its input counts its digits a portion;
//   MODE_SMALL      at most a tile of keys: one work-group loads them, ranks them by every digit
//                   in turn in shared memory, and writes them once (one dispatch, no scratch);
//   MODE_PASS       a dispatch a pass (Onesweep's traffic: each key read once and written once):
//                   each work-group takes a tile of 4096 keys by ticket, counts its digits and posts
//                   the counts at once, ranks the tile stably by the digit (vkc/radix_rank.glsl, two
//                   4-bit ranks: no subgroup operation, so the same at every subgroup width), finds
//                   for each digit the keys of that digit in the tiles before it by a decoupled
//                   look-back, and writes each key to digit start + keys of its digit before it.
//                   A pass whose digit is the same for every key (the counts say so) copies each
//                   tile where it was: no ranking, no look-back, and the result stays where the
//                   plan said it would be.
//
// Forward progress: Vulkan promises none between work-groups, so no look-back waits without bound.
// A digit's status that stays unposted for spin_limit polls is computed by the waiting work-group
// itself, from that tile's keys (read-only in the pass), and the walk goes on (the decoupled fallback
// of Smith, Levien and Owens, 2025). FLAG_FORCE_FALLBACK makes every tile compute its predecessor.
//
// Keys move as their own bits; the digit is taken from an order-preserving transform of them (int:
// the sign bit flipped; float: negatives flipped whole, so -0 sorts before +0 and NaNs with the sign
// set first, the others last, as CUB places them), and from its complement when descending. A
// 64-bit key is two words, low first; its transform is the same on the 64 bits. Every pass is
// stable, so equal keys keep their input order, ascending or descending.
//
// Bindings: 0 keys in, 1 keys out, 2 the scratch (uint words, vkc/contract.h's VKC_SORT_*), 3 an
// IndirectCount's buffer, 4 values in, 5 values out.
#include "vkc/contract.h"

layout(local_size_x_id = VKC_SPEC_WORKGROUP_SIZE_X, local_size_y_id = VKC_SPEC_WORKGROUP_SIZE_Y,
       local_size_z_id = VKC_SPEC_WORKGROUP_SIZE_Z) in;
layout(constant_id = VKC_SPEC_SUBGROUPS_PACKED) const bool subgroups_packed = true;
// Words of a value (0: keys only; 1, 2 or 4), and of a key less one (VKC_SORT_KEY_WORDS_SHIFT).
layout(constant_id = VKC_SPEC_KERNEL) const uint sort_shape = 0u;
const uint value_words = sort_shape & 15u;
const bool wide_keys = ((sort_shape >> VKC_SORT_KEY_WORDS_SHIFT) & 15u) != 0u; // 64-bit keys
const uint key_words = wide_keys ? 2u : 1u;
// The uchar module (ITEM_BYTES 1) also moves 8- and 16-bit keys and 1- and 2-byte values, through
// views of the same bindings: such an item is one word in registers, zero-extended.
const uint narrow_key_bytes = (sort_shape >> VKC_SORT_NARROW_KEY_SHIFT) & 3u;
const uint narrow_value_bytes = (sort_shape >> VKC_SORT_NARROW_VALUE_SHIFT) & 3u;
// A plan of a tile or fewer runs MODE_SMALL alone, on a pipeline of its own: registers are allotted
// for the hungriest mode a pipeline compiles, and the passes' pipeline must not pay for this one.
const bool small_sort = ((sort_shape >> VKC_SORT_SMALL_SHIFT) & 1u) != 0u;
// Past 2^30 keys the look-back works in portions of tiles, on a pipeline of its own: elsewhere every
// tile's portion is the constant 0, and the pass compiles as if portions did not exist.
const bool portioned = ((sort_shape >> VKC_SORT_PORTIONS_SHIFT) & 1u) != 0u;
#if ITEM_BYTES == 1
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
#endif
#define VKC_SUBGROUPS_PACKED subgroups_packed
// Mesa 22 sizes shared arrays from the unspecialised work-group size (1): literal capacities. Both
// modules take tiles of 4096 keys: the subgroup module over 512 invocations of 8 keys, the
// shared-memory one over 256 of 16 (its ranking, vkc/radix_rank.glsl, wants few invocations).
#if VKC_SUBGROUP_ARITHMETIC
#define VKC_SORT_SIZE VKC_SORT_SUBGROUP_WORKGROUP_SIZE
#define VKC_ITEMS VKC_SORT_SUBGROUP_ITEMS
#else
#define VKC_SORT_SIZE VKC_SORT_WORKGROUP_SIZE
#define VKC_ITEMS VKC_SORT_ITEMS
#endif
#define VKC_SCRATCH_CAPACITY VKC_SORT_SIZE
#if VKC_SUBGROUP_ARITHMETIC
// The subgroup module ranks by ballots (rank_tile below); the host takes it where the work-group of
// 512 is packed into subgroups of 16 to 128 invocations.
#extension GL_KHR_shader_subgroup_ballot : require
#extension GL_KHR_shader_subgroup_shuffle : require
#define VKC_TYPE uint
#define VKC_OP add
#include "vkc/workgroup_scan.glsl"
#include "vkc/radix_keys.glsl"
#define VKC_RADIX_SLOT(x) ((x) + ((x) >> 5u))
shared uint vkc_radix_stage[VKC_SORT_SIZE * VKC_ITEMS + VKC_SORT_SIZE * VKC_ITEMS / 32u];
#else
// The shared-memory module ranks with vkc/radix_rank.glsl: two 4-bit ranks, no subgroup operation.
#define VKC_RADIX_CAPACITY VKC_SORT_SIZE
#define VKC_RADIX_BITS 4
#include "vkc/radix_rank.glsl"
#endif

layout(set = 0, binding = 0, std430) readonly buffer KeysIn { uint keys_in[]; };
layout(set = 0, binding = 1, std430) writeonly buffer KeysOut { uint keys_out[]; };
layout(set = 0, binding = 2, std430) coherent buffer State { uint state[]; };
layout(set = 0, binding = 3, std430) readonly buffer IndirectCount { uint indirect_count_words[]; };
layout(set = 0, binding = 4, std430) readonly buffer ValuesIn { uint values_in[]; };
layout(set = 0, binding = 5, std430) writeonly buffer ValuesOut { uint values_out[]; };
#if ITEM_BYTES == 1
layout(set = 0, binding = 0, std430) readonly buffer KeysIn8 { uint8_t keys_in8[]; };
layout(set = 0, binding = 0, std430) readonly buffer KeysIn16 { uint16_t keys_in16[]; };
layout(set = 0, binding = 1, std430) writeonly buffer KeysOut8 { uint8_t keys_out8[]; };
layout(set = 0, binding = 1, std430) writeonly buffer KeysOut16 { uint16_t keys_out16[]; };
layout(set = 0, binding = 4, std430) readonly buffer ValuesIn8 { uint8_t values_in8[]; };
layout(set = 0, binding = 4, std430) readonly buffer ValuesIn16 { uint16_t values_in16[]; };
layout(set = 0, binding = 5, std430) writeonly buffer ValuesOut8 { uint8_t values_out8[]; };
layout(set = 0, binding = 5, std430) writeonly buffer ValuesOut16 { uint16_t values_out16[]; };
#endif

// Word `word` of item `index` of the keys (values false) or the values, `stride` words an item; an 8-
// or 16-bit item is one word.
uint read_word(bool values, uint index, uint stride, uint word) {
#if ITEM_BYTES == 1
    const uint narrow = values ? narrow_value_bytes : narrow_key_bytes;
    // Each load converted on its own: a select between 8- or 16-bit values would need Int8 or Int16.
    if (narrow == 1u) return values ? uint(values_in8[index]) : uint(keys_in8[index]);
    if (narrow == 2u) return values ? uint(values_in16[index]) : uint(keys_in16[index]);
#endif
    return values ? values_in[index * stride + word] : keys_in[index * stride + word];
}
void write_word(bool values, uint index, uint stride, uint word, uint w) {
#if ITEM_BYTES == 1
    const uint narrow = values ? narrow_value_bytes : narrow_key_bytes;
    if (narrow == 1u) {
        if (values) values_out8[index] = uint8_t(w);
        else keys_out8[index] = uint8_t(w);
        return;
    }
    if (narrow == 2u) {
        if (values) values_out16[index] = uint16_t(w);
        else keys_out16[index] = uint16_t(w);
        return;
    }
#endif
    if (values) values_out[index * stride + word] = w;
    else keys_out[index * stride + word] = w;
}

layout(push_constant, std430) uniform Params {
    uint count;      // keys (with FLAG_COUNT_ON_DEVICE: at most this many)
    uint tiles;      // tiles the grid covers
    uint flags;
    uint mode;
    uint bits;       // MODE_PASS: the digit's first bit | its width << 8 | the pass << 16;
                     // MODE_HISTOGRAM, MODE_SMALL: the first bit | the end bit << 8 | passes << 16;
                     // MODE_PORTION_COUNT: the digit's first bit | its end bit << 8 | 1 << 16 | the pass << 24
    uint spin_limit; // polls of an unposted status before computing it
    uint tiles_per_group; // MODE_HISTOGRAM: tiles a work-group counts
    uint portion_tiles;   // tiles a portion holds (a multiple of tiles_per_group): each looks back
                          // over its own portion's tiles, so that a status word's count never passes 2^30
} params;

const uint SIZE = VKC_SORT_SIZE;
const uint TILE = VKC_SORT_SIZE * VKC_ITEMS;
const uint DIGITS = 1u << VKC_SORT_DIGIT_BITS;
// Invocation t < DIGITS owns digit t's counts, status and walk back; the others (the subgroup
// module's second half) take part in the tile's loads, ranking, scans and stores only.
bool owns_digit() { return gl_LocalInvocationIndex < DIGITS; }
const uint STATUS_NONE = 0u, STATUS_AGGREGATE = 1u, STATUS_PREFIX = 2u;
const uint COUNT_MASK = (1u << 30u) - 1u;

bool has_flag(uint f) { return (params.flags & f) != 0u; }

uint key_count() {
    if (!has_flag(VKC_SORT_FLAG_COUNT_ON_DEVICE)) return params.count;
    return min(indirect_count_words[params.flags >> VKC_DEVICE_COUNT_WORD_SHIFT], params.count);
}

// The key's bits (low word, high word) in an order that sorts as unsigned, complemented when
// descending. 32-bit keys: the high word is unused.
uvec2 ordered(uint lo, uint hi) {
    uint transform = (params.flags >> VKC_SORT_TRANSFORM_SHIFT) & 3u;
    uvec2 k = uvec2(lo, hi);
    if (narrow_key_bytes != 0u) { // 8 or 16 bits: int flips the sign bit, half as float does
        const uint sign = 1u << (8u * narrow_key_bytes - 1u), mask = 2u * sign - 1u;
        k.x = transform == 1u ? lo ^ sign : transform == 2u ? ((lo & sign) != 0u ? ~lo & mask : lo | sign) : lo;
    } else if (!wide_keys) {
        k.x = transform == 1u ? vkc_radix_key_int(int(lo)) : transform == 2u ? vkc_radix_key_float(lo) : lo;
    } else if (transform == 1u) {
        k.y ^= 0x80000000u;
    } else if (transform == 2u) {
        k = (hi & 0x80000000u) != 0u ? ~k : uvec2(lo, hi | 0x80000000u);
    }
    return has_flag(VKC_SORT_FLAG_DESCENDING) ? ~k : k;
}
// Bits [bit, bit + width) of an ordered key, width at most 8.
uint bits_of(uvec2 k, uint bit, uint width) {
    uint mask = (1u << width) - 1u;
    if (bit >= 32u) return (k.y >> (bit - 32u)) & mask;
    uint low = k.x >> bit;
    if (wide_keys && bit + width > 32u) low |= k.y << (32u - bit); // a digit across the words
    return low & mask;
}
uint key_word(uint index, uint word) { return read_word(false, index, key_words, word); }

// Scratch layout (vkc/contract.h): row 0 holds each pass's digit counts, then starts; with more than
// one portion, row 1 + q portion q's counts of each pass's digits; the statuses after the rows.
uint portions() { return portioned ? (params.tiles + params.portion_tiles - 1u) / params.portion_tiles : 1u; }
uint portion_of(uint tile) { return portioned ? tile / params.portion_tiles : 0u; }
uint histogram_rows() { return portioned ? portions() + 1u : 1u; }
uint histogram_at(uint row, uint pass, uint digit) {
    return VKC_SORT_HISTOGRAMS + (row * VKC_SORT_MAX_PASSES + pass) * DIGITS + digit;
}

// ---- MODE_HISTOGRAM ---------------------------------------------------------------------------
shared bool histogram_last; // this work-group finished the counting dispatch last
// The work-group's counts in vkc_radix_stage (passes x 256 words), added to the scratch's at the end.
// MODE_HISTOGRAM counts every pass's digits into row 0, and with several portions pass 0's into its
// portion's row too. A portion's keys change from pass to pass (each pass moves them), so before
// each later pass MODE_PORTION_COUNT counts that pass's digits of its input into the portions' rows.
void count_digits() {
    const uint t = gl_LocalInvocationIndex;
    const uint begin = params.bits & 0xffu, end = (params.bits >> 8u) & 0xffu, passes = (params.bits >> 16u) & 0xffu;
    const bool recount = params.mode == VKC_SORT_MODE_PORTION_COUNT;
    const uint counted_pass = params.bits >> 24u; // MODE_PORTION_COUNT's pass (MODE_HISTOGRAM: 0)
    for (uint w = t; w < passes * DIGITS; w += SIZE) vkc_radix_stage[w] = 0u;
    barrier();
    const uint count = key_count();
    const uint group = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
    const uint first_tile = group * params.tiles_per_group;
    const uint last_tile = min(first_tile + params.tiles_per_group, params.tiles);
    const uint portion = portion_of(first_tile); // the group's tiles are all in it
    for (uint tile = first_tile; tile < last_tile; ++tile) {
        // A tile's loads all issued before its counts: each waits on memory once, not 16 times.
        uint keys[VKC_ITEMS], highs[VKC_ITEMS];
        [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
            uint at = tile * TILE + i * SIZE + t;
            keys[i] = at < count ? key_word(at, 0u) : 0u;
            highs[i] = wide_keys && at < count ? key_word(at, 1u) : 0u;
        }
        [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
            if (tile * TILE + i * SIZE + t >= count) continue;
            uvec2 k = ordered(keys[i], highs[i]);
            for (uint p = 0u; p < passes; ++p) {
                uint bit = begin + p * VKC_SORT_DIGIT_BITS;
                atomicAdd(vkc_radix_stage[p * DIGITS + bits_of(k, bit, min(VKC_SORT_DIGIT_BITS, end - bit))], 1u);
            }
        }
    }
    barrier();
    for (uint w = t; w < passes * DIGITS; w += SIZE) {
        uint n = vkc_radix_stage[w];
        if (n == 0u) continue;
        if (!recount) atomicAdd(state[histogram_at(0u, 0u, 0u) + w], n);
        if (portioned && w < DIGITS) atomicAdd(state[histogram_at(1u + portion, counted_pass, w)], n);
    }
    if (recount) return;
    // The last work-group to finish turns every pass's counts into its digits' starts (their
    // exclusive scan), which the passes' tiles then read instead of each scanning the counts.
    memoryBarrierBuffer(); // this group's counts before its count of finished groups
    barrier();
    if (t == 0u) {
        // The host dispatches exactly this many groups (at most 1024: one row of the grid).
        const uint groups = (params.tiles + params.tiles_per_group - 1u) / params.tiles_per_group;
        histogram_last = atomicAdd(state[VKC_SORT_HISTOGRAM_DONE], 1u, gl_ScopeDevice, gl_StorageSemanticsBuffer,
                                   gl_SemanticsAcquireRelease) == groups - 1u;
    }
    barrier();
    if (!histogram_last) return;
    memoryBarrierBuffer(); // every group's counts before the reads below
    for (uint p = 0u; p < passes; ++p) {
        const uint at = histogram_at(0u, p, t);
        const uint n = owns_digit() ? atomicLoad(state[at], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed) : 0u;
        const uint start = vkc_workgroup_scan_exclusive_add(n);
        if (owns_digit()) state[at] = start;
    }
}

// ---- MODE_PASS ----------------------------------------------------------------------------------
shared uint tile_index;
shared bool digit_uniform; // every key of the pass has the same digit (the counts say so)
shared uint tile_count[DIGITS];  // keys of each digit in this tile
shared uint digit_offset[DIGITS]; // where the tile's sorted position k of a digit's key goes, less k

uint digit_bit() { return params.bits & 0xffu; }
uint digit_of(uint lo, uint hi) { return bits_of(ordered(lo, hi), digit_bit(), (params.bits >> 8u) & 0xffu); }
// Pass p posts in array p % 2, which pass p - 2 left posted: pass p zeroes its tiles' words in the
// other array (pass p - 1's, finished) for pass p + 1. Tiles past an IndirectCount's count post in
// no pass, so their words stay zero.
uint statuses; // the first status word, after the rows of counts (set once a tile)
uint status_at(uint tile, uint digit, uint parity) {
    return statuses + (parity * params.tiles + tile) * DIGITS + digit;
}
uint status_at(uint tile, uint digit) { return status_at(tile, digit, (params.bits >> 16u) & 1u); }
void post(uint tile, uint digit, uint flag, uint value) {
    atomicStore(state[status_at(tile, digit)], (flag << 30u) | value, gl_ScopeDevice, gl_StorageSemanticsBuffer,
                gl_SemanticsRelaxed);
}

// Striped words of a tile (word i * SIZE + t) to blocked registers (word t * ITEMS + i) through the stage.
void to_blocked(inout uint words[VKC_ITEMS]) {
    const uint t = gl_LocalInvocationIndex;
    barrier();
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) vkc_radix_stage[VKC_RADIX_SLOT(i * SIZE + t)] = words[i];
    barrier();
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) words[i] = vkc_radix_stage[VKC_RADIX_SLOT(t * VKC_ITEMS + i)];
}
// Words to their ranks, then striped: register i holds sorted position i * SIZE + t.
void to_sorted_striped(inout uint words[VKC_ITEMS], uint ranks[VKC_ITEMS]) {
    const uint t = gl_LocalInvocationIndex;
    barrier();
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) vkc_radix_stage[VKC_RADIX_SLOT(ranks[i])] = words[i];
    barrier();
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) words[i] = vkc_radix_stage[VKC_RADIX_SLOT(i * SIZE + t)];
}

// Tile `tile`'s count of digit t, from its keys (the fallback), in vkc_radix_stage[t].
uint count_tile(uint tile, uint count) {
    const uint t = gl_LocalInvocationIndex;
    barrier();
    if (owns_digit()) vkc_radix_stage[t] = 0u;
    barrier();
    for (uint i = 0u; i < VKC_ITEMS; ++i) {
        uint at = tile * TILE + i * SIZE + t;
        if (at < count) atomicAdd(vkc_radix_stage[digit_of(key_word(at, 0u), wide_keys ? key_word(at, 1u) : 0u)], 1u);
    }
    barrier();
    return owns_digit() ? vkc_radix_stage[t] : 0u;
}

// Keys of digit t in the tiles of its portion before `tile` (from `first`, the portion's first tile).
// Each invocation walks back over its digit's statuses on its own, with no barrier (as Onesweep's
// look-back does), adding counts until it meets an inclusive prefix (a portion's first tile posts its
// counts as one). A status still unposted after spin_limit polls stops the walk there; then the
// work-group counts the nearest such tile from its keys, every digit stopped at it takes its count
// and walks on, and the others poll again. Each digit posts its
// inclusive prefix (`mine` its count in this tile) as soon as its walk ends: its successors wait on
// it, not on this tile's other digits.
// 1 + the nearest tile a walk stopped at (0: none), in two slots that take turns a round (a round
// counts one tile or ends the walks): one barrier a round, the other slot cleared meanwhile.
shared uint look_back_stuck[2];
const uint WINDOW = 8u;       // statuses a walk reads at once (8 measured faster than 16)
uint look_back(uint tile, uint first, uint count, uint mine) {
    const uint t = gl_LocalInvocationIndex;
    uint before = 0u;
    uint next = owns_digit() ? tile - first : 0u; // the walk reads tile first + next - 1
    bool forced = has_flag(VKC_SORT_FLAG_FORCE_FALLBACK) && next > 0u;
    uint steps = 0u, counted_tiles = 0u;
    for (;;) {
        bool stuck = false;
        if (forced) {
            stuck = true; // every digit counts the tile before from its keys
        } else {
            // A round reads up to WINDOW statuses at once (their loads overlap), then takes them in
            // order up to the first unposted one or an inclusive prefix.
            uint polls = 0u;
            while (next > 0u) {
                const uint reach = min(WINDOW, next);
                uint words[WINDOW];
                [[unroll]] for (uint k = 0u; k < WINDOW; ++k) {
                    words[k] = k < reach ? atomicLoad(state[status_at(first + next - 1u - k, t)], gl_ScopeDevice,
                                                      gl_StorageSemanticsBuffer, gl_SemanticsRelaxed)
                                         : 0u;
                }
                uint taken = 0u;
                bool open = true, prefix = false;
                [[unroll]] for (uint k = 0u; k < WINDOW; ++k) {
                    uint flag = words[k] >> 30u;
                    open = open && k < reach && flag != STATUS_NONE;
                    if (open) {
                        before += words[k] & COUNT_MASK;
                        ++taken;
                        prefix = flag == STATUS_PREFIX;
                        open = !prefix;
                    }
                }
                steps += taken;
                next = prefix ? 0u : next - taken;
                if (next == 0u) post(tile, t, STATUS_PREFIX, before + mine);
                if (prefix || taken == reach) {
                    polls = 0u;
                    continue;
                }
                if (taken > 0u) polls = 0u;
                if (++polls > params.spin_limit) {
                    stuck = true;
                    break;
                }
            }
        }
        forced = false;
        const uint slot = counted_tiles & 1u;
        if (stuck) atomicMax(look_back_stuck[slot], next);
        barrier();
        uint nearest = look_back_stuck[slot]; // uniform: read after the barrier
        // The other slot was last read in the round before, by invocations all past this barrier.
        if (t == 0u) look_back_stuck[slot ^ 1u] = 0u;
        if (nearest == 0u) break;
        uint counted = count_tile(first + nearest - 1u, count);
        ++counted_tiles;
        if (stuck && next == nearest) {
            before += counted;
            if (--next == 0u) post(tile, t, STATUS_PREFIX, before + mine);
        }
    }
    if (has_flag(VKC_SORT_FLAG_STATS)) {
        atomicAdd(state[VKC_SORT_STAT_STEPS], steps);
        if (t == 0u) {
            atomicAdd(state[VKC_SORT_STAT_COUNTED], counted_tiles);
            atomicAdd(state[VKC_SORT_STAT_TILES], 1u);
        }
    }
    return before;
}

// ---- ranking a tile: ranks[i] is item i's position when the tile is ordered stably by digit ----
#if VKC_SUBGROUP_ARITHMETIC
// Subgroup s holds tile positions [s * S * ITEMS, (s + 1) * S * ITEMS), item i of lane l at
// (s * ITEMS + i) * S + l: loads are coalesced, and tile order is (subgroup, item, lane). Each item
// finds the lanes of its subgroup with the same digit from 8 ballots (CUB's match-based ranking);
// the lowest of them adds their number to the subgroup's counter of that digit, 16 bits of a word
// (counts stay below S * ITEMS), and shuffles the count before to its peers.
// The counters live in the stage (MAX_SUBGROUPS x 128 words of its 4224), unused while a tile ranks:
// the module's shared memory then fits 32 KB.
const uint MAX_SUBGROUPS = VKC_SORT_SIZE / 16u;
#define subgroup_counts vkc_radix_stage
shared uint digit_tile_start[DIGITS];
uint position_of(uint i) { return (gl_SubgroupID * VKC_ITEMS + i) * gl_SubgroupSize + gl_SubgroupInvocationID; }
uint popcount4(uvec4 v) { return bitCount(v.x) + bitCount(v.y) + bitCount(v.z) + bitCount(v.w); }
uint subgroup_counter(uint subgroup, uint digit) { return subgroup * (DIGITS / 2u) + (digit & (DIGITS / 2u - 1u)); }
uint counter_shift(uint digit) { return 16u * (digit / (DIGITS / 2u)); }

// Word `word` of the tile's keys (values false) or values, each of `stride` words.
void load_tile(inout uint words[VKC_ITEMS], uint first, uint valid, bool values, uint stride, uint word) {
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
        words[i] = position_of(i) < valid ? read_word(values, first + position_of(i), stride, word) : 0u;
    }
}

// The ranking's counters start at zero: the caller clears them before a barrier.
void clear_rank_counters() {
    for (uint w = gl_LocalInvocationIndex; w < gl_NumSubgroups * DIGITS / 2u; w += SIZE) subgroup_counts[w] = 0u;
}
void rank_tile(uint digits[VKC_ITEMS], out uint ranks[VKC_ITEMS]) {
    const uint t = gl_LocalInvocationIndex;
    const uint subgroup = gl_SubgroupID;
    uint within[VKC_ITEMS];
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
        uint d = digits[i];
        uvec4 peers = subgroupBallot(true);
        [[unroll]] for (uint b = 0u; b < VKC_SORT_DIGIT_BITS; ++b) {
            bool set = ((d >> b) & 1u) != 0u;
            uvec4 ballot = subgroupBallot(set);
            peers &= set ? ballot : ~ballot;
        }
        uint leader = subgroupBallotFindLSB(peers);
        uint before = 0u;
        if (gl_SubgroupInvocationID == leader) {
            uint shift = counter_shift(d);
            before = (atomicAdd(subgroup_counts[subgroup_counter(subgroup, d)], popcount4(peers) << shift) >> shift) &
                     0xffffu;
        }
        within[i] = subgroupShuffle(before, leader) + popcount4(peers & gl_SubgroupLtMask);
        subgroupBarrier(); // this item's counts before the next item's
    }
    barrier();
    // Counter word w < 128 holds digits w and w + 128, 16 bits each: invocation w turns each
    // subgroup's pair into the pair of counts of the subgroups before it, both digits in one add (no
    // half carries: a tile has fewer than 2^16 keys). Its loads do not wait on its stores.
    uint pair_total = 0u;
    if (t < DIGITS / 2u) {
        [[unroll]] for (uint s = 0u; s < MAX_SUBGROUPS; ++s) {
            if (s < gl_NumSubgroups) {
                const uint at = subgroup_counter(s, t);
                const uint n = subgroup_counts[at];
                subgroup_counts[at] = pair_total;
                pair_total += n;
            }
        }
    }
    // The pairs' exclusive scan: the low half is digit w's start, the high half digit w + 128's less
    // the keys of digits 0 to 127 (the low halves' total).
    uint pair_start, pairs;
    vkc_workgroup_scan_core_add(pair_total, pair_start, pairs);
    if (t < DIGITS / 2u) {
        digit_tile_start[t] = pair_start & 0xffffu;
        digit_tile_start[t + DIGITS / 2u] = (pair_start >> 16u) + (pairs & 0xffffu);
    }
    barrier();
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
        uint d = digits[i];
        ranks[i] = digit_tile_start[d] + ((subgroup_counts[subgroup_counter(subgroup, d)] >> counter_shift(d)) & 0xffffu) +
                   within[i];
    }
}
#else
// Invocation t holds tile positions [t * ITEMS, (t + 1) * ITEMS) (blocked, as vkc/radix_rank.glsl
// ranks them), loaded striped for coalescing and moved through the stage.
uint position_of(uint i) { return gl_LocalInvocationIndex * VKC_ITEMS + i; }

void load_tile(inout uint words[VKC_ITEMS], uint first, uint valid, bool values, uint stride, uint word) {
    const uint t = gl_LocalInvocationIndex;
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
        words[i] = i * SIZE + t < valid ? read_word(values, first + i * SIZE + t, stride, word) : 0u;
    }
    to_blocked(words);
}

// Two stable 4-bit ranks, by the low half of the digit and then by the high half; the first moves
// the keys' digits to their new places (the second's positions are the final ones).
void rank_tile(uint digits[VKC_ITEMS], out uint ranks[VKC_ITEMS], out uint first_ranks[VKC_ITEMS]) {
    uint halves[VKC_ITEMS];
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) halves[i] = digits[i] & 15u;
    vkc_radix_rank(halves, TILE, first_ranks);
    vkc_radix_exchange(digits, first_ranks);
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) halves[i] = digits[i] >> 4u;
    vkc_radix_rank(halves, TILE, ranks);
}
#endif

// Words to their ranks, in tile order again (register i holds position_of(i)) for the next ranking.
void to_tile_order(inout uint words[VKC_ITEMS], uint ranks[VKC_ITEMS]) {
    barrier();
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) vkc_radix_stage[VKC_RADIX_SLOT(ranks[i])] = words[i];
    barrier();
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) words[i] = vkc_radix_stage[VKC_RADIX_SLOT(position_of(i))];
}

// The tile's values: word c of item i in values[i][c].
void load_values(out uvec4 values[VKC_ITEMS], uint first, uint valid) {
    for (uint c = 0u; c < value_words; ++c) {
        uint words[VKC_ITEMS];
        load_tile(words, first, valid, true, value_words, c);
        [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) values[i][c] = words[i];
    }
}

// How a tile's items move to their ranks (the stage takes one word of each item at a time).
const uint MOVE_TO_SORTED_STRIPED = 0u; // register i holds sorted position i * SIZE + t
const uint MOVE_TO_TILE_ORDER = 1u;     // register i holds sorted position position_of(i)
#if !VKC_SUBGROUP_ARITHMETIC
const uint MOVE_EXCHANGE = 2u;          // vkc_radix_exchange: the ranking's blocked order
#endif
void move_words(inout uint words[VKC_ITEMS], uint ranks[VKC_ITEMS], uint how) {
#if !VKC_SUBGROUP_ARITHMETIC
    if (how == MOVE_EXCHANGE) vkc_radix_exchange(words, ranks);
#endif
    if (how == MOVE_TO_SORTED_STRIPED) to_sorted_striped(words, ranks);
    if (how == MOVE_TO_TILE_ORDER) to_tile_order(words, ranks);
}
void move_values(inout uvec4 values[VKC_ITEMS], uint ranks[VKC_ITEMS], uint how) {
    for (uint c = 0u; c < value_words; ++c) {
        uint words[VKC_ITEMS];
        [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) words[i] = values[i][c];
        move_words(words, ranks, how);
        [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) values[i][c] = words[i];
    }
}

// ranks[i]: item i's position when the tile is ordered stably by digit. The shared-memory module's
// first 4-bit ranking moves the keys and values on the way (the second's positions are final).
void rank_items(uint digits[VKC_ITEMS], out uint ranks[VKC_ITEMS], inout uint keys[VKC_ITEMS],
                inout uint highs[VKC_ITEMS], inout uvec4 values[VKC_ITEMS]) {
#if VKC_SUBGROUP_ARITHMETIC
    rank_tile(digits, ranks);
#else
    uint first_ranks[VKC_ITEMS];
    rank_tile(digits, ranks, first_ranks);
    vkc_radix_exchange(keys, first_ranks);
    if (wide_keys) vkc_radix_exchange(highs, first_ranks);
    move_values(values, first_ranks, MOVE_EXCHANGE);
#endif
}

// A pass whose digit is the same for every key: the tile's keys and values go out where they were.
void copy_tile(uint keys[VKC_ITEMS], uint highs[VKC_ITEMS], uint first, uint valid) {
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
        if (position_of(i) >= valid) continue;
        write_word(false, first + position_of(i), key_words, 0u, keys[i]);
        if (wide_keys) write_word(false, first + position_of(i), key_words, 1u, highs[i]);
    }
    for (uint c = 0u; c < value_words; ++c) {
        uint words[VKC_ITEMS];
        load_tile(words, first, valid, true, value_words, c);
        [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
            if (position_of(i) < valid) write_word(true, first + position_of(i), value_words, c, words[i]);
        }
    }
}

void sort_tile() {
    const uint t = gl_LocalInvocationIndex;
    statuses = VKC_SORT_HISTOGRAMS + histogram_rows() * VKC_SORT_MAX_PASSES * DIGITS;
    if (t == 0u) {
        tile_index = atomicAdd(state[VKC_SORT_TICKETS + (params.bits >> 16u)], 1u);
        digit_uniform = false;
        look_back_stuck[0] = 0u;
        look_back_stuck[1] = 0u;
    }
    if (owns_digit()) tile_count[t] = 0u;
#if VKC_SUBGROUP_ARITHMETIC
    clear_rank_counters(); // the stage is not used before the ranking
#endif
    barrier();
    const uint tile = tile_index;
    const uint count = key_count();
    if (tile * TILE >= count) return; // an IndirectCount's work-group past the count: uniform
    const uint first = tile * TILE;
    const uint valid = min(TILE, count - first);
    if (owns_digit()) state[status_at(tile, t, ((params.bits >> 16u) & 1u) ^ 1u)] = 0u;
    // Digit t's start and end in the pass's output, and where the tile's portion's keys of digit t
    // start (after the portions before), read while the keys load. One digit holding every key
    // means a pass that keeps the order: every tile sees it alike, and is copied where it was.
    const uint portion = portion_of(tile), portion_first = portion * params.portion_tiles;
    const uint pass = params.bits >> 16u;
    const uint digit_start = owns_digit() ? state[histogram_at(0u, pass, t)] : 0u;
    const uint digit_end = owns_digit() ? (t + 1u < DIGITS ? state[histogram_at(0u, pass, t + 1u)] : count) : 0u;
    uint portion_start = digit_start;
    for (uint q = 0u; owns_digit() && q < portion; ++q) portion_start += state[histogram_at(1u + q, pass, t)];
    if (owns_digit() && digit_end - digit_start == count) digit_uniform = true;

    uint keys[VKC_ITEMS], highs[VKC_ITEMS], digits[VKC_ITEMS];
    load_tile(keys, first, valid, false, key_words, 0u);
    if (wide_keys) load_tile(highs, first, valid, false, key_words, 1u);
    // Past the count, the largest digit: such keys are last in the tile and stay last.
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
        bool live = position_of(i) < valid;
        digits[i] = live ? digit_of(keys[i], wide_keys ? highs[i] : 0u) : DIGITS - 1u;
        if (live) atomicAdd(tile_count[digits[i]], 1u);
    }
    barrier();
    if (digit_uniform) { // uniform over the work-group, and the same for every tile: none waits on another
        copy_tile(keys, highs, first, valid);
        return;
    }
    // The counts are all a successor's look-back needs: they go out before the ranking. The walk back
    // comes after it (Onesweep's order), so that the predecessors have posted meanwhile and it waits less.
    const uint mine = owns_digit() ? tile_count[t] : 0u;
    if (owns_digit()) post(tile, t, tile == portion_first ? STATUS_PREFIX : STATUS_AGGREGATE, mine);

    uvec4 values[VKC_ITEMS];
    load_values(values, first, valid);
    uint ranks[VKC_ITEMS];
    rank_items(digits, ranks, keys, highs, values);
    uint before = look_back(tile, portion_first, count, mine);
    // Where each digit's keys go: where the portion's keys of the digit start in the whole output
    // (from the counting dispatch), plus its keys in the portion's tiles before, less its first
    // position in this tile.
#if VKC_SUBGROUP_ARITHMETIC
    // The ranking's digit starts: padding keys count as the last digit, which starts no other.
    const uint tile_start = owns_digit() ? digit_tile_start[t] : 0u;
#else
    const uint tile_start = vkc_workgroup_scan_exclusive_add(mine);
#endif
    if (owns_digit()) digit_offset[t] = portion_start + before - tile_start;


    to_sorted_striped(keys, ranks);
    if (wide_keys) to_sorted_striped(highs, ranks);
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
        uint k = i * SIZE + t;
        digits[i] = digit_of(keys[i], wide_keys ? highs[i] : 0u);
        if (k < valid) {
            const uint at = digit_offset[digits[i]] + k;
            write_word(false, at, key_words, 0u, keys[i]);
            if (wide_keys) write_word(false, at, key_words, 1u, highs[i]);
        }
    }
    move_values(values, ranks, MOVE_TO_SORTED_STRIPED);
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
        uint k = i * SIZE + t;
        if (k >= valid) continue;
        for (uint c = 0u; c < value_words; ++c) write_word(true, digit_offset[digits[i]] + k, value_words, c, values[i][c]);
    }
}

// ---- MODE_SMALL ---------------------------------------------------------------------------------
// The whole input is one tile (the host takes this mode for counts of a tile or less): every pass
// ranks it stably by its digit and reorders it in registers, and the keys and values go out once.
// The output may be the input's memory (an even number of passes sorts in place): every load is
// consumed before the first pass's barriers, every store comes after the last pass's.
void sort_small() {
    const uint count = key_count();
    const uint begin = params.bits & 0xffu, end = (params.bits >> 8u) & 0xffu, passes = params.bits >> 16u;
    uint keys[VKC_ITEMS], highs[VKC_ITEMS], digits[VKC_ITEMS], ranks[VKC_ITEMS];
    load_tile(keys, 0u, count, false, key_words, 0u);
    if (wide_keys) load_tile(highs, 0u, count, false, key_words, 1u);
    uvec4 values[VKC_ITEMS];
    load_values(values, 0u, count);
    for (uint p = 0u; p < passes; ++p) {
        barrier(); // the last pass's reads of the stage before the ranking's counters take it over
#if VKC_SUBGROUP_ARITHMETIC
        clear_rank_counters();
        barrier();
#endif
        const uint bit = begin + p * VKC_SORT_DIGIT_BITS;
        // Past the count, the largest digit: such keys stay last, as in a pass's tile.
        [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
            digits[i] = position_of(i) < count
                            ? bits_of(ordered(keys[i], wide_keys ? highs[i] : 0u), bit, min(VKC_SORT_DIGIT_BITS, end - bit))
                            : DIGITS - 1u;
        }
        rank_items(digits, ranks, keys, highs, values);
        to_tile_order(keys, ranks);
        if (wide_keys) to_tile_order(highs, ranks);
        move_values(values, ranks, MOVE_TO_TILE_ORDER);
    }
    barrier(); // the last pass's loads from the stage, and every load of the input, before any store
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
        const uint at = position_of(i);
        if (at >= count) continue;
        write_word(false, at, key_words, 0u, keys[i]);
        if (wide_keys) write_word(false, at, key_words, 1u, highs[i]);
        for (uint c = 0u; c < value_words; ++c) write_word(true, at, value_words, c, values[i][c]);
    }
}

void main() {
    if (small_sort) sort_small(); // MODE_SMALL
    else if (params.mode == VKC_SORT_MODE_HISTOGRAM || params.mode == VKC_SORT_MODE_PORTION_COUNT) count_digits();
    else sort_tile();
}
