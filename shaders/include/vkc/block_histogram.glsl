// vkcollectives: a work-group's histogram in shared memory (CUB's BlockHistogram by atomics, the
// block-level step of DeviceHistogram), and the bin of a sample for even bins and for bins between
// boundaries, with the semantics of vkc::HistogramOptions (include/vkc/histogram.hpp).
//
// Counting: every invocation adds its samples' bins with shared atomics; at the end the work-group
// adds each nonzero count to a device histogram with one atomic, so work-groups may count any share
// of the input in any order. Needs no subgroup operation: correct at every subgroup width.
//
// Define before including (once per shader):
//   VKC_HISTOGRAM_CAPACITY  bins the shared counts hold (default 256; a literal)
//
//   void vkc_block_histogram_clear(uint bins);
//       Whole work-group, uniform control flow: counts [0, bins) = 0, then a barrier.
//   void vkc_block_histogram_count(uint bin);
//       One more sample in bin (< bins). Any invocation, any control flow.
//   VKC_BLOCK_HISTOGRAM_FLUSH(histogram, first, bins)
//       Whole work-group, uniform control flow: a barrier, then histogram[first + b] += counts[b]
//       (atomicAdd) for each nonzero count; `histogram` is the engine's uint buffer array.
//
// Bins (each returns VKC_HISTOGRAM_NO_BIN for a sample in no bin):
//   uint vkc_histogram_key_uint(uint x), vkc_histogram_key_int(int x), vkc_histogram_key_float(float x)
//       The sample as an unsigned key of the same order: ints with the sign bit flipped; floats with
//       -0 as +0 and negatives flipped whole, NaNs past both infinities (outside any bins).
//   uint vkc_histogram_even_integer(uint key, uint lower_key, uint span, uint bins, float estimate)
//       Keys in [lower_key, lower_key + span]: bin floor((key - lower_key) x bins / (span + 1)),
//       exactly (a float estimate, span + 1 = upper - lower, corrected in 64-bit products); estimate
//       is float(bins) / (float(span) + 1).
//   uint vkc_histogram_even_float(float x, float lower, float upper, float scale, uint bins)
//       lower <= x < upper: min(floor((x - lower) x scale), bins - 1), in float arithmetic.
//   uint vkc_histogram_range(uint key, uint bins)
//       Define VKC_HISTOGRAM_LEVEL_KEY(i) first (the key of boundary i, ascending, i <= bins): the
//       bin i with level i <= key < level i + 1, by binary search.
//
// Example, even bins: 4 bins over [0, 8) of uint samples 0 3 4 7 8 → bins 0 1 2 3 and none;
// vkc_histogram_even_integer(5u, 0u, 7u, 4u, 0.5) is 2.

#ifndef VKC_HISTOGRAM_CAPACITY
#define VKC_HISTOGRAM_CAPACITY 256
#endif
const uint VKC_HISTOGRAM_NO_BIN = 0xffffffffu;

shared uint vkc_histogram_counts[VKC_HISTOGRAM_CAPACITY];

void vkc_block_histogram_clear(uint bins) {
    for (uint b = gl_LocalInvocationIndex; b < bins; b += gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z) {
        vkc_histogram_counts[b] = 0u;
    }
    barrier();
}

void vkc_block_histogram_count(uint bin) { atomicAdd(vkc_histogram_counts[bin], 1u); }

#define VKC_BLOCK_HISTOGRAM_FLUSH(histogram, first, bins)                                                    \
    {                                                                                                        \
        barrier();                                                                                           \
        const uint vkc_flush_size_ = gl_WorkGroupSize.x * gl_WorkGroupSize.y * gl_WorkGroupSize.z;           \
        for (uint b_ = gl_LocalInvocationIndex; b_ < (bins); b_ += vkc_flush_size_) {                      \
            uint n_ = vkc_histogram_counts[b_];                                                              \
            if (n_ != 0u) atomicAdd(histogram[(first) + b_], n_);                                            \
        }                                                                                                    \
    }

uint vkc_histogram_key_uint(uint x) { return x; }
uint vkc_histogram_key_int(int x) { return uint(x) ^ 0x80000000u; }
uint vkc_histogram_key_float(float x) {
    uint b = floatBitsToUint(x);
    if ((b & 0x7fffffffu) == 0u) b = 0u; // -0 counts as +0
    return (b & 0x80000000u) != 0u ? ~b : b | 0x80000000u;
}

// a x b as (low, high) words
uvec2 vkc_histogram_product(uint a, uint b) {
    uint high, low;
    umulExtended(a, b, high, low);
    return uvec2(low, high);
}
bool vkc_histogram_not_above(uvec2 a, uvec2 b) { return a.y < b.y || (a.y == b.y && a.x <= b.x); }
// q x (span + 1), which may need 33 bits of span + 1
uvec2 vkc_histogram_times_width(uint q, uint span) {
    uvec2 p = vkc_histogram_product(q, span);
    uint carry;
    p.x = uaddCarry(p.x, q, carry);
    p.y += carry;
    return p;
}

uint vkc_histogram_even_integer(uint key, uint lower_key, uint span, uint bins, float estimate) {
    uint d = key - lower_key;
    if (key < lower_key || d > span) return VKC_HISTOGRAM_NO_BIN;
    // The estimate is within one bin for bins <= 2^20 (float's 24 bits); two steps each way spare.
    uint q = min(uint(float(d) * estimate), bins - 1u);
    const uvec2 target = vkc_histogram_product(d, bins);
    for (int k = 0; k < 2; ++k) {
        if (!vkc_histogram_not_above(vkc_histogram_times_width(q, span), target)) --q;
    }
    for (int k = 0; k < 2; ++k) {
        if (q + 1u < bins && vkc_histogram_not_above(vkc_histogram_times_width(q + 1u, span), target)) ++q;
    }
    return q;
}

uint vkc_histogram_even_float(float x, float lower, float upper, float scale, uint bins) {
    uint key = vkc_histogram_key_float(x);
    if (key < vkc_histogram_key_float(lower) || key >= vkc_histogram_key_float(upper)) return VKC_HISTOGRAM_NO_BIN;
    return min(uint((x - lower) * scale), bins - 1u);
}

#ifdef VKC_HISTOGRAM_LEVEL_KEY
uint vkc_histogram_range(uint key, uint bins) {
    if (key < VKC_HISTOGRAM_LEVEL_KEY(0u) || key >= VKC_HISTOGRAM_LEVEL_KEY(bins)) return VKC_HISTOGRAM_NO_BIN;
    uint low = 0u, high = bins; // level low <= key < level high
    while (high - low > 1u) {
        uint middle = (low + high) / 2u;
        if (key < VKC_HISTOGRAM_LEVEL_KEY(middle)) high = middle;
        else low = middle;
    }
    return low;
}
#endif
