// Worked example of a custom operator: a segmented sum. An item is uvec2(flag, value); a flag of 1
// starts a new segment, so the running sum restarts at that item. combine(a, b) =
// (a.flag | b.flag, b.flag != 0 ? b.value : a.value + b.value): associative, not commutative.
// Identity: (0, 0). Values add modulo 2^32.
//
//   #define VKC_TYPE uvec2
//   #define VKC_OP segmented_add
//   #include "examples/segmented_add.glsl"
//   #include "vkc/block_scan.glsl"
uvec2 vkc_example_segmented_add(uvec2 a, uvec2 b) {
    return uvec2(a.x | b.x, b.x != 0u ? b.y : a.y + b.y);
}
#define VKC_CUSTOM_COMBINE(a, b) vkc_example_segmented_add(a, b)
uvec2 vkc_example_segmented_add_identity() { return uvec2(0u, 0u); }
#define VKC_CUSTOM_IDENTITY vkc_example_segmented_add_identity()
