// vkcollectives: the places of a tile's kept items, the block-level step of stream compaction (what
// CUB's DeviceSelect does inside a tile with BlockScan over flags), and the run heads of unique.
//
// A tile is VKC_WORKGROUP_SIZE invocations x VKC_ITEMS items, striped: item i of invocation t is tile
// item i * VKC_WORKGROUP_SIZE + t, the arrangement coalesced loads read (vkc/tile_io.glsl). Each item
// has a keep flag. The flags go into a bit mask of the tile in shared memory; each invocation counts
// VKC_ITEMS consecutive bits of it, and one work-group scan of those counts gives every kept item its
// place among the tile's kept items, in tile order. Stored at tile offset + place, a subgroup's kept
// items of one register land side by side: the stores stay coalesced with no stage for the items.
// With VKC_SUBGROUP_ARITHMETIC (default 1) and subgroups packed in local-index order, a subgroup
// ballot a register makes the mask (GL_KHR_shader_subgroup_ballot, which the shader enables before
// its declarations); otherwise one shared atomic an item kept. Either works at every subgroup width.
//
// Define before including (once per shader):
//   VKC_ITEMS             items per invocation: 1, 2, 4, 8, 16 or 32 (a compile-time constant)
//   VKC_SELECT_CAPACITY   the most invocations the shared arrays are sized for (default
//                         VKC_WORKGROUP_SIZE; a literal when the size is a specialization constant:
//                         Mesa 22 sizes shared arrays from the unspecialised default)
// It instantiates vkc/workgroup_scan.glsl's (uint, add); a shader that instantiates that pair itself
// defines VKC_SELECT_HAVE_UINT_ADD_SCAN and includes it first.
// Shared memory: capacity x VKC_ITEMS / 32 words of mask, capacity words of counts, and the scan's.
//
//   uint vkc_block_select_places(bool keep[VKC_ITEMS], out uint places[VKC_ITEMS]);
//       places[i]: for a kept item, the kept items before it in the tile; for the others, the other
//       items before it (where a partition puts it among the rejected). Returns the number kept.
//       Whole work-group, uniform control flow.
//   bool vkc_block_select_head(uint position, bool equal_to_previous);
//       unique's flag: an item is kept when it is the first of the input (position 0) or differs
//       from the item before it.
//
// Example, 2 invocations x 2 items, tile items [a b c d] held striped as (a c | b d), keep (1 0 | 1 1):
// the tile keeps a, b, d, so places are (0 0 | 1 2) (c has two kept items before it and is the first
// rejected) and 3 is returned.

#ifndef VKC_ITEMS
#error "define VKC_ITEMS (items per invocation) before including vkc/block_select.glsl"
#endif
#ifndef VKC_SELECT_CAPACITY
#define VKC_SELECT_CAPACITY VKC_WORKGROUP_SIZE
#endif
#ifndef VKC_SELECT_HAVE_UINT_ADD_SCAN
#define VKC_TYPE uint
#define VKC_OP add
#include "workgroup_scan.glsl"
#endif

const uint VKC_SELECT_MASK_WORDS = (VKC_SELECT_CAPACITY * VKC_ITEMS + 31u) / 32u;
shared uint vkc_select_mask[VKC_SELECT_MASK_WORDS];
shared uint vkc_select_before[VKC_SELECT_CAPACITY]; // kept items before invocation t's bits

uint vkc_block_select_places(bool keep[VKC_ITEMS], out uint places[VKC_ITEMS]) {
    const uint t = gl_LocalInvocationIndex;
    const uint size = VKC_WORKGROUP_SIZE;
    const uint words = (size * VKC_ITEMS + 31u) / 32u;
    for (uint w = t; w < words; w += size) vkc_select_mask[w] = 0u;
    barrier();
#if VKC_SUBGROUP_ARITHMETIC
    if (VKC_SUBGROUPS_PACKED) {
        // A ballot a register: subgroup s's bits of register i start at tile item i * size + s * S. A
        // subgroup of 32 lanes or more writes whole words; smaller ones share a word.
        const uint lane = gl_SubgroupInvocationID;
        [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
            uvec4 ballot = subgroupBallot(keep[i]);
            uint start = i * size + gl_SubgroupID * gl_SubgroupSize;
            if (gl_SubgroupSize < 32u) {
                if (lane == 0u) atomicOr(vkc_select_mask[start >> 5u], ballot.x << (start & 31u));
            } else if ((lane & 31u) == 0u) {
                vkc_select_mask[(start >> 5u) + (lane >> 5u)] = ballot[lane >> 5u];
            }
        }
    } else
#endif
    {
        // One shared atomic an item kept (neighbours contend for a word).
        [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
            uint at = i * size + t;
            if (keep[i]) atomicOr(vkc_select_mask[at >> 5u], 1u << (at & 31u));
        }
    }
    barrier();
    // Invocation t counts bits [t * ITEMS, (t + 1) * ITEMS): within one word, as ITEMS divides 32.
    const uint segment_bits = VKC_ITEMS == 32 ? 0xffffffffu : (1u << uint(VKC_ITEMS)) - 1u;
    uint first_bit = t * uint(VKC_ITEMS);
    uint mine = bitCount((vkc_select_mask[first_bit >> 5u] >> (first_bit & 31u)) & segment_bits);
    uint total;
    uint before;
    vkc_workgroup_scan_core_add(mine, before, total);
    vkc_select_before[t] = before;
    barrier();
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
        uint at = i * size + t;
        uint segment = at / uint(VKC_ITEMS);
        uint offset = at % uint(VKC_ITEMS); // bits of the segment before the item
        uint word = vkc_select_mask[at >> 5u] >> ((segment * uint(VKC_ITEMS)) & 31u);
        uint kept_before = vkc_select_before[segment] + bitCount(word & ((1u << offset) - 1u));
        places[i] = keep[i] ? kept_before : at - kept_before;
    }
    barrier(); // the next call may rewrite the mask only after every invocation has read it
    return total;
}

bool vkc_block_select_head(uint position, bool equal_to_previous) { return position == 0u || !equal_to_previous; }
