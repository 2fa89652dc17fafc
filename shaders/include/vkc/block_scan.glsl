// vkcollectives: CUB's BlockScan for GLSL. Each invocation holds VKC_ITEMS consecutive items of a
// tile (CUB's blocked arrangement: invocation i holds items [i*ITEMS, (i+1)*ITEMS)); the items are
// combined in registers, then one work-group scan joins the invocations.
//
// A template, like workgroup_scan.glsl (which it includes, so do not include that one too for the
// same pair): define VKC_TYPE, VKC_OP and VKC_ITEMS (the array length, a compile-time constant),
// optionally VKC_ITEMS_ACTIVE (how many of them are used, default VKC_ITEMS; may be a specialization
// constant no larger than VKC_ITEMS), then include. For op = add and type = uint it defines
//
//   uint vkc_block_reduce_add(uint items[VKC_ITEMS]);                       // the tile's total
//   void vkc_block_scan_inclusive_add(inout uint items[VKC_ITEMS]);
//   void vkc_block_scan_inclusive_add(inout uint items[VKC_ITEMS], out uint aggregate);
//   void vkc_block_scan_exclusive_add(inout uint items[VKC_ITEMS]);         // first item: identity
//   void vkc_block_scan_exclusive_add(inout uint items[VKC_ITEMS], out uint aggregate);
//   // seeded: the scan starts from `initial` (exclusive: the first item becomes `initial`)
//   void vkc_block_scan_inclusive_seeded_add(inout uint items[VKC_ITEMS], uint initial, out uint aggregate);
//   void vkc_block_scan_exclusive_seeded_add(inout uint items[VKC_ITEMS], uint initial, out uint aggregate);
//   // running prefix across tiles (CUB's BlockPrefixCallbackOp): the tile is seeded with `running` as
//   // invocation 0 holds it (other invocations' values are ignored); afterwards every invocation's
//   // running = op(that prefix, aggregate), ready for the next tile.
//   void vkc_block_scan_inclusive_running_add(inout uint items[VKC_ITEMS], inout uint running, out uint aggregate);
//   void vkc_block_scan_exclusive_running_add(inout uint items[VKC_ITEMS], inout uint running, out uint aggregate);
//
// and, when VKC_BLOCK_PREFIX_CALLBACK names a function `VKC_TYPE f(VKC_TYPE aggregate)`, the
// callback forms vkc_block_scan_{inclusive,exclusive}_callback_add(inout items, out aggregate): f is
// called once per tile with the tile's aggregate and returns the tile's prefix; as in CUB, every
// invocation of subgroup 0 calls it (in uniform control flow, so it may use subgroup operations) and
// invocation 0's answer counts. Without subgroups (VKC_SUBGROUP_ARITHMETIC 0, or subgroups not
// packed) invocation 0 alone calls it. shaders/kernels/block_scan.comp shows one: a running prefix kept in the
// callback's own state, as CUB's examples do (tested with junk answers from every other caller).
//
// `aggregate` is op over the tile's items, without the seed or prefix, in every invocation. A
// partial tile is scanned by giving the missing items the identity (vkc_identity_<op>) and not
// storing them. Example, 2 invocations x 4 items, all ones, running = 128 in invocation 0:
// inclusive gives 129 .. 136, aggregate 8, and running becomes 136.
//
// Algorithms (selectable, as CUB's): VKC_SUBGROUP_ARITHMETIC 1 (default) joins subgroup scans
// through shared memory; 0 is the raking scan in shared memory (BLOCK_SCAN_RAKING).

#ifndef VKC_ITEMS
#error "define VKC_ITEMS (items per invocation) before including vkc/block_scan.glsl"
#endif
#ifndef VKC_ITEMS_ACTIVE
#define VKC_ITEMS_ACTIVE VKC_ITEMS
#endif

#define VKC_KEEP_TEMPLATE_ARGUMENTS
#include "workgroup_scan.glsl"
#undef VKC_KEEP_TEMPLATE_ARGUMENTS

#define VKC_PREFIX_SLOT VKC_NAME(vkc_block_prefix_, VKC_OP, VKC_TYPE)
shared VKC_TYPE VKC_PREFIX_SLOT;

// How the tile's prefix is found.
#define VKC_PREFIX_NONE 0u     // none: the scan starts from the first item
#define VKC_PREFIX_UNIFORM 1u  // `seed`, the same in every invocation
#define VKC_PREFIX_FIRST 2u    // `seed` as invocation 0 holds it
#define VKC_PREFIX_CALLBACK 3u // VKC_BLOCK_PREFIX_CALLBACK(aggregate), called by invocation 0

void VKC_PASTE(vkc_block_scan_core_, VKC_OP)(inout VKC_TYPE items[VKC_ITEMS], bool inclusive, uint prefix_mode,
                                             VKC_TYPE seed, out VKC_TYPE aggregate, out VKC_TYPE prefix) {
    // 1. Each invocation combines its own items.
    VKC_TYPE own = VKC_OP_IDENTITY;
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS_ACTIVE; ++i) {
        items[i] = VKC_OP_PREPARE(items[i]);
        own = i == 0u ? items[0] : VKC_OP_COMBINE(own, items[i]);
    }
    // 2. One work-group scan of the per-invocation totals.
    VKC_TYPE before, own_inclusive;
    VKC_PASTE(vkc_workgroup_scan_parts_, VKC_OP)(own, before, own_inclusive, aggregate);
    bool first = gl_LocalInvocationIndex == 0u;
    // 3. The tile's prefix, if any, goes in front.
    bool seeded = prefix_mode != VKC_PREFIX_NONE;
    prefix = VKC_OP_IDENTITY;
    if (prefix_mode == VKC_PREFIX_UNIFORM) {
        prefix = seed;
    } else if (prefix_mode != VKC_PREFIX_NONE) {
#ifdef VKC_BLOCK_PREFIX_CALLBACK
        if (prefix_mode == VKC_PREFIX_CALLBACK) {
            // CUB's rule: the first subgroup calls it (so it may use subgroup operations, as a
            // look-back does), and invocation 0's answer is the prefix.
#if VKC_SUBGROUP_ARITHMETIC
            bool caller = VKC_SUBGROUPS_PACKED ? gl_SubgroupID == 0u : first;
#else
            bool caller = first;
#endif
            if (caller) {
                VKC_TYPE answer = VKC_BLOCK_PREFIX_CALLBACK(aggregate);
                if (first) {
                    VKC_PREFIX_SLOT = answer;
                }
            }
        } else if (first) {
            VKC_PREFIX_SLOT = seed;
        }
#else
        if (first) {
            VKC_PREFIX_SLOT = seed;
        }
#endif
        barrier();
        prefix = VKC_PREFIX_SLOT;
        barrier(); // the next tile writes the slot only after everyone has read it
    }
    // 4. Each invocation rescans its items from its running prefix; an inclusive scan of one item an
    // invocation takes the work-group scan's inclusive prefix as it is (no exclusive prefix to derive).
    if (VKC_ITEMS_ACTIVE == 1u && inclusive) {
        items[0] = seeded ? VKC_OP_COMBINE(prefix, own_inclusive) : own_inclusive;
        return;
    }
    bool started = seeded || !first; // invocation 0 of an unseeded scan starts from its first item
    VKC_TYPE running = first ? prefix : (seeded ? VKC_OP_COMBINE(prefix, before) : before);
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS_ACTIVE; ++i) {
        VKC_TYPE x = items[i];
        VKC_TYPE through = started ? VKC_OP_COMBINE(running, x) : x;
        items[i] = inclusive ? through : running;
        running = through;
        started = true;
    }
}

VKC_TYPE VKC_PASTE(vkc_block_reduce_, VKC_OP)(VKC_TYPE items[VKC_ITEMS]) {
    VKC_TYPE own = VKC_OP_IDENTITY;
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS_ACTIVE; ++i) {
        VKC_TYPE x = VKC_OP_PREPARE(items[i]);
        own = i == 0u ? x : VKC_OP_COMBINE(own, x);
    }
    VKC_TYPE before, total;
    VKC_PASTE(vkc_workgroup_scan_core_, VKC_OP)(own, before, total);
    return total;
}

#define VKC_BLOCK_FORMS(kind, is_inclusive)                                                            \
    void VKC_PASTE(VKC_PASTE(vkc_block_scan_, kind), VKC_PASTE(_, VKC_OP))(inout VKC_TYPE items[VKC_ITEMS], out VKC_TYPE aggregate) {  \
        VKC_TYPE prefix;                                                                               \
        VKC_PASTE(vkc_block_scan_core_, VKC_OP)(items, is_inclusive, VKC_PREFIX_NONE, VKC_OP_IDENTITY,  \
                                                aggregate, prefix);                                    \
    }                                                                                                  \
    void VKC_PASTE(VKC_PASTE(vkc_block_scan_, kind), VKC_PASTE(_, VKC_OP))(inout VKC_TYPE items[VKC_ITEMS]) {                   \
        VKC_TYPE aggregate, prefix;                                                                    \
        VKC_PASTE(vkc_block_scan_core_, VKC_OP)(items, is_inclusive, VKC_PREFIX_NONE, VKC_OP_IDENTITY,  \
                                                aggregate, prefix);                                    \
    }                                                                                                  \
    void VKC_PASTE(VKC_PASTE(vkc_block_scan_, kind), VKC_PASTE(_seeded_, VKC_OP))(inout VKC_TYPE items[VKC_ITEMS],     \
                                                                     VKC_TYPE initial, out VKC_TYPE aggregate) { \
        VKC_TYPE prefix;                                                                               \
        VKC_PASTE(vkc_block_scan_core_, VKC_OP)(items, is_inclusive, VKC_PREFIX_UNIFORM,               \
                                                VKC_OP_PREPARE(initial), aggregate, prefix);           \
    }                                                                                                  \
    void VKC_PASTE(VKC_PASTE(vkc_block_scan_, kind), VKC_PASTE(_running_, VKC_OP))(inout VKC_TYPE items[VKC_ITEMS],    \
                                                                      inout VKC_TYPE running, out VKC_TYPE aggregate) { \
        VKC_TYPE prefix;                                                                               \
        VKC_PASTE(vkc_block_scan_core_, VKC_OP)(items, is_inclusive, VKC_PREFIX_FIRST,                 \
                                                VKC_OP_PREPARE(running), aggregate, prefix);           \
        running = VKC_OP_COMBINE(prefix, aggregate);                                                   \
    }
VKC_BLOCK_FORMS(inclusive, true)
VKC_BLOCK_FORMS(exclusive, false)
#undef VKC_BLOCK_FORMS

#ifdef VKC_BLOCK_PREFIX_CALLBACK
void VKC_PASTE(vkc_block_scan_inclusive_callback_, VKC_OP)(inout VKC_TYPE items[VKC_ITEMS], out VKC_TYPE aggregate) {
    VKC_TYPE prefix;
    VKC_PASTE(vkc_block_scan_core_, VKC_OP)(items, true, VKC_PREFIX_CALLBACK, VKC_OP_IDENTITY, aggregate, prefix);
}
void VKC_PASTE(vkc_block_scan_exclusive_callback_, VKC_OP)(inout VKC_TYPE items[VKC_ITEMS], out VKC_TYPE aggregate) {
    VKC_TYPE prefix;
    VKC_PASTE(vkc_block_scan_core_, VKC_OP)(items, false, VKC_PREFIX_CALLBACK, VKC_OP_IDENTITY, aggregate, prefix);
}
#endif

#undef VKC_PREFIX_SLOT
#include "template_end.glsl"
