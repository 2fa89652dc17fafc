// vkcollectives: the contract between the kernels and the C++ runtime.
//
// The numbers both sides must agree on: specialization-constant ids, the push-constant flags and
// modes of block_scan.comp and device_scan.comp, and the layout of device_scan.comp's scratch words.
// Plain #defines of integer literals, valid as GLSL and as C++: the kernels (shaders/kernels/) and
// the runtime's private sources (src/) include this one file, so the two cannot drift apart. The
// public headers (include/vkc/) keep their own copies of the ids they document, and src/types.cpp
// checks them against this file at compile time. Values the shaders use as uint carry the u suffix.
#ifndef VKC_CONTRACT_H
#define VKC_CONTRACT_H

// ---- specialization-constant ids (every kernel that declares them) ----
#define VKC_SPEC_WORKGROUP_SIZE_X 0
#define VKC_SPEC_WORKGROUP_SIZE_Y 1
#define VKC_SPEC_WORKGROUP_SIZE_Z 2
#define VKC_SPEC_SUBGROUPS_PACKED 3      // bool: subgroups hold local indices in order (Context::subgroups_packed)
#define VKC_SPEC_ITEMS_PER_INVOCATION 4  // block_scan, device_scan
#define VKC_SPEC_STAGED 5                // bool, block_scan and device_scan: full tiles move through the stage
#define VKC_SPEC_SCRATCH_CAPACITY 6      // invocations the shared scratch is sized for (>= the work-group size)
#define VKC_SPEC_STAGE_ITEMS 7           // items the stage holds
#define VKC_SPEC_KERNEL 8                // each kernel's own: device_scan its code path, block_scan its flags

// Bytes of the stage at most (the default of VKC_SPEC_STAGE_ITEMS is this over the item size).
#define VKC_STAGE_BYTES 16384

// ---- block_scan.comp: push-constant flags; VKC_SPEC_KERNEL holds them and, from bit
// VKC_BLOCK_BATCH_SHIFT, how many unstaged tiles an invocation loads together ----
#define VKC_BLOCK_FLAG_SEEDED 1u   // scans start from the seed
#define VKC_BLOCK_FLAG_RUNNING 2u  // the seed is a running prefix carried across tiles
#define VKC_BLOCK_FLAG_RECORD 4u   // write aggregates and running prefixes to binding 2
#define VKC_BLOCK_FLAG_CALLBACK 8u // with RUNNING: carry it through the prefix callback
#define VKC_BLOCK_BATCH_SHIFT 8u
#define VKC_BLOCK_FLAGS_FROM_PUSH_CONSTANTS 0xffffffffu // VKC_SPEC_KERNEL's default

// ---- device_scan.comp: modes (push constant `mode`) ----
#define VKC_DEVICE_MODE_SCAN 0u          // single-pass scan with decoupled look-back
#define VKC_DEVICE_MODE_REDUCE 1u        // chunk totals, folded by the last work-group
#define VKC_DEVICE_MODE_REDUCE_CHUNKS 2u // reproducible scan, pass 1: chunk totals to exclusive prefixes
#define VKC_DEVICE_MODE_SCAN_CHUNKS 3u   // reproducible scan, pass 2: each chunk rescanned from its prefix

// ---- device_scan.comp: the code path a pipeline compiles (VKC_SPEC_KERNEL; not a module's Path) ----
#define VKC_DEVICE_PATH_LOOK_BACK 0u         // MODE_SCAN, one tile a work-group, held in registers
#define VKC_DEVICE_PATH_LOOK_BACK_CHUNKED 1u // MODE_SCAN, chunks of several tiles
#define VKC_DEVICE_PATH_CHUNK_PASSES 2u      // MODE_REDUCE, MODE_REDUCE_CHUNKS, MODE_SCAN_CHUNKS
#define VKC_DEVICE_PATH_ANY 0xffffffffu      // every path, chosen by the mode (the default)
#define VKC_DEVICE_PATH_MASK 0xffu           // the path's bits; above them, what the pipeline reads:
#define VKC_DEVICE_COUNT_ON_DEVICE 0x100u    // the count from binding 3, at most the push constant's

// ---- device_scan.comp: push-constant flags ----
#define VKC_DEVICE_FLAG_EXCLUSIVE 1u
#define VKC_DEVICE_FLAG_CARRY_IN 2u       // start from the carry the previous dispatch left
#define VKC_DEVICE_FLAG_CARRY_SLOT 4u     // read the carry from slot 1 and write slot 0 (else the reverse)
#define VKC_DEVICE_FLAG_FORCE_FALLBACK 8u // test setting: never trust the predecessor's post
#define VKC_DEVICE_FLAG_IN_PLACE 16u      // output aliases input
#define VKC_DEVICE_FLAG_STATS 32u         // count look-back rounds, chunks walked and fallbacks
#define VKC_DEVICE_FLAG_PREFETCH 64u      // look-back rounds touch the input of a chunk about to start
// With VKC_DEVICE_COUNT_ON_DEVICE: flags bits 24-31 hold the count's word in binding 3 (below the
// 256-byte offset alignment, so at most 63), and the push constants' tiles word the index of the
// dispatch's first item in the whole count (a count past one binding takes a dispatch a segment).
#define VKC_DEVICE_COUNT_WORD_SHIFT 24u

// ---- device_scan.comp: scratch words (binding 2, uint words; device/scratch.glsl says more) ----
#define VKC_STATE_TICKET 0u         // MODE_SCAN's chunk ticket: bit 31 the parity, bits 0-30 the count
#define VKC_STATE_FINISHED 1u       // reduce's finished-group counter
#define VKC_STATE_CARRY_0 2u        // carry slot 0: two words
#define VKC_STATE_CARRY_1 4u        // carry slot 1: two words
#define VKC_STATE_STAT_ROUNDS 6u    // with FLAG_STATS: three adjacent counters
#define VKC_STATE_STAT_WALKED 7u
#define VKC_STATE_STAT_FALLBACKS 8u
#define VKC_STATE_DIRTY 9u          // + parity: status words each parity's last dispatch may have posted
#define VKC_STATE_PREFETCH_SINK 11u // never written in a correct run
#define VKC_STATE_REDUCE_TICKET 12u // integer reduce's piece ticket
#define VKC_STATE_HEADER_WORDS 16u  // chunk statuses or totals start here, on a 32-byte boundary
#define VKC_STATUS_SLOT_WORDS 8u    // words a look-back chunk's status slot takes (32 bytes)
#define VKC_STATUS_BLOCK_WORDS 64u  // the two parities' status arrays alternate in blocks of this many
// Words a chunk's status or total takes: 16 bits of the value a word, at least one word.
#define VKC_STATUS_WORDS(item_bytes) ((item_bytes) <= 2u ? 1u : (item_bytes) / 2u)

// ---- device_scan.comp: tile limits ----
#define VKC_DEVICE_MAX_ITEMS_PER_INVOCATION 32 // the register arrays' length
#define VKC_DEVICE_REGISTER_CHUNK_TILES 4u     // chunks of at most this many staged tiles stay in registers

// ---- radix_sort.comp: device-wide radix sort (src/sort/) ----
#define VKC_SORT_WORKGROUP_SIZE 256u // the shared-memory module: one invocation a digit
#define VKC_SORT_ITEMS 16            // keys an invocation holds: tiles of 4096 keys
// The subgroup module: the same tile over twice the invocations, half the keys each (fewer registers,
// more warps an SM); invocations past the 256 digits only rank, load and store.
#define VKC_SORT_SUBGROUP_WORKGROUP_SIZE 512u
#define VKC_SORT_SUBGROUP_ITEMS 8
#define VKC_SORT_DIGIT_BITS 8u       // a pass sorts by 8 bits of the key
#define VKC_SORT_MAX_PASSES 8u       // 64-bit keys
#define VKC_SORT_MODE_HISTOGRAM 0u   // every pass's digit counts, in one read of the keys
#define VKC_SORT_MODE_PASS 1u        // one digit: rank each tile, look back, scatter
#define VKC_SORT_MODE_SMALL 2u       // a tile of keys or fewer: one work-group, every pass
#define VKC_SORT_MODE_PORTION_COUNT 3u // past one portion: a pass's digits of each portion of its input
#define VKC_SORT_FLAG_DESCENDING 1u
#define VKC_SORT_FLAG_FORCE_FALLBACK 2u // test setting: never trust the previous tile's post
#define VKC_SORT_FLAG_COUNT_ON_DEVICE 4u // the count from binding 3 (its word in bits 24-31)
#define VKC_SORT_FLAG_STATS 8u           // count look-back steps and counted tiles (VKC_SORT_STAT_*)
#define VKC_SORT_TRANSFORM_SHIFT 4u     // bits 4-5: the key's bits are 0 uint, 1 int, 2 float
// VKC_SPEC_KERNEL: 32-bit words of a value (0: keys only, 1, 2 or 4) | key words - 1 (0 or 1) << 4 |
// 8- or 16-bit keys' bytes (1 or 2; 0: 32- and 64-bit keys) << 8 | 1- or 2-byte values' bytes << 10
// (their value words are 1) | 1 << 12 for MODE_SMALL's pipeline | 1 << 13 for a sort of more than
// one portion; the narrow fields in the uchar module only, which reads such items.
#define VKC_SORT_KEY_WORDS_SHIFT 4u
#define VKC_SORT_NARROW_KEY_SHIFT 8u
#define VKC_SORT_NARROW_VALUE_SHIFT 10u
#define VKC_SORT_SMALL_SHIFT 12u // 1: MODE_SMALL's pipeline, which compiles that mode alone (its registers apart)
#define VKC_SORT_PORTIONS_SHIFT 13u // 1: more than one portion; only that pipeline computes portions
// Scratch words: a ticket a pass (eight), three statistics, the counting dispatch's finished
// work-groups, then rows of 8 x 256 digit counts (pass, digit): row 0 every key's (the digits' starts
// once the counting dispatch ends) and, with more than one portion, a row a portion; then two arrays
// of a status word a (tile, digit), pass p posting in array p % 2. A status word is flag << 30 | a
// count (30 bits): past that many keys the tiles look back in portions, each over its own tiles only
// (VKC_SORT_PORTION_TILES tiles, rounded down to whole runs of the counting dispatch's work-groups).
#define VKC_SORT_TICKETS 0u
#define VKC_SORT_STAT_STEPS 8u    // with FLAG_STATS: statuses read by the digits' walks, all passes
#define VKC_SORT_STAT_COUNTED 9u  // tiles counted from their keys (the fallback)
#define VKC_SORT_STAT_TILES 10u   // tiles sorted
#define VKC_SORT_HISTOGRAM_DONE 11u // work-groups of the counting dispatch finished
#define VKC_SORT_HISTOGRAMS 16u
#define VKC_SORT_PORTION_TILES 262143u // tiles whose keys a status word counts: (2^30 - 1) / 4096
#define VKC_SORT_MAX_COUNT 4294967295u // keys one sort takes: 2^32 - 1, a uint index

// ---- select.comp: device-wide select, unique and partition (src/select/) ----
#define VKC_SELECT_WORKGROUP_SIZE 256u
#define VKC_SELECT_ITEMS 16 // items an invocation holds: tiles of 4096 items
// VKC_SPEC_KERNEL: 32-bit words of an item (1 or 2; the 8- and 16-bit modules know their size) |
// the selection << 4 | partition << 8 | the item's order (0 unsigned, 1 signed, 2 float) << 12 |
// the predicate (vkc::SelectPredicate::Kind) << 16: compiled in, the predicate costs a compare or
// two an item
#define VKC_SELECT_BY_SHIFT 4u
#define VKC_SELECT_BY_FLAGGED 0u
#define VKC_SELECT_BY_PREDICATE 1u
#define VKC_SELECT_BY_UNIQUE 2u
#define VKC_SELECT_PARTITION_SHIFT 8u
#define VKC_SELECT_ORDER_SHIFT 12u
#define VKC_SELECT_PREDICATE_SHIFT 16u
// Push-constant flags: single bits, the indirect command's form (vkc::KeptCommand) at bits 8-9, the
// kept count's and the command's words in their bindings (each at most 63), a bit that is never set
// (the look-back orders loads through it), and an IndirectCount's word in bits 24-31.
#define VKC_SELECT_FLAG_FORCE_FALLBACK 0x40u
#define VKC_SELECT_FLAG_COUNT_ON_DEVICE 0x80u
#define VKC_SELECT_COMMAND_SHIFT 8u
#define VKC_SELECT_FLAG_IN_PLACE 0x400u
#define VKC_SELECT_KEPT_WORD_SHIFT 11u
#define VKC_SELECT_COMMAND_WORD_SHIFT 17u
#define VKC_SELECT_FLAG_ZERO_SHIFT 23u
// Scratch words: the ticket, then from VKC_SELECT_STATUSES a slot of VKC_SELECT_STATUS_SLOT words a
// tile (32 bytes, a sector of NVIDIA's L2, so that tiles in flight post apart from the tiles polling
// their neighbours), its first word flag << 30 | the items kept (30 bits).
#define VKC_SELECT_TICKET 0u
#define VKC_SELECT_STATUSES 16u
#define VKC_SELECT_STATUS_SLOT 8u
#define VKC_SELECT_MAX_COUNT 1073741823u // items one select takes: 2^30 - 1, the status word's count

// ---- histogram.comp: device-wide histograms (src/histogram/) ----
#define VKC_HISTOGRAM_WORKGROUP_SIZE 256u
#define VKC_HISTOGRAM_WORDS 16 // 32-bit words of samples an invocation reads a tile: tiles of 16 KiB
#define VKC_HISTOGRAM_SHARED_BINS 4096u // bins over all active channels counted in shared memory
// VKC_SPEC_KERNEL: bytes of a sample (1, 2 or 4) | its kind << 4 (0 uint, 1 int, 2 float, 3 half)
// | the binning << 8 (0 even, 1 range) | channels << 12 | active channels << 16 | device atomics
// << 20 | narrow << 21 (every even integer channel's (upper - lower - 1) x bins fits 32 bits) |
// shift << 22 (every even integer channel's bins are a power of two values wide) | staged levels
// << 26 | a table of 8-bit values' bins << 27 | whole bytes << 28 (8-bit samples, every channel's
// bins a power of two wide over all 256 values: no sample falls outside)
#define VKC_HISTOGRAM_KIND_SHIFT 4u
#define VKC_HISTOGRAM_BINNING_SHIFT 8u
#define VKC_HISTOGRAM_CHANNELS_SHIFT 12u
#define VKC_HISTOGRAM_ACTIVE_SHIFT 16u
#define VKC_HISTOGRAM_DEVICE_ATOMICS_BIT 0x100000u
#define VKC_HISTOGRAM_NARROW_BIT 0x200000u
#define VKC_HISTOGRAM_SHIFT_BIT 0x400000u
#define VKC_HISTOGRAM_STAGED_LEVELS_BIT 0x4000000u
#define VKC_HISTOGRAM_BYTE_TABLE_BIT 0x8000000u
#define VKC_HISTOGRAM_WHOLE_BYTES_BIT 0x10000000u
#define VKC_HISTOGRAM_LOOKUP_WORDS 1028u // the byte table (4 x 256) or staged levels' keys
// Push-constant flags: the count read on the device, the histogram's and the levels' first words in
// their bindings (each at most 63), and an IndirectCount's word in bits 24-31.
#define VKC_HISTOGRAM_FLAG_COUNT_ON_DEVICE 0x1u
#define VKC_HISTOGRAM_OUT_WORD_SHIFT 8u
#define VKC_HISTOGRAM_LEVEL_WORD_SHIFT 16u
// Scratch: VKC_HISTOGRAM_CHANNEL_WORDS words a channel, written by the plan at record time: bins,
// lower (the sample kind's bits, as a float for halves), upper, scale (float: bins / (upper -
// lower); integers: that as a float, the estimate the exact division corrects), the channel's
// first bin, its first level, span (integers: upper - lower - 1) and shift (integers: log2 of a
// bin's width, where that is a power of two).
#define VKC_HISTOGRAM_CHANNEL_WORDS 8u
#define VKC_HISTOGRAM_SCRATCH_WORDS 32u

// ---- segmented.comp: segmented scans and reductions, by key, run-length encoding (src/segmented/) ----
#define VKC_SEGMENTED_WORKGROUP_SIZE 256u
#define VKC_SEGMENTED_ITEMS 8 // items an invocation holds: tiles of 2048 items
// VKC_SPEC_KERNEL: the segments (0 head flags, 1 keys, 2 offsets) | 32-bit words of a key (1 or 2) << 4 | the
// key's order (0 uint, 1 int, 2 float) << 8 | the output (vkc::SegmentedOutput: 0 inclusive scan, 1
// exclusive scan, 2 reduce, 3 run lengths) << 12
#define VKC_SEGMENTED_KEY_WORDS_SHIFT 4u
#define VKC_SEGMENTED_KEY_ORDER_SHIFT 8u
#define VKC_SEGMENTED_OUTPUT_SHIFT 12u
// Push constants: the count, tiles, flags, the spin limit and (by offsets) the number of segments.
// Flags: single bits, the number of segments' word in its binding (at most 63), a bit that is never
// set (the look-back orders loads through it), and an IndirectCount's word in bits 24-31.
#define VKC_SEGMENTED_FLAG_FORCE_FALLBACK 0x1u
#define VKC_SEGMENTED_FLAG_COUNT_ON_DEVICE 0x2u
#define VKC_SEGMENTED_FLAG_IN_PLACE 0x4u
#define VKC_SEGMENTED_FLAG_ZERO_SHIFT 7u
#define VKC_SEGMENTED_SEGMENTS_WORD_SHIFT 8u
// Scratch words: the ticket, then from VKC_SEGMENTED_STATUSES a slot of VKC_SEGMENTED_STATUS_SLOT
// words a tile: flag << 30 | the heads (30 bits), then the value's 16-bit pieces, each flag << 30 | piece.
#define VKC_SEGMENTED_TICKET 0u
#define VKC_SEGMENTED_STATUSES 16u
#define VKC_SEGMENTED_STATUS_SLOT 8u
#define VKC_SEGMENTED_MAX_COUNT 1073741823u // items one segmented pass takes: 2^30 - 1, the heads' count

#endif
