// vkcollectives device scan: the scratch (binding 2) and the chunk statuses posted in it.
//
// Provides the scratch's word layout (from vkc/contract.h), the carry slots, and the status words of
// the look-back scan and the chunk totals of reduce and the reproducible scan, posted and read with
// 32-bit atomics. Used by shaders/kernels/device_scan.comp, which declares the buffers, `params` and
// has_flag() before including it.
//
// The scratch starts zeroed (by the host once, or before every plan where the caller does not promise
// to keep it so), and every dispatch leaves it ready for the next, so plans on a kept scratch record
// no fill and no barrier after one (a few microseconds, most of a small scan's time):
//   STATE_TICKET (MODE_SCAN): bit 31 the dispatch's parity, bits 0-30 the chunks taken. The group that
//       takes the last ticket leaves the count zero and the parity flipped.
//   STATE_FINISHED (MODE_REDUCE, MODE_REDUCE_CHUNKS): the finished-group counter, zero before and after
//       each dispatch (the last group to count resets it).
//   STATE_CARRY_0, STATE_CARRY_1: two words each, the running total in from the previous dispatch and
//       out to the next (buffers past maxStorageBufferRange, host arrays streamed in parts), alternating.
//   STATE_STAT_* (FLAG_STATS): look-back rounds, chunks walked back and fallbacks, summed over chunks
//       (zeroed by the host).
//   STATE_DIRTY + parity (MODE_SCAN): status words the last dispatch of that parity may have posted.
//   STATE_PREFETCH_SINK: unused (a write to it, under a test that never passes, keeps look_back's
//       prefetch loads).
//   STATE_REDUCE_TICKET: reduce_by_ticket's pieces, zero between dispatches.
//   From STATE_CHUNKS (a 32-byte boundary; the words before it are unused): MODE_SCAN's chunk
//       statuses, a slot of STATUS_SLOT words a chunk, in two arrays, one a parity (status_word_at).
//       A dispatch posts in its parity's array, which is all zero when it starts, and zeroes what the
//       previous dispatch posted in the other one, so that is all zero when the next dispatch starts.
//       Other modes: chunk totals, STATUS_WORDS words each (total_at), posted as statuses are and
//       zeroed once read.
// A dispatch of one chunk takes no ticket, counts nothing and posts nothing.
// Each dispatch zeroes the previous one's posts rather than its own: zeroing its own would need every
// work-group to count out behind a device-scope release, which waits for its chunk's stores.
// A status word is flag << 30 | 16 bits of the value, so 32-bit atomics carry flag and value
// together: a reader that sees the same flag in every word of a chunk has a consistent value, with no
// 64-bit atomics and no ordering between separate flag and value words.
#ifndef DEVICE_SCAN_SCRATCH_GLSL
#define DEVICE_SCAN_SCRATCH_GLSL

const uint STATE_TICKET = VKC_STATE_TICKET, STATE_FINISHED = VKC_STATE_FINISHED;
const uint STATE_CARRY_0 = VKC_STATE_CARRY_0, STATE_CARRY_1 = VKC_STATE_CARRY_1;
const uint STATE_STAT_ROUNDS = VKC_STATE_STAT_ROUNDS, STATE_STAT_WALKED = VKC_STATE_STAT_WALKED,
           STATE_STAT_FALLBACKS = VKC_STATE_STAT_FALLBACKS; // zeroed with FLAG_STATS
const uint STATE_DIRTY = VKC_STATE_DIRTY; // + parity
const uint STATE_PREFETCH_SINK = VKC_STATE_PREFETCH_SINK; // never written (see look_back's prefetch)
const uint STATE_REDUCE_TICKET = VKC_STATE_REDUCE_TICKET; // reduce_by_ticket's pieces
const uint STATE_CHUNKS = VKC_STATE_HEADER_WORDS;
const uint TICKET_COUNT = 0x7fffffffu; // and bit 31 the parity
const uint STATUS_WORDS = VKC_STATUS_WORDS(ITEM_BYTES);
// A look-back chunk's status takes a slot of STATUS_SLOT words (32 bytes, a sector of NVIDIA's L2), its
// first STATUS_WORDS used: chunks in flight post to sectors of their own while successors poll them.
// Packed, neighbours' posts and polls would meet in the same sectors.
const uint STATUS_SLOT = VKC_STATUS_SLOT_WORDS;
// vkc/look_back.glsl's VKC_STATUS_NONE, _AGGREGATE and _PREFIX, which it reads and posts here.
const uint STATUS_NONE = 0u, STATUS_AGGREGATE = 1u, STATUS_PREFIX = 2u;
// Reduce's chunk totals (and the reproducible scan's): a flag no look-back posts, since the totals
// share words with the status array a look-back scan leaves posted for the next one to zero.
const uint STATUS_TOTAL = 3u;

// ---- carry between dispatches, chunk totals ----------------------------------------------------
uint carry_in_at() { return has_flag(FLAG_CARRY_SLOT) ? STATE_CARRY_1 : STATE_CARRY_0; }
uint carry_out_at() { return has_flag(FLAG_CARRY_SLOT) ? STATE_CARRY_0 : STATE_CARRY_1; }
ITEM_TYPE read_pair(uint at) { return from_bits(uvec2(state[at], state[at + 1u]), ITEM_TYPE(0)); }
void write_pair(uint at, ITEM_TYPE value) {
    uvec2 bits = to_bits(value);
    state[at] = bits.x;
    state[at + 1u] = bits.y;
}

// ---- chunk status ------------------------------------------------------------------------------
// The two arrays alternate in blocks of STATUS_BLOCK words, so a word's place depends on neither the
// count nor the type (plans of any size and type may share a scratch, and each zeroes the words the
// one before it posted), and a window of neighbouring chunks stays on neighbouring words.
const uint STATUS_BLOCK = VKC_STATUS_BLOCK_WORDS; // a multiple of STATUS_SLOT
uint status_word_at(uint parity, uint w) {
    return STATE_CHUNKS + ((w / STATUS_BLOCK) * 2u + parity) * STATUS_BLOCK + w % STATUS_BLOCK;
}
// MODE_SCAN: the ticket (chunk), this dispatch's parity and the other parity's dirty count, from
// invocation 0. The parity is read from shared memory where it is used, not held in a register
// through the chunk's look-back.
shared uint ticket, ticket_parity, other_dirty;
uint status_at(uint chunk, uint k) { return status_word_at(ticket_parity, chunk * STATUS_SLOT + k); }

// A flagged value in the STATUS_WORDS words from `first` (a chunk's slot lies in one block: STATUS_SLOT
// divides STATUS_BLOCK; chunk totals are adjacent words).
void post_words(uint first, uint flag, ITEM_TYPE value) {
    uvec2 bits = to_bits(value);
    [[unroll]] for (uint k = 0u; k < STATUS_WORDS; ++k) {
        uint piece = ((k < 2u ? bits.x : bits.y) >> (16u * (k & 1u))) & 0xffffu;
        atomicStore(state[first + k], (flag << 30u) | piece, gl_ScopeDevice, gl_StorageSemanticsBuffer,
                    gl_SemanticsRelaxed);
    }
}
void post(uint chunk, uint flag, ITEM_TYPE value) { post_words(status_at(chunk, 0u), flag, value); }

// `after` orders the read after whatever produced that value: it is masked with the push constant
// `zero` (always 0, unknown to the compiler) into the address, so the status load depends on it. A
// fence would do, but Mesa 22's lavapipe turns every memory barrier (and the one an acquire or
// release atomic implies) into a work-group barrier, which tears code that only some invocations run.
void read_words(uint first, uint after, out uint flag, out ITEM_TYPE value) {
    uvec2 bits = uvec2(0u);
    uint first_flag = 0u;
    bool same = true;
    [[unroll]] for (uint k = 0u; k < STATUS_WORDS; ++k) {
        uint at = first + k + (after & params.zero);
        uint word = atomicLoad(state[at], gl_ScopeDevice, gl_StorageSemanticsBuffer, gl_SemanticsRelaxed);
        uint f = word >> 30u;
        first_flag = k == 0u ? f : first_flag;
        same = same && f == first_flag;
        uint piece = (word & 0xffffu) << (16u * (k & 1u));
        if (k < 2u) {
            bits.x |= piece;
        } else {
            bits.y |= piece;
        }
    }
    flag = same ? first_flag : STATUS_NONE; // read between an aggregate's and a prefix's post: not yet
    value = from_bits(bits, ITEM_TYPE(0));
}
void read_status(uint chunk, uint after, out uint flag, out ITEM_TYPE value) {
    read_words(status_at(chunk, 0u), after, flag, value);
}

bool carry_in_present() { return has_flag(FLAG_CARRY_IN); }
ITEM_TYPE carry_in() { return carry_in_present() ? read_pair(carry_in_at()) : ITEM_IDENTITY; }

#endif
