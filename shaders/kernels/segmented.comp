#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_KHR_memory_scope_semantics : require

// Segmented scans and reductions, scans and reductions by key, and run-length encoding
// (vkc::SegmentedPlan, Context::segmented_scan, reduce_by_key, run_length_encode...), in one
// dispatch. One module per (value type, op); the segments and the output are specialization constants.
//
// Each work-group takes a tile of 2048 items by ticket, finds each item's head flag (from the flags,
// or where its key differs from the one before it; item 0 always starts a segment), scans the tile's
// (heads, value) pairs (vkc/block_segmented.glsl), finds the tile's prefix pair by a decoupled
// look-back (vkc/look_back.glsl) and writes:
//   scans       every item's inclusive (or exclusive: the identity at a head) value in its segment;
//   reduce      at the last item of each segment, its total, at the segment's number; with keys, at
//               the first item, its key; and at the last item of all, the number of segments;
//   run lengths the same with a value of 1 an item (a u32 add module): each run's key and length;
//   non-trivial runs (runs of 2 items or more, a u32 add module): each such run's first index and
//               length, at the run's number among them, and their number.
// By offsets, items before the first segment or past the last one are not written by scans.
//
// Forward progress: Vulkan promises none between work-groups, so the look-back never waits without
// bound: a tile whose status stays unposted for spin_limit polls is scanned by the waiting
// work-group itself, from the input. In place (output = values, scans only) is safe: a tile
// overwrites only its own items, after it posted; the look-back's recheck makes a total read from
// overwritten items give way to the post.
//
// Bindings: 0 values, 1 output, 2 the scratch (vkc/contract.h's VKC_SEGMENTED_*), 3 an
// IndirectCount's buffer, 4 the head flags (a uint an item) or the keys, 5 the unique keys (the first
// key of each segment; non-trivial runs: their first indices), 6 the number of segments.
//
// Non-trivial runs ride on the same pairs: an item is a head where it is a run's second item (so the
// heads count the non-trivial runs begun so far), and that item's value is the run's first index
// (every other value 0), so at the run's last item the pair holds the run's number + 1 and its first
// index, and the length is the distance to it.
#include "vkc/contract.h"

layout(local_size_x_id = VKC_SPEC_WORKGROUP_SIZE_X, local_size_y_id = VKC_SPEC_WORKGROUP_SIZE_Y,
       local_size_z_id = VKC_SPEC_WORKGROUP_SIZE_Z) in;
layout(constant_id = VKC_SPEC_SUBGROUPS_PACKED) const bool subgroups_packed = true;
layout(constant_id = VKC_SPEC_KERNEL) const uint segmented_shape = 1u << VKC_SEGMENTED_KEY_WORDS_SHIFT;
const bool by_keys = (segmented_shape & 15u) == 1u;
const bool by_offsets = (segmented_shape & 15u) == 2u;
const uint key_words = ((segmented_shape >> VKC_SEGMENTED_KEY_WORDS_SHIFT) & 15u) == 2u ? 2u : 1u;
const uint key_order = (segmented_shape >> VKC_SEGMENTED_KEY_ORDER_SHIFT) & 15u;
const uint output_kind = (segmented_shape >> VKC_SEGMENTED_OUTPUT_SHIFT) & 15u;
const uint OUT_INCLUSIVE = 0u, OUT_EXCLUSIVE = 1u, OUT_REDUCE = 2u, OUT_RUN_LENGTHS = 3u, OUT_NON_TRIVIAL = 4u;
const uint ORDER_FLOAT = 2u;
#define VKC_SUBGROUPS_PACKED subgroups_packed
// Mesa 22 sizes shared arrays from the unspecialised work-group size (1): literal capacities.
#define VKC_SCRATCH_CAPACITY VKC_SEGMENTED_WORKGROUP_SIZE
#define VKC_ITEMS VKC_SEGMENTED_ITEMS
// 8- and 16-bit values (the char, uchar, short and ushort modules) are loaded and stored at their
// width and combined as 32-bit integers: add, mul and the bitwise and logical operators give the
// type's wrapped result once narrowed; min and max of narrow values stay in the type's range, all
// but their identity, which saturates to it (an exclusive min's first item: the type's largest).
// Half values are combined as floats and rounded to half once, when stored: a sum of many halves
// keeps float precision (the rounding a step at a time would lose), and min and max are exact.
#if ITEM_BYTES < 4
#if ITEM_BYTES == 1
#extension GL_EXT_shader_8bit_storage : require
#else
#extension GL_EXT_shader_16bit_storage : require
#endif
#if ITEM_FLOAT
#define VALUE_TYPE float
#elif ITEM_SIGNED
#define VALUE_TYPE int
#else
#define VALUE_TYPE uint
#endif
#else
#define VALUE_TYPE ITEM_TYPE
#endif
#define VKC_SEGMENTED_TYPE VALUE_TYPE
#define VKC_SEGMENTED_OP ITEM_OP
#include "vkc/block_segmented.glsl"
#include "vkc/look_back_types.glsl"

const uint VALUE_WORDS = ITEM_BYTES == 8 ? 2u : 1u;

layout(set = 0, binding = 0, std430) readonly buffer Values { uint values_in[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Output { uint output_words[]; };
layout(set = 0, binding = 2, std430) coherent buffer State { uint state[]; };
layout(set = 0, binding = 3, std430) readonly buffer IndirectCount { uint indirect_count_words[]; };
layout(set = 0, binding = 4, std430) readonly buffer Heads { uint heads_in[]; };
layout(set = 0, binding = 5, std430) writeonly buffer UniqueKeys { uint unique_keys_out[]; };
layout(set = 0, binding = 6, std430) writeonly buffer Segments { uint segments_out[]; };
// The values, heads and output seen 16 bytes at a time (the same bindings): an invocation's blocked
// items are consecutive words, and loading them a word at a time left the tile's time to the load
// instructions (on an H200, scan by key ran 1.6 x faster with these).
layout(set = 0, binding = 0, std430) readonly buffer ValueVectors { uvec4 value_vectors[]; };
layout(set = 0, binding = 4, std430) readonly buffer HeadVectors { uvec4 head_vectors[]; };
layout(set = 0, binding = 1, std430) writeonly buffer OutputVectors { uvec4 output_vectors[]; };
#if ITEM_BYTES < 4
layout(set = 0, binding = 0, std430) readonly buffer NarrowValues { ITEM_TYPE narrow_values[]; };
layout(set = 0, binding = 1, std430) writeonly buffer NarrowOutput { ITEM_TYPE narrow_output[]; };
#endif

layout(push_constant, std430) uniform Params {
    uint count;  // items (with FLAG_COUNT_ON_DEVICE: at most this many)
    uint tiles;  // tiles the grid covers
    uint flags;
    uint limits; // polls of an unposted status before scanning that tile from its input
    uint segment_count; // by offsets: the segments (binding 4 holds segment_count + 1 offsets)
} params;

const uint SIZE = VKC_SEGMENTED_WORKGROUP_SIZE;
const uint TILE = VKC_SEGMENTED_WORKGROUP_SIZE * VKC_SEGMENTED_ITEMS;
const uint HEADS_MASK = (1u << 30u) - 1u;

bool has_flag(uint f) { return (params.flags & f) != 0u; }

uint item_count() {
    if (!has_flag(VKC_SEGMENTED_FLAG_COUNT_ON_DEVICE)) return params.count;
    return min(indirect_count_words[params.flags >> VKC_DEVICE_COUNT_WORD_SHIFT], params.count);
}

// Run lengths and non-trivial runs read no values: 1 and 0 an item.
const bool reads_values = output_kind != OUT_RUN_LENGTHS && output_kind != OUT_NON_TRIVIAL;
VALUE_TYPE value_from(uvec2 bits) {
    if (!reads_values) return output_kind == OUT_RUN_LENGTHS ? VALUE_TYPE(1) : VALUE_TYPE(0);
    return vkc_segment_from_bits(bits, VALUE_TYPE(0));
}
VALUE_TYPE load_value(uint index) {
    if (!reads_values) return value_from(uvec2(0u));
#if ITEM_BYTES < 4
    return VALUE_TYPE(narrow_values[index]); // sign- or zero-extended, or a half widened exactly
#else
    return value_from(uvec2(values_in[index * VALUE_WORDS], VALUE_WORDS == 2u ? values_in[index * VALUE_WORDS + 1u] : 0u));
#endif
}
void store_value(uint index, VALUE_TYPE value) {
#if ITEM_BYTES < 4
#if !ITEM_FLOAT && (defined(ITEM_OP_min) || defined(ITEM_OP_max))
    const int bits = 8 * ITEM_BYTES;
    value = ITEM_SIGNED != 0 ? VALUE_TYPE(clamp(int(value), -(1 << (bits - 1)), (1 << (bits - 1)) - 1))
                             : VALUE_TYPE(min(uint(value), (1u << bits) - 1u));
#endif
    narrow_output[index] = ITEM_TYPE(value);
#else
    uvec2 bits = vkc_segment_bits(value);
    output_words[index * VALUE_WORDS] = bits.x;
    if (VALUE_WORDS == 2u) output_words[index * VALUE_WORDS + 1u] = bits.y;
#endif
}
// An invocation's VKC_ITEMS values from item `first` (a multiple of VKC_ITEMS), 16 bytes at a time.
void store_whole(uint first, VALUE_TYPE values[VKC_ITEMS]) {
    [[unroll]] for (uint q = 0u; q < VKC_ITEMS * VALUE_WORDS / 4u; ++q) {
        uvec4 v;
        [[unroll]] for (uint c = 0u; c < 4u; ++c) {
            const uint word = 4u * q + c;
            const uvec2 bits = vkc_segment_bits(values[word / VALUE_WORDS]);
            v[c] = word % VALUE_WORDS == 0u ? bits.x : bits.y;
        }
        output_vectors[first * VALUE_WORDS / 4u + q] = v;
    }
}

// ---- segments: head flags, or runs of equal keys ----
uvec2 load_key(uint index) {
    return uvec2(heads_in[index * key_words], key_words == 2u ? heads_in[index * key_words + 1u] : 0u);
}
bool is_nan(uvec2 x) {
    if (key_words == 1u) return (x.x & 0x7fffffffu) > 0x7f800000u;
    uint high = x.y & 0x7fffffffu;
    return high > 0x7ff00000u || (high == 0x7ff00000u && x.x != 0u);
}
bool is_zero(uvec2 x) { return (x[key_words - 1u] & 0x7fffffffu) == 0u && (key_words == 1u || x.x == 0u); }
// Keys equal as numbers of their type: floats with -0 == +0 and a NaN equal to nothing.
bool equal_keys(uvec2 p, uvec2 q) {
    if (key_order != ORDER_FLOAT) return p == q;
    if (is_nan(p) || is_nan(q)) return false;
    return p == q || (is_zero(p) && is_zero(q));
}
// Whether item `index` (< the count) starts a segment; with keys, `key` is its key.
bool head_at(uint index, uvec2 key) {
    if (index == 0u) return true;
    if (by_keys) return !equal_keys(key, load_key(index - 1u));
    return heads_in[index] != 0u;
}

// ---- segments by offsets: segment s holds items [offsets[s], offsets[s + 1]) ----
// A tile stages the offsets its items fall between in shared memory (where they fit; many empty
// segments may not), and each invocation finds its first item's segment by binary search and walks
// on from there. Items outside [offsets[0], offsets[S]) belong to no segment: they are the identity
// and a head starts the gap after the last segment, so no segment's total takes them in.
// Small: shared memory is occupancy here (a larger stage, or a tile stage for coalesced accesses,
// made every case slower on an H200); a tile with more offsets searches them in memory.
const uint OFFSET_STAGE = 258u;
shared uint staged_offsets[OFFSET_STAGE];
shared uint stage_base, stage_end; // offsets[stage_base, stage_end] are staged, where stage_end - stage_base < OFFSET_STAGE
shared uint empty_begin, empty_end; // the segments whose emptiness this tile writes
uint offset_at(int k, bool staged) {
    if (k < 0) return 0u;
    return staged ? staged_offsets[uint(k) - stage_base] : heads_in[uint(k)];
}
// The first k in [lo, hi] with offsets[k] > i (or >= i with `or_equal`), hi + 1 where there is none.
int offset_bound(uint i, bool or_equal, int lo, int hi, bool staged) {
    while (lo <= hi) {
        int mid = (lo + hi) >> 1;
        uint o = offset_at(mid, staged);
        if (o > i || (or_equal && o == i)) hi = mid - 1;
        else lo = mid + 1;
    }
    return lo;
}
// Whole work-group: stage the offsets of the tile's items [t0, t0 + TILE), and name the segments
// whose start lies there (the last tile: from t0 on), which write their identity when empty.
bool stage_offsets(uint t0, bool last_tile) {
    const int segments = int(params.segment_count);
    if (gl_LocalInvocationIndex == 0u) {
        int begin = offset_bound(t0, true, 0, segments, false);          // first offset >= t0
        int end = last_tile ? segments + 1 : offset_bound(t0 + TILE, true, begin, segments, false);
        stage_base = uint(max(begin - 1, 0));
        stage_end = uint(min(end, segments));
        empty_begin = uint(begin);
        empty_end = uint(min(end, segments));
    }
    barrier();
    const bool staged = stage_end - stage_base < OFFSET_STAGE;
    if (staged) {
        for (uint k = stage_base + gl_LocalInvocationIndex; k <= stage_end; k += SIZE) {
            staged_offsets[k - stage_base] = heads_in[k];
        }
    }
    barrier();
    return staged;
}
// An item's segment k (-1 before offsets[0], S from offsets[S] on), for `count` items from `first`
// (blocked, consecutive); `staged`: the tile's offsets are in shared memory, and the segments of
// its items lie in [stage_base - 1, stage_end].
void offset_segments(uint first, uint count, bool staged, out int segment[VKC_ITEMS]) {
    const int segments = int(params.segment_count);
    const int lo = staged ? int(stage_base) : 0, hi = staged ? int(stage_end) : segments;
    int k = offset_bound(first, false, lo, hi, staged) - 1;
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
        uint at = first + i;
        while (k < segments && at < count && offset_at(k + 1, staged) <= at) ++k;
        segment[i] = k;
    }
}

// Whether an invocation's items all lie below the count and it loads (and scans store) their words
// 16 bytes at a time. Not by offsets: there values outside every segment are neither read nor written.
// 8- and 16-bit values take the item by item path.
bool whole_items(uint first, uint count) { return ITEM_BYTES >= 4 && !by_offsets && first + VKC_ITEMS <= count; }
// The words of `words_an_item` x VKC_ITEMS from word `at` (a multiple of 4) of the values or heads.
void load_words(bool heads, uint at, uint words_an_item, out uint words[2 * VKC_ITEMS]) {
    [[unroll]] for (uint q = 0u; q < 2u * VKC_ITEMS / 4u; ++q) {
        if (q < words_an_item * VKC_ITEMS / 4u) {
            const uvec4 v = heads ? head_vectors[at / 4u + q] : value_vectors[at / 4u + q];
            [[unroll]] for (uint c = 0u; c < 4u; ++c) words[4u * q + c] = v[c];
        }
    }
}

// Whether an invocation's item i (at = its index, below the count) starts a run of keys: its key
// differs from item i - 1's (keys[i - 1]; for i = 0 the key before it is loaded).
bool starts_run(uint i, uint at, uvec2 keys[VKC_ITEMS]) {
    return i == 0u ? head_at(at, keys[0]) : !equal_keys(keys[i], keys[i - 1u]);
}
// Item i's pair (at = its index, below the count), by keys or head flags: a head where its run of
// keys starts or its flag is set; for non-trivial runs a head at a run's second item, valued the
// run's first index. `run_head_before`: whether item i - 1 starts a run (non-trivial runs; set here
// for item i + 1).
VKC_SEGMENT pair_at(uint i, uint at, uvec2 keys[VKC_ITEMS], uint flag, VALUE_TYPE value, inout bool run_head_before) {
    if (!by_keys) return vkc_segment(at == 0u || flag != 0u, value);
    const bool head = starts_run(i, at, keys);
    if (output_kind != OUT_NON_TRIVIAL) return vkc_segment(head, value);
    const bool previous_head = i == 0u ? at == 1u || head_at(at - 1u, load_key(at - 1u)) : run_head_before;
    const bool second = !head && previous_head;
    run_head_before = head;
    return vkc_segment(second, VALUE_TYPE(second ? at - 1u : 0u));
}

// A tile's items, blocked: invocation t holds tile items t * VKC_ITEMS + i. Items past the count
// are the identity pair and no head. By offsets, `segment` is each item's segment.
void load_tile(uint tile, uint count, bool staged, out VKC_SEGMENT items[VKC_ITEMS], out uvec2 keys[VKC_ITEMS],
               out int segment[VKC_ITEMS]) {
    const uint first = tile * TILE + gl_LocalInvocationIndex * VKC_ITEMS;
    bool run_head_before = false;
    if (whole_items(first, count)) { // its own loop: folded into the other, it ran 15 to 22 % slower
        const uint head_words = by_keys ? key_words : 1u;
        uint value_words[2 * VKC_ITEMS], heads_words[2 * VKC_ITEMS];
        if (reads_values) load_words(false, first * VALUE_WORDS, VALUE_WORDS, value_words);
        load_words(true, first * head_words, head_words, heads_words);
        [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
            segment[i] = 0;
            keys[i] = by_keys ? uvec2(heads_words[i * key_words], key_words == 2u ? heads_words[i * key_words + 1u] : 0u)
                              : uvec2(0u);
            const uvec2 bits = uvec2(value_words[i * VALUE_WORDS], VALUE_WORDS == 2u ? value_words[i * VALUE_WORDS + 1u] : 0u);
            items[i] = pair_at(i, first + i, keys, heads_words[i], value_from(bits), run_head_before);
        }
        return;
    }
    if (by_offsets) offset_segments(first, count, staged, segment);
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
        uint at = first + i;
        keys[i] = uvec2(0u);
        items[i] = vkc_segment_identity();
        if (!by_offsets) segment[i] = 0;
        if (at >= count) continue;
        if (by_offsets) {
            const int k = segment[i];
            const bool inside = k >= 0 && k < int(params.segment_count);
            const bool head = at == 0u || (k >= 0 && offset_at(k, staged) == at);
            items[i] = vkc_segment(head, inside ? load_value(at) : VKC_SEGMENT_OP_IDENTITY);
            continue;
        }
        if (by_keys) keys[i] = load_key(at);
        items[i] = pair_at(i, at, keys, by_keys ? 0u : heads_in[at], load_value(at), run_head_before);
    }
}

// ---- the look-back over tiles' (heads, value) pairs ----
const uint VALUE_PIECES = 2u * VALUE_WORDS; // 16-bit pieces of a value's bits
uint status_at(uint tile) { return VKC_SEGMENTED_STATUSES + tile * VKC_SEGMENTED_STATUS_SLOT; }
void post_status(uint tile, uint flag, VKC_SEGMENT value) {
    const uint at = status_at(tile);
    atomicStore(state[at], (flag << 30u) | value.x, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
    [[unroll]] for (uint k = 0u; k < VALUE_PIECES; ++k) {
        uint piece = ((k < 2u ? value.y : value.z) >> (16u * (k & 1u))) & 0xffffu;
        atomicStore(state[at + 1u + k], (flag << 30u) | piece, gl_ScopeDevice, gl_StorageSemanticsBuffer,
                    gl_SemanticsRelaxed);
    }
}
// A status is read whole: a flag that differs between its words means a post in between (not yet).
void read_status(uint tile, uint after, out uint flag, out VKC_SEGMENT value) {
    uint zero = after & ((params.flags >> VKC_SEGMENTED_FLAG_ZERO_SHIFT) & 1u); // never set: the read depends on `after`
    const uint at = status_at(tile) + zero;
    uint word = atomicLoad(state[at], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
    flag = word >> 30u;
    value = uvec3(word & HEADS_MASK, 0u, 0u);
    bool same = true;
    [[unroll]] for (uint k = 0u; k < VALUE_PIECES; ++k) {
        uint w = atomicLoad(state[at + 1u + k], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
        same = same && (w >> 30u) == flag;
        uint piece = (w & 0xffffu) << (16u * (k & 1u));
        if (k < 2u) value.y |= piece;
        else value.z |= piece;
    }
    flag = same ? flag : VKC_STATUS_NONE;
}
// The fallback: a tile's aggregate from its input, by the whole work-group.
VKC_SEGMENT tile_aggregate(uint tile) {
    VKC_SEGMENT items[VKC_ITEMS];
    uvec2 keys[VKC_ITEMS];
    int segment[VKC_ITEMS];
    load_tile(tile, item_count(), false, items, keys, segment);
    VKC_SEGMENT before;
    return vkc_block_segmented_prepare(items, before);
}
#define VKC_TYPE VKC_SEGMENT
#define VKC_OP segmented
#define VKC_CUSTOM_COMBINE(a, b) VKC_SEGMENT_COMBINE(a, b)
#define VKC_CUSTOM_IDENTITY VKC_SEGMENT_IDENTITY
#define VKC_LOOK_BACK_READ(tile, after, flag, value) read_status(tile, after, flag, value)
#define VKC_LOOK_BACK_POST(tile, flag, value) post_status(tile, flag, value)
#define VKC_LOOK_BACK_FALLBACK(tile) tile_aggregate(tile)
#define VKC_LOOK_BACK_BITS(p) ((p).x ^ (p).y ^ (p).z)
#define VKC_LOOK_BACK_CAPACITY VKC_SEGMENTED_WORKGROUP_SIZE
#include "vkc/look_back.glsl"

shared uint tile_index;
// Scans by offsets write only the items of a segment; other segments' kinds have every item in one.
bool in_segment(int k) { return !by_offsets || (k >= 0 && k < int(params.segment_count)); }
const uint LOOK_BACK_WINDOW = 32u;

void write_segments(uint segments) {
    segments_out[(params.flags >> VKC_SEGMENTED_SEGMENTS_WORD_SHIFT) & 63u] = segments;
}

void main() {
    const uint t = gl_LocalInvocationIndex;
    if (t == 0u) {
        tile_index = atomicAdd(state[VKC_SEGMENTED_TICKET], 1u);
        vkc_look_back_reset_segmented_uvec3();
    }
    barrier();
    const uint tile = tile_index;
    const uint count = item_count();
    // By offsets, one tile even for no items: empty segments still get their identity.
    const uint tiles = max((count + TILE - 1u) / TILE, by_offsets ? 1u : 0u);
    const bool reducing = output_kind >= OUT_REDUCE;
    if (tile >= tiles) { // uniform: a work-group past the count (an IndirectCount's, or count 0)
        if (tile == 0u && t == 0u && reducing && !by_offsets) write_segments(0u);
        return;
    }
    VKC_SEGMENT items[VKC_ITEMS];
    uvec2 keys[VKC_ITEMS];
    int segment[VKC_ITEMS];
    const bool staged = by_offsets && stage_offsets(tile * TILE, tile == tiles - 1u);
    load_tile(tile, count, staged, items, keys, segment);
    if (by_offsets && output_kind == OUT_REDUCE) { // the empty segments that start in this tile
        for (uint s = empty_begin + t; s < empty_end; s += SIZE) {
            if (offset_at(int(s), staged) == offset_at(int(s) + 1, staged)) store_value(s, VKC_SEGMENT_OP_IDENTITY);
        }
    }
    bool heads[VKC_ITEMS];
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) heads[i] = items[i].x != 0u;
    VKC_SEGMENT before;
    const VKC_SEGMENT aggregate = vkc_block_segmented_prepare(items, before);
    const VkcLookBackConfig config =
        VkcLookBackConfig(LOOK_BACK_WINDOW, params.limits & 0xffffu, has_flag(VKC_SEGMENTED_FLAG_FORCE_FALLBACK),
                          has_flag(VKC_SEGMENTED_FLAG_IN_PLACE));
    bool seeded;
    const VKC_SEGMENT prefix = vkc_look_back_prefix_segmented_uvec3(tile, tiles, aggregate, config, seeded);
    const VKC_SEGMENT seed = seeded ? vkc_segment_combine(prefix, before) : before;
    const uint first = tile * TILE + t * VKC_ITEMS;
    if (output_kind == OUT_INCLUSIVE || output_kind == OUT_EXCLUSIVE) {
        VALUE_TYPE scanned[VKC_ITEMS];
        VKC_SEGMENT running = seed;
        [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
            const VKC_SEGMENT before = running;
            running = vkc_segment_combine(running, items[i]);
            scanned[i] = output_kind == OUT_EXCLUSIVE ? vkc_segment_exclusive(heads[i], before) : vkc_segment_value(running);
        }
        if (whole_items(first, count)) {
            store_whole(first, scanned);
            return;
        }
        [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
            uint at = first + i;
            if (at < count && in_segment(segment[i])) store_value(at, scanned[i]);
        }
        return;
    }
    vkc_block_segmented_apply(items, seed);
    if (output_kind == OUT_NON_TRIVIAL) {
        // A run's last item, where the run has two items or more, writes its first index and length.
        [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
            const uint at = first + i;
            if (at >= count) continue;
            const bool last = at + 1u == count;
            const bool run_head = starts_run(i, at, keys);
            const bool tail = last || (i + 1u < VKC_ITEMS ? !equal_keys(keys[i + 1u], keys[i]) : head_at(at + 1u, load_key(at + 1u)));
            if (tail && !run_head) {
                const uint run = items[i].x - 1u, run_first = uint(vkc_segment_value(items[i]));
                unique_keys_out[run] = run_first;
                store_value(run, VALUE_TYPE(at + 1u - run_first));
            }
            if (last) write_segments(items[i].x);
        }
        return;
    }
    if (by_offsets) { // a segment's last item writes its total at the segment's number
        [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
            const int k = segment[i];
            const uint at = first + i;
            if (at < count && k >= 0 && k < int(params.segment_count) && offset_at(k + 1, staged) == at + 1u) {
                store_value(uint(k), vkc_segment_value(items[i]));
            }
        }
        return;
    }
    // Reduce and run lengths: a segment's last item writes its total, its first item its key.
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
        uint at = first + i;
        if (at >= count) continue;
        uint segment = items[i].x - 1u;
        if (by_keys && heads[i]) {
            unique_keys_out[segment * key_words] = keys[i].x;
            if (key_words == 2u) unique_keys_out[segment * key_words + 1u] = keys[i].y;
        }
        bool last = at + 1u == count;
        bool tail = last;
        if (!last) {
            if (i + 1u < VKC_ITEMS) {
                tail = heads[i + 1u];
            } else {
                tail = head_at(at + 1u, by_keys ? load_key(at + 1u) : uvec2(0u));
            }
        }
        if (tail) store_value(segment, vkc_segment_value(items[i]));
        if (last) write_segments(items[i].x);
    }
}
