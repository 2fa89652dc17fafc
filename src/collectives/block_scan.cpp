// The block scan (CUB's BlockScan): many items an invocation, aggregate, seed and running prefix.
#include <algorithm>
#include <string>

#include "context_impl.hpp"
#include "environment.hpp"
#include "vkc/contract.h"

namespace vkc {

void Context::run(const BlockRequest& r, const Buffer& input, Buffer& output, Buffer* record) {
    const WorkgroupShape& s = r.shape;
    impl()->check_shape(s);
    if (!is_block(r.collective)) throw Error(std::string(name(r.collective)) + " takes a WorkgroupRequest");
    impl()->check_buffer(input, "the input");
    impl()->check_buffer(output, "the output");
    if (record) impl()->check_buffer(*record, "the record");
    if (r.items_per_invocation < 1 || r.items_per_invocation > 16) {
        throw Error("items_per_invocation " + std::to_string(r.items_per_invocation) + " is outside 1 to 16");
    }
    if (r.tiles_per_group < 1) throw Error("tiles_per_group is 0; each work-group needs at least one tile");
    const ModuleInfo& m = select_module(r.collective, r.type, r.op, r.algorithm);
    uint64_t bytes = impl()->check_module_use(m, s, r.count, input, output);
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
    impl()->grid_for(groups, grid_x, grid_y);
    bool packed = m.path == Path::subgroup && subgroups_packed(s);
    // One item per invocation is striped and blocked at once: no stage needed.
    // Tiles go through shared memory for coalesced access, except where an invocation's items are one
    // 8-byte vector (two 32-bit items: the kernel loads and stores them as one, already coalesced).
    bool paired = r.items_per_invocation == 2 && size_of(m.type) == 4;
    bool staged = r.items_per_invocation > 1 && !paired && tile * size_of(m.type) <= block_stage_bytes;
    // For kernel experiments: VKC_BLOCK_STAGED=0 loads tiles straight into registers.
    if (auto asked = environment::block_staged()) staged = staged && *asked;
    // Unstaged tiles are loaded several at a time (the kernel's batch, compiled in beside the flags):
    // one item an invocation up to 8 tiles, two items 2. Staged tiles moved one item a lane (item
    // counts that are not whole vectors) take a batch of 2: two register sets taken in turn, two
    // tiles' loads in flight. Staged tiles of whole vectors take 1, so that their pipelines do not
    // compile the two-set loop. A batch deeper than the tiles a work-group scans would only hold
    // registers (on the H100 it cost one tile a group 0.56 -> 0.48 of a copy).
    bool staged_scalars = staged && r.items_per_invocation % vector_width(m.type) != 0;
    uint32_t batch = staged && !staged_scalars ? 1u
                                               : std::min(r.tiles_per_group, r.items_per_invocation == 1 ? 8u : 2u);
    // VKC_BLOCK_BATCH=N (1 to 8) overrides it, for kernel experiments (for staged tiles of one item a
    // lane, 1 turns the two register sets off).
    if (auto asked = environment::block_batch()) batch = *asked;
    impl()->dispatch({&m, s, packed, r.items_per_invocation, staged, &params, &input, &output, record, bytes,
                      record_bytes, grid_x, grid_y, params.flags | batch << VKC_BLOCK_BATCH_SHIFT});
}

} // namespace vkc
