// vkcollectives: work-group reduce and scans (OpenCL C work_group_reduce/scan_inclusive/scan_exclusive).
//
// A template: define VKC_TYPE and VKC_OP, then include; once per (type, op) pair. The macros are
// undefined at the end so the next pair can follow. For op = add and type = uint it defines
//
//   uint vkc_workgroup_reduce_add(uint x);          // op over every invocation's x
//   uint vkc_workgroup_scan_inclusive_add(uint x);  // op over x of invocations 0..i (linear local id)
//   uint vkc_workgroup_scan_exclusive_add(uint x);  // op over x of invocations 0..i-1; identity for 0
//
// Example, work-group of 8, x = [3 1 7 0 4 1 6 3]:
//   inclusive [3 4 11 11 15 16 22 25], exclusive [0 3 4 11 11 15 16 22], reduce 25.
//
// Types: float16_t, int8_t, uint8_t, int16_t, uint16_t, int, uint, int64_t, uint64_t, float, double.
// Ops: add, mul, min, max for all; and, or, xor, logical_and, logical_or, logical_xor for integers.
// Custom operators: define VKC_CUSTOM_COMBINE(a, b) (associative) and VKC_CUSTOM_IDENTITY, with
// VKC_TYPE any type subgroupShuffleUp takes (a scalar or vector) and VKC_OP a name for the functions;
// in the subgroup path they scan through subgroup shuffles. See shaders/examples/.
//
// Every invocation of the work-group must call them in uniform control flow (they contain barriers).
// Scan order is gl_LocalInvocationIndex = x + y*Lx + z*Lx*Ly. Integer add and mul wrap; float order
// is unspecified; min/max ignore NaN (see common.glsl). Shared memory: VKC_SCRATCH_CAPACITY + 33
// values per (type, op).
//
// Algorithms: with VKC_SUBGROUP_ARITHMETIC (default), subgroup scans joined through shared memory;
// with 0, a raking scan in shared memory (CUB's BLOCK_SCAN_RAKING). The subgroup algorithm needs
// invocations packed into subgroups in local-index order (VKC_SUBGROUPS_PACKED in common.glsl) and
// uses the raking scan where they are not.

#include "common.glsl"

#if !defined(VKC_TYPE) || !defined(VKC_OP)
#error "define VKC_TYPE and VKC_OP before including vkc/workgroup_scan.glsl"
#endif

#define VKC_SCRATCH VKC_NAME(vkc_scan_scratch_, VKC_OP, VKC_TYPE)
#ifdef VKC_CUSTOM_COMBINE
#define VKC_OP_COMBINE(a, b) VKC_CUSTOM_COMBINE(a, b)
#define VKC_OP_IDENTITY (VKC_CUSTOM_IDENTITY)
#define VKC_OP_PREPARE(x) (x)
#define VKC_OP_SUBGROUP_INCLUSIVE VKC_PASTE(vkc_shuffle_inclusive_, VKC_OP)
#define VKC_OP_SUBGROUP_EXCLUSIVE VKC_PASTE(vkc_shuffle_exclusive_, VKC_OP)
#define VKC_OP_CHUNK_TOTAL(before, value, last) subgroupShuffle(VKC_OP_COMBINE(before, value), last)
#else
#define VKC_OP_COMBINE VKC_PASTE(vkc_combine_, VKC_OP)
#define VKC_OP_IDENTITY VKC_PASTE(vkc_identity_, VKC_OP)(VKC_TYPE(0))
#define VKC_OP_PREPARE VKC_PASTE(vkc_prepare_, VKC_OP)
#define VKC_OP_SUBGROUP_INCLUSIVE VKC_PASTE(vkc_subgroup_inclusive_, VKC_OP)
#define VKC_OP_SUBGROUP_EXCLUSIVE VKC_PASTE(vkc_subgroup_exclusive_, VKC_OP)
#define VKC_OP_CHUNK_TOTAL(before, value, last) VKC_PASTE(vkc_subgroup_reduce_, VKC_OP)(value)
#endif

// Up to this many subgroups, each invocation joins the subgroup totals itself.
#define VKC_DIRECT_JOIN_SUBGROUPS 16u
// Raking scans use this many invocations at most, each over a contiguous segment.
#define VKC_RAKING_LANES 32u

// Subgroup algorithm: slots [0, subgroups) hold per-subgroup prefixes and slot `size` the total;
// with few subgroups, every other call takes slots [VKC_DIRECT_JOIN_SUBGROUPS, 2 x that) instead.
// Raking: slots [0, size) hold per-invocation values, [size, size + lanes) segment prefixes and
// slot size + lanes the total.
shared VKC_TYPE VKC_SCRATCH[VKC_SCRATCH_CAPACITY + VKC_RAKING_LANES + 1];
// Which half the next call with few subgroups takes (VKC_SCAN_ALTERNATE_HALVES): consecutive calls
// alternate, so a call's writes cannot meet the reads of the call before it (every invocation has
// passed the barrier of the call in between), and that path needs no trailing barrier.
uint VKC_NAME(vkc_scan_half_, VKC_OP, VKC_TYPE) = 0u;

#if VKC_SUBGROUP_ARITHMETIC && defined(VKC_CUSTOM_COMBINE)
// Subgroup scans of a custom operator: Hillis-Steele over subgroupShuffleUp. Lanes read only lower
// lanes, which are live even in a partial subgroup.
VKC_TYPE VKC_PASTE(vkc_shuffle_inclusive_, VKC_OP)(VKC_TYPE x) {
    for (uint delta = 1u; delta < gl_SubgroupSize; delta <<= 1u) {
        VKC_TYPE lower = subgroupShuffleUp(x, delta);
        if (gl_SubgroupInvocationID >= delta) {
            x = VKC_OP_COMBINE(lower, x);
        }
    }
    return x;
}
VKC_TYPE VKC_PASTE(vkc_shuffle_exclusive_, VKC_OP)(VKC_TYPE x) {
    VKC_TYPE lower = subgroupShuffleUp(VKC_PASTE(vkc_shuffle_inclusive_, VKC_OP)(x), 1u);
    return gl_SubgroupInvocationID == 0u ? VKC_OP_IDENTITY : lower;
}
#endif

// Raking scan in shared memory (no subgroup operations): the first VKC_RAKING_LANES invocations each
// reduce a contiguous segment, invocation 0 scans the segment totals, and the segments are rescanned
// seeded with their prefixes. Four barriers; any work-group size.
void VKC_PASTE(vkc_workgroup_scan_raking_, VKC_OP)(VKC_TYPE x, out VKC_TYPE exclusive, out VKC_TYPE total) {
    const uint size = VKC_WORKGROUP_SIZE;
    const uint lanes = min(size, VKC_RAKING_LANES);
    const uint segment = (size + lanes - 1u) / lanes;
    uint index = gl_LocalInvocationIndex;
    VKC_SCRATCH[index] = x;
    barrier();
    uint begin = index * segment;
    uint end = min(begin + segment, size);
    if (index < lanes) {
        VKC_TYPE sum = VKC_OP_IDENTITY;
        for (uint i = begin; i < end; ++i) {
            sum = VKC_OP_COMBINE(sum, VKC_SCRATCH[i]);
        }
        VKC_SCRATCH[size + index] = sum;
    }
    barrier();
    if (index == 0u) {
        VKC_TYPE running = VKC_OP_IDENTITY;
        for (uint lane = 0u; lane < lanes; ++lane) {
            VKC_TYPE sum = VKC_SCRATCH[size + lane];
            VKC_SCRATCH[size + lane] = running;
            running = VKC_OP_COMBINE(running, sum);
        }
        VKC_SCRATCH[size + lanes] = running;
    }
    barrier();
    if (index < lanes) {
        VKC_TYPE running = VKC_SCRATCH[size + index];
        for (uint i = begin; i < end; ++i) {
            VKC_TYPE value = VKC_SCRATCH[i];
            VKC_SCRATCH[i] = running;
            running = VKC_OP_COMBINE(running, value);
        }
    }
    barrier();
    exclusive = index == 0u ? VKC_OP_IDENTITY : VKC_SCRATCH[index];
    total = VKC_SCRATCH[size + lanes];
}

// The scan of already-prepared x over the work-group: its exclusive and inclusive prefixes and the
// total, in every invocation (a caller that leaves one prefix unused does not pay for it once the
// function is inlined). Invocation 0's exclusive prefix is the identity and its inclusive one x.
void VKC_PASTE(vkc_workgroup_scan_parts_, VKC_OP)(VKC_TYPE x, out VKC_TYPE exclusive, out VKC_TYPE inclusive,
                                                  out VKC_TYPE total) {
    bool trailing_barrier = VKC_SCAN_TRAILING_BARRIER;
#if VKC_SUBGROUP_ARITHMETIC
    if (!VKC_SUBGROUPS_PACKED) {
        VKC_PASTE(vkc_workgroup_scan_raking_, VKC_OP)(x, exclusive, total);
        inclusive = gl_LocalInvocationIndex == 0u ? x : VKC_OP_COMBINE(exclusive, x);
    } else {
        const uint size = VKC_WORKGROUP_SIZE;
        VKC_TYPE sub_inclusive = VKC_OP_SUBGROUP_INCLUSIVE(x);
#if VKC_SUBGROUP_SHUFFLE_RELATIVE
        VKC_TYPE sub_exclusive = subgroupShuffleUp(sub_inclusive, 1u); // lane 0's is never used
#else
        VKC_TYPE sub_exclusive = VKC_OP_SUBGROUP_EXCLUSIVE(x);
#endif
        uint subgroups = (size + gl_SubgroupSize - 1u) / gl_SubgroupSize; // not gl_NumSubgroups: see below
        bool direct_join = subgroups <= VKC_DIRECT_JOIN_SUBGROUPS;
        uint half_at = 0u;
        if (direct_join && VKC_SCAN_ALTERNATE_HALVES) {
            half_at = VKC_NAME(vkc_scan_half_, VKC_OP, VKC_TYPE) * VKC_DIRECT_JOIN_SUBGROUPS;
            VKC_NAME(vkc_scan_half_, VKC_OP, VKC_TYPE) ^= 1u;
            trailing_barrier = false;
        }
        // The last lane of each subgroup (the last subgroup may be partial) posts its subgroup total.
        uint lanes = min(gl_SubgroupSize, size - gl_SubgroupID * gl_SubgroupSize);
        if (gl_SubgroupInvocationID == lanes - 1u) {
            VKC_SCRATCH[half_at + gl_SubgroupID] = sub_inclusive;
        }
        barrier();
        VKC_TYPE prefix;
        if (direct_join) {
            // Few subgroups (4 in 128 invocations of 32 lanes): every invocation combines the totals
            // before its own subgroup, as CUB's warp-scans algorithm does; one barrier in all.
            prefix = VKC_OP_IDENTITY;
            total = VKC_OP_IDENTITY;
            for (uint i = 0u; i < subgroups; ++i) {
                VKC_TYPE t = VKC_SCRATCH[half_at + i];
                if (i < gl_SubgroupID) {
                    prefix = i == 0u ? t : VKC_OP_COMBINE(prefix, t);
                }
                total = i == 0u ? t : VKC_OP_COMBINE(total, t);
            }
        } else {
            // Many subgroups (1024 invocations in subgroups of 2 gives 512 totals): subgroup 0 turns
            // the totals into exclusive prefixes, a subgroup-width chunk at a time. The count is
            // computed because Mesa 22 computes gl_NumSubgroups before the work-group size is
            // specialised.
            if (gl_SubgroupID == 0u) {
                VKC_TYPE carry = VKC_OP_IDENTITY;
                for (uint base = 0u; base < subgroups; base += gl_SubgroupSize) {
                    uint slot = base + gl_SubgroupInvocationID;
                    VKC_TYPE value = slot < subgroups ? VKC_SCRATCH[slot] : VKC_OP_IDENTITY;
                    VKC_TYPE before = VKC_OP_SUBGROUP_EXCLUSIVE(value);
                    if (slot < subgroups) {
                        VKC_SCRATCH[slot] = gl_SubgroupInvocationID == 0u ? carry : VKC_OP_COMBINE(carry, before);
                    }
                    uint last = min(subgroups - base, gl_SubgroupSize) - 1u; // the chunk's last live lane
                    carry = VKC_OP_COMBINE(carry, VKC_OP_CHUNK_TOTAL(before, value, last));
                }
                if (gl_SubgroupInvocationID == 0u) {
                    VKC_SCRATCH[size] = carry;
                }
            }
            barrier();
            prefix = VKC_SCRATCH[gl_SubgroupID];
            total = VKC_SCRATCH[size];
        }
        // Lane 0 takes the prefix as it is: combining it with the built-in's identity could turn -0 into +0.
        exclusive = gl_SubgroupInvocationID == 0u ? prefix : VKC_OP_COMBINE(prefix, sub_exclusive);
        inclusive = gl_SubgroupID == 0u ? sub_inclusive : VKC_OP_COMBINE(prefix, sub_inclusive);
    }
#else
    VKC_PASTE(vkc_workgroup_scan_raking_, VKC_OP)(x, exclusive, total);
    inclusive = gl_LocalInvocationIndex == 0u ? x : VKC_OP_COMBINE(exclusive, x);
#endif
    // The next collective may rewrite the scratch only after everyone has read it. A caller whose own
    // barriers already separate two calls may turn this one off (VKC_SCAN_TRAILING_BARRIER, common.glsl).
    if (trailing_barrier) {
        barrier();
    }
}

// The same, without the inclusive prefix.
void VKC_PASTE(vkc_workgroup_scan_core_, VKC_OP)(VKC_TYPE x, out VKC_TYPE exclusive, out VKC_TYPE total) {
    VKC_TYPE inclusive;
    VKC_PASTE(vkc_workgroup_scan_parts_, VKC_OP)(x, exclusive, inclusive, total);
}

VKC_TYPE VKC_PASTE(vkc_workgroup_reduce_, VKC_OP)(VKC_TYPE x) {
    VKC_TYPE exclusive, total;
    VKC_PASTE(vkc_workgroup_scan_core_, VKC_OP)(VKC_OP_PREPARE(x), exclusive, total);
    return total;
}

VKC_TYPE VKC_PASTE(vkc_workgroup_scan_inclusive_, VKC_OP)(VKC_TYPE x) {
    VKC_TYPE exclusive, inclusive, total;
    VKC_PASTE(vkc_workgroup_scan_parts_, VKC_OP)(VKC_OP_PREPARE(x), exclusive, inclusive, total);
    return inclusive;
}

VKC_TYPE VKC_PASTE(vkc_workgroup_scan_exclusive_, VKC_OP)(VKC_TYPE x) {
    VKC_TYPE exclusive, total;
    VKC_PASTE(vkc_workgroup_scan_core_, VKC_OP)(VKC_OP_PREPARE(x), exclusive, total);
    return exclusive;
}

#ifndef VKC_KEEP_TEMPLATE_ARGUMENTS // block_scan.glsl builds on the definitions above
#include "template_end.glsl"
#endif
