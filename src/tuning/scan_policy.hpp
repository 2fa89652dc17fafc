// The device-wide scan's and reduce's policy: everything a plan decides beyond what it computes,
// resolved in one place from the device's tuning row (scan_tuning.hpp), the caller's overrides
// (ScanTuningOverrides), the test hooks (ScanTestHooks) and the device's limits. Planning
// validates, asks for the policy, and records (src/device_scan/plan.cpp).
#pragma once

#include <cstdint>

#include "vkc/device.hpp"

namespace vkc {

struct ScanPolicy {
    ScanTile tile;               // the tile every dispatch of the plan scans
    uint32_t kernel_path = 0;    // VKC_DEVICE_PATH_*: look-back, chunked look-back or chunk passes
    // Items of the type's look-back tile at count 0: the status room a plan keeps per tile, so that
    // the scratch a count needs never falls as the count grows (layout.cpp).
    uint64_t status_tile_items = 0;
    uint64_t chunk_cap = 0;          // chunks (a work-group each) of a reduce or chunk-pass scan, at most
    uint64_t segment_items_cap = 0;  // the most items a dispatch takes (0: as the binding limit allows)
    uint32_t spin_limit = 0;         // polls before a look-back computes a predecessor itself (1 to 65535)
    uint32_t look_back_window = 0;   // predecessors one look-back round reads
    uint64_t prefetch_min_bytes = 0; // look-back dispatches of this much input or more prefetch (UINT64_MAX: never)
    bool force_fallback = false;     // ScanTestHooks::force_fallback
};

// The policy of a scan (reduce false) or reduce of `count` items of `type` on this device.
ScanPolicy resolve_scan_policy(const DeviceInfo& device, Type type, const ScanOptions& options, uint64_t count,
                               bool reduce);

} // namespace vkc
