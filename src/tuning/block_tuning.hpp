// Tuning of the block scan: whether a tile moves through shared memory (staged) or straight into
// registers, and how many unstaged tiles an invocation loads together (the kernel's batch). The
// measurements behind the values are in docs/decisions.md, "Block scan".
#pragma once

#include <cstdint>

#include "vkc/types.hpp"

namespace vkc {

struct BlockTuning {
    uint32_t one_item_batch;      // tiles of one item an invocation loaded together
    uint32_t multi_item_batch;    // the same for several items, unstaged or staged one item a lane
    uint32_t staged_vector_batch; // staged tiles of whole vectors
};

struct BlockMovement {
    bool staged;
    uint32_t batch; // 1 to 8
};

// How a block scan of this shape moves its tiles (VKC_BLOCK_STAGED and VKC_BLOCK_BATCH override it).
BlockMovement choose_block_movement(Type type, uint32_t invocations, uint32_t items_per_invocation,
                                    uint32_t tiles_per_group);

} // namespace vkc
