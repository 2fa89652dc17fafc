// CUB's BlockScan forms: many items per invocation, aggregate, seed, running prefix, partial and
// empty tiles, both algorithms; against the CPU reference (src/verify). Every case scans 4 groups of
// 3 tiles each; the last tiles hold a partial count and none.
#include "support.hpp"

using namespace vkc;
using Prefix = verify::Case::Prefix;

namespace {
void block_case(Collective c, Type t, Op op, WorkgroupShape shape, uint32_t items, Prefix prefix, Path algorithm,
                uint64_t seed, uint32_t tiles_per_group = 3) {
    verify::Case k{c, t, op, shape};
    k.groups = 4;
    k.items_per_invocation = items;
    k.tiles_per_group = tiles_per_group;
    k.prefix = prefix;
    k.path = algorithm;
    k.seed = seed;
    test::expect_pass(k);
}

const std::vector<WorkgroupShape>& cub_shapes() {
    static const std::vector<WorkgroupShape> s = {{17}, {32}, {62}, {65}, {96}, {128},
                                                  {17, 2, 2}, {32, 2, 2}, {62, 2, 2}, {65, 2, 2}, {96, 2, 2}, {128, 2, 2}};
    return s;
}
} // namespace

// Lavapipe compiles a pipeline per (module, shape, items), so the matrix is spread rather than
// multiplied out: every shape x items count meets each collective, and the prefix modes rotate.
TEST_CASE("block scan: CUB's sizes x items 1, 2, 3, 9 x reduce/inclusive/exclusive on uint add") {
    uint64_t seed = 1;
    const Prefix prefixes[4] = {Prefix::none, Prefix::seeded, Prefix::running, Prefix::callback};
    uint64_t index = 0;
    for (const WorkgroupShape& shape : cub_shapes()) {
        uint64_t items_index = index++;
        for (uint32_t items : {1u, 2u, 3u, 9u}) {
            if (!test::share(items_index++, 3)) { // each shape with a third of its item counts a width
                seed += 3;
                continue;
            }
            block_case(Collective::block_reduce, Type::u32, Op::add, shape, items, Prefix::none, Path::subgroup, seed++);
            block_case(Collective::block_scan_inclusive, Type::u32, Op::add, shape, items, prefixes[seed % 4],
                       Path::subgroup, seed++);
            block_case(Collective::block_scan_exclusive, Type::u32, Op::add, shape, items, prefixes[seed % 4],
                       Path::subgroup, seed++);
        }
    }
}

TEST_CASE("block scan: the raking algorithm") {
    uint64_t seed = 500;
    for (WorkgroupShape shape : {WorkgroupShape{17}, WorkgroupShape{32, 2, 2}, WorkgroupShape{65}, WorkgroupShape{128, 2, 2}}) {
        for (uint32_t items : {1u, 9u}) {
            block_case(Collective::block_scan_inclusive, Type::f32, Op::min, shape, items, Prefix::running,
                       Path::shared_memory, seed++);
            block_case(Collective::block_scan_exclusive, Type::i64, Op::add, shape, items, Prefix::seeded,
                       Path::shared_memory, seed++);
            block_case(Collective::block_scan_exclusive, Type::u32, Op::max, shape, items, Prefix::callback,
                       Path::shared_memory, seed++);
        }
    }
}

TEST_CASE("block scan: every type and op, collectives, prefixes and algorithms in rotation") {
    uint64_t seed = 900;
    const Collective collectives[3] = {Collective::block_scan_inclusive, Collective::block_scan_exclusive,
                                       Collective::block_reduce};
    const Prefix prefixes[4] = {Prefix::running, Prefix::seeded, Prefix::none, Prefix::callback};
    int k = 0;
    for (Type t : test::every_type()) {
        for (Op op : test::every_op()) {
            if (!has_op(t, op)) continue;
            Path algorithm = k % 2 ? Path::shared_memory : Path::subgroup;
            if (!test::spread(k / 2, 2)) { // both paths at every width, each pair at half the widths
                ++k;
                ++seed;
                continue;
            }
            block_case(collectives[k % 3], t, op, {65, 2, 1}, 3, prefixes[(k / 3) % 4], algorithm, seed++);
            ++k;
        }
    }
}

// Unstaged tiles (one or two items an invocation) are loaded in batches sized from the tiles a group
// scans (one item: up to 8): whole batches, a last batch cut short (11, 19), and the partial and
// empty tiles of the short last group inside a batch. Staged tiles of one item a lane (3 items) go
// through two register sets taken in turn: odd and even tile counts end on either set.
TEST_CASE("block scan: tiles loaded in batches") {
    uint64_t seed = 1200;
    const Prefix prefixes[4] = {Prefix::running, Prefix::callback, Prefix::seeded, Prefix::none};
    int k = 0;
    for (uint32_t tiles : {1u, 2u, 5u, 8u, 11u, 19u}) {
        for (uint32_t items : {1u, 2u, 3u}) {
            if (test::share(k, 2)) { // each tiles x items at half the widths
                block_case(Collective::block_scan_inclusive, Type::u32, Op::add, {96}, items, prefixes[k % 4],
                           Path::subgroup, seed, tiles);
                block_case(Collective::block_scan_exclusive, Type::f32, Op::max, {32, 2, 1}, items,
                           prefixes[(k + 1) % 4], Path::subgroup, seed + 1, tiles);
            }
            seed += 2;
            ++k;
        }
    }
    block_case(Collective::block_reduce, Type::i64, Op::add, {65}, 1, Prefix::none, Path::subgroup, seed++, 11);
    block_case(Collective::block_scan_inclusive, Type::u16, Op::add, {128}, 1, Prefix::running, Path::shared_memory,
               seed++, 11);
}

// Whole 16-byte vectors an invocation (8 bytes for 16-bit items, 4 for 8-bit): full tiles load and
// store one vector a lane, partial ones one item a lane.
TEST_CASE("block scan: items in whole vectors, every type") {
    uint64_t seed = 1300;
    const Collective collectives[3] = {Collective::block_scan_inclusive, Collective::block_scan_exclusive,
                                       Collective::block_reduce};
    const Prefix prefixes[4] = {Prefix::none, Prefix::running, Prefix::seeded, Prefix::callback};
    const WorkgroupShape shapes[3] = {{32}, {128}, {64, 2, 1}};
    int k = 0;
    for (Type t : test::every_type()) {
        if (!has_op(t, Op::add)) continue; // custom operators' pairs: one item a vector
        uint32_t width = size_of(t) == 8 ? 2u : 4u;
        for (uint32_t items : {width, 2 * width, 4 * width}) {
            if (test::spread(k, 2)) { // each type with some of its item counts a width
                block_case(collectives[k % 3], t, Op::add, shapes[k % 3], items, prefixes[k % 4], Path::subgroup, seed);
            }
            ++seed;
            ++k;
        }
    }
}

TEST_CASE("block scan: running prefix with all-ones input and 128 invocations gives 0..127, then 128..255") {
    auto& ctx = test::context();
    std::vector<uint32_t> ones(256, 1u);
    Buffer in = ctx.create_buffer(1024), out = ctx.create_buffer(1024), record = ctx.create_buffer(2 * 2 * 128 * 4);
    ctx.upload(in, ones.data(), 1024);
    BlockRequest r{Collective::block_scan_exclusive, Type::u32, Op::add, {128}, 1, 2, 256};
    r.running = true; // seed 0
    bool callback = false;
    SUBCASE("running forms") {}
    SUBCASE("prefix callback") { callback = true; }
    r.prefix_callback = callback;
    ctx.run(r, in, out, &record);
    std::vector<uint32_t> got(256), rec(512);
    ctx.download(out, got.data(), 1024);
    ctx.download(record, rec.data(), 2048);
    for (uint32_t i = 0; i < 256; ++i) CHECK(got[i] == i);
    CHECK(rec[128] == 128u);       // running prefix after tile 0 (invocation 0)
    CHECK(rec[3 * 128 + 5] == 256u); // after tile 1, in invocation 5
    CHECK(rec[2 * 128 + 127] == 128u); // tile 1's aggregate, in invocation 127
}

TEST_CASE("block scan: bad requests") {
    auto& ctx = test::context();
    Buffer b = ctx.create_buffer(64);
    BlockRequest r{Collective::block_scan_inclusive, Type::u32, Op::add, {4}, 17, 1, 16};
    CHECK_THROWS_WITH_AS(ctx.run(r, b, b), doctest::Contains("items_per_invocation"), Error);
    r.items_per_invocation = 1;
    r.tiles_per_group = 0;
    CHECK_THROWS_WITH_AS(ctx.run(r, b, b), doctest::Contains("tiles_per_group"), Error);
    r.tiles_per_group = 1;
    r.op = Op::bit_and;
    r.type = Type::f32;
    CHECK_THROWS_WITH_AS(ctx.run(r, b, b), doctest::Contains("not defined"), Error);
    r.type = Type::u32;
    Buffer small = ctx.create_buffer(8);
    CHECK_THROWS_WITH_AS(ctx.run(r, b, b, &small), doctest::Contains("record"), Error);
    r.prefix_callback = true; // without running
    CHECK_THROWS_WITH_AS(ctx.run(r, b, b), doctest::Contains("prefix_callback"), Error);
}
