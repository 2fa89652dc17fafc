// The device-wide scan's scratch and segments: how much scratch a count needs, how a count splits
// into dispatches, and the tile each takes.
#include <algorithm>
#include <string>

#include "device/device_state.hpp"
#include "device_scan/internal.hpp"
#include "device_scan/shared_memory.hpp"

namespace vkc {

Layout make_layout(const DeviceInfo& dev, const ScanPolicy& policy, Type type, uint64_t count) {
    Layout l;
    const ScanTile& tile = policy.tile;
    l.tile = tile;
    uint64_t bytes = size_of(type);
    // Segments start at multiples of 256 bytes (the largest minStorageBufferOffsetAlignment) and of
    // the tile, hold at most 2^31 items (32-bit indices with room for a tile) and fit one binding.
    uint64_t step = tile.items();
    while ((step * bytes) % 256) step *= 2;
    uint64_t most = std::min<uint64_t>(dev.max_storage_buffer_range / bytes, 1ull << 31);
    if (policy.segment_items_cap) most = std::min(most, policy.segment_items_cap);
    l.segment_items = std::max(step, most / step * step);
    l.segments = ceil_div(count, l.segment_items);
    l.chunk_cap = policy.chunk_cap;
    return l;
}

// The words both status arrays take for this many chunks.
uint64_t status_array_words(uint64_t chunks) { return 2 * round_up(chunks * status_slot_words, status_block); }

// `room_tile_items`: the items of the type's tile at count 0, the fewest a look-back posts for at any
// count (a tile; f64's larger counts post for chunks of four smaller tiles, 4096 items against 2048).
uint64_t state_words(Type type, const Layout& l, uint64_t count, bool look_back, uint64_t room_tile_items) {
    uint64_t first = std::min(count, l.segment_items); // the largest segment
    uint64_t tiles = l.tiles_of(first);
    // Status room for every tile of the smallest shape, even where the count's tiles are larger or a
    // look-back posts once a chunk: so the need never falls as the count grows past the sizes that
    // widen the tile or turn chunks on (a caller sizes scratch for its largest count, and a plan with
    // an indirect count for its bound). Chunk totals: room for the most chunks of any smaller count.
    uint64_t body = look_back ? status_array_words(ceil_div(first, room_tile_items))
                              : status_words(type) * l.most_chunks_of(tiles);
    return state_header_words + std::max<uint64_t>(body, 2);
}

// Bytes of count items, or an Error where that overflows 64 bits (no buffer can hold them anyway).
uint64_t items_bytes(uint64_t count, Type type, const char* what) {
    uint64_t size = size_of(type);
    if (count > (uint64_t(1) << 62) / size) {
        throw Error(std::string(what) + ": " + std::to_string(count) + " items of " + std::string(name(type)) +
                    " are more bytes than any buffer holds");
    }
    return count * size;
}

void require_op(const char* what, Type type, Op op) {
    if (!has_op(type, op)) {
        throw Error(std::string(what) + ": " + std::string(name(op)) + " is not defined on " + std::string(name(type)) +
                    " items");
    }
}

ScanTile DeviceState::scan_tile(Type type, const ScanOptions& o, uint64_t count) const {
    return resolve_scan_policy(info, type, o, count, false).tile;
}

void check_tile_fits(const DeviceInfo& dev, Type type, const ScanTile& tile, const char* what) {
    uint64_t stage_items = tile.staged ? uint64_t(tile.workgroup_size) * tile.items_per_invocation : 1;
    uint64_t shared = device_scan_shared_bytes(type, tile.workgroup_size, stage_items);
    if (shared > dev.max_shared_memory) {
        throw Error(std::string(what) + ": a tile of " + std::to_string(tile.workgroup_size) + " invocations x " +
                    std::to_string(tile.items_per_invocation) + " " + std::string(name(type)) + " items" +
                    (tile.staged ? " (staged)" : "") + " needs " + std::to_string(shared) +
                    " bytes of shared memory; the device limit maxComputeSharedMemorySize is " +
                    std::to_string(dev.max_shared_memory) +
                    " (ScanOptions::tuning: workgroup_size, items_per_invocation "
                    "and staged choose the tile)");
    }
}

uint64_t scratch_bytes(const Layout& l, const ScanPolicy& policy, Type type, uint64_t count) {
    bool look_back = policy.kernel_path != VKC_DEVICE_PATH_CHUNK_PASSES;
    return 4 * state_words(type, l, count, look_back, policy.status_tile_items);
}

uint64_t DeviceState::scratch_bytes_for(bool reduce, Type type, uint64_t count, const ScanOptions& o,
                                        const char* what) const {
    items_bytes(count, type, what);
    ScanPolicy policy = resolve_scan_policy(info, type, o, count, reduce);
    check_tile_fits(info, type, policy.tile, what);
    return scratch_bytes(make_layout(info, policy, type, count), policy, type, count);
}

uint64_t DeviceState::scan_scratch_bytes(Type type, uint64_t count, const ScanOptions& o) const {
    return scratch_bytes_for(false, type, count, o, "scan_scratch_bytes");
}

uint64_t DeviceState::reduce_scratch_bytes(Type type, uint64_t count, const ScanOptions& o) const {
    return scratch_bytes_for(true, type, count, o, "reduce_scratch_bytes");
}

} // namespace vkc
