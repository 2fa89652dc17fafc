// vkcollectives device scan: the decoupled look-back, on vkc/look_back.glsl.
//
// Instantiates the public look-back on the scratch's chunk statuses (device_scan/scratch.glsl), the
// carry between dispatches and reduce_chunk_input for the fallback, and adds the device scan's own
// parts: the prefetch while looking back, the statistics, and chunk_prefix (post the aggregate, look
// back, post the inclusive prefix or, for the last chunk, the carry out). Private to
// shaders/kernels/device_scan.comp (MODE_SCAN), included after device_scan/chunk_reduce.glsl.
#ifndef DEVICE_SCAN_LOOK_BACK_GLSL
#define DEVICE_SCAN_LOOK_BACK_GLSL

// With FLAG_STATS: a look-back's rounds, the chunks it walked back over and its fallbacks, summed.
void count_look_back(uint rounds, uint walked, uint fallbacks) {
    if (has_flag(FLAG_STATS) && gl_LocalInvocationIndex == 0u) {
        atomicAdd(state[STATE_STAT_ROUNDS], rounds);
        atomicAdd(state[STATE_STAT_WALKED], walked);
        atomicAdd(state[STATE_STAT_FALLBACKS], fallbacks);
    }
}

// Prefetch while looking back (FLAG_PREFETCH): a work-group in its look-back holds its chunk's registers
// and has no load in flight. Each round its invocations load one word of every 32 bytes (a sector) of
// a chunk just past the frontier (the tickets taken so far), a work-group's width of sectors a round
// through that chunk, so that DRAM fills L2 with input a chunk about to start will read. A round's load
// is folded into prefetch_sink in the next round, so that no round waits for it, and the sink is read
// (in a test that never passes) once the look-back is over. Chunks that read the same frontier take
// different chunks past it: the frontier plus their own index modulo PREFETCH_SPREAD. The target follows
// the frontier, not a fixed distance ahead: the best distance depends on the L2's size, which Vulkan
// does not report.
// Compiled only where it was measured to gain (docs/decisions.md): the 64-bit types' chunked path
// (their single tiles are for small scans). The 32-bit tiles leave it out: it adds registers to the
// raked tile, and once chunk statuses had slots of their own (STATUS_SLOT) f32 gained nothing from it.
const bool LOOK_BACK_PREFETCH = ITEM_BYTES == 8 && compiled_path != PATH_LOOK_BACK;
const uint PREFETCH_SPREAD = 64u;
uint prefetch_sink = 0u;
uint prefetch_first, prefetch_pending; // the prefetched chunk's first item (the count: none); the load in flight
bool prefetching() { return LOOK_BACK_PREFETCH && has_flag(FLAG_PREFETCH); }
void prefetch_begin(uint chunk) {
    prefetch_first = item_count();
    prefetch_pending = 0u;
    if (prefetching()) {
        // (the count wraps to 0 once the last ticket is taken: then no chunk is left to start)
        uint taken = atomicLoad(state[STATE_TICKET], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed) &
                     TICKET_COUNT;
        uint target = taken + chunk % PREFETCH_SPREAD;
        if (taken > chunk && target < chunk_count()) {
            prefetch_first = first_tile_of(target) * tile_items();
        }
    }
}
// From the second round on: in the first the address would wait for the ticket's read, and the status
// reads behind it, which small scans feel.
void prefetch_round(uint round, uint first_round) {
    const uint sector_items = 32u / ITEM_BYTES;
    prefetch_sink ^= prefetch_pending;
    uint sectors_before = (round - first_round - 1u) * VKC_WORKGROUP_SIZE; // of the chunk, by earlier rounds
    uint at = prefetch_first + (sectors_before + gl_LocalInvocationIndex) * sector_items;
    bool in_chunk = round > first_round && sectors_before * sector_items < tiles_per_chunk() * tile_items();
    prefetch_pending = prefetching() && in_chunk && at < item_count() ? to_bits(items_in[at]).x : 0u;
}

#define VKC_TYPE ITEM_TYPE
#define VKC_OP ITEM_OP
#define VKC_CUSTOM_COMBINE(a, b) ITEM_COMBINE(a, b)
#define VKC_CUSTOM_IDENTITY ITEM_IDENTITY
#define VKC_LOOK_BACK_READ(chunk, after, flag, value) read_status(chunk, after, flag, value)
#define VKC_LOOK_BACK_POST(chunk, flag, value) post(chunk, flag, value)
#define VKC_LOOK_BACK_FALLBACK(chunk) reduce_chunk_input(chunk)
#define VKC_LOOK_BACK_CARRY_IN carry_in()
#define VKC_LOOK_BACK_CARRY_IN_PRESENT carry_in_present()
#define VKC_LOOK_BACK_BITS(v) to_bits(v).x
#define VKC_LOOK_BACK_CAPACITY scratch_capacity
#define VKC_LOOK_BACK_BEGIN(chunk) prefetch_begin(chunk)
#define VKC_LOOK_BACK_ROUND(round, first_round) prefetch_round(round, first_round)
#define VKC_LOOK_BACK_COUNT(rounds, walked, fallbacks) count_look_back(rounds, walked, fallbacks)
#include "vkc/look_back.glsl"
#define LOOK_BACK(name) VKC_PASTE(VKC_PASTE(vkc_look_back_, name), VKC_PASTE(VKC_PASTE(ITEM_OP, _), ITEM_TYPE))
#define LOOK_BACK_FN VKC_PASTE(VKC_PASTE(vkc_look_back_, ITEM_OP), VKC_PASTE(_, ITEM_TYPE))
#define LookBackStart VKC_PASTE(VKC_PASTE(VkcLookBackStart_, ITEM_OP), VKC_PASTE(_, ITEM_TYPE))

// The look-back's settings, from the push constants: bits 16-31 of spin_limit the window, 0-15 the polls.
VkcLookBackConfig look_back_config() {
    return VkcLookBackConfig(params.spin_limit >> 16u, params.spin_limit & 0xffffu, has_flag(FLAG_FORCE_FALLBACK),
                             has_flag(FLAG_IN_PLACE));
}
LookBackStart look_back_begin(uint chunk) { return LOOK_BACK(begin_)(chunk); }
void look_back_first_round(uint chunk, out LookBackStart start) { LOOK_BACK(first_round_)(chunk, look_back_config(), start); }
void reset_look_back() { LOOK_BACK(reset_)(); }

// The chunk's aggregate, for its successors' look-backs. Chunk 0 posts its inclusive prefix at once,
// and the last chunk posts nothing: no successor reads it (and a lone chunk leaves the state untouched).
void post_aggregate(uint chunk, ITEM_TYPE aggregate) {
    bool last = chunk == chunk_count() - 1u;
    if (chunk > 0u && !last && gl_LocalInvocationIndex == 0u) {
        post(chunk, STATUS_AGGREGATE, aggregate);
    }
}

// Post the aggregate, look back, post the inclusive prefix; returns the chunk's exclusive prefix in
// every invocation, with `seeded` false where there is none (chunk 0 without a carry in). Uniform.
// `start`: where the look-back starts (look_back_begin, or look_back_first_round's result, which may
// have found the prefix already); `aggregate_posted`: the caller has posted it, or had no need to.
// (vkc_look_back_prefix without the carry out, the prefetch sink and a start of the caller's.)
ITEM_TYPE chunk_prefix(uint chunk, ITEM_TYPE aggregate, LookBackStart start, bool aggregate_posted,
                       out bool seeded) {
    bool last = chunk == chunk_count() - 1u;
    seeded = chunk > 0u || carry_in_present();
    if (!aggregate_posted) {
        post_aggregate(chunk, aggregate);
    }
    ITEM_TYPE exclusive = chunk == 0u    ? carry_in()
                          : start.found ? start.acc
                                        : LOOK_BACK_FN(chunk, start, look_back_config());
    if (LOOK_BACK_PREFETCH && params.zero != 0u && prefetch_sink == params.zero) { // never (zero is 0): keeps the prefetches
        state[STATE_PREFETCH_SINK] = prefetch_sink;
    }
    if (gl_LocalInvocationIndex == 0u) {
        ITEM_TYPE inclusive = seeded ? ITEM_COMBINE(exclusive, aggregate) : aggregate;
        if (last) {
            write_pair(carry_out_at(), inclusive);
        } else {
            post(chunk, STATUS_PREFIX, inclusive);
        }
    }
    if (has_flag(FLAG_IN_PLACE)) {
        // The chunk's posts (by invocation 0) happen before any invocation overwrites its input, so
        // a look-back that read overwritten items finds the post when it reads the status again.
        controlBarrier(gl_ScopeWorkgroup, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
    }
    return exclusive;
}

#endif
