// Shared memory of a device_scan pipeline, from its specialization: what the validation layer and
// the driver count against maxComputeSharedMemorySize. Kept in step with the `shared` declarations
// of shaders/kernels/device_scan.comp and the headers it includes (device_scan/*.glsl beside it,
// vkc/tile_io.glsl's stage, the work-group scan's scratch); a mismatch near the limit shows as a
// validation error in the tests.
#pragma once

#include <cstdint>

#include "vkc/types.hpp"

namespace vkc {

// invocations: the work-group size (the scratch capacity the runtime specialises); stage_items: items
// the stage holds (1 where tiles are not staged).
inline uint64_t device_scan_shared_bytes(Type type, uint32_t invocations, uint64_t stage_items) {
    uint64_t item = size_of(type);
    uint64_t pad_every = item == 8 ? 16 : 32; // VKC_TILE_PAD_EVERY, vkc/tile_io.glsl
    uint64_t stage = stage_items + stage_items / pad_every + 1;
    uint64_t items = uint64_t(invocations) + 32 + 1 // work-group scan scratch (+ raking lanes)
                     + 1                            // block scan's prefix slot
                     + invocations                  // subgroup_totals
                     + 3                            // recheck_value, early look-back acc, chunk_prefix_read
                     + stage;
    uint64_t words = 2ull * invocations           // window_flags
                     + 3 + 1 + 4 + 3 + 1 + 3 + 2; // window_cut, recheck_flag, LookBackStart's rest,
                                                  // ticket/parity/dirty, finished_last,
                                                  // totals_missing, next_piece
    return items * item + 4 * words;
}

} // namespace vkc
