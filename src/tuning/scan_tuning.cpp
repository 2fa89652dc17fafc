#include "tuning/scan_tuning.hpp"

#include <algorithm>

#include "device_scan/shared_memory.hpp"
#include "tuning/tuning_file.hpp"
#include "tuning/vector_width.hpp"
#include "vkc/contract.h"

namespace vkc {
namespace {

constexpr ScanTuning gpu{
    .device_class = "GPU",
    .reference_compute_units = 132, // NVIDIA H100 and H200
    .invocations = 256, // with 64 bytes each, the fastest shape below the wide-tile counts
    .items = 0,
    .item_bytes = 64,                // four 16-byte vector loads an invocation
    .always_staged = false,          // blocked vector loads into registers ran faster than staging
    .wide_tile_min_items = 1u << 22, // 32 items an invocation ran faster from here, slower below
    .wide_tile_items = 32,
    .wide_tile_integer_invocations = 224, // the fastest of 128 to 256 for 32-bit integers
    .wide_tile_float_invocations = 256,   // the fastest for f32, whose tile takes more registers
    .stage_single_tiles = true,           // unchunked 64-bit look-back tiles ran faster staged
    .chunked_min_items = 1u << 20,        // from here one look-back per 4 tiles held in registers ran faster
    .chunk_tiles = 4,
    .f64_narrow_chunks_min_items = 1u << 22, // f64's chunks take more registers: groups of half the
    .f64_chunk_invocations = 128,            //   size keep the same warps on an SM
    .prefetch_min_bytes = 32u << 20,         // smaller dispatches fit the GPU at once: nothing to prefetch
    .scan_chunk_cap = 2048,                  // reproducible passes: enough groups to fill the largest GPUs
    .reduce_chunk_cap = 512,                 // fewer groups contend for reduce's finished counter
    .integer_reduce_item_bytes = 128,        // u32 and u64 reduces ran 4 to 9 % faster from 2^22 items up
};

constexpr ScanTuning cpu{
    .device_class = "CPU",
    .reference_compute_units = 0, // lavapipe reports none; nothing scales
    .invocations = 64, // small tiles, so that tests reach many tiles and the look-back
    .items = 4,        //   quickly at small counts
    .item_bytes = 0,
    .always_staged = true, // so the tests run the staged path at every subgroup width
    .wide_tile_min_items = 0,
    .wide_tile_items = 0,
    .wide_tile_integer_invocations = 0,
    .wide_tile_float_invocations = 0,
    .stage_single_tiles = true,
    .chunked_min_items = 0,
    .chunk_tiles = 1,
    .f64_narrow_chunks_min_items = 0,
    .f64_chunk_invocations = 0,
    .prefetch_min_bytes = 32u << 20,
    .scan_chunk_cap = 8, // many chunk passes at small counts, as on a GPU at large ones
    .reduce_chunk_cap = 8,
    .integer_reduce_item_bytes = 0,
};

uint64_t round_up(uint64_t a, uint64_t b) { return (a + b - 1) / b * b; }

// A tile's work-group size: a multiple of the largest subgroup size, within the device's limits.
uint32_t rounded_size(const DeviceInfo& dev, uint32_t size) {
    uint32_t lanes = std::max(1u, dev.max_subgroup_size);
    size = uint32_t(round_up(size, lanes));
    size = std::min(size, std::min<uint32_t>(dev.max_workgroup_invocations, dev.max_workgroup_size[0]));
    if (size % lanes) size -= size % lanes;
    if (size == 0) throw UnsupportedError(dev.name + ": no work-group size is a multiple of its subgroup size");
    return size;
}

} // namespace

std::vector<uint32_t> tuned_workgroup_sizes(const DeviceInfo& dev) {
    const ScanTuning t = scan_tuning(dev);
    std::vector<uint32_t> sizes;
    for (uint32_t size : {t.invocations, t.wide_tile_integer_invocations, t.wide_tile_float_invocations,
                          t.f64_chunk_invocations}) {
        if (!size) continue;
        size = rounded_size(dev, size);
        if (std::find(sizes.begin(), sizes.end(), size) == sizes.end()) sizes.push_back(size);
    }
    return sizes;
}

ScanTuning scaled_to_device(const DeviceInfo& device) {
    ScanTuning t = device.type == DeviceType::cpu ? cpu : gpu;
    uint32_t units = device.compute_units, reference = t.reference_compute_units;
    if (!units || !reference || units == reference) return t;
    // Counts from which a shape pays, and the work-groups that fill the GPU, grow with its size: a
    // GPU of a quarter of the multiprocessors fills with a quarter of the tiles.
    auto scaled = [&](uint64_t v, uint64_t least) { return v ? std::max(least, v * units / reference) : 0; };
    t.wide_tile_min_items = scaled(t.wide_tile_min_items, 1);
    t.chunked_min_items = scaled(t.chunked_min_items, 1);
    t.f64_narrow_chunks_min_items = scaled(t.f64_narrow_chunks_min_items, 1);
    t.prefetch_min_bytes = scaled(t.prefetch_min_bytes, 1);
    t.scan_chunk_cap = uint32_t(std::min<uint64_t>(scaled(t.scan_chunk_cap, 8), 65535));
    t.reduce_chunk_cap = uint32_t(std::min<uint64_t>(scaled(t.reduce_chunk_cap, 8), 65535));
    return t;
}

ScanTuning scan_tuning(const DeviceInfo& device) {
    ScanTuning t = scaled_to_device(device);
    apply_tuning_text(t, device);
    return t;
}

ScanTile choose_tile(const ScanTuning& t, const DeviceInfo& dev, Type type, const ScanOptions& o, uint64_t count,
                     TileUse use) {
    bool number64 = size_of(type) == 8 && type != Type::u32x2;
    bool chunk_by_default = number64 && t.chunked_min_items && count >= t.chunked_min_items;
    uint32_t chunk_tiles = o.reproducible || use == TileUse::reduce ? 1u
                           : o.tuning.look_back_chunk_tiles                ? o.tuning.look_back_chunk_tiles
                           : chunk_by_default                       ? t.chunk_tiles
                                                                    : 1u;
    // A wide tile is a whole shape: not where the caller chose a part of it.
    uint32_t wide_size = type == Type::f32 ? t.wide_tile_float_invocations : t.wide_tile_integer_invocations;
    bool wide_tile = size_of(type) == 4 && t.wide_tile_min_items && wide_size && t.wide_tile_items && !o.reproducible &&
                     count >= t.wide_tile_min_items && !o.tuning.workgroup_size && !o.tuning.items_per_invocation &&
                     chunk_tiles == 1;
    bool narrow_chunks = chunk_tiles > 1 && !o.tuning.look_back_chunk_tiles && type == Type::f64 &&
                         t.f64_narrow_chunks_min_items && t.f64_chunk_invocations &&
                         count >= t.f64_narrow_chunks_min_items;
    uint32_t size = o.tuning.workgroup_size ? o.tuning.workgroup_size
                    : wide_tile      ? wide_size
                    : narrow_chunks  ? t.f64_chunk_invocations
                                     : t.invocations;
    size = rounded_size(dev, size);
    uint32_t width = vector_width(type);
    // 32- and 64-bit integer reduces hold integer_reduce_item_bytes an invocation (u32: 32 items, u64: 16).
    bool wide_reduce = use == TileUse::reduce && is_integer(type) && size_of(type) >= 4 && t.integer_reduce_item_bytes;
    uint32_t items = o.tuning.items_per_invocation ? o.tuning.items_per_invocation
                     : wide_tile            ? t.wide_tile_items
                     : t.items              ? t.items
                     : wide_reduce          ? uint32_t(t.integer_reduce_item_bytes / size_of(type))
                                            : uint32_t(std::clamp<size_t>(t.item_bytes / size_of(type), 1, 16));
    items = std::min<uint32_t>(VKC_DEVICE_MAX_ITEMS_PER_INVOCATION, uint32_t(round_up(std::max(items, 1u), width)));
    bool fits = uint64_t(size) * items * size_of(type) <= VKC_STAGE_BYTES && width > 1;
    // The reproducible passes and chunks always stage (they read a tile twice / hold a chunk).
    bool staged_by_default = t.always_staged || o.reproducible || chunk_tiles > 1 ||
                             (number64 && use == TileUse::look_back_scan && t.stage_single_tiles);
    bool staged = (o.tuning.staged < 0 ? staged_by_default : o.tuning.staged > 0) && fits;
    // A stage the device's shared memory cannot hold is left out, unless the caller asked for it.
    if (staged && o.tuning.staged < 0 && dev.max_shared_memory &&
        device_scan_shared_bytes(type, size, uint64_t(size) * items) > dev.max_shared_memory) {
        staged = false;
    }
    return {size, items, staged, chunk_tiles};
}

} // namespace vkc
