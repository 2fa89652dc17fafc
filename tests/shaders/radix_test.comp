#version 450
#extension GL_GOOGLE_include_directive : require
// vkc/radix_rank.glsl instantiated in a kernel of its own (tests/test_glsl_pieces.cpp): each work-group
// takes one tile of keys (and values), blocked, and ranks it by one digit or sorts it. Built with
// -DVKC_SUBGROUP_ARITHMETIC=0 and 1, TEST_ITEMS items an invocation and TEST_BITS-bit digits
// (tests/CMakeLists.txt).
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const bool subgroups_packed = true;
#define VKC_SUBGROUPS_PACKED subgroups_packed
// Shared memory for the largest work-group the test runs (TEST_CAPACITY, at most 128): Mesa 22 sizes
// shared arrays before specialization, from the work-group size's default (1).
#define VKC_SCRATCH_CAPACITY 128u
#define VKC_RADIX_CAPACITY TEST_CAPACITY
#define VKC_ITEMS TEST_ITEMS
#define VKC_RADIX_BITS TEST_BITS
#include "vkc/radix_rank.glsl"

layout(set = 0, binding = 0, std430) readonly buffer Keys { uint keys_in[]; };
layout(set = 0, binding = 1, std430) readonly buffer Values { uint values_in[]; };
// Rank: the ranks, then after count items each tile's 2^bits + 1 digit starts. Sort: the keys, then
// the values.
layout(set = 0, binding = 2, std430) writeonly buffer Output { uint out_words[]; };
layout(push_constant, std430) uniform Params {
    uint mode; // 0: rank by the digit at begin_bit; 1: sort keys; 2: sort pairs
    uint count;
    uint begin_bit;
    uint end_bit;
    uint descending;
    uint transform; // sorts: 0 uint keys, 1 int, 2 float bits (through vkc_radix_key_*)
} params;

uint to_key(uint x) {
    return params.transform == 1u ? vkc_radix_key_int(int(x)) : params.transform == 2u ? vkc_radix_key_float(x) : x;
}
uint from_key(uint k) {
    return params.transform == 1u ? uint(vkc_radix_int_of_key(k)) : params.transform == 2u ? vkc_radix_float_of_key(k) : k;
}

void main() {
    const uint tile = gl_WorkGroupSize.x * VKC_ITEMS;
    const uint first = gl_WorkGroupID.x * tile + gl_LocalInvocationIndex * VKC_ITEMS;
    const uint count = params.count;
    uint keys[VKC_ITEMS], values[VKC_ITEMS];
    // A partial tile's missing keys sort last.
    const uint pad = params.descending != 0u ? 0u : 0xffffffffu;
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
        keys[i] = first + i < count ? keys_in[first + i] : pad;
        values[i] = first + i < count ? values_in[first + i] : 0u;
    }
    if (params.mode == 0u) {
        uint digits[VKC_ITEMS], ranks[VKC_ITEMS];
        [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) digits[i] = keys[i] >> params.begin_bit;
        uint tile_first = gl_WorkGroupID.x * tile;
        uint item_count = count > tile_first ? min(tile, count - tile_first) : 0u;
        vkc_radix_rank(digits, item_count, ranks);
        [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
            if (first + i < count) out_words[first + i] = ranks[i];
        }
        const uint starts = (1u << VKC_RADIX_BITS) + 1u;
        for (uint d = gl_LocalInvocationIndex; d < starts; d += gl_WorkGroupSize.x) {
            out_words[count + gl_WorkGroupID.x * starts + d] = vkc_radix_digit_start(d);
        }
        return;
    }
    bool descending = params.descending != 0u;
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
        if (first + i < count) keys[i] = to_key(keys[i]);
    }
    if (params.mode == 1u) vkc_radix_sort_keys(keys, params.begin_bit, params.end_bit, descending);
    else vkc_radix_sort_pairs(keys, values, params.begin_bit, params.end_bit, descending);
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
        if (first + i < count) {
            out_words[first + i] = from_key(keys[i]);
            out_words[count + first + i] = values[i];
        }
    }
}
