// vkcollectives: work-group broadcast (OpenCL C work_group_broadcast).
//
// A template: define VKC_TYPE, then include, once per type. For VKC_TYPE = float it defines
//
//   float vkc_workgroup_broadcast(float x, uint local_index);  // linear local id
//   float vkc_workgroup_broadcast(float x, uvec2 local_id);    // (x, y): index x + y*Lx
//   float vkc_workgroup_broadcast(float x, uvec3 local_id);    // (x, y, z): x + y*Lx + z*Lx*Ly
//
// each returning, to every invocation, the x of the invocation named by local_id, bit for bit.
// local_id must be the same in every invocation and inside the work-group; every invocation must
// call it in uniform control flow. Uses one value of shared memory per type; needs no subgroups.

#include "common.glsl"

#ifndef VKC_TYPE
#error "define VKC_TYPE before including vkc/workgroup_broadcast.glsl"
#endif

#define VKC_BROADCAST_SLOT VKC_PASTE(vkc_broadcast_slot_, VKC_TYPE)
shared VKC_TYPE VKC_BROADCAST_SLOT;

VKC_TYPE vkc_workgroup_broadcast(VKC_TYPE x, uint local_index) {
    if (gl_LocalInvocationIndex == local_index) {
        VKC_BROADCAST_SLOT = x;
    }
    barrier();
    VKC_TYPE value = VKC_BROADCAST_SLOT;
    barrier(); // a following broadcast may overwrite the slot only after everyone has read it
    return value;
}

VKC_TYPE vkc_workgroup_broadcast(VKC_TYPE x, uvec2 local_id) {
    return vkc_workgroup_broadcast(x, local_id.x + local_id.y * gl_WorkGroupSize.x);
}

VKC_TYPE vkc_workgroup_broadcast(VKC_TYPE x, uvec3 local_id) {
    return vkc_workgroup_broadcast(
        x, local_id.x + gl_WorkGroupSize.x * (local_id.y + local_id.z * gl_WorkGroupSize.y));
}

#undef VKC_BROADCAST_SLOT
#undef VKC_TYPE
