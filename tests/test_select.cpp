// Device-wide select, unique and partition (Context::select, plans on a caller's buffers) against
// the CPU reference of src/verify/select.cpp, at whatever subgroup width the entry runs (CTest runs
// lavapipe at every width, on the shared-memory path and with one CPU thread).
#include "support.hpp"

#include "raw_kernel.hpp"
#include "verify/select.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>
#include <cstdlib>
#include <limits>
#include <string>

using namespace vkc;

namespace {

constexpr uint64_t tile = select_tile_items;
using verify::FlagPattern;
using verify::SelectPattern;
using Kind = SelectPredicate::Kind;

// One case through the runner shared with `vkc selftest`.
void check_select(Type t, SelectPattern p, uint64_t n, SelectOptions o, FlagPattern f = FlagPattern::random,
                  uint64_t seed = 1) {
    verify::SelectCase c;
    c.item = t;
    c.pattern = p;
    c.flags = f;
    c.count = n;
    c.options = o;
    c.options.path = test::preferred_path();
    c.seed = seed;
    verify::Outcome outcome = verify::run_select_case(test::context(), c);
    INFO(c.label());
    CHECK_MESSAGE(outcome.status == verify::Status::pass, outcome.detail);
}


SelectOptions by(Selection s, bool partition = false) {
    SelectOptions o;
    o.by = s;
    o.partition = partition;
    return o;
}

// A predicate that splits the type's random items about in half, or catches the special values.
SelectPredicate half_of(Type t) {
    switch (t) {
    case Type::i32: return SelectPredicate::less(int32_t(0));
    case Type::f32: return SelectPredicate::greater_equal(0.0f);
    case Type::u64: return SelectPredicate::less(uint64_t(1) << 63);
    case Type::i64: return SelectPredicate::greater(int64_t(-5));
    case Type::f64: return SelectPredicate::less(1.5);
    case Type::i8: return SelectPredicate::less(int8_t(0));
    case Type::u8: return SelectPredicate::less(uint8_t(0x80));
    case Type::i16: return SelectPredicate::greater(int16_t(-5));
    case Type::u16: return SelectPredicate::less(uint16_t(0x8000));
    case Type::f16: return SelectPredicate::greater_equal(half(0.0f));
    default: return SelectPredicate::less(0x80000000u);
    }
}

} // namespace

// Each (item type, selection, partition) is a pipeline of its own: every type with each selection,
// partitioned in turn, and a width runs a sixth of them (the six widths all).
TEST_CASE("select: flagged, by predicate and unique, every item type, select and partition") {
    uint64_t seed = 10;
    uint64_t index = 0;
    for (Type t : {Type::u32, Type::i32, Type::f32, Type::u64, Type::i64, Type::f64, Type::u8, Type::i8, Type::u16,
                   Type::i16, Type::f16}) {
        for (Selection s : {Selection::flagged, Selection::predicate, Selection::unique}) {
            const bool partition = index % 2 == 1;
            if (!test::share(index++, 6)) continue;
            SelectOptions o = by(s, partition);
            o.predicate = half_of(t);
            SelectPattern p = s == Selection::unique ? SelectPattern::runs
                              : s == Selection::predicate && (t == Type::f16 || t == Type::f32 || t == Type::f64)
                                  ? SelectPattern::floats_special
                                  : SelectPattern::random;
            check_select(t, p, 5 * tile + 123, o, FlagPattern::random, seed++);
        }
    }
}

TEST_CASE("select: counts 0, 1, a tile and a tile +- 1, 2^k +- 1, many tiles; all, none and every other kept") {
    uint64_t seed = 100;
    for (uint64_t n : {uint64_t(0), uint64_t(1), uint64_t(2), tile - 1, tile, tile + 1, (uint64_t(1) << 15) - 1,
                       (uint64_t(1) << 15) + 1, 61 * tile + 7}) {
        check_select(Type::u32, SelectPattern::random, n, by(Selection::flagged), FlagPattern::random, seed++);
    }
    for (FlagPattern f : {FlagPattern::all, FlagPattern::none, FlagPattern::alternating}) {
        for (bool partition : {false, true}) {
            check_select(Type::u32, SelectPattern::random, 3 * tile + 5, by(Selection::flagged, partition), f, seed++);
        }
    }
    // unique over one run, and over runs that cross tiles
    check_select(Type::u64, SelectPattern::equal, 3 * tile + 5, by(Selection::unique), FlagPattern::random, seed++);
    check_select(Type::u32, SelectPattern::runs, 17 * tile + 1, by(Selection::unique), FlagPattern::random, seed++);
}

// 8- and 16-bit items are stored a byte or two at a time: counts that end inside a 32-bit word,
// tiles that do, and ranges that start off a word's start (but on the device's alignment) keep
// every neighbouring byte as it was.
TEST_CASE("select: 8- and 16-bit items at every count, and no byte past the output written") {
    uint64_t seed = 400;
    uint64_t index = 0;
    for (uint64_t n : {uint64_t(1), uint64_t(3), tile - 1, tile + 1, 7 * tile + 5}) {
        for (Type t : {Type::u8, Type::i16, Type::f16}) {
            if (!test::share(index++, 3)) continue;
            SelectOptions o = by(Selection::predicate, index % 2 == 0);
            o.predicate = half_of(t);
            check_select(t, t == Type::f16 ? SelectPattern::floats_special : SelectPattern::random, n, o,
                         FlagPattern::random, seed++);
        }
    }
    if (test::share(index++, 3)) check_select(Type::i8, SelectPattern::runs, 3 * tile + 1, by(Selection::unique), FlagPattern::random, seed++);
    if (test::share(index++, 3)) check_select(Type::u16, SelectPattern::random, 2 * tile + 7, by(Selection::flagged, true), FlagPattern::alternating, seed++);

    // A plan on a caller's buffer: the output's bytes end 1 byte into a word; the bytes after it,
    // and the input, keep their values. Then in place (select and unique store only below a
    // tile's end).
    Context& ctx = test::context();
    Device& gpu = ctx.device();
    const uint64_t n = 2 * tile + 9;
    const uint64_t align = std::max<uint64_t>(256, ctx.info().min_storage_buffer_offset_alignment);
    const uint64_t at_out = (n + align - 1) / align * align, at_words = at_out + (n + 64 + align - 1) / align * align;
    const uint64_t scratch_bytes = gpu.select_scratch_bytes(Type::u8, n);
    Buffer buffer = ctx.create_buffer(at_words + 256 + scratch_bytes);
    std::vector<uint64_t> items = verify::select_items(Type::u8, SelectPattern::random, n, 9);
    std::vector<uint8_t> host(at_words, 0xa5);
    for (uint64_t i = 0; i < n; ++i) host[i] = uint8_t(items[i]);
    ctx.upload(buffer, host.data(), host.size());
    for (bool in_place : {false, true}) {
        SelectOptions o = by(Selection::predicate);
        o.predicate = SelectPredicate::less(uint8_t(0x80));
        o.path = test::preferred_path();
        SelectRanges r;
        r.input = {buffer.handle(), 0, n};
        r.output = in_place ? r.input : BufferRange{buffer.handle(), at_out, n};
        r.kept = {buffer.handle(), at_words, 4};
        r.scratch = {buffer.handle(), at_words + 256, scratch_bytes};
        ctx.upload(buffer, host.data(), host.size());
        SelectPlan plan = gpu.plan_select(Type::u8, n, r, o);
        ctx.run(plan);
        std::vector<uint8_t> got(at_words);
        ctx.download(buffer, got.data(), got.size());
        std::vector<uint8_t> want = host;
        uint64_t kept = 0;
        const uint64_t to = in_place ? 0 : at_out;
        for (uint64_t i = 0; i < n; ++i) {
            if (items[i] < 0x80) want[to + kept++] = uint8_t(items[i]);
        }
        uint32_t got_kept = 0;
        ctx.download(buffer, &got_kept, 4, at_words);
        INFO((in_place ? "in place" : "apart"));
        CHECK(got_kept == kept);
        CHECK(got == want);
    }
}

TEST_CASE("select: every predicate, with NaNs, -0 and +0 among the items and the operands") {
    uint64_t seed = 200;
    uint64_t index = 0;
    const uint64_t n = 2 * tile + 31;
    auto run = [&](Type t, SelectPredicate p) {
        SelectOptions o = by(Selection::predicate);
        o.predicate = p;
        check_select(t, SelectPattern::floats_special, n, o, FlagPattern::random, seed++);
    };
    const float nan = std::numeric_limits<float>::quiet_NaN();
    // Each predicate is a pipeline of its own per item order: one item type a kind, rotating through
    // floats, signed and unsigned, and a width runs a fifth of the kinds (the widths together all).
    const Type types[] = {Type::f32, Type::i64, Type::u32, Type::f64, Type::i32, Type::u64};
    for (Kind kind : {Kind::less, Kind::less_equal, Kind::greater, Kind::greater_equal, Kind::equal, Kind::not_equal,
                      Kind::inside, Kind::outside, Kind::bits_all, Kind::bits_any}) {
        if (!test::share(index++, 5)) continue;
        const bool bits = kind == Kind::bits_all || kind == Kind::bits_any;
        switch (types[uint32_t(kind) % 6]) {
        case Type::f32:
            run(Type::f32, bits ? SelectPredicate::make(kind, std::bit_cast<float>(0x80000001u))
                                : SelectPredicate::make(kind, -0.0f, 3.0f));
            break;
        case Type::f64:
            run(Type::f64, bits ? SelectPredicate::make(kind, std::bit_cast<double>(0x8000000000000001ull))
                                : SelectPredicate::make(kind, 0.0, 1e300));
            break;
        case Type::i32: run(Type::i32, SelectPredicate::make(kind, int32_t(-3), int32_t(4))); break;
        case Type::i64: run(Type::i64, SelectPredicate::make(kind, int64_t(-1), int64_t(7))); break;
        case Type::u32: run(Type::u32, SelectPredicate::make(kind, 5u, 0xfffffff8u)); break;
        default: run(Type::u64, SelectPredicate::make(kind, uint64_t(3), ~uint64_t(0) - 2)); break;
        }
    }
    // Half items: the float order on 16 bits, with -0 as an operand and among the items.
    for (Kind kind : {Kind::less, Kind::greater_equal, Kind::equal, Kind::outside, Kind::bits_any}) {
        if (!test::share(index++, 5)) continue;
        run(Type::f16, kind == Kind::bits_any ? SelectPredicate::make(kind, half::from_bits(0x8001))
                                              : SelectPredicate::make(kind, half::from_bits(0x8000), half(2.0f)));
    }
    // Signed 8-bit order: negative operands and items.
    if (test::share(index++, 3)) run(Type::i8, SelectPredicate::inside(int8_t(-3), int8_t(4)));
    // A NaN operand: every comparison fails but not_equal (one of the three a width).
    if (test::share(index++, 3)) run(Type::f32, SelectPredicate::less(nan));
    if (test::share(index++, 3)) run(Type::f32, SelectPredicate::not_equal(nan));
    if (test::share(index++, 3)) run(Type::f32, SelectPredicate::inside(-1.0f, nan));
}

TEST_CASE("select: the look-back's fallback, forced for every tile, and a spin limit of one poll") {
    uint64_t seed = 300;
    SelectOptions o = by(Selection::flagged);
    o.test.force_fallback = true;
    check_select(Type::u32, SelectPattern::random, 9 * tile + 3, o, FlagPattern::random, seed++);
    SelectOptions u = by(Selection::unique, true);
    u.test.force_fallback = true;
    check_select(Type::f64, SelectPattern::runs, 5 * tile + 3, u, FlagPattern::random, seed++);
    SelectOptions s = by(Selection::predicate);
    s.predicate = half_of(Type::i32);
    s.spin_limit = 1;
    check_select(Type::i32, SelectPattern::random, 40 * tile + 3, s, FlagPattern::random, seed++);
}

TEST_CASE("select: plans in place and not, the number kept and indirect commands written on the device") {
    Context& ctx = test::context();
    Device& gpu = ctx.device();
    const uint64_t bound = 6 * tile + 100;
    const uint64_t align = std::max<uint64_t>(256, ctx.info().min_storage_buffer_offset_alignment);
    auto round = [&](uint64_t b) { return (b + align - 1) / align * align; };
    const uint64_t item_bytes = round(bound * 8), flag_bytes = round(bound * 4);
    const uint64_t scratch_bytes = gpu.select_scratch_bytes(Type::u64, bound);
    const uint64_t at_in = align, at_out = at_in + item_bytes, at_flags = at_out + item_bytes,
                   at_scratch = at_flags + flag_bytes, at_words = at_scratch + round(scratch_bytes);
    // The words: the count read on the device at +0, the kept count at +36 (off the alignment), the
    // command at +52, a canary word after each.
    Buffer buffer = ctx.create_buffer(at_words + align);
    uint64_t seed = 500;
    for (KeptCommand command : {KeptCommand::none, KeptCommand::dispatch, KeptCommand::draw, KeptCommand::draw_indexed}) {
        for (uint64_t n : {uint64_t(0), tile - 1, 5 * tile + 3, bound}) {
            for (bool indirect : {false, true}) {
                for (bool in_place : {false, true}) {
                    if (in_place && (command == KeptCommand::draw || n == tile - 1)) continue;
                    SelectOptions o = by(in_place ? Selection::unique : Selection::flagged);
                    o.path = test::preferred_path();
                    o.command = command;
                    o.command_group_items = 64;
                    o.command_vertices = 36;
                    INFO("command " << uint32_t(command) << ", count " << std::to_string(n)
                                    << (indirect ? ", read on the device" : "") << (in_place ? ", unique in place" : ""));
                    std::vector<uint64_t> items = verify::select_items(Type::u64, SelectPattern::runs, bound, seed);
                    std::vector<uint32_t> flags = verify::select_flags(FlagPattern::random, bound, seed++);
                    std::vector<uint64_t> sentinel(bound, 0xdeadbeefdeadbeefull);
                    std::vector<uint32_t> words(32, 0xcafef00du);
                    words[0] = uint32_t(n);
                    ctx.upload(buffer, items.data(), bound * 8, at_in);
                    ctx.upload(buffer, sentinel.data(), bound * 8, at_out);
                    ctx.upload(buffer, flags.data(), bound * 4, at_flags);
                    ctx.upload(buffer, words.data(), words.size() * 4, at_words);
                    SelectRanges r;
                    r.input = {buffer.handle(), at_in, bound * 8};
                    r.output = in_place ? r.input : BufferRange{buffer.handle(), at_out, bound * 8};
                    r.flags = {buffer.handle(), at_flags, bound * 4};
                    r.kept = {buffer.handle(), at_words + 36, 4};
                    r.command = {buffer.handle(), at_words + 52, 20};
                    r.scratch = {buffer.handle(), at_scratch, scratch_bytes};
                    SelectPlan plan = indirect ? gpu.plan_select(Type::u64, IndirectCount{buffer.handle(), at_words, bound}, r, o)
                                               : gpu.plan_select(Type::u64, n, r, o);
                    CHECK(plan.dispatches() == (indirect || n > 0 ? 1u : 0u));
                    ctx.run(plan);
                    std::vector<uint64_t> got(bound);
                    ctx.download(buffer, got.data(), bound * 8, in_place ? at_in : at_out);
                    ctx.download(buffer, words.data(), words.size() * 4, at_words);
                    std::vector<uint64_t> head(items.begin(), items.begin() + n);
                    uint64_t want_kept = 0;
                    std::vector<uint64_t> want = verify::select_reference(Type::u64, head, flags, o, want_kept);
                    CHECK(words[9] == want_kept);
                    CHECK(words[10] == 0xcafef00du);
                    bool ok = true;
                    for (uint64_t i = 0; i < want_kept; ++i) ok = ok && got[i] == want[i];
                    CHECK(ok);
                    // Past the kept items: the output as it was.
                    bool untouched = true;
                    for (uint64_t i = want_kept; i < bound; ++i) {
                        untouched = untouched && got[i] == (in_place ? items[i] : sentinel[i]);
                    }
                    CHECK(untouched);
                    const uint32_t k = uint32_t(want_kept);
                    std::vector<uint32_t> command_words(words.begin() + 13, words.begin() + 19);
                    std::vector<uint32_t> expected(6, 0xcafef00du);
                    if (command == KeptCommand::dispatch) expected = {(k + 63) / 64, 1, 1, 0xcafef00du, 0xcafef00du, 0xcafef00du};
                    if (command == KeptCommand::draw) expected = {36, k, 0, 0, 0xcafef00du, 0xcafef00du};
                    if (command == KeptCommand::draw_indexed) expected = {36, k, 0, 0, 0, 0xcafef00du};
                    CHECK(command_words == expected);
                }
            }
        }
    }
}

// The calls' own work (uploads, downloads, checks) is the same at every width: half the widths run it.
TEST_CASE("select: Context calls on Buffers and host arrays") {
    if (!test::share(0, 2)) return;
    Context& ctx = test::context();
    std::vector<float> values = {3.0f, -1.0f, -0.0f, 0.0f, 7.5f, std::numeric_limits<float>::quiet_NaN(), 2.0f};
    SelectOptions o;
    o.path = test::preferred_path();
    std::vector<float> below = ctx.select_if(std::span<const float>(values), SelectPredicate::less(2.5f), o);
    CHECK(below == std::vector<float>{-1.0f, -0.0f, 0.0f, 2.0f});
    std::vector<int32_t> runs = {4, 4, 4, -2, -2, 9, 4, 4};
    CHECK(ctx.unique(std::span<const int32_t>(runs), o) == std::vector<int32_t>{4, -2, 9, 4});
    std::vector<uint64_t> wide = {1, 2, 3, 4, 5, 6};
    std::vector<uint32_t> flags = {0, 1, 0, 9, 1, 0};
    CHECK(ctx.select_flagged(std::span<const uint64_t>(wide), std::span<const uint32_t>(flags), o) ==
          std::vector<uint64_t>{2, 4, 5});
    uint64_t kept = 0;
    SelectOptions p = o;
    p.by = Selection::predicate;
    p.predicate = SelectPredicate::bits_any(1u);
    std::vector<uint32_t> odd = {1, 2, 3, 4, 5, 6, 7};
    CHECK(ctx.partition(std::span<const uint32_t>(odd), p, kept) == std::vector<uint32_t>{1, 3, 5, 7, 6, 4, 2});
    CHECK(kept == 4);
    // In place on a Buffer: the kept items at the front, the rest as it was.
    std::vector<uint32_t> items(3 * tile + 9);
    for (uint64_t i = 0; i < items.size(); ++i) items[i] = uint32_t(i % 10);
    Buffer buffer = ctx.create_buffer(items.size() * 4);
    ctx.upload(buffer, items.data(), items.size() * 4);
    SelectOptions five = o;
    five.predicate = SelectPredicate::greater_equal(5u);
    const uint64_t want = uint64_t(std::count_if(items.begin(), items.end(), [](uint32_t x) { return x >= 5; }));
    CHECK(ctx.select(buffer, buffer, Type::u32, items.size(), five) == want);
    std::vector<uint32_t> got(items.size());
    ctx.download(buffer, got.data(), got.size() * 4);
    bool ok = true;
    for (uint64_t i = 0; i < want; ++i) ok = ok && got[i] == 5 + i % 5;
    for (uint64_t i = want; i < items.size(); ++i) ok = ok && got[i] == items[i];
    CHECK(ok);
}

// tests/shaders/select_user_predicate.comp: vkc/device_select.glsl with a predicate of the test's own,
// run by a plan through SelectOptions::kernel, the build that matches this entry's path.
TEST_CASE("select: an engine's own predicate compiled into the kernel template") {
    Context& ctx = test::context();
    const bool subgroup = test::preferred_path() == Path::subgroup &&
                          any(ctx.info().features & Feature::subgroup_arithmetic) &&
                          any(ctx.info().features & Feature::subgroup_ballot);
    std::ifstream file(test::test_shader_path(std::string("select_user_predicate_") + (subgroup ? "subgroup" : "shared")),
                       std::ios::binary);
    REQUIRE(file);
    std::vector<char> bytes{std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
    std::vector<uint32_t> code(bytes.size() / 4);
    std::memcpy(code.data(), bytes.data(), code.size() * 4);
    for (Type t : {Type::u32, Type::f64}) {
        for (bool partition : {false, true}) {
            const uint64_t n = 3 * tile + 41;
            std::vector<uint64_t> items = verify::select_items(t, SelectPattern::random, n, 77);
            std::vector<uint64_t> kept, rest;
            for (uint64_t i = 0; i < n; ++i) {
                (std::popcount(uint32_t(items[i])) % 2 == 1 || i % 5 == 0 ? kept : rest).push_back(items[i]);
            }
            const uint64_t bytes_of = n * size_of(t);
            Buffer in = ctx.create_buffer(bytes_of), out = ctx.create_buffer(bytes_of), words = ctx.create_buffer(256),
                   scratch = ctx.create_buffer(ctx.device().select_scratch_bytes(t, n));
            std::vector<uint32_t> packed(n * size_of(t) / 4);
            for (uint64_t i = 0; i < n; ++i) {
                if (size_of(t) == 8) std::memcpy(&packed[2 * i], &items[i], 8);
                else packed[i] = uint32_t(items[i]);
            }
            ctx.upload(in, packed.data(), bytes_of);
            SelectOptions o = by(Selection::predicate, partition);
            o.predicate = t == Type::u32 ? SelectPredicate::less(0u) : SelectPredicate::less(0.0); // never used
            o.path = test::preferred_path();
            o.kernel = code;
            SelectRanges r;
            r.input = {in.handle(), 0, bytes_of};
            r.output = {out.handle(), 0, bytes_of};
            r.kept = {words.handle(), 0, 4};
            r.scratch = {scratch.handle(), 0, scratch.size()};
            SelectPlan plan = ctx.device().plan_select(t, n, r, o);
            ctx.run(plan);
            uint32_t got_kept = 0;
            ctx.download(words, &got_kept, 4);
            ctx.download(out, packed.data(), bytes_of);
            INFO(name(t) << (partition ? " partition" : ""));
            CHECK(got_kept == kept.size());
            if (partition) kept.insert(kept.end(), rest.rbegin(), rest.rend());
            bool ok = true;
            for (uint64_t i = 0; i < kept.size(); ++i) {
                uint64_t g = 0;
                std::memcpy(&g, &packed[i * size_of(t) / 4], size_of(t));
                ok = ok && g == kept[i];
            }
            CHECK(ok);
        }
    }
    SelectOptions flagged = by(Selection::flagged);
    flagged.kernel = code;
    CHECK(test::error_of([&] { ctx.device().select_scratch_bytes(Type::u32, 10, flagged); }) == "");
    std::vector<uint32_t> not_spirv = {1, 2, 3, 4, 5, 6};
    SelectOptions wrong = by(Selection::predicate);
    wrong.kernel = not_spirv;
    Buffer b = ctx.create_buffer(1024);
    SelectRanges r;
    r.input = r.output = {b.handle(), 0, 256};
    r.kept = {b.handle(), 512, 4};
    r.scratch = {b.handle(), 768, 256};
    const std::string message = test::error_of([&] { ctx.device().plan_select(Type::u32, 10, r, wrong); });
    CHECK(message.find("the kernel's code is not SPIR-V") != std::string::npos);
    const std::string by_flags = test::error_of([&] { ctx.device().plan_select(Type::u32, 10, r, flagged); });
    CHECK(by_flags.find("SelectOptions::by is not predicate") != std::string::npos);
    SelectOptions of_bytes = by(Selection::predicate);
    of_bytes.predicate = SelectPredicate::less(uint8_t(3));
    of_bytes.kernel = code;
    const std::string small = test::error_of([&] { ctx.device().plan_select(Type::u8, 10, r, of_bytes); });
    CHECK(small.find("an engine's own kernel selects 32- and 64-bit items; the items are uchar") != std::string::npos);
}

TEST_CASE("select: bad arguments get errors that name the problem") {
    Context& ctx = test::context();
    Device& gpu = ctx.device();
    const uint64_t n = 1000;
    Buffer in = ctx.create_buffer(n * 4), out = ctx.create_buffer(n * 4), flags = ctx.create_buffer(n * 4),
           small = ctx.create_buffer(256), scratch = ctx.create_buffer(gpu.select_scratch_bytes(Type::u32, n));
    std::vector<uint32_t> original(n, 0x5a5a5a5au);
    ctx.upload(out, original.data(), n * 4);
    auto whole = [](const Buffer& b) { return BufferRange{b.handle(), 0, b.size()}; };
    auto contains = [](const std::string& message, const char* part) {
        INFO(message);
        CHECK(message.find(part) != std::string::npos);
    };
    SelectRanges r;
    r.input = whole(in);
    r.output = whole(out);
    r.flags = whole(flags);
    r.kept = {small.handle(), 0, 4};
    r.command = {small.handle(), 16, 20};
    r.scratch = whole(scratch);
    SelectOptions o;
    o.predicate = SelectPredicate::less(3u);
    contains(test::error_of([&] { gpu.plan_select(Type::u32x2, n, r, o); }), "items of type uvec2 are not supported");
    SelectOptions wrong_type = o;
    wrong_type.predicate = SelectPredicate::less(3.0f);
    contains(test::error_of([&] { gpu.plan_select(Type::u32, n, r, wrong_type); }),
             "the predicate's operands are float but the items are uint");
    SelectOptions bad_kind = o;
    bad_kind.predicate.kind = Kind(42);
    contains(test::error_of([&] { gpu.plan_select(Type::u32, n, r, bad_kind); }), "is not a SelectPredicate::Kind");
    SelectOptions group = o;
    group.command = KeptCommand::dispatch;
    group.command_group_items = 0;
    contains(test::error_of([&] { gpu.plan_select(Type::u32, n, r, group); }), "command_group_items 0");
    contains(test::error_of([&] { gpu.plan_select(Type::u32, select_max_count + 1, r, o); }),
             "the most one select takes");
    contains(test::error_of([&] { gpu.plan_select(Type::u64, n, r, SelectOptions{Selection::unique}); }),
             "the input range holds 4000 bytes; 8000 are needed");
    SelectRanges no_kept = r;
    no_kept.kept = {};
    contains(test::error_of([&] { gpu.plan_select(Type::u32, n, no_kept, o); }), "the kept buffer is VK_NULL_HANDLE");
    SelectRanges odd_kept = r;
    odd_kept.kept = {small.handle(), 2, 4};
    contains(test::error_of([&] { gpu.plan_select(Type::u32, n, odd_kept, o); }), "the kept offset 2 is not a multiple");
    SelectOptions with_command = o;
    with_command.command = KeptCommand::draw_indexed;
    SelectRanges short_command = r;
    short_command.command = {small.handle(), 16, 16};
    contains(test::error_of([&] { gpu.plan_select(Type::u32, n, short_command, with_command); }),
             "the command range holds 16 bytes");
    SelectRanges command_on_kept = r;
    command_on_kept.command = {small.handle(), 0, 20};
    contains(test::error_of([&] { gpu.plan_select(Type::u32, n, command_on_kept, with_command); }),
             "the kept range overlaps the command range");
    SelectRanges half_overlap = r;
    half_overlap.output = {in.handle(), 16, n * 4 - 16};
    contains(test::error_of([&] { gpu.plan_select(Type::u32, n / 2, half_overlap, o); }),
             "the input range overlaps the output range");
    SelectRanges in_place = r;
    in_place.output = r.input;
    SelectOptions split = o;
    split.partition = true;
    contains(test::error_of([&] { gpu.plan_select(Type::u32, n, in_place, split); }),
             "partition is not done in place");
    SelectRanges flags_on_output = r;
    flags_on_output.flags = whole(out);
    contains(test::error_of([&] { gpu.plan_select(Type::u32, n, flags_on_output, SelectOptions{Selection::flagged}); }),
             "the output range overlaps the flags range");
    SelectRanges short_scratch = r;
    short_scratch.scratch = {scratch.handle(), 0, 16};
    contains(test::error_of([&] { gpu.plan_select(Type::u32, n, short_scratch, o); }), "the scratch range holds 16 bytes");
    contains(test::error_of([&] {
                 gpu.plan_select(Type::u32, IndirectCount{out.handle(), 8, n}, r, o);
             }),
             "the IndirectCount's count lies in the output range");
    contains(test::error_of([&] { ctx.select(in, out, Type::u32, n, SelectOptions{Selection::flagged}); }),
             "no flags were given");
    contains(test::error_of([&] { ctx.select(in, out, Type::u32, n, o, &flags); }), "flags were given");
    contains(test::error_of([&] { ctx.select(in, out, Type::u32, 2 * n, o); }), "the input buffer holds 4000 bytes");
    SelectOptions command = o;
    command.command = KeptCommand::draw;
    contains(test::error_of([&] { ctx.select(in, out, Type::u32, n, command); }), "an indirect command needs a plan");
    std::vector<uint32_t> two(2);
    std::vector<uint32_t> three(3);
    contains(test::error_of([&] {
                 ctx.select_flagged(std::span<const uint32_t>(two), std::span<const uint32_t>(three));
             }),
             "the items and the flags differ in count");
    // Nothing was written by the refused calls.
    std::vector<uint32_t> after(n);
    ctx.download(out, after.data(), n * 4);
    CHECK(after == original);
}
