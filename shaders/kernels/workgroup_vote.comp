#version 450
#extension GL_GOOGLE_include_directive : require

// Declared before the vkc headers: they size shared memory from gl_WorkGroupSize.
#include "vkc/contract.h" // the specialization-constant ids the runtime sets
layout(local_size_x_id = VKC_SPEC_WORKGROUP_SIZE_X, local_size_y_id = VKC_SPEC_WORKGROUP_SIZE_Y,
       local_size_z_id = VKC_SPEC_WORKGROUP_SIZE_Z) in;
// work_group_all / work_group_any over every work-group of a buffer of uint predicates (non-zero is
// true); writes 1 or 0 per item. Built with -DCOLLECTIVE=<all|any> and -DVKC_SUBGROUP_ARITHMETIC=<0|1>.

#include "vkc/workgroup_vote.glsl"

layout(set = 0, binding = 0, std430) readonly buffer Input { uint items_in[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Output { uint items_out[]; };
#include "params.glsl"

// Items past the end of a short last group vote so as not to change the outcome.
#define PADDING_all true
#define PADDING_any false

void main() {
    uint group = linear_group_id();
    if (group >= params.group_count) {
        return;
    }
    uint index = group * VKC_WORKGROUP_SIZE + gl_LocalInvocationIndex;
    bool live = index < params.count;
    bool predicate = live ? items_in[index] != 0u : VKC_PASTE(PADDING_, COLLECTIVE);
    bool result = VKC_PASTE(vkc_workgroup_, COLLECTIVE)(predicate);
    if (live) {
        items_out[index] = result ? 1u : 0u;
    }
}
