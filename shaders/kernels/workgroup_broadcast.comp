#version 450
#extension GL_GOOGLE_include_directive : require

// Declared before the vkc headers: they size shared memory from gl_WorkGroupSize.
#include "vkc/contract.h" // the specialization-constant ids the runtime sets
layout(local_size_x_id = VKC_SPEC_WORKGROUP_SIZE_X, local_size_y_id = VKC_SPEC_WORKGROUP_SIZE_Y,
       local_size_z_id = VKC_SPEC_WORKGROUP_SIZE_Z) in;
// work_group_broadcast over every work-group of a buffer. Built per type with -DITEM_TYPE=<glsl type>.
// The source local id comes in push constants with 1, 2 or 3 coordinates, each form calling its own overload.

#define VKC_TYPE ITEM_TYPE
#include "vkc/workgroup_broadcast.glsl"

layout(set = 0, binding = 0, std430) readonly buffer Input { ITEM_TYPE items_in[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Output { ITEM_TYPE items_out[]; };
#include "params.glsl"

void main() {
    uint group = linear_group_id();
    if (group >= params.group_count) {
        return;
    }
    uint index = group * VKC_WORKGROUP_SIZE + gl_LocalInvocationIndex;
    bool live = index < params.count;
    ITEM_TYPE x = live ? items_in[index] : ITEM_TYPE(0);
    ITEM_TYPE result;
    if (params.source_dims == 3u) {
        result = vkc_workgroup_broadcast(x, params.source.xyz);
    } else if (params.source_dims == 2u) {
        result = vkc_workgroup_broadcast(x, params.source.xy);
    } else {
        result = vkc_workgroup_broadcast(x, params.source.x);
    }
    if (live) {
        items_out[index] = result;
    }
}
