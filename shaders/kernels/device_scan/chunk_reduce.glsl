// vkcollectives device scan: a chunk's total from its input.
//
// Provides a chunk's tile range (first_tile_of, end_tile_of), reduce_chunk (the total of a chunk in
// a fixed order), reduce_by_ticket (integer reduces: pieces drawn from a ticket) and
// reduce_chunk_input (a full chunk's total, lean on registers, for the look-back's fallback). Used by
// shaders/kernels/device_scan.comp's look-back scan and chunk passes, after device_scan/tile_io.glsl.
#ifndef DEVICE_SCAN_CHUNK_REDUCE_GLSL
#define DEVICE_SCAN_CHUNK_REDUCE_GLSL

// A chunk's tiles: [first_tile_of(chunk), end_tile_of(chunk)); the last chunk may be short.
uint first_tile_of(uint chunk) { return chunk * tiles_per_chunk(); }
uint end_tile_of(uint chunk) { return min(first_tile_of(chunk) + tiles_per_chunk(), tile_count()); }

#if ITEM_COMMUTATIVE
// Items [begin, end) folded into this invocation's `own`, for operators that commute, where any
// arrangement will do: striped loads, four in flight, one accumulator per invocation.
ITEM_TYPE fold_striped(uint begin, uint end, ITEM_TYPE own) {
    const uint size = VKC_WORKGROUP_SIZE;
#if ITEM_VEC_WIDTH > 1
    uint v = begin / ITEM_VEC_WIDTH + gl_LocalInvocationIndex;
    uint vectors_end = end / ITEM_VEC_WIDTH;
    for (; v + 3u * size < vectors_end; v += 4u * size) {
        ITEM_VEC x0 = vectors_in[v], x1 = vectors_in[v + size], x2 = vectors_in[v + 2u * size],
                 x3 = vectors_in[v + 3u * size];
        [[unroll]] for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
            own = ITEM_COMBINE(own, ITEM_COMBINE(ITEM_COMBINE(PREPARE_LOADED(x0[c]), PREPARE_LOADED(x1[c])),
                                                 ITEM_COMBINE(PREPARE_LOADED(x2[c]), PREPARE_LOADED(x3[c]))));
        }
    }
    for (; v < vectors_end; v += size) {
        ITEM_VEC x = vectors_in[v];
        [[unroll]] for (uint c = 0u; c < ITEM_VEC_WIDTH; ++c) {
            own = ITEM_COMBINE(own, PREPARE_LOADED(x[c]));
        }
    }
    uint i = vectors_end * ITEM_VEC_WIDTH + gl_LocalInvocationIndex; // the count's last partial vector
#else
    uint i = begin + gl_LocalInvocationIndex;
#endif
    for (; i < end; i += size) {
        own = ITEM_COMBINE(own, PREPARE_LOADED(items_in[i]));
    }
    return own;
}
#endif

// The work-group's total of every invocation's `own`, already prepared (vkc_workgroup_reduce_ would
// prepare it again, which custom operators' prepare steps need not survive).
ITEM_TYPE workgroup_total(ITEM_TYPE own) {
    ITEM_TYPE before, total;
    VKC_PASTE(vkc_workgroup_scan_core_, ITEM_OP)(own, before, total);
    return total;
}

ITEM_TYPE reduce_chunk(uint chunk) {
    uint tile_begin = first_tile_of(chunk);
    uint tile_end = end_tile_of(chunk);
#if ITEM_COMMUTATIVE
    return workgroup_total(fold_striped(tile_begin * tile_items(), min(tile_end * tile_items(), item_count()),
                                        ITEM_IDENTITY));
#else
    // In order: tile by tile, each reduced in the blocked arrangement.
    ITEM_TYPE total = ITEM_IDENTITY;
    for (uint tile = tile_begin; tile < tile_end; ++tile) {
        ITEM_TYPE items[VKC_ITEMS];
        load_tile(tile, items);
        ITEM_TYPE part = VKC_PASTE(vkc_block_reduce_, ITEM_OP)(items);
        total = tile == tile_begin ? part : ITEM_COMBINE(total, part);
    }
    return total;
#endif
}

// MODE_REDUCE over more than one group, where no order of combination changes the result: operators
// that commute, on integers (exact). Each group starts with the piece of its index and takes more
// from a ticket (the next one taken while a piece loads), so groups that run faster take more and
// all finish together (with equal chunks the reduce ends when the slowest group does). Floats keep the
// chunks: a group's total would depend on which pieces it drew, and reduce is reproducible. So do
// shares under TICKET_MIN_SHARE tiles a group, where the next ticket is on the critical path and costs
// more than the uneven finish.
// Bounds, for llvmpipe, which ends every loop of an invocation once its loops have taken 65535 turns
// in all (gallivm's loop limiter) and runs groups one after another on one thread: a piece is one
// tile while a group's fair share is at most PIECES_A_SHARE tiles, else a whole fraction of the share,
// and a group takes at most twice its share. Together the groups may take twice the pieces there
// are, so none is left over.
#define REDUCE_BY_TICKET (ITEM_COMMUTATIVE && !ITEM_FLOAT)
#if REDUCE_BY_TICKET
const uint TICKET_MIN_SHARE = 8u;
const uint PIECES_A_SHARE = 256u;
shared uint next_piece[2]; // written by invocation 0 a piece ahead, alternating
// `share`: a group's fair share of the tiles, in tiles.
ITEM_TYPE reduce_by_ticket(uint share) {
    uint groups = chunk_count();
    uint piece_tiles = (share + PIECES_A_SHARE - 1u) / PIECES_A_SHARE;
    uint pieces = (tile_count() + piece_tiles - 1u) / piece_tiles;
    uint most = 2u * ((pieces + groups - 1u) / groups);
    uint held = 2u; // pieces this group has (uniform): its own, and the one drawn here
    if (gl_LocalInvocationIndex == 0u) {
        next_piece[0] = groups + atomicAdd(state[STATE_REDUCE_TICKET], 1u);
    }
    ITEM_TYPE own = ITEM_IDENTITY;
    uint piece = group_index();
    for (uint k = 0u; piece < pieces; ++k) { // uniform: `piece` comes from shared memory
        uint begin = piece * piece_tiles * tile_items();
        own = fold_striped(begin, min(begin + piece_tiles * tile_items(), item_count()), own);
        barrier(); // next_piece[k & 1] was written, and next_piece[(k + 1) & 1] read by all, before it
        piece = next_piece[k & 1u];
        if (gl_LocalInvocationIndex == 0u && piece < pieces) {
            next_piece[(k + 1u) & 1u] = held < most ? groups + atomicAdd(state[STATE_REDUCE_TICKET], 1u) : pieces;
        }
        ++held;
    }
    return workgroup_total(own);
}
#endif

// The total of a whole (full) chunk from its input, lean on registers: the look-back's fallback runs
// while a tile is held in registers. Each invocation folds its own consecutive items, then one ordered
// work-group reduce (operators need not commute).
ITEM_TYPE reduce_chunk_input(uint chunk) {
    uint per_invocation = tiles_per_chunk() * items_per_invocation;
    uint first = first_tile_of(chunk) * tile_items() + gl_LocalInvocationIndex * per_invocation;
    ITEM_TYPE own = PREPARE_LOADED(items_in[first]);
    for (uint i = 1u; i < per_invocation; ++i) {
        own = ITEM_COMBINE(own, PREPARE_LOADED(items_in[first + i]));
    }
    return workgroup_total(own);
}

#endif
