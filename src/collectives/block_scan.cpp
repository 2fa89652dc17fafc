// The block scan (CUB's BlockScan): many items an invocation, aggregate, seed and running prefix.
#include <algorithm>
#include <string>

#include "device/device_state.hpp"
#include "device/memory.hpp"
#include "submit/context_state.hpp"
#include "tuning/block_tuning.hpp"
#include "vkc/contract.h"

namespace vkc {

void Context::run(const BlockRequest& r, const Buffer& input, Buffer& output, Buffer* record) {
    const DeviceState& dev = *device_.state_;
    const WorkgroupShape& s = r.shape;
    dev.check_shape(s);
    if (!is_block(r.collective)) throw Error(std::string(name(r.collective)) + " takes a WorkgroupRequest");
    dev.memory.check_buffer(input, "the input");
    dev.memory.check_buffer(output, "the output");
    if (record) dev.memory.check_buffer(*record, "the record");
    if (r.items_per_invocation < 1 || r.items_per_invocation > 16) {
        throw Error("items_per_invocation " + std::to_string(r.items_per_invocation) + " is outside 1 to 16");
    }
    if (r.tiles_per_group < 1) throw Error("tiles_per_group is 0; each work-group needs at least one tile");
    const ModuleInfo& m = dev.select_module(r.collective, r.type, r.op, r.path);
    uint64_t bytes = dev.check_module_use(m, s, r.count, input, output);
    uint64_t tile = s.size() * r.items_per_invocation;
    uint64_t tiles = (r.count + tile - 1) / tile;
    uint64_t groups = (tiles + r.tiles_per_group - 1) / r.tiles_per_group;
    uint64_t record_bytes = 2 * groups * r.tiles_per_group * s.size() * size_of(m.type);
    if (record) check_range(*record, record_bytes, 0, "record");
    if ((groups * r.tiles_per_group + 1) * tile > uint64_t(UINT32_MAX)) {
        throw Error("the tiles of this request span more than 2^32 items, past the block modules' 32-bit indices");
    }
    BlockParams params{};
    params.count = uint32_t(r.count);
    params.tiles_per_group = r.tiles_per_group;
    if (r.prefix_callback && !r.running) {
        throw Error("BlockRequest.prefix_callback carries a running prefix: it needs running = true");
    }
    params.flags = (r.seeded ? VKC_BLOCK_FLAG_SEEDED : 0u) | (r.running ? VKC_BLOCK_FLAG_RUNNING : 0u) |
                   (record ? VKC_BLOCK_FLAG_RECORD : 0u) | (r.prefix_callback ? VKC_BLOCK_FLAG_CALLBACK : 0u);
    params.seed[0] = uint32_t(r.seed_bits);
    params.seed[1] = uint32_t(r.seed_bits >> 32);
    params.seed[2] = 0x9e3779b9u; // junk for every invocation but the first: a running prefix must ignore it
    params.seed[3] = 0x7f4a7c15u;
    uint32_t grid_x, grid_y;
    dev.grid_for(groups, grid_x, grid_y);
    bool packed = m.path == Path::subgroup && subgroups_packed(s);
    BlockMovement move = choose_block_movement(m.type, uint32_t(s.size()), r.items_per_invocation, r.tiles_per_group);
    state_->dispatch({&m, s, packed, r.items_per_invocation, move.staged, &params, &input, &output, record, bytes,
                      record_bytes, grid_x, grid_y, params.flags | move.batch << VKC_BLOCK_BATCH_SHIFT});
}

} // namespace vkc
