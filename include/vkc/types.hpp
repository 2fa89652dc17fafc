// vkcollectives: the vocabulary shared by the module table, the runtime and the tools.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace vkc {

// Item types, named in tools and messages by their OpenCL names (half, int, uint, long, ulong, float, double).
enum class Type : uint32_t { f16, i32, u32, i64, u64, f32, f64 };
// Operators of reduce and scan, with OpenCL C's identities (add 0; min the type's maximum or +INF;
// max the type's minimum or -INF).
enum class Op : uint32_t { add, min, max };
// layout_probe is internal: a module that reports how a device packs a work-group into subgroups.
enum class Collective : uint32_t { reduce, scan_inclusive, scan_exclusive, broadcast, all, any, layout_probe };
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
};
constexpr Feature operator|(Feature a, Feature b) { return Feature(uint32_t(a) | uint32_t(b)); }
constexpr Feature operator&(Feature a, Feature b) { return Feature(uint32_t(a) & uint32_t(b)); }
constexpr Feature operator~(Feature a) { return Feature(~uint32_t(a)); }
constexpr bool any(Feature f) { return uint32_t(f) != 0; }
constexpr Feature all_features = Feature(0xffu);

std::string_view name(Type);       // "half", "int", ...
std::string_view name(Op);         // "add", "min", "max"
std::string_view name(Collective); // "reduce", "scan_inclusive", ...
std::string_view name(Path);       // "subgroup", "shared"
std::string feature_names(Feature); // "shaderInt64, shaderFloat64"; "none" for none
size_t size_of(Type);
bool is_float(Type);
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

} // namespace vkc
