// vkcollectives device scan: the decoupled look-back.
//
// Provides look_back (a chunk's exclusive prefix from its predecessors' statuses, polling a silent
// predecessor a bounded number of times and then computing its total itself), look_back_first_round
// (the first round alone, taken early by wide tiles), the prefetch while looking back, and
// chunk_prefix (post the aggregate, look back, post the inclusive prefix). Used by the look-back scan
// of shaders/kernels/device_scan.comp (MODE_SCAN), after device_scan/chunk_reduce.glsl.
#ifndef DEVICE_SCAN_LOOK_BACK_GLSL
#define DEVICE_SCAN_LOOK_BACK_GLSL

// Each round the last invocations read one predecessor's status each (invocation m the one at
// distance size-1-m from the nearest chunk not yet folded, so that invocation order is chunk order),
// the nearest entry that is not an aggregate is found through shared memory, and one work-group
// reduce folds the aggregates in front of it (and it too, if it is an inclusive prefix). A round reads
// a window of chunks (chosen by the host); once it meets a silent one, rounds poll that chunk alone
// until it posts: status lines are hot (every chunk in flight reads its predecessors'), and polling
// a whole window at once floods them. The whole work-group folds a round's window: folding it in the
// last subgroup alone saves two barriers a round but makes the scan slower.
// Control flow is uniform across the work-group throughout (every decision comes from shared memory
// after a barrier), so no invocation spins alone and nothing relies on a subgroup staying converged
// in a loop (Vulkan promises that only with VK_KHR_shader_maximal_reconvergence; NVIDIA's driver
// split a subgroup-wide polling loop and folded garbage).
// Window flags, double-buffered by round parity (indexed by distance); `window_cut` holds the distance of the nearest entry
// that is not an aggregate, by shared atomicMin, in three slots in rotation, each reset two rounds
// before it is used again (scan_look_back resets all three first).
const uint STATUS_UNREAD = 3u; // past this round's reach
shared uint window_flags[2u * scratch_capacity];
shared uint window_cut[3];
shared uint recheck_flag;
shared ITEM_TYPE recheck_value;

// With FLAG_STATS: a look-back's rounds, the chunks it walked back over and its fallbacks, summed.
void count_look_back(uint rounds, uint walked, uint fallbacks) {
    if (has_flag(FLAG_STATS) && gl_LocalInvocationIndex == 0u) {
        atomicAdd(state[STATE_STAT_ROUNDS], rounds);
        atomicAdd(state[STATE_STAT_WALKED], walked);
        atomicAdd(state[STATE_STAT_FALLBACKS], fallbacks);
    }
}

// What a look-back reads for the entry `mine` chunks from the start: a chunk's status, or before chunk
// 0 the carry in as an inclusive prefix, and past that nothing (STATUS_UNREAD).
void read_entry(uint chunk, int mine, out uint flag, out ITEM_TYPE value) {
    flag = STATUS_UNREAD;
    value = ITEM_IDENTITY;
    if (mine >= 0) {
        read_status(uint(mine), 0u, flag, value);
        flag = has_flag(FLAG_FORCE_FALLBACK) && mine == int(chunk) - 1 ? STATUS_NONE : flag;
    } else if (mine == -1) {
        flag = STATUS_PREFIX;
        value = carry_in();
    }
}

uint look_back_window() { return clamp(params.spin_limit >> 16u, 1u, VKC_WORKGROUP_SIZE); }
uint look_back_distance() { return VKC_WORKGROUP_SIZE - 1u - gl_LocalInvocationIndex; }

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

// Where a look-back starts: nothing folded yet, or what look_back_first_round folded.
struct LookBackStart {
    ITEM_TYPE acc; // op over chunks (nearest, chunk), where `have`; the exclusive prefix, where `found`
    bool have;
    bool found;    // the first round met an inclusive prefix: no look-back is left to do
    int nearest;   // the nearest chunk not yet folded in
    uint round;    // the next round (window_flags and window_cut rotate by it)
};
LookBackStart look_back_begin(uint chunk) { return LookBackStart(ITEM_IDENTITY, false, false, int(chunk) - 1, 0u); }

// The look-back's first round alone, for a tile whose own loads are still in flight (scan_tile_raked):
// one window of predecessors read, the aggregates in front of the nearest other entry folded, and an
// inclusive prefix there folded too. start.found: it met one, and start.acc is the exclusive prefix;
// else `start` is where look_back goes on (polling and the fallback are look_back's). Uniform.
void look_back_first_round(uint chunk, out LookBackStart start) {
    const uint window = look_back_window();
    const uint distance = look_back_distance();
    start = look_back_begin(chunk);
    start.round = 1u;
    uint flag = STATUS_UNREAD;
    ITEM_TYPE value = ITEM_IDENTITY;
    if (distance < window) {
        read_entry(chunk, start.nearest - int(distance), flag, value);
        window_flags[distance] = flag; // round 0's half
        if (flag != STATUS_AGGREGATE) {
            atomicMin(window_cut[0], distance);
        }
    }
    barrier();
    uint cut = min(window_cut[0], window);
    uint cut_flag = cut < window ? window_flags[cut] : STATUS_UNREAD;
    if (gl_LocalInvocationIndex == 0u) {
        window_cut[2] = VKC_WORKGROUP_SIZE; // as round 0 of look_back would
    }
    uint folded = cut_flag == STATUS_PREFIX ? cut + 1u : cut;
    if (folded > 0u) { // uniform
        ITEM_TYPE unused;
        VKC_PASTE(vkc_workgroup_scan_core_, ITEM_OP)(distance < folded ? value : ITEM_IDENTITY, unused, start.acc);
        start.have = true;
        start.nearest -= int(folded);
    }
    start.found = cut_flag == STATUS_PREFIX;
    if (start.found) {
        count_look_back(1u, chunk - 1u - uint(start.nearest), 0u);
    }
}

// The exclusive prefix of `chunk` (> 0), in every invocation: op over every earlier chunk, and the carry
// in; from `start`, where look_back_first_round has taken the first round, else look_back_begin(chunk).
ITEM_TYPE look_back(uint chunk, LookBackStart start) {
    const uint window = look_back_window();
    const uint spin_limit = params.spin_limit & 0xffffu;
    const uint distance = look_back_distance();
    bool forced = has_flag(FLAG_FORCE_FALLBACK);
    bool have = start.have;
    ITEM_TYPE acc = start.acc; // op over chunks (nearest, chunk)
    int nearest = start.nearest; // the nearest chunk not yet folded in
    uint reach = window;            // chunks read this round: the window, or 1 while polling a silent one
    uint polls = 0u, fallbacks = 0u;
    // Every round either folds in at least one chunk or polls (at most spin_limit times for one silent
    // chunk), so this bound is never reached by a correct run; it guarantees the loop ends whatever the
    // device does, and past it the prefix is computed from the input outright.
    const uint max_rounds = (chunk + 1u) * (spin_limit + 2u);
    const uint sector_items = 32u / ITEM_BYTES;
    const bool prefetch = LOOK_BACK_PREFETCH && has_flag(FLAG_PREFETCH);
    uint prefetch_first = item_count(); // the prefetched chunk's first item; the count: none
    if (prefetch) {
        // (the count wraps to 0 once the last ticket is taken: then no chunk is left to start)
        uint taken = atomicLoad(state[STATE_TICKET], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed) &
                     TICKET_COUNT;
        uint target = taken + chunk % PREFETCH_SPREAD;
        if (taken > chunk && target < chunk_count()) {
            prefetch_first = first_tile_of(target) * tile_items();
        }
    }
    uint prefetch_pending = 0u;
    for (uint round = start.round; round < max_rounds; ++round) {
        // The prefetch from the second round on: in the first its address would wait for the ticket's
        // read, and the status reads behind it, which small scans feel.
        prefetch_sink ^= prefetch_pending;
        uint sectors_before = (round - start.round - 1u) * VKC_WORKGROUP_SIZE; // of the chunk, by earlier rounds
        uint at = prefetch_first + (sectors_before + gl_LocalInvocationIndex) * sector_items;
        bool in_chunk = round > start.round && sectors_before * sector_items < tiles_per_chunk() * tile_items();
        prefetch_pending = prefetch && in_chunk && at < item_count() ? to_bits(items_in[at]).x : 0u;
        uint half_at = (round & 1u) * VKC_WORKGROUP_SIZE;
        uint slot = round % 3u;
        int mine = nearest - int(distance);
        uint flag = STATUS_UNREAD;
        ITEM_TYPE value = ITEM_IDENTITY;
        if (distance < reach) {
            read_entry(chunk, mine, flag, value);
            window_flags[half_at + distance] = flag;
            if (flag != STATUS_AGGREGATE) {
                atomicMin(window_cut[slot], distance);
            }
        }
        barrier();
        uint cut = min(window_cut[slot], reach); // == reach: every entry read was an aggregate
        uint cut_flag = cut < reach ? window_flags[half_at + cut] : STATUS_UNREAD;
        if (gl_LocalInvocationIndex == 0u) {
            window_cut[(round + 2u) % 3u] = VKC_WORKGROUP_SIZE;
        }
        // Entries nearer than the cut are aggregates, and an inclusive prefix at the cut ends the walk:
        // they go in, in chunk order, whatever happens next.
        uint folded = cut_flag == STATUS_PREFIX ? cut + 1u : cut;
        if (folded > 0u) { // uniform
            ITEM_TYPE part, unused;
            VKC_PASTE(vkc_workgroup_scan_core_, ITEM_OP)(distance < folded ? value : ITEM_IDENTITY, unused, part);
            acc = have ? ITEM_COMBINE(part, acc) : part;
            have = true;
            nearest -= int(folded);
            polls = 0u;
        }
        if (cut_flag == STATUS_PREFIX) {
            count_look_back(round + 1u, chunk - 1u - uint(nearest), fallbacks);
            return acc;
        }
        if (cut_flag == STATUS_UNREAD) {
            reach = window;
            continue;
        }
        // nearest is now the silent chunk: poll it alone.
        reach = 1u;
        if (polls < spin_limit && !(forced && nearest == int(chunk) - 1)) {
            ++polls; // (no back-off between polls, as CUB sleeps: it measured no faster)
            continue;
        }
        // The fallback: compute the silent chunk's total ourselves.
        uint lost = uint(nearest);
        ITEM_TYPE computed = reduce_chunk_input(lost);
        ++fallbacks;
        if (has_flag(FLAG_IN_PLACE)) {
            // In place, the chunk may have posted and overwritten its input while we read it. It
            // posts before it stores (the device-scope barrier in chunk_prefix), so if any item read
            // was overwritten, a status read after the items (through `computed`, which every item
            // feeds) shows the post, and the posted value wins.
            if (gl_LocalInvocationIndex == 0u) {
                read_status(lost, to_bits(computed).x, recheck_flag, recheck_value);
            }
            barrier();
            uint again = recheck_flag;
            ITEM_TYPE posted = recheck_value;
            barrier(); // read before a later round writes them
            if (again == STATUS_PREFIX) {
                count_look_back(round + 1u, chunk - lost, fallbacks);
                return have ? ITEM_COMBINE(posted, acc) : posted;
            }
            if (again == STATUS_AGGREGATE) {
                computed = posted;
            }
        }
        acc = have ? ITEM_COMBINE(computed, acc) : computed;
        have = true;
        nearest = int(lost) - 1;
        reach = window;
        polls = 0u;
    }
    // Not reached in a correct run (see max_rounds): op over the input before this chunk, and the carry.
    ITEM_TYPE all = carry_in();
    bool started = carry_in_present();
    for (uint t = 0u; t < chunk; ++t) {
        ITEM_TYPE part = reduce_chunk_input(t);
        all = started ? ITEM_COMBINE(all, part) : part;
        started = true;
    }
    return all;
}

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
ITEM_TYPE chunk_prefix(uint chunk, ITEM_TYPE aggregate, LookBackStart start, bool aggregate_posted,
                       out bool seeded) {
    bool last = chunk == chunk_count() - 1u;
    seeded = chunk > 0u || carry_in_present();
    if (!aggregate_posted) {
        post_aggregate(chunk, aggregate);
    }
    ITEM_TYPE exclusive = chunk == 0u ? carry_in() : start.found ? start.acc : look_back(chunk, start);
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
