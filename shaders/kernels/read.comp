#version 450
#extension GL_GOOGLE_include_directive : require
// The read-bandwidth ceiling the reduce benchmark compares with: every invocation reads uvec4s of
// params.count uint items (a multiple of 4), grid-strided with four loads in flight, and writes only
// if their xor is a value the data never gives. Internal module "read".

#include "vkc/contract.h" // the specialization-constant ids the runtime sets
layout(local_size_x_id = VKC_SPEC_WORKGROUP_SIZE_X, local_size_y_id = VKC_SPEC_WORKGROUP_SIZE_Y,
       local_size_z_id = VKC_SPEC_WORKGROUP_SIZE_Z) in;
layout(set = 0, binding = 0, std430) readonly buffer Input { uvec4 items_in[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Output { uint sink[]; };
#include "params.glsl"

void main() {
    const uint size = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;
    uint stride = params.group_count * size;
    uint vectors = params.count / 4u;
    uint i = linear_group_id() * size + gl_LocalInvocationIndex;
    uvec4 acc = uvec4(0u);
    for (; i + 3u * stride < vectors; i += 4u * stride) {
        acc ^= items_in[i] ^ items_in[i + stride] ^ items_in[i + 2u * stride] ^ items_in[i + 3u * stride];
    }
    for (; i < vectors; i += stride) {
        acc ^= items_in[i];
    }
    if (acc.x == 0x9e3779b9u && acc.y == 0x7f4a7c15u && acc.z == 0x85ebca6bu && acc.w == params.source_dims) {
        sink[0] = acc.x; // never, for the benchmark's data; keeps the loads alive
    }
}
