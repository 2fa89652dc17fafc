// Segmented scans and reductions, scans and reductions by key, and run-length encoding (Context
// calls, plans on a caller's buffers) against the CPU reference of src/verify/segmented.cpp, at
// whatever subgroup width the entry runs (CTest runs lavapipe at every width, on the shared-memory
// path and with one CPU thread).
#include "support.hpp"

#include "verify/segmented.hpp"

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

using namespace vkc;

namespace {

constexpr uint64_t tile = segmented_tile_items;
using verify::SegmentPattern;
using Output = SegmentedOutput;

SegmentedOptions make(Output output, Segments by = Segments::keys, Type key = Type::u32) {
    SegmentedOptions o;
    o.output = output;
    o.by = by;
    o.key = key;
    return o;
}

// One case through the runner shared with `vkc selftest`.
void check_segmented(Type value, Op op, uint64_t n, SegmentPattern p, SegmentedOptions o, uint64_t seed,
                     bool special = false) {
    verify::SegmentedCase c;
    c.value = value;
    c.op = op;
    c.count = n;
    c.pattern = p;
    c.options = o;
    c.options.path = test::preferred_path();
    c.special = special;
    c.seed = seed;
    verify::Outcome outcome = verify::run_segmented_case(test::context(), c);
    INFO(c.label());
    CHECK_MESSAGE(outcome.status == verify::Status::pass, outcome.detail);
}

const Type value_types[] = {Type::u32, Type::i32, Type::f32, Type::u64, Type::i64, Type::f64};

} // namespace

// Each (value type, op) is a module of its own, and each output and key kind a pipeline: every pair
// once, rotating through the outputs, the segments and the key types; a width runs a sixth of them
// (the six widths all).
TEST_CASE("segmented: every value type and operator, by head flags and by keys, scans and reductions") {
    uint64_t index = 0, seed = 10;
    const Output outputs[] = {Output::reduce, Output::scan_inclusive, Output::scan_exclusive};
    for (Type t : value_types) {
        for (Op op : vkc::all_ops()) {
            if (!has_op(t, op) || op == Op::argmax || op == Op::segmented_add) continue;
            const uint64_t i = index++;
            if (!test::share(i, 6)) continue;
            const Segments by = i % 2 ? Segments::head_flags : Segments::keys;
            const SegmentedOptions o = make(outputs[i % 3], by, value_types[(i / 2) % 6]);
            check_segmented(t, op, 3 * tile + 77, SegmentPattern::random, o, seed++);
        }
    }
}

// 8- and 16-bit values are combined as 32-bit integers and stored at their width: sums wrap as the
// type's, min and max keep its range, and an exclusive scan's first item and an empty segment's
// total are the type's identity (its largest value for min). Every (type, op) module once: min and
// max as exclusive scans (the identity at every head), the others each with an output and segments.
TEST_CASE("segmented: 8- and 16-bit values wrap and saturate as their type") {
    struct Shape {
        Op op;
        Output output;
        Segments by;
    };
    const Shape shapes[] = {{Op::add, Output::reduce, Segments::keys},
                            {Op::min, Output::scan_exclusive, Segments::offsets},
                            {Op::max, Output::scan_exclusive, Segments::head_flags},
                            {Op::mul, Output::scan_inclusive, Segments::offsets},
                            {Op::bit_xor, Output::reduce, Segments::offsets}, // empty segments: the identity
                            {Op::logical_or, Output::scan_inclusive, Segments::keys}};
    uint64_t index = 0, seed = 900;
    for (Type t : {Type::u8, Type::i8, Type::u16, Type::i16}) {
        for (const Shape& s : shapes) {
            const uint64_t i = index++;
            if (!test::share(i, 3)) continue;
            SegmentedOptions o = make(s.output, s.by, Type::i32);
            o.test.force_fallback = i % 4 == 3;
            check_segmented(t, s.op, 2 * tile + 77, SegmentPattern::random, o, seed++);
        }
    }
}

// Half values are combined as floats and rounded to half once, when stored: sums within half's
// bound of the exact sum, min and max exact over denormals, signed zeros, infinities and NaNs
// (ignored), products of powers of two exact; the identity where a segment is empty.
TEST_CASE("segmented: half values combined as floats, rounded once when stored") {
    struct Shape {
        Op op;
        Output output;
        Segments by;
        SegmentPattern pattern;
        bool special;
    };
    const Shape shapes[] = {{Op::add, Output::reduce, Segments::keys, SegmentPattern::huge_among_tiny, false},
                            {Op::add, Output::scan_exclusive, Segments::offsets, SegmentPattern::random, false},
                            {Op::min, Output::scan_inclusive, Segments::head_flags, SegmentPattern::short_runs, true},
                            {Op::max, Output::reduce, Segments::offsets, SegmentPattern::random, true},
                            {Op::mul, Output::scan_inclusive, Segments::keys, SegmentPattern::random, false},
                            {Op::max, Output::scan_exclusive, Segments::keys, SegmentPattern::one, true}};
    uint64_t index = 0, seed = 950;
    for (const Shape& s : shapes) {
        const uint64_t i = index++;
        if (!test::share(i, 2)) continue;
        SegmentedOptions o = make(s.output, s.by, Type::f32);
        o.test.force_fallback = i % 3 == 2;
        check_segmented(Type::f16, s.op, 2 * tile + 77, s.pattern, o, seed++, s.special);
    }
}

TEST_CASE("segmented: counts 0, 1, a tile and a tile +- 1, 2^k +- 1, many tiles") {
    uint64_t seed = 100;
    for (uint64_t n : {uint64_t(0), uint64_t(1), uint64_t(2), tile - 1, tile, tile + 1, (uint64_t(1) << 15) - 1,
                       (uint64_t(1) << 15) + 1, 61 * tile + 7}) {
        check_segmented(Type::u32, Op::add, n, SegmentPattern::random, make(Output::reduce), seed++);
        check_segmented(Type::i32, Op::max, n, SegmentPattern::short_runs,
                        make(Output::scan_exclusive, Segments::head_flags), seed++);
    }
}

TEST_CASE("segmented: one segment, every item its own, a huge segment among tiny ones, short segments") {
    uint64_t seed = 200, index = 0;
    for (SegmentPattern p : {SegmentPattern::one, SegmentPattern::every_item, SegmentPattern::huge_among_tiny,
                             SegmentPattern::short_runs}) {
        for (Output output : {Output::reduce, Output::scan_inclusive, Output::scan_exclusive}) {
            for (Segments by : {Segments::keys, Segments::head_flags}) {
                if (!test::share(index++, 3)) continue;
                check_segmented(Type::u64, Op::add, 7 * tile + 5, p, make(output, by, Type::u64), seed++);
            }
        }
    }
}

TEST_CASE("segmented: float keys with NaNs and signed zeros, float values with NaNs, infinities and denormals") {
    uint64_t seed = 300, index = 0;
    for (Type key : {Type::f32, Type::f64}) {
        if (test::share(index++, 3)) {
            check_segmented(Type::u32, Op::add, 2 * tile + 9, SegmentPattern::short_runs,
                            make(Output::reduce, Segments::keys, key), seed);
        }
        if (test::share(index++, 3)) {
            check_segmented(Type::u32, Op::add, 2 * tile + 9, SegmentPattern::random,
                            make(Output::run_lengths, Segments::keys, key), seed + 1);
        }
        seed += 2;
    }
    for (Type value : {Type::f32, Type::f64}) {
        for (Op op : {Op::min, Op::max}) {
            if (!test::share(index++, 3)) continue;
            check_segmented(value, op, 2 * tile + 9, SegmentPattern::short_runs,
                            make(op == Op::min ? Output::reduce : Output::scan_inclusive, Segments::head_flags),
                            seed + index, true);
        }
    }
    if (test::share(index++, 3)) {
        check_segmented(Type::f64, Op::add, 3 * tile + 1, SegmentPattern::huge_among_tiny,
                        make(Output::scan_exclusive, Segments::keys, Type::i32), seed + index);
    }
}

TEST_CASE("segmented: run-length encoding of every key type") {
    uint64_t seed = 400, index = 0;
    for (Type key : value_types) {
        if (!test::share(index++, 3)) continue;
        check_segmented(Type::u32, Op::add, 5 * tile + 3, SegmentPattern::short_runs,
                        make(Output::run_lengths, Segments::keys, key), seed + index);
    }
    check_segmented(Type::u32, Op::add, 5 * tile + 3, SegmentPattern::one, make(Output::run_lengths), seed++);
    check_segmented(Type::u32, Op::add, 5 * tile + 3, SegmentPattern::every_item, make(Output::run_lengths), seed++);
}

TEST_CASE("segmented: reduce by offsets, with empty segments and items outside every segment") {
    uint64_t seed = 450, index = 0;
    const SegmentedOptions o = make(Output::reduce, Segments::offsets);
    for (uint64_t n : {uint64_t(0), uint64_t(1), tile - 1, tile + 1, 13 * tile + 5}) {
        check_segmented(Type::u32, Op::add, n, SegmentPattern::random, o, seed++);
    }
    // Every item a segment: with the empty ones, a tile's offsets overflow the stage.
    for (SegmentPattern p : {SegmentPattern::one, SegmentPattern::every_item, SegmentPattern::huge_among_tiny,
                             SegmentPattern::short_runs}) {
        const Type types[] = {Type::i64, Type::f64, Type::f32, Type::u64};
        const Op ops[] = {Op::max, Op::min, Op::add, Op::add};
        if (!test::share(index, 2)) {
            ++index;
            continue;
        }
        check_segmented(types[index % 4], ops[index % 4], 5 * tile + 7, p, o, seed++, true);
        ++index;
    }
}

TEST_CASE("segmented: scans by offsets, items outside every segment left as they were") {
    uint64_t seed = 470, index = 0;
    for (uint64_t n : {uint64_t(1), tile - 1, tile + 1, 13 * tile + 5}) {
        const Output output = index % 2 ? Output::scan_exclusive : Output::scan_inclusive;
        check_segmented(Type::u32, Op::add, n, SegmentPattern::random, make(output, Segments::offsets), seed++);
        ++index;
    }
    for (SegmentPattern p : {SegmentPattern::one, SegmentPattern::every_item, SegmentPattern::huge_among_tiny,
                             SegmentPattern::short_runs}) {
        const Type types[] = {Type::f64, Type::i32, Type::f32, Type::u64};
        const Op ops[] = {Op::add, Op::min, Op::add, Op::bit_xor};
        if (test::share(index, 2)) {
            const Output output = index % 2 ? Output::scan_exclusive : Output::scan_inclusive;
            check_segmented(types[index % 4], ops[index % 4], 5 * tile + 7, p, make(output, Segments::offsets), seed++, true);
        }
        ++index;
    }
}

TEST_CASE("segmented: non-trivial runs of every key type, none, all, at tile edges") {
    uint64_t seed = 480, index = 0;
    const SegmentedOptions o = make(Output::non_trivial_runs);
    for (Type key : value_types) {
        if (!test::share(index++, 3)) continue;
        check_segmented(Type::u32, Op::add, 5 * tile + 3, SegmentPattern::short_runs,
                        make(Output::non_trivial_runs, Segments::keys, key), seed + index);
    }
    // Every item its own run (none non-trivial), one run, runs across tile and invocation edges.
    for (SegmentPattern p : {SegmentPattern::every_item, SegmentPattern::one, SegmentPattern::random,
                             SegmentPattern::huge_among_tiny}) {
        for (uint64_t n : {uint64_t(0), uint64_t(1), uint64_t(2), tile + 1, 7 * tile + 5}) {
            if (test::share(index++, 2)) check_segmented(Type::u32, Op::add, n, p, o, seed++);
        }
    }
}

TEST_CASE("segmented: the look-back's fallback, forced for every tile, and a spin limit of one poll") {
    uint64_t seed = 500;
    SegmentedOptions forced = make(Output::reduce, Segments::keys, Type::i64);
    forced.test.force_fallback = true;
    check_segmented(Type::f32, Op::max, 9 * tile + 3, SegmentPattern::random, forced, seed++);
    SegmentedOptions scan = make(Output::scan_inclusive, Segments::head_flags);
    scan.test.force_fallback = true;
    check_segmented(Type::u64, Op::add, 9 * tile + 3, SegmentPattern::huge_among_tiny, scan, seed++);
    SegmentedOptions offsets = make(Output::reduce, Segments::offsets);
    offsets.test.force_fallback = true;
    check_segmented(Type::u32, Op::add, 9 * tile + 3, SegmentPattern::every_item, offsets, seed++);
    SegmentedOptions offset_scan = make(Output::scan_exclusive, Segments::offsets);
    offset_scan.test.force_fallback = true;
    check_segmented(Type::i64, Op::max, 9 * tile + 3, SegmentPattern::short_runs, offset_scan, seed++);
    SegmentedOptions non_trivial = make(Output::non_trivial_runs, Segments::keys, Type::f32);
    non_trivial.test.force_fallback = true;
    check_segmented(Type::u32, Op::add, 9 * tile + 3, SegmentPattern::short_runs, non_trivial, seed++);
    SegmentedOptions spin = make(Output::run_lengths);
    spin.spin_limit = 1;
    check_segmented(Type::u32, Op::add, 40 * tile + 3, SegmentPattern::short_runs, spin, seed++);
    SegmentedOptions spin_runs = make(Output::non_trivial_runs);
    spin_runs.spin_limit = 1;
    // (share 2 of 3 runs at 16 lanes, the one-thread entry's width)
    if (test::share(2, 3)) check_segmented(Type::u32, Op::add, 40 * tile + 3, SegmentPattern::random, spin_runs, seed);
    ++seed;
}

// Non-trivial runs and scans by offsets as plans with GPU counts: the outputs, the number of runs,
// and nothing written past them.
TEST_CASE("segmented: non-trivial runs and scans by offsets as plans, with host and GPU counts") {
    Context& ctx = test::context();
    Device& gpu = ctx.device();
    const uint64_t bound = 3 * tile + 50;
    const uint64_t align = std::max<uint64_t>(256, ctx.info().min_storage_buffer_offset_alignment);
    auto round = [&](uint64_t b) { return (b + align - 1) / align * align; };
    const uint64_t scratch_bytes = gpu.segmented_scratch_bytes(Type::u32, bound);
    const uint64_t at_values = 0, at_keys = round(bound * 4), at_out = at_keys + round(bound * 4),
                   at_runs = at_out + round(bound * 4), at_scratch = at_runs + round(bound * 4),
                   at_words = at_scratch + round(scratch_bytes);
    Buffer buffer = ctx.create_buffer(at_words + align);
    const std::vector<uint32_t> sentinel(bound, 0xdeadbeefu);
    uint64_t seed = 650;
    for (uint64_t n : {uint64_t(0), uint64_t(2), tile - 1, bound}) {
        for (bool indirect : {false, true}) {
            for (bool by_offsets : {false, true}) {
                INFO((by_offsets ? "scan by offsets" : "non-trivial runs") << ", count " << n
                                                                           << (indirect ? ", read on the device" : ""));
                const std::vector<uint64_t> key_bits = verify::segment_keys(Type::u32, SegmentPattern::short_runs, bound, seed);
                std::vector<uint32_t> keys(bound), values(bound);
                for (uint64_t i = 0; i < bound; ++i) keys[i] = uint32_t(key_bits[i]), values[i] = uint32_t(i * 2654435761u + seed);
                const std::vector<uint32_t> offsets = {3, 3, 40, uint32_t(tile + 9), uint32_t(n)};
                ++seed;
                std::vector<uint32_t> words(32, 0xcafef00du);
                words[0] = uint32_t(n);
                ctx.upload(buffer, values.data(), bound * 4, at_values);
                ctx.upload(buffer, keys.data(), bound * 4, at_keys);
                if (by_offsets) ctx.upload(buffer, offsets.data(), offsets.size() * 4, at_keys);
                ctx.upload(buffer, sentinel.data(), bound * 4, at_out);
                ctx.upload(buffer, sentinel.data(), bound * 4, at_runs);
                ctx.upload(buffer, words.data(), words.size() * 4, at_words);
                SegmentedOptions o = by_offsets ? make(Output::scan_inclusive, Segments::offsets)
                                                : make(Output::non_trivial_runs);
                o.path = test::preferred_path();
                if (by_offsets && n < tile + 9) continue; // the offsets lie inside the count
                o.segment_count = by_offsets ? uint32_t(offsets.size() - 1) : 0;
                SegmentedRanges r;
                r.values = {buffer.handle(), at_values, bound * 4};
                (by_offsets ? r.offsets : r.heads) = {buffer.handle(), at_keys, by_offsets ? offsets.size() * 4 : bound * 4};
                r.output = {buffer.handle(), at_out, bound * 4};
                r.unique_keys = {buffer.handle(), at_runs, bound * 4};
                r.segments = {buffer.handle(), at_words + 36, 4};
                r.scratch = {buffer.handle(), at_scratch, scratch_bytes};
                SegmentedPlan plan = indirect ? gpu.plan_segmented(Type::u32, Op::add, IndirectCount{buffer.handle(), at_words, bound}, r, o)
                                              : gpu.plan_segmented(Type::u32, Op::add, n, r, o);
                ctx.run(plan);
                std::vector<uint32_t> got(bound), got_runs(bound);
                ctx.download(buffer, got.data(), bound * 4, at_out);
                ctx.download(buffer, got_runs.data(), bound * 4, at_runs);
                ctx.download(buffer, words.data(), words.size() * 4, at_words);
                std::vector<uint32_t> want(sentinel), want_runs(sentinel);
                uint32_t runs = 0;
                if (by_offsets) {
                    for (size_t s = 0; s + 1 < offsets.size(); ++s) {
                        uint32_t running = 0;
                        for (uint32_t i = offsets[s]; i < offsets[s + 1]; ++i) want[i] = running += values[i];
                    }
                } else {
                    for (uint64_t i = 0; i < n;) {
                        uint64_t end = i + 1;
                        while (end < n && keys[end] == keys[i]) ++end;
                        if (end - i > 1) want_runs[runs] = uint32_t(i), want[runs] = uint32_t(end - i), ++runs;
                        i = end;
                    }
                }
                CHECK(got == want);
                CHECK(got_runs == want_runs);
                CHECK(words[9] == (by_offsets ? 0xcafef00du : runs));
                CHECK(words[10] == 0xcafef00du);
            }
        }
    }
}

// Plans on one buffer at offsets off the alignment where the kernel allows it, with host and GPU
// counts, in place and not: the outputs, the number of segments, and a canary past each.
TEST_CASE("segmented: plans with host and GPU counts, in place, the number of segments written on the device") {
    Context& ctx = test::context();
    Device& gpu = ctx.device();
    const uint64_t bound = 4 * tile + 100;
    const uint64_t align = std::max<uint64_t>(256, ctx.info().min_storage_buffer_offset_alignment);
    auto round = [&](uint64_t b) { return (b + align - 1) / align * align; };
    const uint64_t value_bytes = round(bound * 4), key_bytes = round(bound * 8);
    const uint64_t scratch_bytes = gpu.segmented_scratch_bytes(Type::u32, bound);
    const uint64_t at_values = align, at_keys = at_values + value_bytes, at_out = at_keys + key_bytes,
                   at_unique = at_out + value_bytes, at_scratch = at_unique + key_bytes,
                   at_words = at_scratch + round(scratch_bytes);
    Buffer buffer = ctx.create_buffer(at_words + align);
    uint64_t seed = 600;
    for (Output output : {Output::reduce, Output::scan_inclusive, Output::run_lengths}) {
        for (uint64_t n : {uint64_t(0), tile - 1, 3 * tile + 3, bound}) {
            for (bool indirect : {false, true}) {
                const bool in_place = output == Output::scan_inclusive && n % 2 == 1;
                SegmentedOptions o = make(output, Segments::keys, Type::u64);
                o.path = test::preferred_path();
                INFO(segmented_call_name(o) << ", count " << n << (indirect ? ", read on the device" : "")
                                            << (in_place ? ", in place" : ""));
                const std::vector<uint64_t> keys = verify::segment_keys(Type::u64, SegmentPattern::short_runs, bound, seed);
                std::vector<uint32_t> values(bound);
                for (uint64_t i = 0; i < bound; ++i) values[i] = uint32_t(i * 2654435761u + seed);
                ++seed;
                const std::vector<uint32_t> sentinel(bound, 0xdeadbeefu);
                const std::vector<uint64_t> key_sentinel(bound, 0xfeedfacefeedfaceull);
                std::vector<uint32_t> words(32, 0xcafef00du);
                words[0] = uint32_t(n);
                ctx.upload(buffer, values.data(), bound * 4, at_values);
                ctx.upload(buffer, keys.data(), bound * 8, at_keys);
                ctx.upload(buffer, sentinel.data(), bound * 4, at_out);
                ctx.upload(buffer, key_sentinel.data(), bound * 8, at_unique);
                ctx.upload(buffer, words.data(), words.size() * 4, at_words);
                SegmentedRanges r;
                r.values = {buffer.handle(), at_values, bound * 4};
                r.heads = {buffer.handle(), at_keys, bound * 8};
                r.output = in_place ? r.values : BufferRange{buffer.handle(), at_out, bound * 4};
                r.unique_keys = {buffer.handle(), at_unique, bound * 8};
                r.segments = {buffer.handle(), at_words + 36, 4}; // off the alignment
                r.scratch = {buffer.handle(), at_scratch, scratch_bytes};
                SegmentedPlan plan = indirect ? gpu.plan_segmented(Type::u32, Op::add, IndirectCount{buffer.handle(), at_words, bound}, r, o)
                                              : gpu.plan_segmented(Type::u32, Op::add, n, r, o);
                CHECK(plan.dispatches() == (indirect || n > 0 ? 1u : 0u));
                ctx.run(plan);
                std::vector<uint32_t> got(bound);
                std::vector<uint64_t> got_keys(bound);
                ctx.download(buffer, got.data(), bound * 4, in_place ? at_values : at_out);
                ctx.download(buffer, got_keys.data(), bound * 8, at_unique);
                ctx.download(buffer, words.data(), words.size() * 4, at_words);
                // The reference: runs of keys[0, n).
                std::vector<uint32_t> want;
                std::vector<uint64_t> want_keys;
                uint32_t running = 0;
                for (uint64_t i = 0; i < n; ++i) {
                    const bool head = i == 0 || keys[i] != keys[i - 1];
                    if (head && i > 0 && output != Output::scan_inclusive) want.push_back(running);
                    if (head) running = 0, want_keys.push_back(keys[i]);
                    running += output == Output::run_lengths ? 1u : values[i];
                    if (output == Output::scan_inclusive) want.push_back(running);
                }
                if (n > 0 && output != Output::scan_inclusive) want.push_back(running);
                const bool reduces = output != Output::scan_inclusive;
                CHECK(words[9] == (reduces ? uint32_t(want_keys.size()) : 0xcafef00du));
                CHECK(words[10] == 0xcafef00du);
                CHECK(std::equal(want.begin(), want.end(), got.begin()));
                // Past what it writes: the output as it was.
                bool untouched = true;
                for (uint64_t i = want.size(); i < bound; ++i) untouched = untouched && got[i] == (in_place ? values[i] : sentinel[i]);
                CHECK(untouched);
                if (reduces) {
                    CHECK(std::equal(want_keys.begin(), want_keys.end(), got_keys.begin()));
                    bool keys_untouched = true;
                    for (uint64_t i = want_keys.size(); i < bound; ++i) keys_untouched = keys_untouched && got_keys[i] == key_sentinel[i];
                    CHECK(keys_untouched);
                } else {
                    CHECK(got_keys == key_sentinel);
                }
            }
        }
    }
}

TEST_CASE("segmented: Context calls on Buffers and host arrays") {
    if (!test::share(0, 2)) return; // the calls' own work is the same at every width
    Context& ctx = test::context();
    const std::vector<uint32_t> keys = {7, 7, 2, 2, 2, 7};
    const std::vector<float> values = {1, 2, 3, 4, 5, 6};
    ReducedByKey<uint32_t, float> r = ctx.reduce_by_key(std::span<const uint32_t>(keys), std::span<const float>(values), Op::add);
    CHECK(r.keys == std::vector<uint32_t>{7, 2, 7});
    CHECK(r.totals == std::vector<float>{3, 12, 6});
    RunLengths<uint32_t> runs = ctx.run_length_encode(std::span<const uint32_t>(keys));
    CHECK(runs.keys == std::vector<uint32_t>{7, 2, 7});
    CHECK(runs.lengths == std::vector<uint32_t>{2, 3, 1});
    const std::vector<uint32_t> v = {1, 2, 3, 4}, flags = {1, 0, 1, 0};
    CHECK(ctx.segmented_scan(std::span<const uint32_t>(v), std::span<const uint32_t>(flags), Op::add) ==
          std::vector<uint32_t>{1, 3, 3, 7});
    CHECK(ctx.segmented_scan(std::span<const uint32_t>(v), std::span<const uint32_t>(flags), Op::add, false) ==
          std::vector<uint32_t>{0, 1, 0, 3});
    CHECK(ctx.segmented_reduce(std::span<const uint32_t>(v), std::span<const uint32_t>(flags), Op::max) ==
          std::vector<uint32_t>{2, 4});
    CHECK(ctx.scan_by_key(std::span<const uint32_t>(keys), std::span<const float>(values), Op::max) ==
          std::vector<float>{1, 2, 3, 4, 5, 6});
    const std::vector<uint32_t> offsets = {0, 2, 2, 5, 6};
    CHECK(ctx.reduce_segments(std::span<const float>(values), std::span<const uint32_t>(offsets), Op::add) ==
          std::vector<float>{3, 0, 12, 6});
    const std::vector<uint32_t> all_empty = {0, 0, 0};
    CHECK(ctx.reduce_segments(std::span<const float>(), std::span<const uint32_t>(all_empty), Op::max) ==
          std::vector<float>(2, -std::numeric_limits<float>::infinity()));
    const std::vector<int64_t> none;
    CHECK(ctx.run_length_encode(std::span<const int64_t>(none)).keys.empty());
    NonTrivialRuns long_runs = ctx.non_trivial_runs(std::span<const uint32_t>(keys));
    CHECK(long_runs.offsets == std::vector<uint32_t>{0, 2});
    CHECK(long_runs.lengths == std::vector<uint32_t>{2, 3});
    CHECK(ctx.non_trivial_runs(std::span<const int64_t>(none)).offsets.empty());
    const std::vector<uint32_t> five = {1, 2, 3, 4, 5}, scan_offsets = {1, 3, 5};
    CHECK(ctx.scan_segments(std::span<const uint32_t>(five), std::span<const uint32_t>(scan_offsets), Op::add) ==
          std::vector<uint32_t>{1, 2, 5, 4, 9});
    CHECK(ctx.scan_segments(std::span<const uint32_t>(five), std::span<const uint32_t>(scan_offsets), Op::add, false) ==
          std::vector<uint32_t>{1, 0, 2, 0, 4});
    // On Buffers, in place.
    Buffer data = ctx.create_buffer(16), heads = ctx.create_buffer(16);
    ctx.upload(data, v.data(), 16);
    ctx.upload(heads, flags.data(), 16);
    CHECK(ctx.segmented(&data, heads, data, nullptr, Type::u32, Op::add, 4,
                        make(Output::scan_inclusive, Segments::head_flags)) == 4);
    std::vector<uint32_t> got(4);
    ctx.download(data, got.data(), 16);
    CHECK(got == std::vector<uint32_t>{1, 3, 3, 7});
    CHECK(test::error_of([&] { ctx.reduce_by_key(std::span<const uint32_t>(keys), std::span<const float>(values.data(), 5), Op::add); })
              .find("reduce by key: the values and the keys differ in count") != std::string::npos);
}

TEST_CASE("segmented: bad arguments get errors that name the problem") {
    Context& ctx = test::context();
    Device& gpu = ctx.device();
    const uint64_t n = 1000;
    Buffer values = ctx.create_buffer(n * 4), keys = ctx.create_buffer(n * 4), out = ctx.create_buffer(n * 4),
           unique = ctx.create_buffer(n * 4), small = ctx.create_buffer(256),
           scratch = ctx.create_buffer(gpu.segmented_scratch_bytes(Type::u32, n));
    const std::vector<uint32_t> original(n, 0x5a5a5a5au);
    ctx.upload(out, original.data(), n * 4);
    ctx.upload(unique, original.data(), n * 4);
    auto whole = [](const Buffer& b) { return BufferRange{b.handle(), 0, b.size()}; };
    auto contains = [](const std::string& message, const char* part) {
        INFO(message);
        CHECK(message.find(part) != std::string::npos);
    };
    SegmentedRanges r;
    r.values = whole(values);
    r.heads = whole(keys);
    r.output = whole(out);
    r.unique_keys = whole(unique);
    r.segments = {small.handle(), 0, 4};
    r.scratch = whole(scratch);
    const SegmentedOptions o = make(Output::reduce);
    contains(test::error_of([&] { gpu.plan_segmented(Type::u32x2, Op::add, n, r, o); }),
             "reduce by key: values of type uvec2 are not supported");
    contains(test::error_of([&] { gpu.plan_segmented(Type::f32, Op::bit_xor, n, r, o); }), "xor is not defined on float values");
    contains(test::error_of([&] { gpu.plan_segmented(Type::u32, Op::add, n, r, make(Output::reduce, Segments::keys, Type::u16)); }),
             "keys of type ushort are not supported");
    contains(test::error_of([&] { gpu.plan_segmented(Type::f32, Op::add, n, r, make(Output::run_lengths)); }),
             "run lengths are counted as uint add");
    contains(test::error_of([&] { gpu.plan_segmented(Type::u32, Op::add, n, r, make(Output::run_lengths, Segments::head_flags)); }),
             "SegmentedOptions::by is not keys");
    contains(test::error_of([&] { gpu.plan_segmented(Type::u32, Op::add, n, r, make(Output(9))); }),
             "SegmentedOptions::output 9 is not a SegmentedOutput");
    contains(test::error_of([&] { gpu.plan_segmented(Type::u32, Op::add, segmented_max_count + 1, r, o); }),
             "the most one segmented plan takes");
    contains(test::error_of([&] { gpu.plan_segmented(Type::u64, Op::add, n, r, o); }),
             "the values range holds 4000 bytes; 8000 are needed");
    contains(test::error_of([&] { gpu.plan_segmented(Type::u32, Op::add, n, r, make(Output::reduce, Segments::keys, Type::f64)); }),
             "the keys range holds 4000 bytes; 8000 are needed");
    SegmentedRanges no_segments = r;
    no_segments.segments = {};
    contains(test::error_of([&] { gpu.plan_segmented(Type::u32, Op::add, n, no_segments, o); }),
             "the segments buffer is VK_NULL_HANDLE");
    SegmentedRanges overlap = r;
    overlap.unique_keys = r.output;
    contains(test::error_of([&] { gpu.plan_segmented(Type::u32, Op::add, n, overlap, o); }), "overlap");
    SegmentedRanges reduce_in_place = r;
    reduce_in_place.output = r.values;
    contains(test::error_of([&] { gpu.plan_segmented(Type::u32, Op::add, n, reduce_in_place, o); }), "overlap");
    SegmentedRanges short_scratch = r;
    short_scratch.scratch = {scratch.handle(), 0, 16};
    contains(test::error_of([&] { gpu.plan_segmented(Type::u32, Op::add, n, short_scratch, o); }),
             "the scratch range holds 16 bytes");
    contains(test::error_of([&] { gpu.plan_segmented(Type::u32, Op::add, IndirectCount{out.handle(), 8, n}, r, o); }),
             "the IndirectCount's count lies in the output range");
    contains(test::error_of([&] { gpu.plan_segmented(Type::u32, Op::add, n, r, make(Output::non_trivial_runs, Segments::offsets)); }),
             "non-trivial runs: runs are runs of keys; SegmentedOptions::by is not keys");
    contains(test::error_of([&] { gpu.plan_segmented(Type::u64, Op::add, n, r, make(Output::non_trivial_runs)); }),
             "non-trivial runs: run lengths are counted as uint add");
    SegmentedRanges short_runs = r;
    short_runs.unique_keys = {unique.handle(), 0, 1996};
    contains(test::error_of([&] { gpu.plan_segmented(Type::u32, Op::add, n, short_runs, make(Output::non_trivial_runs)); }),
             "the unique keys (offsets) range holds 1996 bytes; 2000 are needed");
    SegmentedOptions offsets_scan = make(Output::scan_inclusive, Segments::offsets);
    offsets_scan.segment_count = 3;
    SegmentedRanges offsets_short = r;
    offsets_short.offsets = {keys.handle(), 0, 12};
    contains(test::error_of([&] { gpu.plan_segmented(Type::u32, Op::add, n, offsets_short, offsets_scan); }),
             "segmented scan: the offsets range holds 12 bytes; 16 are needed");
    SegmentedOptions by_offsets = make(Output::reduce, Segments::offsets);
    by_offsets.segment_count = 1000; // 1001 offsets: past the keys' Buffer
    SegmentedRanges offset_ranges = r;
    offset_ranges.offsets = whole(keys);
    contains(test::error_of([&] { gpu.plan_segmented(Type::u32, Op::add, n, offset_ranges, by_offsets); }),
             "the offsets range holds 4000 bytes; 4004 are needed");
    by_offsets.segment_count = uint32_t(segmented_max_count + 1);
    contains(test::error_of([&] { gpu.plan_segmented(Type::u32, Op::add, n, offset_ranges, by_offsets); }),
             "segment_count 1073741824 is past");
    SegmentedOptions spin = o;
    spin.spin_limit = 70000;
    contains(test::error_of([&] { gpu.plan_segmented(Type::u32, Op::add, n, r, spin); }), "spin_limit 70000 is past 65535");
    contains(test::error_of([&] { ctx.segmented(nullptr, keys, out, &unique, Type::u32, Op::add, n, o); }),
             "reduce by key: no values were given");
    contains(test::error_of([&] { ctx.segmented(&values, keys, out, nullptr, Type::u32, Op::add, n, o); }),
             "no buffer for the unique keys was given");
    contains(test::error_of([&] { ctx.segmented(&values, keys, keys, &unique, Type::u32, Op::add, n, o); }),
             "the keys and an output are the same buffer");
    // Nothing was written.
    std::vector<uint32_t> after(n), keys_after(n);
    ctx.download(out, after.data(), n * 4);
    ctx.download(unique, keys_after.data(), n * 4);
    CHECK(after == original);
    CHECK(keys_after == original);
}
