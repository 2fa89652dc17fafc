// Device-wide histogram plans (include/vkc/histogram.hpp): the bins' parameters, a fill of the counts
// and one dispatch of shaders/kernels/histogram.comp, made once and recorded into any command buffer
// of the device.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "device/device_state.hpp"
#include "histogram/internal.hpp"
#include "pipeline/plan_bindings.hpp"
#include "vkc/contract.h"

namespace vkc {

namespace {
constexpr uint32_t histogram_bindings = 5; // samples, histogram, scratch, count, levels
// Work-groups a histogram runs at most: enough to fill a large GPU, few enough that adding their
// shared counts to the output stays small beside reading the samples.
constexpr uint64_t max_groups = 1024;
constexpr uint32_t kind_uint = 0, kind_int = 1, kind_float = 2, kind_half = 3;

uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

uint32_t kind_of(Type sample) {
    switch (sample) {
    case Type::i8:
    case Type::i16:
    case Type::i32: return kind_int;
    case Type::f32: return kind_float;
    case Type::f16: return kind_half;
    default: return kind_uint;
    }
}
bool is_float_kind(Type sample) { return kind_of(sample) >= kind_float; }
// The integer samples' range [low, high] (as doubles: every 32-bit integer is one).
void integer_range(Type sample, double& low, double& high) {
    const int bits = int(size_of(sample)) * 8;
    if (kind_of(sample) == kind_int) {
        low = -std::ldexp(1.0, bits - 1);
        high = std::ldexp(1.0, bits - 1) - 1;
    } else {
        low = 0;
        high = std::ldexp(1.0, bits) - 1;
    }
}
// An integer's key (kind int: the sign bit flipped), mod 2^32.
uint32_t integer_key(Type sample, double v) {
    const int64_t i = int64_t(v);
    return uint32_t(uint64_t(i)) ^ (kind_of(sample) == kind_int ? 0x80000000u : 0u);
}
// A bound or level as a message shows it: integers whole, other numbers to float's precision.
std::string number(double v) {
    if (v == std::floor(v) && std::fabs(v) < 9e15) return std::to_string(int64_t(v));
    char text[40];
    std::snprintf(text, sizeof text, "%.9g", v);
    return text;
}
} // namespace

HistogramPlan::HistogramPlan() = default;
HistogramPlan::HistogramPlan(HistogramPlan&&) noexcept = default;
HistogramPlan& HistogramPlan::operator=(HistogramPlan&&) noexcept = default;
HistogramPlan::~HistogramPlan() = default;
uint64_t HistogramPlan::count() const { return state_ ? state_->count : 0; }
uint32_t HistogramPlan::dispatches() const { return state_ && state_->pipeline ? 1 : 0; }
uint32_t HistogramPlan::bins() const { return state_ ? state_->bins : 0; }

void HistogramPlan::record(VkCommandBuffer cmd) const {
    if (!state_) return;
    const State& s = *state_;
    if (!s.core->context_alive) throw Error("HistogramPlan::record: the plan's Context was destroyed");
    const DeviceTable& vk = s.core->vk;
    const uint64_t failed_before = s.core->failed_allocations;
    if (s.histogram.size) vk.vkCmdFillBuffer(cmd, s.histogram.buffer, s.histogram.offset, s.histogram.size, 0);
    if (s.pipeline) {
        vk.vkCmdUpdateBuffer(cmd, s.scratch.buffer, s.scratch.offset, s.scratch.size, s.bin_words);
        VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
        barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
        vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                                &barrier, 0, nullptr, 0, nullptr);
        vk.vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s.pipeline);
        vk.vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s.layout, 0, 1, &s.set, 0, nullptr);
        vk.vkCmdPushConstants(cmd, s.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(HistogramParams), &s.params);
        vk.vkCmdDispatch(cmd, s.groups, 1, 1);
    }
    s.core->check_allocations(failed_before, "HistogramPlan::record");
}

bool is_histogram_sample(Type sample) {
    switch (sample) {
    case Type::u8:
    case Type::i8:
    case Type::u16:
    case Type::i16:
    case Type::u32:
    case Type::i32:
    case Type::f16:
    case Type::f32: return true;
    default: return false;
    }
}

uint32_t histogram_total_bins(const HistogramOptions& o) {
    uint32_t total = 0;
    for (uint32_t c = 0; c < std::min(o.active_channels, 4u); ++c) total += o.channel[c].bins;
    return total;
}

uint32_t histogram_total_levels(const HistogramOptions& o) {
    return o.binning == Binning::range ? histogram_total_bins(o) + std::min(o.active_channels, 4u) : 0;
}

void check_histogram_arguments(Type sample, uint64_t pixels, const HistogramOptions& o, const char* what) {
    const std::string w(what);
    if (!is_histogram_sample(sample)) {
        throw Error(w + ": samples of type " + std::string(name(sample)) +
                    " are not supported (uchar, char, ushort, short, uint, int, half and float samples are)");
    }
    if (uint32_t(o.binning) > uint32_t(Binning::range)) {
        throw Error(w + ": HistogramOptions::binning " + std::to_string(uint32_t(o.binning)) + " is not a Binning");
    }
    if (o.channels < 1 || o.channels > 4) {
        throw Error(w + ": channels " + std::to_string(o.channels) + " is outside 1 to 4");
    }
    if (o.active_channels < 1 || o.active_channels > o.channels) {
        throw Error(w + ": active_channels " + std::to_string(o.active_channels) + " is outside 1 to channels (" +
                    std::to_string(o.channels) + ")");
    }
    for (uint32_t c = 0; c < o.active_channels; ++c) {
        const HistogramChannel& ch = o.channel[c];
        const std::string which = w + ": channel " + std::to_string(c) + "'s ";
        if (ch.bins < 1 || ch.bins > histogram_max_bins) {
            throw Error(which + "bins " + std::to_string(ch.bins) + " is outside 1 to " +
                        std::to_string(histogram_max_bins));
        }
        if (o.binning != Binning::even) continue;
        if (!std::isfinite(ch.lower) || !std::isfinite(ch.upper)) {
            throw Error(which + "lower and upper must be finite numbers (they are " + number(ch.lower) + " and " +
                        number(ch.upper) + ")");
        }
        if (is_float_kind(sample)) {
            const float lower = float(ch.lower), upper = float(ch.upper);
            if (!std::isfinite(lower) || !std::isfinite(upper) || !(lower < upper)) {
                throw Error(which + "bounds [" + number(ch.lower) + ", " + number(ch.upper) +
                            ") are not a finite float range with lower below upper");
            }
            if (!std::isfinite(float(double(ch.bins) / (double(upper) - double(lower))))) {
                throw Error(which + "bins are narrower than floats tell apart over [" + number(ch.lower) + ", " +
                            number(ch.upper) + ")");
            }
        } else {
            double low, high;
            integer_range(sample, low, high);
            if (ch.lower != std::floor(ch.lower) || ch.upper != std::floor(ch.upper) || ch.lower < low ||
                ch.upper > high + 1 || !(ch.lower < ch.upper)) {
                throw Error(which + "bounds [" + number(ch.lower) + ", " + number(ch.upper) + ") are not integers with " +
                            number(low) + " <= lower < upper <= " + number(high + 1) + " (" +
                            std::string(name(sample)) + " samples)");
            }
        }
    }
    if (pixels > histogram_max_samples / o.channels) {
        throw Error(w + ": " + std::to_string(pixels) + " pixels of " + std::to_string(o.channels) +
                    " channels are past " + std::to_string(histogram_max_samples) +
                    " samples, the most one histogram takes");
    }
}

uint32_t histogram_level_word(Type sample, double level, const char* what) {
    if (is_float_kind(sample)) {
        if (std::isnan(level)) throw Error(std::string(what) + ": a level is NaN");
        return std::bit_cast<uint32_t>(float(level));
    }
    const double low = kind_of(sample) == kind_int ? -2147483648.0 : 0.0;
    const double high = kind_of(sample) == kind_int ? 2147483647.0 : 4294967295.0;
    if (level != std::floor(level) || level < low || level > high) {
        throw Error(std::string(what) + ": the level " + number(level) + " is not a 32-bit " +
                    (kind_of(sample) == kind_int ? "signed" : "unsigned") + " integer");
    }
    return uint32_t(uint64_t(int64_t(level)));
}

uint64_t DeviceState::histogram_scratch_bytes(Type sample, uint64_t pixels, const HistogramOptions& o) const {
    check_histogram_arguments(sample, pixels, o, "histogram_scratch_bytes");
    return histogram_scratch_bytes_needed;
}

HistogramPlan DeviceState::make_histogram_plan(Type sample, uint64_t pixels, const HistogramRanges& r,
                                               const HistogramOptions& o, const IndirectCount* indirect) {
    const char* what = "histogram";
    check_histogram_arguments(sample, pixels, o, what);
    const DeviceInfo& dev = info;
    const ModuleInfo& m = select_module(Collective::histogram, Type::u32, Op::add, Path::shared_memory);
    check_shape({VKC_HISTOGRAM_WORKGROUP_SIZE});
    if (shared_memory_bytes(m) > dev.max_shared_memory) {
        throw UnsupportedError(std::string(what) + ": the histogram needs " + std::to_string(shared_memory_bytes(m)) +
                               " bytes of shared memory; the device has " + std::to_string(dev.max_shared_memory));
    }
    const uint32_t total_bins = histogram_total_bins(o);
    const uint32_t total_levels = histogram_total_levels(o);
    const uint64_t samples = pixels * o.channels;
    const uint64_t sample_bytes = ceil_div(samples * size_of(sample), 4) * 4;
    const uint64_t align = dev.min_storage_buffer_offset_alignment;
    // The counts are written (zeroed) even for no pixels.
    std::vector<RangeRole> roles = {{&r.histogram, uint64_t(total_bins) * 4, 4, "histogram"}};
    if (pixels > 0) {
        roles.push_back({&r.samples, sample_bytes, align, "samples", false});
        if (total_levels) roles.push_back({&r.levels, uint64_t(total_levels) * 4, 4, "levels", false});
        roles.push_back({&r.scratch, histogram_scratch_bytes_needed, std::max<uint64_t>(4, align), "scratch"});
    }
    check_roles(roles, dev.max_storage_buffer_range, what);
    if (indirect) check_indirect_count(*indirect, roles, what);

    HistogramPlan plan;
    plan.state_ = std::make_unique<HistogramPlan::State>();
    HistogramPlan::State& st = *plan.state_;
    st.core = core;
    st.layout = pipelines.pipeline_layout;
    st.count = pixels;
    st.bins = total_bins;
    if (!o.accumulate) st.histogram = {r.histogram.buffer, r.histogram.offset, uint64_t(total_bins) * 4};
    if (pixels == 0) return plan; // record() only zeroes the counts

    // The bins' parameters (vkc/contract.h's VKC_HISTOGRAM_CHANNEL_WORDS words a channel).
    bool narrow = true, shifted = true, whole = true;
    uint32_t first_bin = 0, first_level = 0;
    for (uint32_t c = 0; c < o.active_channels; ++c) {
        const HistogramChannel& ch = o.channel[c];
        uint32_t* words = st.bin_words + c * VKC_HISTOGRAM_CHANNEL_WORDS;
        words[0] = ch.bins;
        words[4] = first_bin;
        words[5] = first_level;
        first_bin += ch.bins;
        first_level += ch.bins + 1;
        if (o.binning != Binning::even) continue;
        if (is_float_kind(sample)) {
            const float lower = float(ch.lower), upper = float(ch.upper);
            words[1] = std::bit_cast<uint32_t>(lower);
            words[2] = std::bit_cast<uint32_t>(upper);
            words[3] = std::bit_cast<uint32_t>(float(double(ch.bins) / (double(upper) - double(lower))));
        } else {
            const uint64_t span = uint64_t(int64_t(ch.upper) - int64_t(ch.lower) - 1);
            words[1] = integer_key(sample, ch.lower);
            words[2] = integer_key(sample, ch.upper);
            words[6] = uint32_t(span);
            // the estimate the kernel's exact division corrects
            words[3] = std::bit_cast<uint32_t>(float(double(ch.bins) / (double(span) + 1)));
            narrow = narrow && span < 0xffffffffull && span * ch.bins <= 0xffffffffull;
            const uint64_t width = (span + 1) / ch.bins; // values a bin, where all bins are as wide
            shifted = shifted && (span + 1) % ch.bins == 0 && std::has_single_bit(width);
            words[7] = shifted ? uint32_t(std::countr_zero(width)) : 0;
            double low, high;
            integer_range(sample, low, high);
            whole = whole && ch.lower == low && ch.upper == high + 1;
        }
    }
    const bool integer_even = o.binning == Binning::even && !is_float_kind(sample);
    const bool device_atomics = o.test.force_device_atomics || total_bins > histogram_shared_bins;
    const bool byte_table = size_of(sample) == 1 && !(integer_even && shifted);
    const bool whole_bytes = size_of(sample) == 1 && integer_even && shifted && whole;
    const bool staged_levels = total_levels && size_of(sample) > 1 && total_levels <= VKC_HISTOGRAM_LOOKUP_WORDS;
    const uint32_t shape = uint32_t(size_of(sample)) | kind_of(sample) << VKC_HISTOGRAM_KIND_SHIFT |
                           uint32_t(o.binning) << VKC_HISTOGRAM_BINNING_SHIFT |
                           o.channels << VKC_HISTOGRAM_CHANNELS_SHIFT | o.active_channels << VKC_HISTOGRAM_ACTIVE_SHIFT |
                           (device_atomics ? VKC_HISTOGRAM_DEVICE_ATOMICS_BIT : 0u) |
                           (integer_even && narrow ? VKC_HISTOGRAM_NARROW_BIT : 0u) |
                           (integer_even && shifted ? VKC_HISTOGRAM_SHIFT_BIT : 0u) |
                           (staged_levels ? VKC_HISTOGRAM_STAGED_LEVELS_BIT : 0u) |
                           (byte_table ? VKC_HISTOGRAM_BYTE_TABLE_BIT : 0u) |
                           (whole_bytes ? VKC_HISTOGRAM_WHOLE_BYTES_BIT : 0u);
    st.pipeline = pipelines.pipeline(m, {VKC_HISTOGRAM_WORKGROUP_SIZE}, false, 0, false, shape);
    st.scratch = {r.scratch.buffer, r.scratch.offset, histogram_scratch_bytes_needed};

    allocate_sets(vk, device, allocator, pipelines.set_layout, 1, st.pool, &st.set);
    const uint64_t min_align = dev.min_storage_buffer_offset_alignment;
    const WordBinding out = word_binding(r.histogram, uint64_t(total_bins) * 4, min_align);
    // Even bins read no levels: the binding sees the scratch (never read through it).
    const WordBinding levels = total_levels ? word_binding(r.levels, uint64_t(total_levels) * 4, min_align)
                                            : word_binding(r.scratch, histogram_scratch_bytes_needed, min_align);
    const auto [count_info, count_word] =
        count_binding(indirect, {r.scratch.buffer, r.scratch.offset, histogram_scratch_bytes_needed}, min_align);
    VkDescriptorBufferInfo infos[histogram_bindings] = {{r.samples.buffer, r.samples.offset, sample_bytes},
                                                        out.info,
                                                        {r.scratch.buffer, r.scratch.offset, histogram_scratch_bytes_needed},
                                                        count_info,
                                                        levels.info};
    write_storage_buffers(vk, device, st.set, infos, histogram_bindings);

    HistogramParams& p = st.params;
    p.pixels = uint32_t(pixels);
    p.flags = out.word << VKC_HISTOGRAM_OUT_WORD_SHIFT | levels.word << VKC_HISTOGRAM_LEVEL_WORD_SHIFT;
    if (indirect) p.flags |= VKC_HISTOGRAM_FLAG_COUNT_ON_DEVICE | count_word << VKC_DEVICE_COUNT_WORD_SHIFT;
    p.total_bins = total_bins;
    p.total_levels = total_levels;
    const uint64_t tiles = ceil_div(sample_bytes / 4, uint64_t(VKC_HISTOGRAM_WORKGROUP_SIZE) * VKC_HISTOGRAM_WORDS);
    st.groups = uint32_t(std::min(tiles, o.test.groups ? uint64_t(o.test.groups) : max_groups));
    return plan;
}

} // namespace vkc
