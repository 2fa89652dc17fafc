#version 450
#extension GL_GOOGLE_include_directive : require
// vkcollectives: device-wide histograms (vkc::HistogramPlan, Context::histogram) in one dispatch.
// Work-groups stride over tiles of 32-bit sample words; each counts its tiles' samples in shared
// memory (vkc/block_histogram.glsl) and adds its counts to the output once at the end. Where the
// bins of all active channels pass the shared capacity, samples count with device atomics directly.
//
// Bindings: 0 the samples (interleaved channels, read as words), 1 the histogram (each active
// channel's bins, one after another), 2 the scratch (the bins' parameters, vkc/contract.h's
// VKC_HISTOGRAM_*), 3 an IndirectCount's buffer, 4 the levels (32-bit keys' sources, Binning::range).
#include "vkc/contract.h"
#include "vkc/common.glsl"

layout(local_size_x_id = VKC_SPEC_WORKGROUP_SIZE_X, local_size_y_id = VKC_SPEC_WORKGROUP_SIZE_Y,
       local_size_z_id = VKC_SPEC_WORKGROUP_SIZE_Z) in;
// Every choice a plan makes is compiled in (vkc/contract.h's VKC_HISTOGRAM_* shifts).
layout(constant_id = VKC_SPEC_KERNEL) const uint histogram_shape = 1u | (1u << VKC_HISTOGRAM_CHANNELS_SHIFT) |
                                                                    (1u << VKC_HISTOGRAM_ACTIVE_SHIFT);
const uint sample_bytes = histogram_shape & 7u;
const uint sample_kind = (histogram_shape >> VKC_HISTOGRAM_KIND_SHIFT) & 3u;
const uint binning = (histogram_shape >> VKC_HISTOGRAM_BINNING_SHIFT) & 1u;
const uint channels = (histogram_shape >> VKC_HISTOGRAM_CHANNELS_SHIFT) & 7u;
const uint active_channels = (histogram_shape >> VKC_HISTOGRAM_ACTIVE_SHIFT) & 7u;
const bool device_atomics = (histogram_shape & VKC_HISTOGRAM_DEVICE_ATOMICS_BIT) != 0u;
const bool narrow = (histogram_shape & VKC_HISTOGRAM_NARROW_BIT) != 0u;
const bool shifted = (histogram_shape & VKC_HISTOGRAM_SHIFT_BIT) != 0u;
const bool staged_levels = (histogram_shape & VKC_HISTOGRAM_STAGED_LEVELS_BIT) != 0u;
const bool byte_table = (histogram_shape & VKC_HISTOGRAM_BYTE_TABLE_BIT) != 0u;
const bool whole_bytes = (histogram_shape & VKC_HISTOGRAM_WHOLE_BYTES_BIT) != 0u;
const uint KIND_UINT = 0u, KIND_INT = 1u, KIND_FLOAT = 2u, KIND_HALF = 3u;

layout(set = 0, binding = 0, std430) readonly buffer Samples { uint sample_words[]; };
layout(set = 0, binding = 1, std430) buffer Histogram { uint histogram_out[]; };
layout(set = 0, binding = 2, std430) readonly buffer Scratch { uint bin_words[]; };
layout(set = 0, binding = 3, std430) readonly buffer IndirectCount { uint indirect_count_words[]; };
layout(set = 0, binding = 4, std430) readonly buffer Levels { uint level_words[]; };

layout(push_constant, std430) uniform Params {
    uint pixels;     // with FLAG_COUNT_ON_DEVICE: at most this many
    uint flags;
    uint total_bins;   // over all active channels
    uint total_levels; // Binning::range: over all active channels
    uint unused[4];
} params;

const uint SIZE = VKC_HISTOGRAM_WORKGROUP_SIZE;
const uint TILE_WORDS = VKC_HISTOGRAM_WORKGROUP_SIZE * VKC_HISTOGRAM_WORDS;
const uint PER_WORD = 4u / sample_bytes;

// With byte_table, every 8-bit value's bin (256 a channel), made once a work-group, so that a sample
// costs a shared load instead of the binning's arithmetic; with staged_levels, the levels' keys.
shared uint lookup[VKC_HISTOGRAM_LOOKUP_WORDS];

// The levels' keys: binding 4 from the levels' first word (or their stage), at the channel's first level.
uint level_key(uint index);
uint range_first_level;
#define VKC_HISTOGRAM_LEVEL_KEY(i) level_key(range_first_level + (i))
#define VKC_HISTOGRAM_CAPACITY 4096
#include "vkc/block_histogram.glsl"
uint stored_level_key(uint index) {
    uint w = level_words[((params.flags >> VKC_HISTOGRAM_LEVEL_WORD_SHIFT) & 63u) + index];
    if (sample_kind == KIND_INT) return vkc_histogram_key_int(int(w));
    if (sample_kind >= KIND_FLOAT) return vkc_histogram_key_float(uintBitsToFloat(w));
    return w;
}
uint level_key(uint index) { return staged_levels ? lookup[index] : stored_level_key(index); }

uint samples_in() {
    uint pixels = params.pixels;
    if ((params.flags & VKC_HISTOGRAM_FLAG_COUNT_ON_DEVICE) != 0u) {
        pixels = min(indirect_count_words[params.flags >> VKC_DEVICE_COUNT_WORD_SHIFT], pixels);
    }
    return pixels * channels; // at most 2^32 - 1 (the plan's check)
}

// Channel c's parameters, read once into registers.
struct Channel {
    uint bins, lower, upper, first_bin, first_level, span, shift;
    float scale;
};
Channel channel_at(uint c) {
    const uint at = c * VKC_HISTOGRAM_CHANNEL_WORDS;
    return Channel(bin_words[at], bin_words[at + 1u], bin_words[at + 2u], bin_words[at + 4u], bin_words[at + 5u],
                   bin_words[at + 6u], bin_words[at + 7u], uintBitsToFloat(bin_words[at + 3u]));
}

// Sample j of a word, as its kind's key (floats also as a float, for even bins).
uint sample_key(uint word, uint j, out float value) {
    value = 0.0;
    if (sample_kind == KIND_HALF) {
        value = unpackHalf2x16(word)[j];
        return vkc_histogram_key_float(value);
    }
    if (sample_kind == KIND_FLOAT) {
        value = uintBitsToFloat(word);
        return vkc_histogram_key_float(value);
    }
    // (a 32-bit extract of a whole word ran at half speed on NVIDIA's driver)
    if (sample_bytes == 4u) return sample_kind == KIND_INT ? vkc_histogram_key_int(int(word)) : word;
    const int bits = int(sample_bytes) * 8;
    if (sample_kind == KIND_INT) return vkc_histogram_key_int(bitfieldExtract(int(word), int(j) * bits, bits));
    return bitfieldExtract(word, int(j) * bits, bits);
}

uint bin_of(Channel ch, uint key, float value) {
    if (binning == 1u) {
        range_first_level = ch.first_level;
        return vkc_histogram_range(key, ch.bins);
    }
    if (sample_kind >= KIND_FLOAT) {
        return vkc_histogram_even_float(value, uintBitsToFloat(ch.lower), uintBitsToFloat(ch.upper), ch.scale, ch.bins);
    }
    if (shifted) { // bins a power of two values wide: the division is a shift
        uint d = key - ch.lower;
        return key < ch.lower || d > ch.span ? VKC_HISTOGRAM_NO_BIN : d >> ch.shift;
    }
    if (narrow) {
        uint d = key - ch.lower;
        return key < ch.lower || d > ch.span ? VKC_HISTOGRAM_NO_BIN : d * ch.bins / (ch.span + 1u);
    }
    return vkc_histogram_even_integer(key, ch.lower, ch.span, ch.bins, ch.scale);
}

// A sample's bin among all active channels' (their first bins added), or VKC_HISTOGRAM_NO_BIN.
uint channel_bin(Channel ch, uint key, float value) {
    uint bin = bin_of(ch, key, value);
    return bin == VKC_HISTOGRAM_NO_BIN ? bin : ch.first_bin + bin;
}

void count_in(uint bin) { // bin < total_bins
    if (device_atomics) {
        atomicAdd(histogram_out[((params.flags >> VKC_HISTOGRAM_OUT_WORD_SHIFT) & 63u) + bin], 1u);
    } else {
        vkc_block_histogram_count(bin);
    }
}

void count_at(uint bin) {
    if (bin == VKC_HISTOGRAM_NO_BIN) return;
    if (device_atomics) {
        atomicAdd(histogram_out[((params.flags >> VKC_HISTOGRAM_OUT_WORD_SHIFT) & 63u) + bin], 1u);
    } else {
        vkc_block_histogram_count(bin);
    }
}

Channel channel_of[4];

// The samples of word `at`; `whole`: all of them are below the count.
void count_word(uint word, uint at, bool whole, uint total) {
    [[unroll]] for (uint j = 0u; j < PER_WORD; ++j) {
        uint s = at * PER_WORD + j; // the sample's index
        if (!whole && s >= total) continue;
        uint c = s % channels;
        if (c >= active_channels) continue;
        if (whole_bytes) { // every value has a bin: no range checks (+50 % for u8 on the H200)
            uint d = ((word >> (8u * j)) & 255u) ^ (sample_kind == KIND_INT ? 0x80u : 0u); // the value's key - lower's
            count_in(channel_of[c].first_bin + (d >> channel_of[c].shift));
        } else if (byte_table) {
            count_at(lookup[c * 256u + bitfieldExtract(word, int(j) * 8, 8)]);
        } else {
            float value;
            uint key = sample_key(word, j, value);
            count_at(channel_bin(channel_of[c], key, value));
        }
    }
}

void main() {
    const uint t = gl_LocalInvocationIndex;
    const uint total = samples_in();
    const uint words = total / PER_WORD + (total % PER_WORD != 0u ? 1u : 0u); // holding samples
    for (uint c = 0u; c < active_channels; ++c) channel_of[c] = channel_at(c);
    if (byte_table) { // (the levels are not staged: the table holds their bins)
        for (uint c = 0u; c < active_channels; ++c) {
            for (uint v = t; v < 256u; v += SIZE) {
                uint key = sample_kind == KIND_INT ? vkc_histogram_key_int(bitfieldExtract(int(v), 0, 8)) : v;
                lookup[c * 256u + v] = channel_bin(channel_of[c], key, 0.0);
            }
        }
    }
    if (staged_levels) {
        for (uint i = t; i < params.total_levels; i += SIZE) lookup[i] = stored_level_key(i);
    }
    if (!device_atomics) vkc_block_histogram_clear(params.total_bins); // its barrier orders the lookup too
    else barrier();
    const uint tiles = (words + TILE_WORDS - 1u) / TILE_WORDS;
    const uint whole_tiles = total / (TILE_WORDS * PER_WORD); // every sample below the count
    for (uint tile = gl_WorkGroupID.x; tile < tiles; tile += gl_NumWorkGroups.x) {
        uint w[VKC_HISTOGRAM_WORDS];
        if (tile < whole_tiles) {
            [[unroll]] for (uint i = 0u; i < VKC_HISTOGRAM_WORDS; ++i) w[i] = sample_words[tile * TILE_WORDS + i * SIZE + t];
            [[unroll]] for (uint i = 0u; i < VKC_HISTOGRAM_WORDS; ++i) count_word(w[i], tile * TILE_WORDS + i * SIZE + t, true, total);
        } else {
            [[unroll]] for (uint i = 0u; i < VKC_HISTOGRAM_WORDS; ++i) {
                uint at = tile * TILE_WORDS + i * SIZE + t;
                w[i] = at < words ? sample_words[at] : 0u;
            }
            [[unroll]] for (uint i = 0u; i < VKC_HISTOGRAM_WORDS; ++i) {
                uint at = tile * TILE_WORDS + i * SIZE + t;
                if (at < words) count_word(w[i], at, false, total);
            }
        }
    }
    if (!device_atomics) {
        VKC_BLOCK_HISTOGRAM_FLUSH(histogram_out, (params.flags >> VKC_HISTOGRAM_OUT_WORD_SHIFT) & 63u, params.total_bins)
    }
}
