#version 450
#extension GL_GOOGLE_include_directive : require
// The bandwidth ceiling the benchmarks compare with: a copy of params.count uint items, 16 bytes per
// invocation (count must be a multiple of 4). Internal module "copy".

#include "vkc/contract.h" // the specialization-constant ids the runtime sets
layout(local_size_x_id = VKC_SPEC_WORKGROUP_SIZE_X, local_size_y_id = VKC_SPEC_WORKGROUP_SIZE_Y,
       local_size_z_id = VKC_SPEC_WORKGROUP_SIZE_Z) in;
layout(set = 0, binding = 0, std430) readonly buffer Input { uvec4 items_in[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Output { uvec4 items_out[]; };
#include "params.glsl"

void main() {
    uint index = linear_group_id() * (gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z) +
                 gl_LocalInvocationIndex;
    if (index < params.count / 4u) {
        items_out[index] = items_in[index];
    }
}
