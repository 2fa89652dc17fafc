// The device-wide scan's policy (scan_policy.hpp): the tuning row, the caller's overrides, the test
// hooks and the device's limits, resolved once per plan or scratch-size query.
#include "tuning/scan_policy.hpp"

#include <algorithm>
#include <limits>

#include "environment.hpp"
#include "tuning/scan_tuning.hpp"
#include "vkc/contract.h"

namespace vkc {

namespace {
// A look-back waits this many rounds for a predecessor before it reduces the predecessor's input itself.
constexpr uint32_t default_spin_limit = 256;
} // namespace

ScanPolicy resolve_scan_policy(const DeviceInfo& dev, Type type, const ScanOptions& o, uint64_t count, bool reduce) {
    const ScanTuning row = scan_tuning(dev);
    const ScanTuningOverrides& t = o.tuning;
    ScanPolicy p;
    // Reduce takes no look-back, so its tile ignores the look-back's chunks and the count.
    p.tile = reduce ? choose_tile(row, dev, type, o, 0, TileUse::reduce)
                    : choose_tile(row, dev, type, o, count, TileUse::look_back_scan);
    p.kernel_path = reduce || o.reproducible            ? VKC_DEVICE_PATH_CHUNK_PASSES
                    : p.tile.look_back_chunk_tiles > 1 ? VKC_DEVICE_PATH_LOOK_BACK_CHUNKED
                                                       : VKC_DEVICE_PATH_LOOK_BACK;
    p.status_tile_items = reduce ? p.tile.items() : choose_tile(row, dev, type, o, 0, TileUse::look_back_scan).items();
    p.chunk_cap = t.chunks ? t.chunks : reduce ? row.reduce_chunk_cap : row.scan_chunk_cap;
    p.segment_items_cap = o.test.segment_items;
    p.spin_limit = std::min<uint32_t>(t.spin_limit ? t.spin_limit : default_spin_limit, 0xffff);
    p.look_back_window = environment::lookback_window().value_or(std::min<uint32_t>(p.tile.workgroup_size, 32));
    p.prefetch_min_bytes = t.look_back_prefetch < 0    ? row.prefetch_min_bytes
                           : t.look_back_prefetch > 0 ? 0
                                                      : std::numeric_limits<uint64_t>::max();
    p.force_fallback = o.test.force_fallback;
    return p;
}

} // namespace vkc
