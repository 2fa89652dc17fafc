#version 450
#extension GL_KHR_shader_subgroup_basic : require
// Where the device puts each invocation of a work-group of compact.comp's shape: slot i receives
// subgroup id x subgroup size + lane of local index i. The host compares slot i with i, once per shape.
layout(local_size_x = 256) in;

layout(set = 0, binding = 0, std430) writeonly buffer Slots { uint slots[]; };

void main() {
    slots[gl_LocalInvocationIndex] = gl_SubgroupID * gl_SubgroupSize + gl_SubgroupInvocationID;
}
