// vkc::Device, the front door: a DeviceState (device/device_state.hpp) made from the engine's device,
// and what an engine records with it. A Context (src/context.cpp) holds one, made on its own device or
// an adopted one.
#include <utility>

#include "device/device_state.hpp"
#include "sort/internal.hpp"

namespace vkc {

Device::Device(const DeviceCreateInfo& create) : state_(std::make_unique<DeviceState>()) {
    try {
        state_->create(create);
    } catch (...) {
        state_->destroy();
        throw;
    }
}
Device::~Device() {
    if (state_) state_->destroy();
}
Device::Device(Device&&) noexcept = default;
Device& Device::operator=(Device&& other) noexcept {
    if (this != &other) {
        if (state_) state_->destroy();
        state_ = std::move(other.state_);
    }
    return *this;
}

const DeviceInfo& Device::info() const { return state_->info; }
const ModuleInfo& Device::select_module(Collective c, Type t, Op op, Path preferred) const {
    return state_->select_module(c, t, op, preferred);
}
ScanTile Device::scan_tile(Type type, const ScanOptions& o, uint64_t count) const {
    return state_->scan_tile(type, o, count);
}
uint64_t Device::scan_scratch_bytes(Type type, uint64_t count, const ScanOptions& o) const {
    return state_->scan_scratch_bytes(type, count, o);
}
uint64_t Device::reduce_scratch_bytes(Type type, uint64_t count, const ScanOptions& o) const {
    return state_->reduce_scratch_bytes(type, count, o);
}
ScanPlan Device::plan_scan(Type type, Op op, uint64_t count, const BufferRange& input, const BufferRange& output,
                           const BufferRange& scratch, const ScanOptions& o) {
    return state_->plan_scan(type, op, count, input, output, scratch, o);
}
ScanPlan Device::plan_reduce(Type type, Op op, uint64_t count, const BufferRange& input, const BufferRange& result,
                             const BufferRange& scratch, const ScanOptions& o) {
    return state_->plan_reduce(type, op, count, input, result, scratch, o);
}
ScanPlan Device::plan_scan(Type type, Op op, const IndirectCount& count, const BufferRange& input,
                           const BufferRange& output, const BufferRange& scratch, const ScanOptions& o) {
    return state_->make_plan(false, type, op, count.max_count, input, output, scratch, o, false, 0, &count);
}
ScanPlan Device::plan_reduce(Type type, Op op, const IndirectCount& count, const BufferRange& input,
                             const BufferRange& result, const BufferRange& scratch, const ScanOptions& o) {
    return state_->make_plan(true, type, op, count.max_count, input, result, scratch, o, false, 0, &count);
}
void Device::prepare_scans(std::span<const ScanPreparation> preparations, uint32_t threads) {
    state_->prepare_scans(preparations, threads);
}
uint64_t Device::sort_scratch_bytes(Type key, uint64_t count, const SortOptions& o) const {
    return state_->sort_scratch_bytes(key, count, o);
}
SortPlan Device::plan_sort(Type key, uint64_t count, const BufferRange& keys, const BufferRange& keys_alternate,
                           const BufferRange& scratch, const SortOptions& o) {
    return state_->make_sort_plan(key, 0, count, {keys, keys_alternate, {}, {}, scratch}, o);
}
SortPlan Device::plan_sort_pairs(Type key, uint32_t value_bytes, uint64_t count, const BufferRange& keys,
                                 const BufferRange& keys_alternate, const BufferRange& values,
                                 const BufferRange& values_alternate, const BufferRange& scratch,
                                 const SortOptions& o) {
    if (value_bytes == 0) throw Error("sort_pairs: value_bytes is 0 (1, 2, 4, 8 or 16 bytes are supported)");
    return state_->make_sort_plan(key, value_bytes, count, {keys, keys_alternate, values, values_alternate, scratch},
                                  o);
}
SortPlan Device::plan_sort(Type key, const IndirectCount& count, const BufferRange& keys,
                           const BufferRange& keys_alternate, const BufferRange& scratch, const SortOptions& o) {
    return state_->make_sort_plan(key, 0, count.max_count, {keys, keys_alternate, {}, {}, scratch}, o, &count);
}
SortPlan Device::plan_sort_pairs(Type key, uint32_t value_bytes, const IndirectCount& count, const BufferRange& keys,
                                 const BufferRange& keys_alternate, const BufferRange& values,
                                 const BufferRange& values_alternate, const BufferRange& scratch,
                                 const SortOptions& o) {
    if (value_bytes == 0) throw Error("sort_pairs: value_bytes is 0 (1, 2, 4, 8 or 16 bytes are supported)");
    return state_->make_sort_plan(key, value_bytes, count.max_count,
                                  {keys, keys_alternate, values, values_alternate, scratch}, o, &count);
}
uint64_t Device::select_scratch_bytes(Type item, uint64_t count, const SelectOptions& o) const {
    return state_->select_scratch_bytes(item, count, o);
}
SelectPlan Device::plan_select(Type item, uint64_t count, const SelectRanges& ranges, const SelectOptions& o) {
    return state_->make_select_plan(item, count, ranges, o);
}
uint64_t Device::histogram_scratch_bytes(Type sample, uint64_t pixels, const HistogramOptions& o) const {
    return state_->histogram_scratch_bytes(sample, pixels, o);
}
HistogramPlan Device::plan_histogram(Type sample, uint64_t pixels, const HistogramRanges& ranges,
                                     const HistogramOptions& o) {
    return state_->make_histogram_plan(sample, pixels, ranges, o);
}
HistogramPlan Device::plan_histogram(Type sample, const IndirectCount& pixels, const HistogramRanges& ranges,
                                     const HistogramOptions& o) {
    return state_->make_histogram_plan(sample, pixels.max_count, ranges, o, &pixels);
}
uint64_t Device::segmented_scratch_bytes(Type value, uint64_t count, const SegmentedOptions& o) const {
    return state_->segmented_scratch_bytes(value, count, o);
}
SegmentedPlan Device::plan_segmented(Type value, Op op, uint64_t count, const SegmentedRanges& ranges,
                                     const SegmentedOptions& o) {
    return state_->make_segmented_plan(value, op, count, ranges, o);
}
SegmentedPlan Device::plan_segmented(Type value, Op op, const IndirectCount& count, const SegmentedRanges& ranges,
                                     const SegmentedOptions& o) {
    return state_->make_segmented_plan(value, op, count.max_count, ranges, o, &count);
}
SelectPlan Device::plan_select(Type item, const IndirectCount& count, const SelectRanges& ranges,
                               const SelectOptions& o) {
    return state_->make_select_plan(item, count.max_count, ranges, o, &count);
}
VkPipelineCache Device::vk_pipeline_cache() const { return state_->pipelines.pipeline_cache; }
std::vector<uint8_t> Device::pipeline_cache_data() const { return state_->pipelines.pipeline_cache_data(); }
std::string Device::pipeline_cache_file() const { return state_->pipelines.cache_file; }

} // namespace vkc
