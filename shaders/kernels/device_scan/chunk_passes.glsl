// vkcollectives device scan: the chunk passes (MODE_REDUCE, MODE_REDUCE_CHUNKS, MODE_SCAN_CHUNKS).
//
// Provides reduce_chunks (each work-group posts its chunk's total; the last to finish folds the totals,
// for the reduce, or turns them into exclusive prefixes, for the reproducible scan) and scan_chunks
// (each chunk rescanned from its exclusive prefix). Every value is combined in an order fixed by the
// sizes alone. Used by shaders/kernels/device_scan.comp, after device_scan/look_back_scan.glsl.
#ifndef DEVICE_SCAN_CHUNK_PASSES_GLSL
#define DEVICE_SCAN_CHUNK_PASSES_GLSL

// MODE_REDUCE and MODE_REDUCE_CHUNKS: each group posts its chunk's total (reduce_by_ticket: the total
// of the pieces it drew) as a look-back status is posted (flag and value in the same words, at
// total_at), counts itself finished, and the last to count folds the totals. Since a total carries
// its flag (STATUS_TOTAL), the last group needs no fence to trust what it reads: it reads again while
// any total has not landed. (A device-scope release before the count would wait for the total's
// store, and with an acquire after it slow small reduces markedly.)
// MODE_REDUCE_CHUNKS leaves each chunk's exclusive prefix in its words for MODE_SCAN_CHUNKS, which
// zeroes them; MODE_REDUCE zeroes the totals once read, for a look-back scan on the same state (they
// overlap its status arrays).
shared bool finished_last;
shared uint totals_missing[3]; // invocations that found a total not yet posted, by round, in rotation
uint total_at(uint chunk) { return STATE_CHUNKS + chunk * STATUS_WORDS; }
// Rounds the last group reads the totals before it computes them itself. The totals it waits for
// were stored before their groups counted, so they land within microseconds: the bound is a guard.
// (Were it ever reached, a post landing after the zeroing below would leave a stale total behind;
// the value it carries is the same, but the words would no longer be zero for the next dispatch.)
const uint TOTALS_WAIT_ROUNDS = 65536u;

// Chunk totals [at, at + TOTALS_BATCH) as far as `end`, the identity past it, and whether all have
// been posted. The loads are not conditional (the index is clamped), so they issue together.
const uint TOTALS_BATCH = 8u;
void read_totals(uint at, uint end, out ITEM_TYPE totals[TOTALS_BATCH], out bool posted) {
    posted = true;
    [[unroll]] for (uint k = 0u; k < TOTALS_BATCH; ++k) {
        uint flag;
        ITEM_TYPE x;
        read_words(total_at(min(at + k, end - 1u)), 0u, flag, x);
        posted = posted && flag == STATUS_TOTAL;
        totals[k] = at + k < end ? x : ITEM_IDENTITY;
    }
}

// Past the wait's bound (or at once with FLAG_FORCE_FALLBACK): every chunk's total computed and posted
// again by this group, with the function its own group used, so the bits are the same.
void post_totals_again() {
    for (uint chunk = 0u; chunk < chunk_count(); ++chunk) {
        ITEM_TYPE total = reduce_chunk(chunk);
        if (gl_LocalInvocationIndex == 0u) {
            post_words(total_at(chunk), STATUS_TOTAL, total);
        }
    }
    controlBarrier(gl_ScopeWorkgroup, gl_ScopeWorkgroup, gl_StorageSemanticsBuffer, gl_SemanticsAcquireRelease);
}

// Op over the totals of chunks [begin, end), this invocation's run, once every total of the
// work-group's runs has been posted. Each invocation reads its run, its loads in flight together, and
// the rounds repeat while any invocation found a total missing. Uniform.
ITEM_TYPE fold_totals(uint begin, uint end, uint per_invocation) {
    for (uint round = 0u;; ++round) {
        uint slot = round % 3u;
        bool posted = true;
        ITEM_TYPE own = ITEM_IDENTITY;
        if (per_invocation == 1u && begin < end) {
            // One total an invocation (no more chunks than invocations): one load, not a clamped batch
            // of TOTALS_BATCH, whose extra loads small reduces feel.
            uint flag;
            read_words(total_at(begin), 0u, flag, own);
            posted = flag == STATUS_TOTAL;
        }
        for (uint at = begin; per_invocation > 1u && at < end; at += TOTALS_BATCH) {
            ITEM_TYPE totals[TOTALS_BATCH];
            bool batch_posted;
            read_totals(at, end, totals, batch_posted);
            posted = posted && batch_posted;
            [[unroll]] for (uint k = 0u; k < TOTALS_BATCH; ++k) {
                own = ITEM_COMBINE(own, totals[k]);
            }
        }
        if (!posted) {
            atomicAdd(totals_missing[slot], 1u);
        }
        barrier();
        uint missing = totals_missing[slot];
        if (gl_LocalInvocationIndex == 0u) {
            totals_missing[(round + 2u) % 3u] = 0u; // read in the round before this one, used two later
        }
        bool forced = has_flag(FLAG_FORCE_FALLBACK) && round == 0u;
        if (missing == 0u && !forced) {
            return own;
        }
        if (forced || round + 1u >= TOTALS_WAIT_ROUNDS) {
#if REDUCE_BY_TICKET
            if (params.mode == MODE_REDUCE) {
                // Any order gives the same result here, and which pieces each group drew is not known:
                // this group folds the whole input and reads no total (a late post could not be told
                // from one posted again).
                ITEM_TYPE all = workgroup_total(fold_striped(0u, item_count(), ITEM_IDENTITY));
                return gl_LocalInvocationIndex == 0u ? all : ITEM_IDENTITY;
            }
#endif
            post_totals_again();
        }
    }
    return ITEM_IDENTITY; // not reached
}

void reduce_chunks() {
    uint chunk = group_index();
    if (chunk >= chunk_count()) {
        return;
    }
    bool alone = chunk_count() == 1u; // last without counting, and it has its total
#if REDUCE_BY_TICKET
    uint share = (tile_count() + chunk_count() - 1u) / chunk_count();
    bool by_ticket = params.mode == MODE_REDUCE && !alone && share >= TICKET_MIN_SHARE;
    ITEM_TYPE total = by_ticket ? reduce_by_ticket(share) : reduce_chunk(chunk);
#else
    ITEM_TYPE total = reduce_chunk(chunk);
#endif
    if (gl_LocalInvocationIndex == 0u) {
        if (!alone) {
            post_words(total_at(chunk), STATUS_TOTAL, total);
        }
        finished_last = alone || atomicAdd(state[STATE_FINISHED], 1u) == chunk_count() - 1u;
        for (uint k = 0u; k < 3u; ++k) {
            totals_missing[k] = 0u;
        }
    }
    barrier();
    if (!finished_last) {
        return;
    }
    // Each invocation folds its own run of consecutive totals and one ordered work-group scan joins
    // the runs: one trip to L2 and one scan, where a scan a work-group's width of totals at a time
    // took 8 of each for 2048 chunks.
    uint per_invocation = (chunk_count() + VKC_WORKGROUP_SIZE - 1u) / VKC_WORKGROUP_SIZE;
    uint run_begin = min(gl_LocalInvocationIndex * per_invocation, chunk_count());
    uint run_end = min(run_begin + per_invocation, chunk_count());
    ITEM_TYPE own = !alone                           ? fold_totals(run_begin, run_end, per_invocation)
                    : gl_LocalInvocationIndex == 0u ? total
                                                    : ITEM_IDENTITY;
    ITEM_TYPE before, block_total;
    VKC_PASTE(vkc_workgroup_scan_core_, ITEM_OP)(own, before, block_total);
    bool started = carry_in_present();
    ITEM_TYPE running = started ? ITEM_COMBINE(carry_in(), block_total) : block_total;
    if (params.mode == MODE_REDUCE_CHUNKS) {
        // The exclusive prefix of each chunk in the run, in place of its total (chunk 0's, where
        // nothing comes before it, is not read).
        ITEM_TYPE prefix = !started ? before : gl_LocalInvocationIndex == 0u ? carry_in() : ITEM_COMBINE(carry_in(), before);
        bool seeded = started || gl_LocalInvocationIndex > 0u;
        for (uint at = run_begin; at < run_end; at += TOTALS_BATCH) {
            ITEM_TYPE totals[TOTALS_BATCH]; // (a lone chunk's was not posted; it is not used)
            bool unused;
            read_totals(at, run_end, totals, unused);
            [[unroll]] for (uint k = 0u; k < TOTALS_BATCH && at + k < run_end; ++k) {
                post_words(total_at(at + k), STATUS_PREFIX, prefix);
                prefix = seeded ? ITEM_COMBINE(prefix, totals[k]) : totals[k];
                seeded = true;
            }
        }
    }
    if (params.mode == MODE_REDUCE) {
        // Every total is read (the scan's barrier is past): zero again. Neighbouring invocations,
        // neighbouring words.
        for (uint at = gl_LocalInvocationIndex; at < STATUS_WORDS * chunk_count(); at += VKC_WORKGROUP_SIZE) {
            state[STATE_CHUNKS + at] = 0u;
        }
    }
    if (gl_LocalInvocationIndex == 0u) {
        write_pair(carry_out_at(), running);
        if (params.mode == MODE_REDUCE) {
            write_item(0u, running);
            state[STATE_REDUCE_TICKET] = 0u; // every group has drawn its last ticket
        }
        state[STATE_FINISHED] = 0u; // every group has counted: zero for the next dispatch
    }
}

// MODE_SCAN_CHUNKS: the chunk's tiles in turn, seeded with the chunk's exclusive prefix, whose words
// are then zeroed: one invocation reads it, then zeroes it once all have it.
shared ITEM_TYPE chunk_prefix_read;
void scan_chunks() {
    uint chunk = group_index();
    if (chunk >= chunk_count()) {
        return;
    }
    if (gl_LocalInvocationIndex == 0u) {
        uint unused; // posted by the dispatch before, behind a pipeline barrier
        read_words(total_at(chunk), 0u, unused, chunk_prefix_read);
    }
    barrier();
    ITEM_TYPE prefix = chunk_prefix_read;
    if (gl_LocalInvocationIndex == 0u) {
        [[unroll]] for (uint k = 0u; k < STATUS_WORDS; ++k) {
            state[total_at(chunk) + k] = 0u;
        }
    }
    scan_chunk_tiles(chunk, prefix, chunk > 0u || carry_in_present());
}

#endif
