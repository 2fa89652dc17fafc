// vkcollectives: device-wide select, unique and partition of 8- to 64-bit items (vkc::SelectPlan,
// Context::select), in one dispatch. Each work-group takes a tile of 4096 items by ticket, decides
// which it keeps (a flag, a predicate, or a run head), posts how many, places its kept items among
// themselves (vkc/block_select.glsl), finds the items kept before the tile by a decoupled look-back
// (vkc/look_back.glsl) and stores them there, in input order. Partition stores the others from the
// end of the output backwards (CUB's DevicePartition). The last tile writes the number kept, and
// the indirect command built from it.
//
// Forward progress: Vulkan promises none between work-groups, so the look-back never waits without
// bound: a tile whose status stays unposted for spin_limit polls is counted by the waiting
// work-group itself, from the input (vkc/look_back.glsl). In place (output = input) is safe for
// select and unique: a tile stores only below its own end, so a tile's input is overwritten by that
// tile alone, after it posted; the look-back's recheck makes a count read from overwritten items
// give way to the post. Unique reads the item before the tile: a tile before it rewrites that item
// only when every item so far was kept, with its own value.
//
// A kernel template: shaders/kernels/select.comp is this file after `#version 450` and the
// extensions GL_GOOGLE_include_directive and GL_KHR_memory_scope_semantics (vkc/common.glsl enables
// the rest). An engine compiles its own predicate into the same kernel: in its own compute shader,
// after those lines, `#define VKC_SELECT_USER_PREDICATE name`, include this file, then define
// `bool name(uvec2 item, uint index)` (item: the low word, and the high word of 64-bit items; index:
// the item's place in the input; it may read the bindings below, or its own in set 1). The library's
// plans run that SPIR-V where vkc::SelectOptions::kernel gives it (tests/shaders/select_user_predicate.comp
// is one).
//
// Bindings: 0 items in, 1 items out, 2 the scratch (vkc/contract.h's VKC_SELECT_*), 3 an
// IndirectCount's buffer, 4 the flags (uint a item), 5 the number kept, 6 the indirect command.
#include "vkc/contract.h"
#if !defined(VKC_SUBGROUP_ARITHMETIC) || VKC_SUBGROUP_ARITHMETIC
#extension GL_KHR_shader_subgroup_ballot : require // vkc/block_select.glsl's mask
#endif
// The library's modules for 8- and 16-bit items (ITEM_BYTES 1 or 2: select_uchar, select_ushort)
// read and write them through 8- and 16-bit views of bindings 0 and 1; otherwise items are 1 or 2
// 32-bit words, as the kernel constant says.
#if defined(ITEM_BYTES) && ITEM_BYTES < 4
#define VKC_SELECT_SMALL_BYTES ITEM_BYTES
#if ITEM_BYTES == 1
#extension GL_EXT_shader_8bit_storage : require
#define VKC_SELECT_SMALL uint8_t
#else
#extension GL_EXT_shader_16bit_storage : require
#define VKC_SELECT_SMALL uint16_t
#endif
#endif

layout(local_size_x_id = VKC_SPEC_WORKGROUP_SIZE_X, local_size_y_id = VKC_SPEC_WORKGROUP_SIZE_Y,
       local_size_z_id = VKC_SPEC_WORKGROUP_SIZE_Z) in;
layout(constant_id = VKC_SPEC_SUBGROUPS_PACKED) const bool subgroups_packed = true;
// Words of an item, the selection, partition, the item's order and the predicate (vkc/contract.h's
// VKC_SELECT_*_SHIFT): every choice a plan makes is compiled in.
layout(constant_id = VKC_SPEC_KERNEL) const uint select_shape = 1u;
const uint item_words = (select_shape & 15u) == 2u ? 2u : 1u;
const uint selection = (select_shape >> VKC_SELECT_BY_SHIFT) & 15u;
const bool partitioning = ((select_shape >> VKC_SELECT_PARTITION_SHIFT) & 1u) != 0u;
const uint item_order = (select_shape >> VKC_SELECT_ORDER_SHIFT) & 3u;
const uint predicate_kind = (select_shape >> VKC_SELECT_PREDICATE_SHIFT) & 15u;
#define VKC_SUBGROUPS_PACKED subgroups_packed
// Mesa 22 sizes shared arrays from the unspecialised work-group size (1): literal capacities.
#define VKC_SCRATCH_CAPACITY VKC_SELECT_WORKGROUP_SIZE
#define VKC_SELECT_CAPACITY VKC_SELECT_WORKGROUP_SIZE
#define VKC_ITEMS VKC_SELECT_ITEMS
#include "vkc/block_select.glsl"
#include "vkc/look_back_types.glsl"

layout(set = 0, binding = 0, std430) readonly buffer ItemsIn { uint items_in[]; };
layout(set = 0, binding = 1, std430) writeonly buffer ItemsOut { uint items_out[]; };
#ifdef VKC_SELECT_SMALL_BYTES
layout(set = 0, binding = 0, std430) readonly buffer SmallItemsIn { VKC_SELECT_SMALL small_items_in[]; };
layout(set = 0, binding = 1, std430) writeonly buffer SmallItemsOut { VKC_SELECT_SMALL small_items_out[]; };
const uint SMALL_SIGN = 1u << (8u * VKC_SELECT_SMALL_BYTES - 1u);
const uint SMALL_MASK = (SMALL_SIGN << 1u) - 1u;
#endif
layout(set = 0, binding = 2, std430) coherent buffer State { uint state[]; };
layout(set = 0, binding = 3, std430) readonly buffer IndirectCount { uint indirect_count_words[]; };
layout(set = 0, binding = 4, std430) readonly buffer Flags { uint flags_in[]; };
layout(set = 0, binding = 5, std430) writeonly buffer Kept { uint kept_out[]; };
layout(set = 0, binding = 6, std430) writeonly buffer Command { uint command_out[]; };

layout(push_constant, std430) uniform Params {
    uint count;   // items (with FLAG_COUNT_ON_DEVICE: at most this many)
    uint tiles;   // tiles the grid covers
    uint flags;
    uint limits;  // bits 0-15: polls of an unposted status before counting it; 16-31: a dispatch
                  // command's items a work-group
    uvec2 a, b;   // the predicate's operands (low word first)
} params;

const uint SIZE = VKC_SELECT_WORKGROUP_SIZE;
const uint TILE = VKC_SELECT_WORKGROUP_SIZE * VKC_SELECT_ITEMS;
const uint COUNT_MASK = (1u << 30u) - 1u;
const uint ORDER_UINT = 0u, ORDER_INT = 1u, ORDER_FLOAT = 2u;

bool has_flag(uint f) { return (params.flags & f) != 0u; }

uint item_count() {
    if (!has_flag(VKC_SELECT_FLAG_COUNT_ON_DEVICE)) return params.count;
    return min(indirect_count_words[params.flags >> VKC_DEVICE_COUNT_WORD_SHIFT], params.count);
}

uvec2 load_item(uint index) {
#ifdef VKC_SELECT_SMALL_BYTES
    return uvec2(uint(small_items_in[index]), 0u);
#else
    return uvec2(items_in[index * item_words], item_words == 2u ? items_in[index * item_words + 1u] : 0u);
#endif
}

// ---- what is kept ----
bool is_nan(uvec2 x) {
    if (item_order != ORDER_FLOAT) return false;
#ifdef VKC_SELECT_SMALL_BYTES
    return (x.x & 0x7fffu) > 0x7c00u; // half
#endif
    if (item_words == 1u) return (x.x & 0x7fffffffu) > 0x7f800000u;
    uint high = x.y & 0x7fffffffu;
    return high > 0x7ff00000u || (high == 0x7ff00000u && x.x != 0u);
}
// The item's bits as an unsigned number of the same order (the high word 0 for 32-bit items): ints
// with the sign bit flipped, floats with -0 as +0 and negatives flipped whole.
uvec2 ordered(uvec2 x) {
#ifdef VKC_SELECT_SMALL_BYTES
    uint v = x.x & SMALL_MASK;
    if (item_order == ORDER_INT) {
        v ^= SMALL_SIGN;
    } else if (item_order == ORDER_FLOAT) {
        if ((v & ~SMALL_SIGN) == 0u) v = 0u;
        v = (v & SMALL_SIGN) != 0u ? ~v & SMALL_MASK : v | SMALL_SIGN;
    }
    return uvec2(v, 0u);
#endif
    const uint sign_word = item_words == 2u ? 1u : 0u;
    if (item_order == ORDER_INT) {
        x[sign_word] ^= 0x80000000u;
    } else if (item_order == ORDER_FLOAT) {
        bool zero = (x[sign_word] & 0x7fffffffu) == 0u && (item_words == 1u || x.x == 0u);
        if (zero) x = uvec2(0u);
        if ((x[sign_word] & 0x80000000u) != 0u) x = ~x;
        else x[sign_word] |= 0x80000000u;
        if (item_words == 1u) x.y = 0u;
    }
    return x;
}
bool below(uvec2 p, uvec2 q) { return p.y < q.y || (p.y == q.y && p.x < q.x); } // ordered p < q
bool equal_items(uvec2 p, uvec2 q) {
    if (item_order != ORDER_FLOAT) return p == q;
    return !is_nan(p) && !is_nan(q) && ordered(p) == ordered(q);
}

// The predicate's operands: the item's own bits of them, for 8- and 16-bit items. Read where they
// are used: the 32- and 64-bit kernel's SPIR-V stays as it was before the small items came, which
// NVIDIA's compiler fits in 48 registers (with the operands in locals, 64, and a third slower).
#ifdef VKC_SELECT_SMALL_BYTES
#define VKC_SELECT_A uvec2(params.a.x & SMALL_MASK, 0u)
#define VKC_SELECT_B uvec2(params.b.x & SMALL_MASK, 0u)
#else
#define VKC_SELECT_A params.a
#define VKC_SELECT_B params.b
#endif
// The push constants' predicate (vkc::SelectPredicate::Kind's order).
bool predicate(uvec2 x) {
    const uint kind = predicate_kind;
    if (kind == 8u) return (x & VKC_SELECT_A) == VKC_SELECT_A; // bits_all
    if (kind == 9u) return (x & VKC_SELECT_A) != uvec2(0u); // bits_any
    bool two = kind == 6u || kind == 7u;
    if (is_nan(x) || is_nan(VKC_SELECT_A) || (two && is_nan(VKC_SELECT_B))) return kind == 5u; // not_equal
    uvec2 k = ordered(x), a = ordered(VKC_SELECT_A), b = ordered(VKC_SELECT_B);
    switch (kind) {
    case 0u: return below(k, a);
    case 1u: return !below(a, k);
    case 2u: return below(a, k);
    case 3u: return !below(k, a);
    case 4u: return k == a;
    case 5u: return k != a;
    case 6u: return !below(k, a) && below(k, b);
    default: return below(k, a) || !below(k, b); // 7: outside
    }
}

#ifdef VKC_SELECT_USER_PREDICATE
bool VKC_SELECT_USER_PREDICATE(uvec2 item, uint index); // the engine's, defined after the include
#endif
// Whether item `index` (< the count, its bits `x`) is kept.
bool keeps(uint index, uvec2 x) {
#ifdef VKC_SELECT_USER_PREDICATE
    return VKC_SELECT_USER_PREDICATE(x, index);
#else
    if (selection == VKC_SELECT_BY_FLAGGED) return flags_in[index] != 0u;
    if (selection == VKC_SELECT_BY_UNIQUE) return vkc_block_select_head(index, index > 0u && equal_items(x, load_item(index - 1u)));
    return predicate(x);
#endif
}

// ---- the look-back over tiles' kept counts: a status slot a tile ----
uint status_at(uint tile) { return VKC_SELECT_STATUSES + tile * VKC_SELECT_STATUS_SLOT; }
void post_status(uint tile, uint flag, uint value) {
    atomicStore(state[status_at(tile)], (flag << 30u) | value, gl_ScopeDevice, gl_StorageSemanticsBuffer,
                gl_SemanticsRelaxed);
}
void read_status(uint tile, uint after, out uint flag, out uint value) {
    uint zero = after & ((params.flags >> VKC_SELECT_FLAG_ZERO_SHIFT) & 1u); // never set: the read depends on `after`
    uint word = atomicLoad(state[status_at(tile) + zero], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
    flag = word >> 30u;
    value = word & COUNT_MASK;
}
// The fallback: a tile's kept items counted from its input, by the whole work-group.
uint kept_in_tile(uint tile) {
    const uint count = item_count();
    uint kept = 0u;
    for (uint i = 0u; i < VKC_SELECT_ITEMS; ++i) {
        uint at = tile * TILE + i * SIZE + gl_LocalInvocationIndex;
        if (at < count && keeps(at, load_item(at))) ++kept;
    }
    return vkc_workgroup_reduce_add(kept);
}
#define VKC_TYPE uint
#define VKC_OP add
#define VKC_LOOK_BACK_READ(tile, after, flag, value) read_status(tile, after, flag, value)
#define VKC_LOOK_BACK_POST(tile, flag, value) post_status(tile, flag, value)
#define VKC_LOOK_BACK_FALLBACK(tile) kept_in_tile(tile)
#define VKC_LOOK_BACK_CAPACITY VKC_SELECT_WORKGROUP_SIZE
#include "vkc/look_back.glsl"

// The number kept, and the command built from it (the plan wrote its other words).
void write_kept(uint kept) {
    kept_out[(params.flags >> VKC_SELECT_KEPT_WORD_SHIFT) & 63u] = kept;
    const uint command = (params.flags >> VKC_SELECT_COMMAND_SHIFT) & 3u;
    const uint word = (params.flags >> VKC_SELECT_COMMAND_WORD_SHIFT) & 63u;
    if (command == 1u) { // VkDispatchIndirectCommand.x
        uint group = max(params.limits >> 16u, 1u);
        command_out[word] = kept / group + (kept % group != 0u ? 1u : 0u);
    } else if (command >= 2u) { // the draws' instanceCount
        command_out[word + 1u] = kept;
    }
}

shared uint tile_index;
const uint LOOK_BACK_WINDOW = 32u;

void main() {
    const uint t = gl_LocalInvocationIndex;
    if (t == 0u) {
        tile_index = atomicAdd(state[VKC_SELECT_TICKET], 1u);
        vkc_look_back_reset_add_uint();
    }
    barrier();
    const uint tile = tile_index;
    const uint count = item_count();
    const uint tiles = (count + TILE - 1u) / TILE;
    if (tile >= tiles) { // uniform: a work-group past the count (an IndirectCount's, or count 0)
        if (tile == 0u && t == 0u) write_kept(0u);
        return;
    }
    const uint first = tile * TILE;
    uvec2 items[VKC_SELECT_ITEMS];
    bool keep[VKC_SELECT_ITEMS];
    [[unroll]] for (uint i = 0u; i < VKC_SELECT_ITEMS; ++i) {
        uint at = first + i * SIZE + t;
        items[i] = at < count ? load_item(at) : uvec2(0u);
    }
    [[unroll]] for (uint i = 0u; i < VKC_SELECT_ITEMS; ++i) {
        uint at = first + i * SIZE + t;
        keep[i] = at < count && keeps(at, items[i]);
    }
    // The count is posted before the places are worked out: successors' look-backs, which mostly wait
    // for their predecessors' counts, get it sooner.
    uint mine = 0u;
    [[unroll]] for (uint i = 0u; i < VKC_SELECT_ITEMS; ++i) mine += keep[i] ? 1u : 0u;
    const uint kept = vkc_workgroup_reduce_add(mine);
    vkc_look_back_post_aggregate_add_uint(tile, tiles, kept);
    uint places[VKC_SELECT_ITEMS];
    vkc_block_select_places(keep, places);
    const VkcLookBackConfig config =
        VkcLookBackConfig(LOOK_BACK_WINDOW, params.limits & 0xffffu, has_flag(VKC_SELECT_FLAG_FORCE_FALLBACK),
                          has_flag(VKC_SELECT_FLAG_IN_PLACE));
    bool seeded;
    const uint before = vkc_look_back_prefix_after_aggregate_add_uint(tile, tiles, kept, config, seeded); // 0 for tile 0
    const uint rejected_before = first - before;
    [[unroll]] for (uint i = 0u; i < VKC_SELECT_ITEMS; ++i) {
        uint at = first + i * SIZE + t;
        if (at >= count) continue;
        uint to;
        if (keep[i]) {
            to = before + places[i];
        } else if (partitioning) {
            to = count - 1u - (rejected_before + places[i]);
        } else {
            continue;
        }
        // Stored here, not through a function, for the same reason as VKC_SELECT_A.
#ifdef VKC_SELECT_SMALL_BYTES
        small_items_out[to] = VKC_SELECT_SMALL(items[i].x);
#else
        items_out[to * item_words] = items[i].x;
        if (item_words == 2u) items_out[to * item_words + 1u] = items[i].y;
#endif
    }
    if (tile == tiles - 1u && t == 0u) write_kept(before + kept);
}
