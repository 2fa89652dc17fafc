// Device-wide scan and reduce (Context::scan / reduce, plans recorded into a caller's command buffer,
// host arrays streamed through the device) against the CPU reference (src/verify), at whatever
// subgroup width the entry runs (CTest runs lavapipe at every width, and once with one CPU thread).
#include <vulkan/vulkan.h>

#include "support.hpp"

#include <cmath>
#include <random>

#include "device_scan/shared_memory.hpp"

using namespace vkc;
using Api = verify::DeviceCase::Api;

namespace {
verify::DeviceCase make(Type t, Op op, uint64_t count, bool reduce = false, bool exclusive = false) {
    verify::DeviceCase c;
    c.type = t;
    c.op = op;
    c.count = count;
    c.reduce = reduce;
    c.options.exclusive = exclusive;
    c.options.path = test::preferred_path();
    c.seed = count * 31 + uint64_t(t) * 7 + uint64_t(op);
    return c;
}

uint64_t tile_of(Type t) { return test::context().device().scan_tile(t).items(); }

bool defined(Type t, Op op) { return has_op(t, op); }
} // namespace

TEST_CASE("device scan: every type x op x inclusive, exclusive and reduce") {
    uint64_t seed = 1;
    uint64_t type_index = 0;
    for (Type t : test::every_type()) {
        uint64_t op_index = type_index++;
        for (Op op : test::every_op()) {
            if (!defined(t, op)) continue;
            if (!test::spread(op_index++, 3)) continue; // each type with a third of its ops a width
            uint64_t tile = tile_of(t);
            // Several tiles and a partial one; sizes differ per case.
            uint64_t n = 6 * tile + 1 + (seed * 7919) % (tile - 1);
            // The shared-memory entry runs every (type, op) module, with one of the three in rotation.
            const int only_kind = test::shared_memory_entry() ? int(op_index % 3) : -1;
            for (int kind = 0; kind < 3; ++kind) {
                if (only_kind >= 0 && kind != only_kind) {
                    ++seed;
                    continue;
                }
                verify::DeviceCase c = make(t, op, n, kind == 2, kind == 1);
                c.in_place = seed % 2 == 0;
                c.seed = seed++;
                test::expect_pass(c);
            }
        }
    }
}

// Float min and max return one of the items bit for bit, denormals included (a driver that flushes
// denormals would turn them into zeros unless the shaders move bits), with -0 below +0.
TEST_CASE("device scan: float min and max keep denormals and signed zeros bit for bit") {
    uint64_t seed = 1;
    for (Type t : {Type::f16, Type::f32, Type::f64}) {
        uint64_t tile = tile_of(t);
        for (Op op : {Op::min, Op::max}) {
            for (int kind = 0; kind < 4; ++kind) {
                if (!test::share(seed, 2)) { // each case at half the widths
                    ++seed;
                    continue;
                }
                verify::DeviceCase c = make(t, op, 5 * tile + 3, kind == 2, kind == 1);
                c.options.reproducible = kind == 3;
                c.denormals = true;
                c.seed = seed++;
                test::expect_pass(c);
            }
        }
    }
}

// `staged` reaches the reproducible passes and shared-memory modules, so half of these cases run the
// reproducible scan; the look-back tiles of subgroup modules are raked with vector loads either way.
TEST_CASE("device scan: tiles loaded directly and through shared memory, at several tile shapes") {
    // The tile's shape may change with the count (GPUs scan 2^22 32-bit items or more in 224 x 32 or
    // 256 x 32, and 2^22 f64 in chunks of four 128 x 8 tiles), and the items a look-back posts for (a
    // tile's, or a chunk's) may grow, never fall: a caller sizes the scratch for its largest count, so
    // the scratch a count needs must not fall as the count grows past the sizes that change the tile.
    // A shape the caller sets is kept.
    for (Type t : {Type::u32, Type::f32, Type::u64, Type::f64, Type::i8}) {
        uint64_t large = uint64_t(1) << 27;
        ScanTile large_tile = test::context().device().scan_tile(t, {}, large);
        CHECK(large_tile.items() * large_tile.look_back_chunk_tiles >= tile_of(t));
        for (int log2 : {20, 22, 26}) {
            uint64_t n = uint64_t(1) << log2;
            for (uint64_t below : {uint64_t(1), tile_of(t), 2 * tile_of(t)}) {
                CHECK(test::context().device().scan_scratch_bytes(t, n - below) <= test::context().device().scan_scratch_bytes(t, n));
            }
        }
        ScanOptions fixed;
        fixed.tuning.workgroup_size = 64;
        fixed.tuning.items_per_invocation = 8;
        CHECK(test::context().device().scan_tile(t, fixed, large).workgroup_size == 64);
        CHECK(test::context().device().scan_tile(t, fixed, large).items_per_invocation == 8);
    }
    uint64_t seed = 700;
    uint64_t shape_index = 0;
    for (int staged : {0, 1}) {
        for (uint32_t size : {32u, 96u, 160u}) {
            for (Type t : {Type::u32, Type::f64, Type::i8}) {
                if (!test::share(shape_index++, 2)) {
                    seed++;
                    continue;
                }
                verify::DeviceCase c = make(t, t == Type::f64 ? Op::max : Op::add, 0, false, seed % 2 == 0);
                c.options.tuning.staged = staged;
                c.options.reproducible = (seed / 2) % 2 == 0;
                c.options.tuning.workgroup_size = size;
                // u32: 32 items, the most an invocation holds (GPUs scan 32-bit items 224 x 32 and 256 x 32):
                // work-groups of whole subgroups but not of a power of two (96, 160) make tiles that are not.
                c.options.tuning.items_per_invocation = t == Type::i8 ? 16 : t == Type::u32 ? 32 : 8;
                c.count = 5 * test::context().device().scan_tile(t, c.options).items() + seed % 7;
                c.in_place = seed % 3 == 0;
                c.seed = seed++;
                test::expect_pass(c);
            }
        }
    }
}

TEST_CASE("device scan: sizes 0, 1, a tile and a tile +- 1, many tiles, a random size") {
    std::mt19937_64 rng(7);
    for (Type t : {Type::u32, Type::f64, Type::u8}) {
        uint64_t tile = tile_of(t);
        std::vector<uint64_t> sizes = {0, 1, tile - 1, tile, tile + 1, 300 * tile + 17, 1 + rng() % (40 * tile)};
        for (uint64_t n : sizes) {
            for (int kind = 0; kind < 3; ++kind) {
                Op op = t == Type::f64 ? Op::min : Op::add;
                verify::DeviceCase c = make(t, op, n, kind == 2, kind == 1);
                c.in_place = n % 2 == 1;
                test::expect_pass(c);
            }
        }
    }
}

TEST_CASE("device scan: larger than maxStorageBufferRange, in segments") {
    const DeviceInfo& dev = test::context().info();
    // Only where the range is small enough to fill here (lavapipe: 128 MiB).
    if (dev.max_storage_buffer_range > (256ull << 20)) {
        MESSAGE("maxStorageBufferRange is " << dev.max_storage_buffer_range << " bytes: the segmented path is "
                                            "tested with ScanOptions::test.segment_items below instead");
        return;
    }
    // Each of the three at two of the widths (the shared-memory entry: the first).
    uint64_t n = dev.max_storage_buffer_range / 4 + 12345;
    if (test::share(0, 3)) test::expect_pass(make(Type::u32, Op::add, n));
    verify::DeviceCase c = make(Type::u32, Op::add, n, false, true);
    c.in_place = true;
    if (test::share(1, 3)) test::expect_pass(c);
    if (test::share(2, 3)) test::expect_pass(make(Type::u32, Op::max, n, true));
}

TEST_CASE("device scan: segmented dispatches carry the running total") {
    for (Type t : {Type::u32, Type::i64, Type::f32, Type::u32x2}) {
        Op op = t == Type::u32x2 ? Op::segmented_add : t == Type::f32 ? Op::add : Op::bit_xor;
        uint64_t tile = tile_of(t);
        for (int kind = 0; kind < 3; ++kind) {
            verify::DeviceCase c = make(t, op, 10 * tile + 5, kind == 2, kind == 1);
            c.options.test.segment_items = 3 * tile;
            c.in_place = kind == 0;
            test::expect_pass(c);
            c.options.reproducible = true;
            test::expect_pass(c);
        }
    }
}

TEST_CASE("device scan: recorded into a caller's command buffer at non-zero offsets") {
    uint64_t seed = 300;
    for (Type t : {Type::u32, Type::f64, Type::u32x2, Type::i8, Type::f16}) {
        Op op = t == Type::u32x2 ? Op::segmented_add : t == Type::f64 ? Op::min : Op::add;
        uint64_t tile = tile_of(t);
        for (int kind = 0; kind < 3; ++kind) {
            verify::DeviceCase c = make(t, op, 4 * tile + 3 + seed % 5, kind == 2, kind == 1);
            c.api = Api::recorded;
            c.in_place = kind == 1;
            c.seed = seed++;
            test::expect_pass(c);
        }
    }
    // One tile (a scan) or one chunk (a reduce) records a single dispatch with no fill of the scratch,
    // which holds random bytes here: a kernel that still took a ticket or counted groups would lose
    // its tile or its result.
    for (Type t : {Type::u32, Type::f64, Type::u32x2}) {
        Op op = t == Type::u32x2 ? Op::argmax : Op::add;
        for (uint64_t n : {uint64_t(1), tile_of(t) - 1, tile_of(t)}) {
            for (int kind = 0; kind < 3; ++kind) {
                verify::DeviceCase c = make(t, op, n, kind == 2, kind == 1);
                c.api = Api::recorded;
                c.in_place = kind == 1;
                c.seed = seed++;
                test::expect_pass(c);
            }
        }
    }
    // Segments at offsets, and the empty cases: a scan of nothing records nothing, a reduce the identity.
    verify::DeviceCase c = make(Type::u32, Op::add, 7 * tile_of(Type::u32) + 1);
    c.api = Api::recorded;
    c.options.test.segment_items = 2 * tile_of(Type::u32);
    test::expect_pass(c);
    for (bool reduce : {false, true}) {
        verify::DeviceCase empty = make(Type::i32, Op::min, 0, reduce);
        empty.api = Api::recorded;
        test::expect_pass(empty);
    }
}

// IndirectCount: plans made for a bound, reading the count from a buffer when they execute, in every
// mode, at counts from 0 to the bound and past it (the bound is kept), against the CPU reference; the
// runner checks that nothing past the count changed in the output range, and runs plans on a kept
// scratch twice.
TEST_CASE("device scan: plans whose count is read on the device") {
    uint64_t seed = 5000;
    for (Type t : {Type::u32, Type::f64, Type::u32x2, Type::i8}) {
        Op op = t == Type::u32x2 ? Op::segmented_add : t == Type::f64 ? Op::min : Op::max;
        uint64_t tile = tile_of(t);
        uint64_t bound = 12 * tile + 3;
        for (int kind = 0; kind < 9; ++kind) {
            // 0 scan, 1 exclusive in place, 2 reduce, 3 reproducible, 4 chunks of two tiles, 5 forced
            // fallback, 6 on a kept scratch, 7 exclusive scan and 8 reduce in dispatches of three
            // tiles (five for the bound: the count read by each, from its own first item)
            // (Chunks of several tiles, a pipeline of their own, for the vector widths of u32 and f64.)
            if (kind == 4 && t != Type::u32 && t != Type::f64) continue;
            for (uint64_t n : {uint64_t(0), uint64_t(1), tile - 1, 7 * tile + 5 + seed % 3, bound}) {
                if (kind >= 3 && kind <= 6 && n < tile) continue; // single tiles: kinds 0 to 2, 7 and 8
                if (!test::share(seed, 3)) { // each case at two of the widths
                    ++seed;
                    continue;
                }
                verify::DeviceCase c = make(t, op, n, kind == 2 || kind == 8, kind == 1 || kind == 7);
                c.options.test.segment_items = kind >= 7 ? 3 * tile : 0;
                c.api = Api::recorded;
                c.in_place = kind == 1;
                c.options.reproducible = kind == 3;
                c.options.tuning.look_back_chunk_tiles = kind == 4 ? 2 : 0;
                c.options.test.force_fallback = kind == 5;
                c.options.scratch_zeroed = kind == 6;
                c.indirect_max = bound;
                c.indirect_written = n == bound && kind % 2 ? uint32_t(bound + 1000) : 0;
                c.seed = seed++;
                test::expect_pass(c);
            }
        }
    }
    // More chunks at a smaller count than at the bound (8 tiles take 8 chunks of one, 11 take 6 of
    // two: the chunk totals' room is sized for the most), and a bound of a single tile.
    for (bool reduce : {false, true}) {
        verify::DeviceCase c = make(Type::u32, Op::add, 8 * tile_of(Type::u32), reduce);
        c.api = Api::recorded;
        c.options.tuning.chunks = 8;
        c.options.reproducible = true;
        c.indirect_max = 11 * tile_of(Type::u32);
        test::expect_pass(c);
        c = make(Type::f32, Op::max, tile_of(Type::f32) / 2, reduce);
        c.api = Api::recorded;
        c.indirect_max = tile_of(Type::f32);
        test::expect_pass(c);
    }
}

// The reproducible modes combine floats in an order fixed by the count: a plan that reads its count on
// the device, made for a larger bound, gives the bits of the Context's direct scan and reduce of that
// count (Context::run runs the plan on the Context's queue).
TEST_CASE("device scan: an indirect plan gives the bits of a direct one of its count") {
    Context& ctx = test::context();
    ScanOptions o;
    o.reproducible = true;
    o.path = test::preferred_path();
    const uint64_t tile = ctx.device().scan_tile(Type::f32, o).items();
    const uint64_t bound = 40 * tile;
    REQUIRE(ctx.device().scan_tile(Type::f32, o, bound).items() == tile); // the same split of any count
    std::mt19937 rng(11);
    std::vector<float> items(bound);
    for (float& x : items) x = std::ldexp(float(int32_t(rng() % 2000001) - 1000000), int(rng() % 40) - 20);
    Buffer input = ctx.create_buffer(bound * 4), direct = ctx.create_buffer(bound * 4),
           indirect = ctx.create_buffer(bound * 4), counts = ctx.create_buffer(16);
    ctx.upload(input, items.data(), bound * 4);
    uint64_t scratch_bytes = std::max(ctx.device().scan_scratch_bytes(Type::f32, bound, o), ctx.device().reduce_scratch_bytes(Type::f32, bound, o));
    Buffer scratch = ctx.create_buffer(scratch_bytes);
    for (uint32_t n : {uint32_t(13 * tile + 7), uint32_t(bound), uint32_t(tile / 2)}) {
        ctx.upload(counts, &n, 4, 8);
        IndirectCount count{counts.handle(), 8, bound};
        BufferRange in{input.handle(), 0, bound * 4}, out{indirect.handle(), 0, bound * 4},
            scratch_range{scratch.handle(), 0, scratch_bytes};
        for (bool reduce : {false, true}) {
            if (reduce) ctx.reduce(input, direct, Type::f32, Op::add, n, o);
            else ctx.scan(input, direct, Type::f32, Op::add, n, o);
            ScanPlan plan = reduce ? ctx.device().plan_reduce(Type::f32, Op::add, count, in, out, scratch_range, o)
                                   : ctx.device().plan_scan(Type::f32, Op::add, count, in, out, scratch_range, o);
            ctx.run(plan);
            uint64_t compared = reduce ? 1 : n;
            std::vector<uint32_t> want(compared), got(compared);
            ctx.download(direct, want.data(), compared * 4);
            ctx.download(indirect, got.data(), compared * 4);
            CHECK_MESSAGE(want == got, (reduce ? "reduce" : "scan") << " of " << n << " items");
        }
    }
}

// ScanOptions::scratch_zeroed: the caller zeroes the scratch once and reduce plans record no fill;
// each case runs its plan twice on the same scratch, on different items, so a counter the first run
// left behind would break the second. Context::scan and reduce work this way on their own scratch
// (every other case here runs there, one after another, in every mode).
TEST_CASE("device scan: recorded plans on a scratch the caller keeps zeroed") {
    uint64_t seed = 700;
    for (Type t : {Type::u32, Type::f64, Type::u32x2, Type::i16}) {
        Op op = t == Type::u32x2 ? Op::segmented_add : t == Type::f64 ? Op::max : Op::add;
        uint64_t tile = tile_of(t);
        for (int kind = 0; kind < 5; ++kind) {
            if (!test::share(seed, 2)) { // each case at half the widths
                ++seed;
                continue;
            }
            verify::DeviceCase c = make(t, op, 5 * tile + 1 + seed % 7, kind == 2, kind == 1);
            c.api = Api::recorded;
            c.options.scratch_zeroed = true;
            c.in_place = kind == 1 || kind == 4;
            c.options.reproducible = kind == 3;
            c.options.test.force_fallback = kind == 4;
            c.options.tuning.look_back_chunk_tiles = kind == 0 ? 2 : 0;
            c.seed = seed++;
            test::expect_pass(c);
        }
    }
    // Past one binding: every segment's dispatch finds the state as the one before left it.
    verify::DeviceCase c = make(Type::u32, Op::add, 9 * tile_of(Type::u32) + 5);
    c.api = Api::recorded;
    c.options.scratch_zeroed = true;
    c.options.test.segment_items = 4 * tile_of(Type::u32);
    test::expect_pass(c);
    c.reduce = true;
    test::expect_pass(c);
}

// Look-back scans leave their state ready for the next plan instead of having it zeroed first: each
// dispatch posts in one of two status arrays and zeroes what the dispatch before it posted in the
// other. The Context's own scratch carries that from plan to plan here, through scans that post far
// more chunks than the next one reads, other types (status words of other widths), reduces and
// reproducible scans (whose chunk totals share the words), segments and forced fallbacks. A status
// word left behind would be folded into a later scan.
TEST_CASE("device scan: one scratch kept ready across scans and reduces of every size and type") {
    struct Step {
        Type type;
        uint64_t tiles;
        int kind; // 0 scan, 1 exclusive in place, 2 reduce, 3 reproducible, 4 forced fallback, 5 segments
    };
    // Large, two small, two large: the second small one leaves the first's array as the first large
    // one left it beyond what the small ones reach, so the last large one reads whatever is there.
    const Step steps[] = {{Type::u32, 300, 0}, {Type::u32, 37, 0},  {Type::u32, 40, 0},  {Type::u32, 301, 0},
                          {Type::u32, 302, 1}, {Type::u64, 120, 1}, {Type::i16, 290, 0}, {Type::u32, 299, 2},
                          {Type::f64, 150, 3}, {Type::u32, 303, 0}, {Type::u32, 2, 4},   {Type::f32, 90, 5},
                          {Type::u8, 310, 0},  {Type::u64, 3, 0},   {Type::u32, 304, 1}};
    // A stale word shows only where a tile reads it before its predecessor posts over it (work-groups
    // running side by side), so the sequence runs three times.
    uint64_t seed = 1200;
    for (int round = 0; round < 3; ++round) {
        for (const Step& step : steps) {
            Op op = step.type == Type::f64 || step.type == Type::f32 ? Op::max : Op::add;
            verify::DeviceCase c = make(step.type, op, step.tiles * tile_of(step.type) + seed % 5, step.kind == 2,
                                        step.kind == 1);
            c.in_place = step.kind == 1;
            c.options.reproducible = step.kind == 3;
            c.options.test.force_fallback = step.kind == 4;
            if (step.kind == 5) c.options.test.segment_items = 16 * tile_of(step.type);
            c.seed = seed++;
            test::expect_pass(c);
        }
    }
}

TEST_CASE("device scan: the look-back's fallback path, forced for every tile") {
    uint64_t seed = 500;
    for (Type t : test::every_type()) {
        Op op = t == Type::u32x2 ? Op::segmented_add : is_float(t) ? Op::max : Op::add;
        uint64_t tile = tile_of(t);
        for (bool in_place : {false, true}) {
            verify::DeviceCase c = make(t, op, 9 * tile + seed % 13, false, seed % 2 == 0);
            c.options.test.force_fallback = true;
            c.in_place = in_place;
            c.seed = seed++;
            test::expect_pass(c);
        }
    }
    // Tiles of 32 32-bit items an invocation (GPUs' large scans) take the look-back's first round while
    // their loads are in flight (scan_tile_raked in device_scan.comp).
    for (Type t : {Type::u32, Type::f32}) {
        for (bool in_place : {false, true}) {
            verify::DeviceCase c = make(t, t == Type::f32 ? Op::max : Op::add, 0, false, seed % 2 == 0);
            c.options.tuning.workgroup_size = 64;
            c.options.tuning.items_per_invocation = 32;
            c.count = 9 * test::context().device().scan_tile(t, c.options).items() + seed % 13;
            c.options.test.force_fallback = true;
            c.in_place = in_place;
            c.seed = seed++;
            test::expect_pass(c);
        }
    }
    // Polling disabled: a tile whose predecessor has not posted computes it at once.
    verify::DeviceCase c = make(Type::u64, Op::add, 200 * tile_of(Type::u64) + 3);
    c.options.tuning.spin_limit = 1;
    test::expect_pass(c);
}

// Reduce's last work-group trusts a chunk total by its flag and reads again while one is missing;
// past a bound it computes every chunk's total itself. The test setting takes that path at once,
// for reduce and the reproducible scan (bit-identical runs: the totals computed again must match).
TEST_CASE("device scan: reduce's last work-group computing the chunk totals itself, forced") {
    uint64_t seed = 700;
    for (Type t : test::every_type()) {
        Op op = t == Type::u32x2 ? Op::segmented_add : is_float(t) ? Op::add : Op::bit_xor;
        uint64_t tile = tile_of(t);
        for (int kind = 0; kind < 2; ++kind) {
            // A reduce of integers over 45 tiles in 5 chunks takes pieces by ticket (9 tiles a group).
            verify::DeviceCase c = make(t, op, (kind == 0 ? 45 : 7) * tile + seed % 11, kind == 0);
            c.options.test.force_fallback = true;
            c.options.reproducible = kind == 1;
            c.options.tuning.chunks = 5;
            c.runs = kind == 1 ? 2 : 1;
            c.seed = seed++;
            test::expect_pass(c);
        }
    }
}

// Look-back work-groups that take several tiles: chunks of up to 4 full staged tiles stay in
// registers through the look-back; longer, partial or unstaged chunks are reduced from memory, and
// read again after the look-back to scan them. The fallback reduces a whole chunk. Chunk counts that
// do not divide the tiles leave a short last chunk (partial, so the two ways meet in one scan, or of
// full tiles), and a count of one chunk takes no ticket.
TEST_CASE("device scan: look-back chunks of several tiles, in registers or read twice") {
    uint64_t seed = 900;
    uint64_t type_index = 0;
    for (Type t : test::every_type()) {
        Op op = t == Type::u32x2 ? Op::argmax : is_float(t) ? Op::min : Op::add;
        uint64_t tile = tile_of(t);
        uint64_t chunk_index = type_index++;
        for (uint32_t chunk_tiles : {2u, 4u, 5u}) {
            if (!test::share(chunk_index++, 3)) { // each type with one chunk size a width
                seed += 5;
                continue;
            }
            // ... and a short last chunk of full tiles (of 1 tile for chunks of 2, of 3 for 4 and 5).
            for (uint64_t n : {7 * tile + seed % 5 + 1, chunk_tiles * tile, 3 * chunk_tiles * tile,
                               (chunk_tiles + 3) * tile, tile + 1}) {
                verify::DeviceCase c = make(t, op, n, false, seed % 2 == 0);
                c.options.tuning.look_back_chunk_tiles = chunk_tiles;
                c.options.test.force_fallback = seed % 3 == 0;
                c.options.tuning.staged = seed % 7 == 0 ? 0 : -1;
                c.in_place = seed % 4 < 2;
                c.seed = seed++;
                test::expect_pass(c);
            }
        }
    }
    verify::DeviceCase c = make(Type::u32x2, Op::segmented_add, 11 * tile_of(Type::u32x2) + 5);
    c.options.tuning.look_back_chunk_tiles = 4;
    c.options.test.force_fallback = true;
    c.api = Api::recorded;
    test::expect_pass(c);
}

// The look-back's prefetch (compiled into the 64-bit types' chunks) reads ahead of the chunks in flight
// and stops at the count: whatever it reads, the results stay right, with chunks of one tile and of four
// (f32 and the 64-bit types' one-tile cases check that the flag alone changes nothing), a partial last
// tile, and in place (where the host turns it off). It starts in a look-back's second round, which the
// forced fallback gives every chunk but the first.
TEST_CASE("device scan: the look-back's prefetch changes no result") {
    uint64_t seed = 1700;
    for (Type t : {Type::f32, Type::f64, Type::u64, Type::i64}) {
        uint64_t tile = tile_of(t);
        for (uint32_t chunk_tiles : {1u, 4u}) {
            for (uint64_t n : {150 * tile + seed % 7 + 1, 40 * tile}) {
                if (!test::share(seed, 4)) { // each case at one or two of the widths
                    ++seed;
                    continue;
                }
                verify::DeviceCase c = make(t, is_float(t) ? Op::add : Op::max, n, false, seed % 2 == 0);
                c.options.tuning.look_back_chunk_tiles = chunk_tiles;
                c.options.tuning.look_back_prefetch = 1;
                c.options.test.force_fallback = seed % 2 == 1;
                c.in_place = seed % 5 == 0;
                c.seed = seed++;
                test::expect_pass(c);
            }
        }
    }
}

TEST_CASE("device scan: the reproducible mode gives identical bits run after run") {
    for (Type t : {Type::f32, Type::f64, Type::f16}) {
        uint64_t tile = tile_of(t);
        for (int kind = 0; kind < 3; ++kind) {
            verify::DeviceCase c = make(t, Op::add, 50 * tile + 11, kind == 2, kind == 1);
            c.options.reproducible = true;
            c.runs = 3;
            test::expect_pass(c);
        }
    }
    verify::DeviceCase c = make(Type::u32x2, Op::segmented_add, 20 * tile_of(Type::u32x2) + 1);
    c.options.reproducible = true;
    c.options.tuning.chunks = 3;
    test::expect_pass(c);
}

// The last reduce work-group folds the chunk totals in runs, one an invocation, read 8 at a time:
// here more chunks than invocations, so runs take several reads and a partial one.
TEST_CASE("device scan: reduce and the reproducible scan over more chunks than invocations") {
    struct Job {
        Type type;
        Op op;
    };
    uint64_t seed = 1500;
    for (Job j : {Job{Type::u32, Op::add}, Job{Type::f32, Op::add}, Job{Type::i32, Op::max},
                  Job{Type::u32x2, Op::segmented_add}}) {
        for (int kind = 0; kind < 3; ++kind) { // reduce, reproducible inclusive, reproducible exclusive
            verify::DeviceCase c = make(j.type, j.op, 0, kind == 0, kind == 2);
            c.options.reproducible = kind > 0;
            c.options.tuning.workgroup_size = 16; // rounded up to the subgroup size: 16 to 64 invocations
            c.options.tuning.items_per_invocation = 1;
            c.options.tuning.chunks = 1000; // 1000 tiles: a chunk each
            c.count = 1000 * test::context().device().scan_tile(j.type, c.options).items() - seed % 7;
            c.seed = seed++;
            test::expect_pass(c);
        }
    }
}

// Integer reduces over more than one group take their pieces by ticket where a group's fair share is
// 8 tiles or more (device_scan.comp, reduce_by_ticket): a tile each while the share is at most 256
// tiles, else several, and at most twice the share a group (llvmpipe runs groups one after another,
// so the first ones take all they may). Three groups here, so that shares pass 256 tiles at small
// counts; shares under 8 tiles and one group take no ticket.
TEST_CASE("device scan: integer reduces take pieces of one tile or more by ticket") {
    uint64_t seed = 1700;
    for (Type t : {Type::u32, Type::i64, Type::u8, Type::u32x2}) {
        Op op = t == Type::u32x2 ? Op::argmax : t == Type::i64 ? Op::max : t == Type::u8 ? Op::mul : Op::add;
        uint64_t tile = tile_of(t);
        for (uint64_t tiles : {uint64_t(2), uint64_t(3 * 7), uint64_t(3 * 8), uint64_t(3 * 256), uint64_t(3 * 256 + 1),
                               uint64_t(5000)}) {
            for (uint32_t groups : {1u, 3u}) {
                verify::DeviceCase c = make(t, op, tiles * tile - seed % 3, true);
                c.options.tuning.chunks = groups;
                c.seed = seed++;
                test::expect_pass(c);
            }
        }
    }
}

TEST_CASE("device scan: host arrays streamed through the device in chunks") {
    for (Type t : {Type::u32, Type::f64, Type::i16}) {
        uint64_t tile = tile_of(t);
        for (int kind = 0; kind < 3; ++kind) {
            verify::DeviceCase c = make(t, t == Type::i16 ? Op::max : Op::add, 9 * tile + 2, kind == 2, kind == 1);
            c.api = Api::host;
            c.options.stream_bytes = 2 * tile * size_of(t); // five chunks
            test::expect_pass(c);
        }
    }
    // The typed convenience forms.
    std::vector<uint32_t> ones(10 * tile_of(Type::u32) + 3, 1u);
    std::vector<uint32_t> sums = test::context().scan(std::span<const uint32_t>(ones), Op::add);
    bool counted = true;
    for (size_t i = 0; i < sums.size(); ++i) counted = counted && sums[i] == i + 1;
    CHECK(counted);
    CHECK(test::context().reduce(std::span<const uint32_t>(ones), Op::add) == ones.size());
    CHECK(test::context().reduce(std::span<const uint32_t>(), Op::min) == UINT32_MAX);
}

TEST_CASE("device scan: bad requests get errors that name the problem") {
    Context& ctx = test::context();
    Buffer a = ctx.create_buffer(4096), b = ctx.create_buffer(4096);
    BufferRange whole_a{a.handle(), 0, 4096}, whole_b{b.handle(), 0, 4096};
    auto message = [](auto&& f) {
        try {
            f();
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    std::string m = message([&] { ctx.device().plan_scan(Type::f32, Op::bit_and, 16, whole_a, whole_a, whole_b); });
    CHECK_MESSAGE(m.find("and is not defined on float") != std::string::npos, m);
    m = message([&] { ctx.device().plan_scan(Type::u32, Op::add, 16, {a.handle(), 4, 64}, whole_a, whole_b); });
    CHECK_MESSAGE(m.find("input offset 4 is not a multiple") != std::string::npos, m);
    m = message([&] { ctx.device().plan_scan(Type::u32, Op::add, 2000, whole_a, whole_a, whole_b); });
    CHECK_MESSAGE(m.find("input range holds 4096 bytes; 8000 are needed") != std::string::npos, m);
    m = message([&] { ctx.device().plan_scan(Type::u32, Op::add, 100, whole_a, {a.handle(), 256, 1024}, whole_b); });
    CHECK_MESSAGE(m.find("overlaps the input") != std::string::npos, m);
    m = message([&] { ctx.device().plan_scan(Type::u32, Op::add, 16, {a.handle(), 0, 64}, {a.handle(), 64, 64}, whole_a); });
    CHECK_MESSAGE(m.find("scratch range overlaps") != std::string::npos, m);
    m = message([&] { ctx.device().plan_scan(Type::u32, Op::add, 16, whole_a, whole_a, {b.handle(), 0, 8}); });
    CHECK_MESSAGE(m.find("scratch range holds 8 bytes") != std::string::npos, m);
    m = message([&] { ctx.device().plan_reduce(Type::u32, Op::add, 16, whole_a, {VK_NULL_HANDLE, 0, 4}, whole_b); });
    CHECK_MESSAGE(m.find("result buffer is VK_NULL_HANDLE") != std::string::npos, m);
    m = message([&] { ctx.scan(a, b, Type::u32, Op::add, 4096); });
    CHECK_MESSAGE(m.find("input range holds 4096 bytes; 16384 are needed") != std::string::npos, m);
    // Indirect counts: the count's buffer and offset, its place, and one dispatch's bound.
    m = message([&] { ctx.device().plan_scan(Type::u32, Op::add, IndirectCount{VK_NULL_HANDLE, 0, 16}, whole_a, whole_a, whole_b); });
    CHECK_MESSAGE(m.find("count_buffer is VK_NULL_HANDLE") != std::string::npos, m);
    Buffer result = ctx.create_buffer(64);
    BufferRange whole_result{result.handle(), 0, 64};
    m = message([&] { ctx.device().plan_reduce(Type::u32, Op::add, IndirectCount{result.handle(), 2, 16}, whole_a, whole_result, whole_b); });
    CHECK_MESSAGE(m.find("count_buffer_offset 2 is not a multiple of 4") != std::string::npos, m);
    m = message([&] { ctx.device().plan_scan(Type::u32, Op::add, IndirectCount{b.handle(), 4, 16}, whole_a, whole_a, whole_b); });
    CHECK_MESSAGE(m.find("count lies in the scratch or the output range") != std::string::npos, m);
    m = message([&] { ctx.device().plan_scan(Type::u32, Op::add, IndirectCount{a.handle(), 12, 16}, whole_a, whole_a, whole_b); });
    CHECK_MESSAGE(m.find("count lies in the scratch or the output range") != std::string::npos, m);
    m = message([&] {
        IndirectCount past_uint32{a.handle(), 0, uint64_t(1) << 32};
        ctx.device().plan_reduce(Type::u8, Op::add, past_uint32, whole_a, whole_result, whole_b);
    });
    CHECK_MESSAGE(m.find("max_count of 4294967296 items is past 4294967295") != std::string::npos, m);
}

// Every tile ScanOptions can ask for either runs (its pipeline within maxComputeSharedMemorySize, so
// the validation layer has nothing to say) or is refused before any work with an error naming the
// limit; a stage that would not fit is left out unless the caller asked for it.
TEST_CASE("device scan: every tile shape fits shared memory or is refused naming the limit") {
    Context& ctx = test::context();
    const uint32_t limit = ctx.info().max_shared_memory;
    int ran = 0, refused = 0;
    for (Type t : {Type::u32, Type::f64}) {
        for (uint32_t size : {0u, 1000u, 100000u}) {
            for (uint32_t items : {0u, 32u}) {
                for (int staged : {-1, 1}) {
                    ScanOptions o;
                    o.path = test::preferred_path();
                    o.tuning.workgroup_size = size;
                    o.tuning.items_per_invocation = items;
                    o.tuning.staged = staged;
                    ScanTile tile = ctx.device().scan_tile(t, o);
                    uint64_t stage = tile.staged ? uint64_t(tile.workgroup_size) * tile.items_per_invocation : 1;
                    uint64_t need = device_scan_shared_bytes(t, tile.workgroup_size, stage);
                    CAPTURE(name(t));
                    CAPTURE(tile.workgroup_size);
                    CAPTURE(tile.items_per_invocation);
                    CAPTURE(tile.staged);
                    if (staged < 0 && tile.staged) CHECK(need <= limit); // a default stage always fits
                    uint64_t count = 2 * tile.items() + 5;
                    std::vector<uint32_t> ones(count, 1u);
                    std::vector<double> ones_f64(count, 1.0);
                    auto scan_u32 = [&] { return ctx.scan(std::span<const uint32_t>(ones), Op::add, o); };
                    auto scan_f64 = [&] { return ctx.scan(std::span<const double>(ones_f64), Op::add, o); };
                    uint64_t messages = ctx.validation_messages();
                    if (need > limit) {
                        std::string m = test::error_of([&] {
                            if (t == Type::u32) scan_u32();
                            else scan_f64();
                        });
                        CHECK_MESSAGE(
                            m.find("maxComputeSharedMemorySize is " + std::to_string(limit)) != std::string::npos, m);
                        ++refused;
                    } else if (t == Type::u32) {
                        std::vector<uint32_t> out = scan_u32();
                        CHECK(out.back() == count);
                        ++ran;
                    } else {
                        std::vector<double> out = scan_f64();
                        CHECK(out.back() == double(count));
                        ++ran;
                    }
                    CHECK(ctx.validation_messages() == messages);
                }
            }
        }
    }
    CHECK(ran > 0);
    MESSAGE(ran << " tile shapes ran, " << refused << " refused");
}

// Context::set_timing(on, repeats): the timed work is recorded `repeats` times back to back, each
// between its own timestamps. An out-of-place scan's output is the same, and the time is positive.
TEST_CASE("device scan: timed runs repeated back to back") {
    auto& ctx = test::context();
    CHECK_THROWS_WITH_AS(ctx.set_timing(true, 0), doctest::Contains("repeats"), Error);
    const uint64_t n = 3 * tile_of(Type::u32) + 5;
    std::vector<uint32_t> in(n);
    std::mt19937 rng(7);
    for (uint32_t& x : in) x = rng() & 0xffffu;
    Buffer input = ctx.create_buffer(n * 4), output = ctx.create_buffer(n * 4);
    ctx.upload(input, in.data(), n * 4);
    ctx.set_timing(true, 3);
    ctx.scan(input, output, Type::u32, Op::add, n);
    double scan_ms = ctx.last_gpu_ms();
    BlockRequest block{Collective::block_scan_inclusive, Type::u32, Op::add, {64}, 1, 5, n};
    Buffer block_output = ctx.create_buffer(n * 4);
    ctx.run(block, input, block_output);
    double block_ms = ctx.last_gpu_ms();
    ctx.set_timing(false);
    CHECK(scan_ms > 0);
    CHECK(block_ms > 0);
    std::vector<uint32_t> got(n), got_block(n);
    ctx.download(output, got.data(), n * 4);
    ctx.download(block_output, got_block.data(), n * 4);
    uint32_t sum = 0, tile_sum = 0;
    uint64_t bad = 0, bad_block = 0;
    for (uint64_t i = 0; i < n; ++i) {
        sum += in[i];
        tile_sum = i % 64 == 0 ? in[i] : tile_sum + in[i];
        bad += got[i] != sum;
        bad_block += got_block[i] != tile_sum;
    }
    CHECK(bad == 0);
    CHECK(bad_block == 0);
}
