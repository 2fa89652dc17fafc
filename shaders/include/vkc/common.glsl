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
//   VKC_SUBGROUP_SHUFFLE_RELATIVE 1 (default): exclusive subgroup scans come from the inclusive ones
//                            by one subgroupShuffleUp (GL_KHR_shader_subgroup_shuffle_relative), not
//                            a second scan: on the H100 the block scan of one item an invocation ran
//                            1.23x faster. 0: for devices without shuffle_relative.
//   VKC_SCAN_TRAILING_BARRIER true (default): reduce and scans end with a barrier, so the next call
//                            may reuse their shared scratch at once. A shader whose own barriers
//                            already separate consecutive calls may set it false (a constant or a
//                            specialization constant) and save one barrier per call.
//   VKC_SCAN_ALTERNATE_HALVES true (default): the subgroup algorithm with at most 16 subgroups needs no
//                            trailing barrier: consecutive calls alternate between two halves of the
//                            scratch (a register holds which). On the H100 the block scan of one
//                            item an invocation, 16 tiles a work-group, ran at 0.707 of a copy
//                            against 0.684 (with the inclusive prefix taken as the scan makes it).
//
// Include the vkc headers after your `layout(local_size_...) in;` declaration: gl_WorkGroupSize is the
// default (1, 1, 1) before it.
#ifndef VKC_COMMON_GLSL
#define VKC_COMMON_GLSL

#extension GL_EXT_shader_explicit_arithmetic_types : require
// [[unroll]] on loops over a tile's items: their bounds are specialization constants, which SPIR-V
// tools cannot unroll, and NVIDIA's compiler left some 64-bit tiles' arrays in local memory without it.
#extension GL_EXT_control_flow_attributes : require

#ifndef VKC_SUBGROUP_ARITHMETIC
#define VKC_SUBGROUP_ARITHMETIC 1
#endif
#if VKC_SUBGROUP_ARITHMETIC
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_vote : require
#extension GL_KHR_shader_subgroup_shuffle : enable
#ifndef VKC_SUBGROUP_SHUFFLE_RELATIVE
#define VKC_SUBGROUP_SHUFFLE_RELATIVE 1
#endif
#if VKC_SUBGROUP_SHUFFLE_RELATIVE
#extension GL_KHR_shader_subgroup_shuffle_relative : require
#else
#extension GL_KHR_shader_subgroup_shuffle_relative : enable
#endif
#extension GL_EXT_shader_subgroup_extended_types_int8 : enable
#extension GL_EXT_shader_subgroup_extended_types_int16 : enable
#extension GL_EXT_shader_subgroup_extended_types_int64 : enable
#extension GL_EXT_shader_subgroup_extended_types_float16 : enable
#endif

#ifndef VKC_WORKGROUP_SIZE
#define VKC_WORKGROUP_SIZE (gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z)
#endif
#ifndef VKC_SCAN_TRAILING_BARRIER
#define VKC_SCAN_TRAILING_BARRIER true
#endif
#ifndef VKC_SCAN_ALTERNATE_HALVES
#define VKC_SCAN_ALTERNATE_HALVES true
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
// Each op has a combine, an identity per type, a "prepare" applied to every item first, and the
// matching subgroup built-ins. Identities follow OpenCL C (add, min, max) and
// cl_khr_work_group_uniform_arithmetic (mul, and, or, xor, logical_and, logical_or, logical_xor);
// they are overloaded on a dummy argument of the type: vkc_identity_min(uint(0)).
// Bitwise and logical ops are for integer types; mul is for every type.

#define vkc_combine_add(a, b) ((a) + (b))
#define vkc_combine_mul(a, b) ((a) * (b))
#define vkc_combine_min(a, b) vkc_min(a, b)
#define vkc_combine_max(a, b) vkc_max(a, b)
#define vkc_combine_and(a, b) ((a) & (b))
#define vkc_combine_or(a, b) ((a) | (b))
#define vkc_combine_xor(a, b) ((a) ^ (b))
// Logical ops see every item as 0 or 1 (prepare below), so the bitwise ops compute them.
#define vkc_combine_logical_and(a, b) ((a) & (b))
#define vkc_combine_logical_or(a, b) ((a) | (b))
#define vkc_combine_logical_xor(a, b) ((a) ^ (b))

#define vkc_subgroup_reduce_add subgroupAdd
#define vkc_subgroup_reduce_mul subgroupMul
#define vkc_subgroup_reduce_min vkc_subgroup_min
#define vkc_subgroup_reduce_max vkc_subgroup_max
#define vkc_subgroup_reduce_and subgroupAnd
#define vkc_subgroup_reduce_or subgroupOr
#define vkc_subgroup_reduce_xor subgroupXor
#define vkc_subgroup_reduce_logical_and subgroupAnd
#define vkc_subgroup_reduce_logical_or subgroupOr
#define vkc_subgroup_reduce_logical_xor subgroupXor
#define vkc_subgroup_inclusive_add subgroupInclusiveAdd
#define vkc_subgroup_inclusive_mul subgroupInclusiveMul
#define vkc_subgroup_inclusive_min vkc_subgroup_inclusive_min_
#define vkc_subgroup_inclusive_max vkc_subgroup_inclusive_max_
#define vkc_subgroup_inclusive_and subgroupInclusiveAnd
#define vkc_subgroup_inclusive_or subgroupInclusiveOr
#define vkc_subgroup_inclusive_xor subgroupInclusiveXor
#define vkc_subgroup_inclusive_logical_and subgroupInclusiveAnd
#define vkc_subgroup_inclusive_logical_or subgroupInclusiveOr
#define vkc_subgroup_inclusive_logical_xor subgroupInclusiveXor
#define vkc_subgroup_exclusive_add subgroupExclusiveAdd
#define vkc_subgroup_exclusive_mul subgroupExclusiveMul
#define vkc_subgroup_exclusive_min vkc_subgroup_exclusive_min_
#define vkc_subgroup_exclusive_max vkc_subgroup_exclusive_max_
#define vkc_subgroup_exclusive_and subgroupExclusiveAnd
#define vkc_subgroup_exclusive_or subgroupExclusiveOr
#define vkc_subgroup_exclusive_xor subgroupExclusiveXor
#define vkc_subgroup_exclusive_logical_and subgroupExclusiveAnd
#define vkc_subgroup_exclusive_logical_or subgroupExclusiveOr
#define vkc_subgroup_exclusive_logical_xor subgroupExclusiveXor

// Infinities from their bits: a literal like 1.0/0.0 may be folded away under fast-math rules.
float16_t vkc_inf(float16_t t) { return unpackFloat2x16(0x7c00u).x; }
float vkc_inf(float t) { return uintBitsToFloat(0x7f800000u); }
double vkc_inf(double t) { return packDouble2x32(uvec2(0u, 0x7ff00000u)); }

#define VKC_FLOAT_IDENTITIES(T)                                                                       \
    T vkc_identity_add(T t) { return T(0); }                                                        \
    T vkc_identity_mul(T t) { return T(1); }                                                        \
    T vkc_identity_min(T t) { return vkc_inf(t); }                                                  \
    T vkc_identity_max(T t) { return -vkc_inf(t); }
VKC_FLOAT_IDENTITIES(float16_t)
VKC_FLOAT_IDENTITIES(float)
VKC_FLOAT_IDENTITIES(double)

#define VKC_INT_IDENTITIES(T, lowest, highest)                                                        \
    T vkc_identity_add(T t) { return T(0); }                                                        \
    T vkc_identity_mul(T t) { return T(1); }                                                        \
    T vkc_identity_min(T t) { return highest; }                                                     \
    T vkc_identity_max(T t) { return lowest; }                                                      \
    T vkc_identity_and(T t) { return ~T(0); }                                                       \
    T vkc_identity_or(T t) { return T(0); }                                                         \
    T vkc_identity_xor(T t) { return T(0); }                                                        \
    T vkc_identity_logical_and(T t) { return T(1); }                                                \
    T vkc_identity_logical_or(T t) { return T(0); }                                                 \
    T vkc_identity_logical_xor(T t) { return T(0); }
VKC_INT_IDENTITIES(int8_t, int8_t(-128), int8_t(127))
VKC_INT_IDENTITIES(uint8_t, uint8_t(0), uint8_t(255))
VKC_INT_IDENTITIES(int16_t, int16_t(-32768), int16_t(32767))
VKC_INT_IDENTITIES(uint16_t, uint16_t(0), uint16_t(65535))
VKC_INT_IDENTITIES(int, int(0x80000000u), 0x7fffffff)
VKC_INT_IDENTITIES(uint, 0u, 0xffffffffu)
VKC_INT_IDENTITIES(int64_t, int64_t(0x8000000000000000ul), 0x7fffffffffffffffl)
VKC_INT_IDENTITIES(uint64_t, 0ul, 0xfffffffffffffffful)

// ---- min and max, exact on every device ----------------------------------------------------
// Float min and max return one of their inputs bit for bit: they compare the items' bits as ordered
// integers (x ^ (x >> (bits - 1) & 0x7f..f) orders every non-NaN float, -0 below +0) and move bits,
// never float values. A driver that flushes denormals (NVIDIA's float32: shaderDenormPreserveFloat32
// is false, and SPIR-V cannot ask it to keep them) would otherwise turn a denormal minimum into 0.
// Items reach min and max already through the NaN rule below, so no NaN is compared. Integer types
// use the built-ins. Functions unused by a module are dropped by the compiler, so the 8-, 16- and
// 64-bit overloads cost modules of other types nothing.
int vkc_ordered(float x) {
    int b = floatBitsToInt(x);
    return b ^ ((b >> 31) & 0x7fffffff);
}
float vkc_from_ordered(float t, int o) { return intBitsToFloat(o ^ ((o >> 31) & 0x7fffffff)); }
// half as a sign-extended 32-bit integer: no 16-bit integer arithmetic (shaderInt16) needed.
int vkc_ordered(float16_t x) {
    int b = int(packFloat2x16(f16vec2(x, float16_t(0))) << 16) >> 16;
    return b ^ ((b >> 31) & 0x7fff);
}
float16_t vkc_from_ordered(float16_t t, int o) {
    return unpackFloat2x16(uint(o ^ ((o >> 31) & 0x7fff)) & 0xffffu).x;
}
// double in shared memory: two 32-bit words, so the shared-memory path needs no shaderInt64.
bool vkc_ordered_less(double a, double b) {
    uvec2 x = unpackDouble2x32(a), y = unpackDouble2x32(b); // .x low word, .y high word
    if (int(x.y) < 0) x = uvec2(~x.x, x.y ^ 0x7fffffffu);
    if (int(y.y) < 0) y = uvec2(~y.x, y.y ^ 0x7fffffffu);
    return int(x.y) < int(y.y) || (x.y == y.y && x.x < y.x);
}

float16_t vkc_min(float16_t a, float16_t b) { return vkc_from_ordered(a, min(vkc_ordered(a), vkc_ordered(b))); }
float16_t vkc_max(float16_t a, float16_t b) { return vkc_from_ordered(a, max(vkc_ordered(a), vkc_ordered(b))); }
float vkc_min(float a, float b) { return vkc_from_ordered(a, min(vkc_ordered(a), vkc_ordered(b))); }
float vkc_max(float a, float b) { return vkc_from_ordered(a, max(vkc_ordered(a), vkc_ordered(b))); }
#if VKC_SUBGROUP_ARITHMETIC
// Subgroup modules of double min/max have shaderInt64: one 64-bit compare, not two words.
int64_t vkc_ordered(double x) {
    int64_t b = doubleBitsToInt64(x);
    return b ^ ((b >> 63) & 0x7fffffffffffffffl);
}
double vkc_min(double a, double b) { return vkc_ordered(b) < vkc_ordered(a) ? b : a; }
double vkc_max(double a, double b) { return vkc_ordered(b) > vkc_ordered(a) ? b : a; }
#else
double vkc_min(double a, double b) { return vkc_ordered_less(b, a) ? b : a; }
double vkc_max(double a, double b) { return vkc_ordered_less(a, b) ? b : a; }
#endif
#define VKC_INT_MIN_MAX(T)                                                                            \
    T vkc_min(T a, T b) { return min(a, b); }                                                       \
    T vkc_max(T a, T b) { return max(a, b); }
VKC_INT_MIN_MAX(int8_t)
VKC_INT_MIN_MAX(uint8_t)
VKC_INT_MIN_MAX(int16_t)
VKC_INT_MIN_MAX(uint16_t)
VKC_INT_MIN_MAX(int)
VKC_INT_MIN_MAX(uint)
VKC_INT_MIN_MAX(int64_t)
VKC_INT_MIN_MAX(uint64_t)

#if VKC_SUBGROUP_ARITHMETIC
// Subgroup min and max: floats through their ordered bits, double as a 64-bit integer (its subgroup
// modules need shaderInt64 and subgroup extended types for that).
double vkc_from_ordered(double t, int64_t o) { return int64BitsToDouble(o ^ ((o >> 63) & 0x7fffffffffffffffl)); }
#define VKC_SUBGROUP_FLOAT_MIN_MAX(T)                                                                 \
    T vkc_subgroup_min(T x) { return vkc_from_ordered(x, subgroupMin(vkc_ordered(x))); }             \
    T vkc_subgroup_max(T x) { return vkc_from_ordered(x, subgroupMax(vkc_ordered(x))); }             \
    T vkc_subgroup_inclusive_min_(T x) { return vkc_from_ordered(x, subgroupInclusiveMin(vkc_ordered(x))); } \
    T vkc_subgroup_inclusive_max_(T x) { return vkc_from_ordered(x, subgroupInclusiveMax(vkc_ordered(x))); } \
    T vkc_subgroup_exclusive_min_(T x) { return vkc_from_ordered(x, subgroupExclusiveMin(vkc_ordered(x))); } \
    T vkc_subgroup_exclusive_max_(T x) { return vkc_from_ordered(x, subgroupExclusiveMax(vkc_ordered(x))); }
VKC_SUBGROUP_FLOAT_MIN_MAX(float16_t)
VKC_SUBGROUP_FLOAT_MIN_MAX(float)
VKC_SUBGROUP_FLOAT_MIN_MAX(double)
#define VKC_SUBGROUP_INT_MIN_MAX(T)                                                                   \
    T vkc_subgroup_min(T x) { return subgroupMin(x); }                                              \
    T vkc_subgroup_max(T x) { return subgroupMax(x); }                                              \
    T vkc_subgroup_inclusive_min_(T x) { return subgroupInclusiveMin(x); }                          \
    T vkc_subgroup_inclusive_max_(T x) { return subgroupInclusiveMax(x); }                          \
    T vkc_subgroup_exclusive_min_(T x) { return subgroupExclusiveMin(x); }                          \
    T vkc_subgroup_exclusive_max_(T x) { return subgroupExclusiveMax(x); }
VKC_SUBGROUP_INT_MIN_MAX(int8_t)
VKC_SUBGROUP_INT_MIN_MAX(uint8_t)
VKC_SUBGROUP_INT_MIN_MAX(int16_t)
VKC_SUBGROUP_INT_MIN_MAX(uint16_t)
VKC_SUBGROUP_INT_MIN_MAX(int)
VKC_SUBGROUP_INT_MIN_MAX(uint)
VKC_SUBGROUP_INT_MIN_MAX(int64_t)
VKC_SUBGROUP_INT_MIN_MAX(uint64_t)
#endif

// ---- NaN rule ----------------------------------------------------------------------------------
// min and max ignore NaN: a NaN item counts as the identity (+INF for min, -INF for max), so the
// result is the min/max of the non-NaN items, and +INF/-INF where a prefix holds only NaNs. This is
// IEEE 754 minNum/maxNum (C fmin, CUDA fminf), and it is applied before any subgroup built-in,
// whose NaN behaviour Vulkan leaves undefined. The test is on the bits, so no fast-math rule can
// remove it. add and mul keep IEEE semantics: a NaN makes the results that include it NaN.
bool vkc_is_nan(float16_t x) { return (packFloat2x16(f16vec2(x, 0)) & 0x7fffu) > 0x7c00u; }
bool vkc_is_nan(float x) { return (floatBitsToUint(x) & 0x7fffffffu) > 0x7f800000u; }
bool vkc_is_nan(double x) {
    uvec2 bits = unpackDouble2x32(x); // .x low word, .y high word
    uint high = bits.y & 0x7fffffffu;
    return high > 0x7ff00000u || (high == 0x7ff00000u && bits.x != 0u);
}
#define VKC_NEVER_NAN(T) bool vkc_is_nan(T x) { return false; }
VKC_NEVER_NAN(int8_t)
VKC_NEVER_NAN(uint8_t)
VKC_NEVER_NAN(int16_t)
VKC_NEVER_NAN(uint16_t)
VKC_NEVER_NAN(int)
VKC_NEVER_NAN(uint)
VKC_NEVER_NAN(int64_t)
VKC_NEVER_NAN(uint64_t)

#define vkc_prepare_add(x) (x)
#define vkc_prepare_mul(x) (x)
#define vkc_prepare_min(x) (vkc_is_nan(x) ? vkc_identity_min(x) : (x))
#define vkc_prepare_max(x) (vkc_is_nan(x) ? vkc_identity_max(x) : (x))
#define vkc_prepare_and(x) (x)
#define vkc_prepare_or(x) (x)
#define vkc_prepare_xor(x) (x)
#define vkc_prepare_logical_and(x) ((x) != vkc_identity_add(x) ? vkc_identity_mul(x) : vkc_identity_add(x))
#define vkc_prepare_logical_or(x) vkc_prepare_logical_and(x)
#define vkc_prepare_logical_xor(x) vkc_prepare_logical_and(x)

#endif // VKC_COMMON_GLSL
