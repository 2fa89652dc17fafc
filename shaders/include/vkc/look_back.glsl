// vkcollectives: the decoupled look-back of a single-pass scan (CUB's TilePrefixCallbackOp), with
// the fallback that needs no forward progress between work-groups.
//
// Chunks (a tile, or a run of tiles) are taken in order by the work-groups that scan them (from an
// atomic ticket, not by work-group ID). Each chunk posts its aggregate as soon as it has it, then
// finds its exclusive prefix by reading its predecessors' statuses backwards, folding aggregates
// until it meets an inclusive prefix, then posts its own inclusive prefix (Merrill and Garland,
// 2016). Vulkan promises no forward progress between work-groups, so a look-back never waits
// without bound: after `spin_limit` polls of a predecessor that has posted nothing, it computes that
// chunk's aggregate from its input itself and goes on (the decoupled fallback of Smith, Levien and
// Owens, 2025).
//
// A template, once per (type, op), after vkc/workgroup_scan.glsl or vkc/block_scan.glsl for the same
// pair (which end their template: define VKC_TYPE and VKC_OP, and a custom operator's macros, again);
// it ends the template in turn.
// The caller owns the statuses and the input, and names them with macros:
//   VKC_LOOK_BACK_READ(chunk, after, flag, value)  read a chunk's status into `flag` (one of
//                           VKC_STATUS_NONE, _AGGREGATE, _PREFIX) and `value`; the read must depend
//                           on the uint `after` (the in-place recheck orders it after a computation)
//   VKC_LOOK_BACK_POST(chunk, flag, value)          post a chunk's status (one invocation calls it)
//   VKC_LOOK_BACK_FALLBACK(chunk)                   the chunk's aggregate from its input, computed
//                           by the whole work-group (uniform control flow)
// and optionally
//   VKC_LOOK_BACK_CARRY_IN, VKC_LOOK_BACK_CARRY_IN_PRESENT  a value in front of chunk 0 (a running
//                           total from an earlier dispatch), and whether there is one (default none)
//   VKC_LOOK_BACK_BITS(x)   a uint that depends on x, for VKC_LOOK_BACK_READ's `after` (default uint(x))
//   VKC_LOOK_BACK_CAPACITY  the largest window (default VKC_WORKGROUP_SIZE)
//   VKC_LOOK_BACK_BEGIN(chunk), VKC_LOOK_BACK_ROUND(round, first_round)  called before the rounds and at
//                           the start of each (the device scan prefetches input there)
//   VKC_LOOK_BACK_COUNT(rounds, walked, fallbacks)  statistics of a finished look-back
// A status must be read whole: a reader sees a flag with its value, never a torn pair (the device
// scan's layout, shaders/kernels/device_scan/scratch.glsl, puts the flag in every 32-bit word). The
// flags and VkcLookBackConfig are in vkc/look_back_types.glsl, for a status layout written before
// this include.
//
// For op = add and type = uint it defines
//
//   VkcLookBackConfig(uint window, uint spin_limit, bool force_fallback, bool in_place)
//   void vkc_look_back_reset_add_uint();            // one invocation, before a barrier, before the first look-back
//   VkcLookBackStart_add_uint vkc_look_back_begin_add_uint(uint chunk);
//   void vkc_look_back_first_round_add_uint(uint chunk, VkcLookBackConfig c, out VkcLookBackStart_add_uint start);
//   uint vkc_look_back_add_uint(uint chunk, VkcLookBackStart_add_uint start, VkcLookBackConfig c);
//   // CUB's TilePrefixCallbackOp: post the aggregate, look back, post the inclusive prefix (the
//   // last chunk posts none); returns the chunk's exclusive prefix, `seeded` false for chunk 0
//   // without a carry in (then the prefix is the identity and means nothing).
//   uint vkc_look_back_prefix_add_uint(uint chunk, uint chunks, uint aggregate, VkcLookBackConfig c, out bool seeded);
//   // The same in two steps, for a chunk that knows its aggregate before the rest of its work (a
//   // count before the places, a reduce before the scan): posting it first lets successors' look-backs
//   // fold it sooner. Call post_aggregate as soon as the aggregate is known, then prefix_after_aggregate.
//   void vkc_look_back_post_aggregate_add_uint(uint chunk, uint chunks, uint aggregate);
//   uint vkc_look_back_prefix_after_aggregate_add_uint(uint chunk, uint chunks, uint aggregate, VkcLookBackConfig c, out bool seeded);
//
// All are called by the whole work-group in uniform control flow, and return the same in every
// invocation. `window`: predecessors a round reads (1 .. VKC_WORKGROUP_SIZE); `spin_limit`: polls of
// a silent predecessor before the fallback; `force_fallback`: never trust chunk - 1's status (a test
// setting); `in_place`: a chunk's input is overwritten once it has posted (then the fallback reads
// the status again, and a posted value wins). Example: 4 chunks of uint add with aggregates
// 5 1 4 2, window 2: chunk 3 reads chunks 2 and 1 (aggregates 4, 1), then chunk 0 (prefix 5), and
// returns 10; chunk 0 returns the identity with seeded false. tests/shaders/look_back_test.comp is a
// whole single-pass scan built on it; shaders/kernels/device_scan.comp another.

#include "look_back_types.glsl"

#if !defined(VKC_TYPE) || !defined(VKC_OP)
#error "define VKC_TYPE and VKC_OP (and include vkc/workgroup_scan.glsl for them) before vkc/look_back.glsl"
#endif
#if !defined(VKC_LOOK_BACK_READ) || !defined(VKC_LOOK_BACK_POST) || !defined(VKC_LOOK_BACK_FALLBACK)
#error "define VKC_LOOK_BACK_READ, VKC_LOOK_BACK_POST and VKC_LOOK_BACK_FALLBACK before vkc/look_back.glsl"
#endif
#ifndef VKC_LOOK_BACK_CARRY_IN_PRESENT
#define VKC_LOOK_BACK_CARRY_IN_PRESENT false
#define VKC_LOOK_BACK_CARRY_IN VKC_LB_IDENTITY
#endif
#ifndef VKC_LOOK_BACK_BITS
#define VKC_LOOK_BACK_BITS(x) uint(x)
#endif
#ifndef VKC_LOOK_BACK_CAPACITY
#define VKC_LOOK_BACK_CAPACITY VKC_WORKGROUP_SIZE
#endif
#ifndef VKC_LOOK_BACK_BEGIN
#define VKC_LOOK_BACK_BEGIN(chunk)
#endif
#ifndef VKC_LOOK_BACK_ROUND
#define VKC_LOOK_BACK_ROUND(round, first_round)
#endif
#ifndef VKC_LOOK_BACK_COUNT
#define VKC_LOOK_BACK_COUNT(rounds, walked, fallbacks)
#endif

#define VKC_LB(name) VKC_NAME(VKC_PASTE(vkc_look_back_, name), VKC_OP, VKC_TYPE)
#define VKC_LB_START VKC_NAME(VkcLookBackStart_, VKC_OP, VKC_TYPE)
#define VKC_LB_FN VKC_NAME(vkc_look_back_, VKC_OP, VKC_TYPE)
#ifdef VKC_CUSTOM_COMBINE
#define VKC_LB_COMBINE(a, b) VKC_CUSTOM_COMBINE(a, b)
#define VKC_LB_IDENTITY (VKC_CUSTOM_IDENTITY)
#else
#define VKC_LB_COMBINE VKC_PASTE(vkc_combine_, VKC_OP)
#define VKC_LB_IDENTITY VKC_PASTE(vkc_identity_, VKC_OP)(VKC_TYPE(0))
#endif

// Each round the last invocations read one predecessor's status each (invocation m the one at
// distance size-1-m from the nearest chunk not yet folded, so that invocation order is chunk order),
// the nearest entry that is not an aggregate is found through shared memory, and one work-group
// reduce folds the aggregates in front of it (and it too, if it is an inclusive prefix). A round reads
// a window of chunks; once it meets a silent one, rounds poll that chunk alone until it posts: status
// lines are hot (every chunk in flight reads its predecessors'), and polling a whole window at once
// floods them. The whole work-group folds a round's window: folding it in the last subgroup alone
// saves two barriers a round but made the device scan slower.
// Control flow is uniform across the work-group throughout (every decision comes from shared memory
// after a barrier), so no invocation spins alone and nothing relies on a subgroup staying converged
// in a loop (Vulkan promises that only with VK_KHR_shader_maximal_reconvergence; NVIDIA's driver
// split a subgroup-wide polling loop and folded garbage).
// Window flags, double-buffered by round parity (indexed by distance); the cut holds the distance of
// the nearest entry that is not an aggregate, by shared atomicMin, in three slots in rotation, each
// reset two rounds before it is used again (vkc_look_back_reset resets all three).
shared uint VKC_LB(window_flags_)[2u * VKC_LOOK_BACK_CAPACITY];
shared uint VKC_LB(window_cut_)[3];
shared uint VKC_LB(recheck_flag_);
shared VKC_TYPE VKC_LB(recheck_value_);

void VKC_LB(reset_)() {
    for (uint k = 0u; k < 3u; ++k) {
        VKC_LB(window_cut_)[k] = VKC_WORKGROUP_SIZE;
    }
}

// Where a look-back starts: nothing folded yet, or what the first round folded.
struct VKC_LB_START {
    VKC_TYPE acc; // op over chunks (nearest, chunk), where `have`; the exclusive prefix, where `found`
    bool have;
    bool found;   // the first round met an inclusive prefix: no look-back is left to do
    int nearest;  // the nearest chunk not yet folded in
    uint round;   // the next round (the window flags and cut slots rotate by it)
};
VKC_LB_START VKC_LB(begin_)(uint chunk) { return VKC_LB_START(VKC_LB_IDENTITY, false, false, int(chunk) - 1, 0u); }

// What a look-back reads for the entry `mine` chunks from the start: a chunk's status, or before chunk
// 0 the carry in as an inclusive prefix, and past that nothing (VKC_STATUS_UNREAD).
void VKC_LB(read_entry_)(uint chunk, int mine, bool forced, out uint flag, out VKC_TYPE value) {
    flag = VKC_STATUS_UNREAD;
    value = VKC_LB_IDENTITY;
    if (mine >= 0) {
        VKC_LOOK_BACK_READ(uint(mine), 0u, flag, value);
        flag = forced && mine == int(chunk) - 1 ? VKC_STATUS_NONE : flag;
    } else if (mine == -1) {
        flag = VKC_STATUS_PREFIX;
        value = VKC_LOOK_BACK_CARRY_IN;
    }
}

uint VKC_LB(window_)(VkcLookBackConfig c) { return clamp(c.window, 1u, VKC_WORKGROUP_SIZE); }
uint VKC_LB(distance_)() { return VKC_WORKGROUP_SIZE - 1u - gl_LocalInvocationIndex; }

// The first round alone, for a tile whose own loads are still in flight: one window of predecessors
// read, the aggregates in front of the nearest other entry folded, and an inclusive prefix there
// folded too. start.found: it met one, and start.acc is the exclusive prefix; else `start` is where
// the look-back goes on (polling and the fallback are its).
void VKC_LB(first_round_)(uint chunk, VkcLookBackConfig c, out VKC_LB_START start) {
    const uint window = VKC_LB(window_)(c);
    const uint distance = VKC_LB(distance_)();
    start = VKC_LB(begin_)(chunk);
    start.round = 1u;
    uint flag = VKC_STATUS_UNREAD;
    VKC_TYPE value = VKC_LB_IDENTITY;
    if (distance < window) {
        VKC_LB(read_entry_)(chunk, start.nearest - int(distance), c.force_fallback, flag, value);
        VKC_LB(window_flags_)[distance] = flag; // round 0's half
        if (flag != VKC_STATUS_AGGREGATE) {
            atomicMin(VKC_LB(window_cut_)[0], distance);
        }
    }
    barrier();
    uint cut = min(VKC_LB(window_cut_)[0], window);
    uint cut_flag = cut < window ? VKC_LB(window_flags_)[cut] : VKC_STATUS_UNREAD;
    if (gl_LocalInvocationIndex == 0u) {
        VKC_LB(window_cut_)[2] = VKC_WORKGROUP_SIZE; // as round 0 of the look-back would
    }
    uint folded = cut_flag == VKC_STATUS_PREFIX ? cut + 1u : cut;
    if (folded > 0u) { // uniform
        VKC_TYPE unused;
        VKC_PASTE(vkc_workgroup_scan_core_, VKC_OP)(distance < folded ? value : VKC_LB_IDENTITY, unused, start.acc);
        start.have = true;
        start.nearest -= int(folded);
    }
    start.found = cut_flag == VKC_STATUS_PREFIX;
    if (start.found) {
        VKC_LOOK_BACK_COUNT(1u, chunk - 1u - uint(start.nearest), 0u);
    }
}

// The exclusive prefix of `chunk` (> 0), in every invocation: op over every earlier chunk, and the carry
// in; from `start` (begin, or the first round's result where it found no prefix).
VKC_TYPE VKC_LB_FN(uint chunk, VKC_LB_START start, VkcLookBackConfig c) {
    const uint window = VKC_LB(window_)(c);
    const uint spin_limit = c.spin_limit;
    const uint distance = VKC_LB(distance_)();
    bool have = start.have;
    VKC_TYPE acc = start.acc; // op over chunks (nearest, chunk)
    int nearest = start.nearest; // the nearest chunk not yet folded in
    uint reach = window;         // chunks read this round: the window, or 1 while polling a silent one
    uint polls = 0u, fallbacks = 0u;
    // Every round either folds in at least one chunk or polls (at most spin_limit times for one silent
    // chunk), so this bound is never reached by a correct run; it guarantees the loop ends whatever the
    // device does, and past it the prefix is computed from the input outright.
    const uint max_rounds = (chunk + 1u) * (spin_limit + 2u);
    VKC_LOOK_BACK_BEGIN(chunk);
    for (uint round = start.round; round < max_rounds; ++round) {
        VKC_LOOK_BACK_ROUND(round, start.round);
        uint half_at = (round & 1u) * VKC_WORKGROUP_SIZE;
        uint slot = round % 3u;
        int mine = nearest - int(distance);
        uint flag = VKC_STATUS_UNREAD;
        VKC_TYPE value = VKC_LB_IDENTITY;
        if (distance < reach) {
            VKC_LB(read_entry_)(chunk, mine, c.force_fallback, flag, value);
            VKC_LB(window_flags_)[half_at + distance] = flag;
            if (flag != VKC_STATUS_AGGREGATE) {
                atomicMin(VKC_LB(window_cut_)[slot], distance);
            }
        }
        barrier();
        uint cut = min(VKC_LB(window_cut_)[slot], reach); // == reach: every entry read was an aggregate
        uint cut_flag = cut < reach ? VKC_LB(window_flags_)[half_at + cut] : VKC_STATUS_UNREAD;
        if (gl_LocalInvocationIndex == 0u) {
            VKC_LB(window_cut_)[(round + 2u) % 3u] = VKC_WORKGROUP_SIZE;
        }
        // Entries nearer than the cut are aggregates, and an inclusive prefix at the cut ends the walk:
        // they go in, in chunk order, whatever happens next.
        uint folded = cut_flag == VKC_STATUS_PREFIX ? cut + 1u : cut;
        if (folded > 0u) { // uniform
            VKC_TYPE part, unused;
            VKC_PASTE(vkc_workgroup_scan_core_, VKC_OP)(distance < folded ? value : VKC_LB_IDENTITY, unused, part);
            acc = have ? VKC_LB_COMBINE(part, acc) : part;
            have = true;
            nearest -= int(folded);
            polls = 0u;
        }
        if (cut_flag == VKC_STATUS_PREFIX) {
            VKC_LOOK_BACK_COUNT(round + 1u, chunk - 1u - uint(nearest), fallbacks);
            return acc;
        }
        if (cut_flag == VKC_STATUS_UNREAD) {
            reach = window;
            continue;
        }
        // nearest is now the silent chunk: poll it alone.
        reach = 1u;
        if (polls < spin_limit && !(c.force_fallback && nearest == int(chunk) - 1)) {
            ++polls; // (no back-off between polls, as CUB sleeps: the device scan measured no faster)
            continue;
        }
        // The fallback: compute the silent chunk's total ourselves.
        uint lost = uint(nearest);
        VKC_TYPE computed = VKC_LOOK_BACK_FALLBACK(lost);
        ++fallbacks;
        if (c.in_place) {
            // In place, the chunk may have posted and overwritten its input while we read it. It
            // posts before it stores (vkc_look_back_prefix's device-scope barrier), so if any item
            // read was overwritten, a status read after the items (through `computed`, which every
            // item feeds) shows the post, and the posted value wins.
            if (gl_LocalInvocationIndex == 0u) {
                VKC_LOOK_BACK_READ(lost, VKC_LOOK_BACK_BITS(computed), VKC_LB(recheck_flag_), VKC_LB(recheck_value_));
            }
            barrier();
            uint again = VKC_LB(recheck_flag_);
            VKC_TYPE posted = VKC_LB(recheck_value_);
            barrier(); // read before a later round writes them
            if (again == VKC_STATUS_PREFIX) {
                VKC_LOOK_BACK_COUNT(round + 1u, chunk - lost, fallbacks);
                return have ? VKC_LB_COMBINE(posted, acc) : posted;
            }
            if (again == VKC_STATUS_AGGREGATE) {
                computed = posted;
            }
        }
        acc = have ? VKC_LB_COMBINE(computed, acc) : computed;
        have = true;
        nearest = int(lost) - 1;
        reach = window;
        polls = 0u;
    }
    // Not reached in a correct run (see max_rounds): op over the input before this chunk, and the carry.
    VKC_TYPE all = VKC_LOOK_BACK_CARRY_IN;
    bool started = VKC_LOOK_BACK_CARRY_IN_PRESENT;
    for (uint t = 0u; t < chunk; ++t) {
        VKC_TYPE part = VKC_LOOK_BACK_FALLBACK(t);
        all = started ? VKC_LB_COMBINE(all, part) : part;
        started = true;
    }
    return all;
}

// CUB's TilePrefixCallbackOp for a chunk of `chunks`: chunk 0 posts its inclusive prefix at once;
// the others post their aggregate, look back and post their inclusive prefix; the last posts
// nothing (no successor reads it).
void VKC_LB(post_aggregate_)(uint chunk, uint chunks, VKC_TYPE aggregate) {
    if (chunk > 0u && chunk < chunks - 1u && gl_LocalInvocationIndex == 0u) {
        VKC_LOOK_BACK_POST(chunk, VKC_STATUS_AGGREGATE, aggregate);
    }
}
VKC_TYPE VKC_LB(prefix_after_aggregate_)(uint chunk, uint chunks, VKC_TYPE aggregate, VkcLookBackConfig c,
                                         out bool seeded) {
    bool last = chunk == chunks - 1u;
    seeded = chunk > 0u || VKC_LOOK_BACK_CARRY_IN_PRESENT;
    VKC_TYPE exclusive = chunk == 0u ? VKC_LOOK_BACK_CARRY_IN : VKC_LB_FN(chunk, VKC_LB(begin_)(chunk), c);
    if (!last && gl_LocalInvocationIndex == 0u) {
        VKC_LOOK_BACK_POST(chunk, VKC_STATUS_PREFIX, seeded ? VKC_LB_COMBINE(exclusive, aggregate) : aggregate);
    }
    if (c.in_place) {
        // The posts (by invocation 0) happen before any invocation overwrites the chunk's input, so a
        // look-back that read overwritten items finds the post when it reads the status again.
        controlBarrier(gl_ScopeWorkgroup, gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
    }
    return exclusive;
}
VKC_TYPE VKC_LB(prefix_)(uint chunk, uint chunks, VKC_TYPE aggregate, VkcLookBackConfig c, out bool seeded) {
    VKC_LB(post_aggregate_)(chunk, chunks, aggregate);
    return VKC_LB(prefix_after_aggregate_)(chunk, chunks, aggregate, c, seeded);
}

#undef VKC_LB
#undef VKC_LB_START
#undef VKC_LB_FN
#undef VKC_LB_COMBINE
#undef VKC_LB_IDENTITY
#undef VKC_LOOK_BACK_READ
#undef VKC_LOOK_BACK_POST
#undef VKC_LOOK_BACK_FALLBACK
#undef VKC_LOOK_BACK_CARRY_IN
#undef VKC_LOOK_BACK_CARRY_IN_PRESENT
#undef VKC_LOOK_BACK_BITS
#undef VKC_LOOK_BACK_CAPACITY
#undef VKC_LOOK_BACK_BEGIN
#undef VKC_LOOK_BACK_ROUND
#undef VKC_LOOK_BACK_COUNT
#include "template_end.glsl" // VKC_TYPE, VKC_OP and the custom operator's macros
