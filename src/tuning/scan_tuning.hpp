// Tuning of the device-wide scan and reduce: the default tile shapes and policies, as one table
// row per device class. Each field says why in one line; the measurements that decided the values
// are in docs/decisions.md, "Device-wide scan" and "Reproducibility and reduce".
#pragma once

#include <cstdint>
#include <vector>

#include "vkc/context.hpp"

namespace vkc {

struct ScanTuning {
    const char* device_class;
    // Multiprocessors of the GPUs the row was measured on. The counts marked "scales" are for that
    // many; on a device that reports another count they scale with it (DeviceInfo::compute_units).
    uint32_t reference_compute_units;
    // ---- every scan and reduce ----
    uint32_t invocations; // work-group size
    uint32_t items;       // items an invocation holds; 0: item_bytes of them (1 to 16)
    uint32_t item_bytes;
    bool always_staged; // tiles always go through shared memory
    // ---- look-back scans of 32-bit items ----
    uint64_t wide_tile_min_items; // from this count up they take wide tiles (0: never; scales)
    uint32_t wide_tile_items;
    uint32_t wide_tile_integer_invocations;
    uint32_t wide_tile_float_invocations;
    // ---- look-back scans of 64-bit numbers (u64, i64, f64) ----
    bool stage_single_tiles;              // single (unchunked) tiles go through shared memory
    uint64_t chunked_min_items;           // from this count up they post once per chunk of tiles (0: never; scales)
    uint32_t chunk_tiles;                 // tiles of such a chunk, all held in registers through one look-back
    uint64_t f64_narrow_chunks_min_items; // f64's chunks take f64_chunk_invocations from here up (scales)
    uint32_t f64_chunk_invocations;
    uint64_t prefetch_min_bytes; // a chunked look-back prefetches input from this many bytes up (scales)
    // ---- reduce and the reproducible scan's chunk passes ----
    uint32_t scan_chunk_cap;   // chunks (one work-group each) a reproducible scan splits into, at most (scales)
    uint32_t reduce_chunk_cap; // the same for reduce (scales)
    uint32_t integer_reduce_item_bytes; // a 32- or 64-bit integer reduce's bytes an invocation; 0: item_bytes
};

// The row in effect on this device: its class's row; on a GPU that reports its multiprocessors, what
// fills the GPU scaled from the reference count to the device's (scaled_to_device); then the tuning
// file's section for the device (tuning_file.hpp).
ScanTuning scan_tuning(const DeviceInfo& device);
// The class's row, scaled to the device's multiprocessors; no tuning file.
ScanTuning scaled_to_device(const DeviceInfo& device);
// The work-group sizes the row may give a tile on this device (when no override asks otherwise),
// as choose_tile rounds them: the sizes the subgroup-layout probe covers beyond the powers of 2.
std::vector<uint32_t> tuned_workgroup_sizes(const DeviceInfo& device);

enum class TileUse { look_back_scan, reduce };
// The tile for a scan of `count` items (0: any count), or for a reduce (which takes no look-back):
// the row's defaults (`row`: scan_tuning(device), looked up once a plan), and whatever ScanOptions
// asks for instead.
ScanTile choose_tile(const ScanTuning& row, const DeviceInfo& device, Type type, const ScanOptions& options,
                     uint64_t count, TileUse use);

} // namespace vkc
