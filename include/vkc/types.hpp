// vkcollectives: the vocabulary shared by the module table, the runtime and the tools.
#pragma once

#include "vkc/api.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace vkc {
VKC_API_BEGIN


// Item types, named in tools and messages by their OpenCL names (half, int, uint, long, ulong, float,
// double, char, uchar, short, ushort); u32x2 ("uvec2") carries the worked custom operators' pairs.
enum class Type : uint32_t { f16, i32, u32, i64, u64, f32, f64, i8, u8, i16, u16, u32x2 };
// Operators of reduce and scan, with the identities of OpenCL C (add 0; min the type's maximum or
// +INF; max the type's minimum or -INF) and cl_khr_work_group_uniform_arithmetic (mul 1, and ~0,
// or 0, xor 0, logical_and 1, logical_or 0, logical_xor 0). Bitwise and logical ops are for
// integer types; logical ops give 0 or 1. argmax and segmented_add are the worked custom operators
// of shaders/examples, on u32x2 items.
enum class Op : uint32_t { add, min, max, mul, bit_and, bit_or, bit_xor, logical_and, logical_or, logical_xor,
                           argmax, segmented_add };
// layout_probe is internal: a module that reports how a device packs a work-group into subgroups.
// block_* are CUB's BlockScan forms: many items per invocation, aggregate, seed and running prefix.
// copy (internal) is the benchmarks' bandwidth ceiling: a uvec4 copy of uint items.
// read (internal) is the reduce benchmark's ceiling: a uvec4 read-only pass.
// device_scan is the device-wide scan and reduce of Context::scan / reduce (modes by push constant).
enum class Collective : uint32_t { reduce, scan_inclusive, scan_exclusive, broadcast, all, any, layout_probe,
                                   block_reduce, block_scan_inclusive, block_scan_exclusive, copy, device_scan, read };
// How a module joins invocations: subgroup operations joined through shared memory, or shared memory only.
enum class Path : uint32_t { subgroup, shared_memory };

// Device capabilities a module may need beyond Vulkan 1.1 compute. A bit set.
enum class Feature : uint32_t {
    none = 0,
    subgroup_basic = 1u << 0,          // VK_SUBGROUP_FEATURE_BASIC_BIT in compute
    subgroup_vote = 1u << 1,           // VK_SUBGROUP_FEATURE_VOTE_BIT
    subgroup_arithmetic = 1u << 2,     // VK_SUBGROUP_FEATURE_ARITHMETIC_BIT
    subgroup_extended_types = 1u << 3, // shaderSubgroupExtendedTypes (subgroup ops on half, long, ulong)
    shader_float16 = 1u << 4,          // shaderFloat16
    storage_buffer_16bit = 1u << 5,    // storageBuffer16BitAccess
    shader_int64 = 1u << 6,            // shaderInt64
    shader_float64 = 1u << 7,          // shaderFloat64
    shader_int8 = 1u << 8,             // shaderInt8
    shader_int16 = 1u << 9,            // shaderInt16
    storage_buffer_8bit = 1u << 10,    // storageBuffer8BitAccess
    subgroup_shuffle = 1u << 11,       // VK_SUBGROUP_FEATURE_SHUFFLE_BIT
    subgroup_shuffle_relative = 1u << 12, // VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT
};
constexpr Feature operator|(Feature a, Feature b) { return Feature(uint32_t(a) | uint32_t(b)); }
constexpr Feature operator&(Feature a, Feature b) { return Feature(uint32_t(a) & uint32_t(b)); }
constexpr Feature operator~(Feature a) { return Feature(~uint32_t(a)); }
constexpr bool any(Feature f) { return uint32_t(f) != 0; }
constexpr Feature all_features = Feature(0x1fffu);

std::string_view name(Type);       // "half", "int", ...
std::string_view name(Op);         // "add", "min", "max"
std::string_view name(Collective); // "reduce", "scan_inclusive", ...
std::string_view name(Path);       // "subgroup", "shared"
std::string feature_names(Feature); // "shaderInt64, shaderFloat64"; "none" for none
size_t size_of(Type);
bool is_float(Type);
bool is_integer(Type); // the 8- to 64-bit integer types
bool has_op(Type, Op); // whether the operator is defined for the type
bool is_block(Collective);
bool has_op(Collective); // reduce and scans (work-group or block) take an operator
bool parse(std::string_view text, Type& out);
bool parse(std::string_view text, Op& out);
bool parse(std::string_view text, Collective& out);

// Every error the library reports. The message names what was wrong.
class Error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};
// The device lacks a feature the request needs; the message names the feature.
class UnsupportedError : public Error {
public:
    using Error::Error;
};

// Work-group shape: 1D, 2D or 3D. Scan order is the linear local id x + y*X + z*X*Y.
struct WorkgroupShape {
    uint32_t x = 1, y = 1, z = 1;
    uint64_t size() const { return uint64_t(x) * y * z; }
    std::string text() const; // "64", "16x16", "8x8x8"
};

VKC_API_END
} // namespace vkc
