// vkcollectives: the segmented scan of a tile, the block-level step of segmented scans and
// reductions, scans and reductions by key and run-length encoding (CUB's BlockScan over its
// ReduceBySegmentOp pairs).
//
// Every item carries a head flag: a head starts a new segment, and the scan restarts at it. The
// scan runs over pairs (heads, value) with
//   combine(a, b) = (a.heads + b.heads, b.heads != 0 ? b.value : op(a.value, b.value)),
// which is associative, so a tile's pairs scan like any other items: each invocation scans its own
// items, one work-group scan joins the invocations, and a tile's prefix (from a look-back) seeds it.
// After the scan, an item's pair holds the heads up to and including it (its segment's number, + 1,
// counted from the start of the scan) and op over its segment's items up to it.
//
// A tile is blocked: invocation t holds tile items t * VKC_ITEMS + i, i < VKC_ITEMS.
//
// Define before including (once per shader):
//   VKC_ITEMS            items per invocation (a compile-time constant)
//   VKC_SEGMENTED_TYPE   the values' type: int, uint, float, int64_t, uint64_t or double
//   VKC_SEGMENTED_OP     add, mul, min or max; and, or, xor, logical_and, logical_or or logical_xor for
//                        integers (vkc/common.glsl's operators: min and max ignore NaN)
// It instantiates vkc/workgroup_scan.glsl for the pairs (VKC_TYPE VKC_SEGMENT, VKC_OP segmented); a
// look-back over the same pairs (vkc/look_back.glsl) takes those two names and
// VKC_SEGMENT_COMBINE / VKC_SEGMENT_IDENTITY as its custom operator. Subgroup path: subgroup
// shuffles (GL_KHR_shader_subgroup_shuffle and _relative); with VKC_SUBGROUP_ARITHMETIC 0, shared
// memory only. Shared memory: the work-group scan's, (VKC_SCRATCH_CAPACITY + 33) pairs.
//
//   VKC_SEGMENT                    the pair, a uvec3: .x the heads, .yz the value's bits, low word
//                                  first (32-bit values in .y)
//   VKC_SEGMENT vkc_segment(bool head, VKC_SEGMENTED_TYPE value);
//   VKC_SEGMENTED_TYPE vkc_segment_value(VKC_SEGMENT s);   uint vkc_segment_heads(VKC_SEGMENT s);
//   VKC_SEGMENT vkc_segment_combine(VKC_SEGMENT a, VKC_SEGMENT b);   VKC_SEGMENT vkc_segment_identity();
//   VKC_SEGMENT vkc_block_segmented_prepare(VKC_SEGMENT items[VKC_ITEMS], out VKC_SEGMENT before);
//       the tile's aggregate, and in `before` the pairs of the invocations before this one combined
//       (the identity for invocation 0). Whole work-group, uniform control flow.
//   void vkc_block_segmented_apply(inout VKC_SEGMENT items[VKC_ITEMS], VKC_SEGMENT seed);
//       each item becomes its inclusive pair, seeded with `seed` (the tile's prefix combined with
//       `before`); no barrier.
//   VKC_SEGMENT vkc_block_segmented_scan(inout VKC_SEGMENT items[VKC_ITEMS]);
//       prepare and apply within the tile alone; returns the tile's aggregate.
//   VKC_SEGMENTED_TYPE vkc_segment_exclusive(bool head, VKC_SEGMENT before);
//       an item's exclusive value from the inclusive pair before it: the identity at a head.
//
// Example, op add, 2 invocations x 2 items, values [3 1 4 1], heads [1 0 1 0]: pairs after the scan
// (1,3) (1,4) | (2,4) (2,5): segments [3 1] and [4 1] with totals 4 and 5; the aggregate is (2,5),
// and the exclusive values are [0 3 0 4].

#ifndef VKC_ITEMS
#error "define VKC_ITEMS (items per invocation) before including vkc/block_segmented.glsl"
#endif
#if !defined(VKC_SEGMENTED_TYPE) || !defined(VKC_SEGMENTED_OP)
#error "define VKC_SEGMENTED_TYPE and VKC_SEGMENTED_OP before including vkc/block_segmented.glsl"
#endif

#include "common.glsl"

#define VKC_SEGMENT uvec3
#define VKC_SEGMENT_OP_COMBINE VKC_PASTE(vkc_combine_, VKC_SEGMENTED_OP)
#define VKC_SEGMENT_OP_IDENTITY VKC_PASTE(vkc_identity_, VKC_SEGMENTED_OP)(VKC_SEGMENTED_TYPE(0))
#define VKC_SEGMENT_OP_PREPARE VKC_PASTE(vkc_prepare_, VKC_SEGMENTED_OP)

// A value's bits, low word first, and back (only the value type's pair is compiled in).
uvec2 vkc_segment_bits(int x) { return uvec2(uint(x), 0u); }
uvec2 vkc_segment_bits(uint x) { return uvec2(x, 0u); }
uvec2 vkc_segment_bits(float x) { return uvec2(floatBitsToUint(x), 0u); }
uvec2 vkc_segment_bits(int64_t x) { return unpackUint2x32(uint64_t(x)); }
uvec2 vkc_segment_bits(uint64_t x) { return unpackUint2x32(x); }
uvec2 vkc_segment_bits(double x) { return unpackDouble2x32(x); }
int vkc_segment_from_bits(uvec2 b, int t) { return int(b.x); }
uint vkc_segment_from_bits(uvec2 b, uint t) { return b.x; }
float vkc_segment_from_bits(uvec2 b, float t) { return uintBitsToFloat(b.x); }
int64_t vkc_segment_from_bits(uvec2 b, int64_t t) { return int64_t(packUint2x32(b)); }
uint64_t vkc_segment_from_bits(uvec2 b, uint64_t t) { return packUint2x32(b); }
double vkc_segment_from_bits(uvec2 b, double t) { return packDouble2x32(b); }

VKC_SEGMENTED_TYPE vkc_segment_value(VKC_SEGMENT s) { return vkc_segment_from_bits(s.yz, VKC_SEGMENTED_TYPE(0)); }
uint vkc_segment_heads(VKC_SEGMENT s) { return s.x; }
VKC_SEGMENT vkc_segment(bool head, VKC_SEGMENTED_TYPE value) {
    return VKC_SEGMENT(head ? 1u : 0u, vkc_segment_bits(VKC_SEGMENT_OP_PREPARE(value)));
}
VKC_SEGMENT vkc_segment_identity() { return VKC_SEGMENT(0u, vkc_segment_bits(VKC_SEGMENT_OP_IDENTITY)); }
VKC_SEGMENT vkc_segment_combine(VKC_SEGMENT a, VKC_SEGMENT b) {
    if (b.x != 0u) return VKC_SEGMENT(a.x + b.x, b.yz);
    VKC_SEGMENTED_TYPE v = VKC_SEGMENT_OP_COMBINE(vkc_segment_value(a), vkc_segment_value(b));
    return VKC_SEGMENT(a.x, vkc_segment_bits(v));
}
VKC_SEGMENTED_TYPE vkc_segment_exclusive(bool head, VKC_SEGMENT before) {
    return head ? VKC_SEGMENT_OP_IDENTITY : vkc_segment_value(before);
}
#define VKC_SEGMENT_COMBINE(a, b) vkc_segment_combine(a, b)
#define VKC_SEGMENT_IDENTITY vkc_segment_identity()

#define VKC_TYPE VKC_SEGMENT
#define VKC_OP segmented
#define VKC_CUSTOM_COMBINE(a, b) VKC_SEGMENT_COMBINE(a, b)
#define VKC_CUSTOM_IDENTITY VKC_SEGMENT_IDENTITY
#include "workgroup_scan.glsl"

VKC_SEGMENT vkc_block_segmented_prepare(VKC_SEGMENT items[VKC_ITEMS], out VKC_SEGMENT before) {
    VKC_SEGMENT mine = items[0];
    [[unroll]] for (uint i = 1u; i < VKC_ITEMS; ++i) mine = vkc_segment_combine(mine, items[i]);
    VKC_SEGMENT total;
    vkc_workgroup_scan_core_segmented(mine, before, total);
    return total;
}

void vkc_block_segmented_apply(inout VKC_SEGMENT items[VKC_ITEMS], VKC_SEGMENT seed) {
    VKC_SEGMENT running = seed;
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
        running = vkc_segment_combine(running, items[i]);
        items[i] = running;
    }
}

VKC_SEGMENT vkc_block_segmented_scan(inout VKC_SEGMENT items[VKC_ITEMS]) {
    VKC_SEGMENT before;
    VKC_SEGMENT total = vkc_block_segmented_prepare(items, before);
    vkc_block_segmented_apply(items, before);
    return total;
}
