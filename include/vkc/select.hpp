// vkcollectives: device-wide stream compaction (CUB's DeviceSelect and DevicePartition), the
// vocabulary of Context::select and of the plans an engine records into its own command buffers
// (Device::plan_select).
//
//   // keep the items below 100: out[0, kept) holds them in input order
//   std::vector<uint32_t> kept = ctx.select_if(std::span<const uint32_t>(host), vkc::SelectPredicate::less(100u));
//   std::vector<float> runs = ctx.unique(std::span<const float>(host)); // consecutive duplicates dropped
//   vkc::SelectPlan plan = gpu.plan_select(vkc::Type::u32, count, ranges, options);
//   plan.record(cmd); // ranges.kept holds the number kept, ranges.command an indirect draw of them
//
// What is kept (SelectOptions::by):
//   flagged    item i where flags[i] (a uint32 a item) is not 0 (CUB's Flagged);
//   predicate  item i where a predicate chosen at plan time holds (CUB's If; SelectPredicate below);
//              an engine compiles a predicate of its own into shaders/kernels/select.comp instead
//              (VKC_SELECT_USER_PREDICATE, see there);
//   unique     the first item of every run of equal items (CUB's Unique: item 0, and item i where
//              item i != item i - 1; floats compare as numbers, so -0 == +0 and a NaN is never equal).
// Stable: the kept items keep their input order. With SelectOptions::partition the rest follow them,
// in reverse input order (as CUB's DevicePartition writes them): out[0, kept) the kept items,
// out[kept, count) the others, last first. Otherwise out[kept, count) is not written.
//
// Algorithm: one pass over the input. Work-groups take tiles of 4096 items by ticket, find each
// item's place among the tile's kept items (a bit mask of the tile in shared memory and one
// work-group scan of 16-item counts), and the items kept before the tile by a decoupled look-back
// that never waits without bound (a tile whose predecessor has posted nothing for a while counts
// that predecessor's kept items itself). Loads and stores are coalesced: a subgroup's kept items
// land next to each other.
//
// Items: u32, i32, f32, u64, i64, f64 (moved as their bits). Count up to select_max_count.
#pragma once

#include "vkc/api.hpp"

#include <bit>
#include <cstdint>
#include <cstring>
#include <memory>
#include <span>
#include <type_traits>

#include "vkc/device_scan.hpp"
#include "vkc/half.hpp"
#include "vkc/types.hpp"
#include "vkc/vulkan_handles.hpp"

namespace vkc {
VKC_API_BEGIN

enum class Selection : uint32_t { flagged, predicate, unique };

// A predicate of the fixed set, chosen at plan time; its operands go to the kernel as push constants.
// Comparisons follow the item type (int signed, float as numbers: a NaN item passes only not_equal,
// -0 == +0); bits_all and bits_any test the item's bits (floats too).
struct SelectPredicate {
    enum class Kind : uint32_t {
        less,          // x < a
        less_equal,    // x <= a
        greater,       // x > a
        greater_equal, // x >= a
        equal,         // x == a
        not_equal,     // x != a
        inside,        // a <= x < b
        outside,       // x < a or x >= b (not inside; floats: a NaN is neither)
        bits_all,      // (x & a) == a, on the bits
        bits_any       // (x & a) != 0, on the bits
    };
    Kind kind = Kind::not_equal;
    Type type = Type::u32; // the operands' type: must be the item type
    uint64_t a = 0, b = 0; // the operands' bits, in the low bytes for 32-bit types

    template <class T>
    static SelectPredicate make(Kind kind, T a, T b = T{}) {
        SelectPredicate p;
        p.kind = kind;
        p.type = vkc::type_of<T>();
        p.a = bits_of(a);
        p.b = bits_of(b);
        return p;
    }
    template <class T> static SelectPredicate less(T a) { return make(Kind::less, a); }
    template <class T> static SelectPredicate less_equal(T a) { return make(Kind::less_equal, a); }
    template <class T> static SelectPredicate greater(T a) { return make(Kind::greater, a); }
    template <class T> static SelectPredicate greater_equal(T a) { return make(Kind::greater_equal, a); }
    template <class T> static SelectPredicate equal(T a) { return make(Kind::equal, a); }
    template <class T> static SelectPredicate not_equal(T a) { return make(Kind::not_equal, a); }
    template <class T> static SelectPredicate inside(T low, T high) { return make(Kind::inside, low, high); }
    template <class T> static SelectPredicate outside(T low, T high) { return make(Kind::outside, low, high); }
    template <class T> static SelectPredicate bits_all(T mask) { return make(Kind::bits_all, mask); }
    template <class T> static SelectPredicate bits_any(T mask) { return make(Kind::bits_any, mask); }

private:
    template <class T>
    static uint64_t bits_of(T v) {
        if constexpr (sizeof(T) == 1) return std::bit_cast<uint8_t>(v);
        else if constexpr (sizeof(T) == 2) return std::bit_cast<uint16_t>(v);
        else if constexpr (sizeof(T) == 4) return std::bit_cast<uint32_t>(v);
        else return std::bit_cast<uint64_t>(v);
    }
};

// Where the number kept goes besides SelectRanges::kept: an indirect command for the next pass,
// written on the device, so that it needs no readback.
enum class KeptCommand : uint32_t {
    none,
    dispatch,     // VkDispatchIndirectCommand {ceil(kept / command_group_items), 1, 1}
    draw,         // VkDrawIndirectCommand {command_vertices, kept, 0, 0}: an instance a kept item
    draw_indexed  // VkDrawIndexedIndirectCommand {command_vertices (the index count), kept, 0, 0, 0}
};

// Test hooks: paths a test cannot reach on a small input otherwise. Default off.
struct SelectTestHooks {
    // Every tile counts its predecessor's kept items from the input instead of trusting its post.
    bool force_fallback = false;
};

// The item type Device::select_module takes for a select of `item`s: one module moves every type
// of a size (select_uchar 8-bit items, select_ushort 16-bit, select_uint 32- and 64-bit).
inline Type select_module_type(Type item) {
    const size_t bytes = size_of(item);
    return bytes == 1 ? Type::u8 : bytes == 2 ? Type::u16 : Type::u32;
}

struct SelectOptions {
    Selection by = Selection::predicate;
    SelectPredicate predicate; // with Selection::predicate
    bool partition = false;    // write the items not kept after the kept ones (reverse input order)
    KeptCommand command = KeptCommand::none;
    uint32_t command_group_items = 1; // KeptCommand::dispatch: kept items a work-group takes (1 to 65535)
    uint32_t command_vertices = 0;    // KeptCommand::draw / draw_indexed: vertices or indices an instance
    // Path::shared_memory uses the shared-memory module even where subgroup arithmetic exists.
    Path path = Path::subgroup;
    // Polls of a tile's status that has not been posted before the waiting tile counts that tile's
    // kept items itself. 0: the default (256); at most 65535.
    uint32_t spin_limit = 0;
    // An engine's own kernel: the SPIR-V of vkc/device_select.glsl compiled with its predicate
    // (VKC_SELECT_USER_PREDICATE), kept by the caller while plans are made from it. With Selection::
    // predicate it replaces the library's module (the device must have what the engine compiled it
    // for: subgroup arithmetic and ballots unless it set VKC_SUBGROUP_ARITHMETIC 0). Empty: the library's.
    std::span<const uint32_t> kernel;
    SelectTestHooks test;
};

// Items one select takes at most: a tile's status word counts items in 30 bits.
constexpr uint64_t select_max_count = (1ull << 30) - 1;
constexpr uint32_t select_tile_items = 4096; // items a work-group takes

// The caller's ranges of a select (Device::plan_select).
struct SelectRanges {
    BufferRange input;   // count items
    BufferRange flags;   // Selection::flagged: count uint32 flags; else unused
    BufferRange output;  // count items; may be `input` itself (in place) unless partitioning
    BufferRange kept;    // 4 bytes: the number kept, a uint32
    BufferRange command; // KeptCommand other than none: the command's 12, 16 or 20 bytes
    BufferRange scratch; // select_scratch_bytes
};

// A select recorded into command buffers the caller owns (Device::plan_select). It holds the
// descriptor set that points at the caller's buffers: keep it, and the buffers, alive until every
// command buffer it was recorded into has finished. Move only.
//
// record(cmd) records: a vkCmdUpdateBuffer of the command's fixed words where there is one, a fill of
// the scratch range (vkCmdFillBuffer), a barrier, and one dispatch; with no items (a host count of
// 0), only the update and a fill of the kept count with 0.
// Bound state it changes: the compute pipeline, descriptor set 0 and push constants of the compute
// bind point. No queue submission, no waits.
// Barriers the caller owes:
//   before: its earlier writes to the input and flags (and earlier reads or writes of every range the
//     plan writes, an earlier plan on the same scratch included)
//     -> VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
//        VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
//   after: VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_ACCESS_SHADER_WRITE_BIT -> its readers of the
//     output and the count (VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT, VK_ACCESS_INDIRECT_COMMAND_READ_BIT
//     for the command).
// Buffers: every range needs VK_BUFFER_USAGE_STORAGE_BUFFER_BIT; the scratch, the command and the
// kept count also VK_BUFFER_USAGE_TRANSFER_DST_BIT (a select of no items fills the count with 0),
// and the command VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT for its reader.
class SelectPlan {
public:
    SelectPlan();
    SelectPlan(SelectPlan&&) noexcept;
    SelectPlan& operator=(SelectPlan&&) noexcept;
    ~SelectPlan();
    void record(VkCommandBuffer cmd) const;
    uint64_t count() const;      // items (with an IndirectCount: max_count)
    uint32_t dispatches() const; // compute dispatches it records (1)
    Path path() const;           // of the module it runs

    struct State;

private:
    friend class Context;
    friend struct DeviceState;
    std::unique_ptr<State> state_;
};

VKC_API_END
} // namespace vkc
