// vkcollectives device scan: the look-back scan's tiles and chunks (MODE_SCAN).
//
// Provides scan_look_back, the MODE_SCAN path: the chunk ticket, the zeroing of the previous
// dispatch's statuses, and the scan of a chunk in one of three forms: one raked tile (32-bit items
// with subgroups) or one blocked tile, held in registers; a chunk of up to REGISTER_CHUNK_TILES
// staged tiles held in registers; a longer chunk reduced, then read again and scanned
// (scan_chunk_twice). scan_chunk_tiles also serves MODE_SCAN_CHUNKS. Used by
// shaders/kernels/device_scan.comp, after device_scan/look_back.glsl.
#ifndef DEVICE_SCAN_LOOK_BACK_SCAN_GLSL
#define DEVICE_SCAN_LOOK_BACK_SCAN_GLSL

// Subgroup modules: each subgroup takes a contiguous part of the tile and walks it in rounds of one
// vector a lane (neighbouring lanes, neighbouring vectors: every load and store coalesced, no
// shared-memory transpose). A lane scans its vector in registers, a subgroup scan joins the lanes,
// a running total joins the rounds, and shared memory joins the subgroups. Needs subgroups packed
// in local-index order and whole subgroups, which the host checks before it picks a subgroup module
// (and rounds the work-group size to).
// Items of 8 bytes (64-bit types and the uvec2 custom operators) take the blocked arrangement instead
// (RAKED_TILES 0): each round here costs a subgroup scan over two items a lane, or one, and a 64-bit
// subgroup scan is two shuffles a step: the blocked tile measured faster. (Large 64-bit scans take
// chunks of staged tiles held in registers, below, which beat raked 64-bit tiles even with the early
// look-back round and aggregate of the 32-bit ones.)
#define RAKED_TILES (VKC_SUBGROUP_ARITHMETIC && ITEM_BYTES <= 4)
#if RAKED_TILES
#if ITEM_VEC_WIDTH > 1
#define VEC_AT(v, c) v[c]
ITEM_VEC load_vector(uint at) { return vectors_in[at]; }
void store_vector(uint at, ITEM_VEC x) { write_vector(at, x); }
#else
#define VEC_AT(v, c) v
ITEM_VEC load_vector(uint at) { return items_in[at]; }
void store_vector(uint at, ITEM_VEC x) { write_item(at, x); }
#endif
shared ITEM_TYPE subgroup_totals[scratch_capacity];

// What comes before a lane in round r of its subgroup's part: the earlier rounds (`rounds_before`),
// then the earlier lanes of this round.
ITEM_TYPE join_lanes_before(uint r, uint lane, ITEM_TYPE rounds_before, ITEM_TYPE lane_total) {
#if VKC_SUBGROUP_SHUFFLE_RELATIVE
    ITEM_TYPE lanes_before = subgroupShuffleUp(ITEM_SUBGROUP_INCLUSIVE(lane_total), 1u); // outside the select:
    lanes_before = lane == 0u ? ITEM_IDENTITY : lanes_before; // GLSL evaluates one side of ?: only
#else
    ITEM_TYPE lanes_before = ITEM_SUBGROUP_EXCLUSIVE(lane_total);
#endif
    return r == 0u ? lanes_before : lane == 0u ? rounds_before : ITEM_COMBINE(rounds_before, lanes_before);
}

// 32-bit items post the tile's aggregate before the lanes' subgroup scans, which wait until after the
// look-back: the aggregate needs only the rounds' subgroup reduces (a single instruction for 32-bit
// integer add, min, max and the bitwise ops on NVIDIA), and successors read it sooner. f32, whose
// subgroup reduce is a shuffle tree, takes it too: without it the driver allots f32's tile too few
// registers, and it spills.
#define EARLY_AGGREGATE (ITEM_BYTES == 4)

// With EARLY_AGGREGATE: each round's earlier rounds (before_lane) joined with this round's earlier lanes.
void join_rounds(uint lane, ITEM_VEC v[VKC_ITEMS / ITEM_VEC_WIDTH], inout ITEM_TYPE before_lane[VKC_ITEMS / ITEM_VEC_WIDTH]) {
    [[unroll]] for (uint r = 0u; r < items_per_invocation / ITEM_VEC_WIDTH; ++r) {
        before_lane[r] = join_lanes_before(r, lane, before_lane[r], VEC_AT(v[r], ITEM_VEC_WIDTH - 1u));
    }
}

// The early look-back round's result, parked in shared memory while the tile is scanned: held in
// registers instead, it costs the wide tile enough registers that fewer work-groups fit an SM.
shared LookBackStart early_look_back_start;
void scan_tile_raked(uint tile) {
    const uint lane = gl_SubgroupInvocationID, lanes = gl_SubgroupSize, subgroup = gl_SubgroupID;
    const uint rounds = items_per_invocation / ITEM_VEC_WIDTH;
    const uint first_vector = (tile * tile_items() + subgroup * lanes * items_per_invocation) / ITEM_VEC_WIDTH;
    const bool full = tile_full(tile); // uniform
    ITEM_VEC v[VKC_ITEMS / ITEM_VEC_WIDTH];
    [[unroll]] for (uint r = 0u; r < rounds; ++r) {
        uint at = first_vector + r * lanes + lane;
        if (full) {
            v[r] = load_vector(at);
        } else {
            // The last, partial tile: items past the count take the identity and are not written.
            [[unroll]] for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
                uint i = at * ITEM_VEC_WIDTH + c;
                VEC_AT(v[r], c) = i < item_count() ? items_in[i] : IDENTITY_READ;
            }
        }
    }
    // Tiles of 8 rounds or more (the wide tiles of large scans) take the look-back's first round now,
    // while the loads above are in flight, before there is an aggregate to post: what predecessors
    // have posted by then is folded in, and a tile that finds an inclusive prefix posts its own at
    // once, with no aggregate and no rounds after its loads. Successors then find prefixes nearer and
    // walk back less. One early round, not more: further rounds wait on the loads. The narrower tiles
    // of smaller scans, and the 64-bit chunks held in registers, lose by it (their loads are done
    // sooner, and the round's registers cost them more), so they look back after posting their
    // aggregate.
    // The first round is its own function, not a pass of look_back's loop, and the two keep their own
    // copies of the round: a shared loop costs the chunked look-back registers, and a round function
    // that both call costs this tile registers, and either costs speed.
    const bool early_look_back = EARLY_AGGREGATE && rounds >= 8u;
    const bool first_round_taken = early_look_back && tile > 0u; // tile 0 has no predecessor to read
    if (first_round_taken) {
        LookBackStart first_round;
        look_back_first_round(tile, first_round);
        if (gl_LocalInvocationIndex == 0u) {
            early_look_back_start = first_round;
        }
    }
    // Per round: the lane's vector scanned in place (inclusive), and what comes before the lane
    // within the subgroup's part: earlier rounds, then earlier lanes of this round.
    ITEM_TYPE before_lane[VKC_ITEMS / ITEM_VEC_WIDTH];
    ITEM_TYPE running = ITEM_IDENTITY; // op over the subgroup's earlier rounds
    [[unroll]] for (uint r = 0u; r < rounds; ++r) {
        VEC_AT(v[r], 0) = PREPARE_LOADED(VEC_AT(v[r], 0));
        [[unroll]] for (uint c = 1u; c < ITEM_VEC_WIDTH; ++c) {
            VEC_AT(v[r], c) = ITEM_COMBINE(VEC_AT(v[r], c - 1u), PREPARE_LOADED(VEC_AT(v[r], c)));
        }
        ITEM_TYPE lane_total = VEC_AT(v[r], ITEM_VEC_WIDTH - 1u);
#if EARLY_AGGREGATE
        before_lane[r] = running; // the earlier rounds only: the lanes come in after the look-back
#else
        before_lane[r] = join_lanes_before(r, lane, running, lane_total);
#endif
        ITEM_TYPE round_total = ITEM_SUBGROUP_TOTAL(lane_total);
        running = r == 0u ? round_total : ITEM_COMBINE(running, round_total);
    }
    // Subgroup totals through shared memory: each invocation folds the earlier subgroups' totals
    // (its subgroup's prefix) and all of them (the tile's aggregate).
    if (lane == 0u) {
        subgroup_totals[subgroup] = running;
    }
    barrier();
    // (after that barrier: the first round's result, uniform, comes back from shared memory)
    LookBackStart start = first_round_taken ? early_look_back_start : look_back_begin(tile);
    ITEM_TYPE aggregate = subgroup_totals[0], before_subgroup = aggregate;
    const uint subgroups = VKC_WORKGROUP_SIZE / lanes; // (Mesa 22's gl_NumSubgroups predates specialisation)
    for (uint s = 1u; s < subgroups; ++s) {
        before_subgroup = s == subgroup ? aggregate : before_subgroup;
        aggregate = ITEM_COMBINE(aggregate, subgroup_totals[s]);
    }
    // A tile that looked back early posts its aggregate (unless it has its prefix already) before the
    // lanes' scans, which then run while the look-back's reads are in flight.
    if (early_look_back) {
        if (!start.found) {
            post_aggregate(tile, aggregate);
        }
        join_rounds(lane, v, before_lane);
    }
    bool seeded;
    ITEM_TYPE prefix = chunk_prefix(tile, aggregate, start, early_look_back, seeded);
    if (subgroup > 0u) {
        prefix = seeded ? ITEM_COMBINE(prefix, before_subgroup) : before_subgroup;
        seeded = true;
    }
    if (EARLY_AGGREGATE && !early_look_back) {
        join_rounds(lane, v, before_lane);
    }
    bool inclusive = !has_flag(FLAG_EXCLUSIVE);
    [[unroll]] for (uint r = 0u; r < rounds; ++r) {
        bool lane_seeded = seeded || r > 0u || lane > 0u;
        ITEM_TYPE seed = !seeded ? before_lane[r] : r == 0u && lane == 0u ? prefix
                                                                           : ITEM_COMBINE(prefix, before_lane[r]);
        ITEM_VEC x = v[r];
        [[unroll]] for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
            ITEM_TYPE through = lane_seeded ? ITEM_COMBINE(seed, VEC_AT(v[r], c)) : VEC_AT(v[r], c);
            ITEM_TYPE upto = c == 0u ? (lane_seeded ? seed : ITEM_IDENTITY)
                                     : (lane_seeded ? ITEM_COMBINE(seed, VEC_AT(v[r], c - 1u)) : VEC_AT(v[r], c - 1u));
            VEC_AT(x, c) = inclusive ? through : upto;
        }
        uint at = first_vector + r * lanes + lane;
        if (full) {
            store_vector(at, x);
        } else {
            [[unroll]] for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
                uint i = at * ITEM_VEC_WIDTH + c;
                if (i < item_count()) {
                    write_item(i, VEC_AT(x, c));
                }
            }
        }
    }
}
#else
// The blocked arrangement and the block scan, then the prefix in front.
void scan_tile_blocked(uint tile) {
    ITEM_TYPE items[VKC_ITEMS];
    load_tile(tile, items);
    ITEM_TYPE aggregate, unused;
    VKC_PASTE(vkc_block_scan_core_, ITEM_OP)(items, !has_flag(FLAG_EXCLUSIVE), VKC_PREFIX_NONE, ITEM_IDENTITY,
                                             aggregate, unused);
    bool seeded;
    ITEM_TYPE prefix = chunk_prefix(tile, aggregate, look_back_begin(tile), false, seeded);
    if (seeded) {
        [[unroll]] for (uint i = 0u; i < items_per_invocation; ++i) {
            items[i] = ITEM_COMBINE(prefix, items[i]);
        }
    }
    store_tile(tile, items);
}
#endif

// A tile of a chunk, loaded: scanned, seeded with what came before it in the chunk, and stored.
void scan_loaded_tile(uint tile, inout ITEM_TYPE items[VKC_ITEMS], inout ITEM_TYPE running, inout bool seeded) {
    ITEM_TYPE aggregate, prefix;
    VKC_PASTE(vkc_block_scan_core_, ITEM_OP)(items, !has_flag(FLAG_EXCLUSIVE),
                                             seeded ? VKC_PREFIX_UNIFORM : VKC_PREFIX_NONE, running,
                                             aggregate, prefix);
    running = seeded ? ITEM_COMBINE(running, aggregate) : aggregate;
    seeded = true;
    store_tile(tile, items);
}
// A chunk's tiles in turn from memory, in the blocked arrangement, seeded with the chunk's
// exclusive prefix (MODE_SCAN_CHUNKS, and MODE_SCAN's chunks of more than one tile).
// MODE_SCAN's full chunks fetch their first tile's vectors before the look-back (scan_chunk_twice)
// and take a loop of their own: measured faster than every tile through one loop with a fetched-flag
// parameter, or the first tile peeled off in front of the one shared loop. Why, we have not found.
#if ITEM_VEC_WIDTH > 1
ITEM_VEC first_tile_vectors[VKC_ITEMS / ITEM_VEC_WIDTH];
#endif
bool first_tile_fetched(uint chunk) { return runs_look_back() && staged && tile_full(end_tile_of(chunk) - 1u); }
void scan_chunk_tiles(uint chunk, ITEM_TYPE running, bool seeded) {
#if ITEM_VEC_WIDTH > 1
    if (first_tile_fetched(chunk)) { // uniform
        for (uint tile = first_tile_of(chunk); tile < end_tile_of(chunk); ++tile) {
            ITEM_TYPE items[VKC_ITEMS];
            if (tile == first_tile_of(chunk)) {
                unpack_tile(first_tile_vectors, items);
            } else {
                load_tile(tile, items);
            }
            scan_loaded_tile(tile, items, running, seeded);
        }
        return;
    }
#endif
    for (uint tile = first_tile_of(chunk); tile < end_tile_of(chunk); ++tile) {
        ITEM_TYPE items[VKC_ITEMS];
        load_tile(tile, items);
        scan_loaded_tile(tile, items, running, seeded);
    }
}

// A chunk of several tiles (past REGISTER_CHUNK_TILES, partial or not staged): reduced from memory,
// then read again and scanned. The second read comes soon after the first, mostly from L2, and a full
// chunk's first tile's loads go out before the look-back, whose wait they then overlap. (Fetching each
// further tile while the one before is scanned as well costs more registers than it gains.)
void scan_chunk_twice(uint chunk) {
    ITEM_TYPE total = reduce_chunk(chunk);
#if ITEM_VEC_WIDTH > 1
    if (first_tile_fetched(chunk)) { // uniform
        fetch_tile(first_tile_of(chunk), first_tile_vectors);
    }
#endif
    bool seeded;
    ITEM_TYPE prefix = chunk_prefix(chunk, total, look_back_begin(chunk), false, seeded);
    scan_chunk_tiles(chunk, prefix, seeded);
}

// Full staged chunks of up to REGISTER_CHUNK_TILES tiles stay in registers through the look-back
// instead: every tile's loads go out at once, each tile is scanned on its own, the chunk posts its
// aggregate, looks back, and seeds and stores its tiles; one read of the input. Fewer tiles a chunk
// leave too little in flight to hide the look-back. The tiles are separate arrays: as an array of
// arrays NVIDIA's compiler keeps them in local memory. The four tiles' scans are not joined with one
// barrier (each item combined once, after the look-back): that takes more registers than let two
// work-groups fit an SM.
// Commutative operators post the aggregate as soon as the loads land, folded from the fetched vectors
// in any order, and scan the tiles after that, before the look-back: successors, whose look-backs
// mostly wait for a predecessor's aggregate, read it a chunk's four unpacks and scans sooner. For
// floats the posted aggregate may differ in its last bits from the chunk's scanned total, which its
// inclusive prefix takes: both are sums of the same items, which is all the default mode promises.
// The tiles are scanned before the look-back, not after it: held unscanned through the look-back,
// they make it slower.
const uint REGISTER_CHUNK_TILES = VKC_DEVICE_REGISTER_CHUNK_TILES; // vkc::look_back_register_chunk_tiles
#if ITEM_VEC_WIDTH > 1
bool chunk_in_registers(uint chunk) {
    return staged && end_tile_of(chunk) - first_tile_of(chunk) <= REGISTER_CHUNK_TILES &&
           tile_full(end_tile_of(chunk) - 1u);
}
// Tile `first` or a later one of the chunk (`total`: op over the chunk's tiles before it, `before`
// receives that), moved from its fetched vectors into the blocked arrangement and scanned.
void unpack_and_scan(ITEM_VEC x[VKC_ITEMS / ITEM_VEC_WIDTH], inout ITEM_TYPE items[VKC_ITEMS], bool first,
                     inout ITEM_TYPE total, out ITEM_TYPE before) {
    unpack_tile(x, items);
    ITEM_TYPE aggregate, unused;
    VKC_PASTE(vkc_block_scan_core_, ITEM_OP)(items, !has_flag(FLAG_EXCLUSIVE), VKC_PREFIX_NONE, ITEM_IDENTITY,
                                             aggregate, unused);
    before = total;
    total = first ? aggregate : ITEM_COMBINE(total, aggregate);
}
// A scanned tile seeded with the chunk's exclusive prefix and the chunk's tiles before it, and stored.
void seed_and_store(uint tile, inout ITEM_TYPE items[VKC_ITEMS], bool first, ITEM_TYPE prefix, bool seeded,
                    ITEM_TYPE before) {
    ITEM_TYPE seed = first ? prefix : seeded ? ITEM_COMBINE(prefix, before) : before;
    if (seeded || !first) {
        [[unroll]] for (uint i = 0u; i < items_per_invocation; ++i) {
            items[i] = ITEM_COMBINE(seed, items[i]);
        }
    }
    store_tile(tile, items);
}
void scan_chunk_in_registers(uint chunk) {
    uint t = first_tile_of(chunk);
    uint tiles = end_tile_of(chunk) - t; // uniform
    ITEM_VEC x0[VKC_ITEMS / ITEM_VEC_WIDTH], x1[VKC_ITEMS / ITEM_VEC_WIDTH], x2[VKC_ITEMS / ITEM_VEC_WIDTH],
        x3[VKC_ITEMS / ITEM_VEC_WIDTH];
    ITEM_TYPE i0[VKC_ITEMS], i1[VKC_ITEMS], i2[VKC_ITEMS], i3[VKC_ITEMS];
    ITEM_TYPE b0, b1, b2, b3, total = ITEM_IDENTITY;
    fetch_tile(t, x0);
    if (tiles > 1u) fetch_tile(t + 1u, x1);
    if (tiles > 2u) fetch_tile(t + 2u, x2);
    if (tiles > 3u) fetch_tile(t + 3u, x3);
#if ITEM_COMMUTATIVE
    // A chunk of fewer tiles is the last one, which posts no aggregate.
    bool aggregate_posted = tiles == REGISTER_CHUNK_TILES; // uniform
    if (aggregate_posted) {
        ITEM_TYPE own = ITEM_IDENTITY;
        [[unroll]] for (uint j = 0u; j < items_per_invocation / ITEM_VEC_WIDTH; ++j) {
            [[unroll]] for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
                own = ITEM_COMBINE(own, ITEM_COMBINE(ITEM_COMBINE(PREPARE_LOADED(x0[j][c]), PREPARE_LOADED(x1[j][c])),
                                                     ITEM_COMBINE(PREPARE_LOADED(x2[j][c]), PREPARE_LOADED(x3[j][c]))));
            }
        }
        post_aggregate(chunk, workgroup_total(own));
    }
#else
    const bool aggregate_posted = false;
#endif
    unpack_and_scan(x0, i0, true, total, b0);
    if (tiles > 1u) unpack_and_scan(x1, i1, false, total, b1);
    if (tiles > 2u) unpack_and_scan(x2, i2, false, total, b2);
    if (tiles > 3u) unpack_and_scan(x3, i3, false, total, b3);
    bool seeded;
    ITEM_TYPE prefix = chunk_prefix(chunk, total, look_back_begin(chunk), aggregate_posted, seeded);
    seed_and_store(t, i0, true, prefix, seeded, b0);
    if (tiles > 1u) seed_and_store(t + 1u, i1, false, prefix, seeded, b1);
    if (tiles > 2u) seed_and_store(t + 2u, i2, false, prefix, seeded, b2);
    if (tiles > 3u) seed_and_store(t + 3u, i3, false, prefix, seeded, b3);
}
#endif

// MODE_SCAN: one chunk a work-group. Work-groups do not loop over tickets, taking the next ticket and
// loading its tile before this tile's look-back: a taken ticket whose tile waits for its group's
// current one holds up every later tile's look-back.
void scan_look_back() {
    if (group_index() >= chunk_count()) {
        return; // a spare group of a 2D grid: it takes no ticket (uniform)
    }
    const bool chained = chunk_count() > 1u; // a lone chunk takes no ticket and touches no state
    if (gl_LocalInvocationIndex == 0u) {
        // Chunks in the order groups start, not by ID. Both dirty counts are read beside the ticket
        // (the parity is not known before it), so the read adds no trip to L2.
        uint dirty0 = 0u, dirty1 = 0u, chunk = 0u, parity = 0u;
        if (chained) {
            dirty0 = atomicLoad(state[STATE_DIRTY], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
            dirty1 = atomicLoad(state[STATE_DIRTY + 1u], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
            uint taken = atomicAdd(state[STATE_TICKET], 1u);
            chunk = taken & TICKET_COUNT;
            parity = taken >> 31u;
            if (chunk == chunk_count() - 1u) {
                // Every ticket is taken: the next dispatch counts from zero, in the other array.
                atomicStore(state[STATE_TICKET], (parity ^ 1u) << 31u, gl_ScopeDevice, gl_StorageSemanticsBuffer,
                            gl_SemanticsRelaxed);
            }
            if (chunk == 0u) {
                atomicStore(state[STATE_DIRTY + parity], chunk_count() * STATUS_SLOT, gl_ScopeDevice,
                            gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
            }
        }
        ticket = chunk;
        ticket_parity = parity;
        other_dirty = parity == 0u ? dirty1 : dirty0;
        reset_look_back();
    }
    barrier();
    uint chunk = ticket;
    if (chunk >= chunk_count()) {
        return; // only where the state was not zeroed as the host promised: nothing is written
    }
    if (chained) {
        // The previous dispatch's posts in the other array, zeroed for the next dispatch (nothing in
        // this one reads them): stripes of the work-group's width, the chunk's own and every
        // chunk_count()-th one after it. First, so that nothing is held in registers for it through the
        // tile; bounded by the binding, so a state not zeroed as promised cannot send them past it.
        uint parity = ticket_parity ^ 1u;
        uint words = min(other_dirty, uint(state.length()));
        for (uint w = chunk * VKC_WORKGROUP_SIZE + gl_LocalInvocationIndex; w < words;
             w += chunk_count() * VKC_WORKGROUP_SIZE) {
            uint at = status_word_at(parity, w);
            if (at < uint(state.length())) {
                state[at] = 0u;
            }
        }
    }
    if (runs_chunked_look_back()) {
#if ITEM_VEC_WIDTH > 1
        if (chunk_in_registers(chunk)) { // uniform
            scan_chunk_in_registers(chunk);
            return;
        }
#endif
        scan_chunk_twice(chunk);
    } else {
#if RAKED_TILES
        scan_tile_raked(chunk);
#else
        scan_tile_blocked(chunk);
#endif
    }
}

#endif
