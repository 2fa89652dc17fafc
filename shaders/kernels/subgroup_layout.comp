#version 450
#extension GL_GOOGLE_include_directive : require
// Probe: how does the device pack the invocations of this work-group shape into subgroups? Writes,
// for each local index of work-group 0, gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID,
// and gl_SubgroupSize after them; the runtime compares with the local index.
#extension GL_KHR_shader_subgroup_basic : require

#include "vkc/contract.h" // the specialization-constant ids the runtime sets
layout(local_size_x_id = VKC_SPEC_WORKGROUP_SIZE_X, local_size_y_id = VKC_SPEC_WORKGROUP_SIZE_Y,
       local_size_z_id = VKC_SPEC_WORKGROUP_SIZE_Z) in;
layout(set = 0, binding = 0, std430) readonly buffer Input { uint items_in[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Output { uint items_out[]; };
#include "params.glsl"

void main() {
    uint index = gl_LocalInvocationIndex;
    if (index < params.count) {
        items_out[index] = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
    }
    if (index == 0u && params.count > gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z) {
        items_out[gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z] = gl_SubgroupSize;
    }
}
