#version 450
#extension GL_GOOGLE_include_directive : require
// vkc/block_segmented.glsl in a kernel of its own (tests/test_glsl_pieces.cpp): each work-group
// scans its own tile of 64 x 4 int items by max, restarting at nonzero head flags (and at the tile's
// start), and writes each item's inclusive and exclusive value, and each tile's number of heads.
layout(local_size_x = 64) in;
// Whether the device packs the work-group's subgroups in local-index order (the host asks
// vkc::Context::subgroups_packed); where not, the tile's scan takes its shared-memory algorithm.
layout(constant_id = 1) const bool subgroups_packed = true;
#define VKC_SUBGROUPS_PACKED subgroups_packed

layout(set = 0, binding = 0, std430) readonly buffer Values { int values[]; };
layout(set = 0, binding = 1, std430) readonly buffer Heads { uint heads[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Scanned { int scanned[]; }; // inclusive, exclusive a item
layout(set = 0, binding = 3, std430) writeonly buffer TileHeads { uint tile_heads[]; };

#define VKC_ITEMS 4
#define VKC_SEGMENTED_TYPE int
#define VKC_SEGMENTED_OP max
#include "vkc/block_segmented.glsl"

void main() {
    const uint first = gl_WorkGroupID.x * 256u + gl_LocalInvocationIndex * VKC_ITEMS;
    VKC_SEGMENT items[VKC_ITEMS];
    bool head[VKC_ITEMS];
    for (uint i = 0u; i < VKC_ITEMS; ++i) {
        head[i] = heads[first + i] != 0u;
        items[i] = vkc_segment(head[i], values[first + i]);
    }
    VKC_SEGMENT before;
    const VKC_SEGMENT total = vkc_block_segmented_prepare(items, before);
    VKC_SEGMENT running = before;
    for (uint i = 0u; i < VKC_ITEMS; ++i) {
        scanned[2u * (first + i) + 1u] = vkc_segment_exclusive(head[i], running);
        running = vkc_segment_combine(running, items[i]);
    }
    vkc_block_segmented_apply(items, before);
    for (uint i = 0u; i < VKC_ITEMS; ++i) scanned[2u * (first + i)] = vkc_segment_value(items[i]);
    if (gl_LocalInvocationIndex == 0u) tile_heads[gl_WorkGroupID.x] = vkc_segment_heads(total);
}
