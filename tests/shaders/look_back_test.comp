#version 450
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_memory_scope_semantics : require
// vkc/look_back.glsl instantiated in a kernel of its own (tests/test_glsl_pieces.cpp): a whole
// single-pass inclusive scan of uint items with operator TEST_OP (add or max), a chunk of one tile
// a work-group, chunks taken by ticket, each chunk's status in two words of `state`. Built with
// -DVKC_SUBGROUP_ARITHMETIC=0 and 1.
layout(local_size_x_id = 0) in;
// Whether the device packs the work-group's subgroups in local-index order (the host asks
// vkc::Context::subgroups_packed); where not, the block scan takes its shared-memory algorithm.
layout(constant_id = 1) const bool subgroups_packed = true;
#define VKC_SUBGROUPS_PACKED subgroups_packed
const uint ITEMS = 4u; // items an invocation
// Shared memory for the largest work-group the test runs: Mesa 22 sizes shared arrays before
// specialization, from the work-group size's default (1).
#define VKC_SCRATCH_CAPACITY 128u
#define VKC_LOOK_BACK_CAPACITY 128u

layout(set = 0, binding = 0, std430) readonly buffer Input { uint items_in[]; };
layout(set = 0, binding = 1, std430) writeonly buffer Output { uint items_out[]; };
// Word 0: the ticket; then two words a chunk: flag << 30 | 16 bits of the value each.
layout(set = 0, binding = 2, std430) coherent buffer State { uint state[]; };
layout(push_constant, std430) uniform Params {
    uint count;
    uint window;
    uint spin_limit;
    uint flags; // 1: force the fallback; 2: in place (bindings 0 and 1 are the same memory); 4: post
                // the aggregate from a reduce before the scan, then look back (the two-step form)
} params;

#define VKC_TYPE uint
#define VKC_OP TEST_OP
#define VKC_ITEMS 4
#include "vkc/block_scan.glsl"
#include "vkc/look_back_types.glsl"

uint tile_items() { return gl_WorkGroupSize.x * ITEMS; }
uint chunks() { return (params.count + tile_items() - 1u) / tile_items(); }

void load(uint chunk, out uint items[VKC_ITEMS]) {
    uint first = chunk * tile_items() + gl_LocalInvocationIndex * ITEMS;
    [[unroll]] for (uint i = 0u; i < ITEMS; ++i) {
        items[i] = first + i < params.count ? items_in[first + i] : VKC_PASTE(vkc_identity_, TEST_OP)(0u);
    }
}

// The status layout: both words carry the flag, so a reader that sees one flag in both has its value.
void post_status(uint chunk, uint flag, uint value) {
    atomicStore(state[1u + 2u * chunk], (flag << 30u) | (value & 0xffffu), gl_ScopeDevice, gl_StorageSemanticsBuffer,
                gl_SemanticsRelaxed);
    atomicStore(state[2u + 2u * chunk], (flag << 30u) | (value >> 16u), gl_ScopeDevice, gl_StorageSemanticsBuffer,
                gl_SemanticsRelaxed);
}
void read_status(uint chunk, uint after, out uint flag, out uint value) {
    uint zero = after & (params.flags >> 8u); // flags bit 8 is never set: an address that depends on `after`
    uint low = atomicLoad(state[1u + 2u * chunk + zero], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
    uint high = atomicLoad(state[2u + 2u * chunk + zero], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
    flag = (low >> 30u) == (high >> 30u) ? low >> 30u : VKC_STATUS_NONE;
    value = (low & 0xffffu) | ((high & 0xffffu) << 16u);
}
// The fallback: a chunk's aggregate from its input, by the whole work-group.
uint chunk_total(uint chunk) {
    uint items[VKC_ITEMS];
    load(chunk, items);
    return VKC_PASTE(vkc_block_reduce_, TEST_OP)(items);
}

#define VKC_TYPE uint
#define VKC_OP TEST_OP
#define VKC_LOOK_BACK_READ(chunk, after, flag, value) read_status(chunk, after, flag, value)
#define VKC_LOOK_BACK_POST(chunk, flag, value) post_status(chunk, flag, value)
#define VKC_LOOK_BACK_FALLBACK(chunk) chunk_total(chunk)
#include "vkc/look_back.glsl"

shared uint ticket;

void main() {
    if (gl_LocalInvocationIndex == 0u) {
        ticket = atomicAdd(state[0], 1u);
        VKC_NAME(vkc_look_back_reset_, TEST_OP, uint)();
    }
    barrier();
    uint chunk = ticket;
    uint items[VKC_ITEMS];
    load(chunk, items);
    const bool two_steps = (params.flags & 4u) != 0u;
    if (two_steps) {
        VKC_NAME(vkc_look_back_post_aggregate_, TEST_OP, uint)(chunk, chunks(), VKC_PASTE(vkc_block_reduce_, TEST_OP)(items));
    }
    uint aggregate;
    VKC_PASTE(vkc_block_scan_inclusive_, TEST_OP)(items, aggregate);
    VkcLookBackConfig config = VkcLookBackConfig(params.window, params.spin_limit, (params.flags & 1u) != 0u,
                                                 (params.flags & 2u) != 0u);
    bool seeded;
    uint prefix = two_steps ? VKC_NAME(vkc_look_back_prefix_after_aggregate_, TEST_OP, uint)(chunk, chunks(), aggregate, config, seeded)
                            : VKC_NAME(vkc_look_back_prefix_, TEST_OP, uint)(chunk, chunks(), aggregate, config, seeded);
    uint first = chunk * tile_items() + gl_LocalInvocationIndex * ITEMS;
    [[unroll]] for (uint i = 0u; i < ITEMS; ++i) {
        if (first + i < params.count) {
            items_out[first + i] = seeded ? VKC_PASTE(vkc_combine_, TEST_OP)(prefix, items[i]) : items[i];
        }
    }
}
