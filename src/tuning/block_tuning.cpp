#include "tuning/block_tuning.hpp"

#include <algorithm>

#include "environment.hpp"
#include "tuning/vector_width.hpp"
#include "vkc/contract.h"

namespace vkc {
namespace {

constexpr BlockTuning tuning{
    .one_item_batch = 8,      // a single item a tile leaves registers free for 8 tiles' loads in flight
    .multi_item_batch = 2,    // two register sets taken in turn: one tile's loads in flight while the
                              //   other is scanned
    .staged_vector_batch = 1, // the stage already coalesces; the two-set loop would only cost registers
};

} // namespace

BlockMovement choose_block_movement(Type type, uint32_t invocations, uint32_t items, uint32_t tiles_per_group) {
    uint64_t tile_bytes = uint64_t(invocations) * items * size_of(type);
    // One item an invocation is striped and blocked at once: no stage. Two 32-bit items are one
    // 8-byte vector, loaded and stored as one and already coalesced. Otherwise the stage coalesces
    // the loads and stores, where the tile fits it.
    bool paired = items == 2 && size_of(type) == 4;
    bool staged = items > 1 && !paired && tile_bytes <= VKC_STAGE_BYTES;
    if (auto asked = environment::block_staged()) staged = staged && *asked;
    // Staged tiles moved one item a lane (item counts that are not whole vectors) keep two register
    // sets; a batch deeper than the tiles a work-group scans would only hold registers.
    bool staged_scalars = staged && items % vector_width(type) != 0;
    uint32_t batch = staged && !staged_scalars
                         ? tuning.staged_vector_batch
                         : std::min(tiles_per_group, items == 1 ? tuning.one_item_batch : tuning.multi_item_batch);
    if (auto asked = environment::block_batch()) batch = *asked;
    return {staged, batch};
}

} // namespace vkc
