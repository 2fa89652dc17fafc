// Worked example of a custom operator: (max, argmax) over float values tagged with their index.
// An item is uvec2(floatBitsToUint(value), index). combine keeps the larger value, and of equal
// values the smaller index, so it is associative and commutative. Identity: (-INF, 0xffffffff).
// Values must not be NaN.
//
//   #define VKC_TYPE uvec2
//   #define VKC_OP argmax
//   #include "examples/argmax.glsl"
//   #include "vkc/workgroup_scan.glsl"   // vkc_workgroup_reduce_argmax(uvec2) ...
uvec2 vkc_example_argmax(uvec2 a, uvec2 b) {
    float va = uintBitsToFloat(a.x);
    float vb = uintBitsToFloat(b.x);
    return (vb > va || (vb == va && b.y < a.y)) ? b : a;
}
#define VKC_CUSTOM_COMBINE(a, b) vkc_example_argmax(a, b)
uvec2 vkc_example_argmax_identity() { return uvec2(0xff800000u, 0xffffffffu); }
#define VKC_CUSTOM_IDENTITY vkc_example_argmax_identity()
