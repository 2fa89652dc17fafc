#version 450
#extension GL_GOOGLE_include_directive : require
// Per-tile stream compaction, as a culling pass does it: each work-group keeps the items of its tile
// that are below `threshold`, packs them in their order to the front of the tile's range of `kept`,
// and writes how many it kept to `counts`. Tile t holds items [256t, 256t + 256); the last may be short.
//
// Built twice by examples/CMakeLists.txt:
//   glslangValidator -V --target-env vulkan1.1 -I<vkcollectives_GLSL_DIR> compact.comp -o compact_subgroup.spv
//   ... -DVKC_SUBGROUP_ARITHMETIC=0 ... -o compact_shared.spv   (for devices without subgroup arithmetic)

// Before the vkc headers: they size their shared scratch from gl_WorkGroupSize.
layout(local_size_x = 256) in;

// The scan's subgroup path needs subgroup s to hold local indices [s*S, (s+1)*S). Vulkan does not
// promise it, and lavapipe (Mesa 22.3) at 32 lanes or more puts 16 invocations in each subgroup here,
// so the header's default (true) is replaced by a constant the host sets from subgroup_probe.comp.
// false is right on every device: the scan then joins through shared memory only.
layout(constant_id = 0) const bool subgroups_packed = false;
#define VKC_SUBGROUPS_PACKED subgroups_packed

// One instance of the scan template per (type, op); this one defines vkc_workgroup_reduce_add(uint),
// vkc_workgroup_scan_inclusive_add(uint) and vkc_workgroup_scan_exclusive_add(uint), and undefines
// VKC_TYPE and VKC_OP again so another pair can follow.
#define VKC_TYPE uint
#define VKC_OP add
#include "vkc/workgroup_scan.glsl"

layout(set = 0, binding = 0, std430) readonly buffer Items { uint items[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Kept { uint kept[]; };
layout(set = 0, binding = 2, std430) writeonly buffer Counts { uint counts[]; };
layout(push_constant, std430) uniform Params {
    uint count;
    uint threshold;
};

void main() {
    uint i = gl_GlobalInvocationID.x;
    bool keep = i < count && items[i] < threshold;
    // Invocations past `count` call the collectives too, with 0: every invocation of the work-group
    // must reach them (they contain barriers), so none returns early.
    uint slot = vkc_workgroup_scan_exclusive_add(keep ? 1u : 0u);
    uint total = vkc_workgroup_reduce_add(keep ? 1u : 0u);
    if (keep) {
        kept[gl_WorkGroupID.x * gl_WorkGroupSize.x + slot] = items[i];
    }
    if (gl_LocalInvocationIndex == 0u) {
        counts[gl_WorkGroupID.x] = total;
    }
}
