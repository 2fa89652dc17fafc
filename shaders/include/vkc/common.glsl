// vkcollectives: shared definitions for the work-group collectives.
//
// Included by the collective headers; an engine need not include it itself. It enables the GLSL
// extensions the collectives use, so include the vkc headers before your own declarations.
//
// Configuration macros (define before the first vkc include to override):
//   VKC_SUBGROUP_ARITHMETIC  1 (default): join subgroup arithmetic results through shared memory.
//                            0: use shared memory only (devices without subgroup arithmetic, or
//                            without subgroup support for the type).
//   VKC_WORKGROUP_SIZE       invocations in the work-group; default gl_WorkGroupSize.x * .y * .z,
//                            which also works when the size is a specialization constant.
//   VKC_SCRATCH_CAPACITY     the most invocations the shared scratch arrays are sized for; default
//                            VKC_WORKGROUP_SIZE. Set it to a literal (say 1024) when the work-group
//                            size is a specialization constant: Mesa 22 (lavapipe in Debian 12) sizes
//                            shared arrays from the unspecialised default, and writes past their end.
//   VKC_SUBGROUPS_PACKED     true (default) where subgroup s holds the local indices
//                            [s * gl_SubgroupSize, (s + 1) * gl_SubgroupSize) in lane order, as on
//                            NVIDIA, AMD and Intel for 1D groups; false makes reduce and scans use
//                            shared memory only. Drivers may pack 2D/3D groups otherwise (lavapipe
//                            puts each row of a 3x5x7 group in its own subgroup): bind it to a
//                            specialization constant and set it from vkc::Context::subgroups_packed().
//
// Include the vkc headers after your `layout(local_size_...) in;` declaration: gl_WorkGroupSize is the
// default (1, 1, 1) before it.
#ifndef VKC_COMMON_GLSL
#define VKC_COMMON_GLSL

#extension GL_EXT_shader_explicit_arithmetic_types : require

#ifndef VKC_SUBGROUP_ARITHMETIC
#define VKC_SUBGROUP_ARITHMETIC 1
#endif
#if VKC_SUBGROUP_ARITHMETIC
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_EXT_shader_subgroup_extended_types_float16 : enable
#extension GL_EXT_shader_subgroup_extended_types_int64 : enable
#endif

#ifndef VKC_WORKGROUP_SIZE
#define VKC_WORKGROUP_SIZE (gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z)
#endif
#ifndef VKC_SUBGROUPS_PACKED
#define VKC_SUBGROUPS_PACKED true
#endif
#ifndef VKC_SCRATCH_CAPACITY
#define VKC_SCRATCH_CAPACITY VKC_WORKGROUP_SIZE
#endif

// Token pasting through one level of indirection, so macro arguments expand first.
#define VKC_PASTE_(a, b) a##b
#define VKC_PASTE(a, b) VKC_PASTE_(a, b)
#define VKC_NAME(prefix, op, type) VKC_PASTE(VKC_PASTE(VKC_PASTE(prefix, op), _), type)

// ---- Operators -------------------------------------------------------------------------------
// Each op has a combine, an identity per type (OpenCL C's table), and the matching subgroup
// built-ins. Identities are overloaded on a dummy argument of the type: vkc_identity_min(uint(0)).

#define vkc_combine_add(a, b) ((a) + (b))
#define vkc_combine_min(a, b) min(a, b)
#define vkc_combine_max(a, b) max(a, b)

#define vkc_subgroup_reduce_add subgroupAdd
#define vkc_subgroup_reduce_min subgroupMin
#define vkc_subgroup_reduce_max subgroupMax
#define vkc_subgroup_inclusive_add subgroupInclusiveAdd
#define vkc_subgroup_inclusive_min subgroupInclusiveMin
#define vkc_subgroup_inclusive_max subgroupInclusiveMax
#define vkc_subgroup_exclusive_add subgroupExclusiveAdd
#define vkc_subgroup_exclusive_min subgroupExclusiveMin
#define vkc_subgroup_exclusive_max subgroupExclusiveMax

// Infinities from their bits: a literal like 1.0/0.0 may be folded away under fast-math rules.
float16_t vkc_inf(float16_t t) { return unpackFloat2x16(0x7c00u).x; }
float vkc_inf(float t) { return uintBitsToFloat(0x7f800000u); }
double vkc_inf(double t) { return packDouble2x32(uvec2(0u, 0x7ff00000u)); }

float16_t vkc_identity_add(float16_t t) { return float16_t(0); }
int vkc_identity_add(int t) { return 0; }
uint vkc_identity_add(uint t) { return 0u; }
int64_t vkc_identity_add(int64_t t) { return 0l; }
uint64_t vkc_identity_add(uint64_t t) { return 0ul; }
float vkc_identity_add(float t) { return 0.0; }
double vkc_identity_add(double t) { return 0.0lf; }

float16_t vkc_identity_min(float16_t t) { return vkc_inf(t); }
int vkc_identity_min(int t) { return 0x7fffffff; }
uint vkc_identity_min(uint t) { return 0xffffffffu; }
int64_t vkc_identity_min(int64_t t) { return 0x7fffffffffffffffl; }
uint64_t vkc_identity_min(uint64_t t) { return 0xfffffffffffffffful; }
float vkc_identity_min(float t) { return vkc_inf(t); }
double vkc_identity_min(double t) { return vkc_inf(t); }

float16_t vkc_identity_max(float16_t t) { return -vkc_inf(t); }
int vkc_identity_max(int t) { return int(0x80000000u); }
uint vkc_identity_max(uint t) { return 0u; }
int64_t vkc_identity_max(int64_t t) { return int64_t(0x8000000000000000ul); }
uint64_t vkc_identity_max(uint64_t t) { return 0ul; }
float vkc_identity_max(float t) { return -vkc_inf(t); }
double vkc_identity_max(double t) { return -vkc_inf(t); }

// ---- NaN rule ----------------------------------------------------------------------------------
// min and max ignore NaN: a NaN item counts as the identity (+INF for min, -INF for max), so the
// result is the min/max of the non-NaN items, and +INF/-INF where a prefix holds only NaNs. This is
// IEEE 754 minNum/maxNum (C fmin, CUDA fminf), and it is applied before any subgroup built-in,
// whose NaN behaviour Vulkan leaves undefined. The test is on the bits, so no fast-math rule can
// remove it. add keeps IEEE semantics: a NaN makes the sums that include it NaN.
bool vkc_is_nan(float16_t x) { return (packFloat2x16(f16vec2(x, 0)) & 0x7fffu) > 0x7c00u; }
bool vkc_is_nan(float x) { return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u; }
bool vkc_is_nan(double x) {
    uvec2 bits = unpackDouble2x32(x); // .x low word, .y high word
    uint high = bits.y & 0x7fffffffu;
    return high > 0x7ff00000u || (high == 0x7ff00000u && bits.x != 0u);
}
bool vkc_is_nan(int x) { return false; }
bool vkc_is_nan(uint x) { return false; }
bool vkc_is_nan(int64_t x) { return false; }
bool vkc_is_nan(uint64_t x) { return false; }

#define vkc_prepare_add(x) (x)
#define vkc_prepare_min(x) (vkc_is_nan(x) ? vkc_identity_min(x) : (x))
#define vkc_prepare_max(x) (vkc_is_nan(x) ? vkc_identity_max(x) : (x))

#endif // VKC_COMMON_GLSL
