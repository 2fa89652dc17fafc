// vkcollectives: the vocabulary shared by the module table, the runtime and the tools.
#pragma once

#include "vkc/api.hpp"
#include "vkc/half.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>

namespace vkc {
VKC_API_BEGIN

// Item types and operators: one line each in include/vkc/types.def, which gives their enum values
// (fixed: part of the ABI), names and classes. Types are named in tools and messages by their OpenCL
// names (half, int, uint, long, ulong, float, double, char, uchar, short, ushort); u32x2 ("uvec2")
// carries the worked custom operators' pairs.
enum class Type : uint32_t {
#define VKC_TYPE(enumerator, value, ...) enumerator = value,
#include "vkc/types.def"
};
// Operators of reduce and scan, with the identities of OpenCL C (add 0; min the type's maximum or
// +INF; max the type's minimum or -INF) and cl_khr_work_group_uniform_arithmetic (mul 1, and ~0,
// or 0, xor 0, logical_and 1, logical_or 0, logical_xor 0). Bitwise and logical ops are for
// integer types; logical ops give 0 or 1. argmax and segmented_add are the worked custom operators
// of shaders/examples, on u32x2 items.
enum class Op : uint32_t {
#define VKC_OP(enumerator, value, ...) enumerator = value,
#include "vkc/types.def"
};
// layout_probe is internal: a module that reports how a device packs a work-group into subgroups.
// block_* are CUB's BlockScan forms: many items per invocation, aggregate, seed and running prefix.
// copy (internal) is the benchmarks' bandwidth ceiling: a uvec4 copy of uint items.
// read (internal) is the reduce benchmark's ceiling: a uvec4 read-only pass.
// device_scan is the device-wide scan and reduce of Context::scan / reduce (modes by push constant).
// radix_sort is the device-wide sort of Context::sort (include/vkc/sort.hpp).
// select is the device-wide select, unique and partition of Context::select (include/vkc/select.hpp).
// histogram is the device-wide histogram of Context::histogram (include/vkc/histogram.hpp).
// segmented is the segmented scan and reduce, by key too, and run-length encoding (include/vkc/segmented.hpp).
enum class Collective : uint32_t { reduce, scan_inclusive, scan_exclusive, broadcast, all, any, layout_probe,
                                   block_reduce, block_scan_inclusive, block_scan_exclusive, copy, device_scan, read,
                                   radix_sort, select, histogram, segmented };
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
    subgroup_ballot = 1u << 13,        // VK_SUBGROUP_FEATURE_BALLOT_BIT
};
constexpr Feature operator|(Feature a, Feature b) { return Feature(uint32_t(a) | uint32_t(b)); }
constexpr Feature operator&(Feature a, Feature b) { return Feature(uint32_t(a) & uint32_t(b)); }
constexpr Feature operator~(Feature a) { return Feature(~uint32_t(a)); }
constexpr bool any(Feature f) { return uint32_t(f) != 0; }
constexpr Feature all_features = Feature(0x3fffu);

std::string_view name(Type);       // "half", "int", ...
std::string_view name(Op);         // "add", "min", "max"
std::string_view name(Collective); // "reduce", "scan_inclusive", ...
std::string_view name(Path);       // "subgroup", "shared"
std::string feature_names(Feature); // "shaderInt64, shaderFloat64"; "none" for none
size_t size_of(Type);
bool is_float(Type);
bool is_integer(Type); // the 8- to 64-bit integer types
bool is_signed_integer(Type); // char, short, int, long
bool has_op(Type, Op); // whether the operator is defined for the type
bool is_block(Collective);
bool has_op(Collective); // reduce and scans (work-group or block) take an operator
bool parse(std::string_view text, Type& out);
bool parse(std::string_view text, Op& out);
bool parse(std::string_view text, Collective& out);

namespace detail {
struct TypeRow {
    Type value;
    std::string_view name, short_name, type_class;
    uint32_t bytes;
    bool opencl;
};
struct OpRow {
    Op value;
    std::string_view name, classes;
    bool opencl;
};
inline constexpr TypeRow type_rows[] = {
#define VKC_TYPE(enumerator, value, name, type_class, opencl, bytes, ...)                                              \
    {Type::enumerator, #name, #enumerator, #type_class, bytes, opencl != 0},
#include "vkc/types.def"
};
inline constexpr OpRow op_rows[] = {
#define VKC_OP(enumerator, value, name, classes, opencl, compares) {Op::enumerator, #name, #classes, opencl != 0},
#include "vkc/types.def"
};
// The enumerators in value order; a gap or a repeated value in types.def fails to compile here.
template <class E, class Row, size_t N>
constexpr std::array<E, N> in_value_order(const Row (&rows)[N]) {
    std::array<E, N> out{};
    std::array<bool, N> seen{};
    for (const Row& r : rows) {
        if (size_t(r.value) >= N || seen[size_t(r.value)]) throw "types.def: enum values must be 0 ... N-1, once each";
        seen[size_t(r.value)] = true;
        out[size_t(r.value)] = r.value;
    }
    return out;
}
inline constexpr auto types_by_value = in_value_order<Type>(type_rows);
inline constexpr auto ops_by_value = in_value_order<Op>(op_rows);
constexpr const TypeRow* row(Type t) {
    for (const TypeRow& r : type_rows) {
        if (r.value == t) return &r;
    }
    return nullptr;
}
constexpr const OpRow* row(Op o) {
    for (const OpRow& r : op_rows) {
        if (r.value == o) return &r;
    }
    return nullptr;
}
} // namespace detail

// Every type and every operator (include/vkc/types.def), in enum order.
constexpr std::span<const Type> all_types() { return detail::types_by_value; }
constexpr std::span<const Op> all_ops() { return detail::ops_by_value; }
// OpenCL C's work-group function types (half, int, uint, long, ulong, float, double) and operators
// (add, min, max): the foundation; the rest came after.
constexpr bool is_opencl(Type t) { return detail::row(t) && detail::row(t)->opencl; }
constexpr bool is_opencl(Op o) { return detail::row(o) && detail::row(o)->opencl; }
// The enumerator's name, the short name of the tools: "f16", "u32", "u32x2"; "" for no type.
constexpr std::string_view short_name(Type t) { return detail::row(t) ? detail::row(t)->short_name : ""; }

// The Type of a host type: type_of<uint8_t>() == Type::u8, type_of<vkc::half>() == Type::f16.
template <class T>
constexpr Type type_of() {
    if constexpr (std::is_same_v<T, half>) return Type::f16;
    else if constexpr (std::is_same_v<T, int8_t>) return Type::i8;
    else if constexpr (std::is_same_v<T, uint8_t>) return Type::u8;
    else if constexpr (std::is_same_v<T, int16_t>) return Type::i16;
    else if constexpr (std::is_same_v<T, uint16_t>) return Type::u16;
    else if constexpr (std::is_same_v<T, int32_t>) return Type::i32;
    else if constexpr (std::is_same_v<T, uint32_t>) return Type::u32;
    else if constexpr (std::is_same_v<T, int64_t>) return Type::i64;
    else if constexpr (std::is_same_v<T, uint64_t>) return Type::u64;
    else if constexpr (std::is_same_v<T, float>) return Type::f32;
    else {
        static_assert(std::is_same_v<T, double>, "no vkc::Type for this host type");
        return Type::f64;
    }
}

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
