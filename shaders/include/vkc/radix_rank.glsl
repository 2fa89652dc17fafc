// vkcollectives: ranking a tile by a digit of its keys, and sorting a tile by its keys (CUB's
// BlockRadixRank and BlockRadixSort), the block-level steps of a radix sort.
//
// A tile is VKC_WORKGROUP_SIZE invocations x VKC_ITEMS items, blocked: invocation t holds tile items
// [t*N, t*N + N). Keys are uint; vkc_radix_key_* below turn int and float bits into uints of the same
// order (and back), so every 32-bit type sorts through them.
//
// Define before including (once per shader):
//   VKC_ITEMS            items per invocation (a compile-time constant)
//   VKC_RADIX_BITS       digit width, 1 to 8
//   VKC_RADIX_CAPACITY   the most invocations the shared arrays are sized for (default
//                        VKC_WORKGROUP_SIZE; a literal when the size is a specialization constant:
//                        Mesa 22 sizes shared arrays from the unspecialised default)
// The prefix over the digit counters is vkc/workgroup_scan.glsl's exclusive add over uint, which this
// header instantiates; a shader that instantiates (uint, add) itself defines VKC_RADIX_HAVE_UINT_ADD_SCAN
// and includes it first.
//
// Shared memory: 2^bits / 2 x capacity words of 16-bit counter pairs (CUB's packed counter lanes:
// 8 KB for 4 bits and 256 invocations, 16 KB for 6 bits and 128) plus capacity x VKC_ITEMS words of
// stage (and a padding word every 32), and the scan's. A tile holds fewer than 65536 items (the counters' width).
//
//   void vkc_radix_rank(uint digits[VKC_ITEMS], uint item_count, out uint ranks[VKC_ITEMS]);
//       ranks[i]: where item i goes when the tile's first `item_count` items (tile order) are ordered
//       stably by digit; items at or past `item_count` are not counted and get rank 0xffffffff.
//   uint vkc_radix_digit_start(uint digit);
//       after vkc_radix_rank, the rank of the digit's first item (the counts of the smaller digits);
//       digit 2^bits gives `item_count`, so start(d + 1) - start(d) is digit d's count. Valid until the
//       next vkc_radix_* call.
//   void vkc_radix_sort_keys(inout uint keys[VKC_ITEMS], uint begin_bit, uint end_bit, bool descending);
//   void vkc_radix_sort_pairs(inout uint keys[VKC_ITEMS], inout uint values[VKC_ITEMS], uint begin_bit,
//                             uint end_bit, bool descending);
//       sort the tile by key bits [begin_bit, end_bit), stably (equal keys keep their tile order, and
//       so do values), blocked in and out: one rank and one exchange per digit. A partial tile pads
//       its missing keys with 0xffffffff (0 when descending) to stay at the end.
//   uint vkc_radix_key_int(int x), int vkc_radix_int_of_key(uint k)
//   uint vkc_radix_key_float(uint bits), uint vkc_radix_float_of_key(uint k)
//       order-preserving bits (vkc/radix_keys.glsl, which this header includes): -0 sorts just before
//       +0, NaNs with the sign bit set first and the others last (as CUB places them).
//
// Example, 2 invocations x 2 items, 2-bit digits of keys [3 1 | 2 1]: digits [3 1 | 2 1] rank to
// [3 0 | 2 1] (the two 1s keep their order), digit starts 0 0 2 3 and 4; sorting gives [1 1 | 2 3].
//
// Every invocation of the work-group calls them in uniform control flow (they contain barriers);
// each begins with a barrier, so a previous call's results may be read until the next call.

#ifndef VKC_RADIX_RANK_GLSL
#define VKC_RADIX_RANK_GLSL

#include "common.glsl"
#include "radix_keys.glsl"

#if !defined(VKC_ITEMS) || !defined(VKC_RADIX_BITS)
#error "define VKC_ITEMS and VKC_RADIX_BITS before including vkc/radix_rank.glsl"
#endif
#if VKC_RADIX_BITS < 1 || VKC_RADIX_BITS > 8
#error "VKC_RADIX_BITS is 1 to 8"
#endif
#ifndef VKC_RADIX_CAPACITY
#define VKC_RADIX_CAPACITY VKC_WORKGROUP_SIZE
#endif

#ifndef VKC_RADIX_HAVE_UINT_ADD_SCAN
#define VKC_TYPE uint
#define VKC_OP add
#include "workgroup_scan.glsl"
#endif

#define VKC_RADIX_DIGITS (1u << VKC_RADIX_BITS)
// Digit d counts in lane d % LANES, half d / LANES, of a packed word: the low halves hold the lower
// digits, so a scan over the words in (lane, invocation) order counts every digit in order once the
// low halves' total is added to the high halves.
#define VKC_RADIX_LANES ((VKC_RADIX_DIGITS + 1u) / 2u)

shared uint vkc_radix_counters[VKC_RADIX_LANES * VKC_RADIX_CAPACITY];
// The stage holds a tile, a padding word after every 32 (VKC_RADIX_SLOT) so that blocked accesses
// (invocation t at t * ITEMS + i) fall in different banks.
#define VKC_RADIX_SLOT(x) ((x) + ((x) >> 5u))
shared uint vkc_radix_stage[VKC_RADIX_CAPACITY * VKC_ITEMS + (VKC_RADIX_CAPACITY * VKC_ITEMS) / 32u];
shared uint vkc_radix_low_total;
shared uint vkc_radix_active;

uint vkc_radix_counter_shift(uint digit) { return 16u * (digit / VKC_RADIX_LANES); }

void vkc_radix_rank(uint digits[VKC_ITEMS], uint item_count, out uint ranks[VKC_ITEMS]) {
    const uint size = VKC_WORKGROUP_SIZE;
    const uint t = gl_LocalInvocationIndex;
    barrier();
    for (uint lane = 0u; lane < VKC_RADIX_LANES; ++lane) vkc_radix_counters[lane * size + t] = 0u;
    // Each invocation counts its own items in its own column: no atomics, and its items in order.
    uint local[VKC_ITEMS];
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
        local[i] = 0u;
        if (t * VKC_ITEMS + i >= item_count) continue;
        uint d = digits[i] & (VKC_RADIX_DIGITS - 1u);
        uint at = (d % VKC_RADIX_LANES) * size + t;
        uint shift = vkc_radix_counter_shift(d);
        local[i] = (vkc_radix_counters[at] >> shift) & 0xffffu;
        vkc_radix_counters[at] += 1u << shift;
    }
    barrier();
    // The exclusive scan of the words in (lane, invocation) order: invocation t rakes LANES
    // consecutive words, the work-group scans the segments' sums.
    uint first = t * VKC_RADIX_LANES, sum = 0u;
    for (uint k = 0u; k < VKC_RADIX_LANES; ++k) sum += vkc_radix_counters[first + k];
    uint before = vkc_workgroup_scan_exclusive_add(sum);
    if (t == size - 1u) {
        // Every item is in one half; the low halves' total never carries into the high ones.
        uint total = before + sum;
        vkc_radix_low_total = total & 0xffffu;
        vkc_radix_active = (total & 0xffffu) + (total >> 16);
    }
    for (uint k = 0u; k < VKC_RADIX_LANES; ++k) {
        uint count = vkc_radix_counters[first + k];
        vkc_radix_counters[first + k] = before;
        before += count;
    }
    barrier();
    uint low_total = vkc_radix_low_total;
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) {
        if (t * VKC_ITEMS + i >= item_count) {
            ranks[i] = 0xffffffffu;
            continue;
        }
        uint d = digits[i] & (VKC_RADIX_DIGITS - 1u);
        uint shift = vkc_radix_counter_shift(d);
        uint start = (vkc_radix_counters[(d % VKC_RADIX_LANES) * size + t] >> shift) & 0xffffu;
        ranks[i] = local[i] + start + (shift != 0u ? low_total : 0u);
    }
}

uint vkc_radix_digit_start(uint digit) {
    if (digit >= VKC_RADIX_DIGITS) return vkc_radix_active;
    uint shift = vkc_radix_counter_shift(digit);
    uint start = (vkc_radix_counters[(digit % VKC_RADIX_LANES) * VKC_WORKGROUP_SIZE] >> shift) & 0xffffu;
    return start + (shift != 0u ? vkc_radix_low_total : 0u);
}

// Items to their ranks and back to blocked registers, through the stage.
void vkc_radix_exchange(inout uint items[VKC_ITEMS], uint ranks[VKC_ITEMS]) {
    barrier();
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) vkc_radix_stage[VKC_RADIX_SLOT(ranks[i])] = items[i];
    barrier();
    const uint first = gl_LocalInvocationIndex * VKC_ITEMS;
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) items[i] = vkc_radix_stage[VKC_RADIX_SLOT(first + i)];
}

void vkc_radix_sort_pass(inout uint keys[VKC_ITEMS], inout uint values[VKC_ITEMS], bool with_values, uint bit,
                         uint bits, bool descending) {
    uint digits[VKC_ITEMS], ranks[VKC_ITEMS];
    const uint mask = (1u << bits) - 1u;
    [[unroll]] for (uint i = 0u; i < VKC_ITEMS; ++i) digits[i] = ((descending ? ~keys[i] : keys[i]) >> bit) & mask;
    vkc_radix_rank(digits, VKC_WORKGROUP_SIZE * VKC_ITEMS, ranks);
    vkc_radix_exchange(keys, ranks);
    if (with_values) vkc_radix_exchange(values, ranks);
}

void vkc_radix_sort(inout uint keys[VKC_ITEMS], inout uint values[VKC_ITEMS], bool with_values, uint begin_bit,
                    uint end_bit, bool descending) {
    end_bit = min(end_bit, 32u);
    for (uint bit = begin_bit; bit < end_bit; bit += VKC_RADIX_BITS) {
        vkc_radix_sort_pass(keys, values, with_values, bit, min(uint(VKC_RADIX_BITS), end_bit - bit), descending);
    }
}

void vkc_radix_sort_keys(inout uint keys[VKC_ITEMS], uint begin_bit, uint end_bit, bool descending) {
    uint unused[VKC_ITEMS];
    vkc_radix_sort(keys, unused, false, begin_bit, end_bit, descending);
}

void vkc_radix_sort_pairs(inout uint keys[VKC_ITEMS], inout uint values[VKC_ITEMS], uint begin_bit, uint end_bit,
                          bool descending) {
    vkc_radix_sort(keys, values, true, begin_bit, end_bit, descending);
}


#endif // VKC_RADIX_RANK_GLSL
