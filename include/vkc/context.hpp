// vkcollectives: the convenience layer. A Context holds a vkc::Device (include/vkc/device.hpp) and
// adds Buffers, uploads and downloads, and a queue it submits to and waits on: it runs the work-group
// collectives, block scans and device-wide scans on its own Buffers and on host arrays.
//
//   vkc::Context ctx;                                   // picks a device (see ContextOptions::device)
//   std::vector<uint32_t> items = {3, 1, 7, 0, 4, 1, 6, 3};
//   auto sums = ctx.run(vkc::WorkgroupRequest{vkc::Collective::scan_inclusive, vkc::Type::u32,
//                                             vkc::Op::add, {8}}, items);
//   // sums == {3, 4, 11, 11, 15, 16, 22, 25}
//
// Not thread safe: use one Context per thread. Buffers must not outlive their Context.
#pragma once

#include "vkc/api.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "vkc/device.hpp"
#include "vkc/device_scan.hpp"
#include "vkc/half.hpp"
#include "vkc/modules.hpp"
#include "vkc/histogram.hpp"
#include "vkc/segmented.hpp"
#include "vkc/select.hpp"
#include "vkc/sort.hpp"
#include "vkc/types.hpp"
#include "vkc/vulkan_handles.hpp"

namespace vkc {
VKC_API_BEGIN

// An engine's own Vulkan device and a queue of it, for a Context to work on instead of creating one
// (ContextOptions::adopt). The Context destroys none of these objects; they must outlive it, and so
// must every command buffer that recorded its plans finish before it is destroyed. (An engine that
// only records plans needs no Context: vkc::Device takes its device without a queue.)
struct AdoptedDevice {
    // The instance must have been created for Vulkan 1.1 or later (vkc queries the device with
    // vkGetPhysicalDeviceProperties2 and Features2), and the device must offer Vulkan 1.1.
    VkInstance instance = nullptr;
    VkPhysicalDevice physical_device = nullptr;
    VkDevice device = nullptr;
    // A queue of a family with compute. The Context submits to it only in its own calls that wait for
    // their result (run, scan and reduce on Buffers or host arrays, upload, download); the caller keeps
    // its own use of the queue apart from those, as Vulkan's external synchronisation asks.
    uint32_t queue_family = 0;
    VkQueue queue = nullptr;
    // The VkPhysicalDeviceFeatures2 chain the device was created with, since Vulkan cannot be asked
    // what was enabled (a device made with pEnabledFeatures: wrap those in a VkPhysicalDeviceFeatures2).
    // Read: shaderInt64, shaderFloat64, shaderInt16, and in the chain VkPhysicalDeviceVulkan11Features,
    // VkPhysicalDeviceVulkan12Features, or the 8/16-bit storage, float16/int8 and subgroup extended
    // types structs. Modules that need a feature the chain does not enable are not used (a request
    // that has no other module gets an UnsupportedError naming the feature). Null: none enabled.
    const VkPhysicalDeviceFeatures2* enabled_features = nullptr;
    // Optional: the engine's vkGetInstanceProcAddr (its own loader, or one that puts its layers in
    // front), from which every instance and device function vkc calls is loaded. Null
    // (default): the system loader's, from libvulkan.so.1.
    PFN_vkGetInstanceProcAddr get_instance_proc_addr = nullptr;
};

struct ContextOptions {
    // Which device: its index in list_devices() ("1") or part of its name ("llvmpipe"), any case.
    // Empty (default): the VKC_DEVICE environment variable, else a discrete GPU, else an integrated
    // GPU, else whatever exists (lavapipe included).
    std::string device;
    // Enable VK_LAYER_KHRONOS_validation when installed, with synchronization validation, and count its
    // warnings and errors. Default off; VKC_VALIDATION=1 turns it on too.
    bool validation = false;
    // Never use subgroup modules, as on a device without subgroup arithmetic. Default off;
    // VKC_SHARED_MEMORY_ONLY=1 turns it on too.
    bool shared_memory_only = false;
    // Treat these features as missing, as on a device without them (tests use it to reach the
    // fallback and error paths on a device that has everything). Default none.
    Feature hide_features = Feature::none;
    // Work on an engine's device instead of creating one (adopt.device set). `device` is then
    // ignored, and so is `validation`: layers are the engine's to enable on its instance.
    AdoptedDevice adopt;
    // Optional: host memory callbacks for every Vulkan object the Context creates (the instance and
    // device too, where it creates them). Copied: the struct need not outlive this call, the
    // functions and their pUserData must outlive the Context and its Buffers and plans. Default null.
    const VkAllocationCallbacks* allocator = nullptr;
    // Optional: a pipeline cache of the caller's on the same device, through which every pipeline is
    // created (an engine's own, that it saves as it likes). The Context neither destroys nor saves it.
    // Default null: the Context makes its own, loaded from and saved to pipeline_cache_path.
    VkPipelineCache pipeline_cache = nullptr;
    // File the Context's own pipeline cache is read from when it is made and written to when it is
    // destroyed (data of another device or driver is ignored by Vulkan; what other Contexts and
    // processes saved there meanwhile is merged in, not overwritten). Empty (default): the
    // VKC_PIPELINE_CACHE environment variable ("none": memory only); if that is unset too, a file of
    // this device and driver in the user's cache directory, $XDG_CACHE_HOME/vkcollectives or
    // ~/.cache/vkcollectives (persistent_pipeline_cache), so that only the first process on a new
    // driver waits for its compiles.
    std::string pipeline_cache_path;
    // Whether the Context's own pipeline cache lives in the user's cache directory where no file is
    // named. Default on; off (or VKC_PIPELINE_CACHE=none): in memory only.
    bool persistent_pipeline_cache = true;
    // Initial data for the Context's own pipeline cache (from Context::pipeline_cache_data() of an
    // earlier run), used where no file is named. Default empty.
    std::vector<uint8_t> pipeline_cache_data;
};


// A device-local storage buffer. Move only. It keeps its device alive, so it may outlive its Context;
// a Context accepts only its own Buffers.
class Buffer {
public:
    Buffer() = default;
    Buffer(Buffer&&) noexcept;
    Buffer& operator=(Buffer&&) noexcept;
    ~Buffer();
    uint64_t size() const { return size_; }
    VkBuffer handle() const { return buffer_; }

private:
    friend class Context;
    friend struct DeviceMemory; // private (src/device/memory.hpp): makes and checks Buffers
    std::shared_ptr<DeviceCore> owner_;
    VkBuffer buffer_ = nullptr;
    VkDeviceMemory memory_ = nullptr;
    void* mapped_ = nullptr; // set when the memory is host visible and coherent
    uint64_t size_ = 0;
    void release();
};

// Source of a broadcast: a linear local id (dims 1), or (x, y) / (x, y, z) coordinates (dims 2 / 3).
struct BroadcastSource {
    uint32_t dims = 1;
    uint32_t id[3] = {0, 0, 0};
    uint64_t linear(const WorkgroupShape&) const;
};

// One collective applied to every work-group of a buffer: items [g*size, (g+1)*size) form work-group g,
// and the last group is short when count is not a multiple of size (its collectives cover its own items).
struct WorkgroupRequest {
    Collective collective = Collective::reduce;
    Type type = Type::u32;     // item type; all/any read uint32 predicates (non-zero is true) whatever this says
    Op op = Op::add;           // reduce and scans only
    WorkgroupShape shape;      // work-group size, 1D to 3D
    uint64_t count = 0;        // items; 0 means the whole input in the convenience overload of run()
    BroadcastSource source;    // broadcast only
};

// CUB's BlockScan over a buffer: tiles of size x items_per_invocation items (invocation i holds
// items [i*k, (i+1)*k) of its tile); work-group g scans tiles [g*t, (g+1)*t) in turn (t =
// tiles_per_group). Items past `count` are neither read nor written (a partial or empty tile).
struct BlockRequest {
    Collective collective = Collective::block_scan_inclusive; // block_reduce writes each tile's total to its items
    Type type = Type::u32;
    Op op = Op::add;
    WorkgroupShape shape;
    uint32_t items_per_invocation = 1; // 1 to 16
    uint32_t tiles_per_group = 1;
    uint64_t count = 0;
    bool seeded = false;   // every tile's scan starts from `seed` (exclusive: its first item is seed)
    bool running = false;  // carry a running prefix across a group's tiles, starting from `seed`
    // With running: carry it through a prefix callback (vkc_block_scan_*_callback_*, CUB's
    // BlockPrefixCallbackOp) that keeps the running prefix as its own state, not the running forms.
    bool prefix_callback = false;
    uint64_t seed_bits = 0; // the seed's bits, in the low bytes for narrower types
    // Algorithm: subgroup (subgroup scans joined through shared memory; raking where the device
    // lacks what they need) or shared_memory (the raking scan, CUB's BLOCK_SCAN_RAKING).
    Path path = Path::subgroup;
};

struct ContextState; // private (src/submit/context_state.hpp)

// Holds a Device (device()): plans, tiles and scratch sizes are asked of it. Its waiting calls probe
// the subgroup layout of each work-group size they use on its queue, and plans made afterwards use
// the subgroup modules there; call device().probe_subgroup_layout(queue(), queue_family()) to cover
// every size before planning.
class Context {
public:
    explicit Context(const ContextOptions& options = {});
    ~Context();
    Context(const Context&) = delete;
    Context& operator=(const Context&) = delete;

    // The Device the Context works through: scan_tile, scratch sizes, plan_scan, plan_reduce,
    // select_module and the pipeline cache are its.
    Device& device() { return device_; }
    const Device& device() const { return device_; }
    const DeviceInfo& info() const { return device_.info(); }
    bool validation_enabled() const;
    // Validation messages (warnings and errors) seen on the Context's own instance, and the last.
    uint64_t validation_messages() const;
    std::string last_validation_message() const;

    // Whether the device packs the invocations of this shape into subgroups in local-index order
    // (subgroup s holds indices [s*S, (s+1)*S)), as the subgroup path of reduce and scans needs.
    // Found once per shape by running a probe module; false where the device has no subgroups.
    bool subgroups_packed(const WorkgroupShape& shape);

    Buffer create_buffer(uint64_t bytes);
    void upload(Buffer& dst, const void* src, uint64_t bytes, uint64_t dst_offset = 0);
    void download(const Buffer& src, void* dst, uint64_t bytes, uint64_t src_offset = 0);

    // Runs the collective over request.count items of `input`, writing the same count to `output`
    // (which may be `input`). Nothing past the count is written. Throws Error on bad input.
    void run(const WorkgroupRequest& request, const Buffer& input, Buffer& output);

    // Runs a block scan. `record`, when given, receives for each tile t the aggregate every invocation
    // saw (items [2t*size, 2t*size + size)) and the running prefix each holds after the tile (the next
    // `size` items); it needs 2 * tiles * size items, tiles = groups * tiles_per_group.
    void run(const BlockRequest& request, const Buffer& input, Buffer& output, Buffer* record = nullptr);

    // GPU time of each run's dispatch, from timestamp queries (for benchmarks). Off by default.
    // repeats > 1: each run records its work that many times back to back in one submission, each
    // between its own timestamps, and last_gpu_ms() is their median: no idle GPU before the timed
    // work, as on a busy stream. The work then runs that many times (an in-place scan over its own
    // output). 1 to 1024.
    void set_timing(bool on, uint32_t repeats = 1);
    double last_gpu_ms() const; // the last run's dispatch, in milliseconds (median of the repeats)

    // ---- Device-wide scan and reduce (see include/vkc/device_scan.hpp) ----
    // Every type and op of the work-group collectives; count may be 0 (scan: nothing happens;
    // reduce: the identity) and beyond 2^32. Throws Error naming what is wrong with the arguments.

    // On this Context's buffers, waiting for the result (output may be input: in place). With timing
    // on, last_gpu_ms() is the whole plan's GPU time.
    void scan(const Buffer& input, Buffer& output, Type, Op, uint64_t count, const ScanOptions& = {});
    void reduce(const Buffer& input, Buffer& result, Type, Op, uint64_t count, const ScanOptions& = {});
    // A plan of this Context's device (plan_scan / plan_reduce, on Buffer::handle() ranges) on the
    // Context's queue, waiting for it, with the barrier before it that include/vkc/device_scan.hpp asks
    // for. With timing on, last_gpu_ms() is the plan's GPU time.
    void run(const ScanPlan& plan);
    // Host arrays of any length, streamed through the device ScanOptions::stream_bytes at a time with
    // the running total carried. T: vkc::half, int8_t ... uint64_t, float, double.
    template <class T>
    std::vector<T> scan(std::span<const T> items, Op op, const ScanOptions& options = {}) {
        std::vector<T> out(items.size());
        scan_host(items.data(), out.data(), items.size(), type_of<T>(), op, options);
        return out;
    }
    template <class T>
    T reduce(std::span<const T> items, Op op, const ScanOptions& options = {}) {
        T result{};
        reduce_host(items.data(), &result, items.size(), type_of<T>(), op, options);
        return result;
    }
    void scan_host(const void* items, void* out, uint64_t count, Type, Op, const ScanOptions&);
    // run() on host items of item_bytes each (the size of request.type's host type; all/any: 4).
    void run_host(WorkgroupRequest request, const void* items, void* out, uint64_t count, size_t item_bytes);
    void reduce_host(const void* items, void* result, uint64_t count, Type, Op, const ScanOptions&);

    // ---- Device-wide radix sort (see include/vkc/sort.hpp) ----
    // Keys u8, i8, u16, i16, f16, u32, i32, f32, u64, i64, f64; values of 1, 2, 4, 8 or 16 bytes.
    // Throws Error naming what is wrong.

    // On this Context's Buffers, waiting for the result, which ends in `keys` (and `values`): the
    // alternate buffers and the scratch are made for the call. With timing on, last_gpu_ms() is the
    // plan's GPU time (the copy back where the passes end in the alternates not included).
    void sort(Buffer& keys, Type key, uint64_t count, const SortOptions& = {});
    void sort_pairs(Buffer& keys, Buffer& values, Type key, uint32_t value_bytes, uint64_t count,
                    const SortOptions& = {});
    // A sort plan of this Context's device on its queue, waited for (the barrier before it included).
    void run(const SortPlan& plan);
    // Host arrays: K any key type's host type (uint8_t to double, vkc::half); V any type of 1, 2, 4, 8
    // or 16 bytes.
    template <class K>
    std::vector<K> sort(std::span<const K> keys, const SortOptions& options = {}) {
        std::vector<K> out(keys.begin(), keys.end());
        sort_host(out.data(), nullptr, out.size(), type_of<K>(), 0, options);
        return out;
    }
    // Sorts keys and values in place, values moved with their keys (the spans' sizes must agree).
    template <class K, class V>
    void sort_pairs(std::span<K> keys, std::span<V> values, const SortOptions& options = {}) {
        if (keys.size() != values.size()) throw Error("sort_pairs: the keys and the values differ in count");
        sort_host(keys.data(), values.data(), keys.size(), type_of<K>(), uint32_t(sizeof(V)), options);
    }
    // keys: count keys; values: null, or count values of value_bytes each; both sorted in place.
    void sort_host(void* keys, void* values, uint64_t count, Type key, uint32_t value_bytes, const SortOptions&);

    // ---- Device-wide select, unique and partition (see include/vkc/select.hpp) ----
    // Items u32, i32, f32, u64, i64, f64. Throws Error naming what is wrong.

    // On this Context's Buffers, waiting for the result: output[0, kept) the kept items (and with
    // options.partition the rest after them); returns kept. flags: the uint32 flags of
    // Selection::flagged (else null). output may be input (in place) without partition. The scratch
    // and the count's buffer are made for the call; with timing on, last_gpu_ms() is the plan's time.
    uint64_t select(const Buffer& input, Buffer& output, Type item, uint64_t count, const SelectOptions&,
                    const Buffer* flags = nullptr);
    // A select plan of this Context's device on its queue, waited for (the barrier before it included).
    void run(const SelectPlan& plan);
    // Host arrays: T uint32_t, int32_t, float, uint64_t, int64_t or double. The kept items, in order.
    template <class T>
    std::vector<T> select_if(std::span<const T> items, const SelectPredicate& predicate, SelectOptions options = {}) {
        options.by = Selection::predicate;
        options.predicate = predicate;
        return select_into<T>(items, nullptr, options);
    }
    template <class T>
    std::vector<T> select_flagged(std::span<const T> items, std::span<const uint32_t> flags,
                                  SelectOptions options = {}) {
        if (flags.size() != items.size()) throw Error("select_flagged: the items and the flags differ in count");
        options.by = Selection::flagged;
        return select_into<T>(items, flags.data(), options);
    }
    // The first item of every run of equal items.
    template <class T>
    std::vector<T> unique(std::span<const T> items, SelectOptions options = {}) {
        options.by = Selection::unique;
        return select_into<T>(items, nullptr, options);
    }
    // Every item: the kept ones first, in order, then the others, last first; `kept` says where they part.
    template <class T>
    std::vector<T> partition(std::span<const T> items, SelectOptions options, uint64_t& kept) {
        options.partition = true;
        std::vector<T> out(items.size());
        kept = select_host(items.data(), nullptr, out.data(), items.size(), type_of<T>(), options);
        return out;
    }
    // items: count items; flags: null, or count uint32 flags; out: room for count items. Returns kept.
    uint64_t select_host(const void* items, const uint32_t* flags, void* out, uint64_t count, Type item,
                         const SelectOptions&);

    // ---- Device-wide histograms (see include/vkc/histogram.hpp) ----
    // Samples u8, i8, u16, i16, u32, i32, f16, f32. Throws Error naming what is wrong.

    // On this Context's Buffers, waiting for the result: the counts of `pixels` pixels of samples
    // into histogram (each active channel's bins, one after another). levels: the boundaries of
    // Binning::range (32-bit numbers of the sample's kind, see HistogramRanges), else null. The
    // samples' buffer holds pixels x channels samples rounded up to 4 bytes.
    void histogram(const Buffer& samples, Buffer& histogram, Type sample, uint64_t pixels, const HistogramOptions&,
                   const Buffer* levels = nullptr);
    // A histogram plan of this Context's device on its queue, waited for (the barrier before it included).
    void run(const HistogramPlan& plan);
    // Host arrays. T: uint8_t, int8_t, uint16_t, int16_t, uint32_t, int32_t, vkc::half or float.
    // `bins` even bins over [lower, upper) of one channel.
    template <class T>
    std::vector<uint32_t> histogram_even(std::span<const T> samples, uint32_t bins, double lower, double upper) {
        HistogramOptions o;
        o.channel[0] = {bins, lower, upper};
        return histogram(samples, o);
    }
    // Bins between levels (levels.size() - 1 bins, levels ascending) of one channel.
    template <class T>
    std::vector<uint32_t> histogram_range(std::span<const T> samples, std::span<const T> levels) {
        HistogramOptions o;
        o.binning = Binning::range;
        o.channel[0].bins = levels.empty() ? 0 : uint32_t(levels.size() - 1);
        std::vector<double> as_numbers;
        for (const T& level : levels) as_numbers.push_back(double(float_or_integer(level)));
        return histogram(samples, o, as_numbers);
    }
    // Any options: samples.size() / options.channels pixels; levels (Binning::range): each active
    // channel's bins + 1 boundaries, one channel after another. The active channels' histograms, one
    // after another.
    template <class T>
    std::vector<uint32_t> histogram(std::span<const T> samples, const HistogramOptions& options,
                                    std::span<const double> levels = {}) {
        return histogram_host(samples.data(), samples.size(), type_of<T>(), options, levels);
    }
    std::vector<uint32_t> histogram_host(const void* samples, uint64_t sample_count, Type sample,
                                         const HistogramOptions&, std::span<const double> levels);

    // ---- Segmented scans and reductions, by key, run-length encoding (see include/vkc/segmented.hpp) ----
    // Values and keys u32, i32, f32, u64, i64, f64. Throws Error naming what is wrong.

    // On this Context's Buffers, waiting for the result: count values (unused by run lengths) by the
    // segments of `heads` (uint32 flags, or keys of options.key) into output, and for reduce by key and
    // run lengths each segment's first key into unique_keys (else null). Returns the number of
    // segments (scans: count). output may be values for scans (in place). The scratch and the
    // count's buffer are made for the call; with timing on, last_gpu_ms() is the plan's time.
    uint64_t segmented(const Buffer* values, const Buffer& heads, Buffer& output, Buffer* unique_keys, Type value,
                       Op op, uint64_t count, const SegmentedOptions&);
    // A segmented plan of this Context's device on its queue, waited for (the barrier before it included).
    void run(const SegmentedPlan& plan);
    // Host arrays: T (values) and K (keys) uint32_t, int32_t, float, uint64_t, int64_t or double.
    // A scan that restarts at every nonzero flag (item 0 always starts a segment).
    template <class T>
    std::vector<T> segmented_scan(std::span<const T> values, std::span<const uint32_t> head_flags, Op op,
                                  bool inclusive = true, SegmentedOptions options = {}) {
        options.by = Segments::head_flags;
        options.output = inclusive ? SegmentedOutput::scan_inclusive : SegmentedOutput::scan_exclusive;
        return segmented_values<uint32_t, T>(values, head_flags, op, options);
    }
    // A scan that restarts where the key changes (CUB's InclusiveScanByKey / ExclusiveScanByKey, with
    // the operator's identity as the exclusive scan's first value).
    template <class K, class T>
    std::vector<T> scan_by_key(std::span<const K> keys, std::span<const T> values, Op op, bool inclusive = true,
                               SegmentedOptions options = {}) {
        options.by = Segments::keys;
        options.output = inclusive ? SegmentedOutput::scan_inclusive : SegmentedOutput::scan_exclusive;
        return segmented_values<K, T>(values, keys, op, options);
    }
    // op over each segment that a nonzero flag starts: a total a segment.
    template <class T>
    std::vector<T> segmented_reduce(std::span<const T> values, std::span<const uint32_t> head_flags, Op op,
                                    SegmentedOptions options = {}) {
        options.by = Segments::head_flags;
        options.output = SegmentedOutput::reduce;
        return segmented_values<uint32_t, T>(values, head_flags, op, options);
    }
    // op over each segment s = [offsets[s], offsets[s + 1]) of values (offsets ascending, at most
    // values.size(); CUB's DeviceSegmentedReduce): a total a segment, the identity for an empty one.
    template <class T>
    std::vector<T> reduce_segments(std::span<const T> values, std::span<const uint32_t> offsets, Op op,
                                   SegmentedOptions options = {}) {
        options.output = SegmentedOutput::reduce;
        std::vector<T> out(by_offsets(offsets, options));
        segmented_host(values.data(), offsets.data(), out.data(), nullptr, values.size(), type_of<T>(), op, options);
        return out;
    }
    // A scan within each segment s = [offsets[s], offsets[s + 1]) (CUB's DeviceSegmentedScan): every
    // value of a segment scanned, those outside every segment returned as they were.
    template <class T>
    std::vector<T> scan_segments(std::span<const T> values, std::span<const uint32_t> offsets, Op op,
                                 bool inclusive = true, SegmentedOptions options = {}) {
        options.output = inclusive ? SegmentedOutput::scan_inclusive : SegmentedOutput::scan_exclusive;
        std::vector<T> out(values.begin(), values.end());
        if (by_offsets(offsets, options) == 0) return out;
        segmented_host(values.data(), offsets.data(), out.data(), nullptr, values.size(), type_of<T>(), op, options);
        return out;
    }
    // op over each run of equal keys, with the run's key (CUB's ReduceByKey).
    template <class K, class T>
    ReducedByKey<K, T> reduce_by_key(std::span<const K> keys, std::span<const T> values, Op op,
                                     SegmentedOptions options = {}) {
        options.by = Segments::keys;
        options.output = SegmentedOutput::reduce;
        ReducedByKey<K, T> r;
        r.keys.resize(keys.size());
        r.totals = segmented_values<K, T>(values, keys, op, options, r.keys.data());
        r.keys.resize(r.totals.size());
        return r;
    }
    // Each run of equal keys: its key and length (CUB's RunLengthEncode::Encode).
    template <class K>
    RunLengths<K> run_length_encode(std::span<const K> keys, SegmentedOptions options = {}) {
        options.by = Segments::keys;
        options.output = SegmentedOutput::run_lengths;
        options.key = type_of<K>();
        RunLengths<K> r;
        r.keys.resize(keys.size());
        r.lengths.resize(keys.size());
        uint64_t runs = segmented_host(nullptr, keys.data(), r.lengths.data(), r.keys.data(), keys.size(), Type::u32,
                                       Op::add, options);
        r.keys.resize(runs);
        r.lengths.resize(runs);
        return r;
    }
    // Each run of two or more equal keys: its first index and length (CUB's
    // RunLengthEncode::NonTrivialRuns).
    template <class K>
    NonTrivialRuns non_trivial_runs(std::span<const K> keys, SegmentedOptions options = {}) {
        options.by = Segments::keys;
        options.output = SegmentedOutput::non_trivial_runs;
        options.key = type_of<K>();
        NonTrivialRuns r;
        r.offsets.resize((keys.size() + 1) / 2);
        r.lengths.resize((keys.size() + 1) / 2);
        uint64_t runs = segmented_host(nullptr, keys.data(), r.lengths.data(), r.offsets.data(), keys.size(), Type::u32,
                                       Op::add, options);
        r.offsets.resize(runs);
        r.lengths.resize(runs);
        return r;
    }
    // values: count values (null for run lengths and non-trivial runs); heads: count flags or keys,
    // or segment_count + 1 offsets; out: room for count values (scans by offsets: count values, those
    // outside every segment left as they were), or segment_count totals by offsets, or (count + 1) / 2
    // lengths of non-trivial runs; unique_keys: room for count keys (reduce by key and run lengths), or
    // for (count + 1) / 2 uint32 first indices (non-trivial runs), or null. Returns the number of
    // segments (scans: count).
    uint64_t segmented_host(const void* values, const void* heads, void* out, void* unique_keys, uint64_t count,
                            Type value, Op op, const SegmentedOptions&);

    // The Vulkan objects, for engines that record plans on this Context's device (an adopted
    // device's own handles where ContextOptions::adopt was given).
    VkInstance vk_instance() const;
    VkPhysicalDevice vk_physical_device() const;
    VkDevice vk_device() const;
    uint32_t queue_family() const;
    VkQueue queue() const;

    // Convenience: upload, run over every item, download. T is the host type of request.type
    // (vkc::half, int32_t, uint32_t, int64_t, uint64_t, float, double).
    template <class T>
    std::vector<T> run(const WorkgroupRequest& request, std::span<const T> items) {
        std::vector<T> out(items.size());
        run_host(request, items.data(), out.data(), items.size(), sizeof(T));
        return out;
    }
    template <class T>
    std::vector<T> run(const WorkgroupRequest& request, const std::vector<T>& items) {
        return run(request, std::span<const T>(items));
    }

private:
    // Sets options.by and segment_count from an offsets array; returns the segments.
    static uint32_t by_offsets(std::span<const uint32_t> offsets, SegmentedOptions& options) {
        options.by = Segments::offsets;
        if (offsets.size() > segmented_max_count + 1) {
            throw Error(std::string(segmented_call_name(options)) + ": " + std::to_string(offsets.size()) +
                        " offsets are past the most a call takes");
        }
        options.segment_count = offsets.empty() ? 0 : uint32_t(offsets.size() - 1);
        return options.segment_count;
    }
    template <class T>
    static auto float_or_integer(const T& v) {
        if constexpr (std::is_same_v<T, half>) return float(v);
        else return v;
    }
    template <class K, class T>
    std::vector<T> segmented_values(std::span<const T> values, std::span<const K> heads, Op op,
                                    SegmentedOptions options, K* unique_keys = nullptr) {
        if (values.size() != heads.size()) {
            throw Error(std::string(segmented_call_name(options)) + ": the values and the " +
                        (options.by == Segments::keys ? "keys" : "head flags") + " differ in count");
        }
        if (options.by == Segments::keys) options.key = type_of<K>();
        std::vector<T> out(values.size());
        out.resize(segmented_host(values.data(), heads.data(), out.data(), unique_keys, values.size(), type_of<T>(),
                                  op, options));
        return out;
    }
    template <class T>
    std::vector<T> select_into(std::span<const T> items, const uint32_t* flags, const SelectOptions& options) {
        std::vector<T> out(items.size());
        out.resize(select_host(items.data(), flags, out.data(), items.size(), type_of<T>(), options));
        return out;
    }
    void sort_buffers(Buffer& keys, Buffer* values, Type key, uint32_t value_bytes, uint64_t count, const SortOptions&,
                      const char* what);
    Device device_;
    std::unique_ptr<ContextState> state_; // its queue, command buffer, fence, timing and scratch
};

VKC_API_END
} // namespace vkc
