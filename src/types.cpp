#include <array>
#include <bit>
#include <cstring>

#include "vkc/contract.h"
#include "vkc/device_scan.hpp"
#include "vkc/half.hpp"
#include "vkc/modules.hpp"
#include "vkc/types.hpp"

namespace vkc {

// The enum values are part of the ABI (include/vkc/types.def): these stay as they are.
static_assert(uint32_t(Type::f16) == 0 && uint32_t(Type::i32) == 1 && uint32_t(Type::u32) == 2 &&
              uint32_t(Type::i64) == 3 && uint32_t(Type::u64) == 4 && uint32_t(Type::f32) == 5 &&
              uint32_t(Type::f64) == 6 && uint32_t(Type::i8) == 7 && uint32_t(Type::u8) == 8 &&
              uint32_t(Type::i16) == 9 && uint32_t(Type::u16) == 10 && uint32_t(Type::u32x2) == 11);
static_assert(uint32_t(Op::add) == 0 && uint32_t(Op::min) == 1 && uint32_t(Op::max) == 2 && uint32_t(Op::mul) == 3 &&
              uint32_t(Op::bit_and) == 4 && uint32_t(Op::bit_or) == 5 && uint32_t(Op::bit_xor) == 6 &&
              uint32_t(Op::logical_and) == 7 && uint32_t(Op::logical_or) == 8 && uint32_t(Op::logical_xor) == 9 &&
              uint32_t(Op::argmax) == 10 && uint32_t(Op::segmented_add) == 11);

// The public headers document these numbers for engines, so they keep their own copies: here they
// are held to the contract the kernels are built from.
static_assert(module_spec_workgroup_size_x == VKC_SPEC_WORKGROUP_SIZE_X && VKC_SPEC_WORKGROUP_SIZE_Y == 1 &&
              VKC_SPEC_WORKGROUP_SIZE_Z == 2);
static_assert(module_spec_subgroups_packed == VKC_SPEC_SUBGROUPS_PACKED);
static_assert(module_spec_items_per_invocation == VKC_SPEC_ITEMS_PER_INVOCATION);
static_assert(module_spec_staged == VKC_SPEC_STAGED);
static_assert(module_spec_scratch_capacity == VKC_SPEC_SCRATCH_CAPACITY);
static_assert(module_spec_stage_items == VKC_SPEC_STAGE_ITEMS);
static_assert(module_spec_kernel == VKC_SPEC_KERNEL);
static_assert(block_batch_shift == VKC_BLOCK_BATCH_SHIFT);
static_assert(block_stage_bytes == VKC_STAGE_BYTES);
static_assert(look_back_register_chunk_tiles == VKC_DEVICE_REGISTER_CHUNK_TILES);
namespace {

constexpr std::array<std::string_view, 17> collective_names = {
    "reduce",       "scan_inclusive", "scan_exclusive", "broadcast",  "all",        "any",
    "layout_probe", "block_reduce",   "block_scan_inclusive", "block_scan_exclusive", "copy",
    "device_scan",  "read",           "radix_sort",     "select",     "histogram",  "segmented"};
// Vulkan's own names, so a message says what to look for in vulkaninfo.
constexpr std::array<std::string_view, 14> feature_vulkan_names = {
    "subgroup basic operations in compute", "subgroup vote", "subgroup arithmetic", "shaderSubgroupExtendedTypes",
    "shaderFloat16", "storageBuffer16BitAccess", "shaderInt64", "shaderFloat64", "shaderInt8", "shaderInt16",
    "storageBuffer8BitAccess", "subgroup shuffle", "subgroup shuffle relative", "subgroup ballot"};

template <class E, size_t N>
bool parse_name(std::string_view text, const std::array<std::string_view, N>& names, E& out) {
    for (size_t i = 0; i < N; ++i) {
        if (names[i] == text) {
            out = E(i);
            return true;
        }
    }
    return false;
}

// The row of include/vkc/types.def for an enum value; an invalid value is the caller's error.
template <class E, class Row, size_t N>
const Row& row_of(E value, const Row (&rows)[N], const char* enum_name) {
    for (const Row& r : rows) {
        if (r.value == value) return r;
    }
    throw Error(std::string("invalid ") + enum_name + " value " + std::to_string(uint32_t(value)));
}
const detail::TypeRow& row_of(Type t) { return row_of(t, detail::type_rows, "vkc::Type"); }
const detail::OpRow& row_of(Op o) { return row_of(o, detail::op_rows, "vkc::Op"); }

} // namespace

namespace {
// An enum value cast from an integer outside the enum is a caller's error like any other.
template <class E, class Table>
size_t checked(E value, const Table& table, const char* enum_name) {
    if (size_t(value) >= table.size()) {
        throw Error(std::string("invalid ") + enum_name + " value " + std::to_string(uint32_t(value)));
    }
    return size_t(value);
}
} // namespace

std::string_view name(Type t) { return row_of(t).name; }
std::string_view name(Op o) { return row_of(o).name; }
std::string_view name(Collective c) { return collective_names[checked(c, collective_names, "vkc::Collective")]; }
std::string_view name(Path p) {
    if (p != Path::subgroup && p != Path::shared_memory) {
        throw Error("invalid vkc::Path value " + std::to_string(uint32_t(p)));
    }
    return p == Path::subgroup ? "subgroup" : "shared";
}
size_t size_of(Type t) { return row_of(t).bytes; }
bool is_float(Type t) { return detail::row(t) && detail::row(t)->type_class == "float"; }
bool is_integer(Type t) { return detail::row(t) && detail::row(t)->type_class == "integer"; }
bool is_signed_integer(Type t) { return t == Type::i8 || t == Type::i16 || t == Type::i32 || t == Type::i64; }
bool has_op(Type t, Op op) {
    std::string_view type_class = row_of(t).type_class;
    std::string_view classes = row_of(op).classes; // "float|integer"
    while (!classes.empty()) {
        size_t bar = classes.find('|');
        if (classes.substr(0, bar) == type_class) return true;
        classes = bar == std::string_view::npos ? std::string_view() : classes.substr(bar + 1);
    }
    return false;
}
bool is_block(Collective c) {
    return c == Collective::block_reduce || c == Collective::block_scan_inclusive ||
           c == Collective::block_scan_exclusive;
}
bool has_op(Collective c) {
    return is_block(c) || c == Collective::reduce || c == Collective::scan_inclusive ||
           c == Collective::scan_exclusive || c == Collective::device_scan || c == Collective::segmented;
}
bool parse(std::string_view text, Type& out) {
    for (const detail::TypeRow& r : detail::type_rows) {
        if (r.name == text) {
            out = r.value;
            return true;
        }
    }
    return false;
}
bool parse(std::string_view text, Op& out) {
    for (const detail::OpRow& r : detail::op_rows) {
        if (r.name == text) {
            out = r.value;
            return true;
        }
    }
    return false;
}
bool parse(std::string_view text, Collective& out) { return parse_name(text, collective_names, out); }

std::string feature_names(Feature f) {
    std::string out;
    for (size_t bit = 0; bit < feature_vulkan_names.size(); ++bit) {
        if (uint32_t(f) & (1u << bit)) {
            if (!out.empty()) out += ", ";
            out += feature_vulkan_names[bit];
        }
    }
    return out.empty() ? "none" : out;
}

std::string WorkgroupShape::text() const {
    std::string s = std::to_string(x);
    if (y != 1 || z != 1) {
        s += 'x';
        s += std::to_string(y);
    }
    if (z != 1) {
        s += 'x';
        s += std::to_string(z);
    }
    return s;
}

size_t shared_memory_bytes(const ModuleInfo& m) {
    switch (m.collective) {
    case Collective::broadcast: return size_of(m.type);
    case Collective::all:
    case Collective::any: return sizeof(uint32_t);
    case Collective::layout_probe:
    case Collective::copy:
    case Collective::read: return 0;
    case Collective::device_scan: // the scan scratch, a prefix slot, the stage; a ticket and a flag
        return size_t(m.max_workgroup_size + 34) * size_of(m.type) + block_stage_bytes + block_stage_bytes / 32 +
               size_of(m.type) + 8;
    case Collective::radix_sort: // the digit counters (8 halves of 256), the stage (4096 keys), the scan
                                 // scratch, two arrays of 256 digits and three words
        return (8 * 128 + 4096 + (256 + 33) + 2 * 256 + 3 + 2) * sizeof(uint32_t);
    case Collective::select: // the tile's bit mask, 256 counts, the scan scratch, the look-back's
                             // window flags, cut slots and recheck words, and the ticket
        return (4096 / 32 + 256 + (256 + 33) + 2 * 256 + 3 + 2 + 1) * sizeof(uint32_t);
    case Collective::histogram: // the shared counts, and the bins of 8-bit values or the levels' keys
        return (VKC_HISTOGRAM_SHARED_BINS + VKC_HISTOGRAM_LOOKUP_WORDS) * sizeof(uint32_t);
    case Collective::segmented: // the scan scratch of (heads, value) pairs (three words each), the
                                // look-back's window flags, cut slots, recheck flag and pair, the ticket,
                                // the staged offsets (258) and their bounds
        return ((VKC_SEGMENTED_WORKGROUP_SIZE + 33) * 3 + 2 * VKC_SEGMENTED_WORKGROUP_SIZE + 3 + 1 + 3 + 1 + 258 + 4) *
               sizeof(uint32_t);
    default: // the scan scratch: capacity + raking lanes (32) + 1, and for block scans a prefix slot
        return size_t(m.max_workgroup_size + 33 + (is_block(m.collective) ? 1 : 0)) * size_of(m.type) +
               (is_block(m.collective) ? block_stage_bytes + block_stage_bytes / 32 + size_of(m.type) : 0);
    }
}

// binary16 <-> binary32, round to nearest even, with subnormals, infinities and NaN payloads kept.
half::half(float value) {
    uint32_t f = std::bit_cast<uint32_t>(value);
    uint32_t sign = (f >> 16) & 0x8000u;
    uint32_t exp = (f >> 23) & 0xffu;
    uint32_t mant = f & 0x7fffffu;
    if (exp == 0xffu) { // INF or NaN; keep NaN a NaN
        bits = uint16_t(sign | 0x7c00u | (mant ? (0x200u | (mant >> 13)) : 0u));
        return;
    }
    int e = int(exp) - 127 + 15;
    if (e >= 31) {
        bits = uint16_t(sign | 0x7c00u);
        return;
    }
    if (e <= 0) { // subnormal or zero
        if (e < -10) {
            bits = uint16_t(sign);
            return;
        }
        mant |= 0x800000u;
        uint32_t shift = uint32_t(14 - e);
        uint32_t h = mant >> shift;
        uint32_t rem = mant & ((1u << shift) - 1u);
        uint32_t halfway = 1u << (shift - 1u);
        if (rem > halfway || (rem == halfway && (h & 1u))) ++h;
        bits = uint16_t(sign | h);
        return;
    }
    uint32_t h = (uint32_t(e) << 10) | (mant >> 13);
    uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) ++h; // may carry into the exponent: correct
    bits = uint16_t(sign | h);
}

half::operator float() const {
    uint32_t sign = uint32_t(bits & 0x8000u) << 16;
    uint32_t exp = (bits >> 10) & 0x1fu;
    uint32_t mant = bits & 0x3ffu;
    uint32_t f;
    if (exp == 0x1fu) {
        f = sign | 0x7f800000u | (mant << 13);
    } else if (exp != 0) {
        f = sign | ((exp - 15 + 127) << 23) | (mant << 13);
    } else if (mant == 0) {
        f = sign;
    } else { // subnormal: normalise
        int e = -1;
        do {
            ++e;
            mant <<= 1;
        } while (!(mant & 0x400u));
        f = sign | (uint32_t(127 - 15 - e) << 23) | ((mant & 0x3ffu) << 13);
    }
    return std::bit_cast<float>(f);
}

} // namespace vkc
