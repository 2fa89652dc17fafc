// vkcollectives: work-group reduce and scans (OpenCL C work_group_reduce/scan_inclusive/scan_exclusive).
//
// A template: define VKC_TYPE (float16_t, int, uint, int64_t, uint64_t, float, double) and VKC_OP
// (add, min, max), then include. Include once per (type, op) pair; the two macros are undefined at the
// end so the next pair can follow. For op = add and type = uint it defines
//
//   uint vkc_workgroup_reduce_add(uint x);          // op over every invocation's x
//   uint vkc_workgroup_scan_inclusive_add(uint x);  // op over x of invocations 0..i (linear local id)
//   uint vkc_workgroup_scan_exclusive_add(uint x);  // op over x of invocations 0..i-1; identity for 0
//
// Example, work-group of 8, x = [3 1 7 0 4 1 6 3]:
//   inclusive [3 4 11 11 15 16 22 25], exclusive [0 3 4 11 11 15 16 22], reduce 25.
//
// Every invocation of the work-group must call them in uniform control flow (they contain barriers).
// Scan order is gl_LocalInvocationIndex = x + y*Lx + z*Lx*Ly. Integer add wraps; float add order is
// unspecified; min/max ignore NaN (see common.glsl). Uses (VKC_SCRATCH_CAPACITY + 1) values of shared
// memory per (type, op); see common.glsl for VKC_SCRATCH_CAPACITY.
//
// The subgroup path needs the usual packing of invocations into subgroups (subgroup s holds local
// indices [s * gl_SubgroupSize, (s + 1) * gl_SubgroupSize)); see VKC_SUBGROUPS_PACKED in common.glsl.

#include "common.glsl"

#if !defined(VKC_TYPE) || !defined(VKC_OP)
#error "define VKC_TYPE and VKC_OP before including vkc/workgroup_scan.glsl"
#endif

#define VKC_SCRATCH VKC_NAME(vkc_scan_scratch_, VKC_OP, VKC_TYPE)
#define VKC_OP_COMBINE VKC_PASTE(vkc_combine_, VKC_OP)
#define VKC_OP_IDENTITY VKC_PASTE(vkc_identity_, VKC_OP)(VKC_TYPE(0))

// Slots [0, subgroups) hold per-subgroup prefixes (subgroup path) or [0, size) per-invocation values
// (shared path); slot `size` holds the work-group total.
shared VKC_TYPE VKC_SCRATCH[VKC_SCRATCH_CAPACITY + 1];

// Shared memory only: a Hillis-Steele scan, log2(size) steps of two barriers each.
void VKC_PASTE(vkc_workgroup_scan_shared_, VKC_OP)(VKC_TYPE x, out VKC_TYPE inclusive, out VKC_TYPE exclusive,
                                                   out VKC_TYPE total) {
    const uint size = VKC_WORKGROUP_SIZE;
    uint index = gl_LocalInvocationIndex;
    VKC_SCRATCH[index] = x;
    barrier();
    for (uint offset = 1u; offset < size; offset <<= 1u) {
        VKC_TYPE left = index >= offset ? VKC_SCRATCH[index - offset] : VKC_OP_IDENTITY;
        VKC_TYPE mine = VKC_SCRATCH[index];
        barrier();
        if (index >= offset) {
            VKC_SCRATCH[index] = VKC_OP_COMBINE(left, mine);
        }
        barrier();
    }
    inclusive = VKC_SCRATCH[index];
    exclusive = index == 0u ? VKC_OP_IDENTITY : VKC_SCRATCH[index - 1u];
    total = VKC_SCRATCH[size - 1u];
}

// Computes the inclusive and exclusive scan of x over the work-group, and its total.
void VKC_PASTE(vkc_workgroup_scan_core_, VKC_OP)(VKC_TYPE x, out VKC_TYPE inclusive, out VKC_TYPE exclusive,
                                                 out VKC_TYPE total) {
    x = VKC_PASTE(vkc_prepare_, VKC_OP)(x);
#if VKC_SUBGROUP_ARITHMETIC
    const uint size = VKC_WORKGROUP_SIZE;
    // Subgroup scans give work-group scans only where invocations are packed into subgroups in
    // local-index order (VKC_SUBGROUPS_PACKED, see common.glsl); elsewhere shared memory does it all.
    if (!VKC_SUBGROUPS_PACKED) {
        VKC_PASTE(vkc_workgroup_scan_shared_, VKC_OP)(x, inclusive, exclusive, total);
    } else {
        const uint size = VKC_WORKGROUP_SIZE;
        VKC_TYPE sub_inclusive = VKC_PASTE(vkc_subgroup_inclusive_, VKC_OP)(x);
        VKC_TYPE sub_exclusive = VKC_PASTE(vkc_subgroup_exclusive_, VKC_OP)(x);
        // The last lane of each subgroup (the last subgroup may be partial) posts its subgroup total.
        uint lanes = min(gl_SubgroupSize, size - gl_SubgroupID * gl_SubgroupSize);
        if (gl_SubgroupInvocationID == lanes - 1u) {
            VKC_SCRATCH[gl_SubgroupID] = sub_inclusive;
        }
        barrier();
        // Subgroup 0 turns the totals into exclusive prefixes, a subgroup-width chunk at a time, since
        // there can be more subgroups than lanes (1024 invocations in subgroups of 2 gives 512 totals).
        // Counted here rather than read from gl_NumSubgroups, which Mesa 22 computes before the
        // work-group size is specialised.
        uint subgroups = (size + gl_SubgroupSize - 1u) / gl_SubgroupSize;
        if (gl_SubgroupID == 0u) {
            VKC_TYPE carry = VKC_OP_IDENTITY;
            for (uint base = 0u; base < subgroups; base += gl_SubgroupSize) {
                uint slot = base + gl_SubgroupInvocationID;
                VKC_TYPE value = slot < subgroups ? VKC_SCRATCH[slot] : VKC_OP_IDENTITY;
                VKC_TYPE before = VKC_PASTE(vkc_subgroup_exclusive_, VKC_OP)(value);
                VKC_TYPE chunk_total = VKC_PASTE(vkc_subgroup_reduce_, VKC_OP)(value);
                if (slot < subgroups) {
                    VKC_SCRATCH[slot] = gl_SubgroupInvocationID == 0u ? carry : VKC_OP_COMBINE(carry, before);
                }
                carry = VKC_OP_COMBINE(carry, chunk_total);
            }
            if (gl_SubgroupInvocationID == 0u) {
                VKC_SCRATCH[size] = carry;
            }
        }
        barrier();
        VKC_TYPE prefix = VKC_SCRATCH[gl_SubgroupID];
        total = VKC_SCRATCH[size];
        inclusive = VKC_OP_COMBINE(prefix, sub_inclusive);
        // Lane 0 takes the prefix as it is: combining it with the built-in's identity could turn -0 into +0.
        exclusive = gl_SubgroupInvocationID == 0u ? prefix : VKC_OP_COMBINE(prefix, sub_exclusive);
    }
#else
    VKC_PASTE(vkc_workgroup_scan_shared_, VKC_OP)(x, inclusive, exclusive, total);
#endif
    // The next collective may rewrite the scratch only after everyone has read it.
    barrier();
}

VKC_TYPE VKC_PASTE(vkc_workgroup_reduce_, VKC_OP)(VKC_TYPE x) {
    VKC_TYPE inclusive, exclusive, total;
    VKC_PASTE(vkc_workgroup_scan_core_, VKC_OP)(x, inclusive, exclusive, total);
    return total;
}

VKC_TYPE VKC_PASTE(vkc_workgroup_scan_inclusive_, VKC_OP)(VKC_TYPE x) {
    VKC_TYPE inclusive, exclusive, total;
    VKC_PASTE(vkc_workgroup_scan_core_, VKC_OP)(x, inclusive, exclusive, total);
    return inclusive;
}

VKC_TYPE VKC_PASTE(vkc_workgroup_scan_exclusive_, VKC_OP)(VKC_TYPE x) {
    VKC_TYPE inclusive, exclusive, total;
    VKC_PASTE(vkc_workgroup_scan_core_, VKC_OP)(x, inclusive, exclusive, total);
    return exclusive;
}

#undef VKC_SCRATCH
#undef VKC_OP_COMBINE
#undef VKC_OP_IDENTITY
#undef VKC_TYPE
#undef VKC_OP
