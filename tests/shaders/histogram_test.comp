#version 450
#extension GL_GOOGLE_include_directive : require
// vkc/block_histogram.glsl in a kernel of its own (tests/test_glsl_pieces.cpp): work-groups stride
// over uint samples, count them in shared memory with the piece's bin functions and add their counts
// to the output. Modes: 0 even integer bins, 1 even float bins (the samples' bits as floats), 2 bins
// between levels (binding 2, as uint keys).
layout(local_size_x_id = 0) in;

layout(set = 0, binding = 0, std430) readonly buffer Samples { uint samples[]; };
layout(set = 0, binding = 1, std430) buffer Counts { uint counts[]; };
layout(set = 0, binding = 2, std430) readonly buffer Levels { uint levels[]; };
layout(push_constant, std430) uniform Params {
    uint mode;
    uint count;
    uint bins;
    uint lower;    // integers: the lower key; floats: lower's bits
    uint span;     // integers: upper - lower - 1; floats: upper's bits
    uint estimate; // integers: bins / (span + 1) as a float's bits; floats: the scale's bits
} params;

#define VKC_HISTOGRAM_CAPACITY 512
#define VKC_HISTOGRAM_LEVEL_KEY(i) levels[i]
#include "vkc/block_histogram.glsl"

void main() {
    vkc_block_histogram_clear(params.bins);
    const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
    for (uint i = gl_GlobalInvocationID.x; i < params.count; i += stride) {
        uint x = samples[i], bin;
        if (params.mode == 0u) {
            bin = vkc_histogram_even_integer(vkc_histogram_key_uint(x), params.lower, params.span, params.bins,
                                             uintBitsToFloat(params.estimate));
        } else if (params.mode == 1u) {
            bin = vkc_histogram_even_float(uintBitsToFloat(x), uintBitsToFloat(params.lower),
                                           uintBitsToFloat(params.span), uintBitsToFloat(params.estimate), params.bins);
        } else {
            bin = vkc_histogram_range(vkc_histogram_key_uint(x), params.bins);
        }
        if (bin != VKC_HISTOGRAM_NO_BIN) vkc_block_histogram_count(bin);
    }
    VKC_BLOCK_HISTOGRAM_FLUSH(counts, 0u, params.bins)
}
