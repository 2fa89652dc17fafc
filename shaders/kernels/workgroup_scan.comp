#version 450
#extension GL_GOOGLE_include_directive : require

// Declared before the vkc headers: they size shared memory from gl_WorkGroupSize.
#include "vkc/contract.h" // the specialization-constant ids the runtime sets
layout(local_size_x_id = VKC_SPEC_WORKGROUP_SIZE_X, local_size_y_id = VKC_SPEC_WORKGROUP_SIZE_Y,
       local_size_z_id = VKC_SPEC_WORKGROUP_SIZE_Z) in;
// One work-group collective of the scan family over every work-group of a buffer.
// Built per variant with -DITEM_TYPE=<glsl type> -DITEM_OP=<add|min|max>
// -DCOLLECTIVE=<reduce|scan_inclusive|scan_exclusive> and -DVKC_SUBGROUP_ARITHMETIC=<0|1>.
// Work-group size: specialization constants 0, 1, 2; 3 says whether subgroups are packed in order.

// Set by the runtime from a probe of how the device packs this work-group shape into subgroups.
layout(constant_id = VKC_SPEC_SUBGROUPS_PACKED) const bool subgroups_packed = true;
#define VKC_SUBGROUPS_PACKED subgroups_packed
// Shared scratch sized by a specialization constant whose default is the largest size: a driver that
// sizes it before specialization (Mesa 22) gets the largest, the others what the shape needs.
layout(constant_id = VKC_SPEC_SCRATCH_CAPACITY) const uint scratch_capacity = VKC_MODULE_CAPACITY;
#define VKC_SCRATCH_CAPACITY scratch_capacity

#include "custom_ops.glsl"
#define VKC_TYPE ITEM_TYPE
#define VKC_OP ITEM_OP
#include "vkc/workgroup_scan.glsl"

layout(set = 0, binding = 0, std430) readonly buffer Input { ITEM_TYPE items_in[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Output { ITEM_TYPE items_out[]; };
#include "params.glsl"

#define COLLECTIVE_FUNCTION VKC_PASTE(VKC_PASTE(vkc_workgroup_, COLLECTIVE), VKC_PASTE(_, ITEM_OP))

void main() {
    uint group = linear_group_id();
    if (group >= params.group_count) {
        return; // the whole work-group leaves together, so no barrier is left waiting
    }
    uint index = group * VKC_WORKGROUP_SIZE + gl_LocalInvocationIndex;
    bool live = index < params.count;
    // Items past the end of a short last group add the identity, so the collective covers live items only.
    ITEM_TYPE x = live ? items_in[index] : ITEM_IDENTITY;
    ITEM_TYPE result = COLLECTIVE_FUNCTION(x);
    if (live) {
        items_out[index] = result;
    }
}
