// Device-wide histograms on a Context's own Buffers and on host arrays: a plan on the Context's queue,
// with a scratch made for the call.
#include <cmath>
#include <string>
#include <vector>

#include "device/device_state.hpp"
#include "device/memory.hpp"
#include "histogram/internal.hpp"
#include "submit/context_state.hpp"

namespace vkc {

void Context::run(const HistogramPlan& plan) {
    if (plan.state_ && plan.state_->core != state_->core) throw Error("run: the plan was made on another device");
    state_->run_recorded([&](VkCommandBuffer cmd) { plan.record(cmd); }, {});
}

void Context::histogram(const Buffer& samples, Buffer& histogram, Type sample, uint64_t pixels,
                        const HistogramOptions& o, const Buffer* levels) {
    DeviceState& dev = *device_.state_;
    const char* what = "histogram";
    check_histogram_arguments(sample, pixels, o, what);
    if ((o.binning == Binning::range) != (levels != nullptr)) {
        throw Error(std::string(what) + (levels ? ": levels were given but the binning is not range"
                                                : ": the binning is range but no levels were given"));
    }
    dev.memory.check_buffer(samples, "the samples");
    dev.memory.check_buffer(histogram, "the histogram");
    if (levels) dev.memory.check_buffer(*levels, "the levels");
    const uint64_t sample_bytes = (pixels * o.channels * size_of(sample) + 3) / 4 * 4;
    const uint64_t bin_bytes = uint64_t(histogram_total_bins(o)) * 4;
    const uint64_t level_bytes = uint64_t(histogram_total_levels(o)) * 4;
    auto check_size = [&](const Buffer& b, uint64_t need, const char* role) {
        if (b.size() < need) {
            throw Error(std::string(what) + ": the " + role + " buffer holds " + std::to_string(b.size()) +
                        " bytes; " + std::to_string(need) + " are needed");
        }
    };
    check_size(samples, sample_bytes, "samples");
    check_size(histogram, bin_bytes, "histogram");
    if (levels) check_size(*levels, level_bytes, "levels");
    if (histogram.handle() == samples.handle() || (levels && histogram.handle() == levels->handle())) {
        throw Error(std::string(what) + ": the histogram's buffer is also an input's");
    }
    Buffer scratch = create_buffer(histogram_scratch_bytes_needed);
    HistogramRanges ranges;
    ranges.samples = {samples.handle(), 0, samples.size()};
    if (levels) ranges.levels = {levels->handle(), 0, levels->size()};
    ranges.histogram = {histogram.handle(), 0, bin_bytes};
    ranges.scratch = {scratch.handle(), 0, scratch.size()};
    HistogramPlan plan = dev.make_histogram_plan(sample, pixels, ranges, o);
    state_->run_recorded([&](VkCommandBuffer cmd) { plan.record(cmd); }, {});
}

// Host arrays: up (samples padded to whole words, levels as the kernel's words), counted, down.
std::vector<uint32_t> Context::histogram_host(const void* samples, uint64_t sample_count, Type sample,
                                              const HistogramOptions& o, std::span<const double> levels) {
    const char* what = "histogram";
    if (o.channels >= 1 && o.channels <= 4 && sample_count % o.channels != 0) {
        throw Error(std::string(what) + ": " + std::to_string(sample_count) + " samples are not whole pixels of " +
                    std::to_string(o.channels) + " channels");
    }
    const uint64_t pixels = o.channels >= 1 && o.channels <= 4 ? sample_count / o.channels : 0;
    check_histogram_arguments(sample, pixels, o, what);
    if (o.accumulate) {
        throw Error(std::string(what) + ": accumulate adds to a histogram kept on the device: use Buffers or a plan");
    }
    const uint32_t total_levels = histogram_total_levels(o);
    if (o.binning == Binning::range && levels.size() != total_levels) {
        throw Error(std::string(what) + ": " + std::to_string(levels.size()) + " levels were given; the channels' bins need " +
                    std::to_string(total_levels));
    }
    std::vector<uint32_t> level_words;
    for (uint32_t c = 0, first = 0; c < o.active_channels && o.binning == Binning::range; ++c) {
        const uint32_t bins = o.channel[c].bins;
        for (uint32_t i = 0; i <= bins; ++i) {
            level_words.push_back(histogram_level_word(sample, levels[first + i], what));
            if (i > 0 && !(levels[first + i - 1] <= levels[first + i])) {
                throw Error(std::string(what) + ": channel " + std::to_string(c) + "'s levels are not ascending at level " +
                            std::to_string(i));
            }
        }
        first += bins + 1;
    }
    std::vector<uint32_t> counts(histogram_total_bins(o));
    if (pixels == 0) return counts; // no samples: every count 0
    const uint64_t bytes = sample_count * size_of(sample);
    Buffer sample_buffer = create_buffer((bytes + 3) / 4 * 4);
    upload(sample_buffer, samples, bytes);
    Buffer level_buffer;
    if (!level_words.empty()) {
        level_buffer = create_buffer(level_words.size() * 4);
        upload(level_buffer, level_words.data(), level_words.size() * 4);
    }
    Buffer histogram_buffer = create_buffer(counts.size() * 4);
    histogram(sample_buffer, histogram_buffer, sample, pixels, o, level_words.empty() ? nullptr : &level_buffer);
    download(histogram_buffer, counts.data(), counts.size() * 4);
    return counts;
}

} // namespace vkc
