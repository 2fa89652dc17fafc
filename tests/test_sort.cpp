// Device-wide radix sort (Context::sort, sort_pairs, plans on a caller's buffers) against
// std::stable_sort on the CPU, at whatever subgroup width the entry runs (CTest runs lavapipe at every
// width, on the shared-memory path and with one CPU thread).
#include "support.hpp"

#include "verify/sort.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

using namespace vkc;

namespace {

constexpr uint64_t tile = sort_tile_keys;
using verify::SortPattern;

// One case through the runner shared with `vkc selftest` (src/verify/sort.cpp).
void check_sort(Type t, SortPattern p, uint64_t n, SortOptions o, uint32_t value_bytes = 0, uint64_t seed = 1) {
    verify::SortCase c;
    c.key = t;
    c.pattern = p;
    c.count = n;
    c.options = o;
    c.options.path = test::preferred_path();
    c.value_bytes = value_bytes;
    c.seed = seed;
    verify::Outcome outcome = verify::run_sort_case(test::context(), c);
    INFO(c.label());
    CHECK_MESSAGE(outcome.status == verify::Status::pass, outcome.detail);
}

} // namespace

TEST_CASE("sort: keys of each type and pattern against std::stable_sort, ascending and descending") {
    uint64_t seed = 10;
    uint64_t index = 0;
    for (Type t : {Type::u32, Type::i32, Type::f32}) {
        for (SortPattern p : {SortPattern::random, SortPattern::equal, SortPattern::sorted, SortPattern::reversed, SortPattern::few,
                          SortPattern::high_bits, SortPattern::low_bits, SortPattern::floats_special}) {
            if (p == SortPattern::floats_special && t != Type::f32) continue;
            for (bool descending : {false, true}) {
                if (!test::spread(index++, 2)) continue;
                SortOptions o;
                o.descending = descending;
                check_sort(t, p, 5 * tile + 123, o, 0, seed++);
            }
        }
    }
}

// 8- and 16-bit keys and 1- and 2-byte values move through the uchar module's 8- and 16-bit views of
// the bindings: each narrow key type and pattern (values of every size in rotation, ascending and
// descending), half keys with -0, denormals, infinities and NaNs, narrow values beside 32- and 64-bit
// keys, a bit range inside 16 bits, small counts and a forced fallback.
TEST_CASE("sort: 8- and 16-bit keys of each type, 1- and 2-byte values") {
    uint64_t seed = 700, index = 0;
    const uint32_t value_sizes[] = {0, 1, 2, 4, 8, 16};
    for (Type t : {Type::u8, Type::i8, Type::u16, Type::i16, Type::f16}) {
        for (SortPattern p : {SortPattern::random, SortPattern::equal, SortPattern::sorted, SortPattern::reversed,
                              SortPattern::few, SortPattern::high_bits, SortPattern::low_bits, SortPattern::floats_special}) {
            if (p == SortPattern::floats_special && t != Type::f16) continue;
            const uint64_t i = index++;
            if (!test::spread(i, 3)) continue;
            SortOptions o;
            o.descending = i % 2 == 1;
            check_sort(t, p, 2 * tile + 77, o, value_sizes[i % 6], seed++);
        }
    }
    SortOptions descending;
    descending.descending = true;
    check_sort(Type::u32, SortPattern::few, 3 * tile + 5, {}, 1, seed++);
    check_sort(Type::f64, SortPattern::random, 2 * tile + 3, descending, 2, seed++);
    SortOptions bits;
    bits.begin_bit = 4;
    bits.end_bit = 12;
    check_sort(Type::u16, SortPattern::random, 2 * tile + 9, bits, 2, seed++);
    for (uint64_t n : {uint64_t(0), uint64_t(1), tile - 1, tile + 1}) check_sort(Type::i8, SortPattern::random, n, {}, 1, seed++);
    SortOptions forced;
    forced.test.force_fallback = true;
    check_sort(Type::f16, SortPattern::floats_special, 5 * tile + 3, forced, 2, seed++);
}

TEST_CASE("sort: counts 0, 1, a tile and a tile +- 1, 2^k +- 1, many tiles") {
    uint64_t seed = 100;
    for (uint64_t n : {uint64_t(0), uint64_t(1), uint64_t(2), tile - 1, tile, tile + 1, (uint64_t(1) << 15) - 1,
                       (uint64_t(1) << 15) + 1, 61 * tile + 7}) {
        check_sort(Type::u32, SortPattern::random, n, {}, 0, seed++);
    }
}

// Each value size is a pipeline of its own: with VKC_TEST_SPREAD a width runs one of them (the plans
// case below runs 8-byte values at every width).
TEST_CASE("sort: pairs keep equal keys in input order, values of 4, 8 and 16 bytes") {
    uint64_t seed = 200;
    uint64_t index = 0;
    for (uint32_t value_bytes : {4u, 8u, 16u}) {
        if (!test::spread(index++, 3)) continue;
        for (SortPattern p : {SortPattern::few, SortPattern::random}) {
            for (bool descending : {false, true}) {
                SortOptions o;
                o.descending = descending;
                check_sort(value_bytes == 8 ? Type::f32 : Type::u32, p, 3 * tile + 77, o, value_bytes, seed++);
            }
        }
        // Three passes whose digit is 0 for every key: each tile copied, values with its keys.
        check_sort(Type::u32, SortPattern::high_bits, 3 * tile + 77, {}, value_bytes, seed++);
    }
}

TEST_CASE("sort: bit ranges, with passes of fewer than 8 bits and none at all") {
    uint64_t seed = 300;
    const std::pair<uint32_t, uint32_t> ranges[] = {{0, 32}, {8, 24}, {4, 12}, {0, 5}, {20, 32}, {16, 16}, {31, 32}};
    uint64_t index = 0;
    for (auto [begin, end] : ranges) {
        if (!test::spread(index++, 2)) continue;
        SortOptions o;
        o.begin_bit = begin;
        o.end_bit = end;
        check_sort(Type::u32, SortPattern::random, 2 * tile + 999, o, 8, seed++);
        o.descending = true;
        check_sort(Type::i32, SortPattern::random, tile + 5, o, 0, seed++);
    }
}

// A sort past 2^30 keys looks back in portions of tiles (a status word counts 30 bits); the test hook
// makes portions of a few tiles, so that small inputs take that path: keys of a portion start after
// the portions before in each digit, and each portion's first tile posts an inclusive prefix.
TEST_CASE("sort: portions of the look-back, as sorts past 2^30 keys take them") {
    uint64_t seed = 450;
    SortOptions o;
    o.test.portion_tiles = 2;
    check_sort(Type::u32, SortPattern::random, 7 * tile + 5, o, 0, seed++);
    check_sort(Type::u32, SortPattern::few, 9 * tile + 1, o, 4, seed++); // stable across portions
    check_sort(Type::u32, SortPattern::high_bits, 5 * tile + 3, o, 8, seed++); // passes that copy
    o.test.portion_tiles = 1;
    o.descending = true;
    check_sort(Type::f64, SortPattern::floats_special, 4 * tile + 17, o, 16, seed++);
    check_sort(Type::u16, SortPattern::random, 6 * tile + 2, o, 2, seed++);
    o.test.portion_tiles = 3;
    o.descending = false;
    o.test.force_fallback = true;
    check_sort(Type::i32, SortPattern::random, 10 * tile + 9, o, 4, seed++);
    // A portion of more tiles than the sort has: one portion, as without the hook.
    o.test.portion_tiles = 100;
    check_sort(Type::u32, SortPattern::random, 3 * tile + 1, o, 0, seed++);
}

TEST_CASE("sort: the look-back's fallback, forced for every tile, and a spin limit of one poll") {
    uint64_t seed = 400;
    for (int kind = 0; kind < 2; ++kind) {
        SortOptions o;
        o.test.force_fallback = kind == 0;
        o.spin_limit = kind == 1 ? 1 : 0;
        check_sort(Type::u32, SortPattern::random, 13 * tile + 5, o, 8, seed++);
        check_sort(Type::f32, SortPattern::floats_special, 9 * tile + 1, o, 0, seed++);
    }
}

// 64-bit keys: two words a key, eight passes, a digit across the words where a bit range puts one.
TEST_CASE("sort: 64-bit keys of each type and pattern, with values, by bit ranges across the words") {
    uint64_t seed = 600;
    uint64_t index = 0;
    for (Type t : {Type::u64, Type::i64, Type::f64}) {
        for (SortPattern p : {SortPattern::random, SortPattern::equal, SortPattern::reversed, SortPattern::few,
                              SortPattern::high_bits, SortPattern::low_bits, SortPattern::floats_special}) {
            if (p == SortPattern::floats_special && t != Type::f64) continue;
            if (!test::spread(index++, 2)) continue;
            SortOptions o;
            o.descending = index % 3 == 0;
            check_sort(t, p, 3 * tile + 77, o, 0, seed++);
        }
    }
    // Pairs, a pipeline of their own, and bit ranges with them: at half the widths with VKC_TEST_SPREAD.
    if (test::spread(index++, 2)) {
        SortOptions down;
        down.descending = true;
        check_sort(Type::u64, SortPattern::few, 2 * tile + 5, {}, 8, seed++);
        check_sort(Type::f64, SortPattern::floats_special, 2 * tile + 5, down, 8, seed++);
        const std::pair<uint32_t, uint32_t> ranges[] = {{28, 44}, {32, 64}, {61, 64}, {4, 36}};
        for (auto [begin, end] : ranges) {
            SortOptions o;
            o.begin_bit = begin;
            o.end_bit = end;
            check_sort(Type::i64, SortPattern::random, tile + 9, o, 8, seed++);
        }
    }
    SortOptions forced;
    forced.test.force_fallback = true;
    check_sort(Type::u64, SortPattern::random, 5 * tile + 3, forced, 0, seed++);
}

TEST_CASE("sort: floats order as numbers, -0 before +0, NaNs at the ends") {
    std::vector<float> keys = {3.5f, -0.0f, 0.0f, -1.0f, std::numeric_limits<float>::infinity(), 1e-45f,
                               -std::numeric_limits<float>::infinity(), 2.0f, -1e-45f};
    std::vector<float> got = test::context().sort(std::span<const float>(keys));
    std::vector<float> want = {-std::numeric_limits<float>::infinity(), -1.0f, -1e-45f, -0.0f, 0.0f, 1e-45f, 2.0f,
                               3.5f, std::numeric_limits<float>::infinity()};
    REQUIRE(got.size() == want.size());
    for (size_t i = 0; i < want.size(); ++i) CHECK(std::bit_cast<uint32_t>(got[i]) == std::bit_cast<uint32_t>(want[i]));
    std::vector<uint32_t> nan_keys = {0x7fc00000u, 0x3f800000u, 0xffc00000u, 0xbf800000u};
    std::vector<uint32_t> with_nans(nan_keys);
    test::context().sort_host(with_nans.data(), nullptr, with_nans.size(), Type::f32, 0, {});
    CHECK(with_nans == std::vector<uint32_t>{0xffc00000u, 0xbf800000u, 0x3f800000u, 0x7fc00000u});
    std::vector<int32_t> ints = {5, -3, 0, std::numeric_limits<int32_t>::min(), 7, -1};
    SortOptions down;
    down.descending = true;
    std::vector<int32_t> sorted_down = test::context().sort(std::span<const int32_t>(ints), down);
    CHECK(sorted_down == std::vector<int32_t>{7, 5, 0, -1, -3, std::numeric_limits<int32_t>::min()});
    std::vector<double> doubles = {2.5, -0.0, 0.0, -std::numeric_limits<double>::infinity(), 4.9e-324, -1e300, 1e300};
    std::vector<double> got_doubles = test::context().sort(std::span<const double>(doubles));
    std::vector<double> want_doubles = {-std::numeric_limits<double>::infinity(), -1e300, -0.0, 0.0, 4.9e-324, 2.5, 1e300};
    REQUIRE(got_doubles.size() == want_doubles.size());
    for (size_t i = 0; i < want_doubles.size(); ++i) {
        CHECK(std::bit_cast<uint64_t>(got_doubles[i]) == std::bit_cast<uint64_t>(want_doubles[i]));
    }
    std::vector<int64_t> longs = {5, -3, std::numeric_limits<int64_t>::max(), std::numeric_limits<int64_t>::min(),
                                  int64_t(1) << 40, -(int64_t(1) << 40)};
    CHECK(test::context().sort(std::span<const int64_t>(longs), down) ==
          std::vector<int64_t>{std::numeric_limits<int64_t>::max(), int64_t(1) << 40, 5, -3, -(int64_t(1) << 40),
                               std::numeric_limits<int64_t>::min()});
}

// Plans on ranges of one buffer at offsets, run on the Context's queue: the result in the alternate
// range for an odd number of passes; a count read on the device, with the keys past it untouched.
TEST_CASE("sort: plans on a caller's ranges, double-buffered, with the count read on the device") {
    Context& ctx = test::context();
    Device& gpu = ctx.device();
    const uint64_t bound = 6 * tile + 100;
    const uint64_t align = std::max<uint64_t>(256, ctx.info().min_storage_buffer_offset_alignment);
    auto round = [&](uint64_t b) { return (b + align - 1) / align * align; };
    const uint64_t key_bytes = round(bound * 4), value_bytes = round(bound * 8);
    // Plans with a count read on the device look back in portions of two tiles (the test hook), which
    // need more scratch than one portion.
    SortOptions two_tile_portions;
    two_tile_portions.test.portion_tiles = 2;
    const uint64_t scratch_bytes = gpu.sort_scratch_bytes(Type::u32, bound, two_tile_portions);
    CHECK(scratch_bytes > gpu.sort_scratch_bytes(Type::u32, bound));
    const uint64_t at_keys = align, at_alt = at_keys + key_bytes, at_values = at_alt + key_bytes,
                   at_values_alt = at_values + value_bytes, at_scratch = at_values_alt + value_bytes,
                   at_count = at_scratch + round(scratch_bytes);
    Buffer buffer = ctx.create_buffer(at_count + align);
    // Probed on the Context's queue now, so the plans below may take the subgroup module.
    const bool packed_512 = ctx.subgroups_packed({512});
    uint64_t seed = 500;
    for (uint32_t end_bit : {32u, 24u}) {
        for (uint64_t n : {uint64_t(0), tile - 1, 5 * tile + 3, bound}) {
            for (bool indirect : {false, true}) {
                SortOptions o;
                o.end_bit = end_bit;
                o.path = test::preferred_path();
                o.test.portion_tiles = indirect ? 2 : 0;
                INFO("end bit " << end_bit << ", count " << std::to_string(n) << std::string(indirect ? ", read on the device" : ""));
                std::vector<uint32_t> keys = verify::sort_keys(SortPattern::random, bound, seed++);
                std::vector<uint32_t> values(2 * bound);
                for (uint64_t i = 0; i < 2 * bound; ++i) values[i] = uint32_t(i);
                std::vector<uint32_t> sentinel(bound, 0xdeadbeefu);
                ctx.upload(buffer, keys.data(), bound * 4, at_keys);
                ctx.upload(buffer, sentinel.data(), bound * 4, at_alt);
                ctx.upload(buffer, values.data(), bound * 8, at_values);
                uint32_t count_word = uint32_t(n);
                ctx.upload(buffer, &count_word, 4, at_count);
                BufferRange k{buffer.handle(), at_keys, bound * 4}, ka{buffer.handle(), at_alt, bound * 4},
                    v{buffer.handle(), at_values, bound * 8}, va{buffer.handle(), at_values_alt, bound * 8},
                    s{buffer.handle(), at_scratch, scratch_bytes};
                SortPlan plan = indirect ? gpu.plan_sort_pairs(Type::u32, 8, IndirectCount{buffer.handle(), at_count, bound},
                                                               k, ka, v, va, s, o)
                                         : gpu.plan_sort_pairs(Type::u32, 8, n, k, ka, v, va, s, o);
                // A count read on the device records the passes of its bound, whatever it reads.
                uint32_t want_passes = indirect || n > 0 ? end_bit / 8 : 0;
                CHECK(plan.passes() == want_passes);
                // The ballot ranking where the device packs 512 invocations into subgroups of 16 to
                // 128 (lavapipe: at 16 lanes; at 32 and 64 it fills a subgroup with 16 invocations of
                // such a work-group), else the shared-memory ranking.
                const DeviceInfo& info = ctx.info();
                bool ballots = o.path == Path::subgroup && info.min_subgroup_size >= 16 && info.max_subgroup_size <= 128 &&
                               info.max_workgroup_invocations >= 512 && packed_512 &&
                               any(info.features & Feature::subgroup_ballot);
                CHECK(plan.path() == (ballots ? Path::subgroup : Path::shared_memory));
                CHECK(plan.result_in_alternate() == (want_passes % 2 == 1));
                ctx.run(plan);
                std::vector<uint32_t> got(bound), got_values(2 * bound);
                bool alternate = plan.result_in_alternate();
                ctx.download(buffer, got.data(), bound * 4, alternate ? at_alt : at_keys);
                ctx.download(buffer, got_values.data(), bound * 8, alternate ? at_values_alt : at_values);
                std::vector<uint32_t> head(keys.begin(), keys.begin() + n);
                std::vector<uint32_t> order = verify::sort_reference_order(Type::u32, head, o);
                bool ok = true;
                for (uint64_t i = 0; i < n; ++i) {
                    ok = ok && got[i] == head[order[i]] && got_values[2 * i] == 2 * order[i] &&
                         got_values[2 * i + 1] == 2 * order[i] + 1;
                }
                CHECK(ok);
                // Past the count: the keys' range as uploaded, the alternate's sentinel.
                bool untouched = true;
                for (uint64_t i = n; i < bound; ++i) untouched = untouched && got[i] == (alternate ? 0xdeadbeefu : keys[i]);
                CHECK(untouched);
            }
        }
    }
}

// A tile of keys or fewer: one dispatch of one work-group takes every pass (MODE_SMALL), reading
// the keys and writing the range the pass count puts the result in (in place for an even count).
TEST_CASE("sort: a tile of keys or fewer in one dispatch, every key type, values, bit ranges, counts on the device") {
    uint64_t seed = 900, index = 0;
    const uint32_t value_sizes[] = {0, 4, 1, 8, 2, 16};
    const uint64_t counts[] = {1, 2, 37, tile - 1, tile};
    for (Type t : {Type::u32, Type::i32, Type::f32, Type::u64, Type::i64, Type::f64, Type::u8, Type::i8, Type::u16,
                   Type::f16}) {
        const uint64_t i = index++;
        SortOptions o;
        o.descending = i % 2 == 1;
        const SortPattern p = is_float(t) ? SortPattern::floats_special : i % 3 == 0 ? SortPattern::few : SortPattern::random;
        check_sort(t, p, counts[i % 5], o, value_sizes[i % 6], seed++);
    }
    const std::pair<uint32_t, uint32_t> ranges[] = {{4, 12}, {8, 24}, {0, 5}, {16, 16}};
    for (auto [begin, end] : ranges) { // one pass (the alternate), two (in place), a narrow one, none
        SortOptions o;
        o.begin_bit = begin;
        o.end_bit = end;
        check_sort(Type::u32, SortPattern::random, tile - 3, o, 4, seed++);
    }

    Context& ctx = test::context();
    Device& gpu = ctx.device();
    const uint64_t n = tile;
    Buffer keys = ctx.create_buffer(n * 4), alt = ctx.create_buffer(n * 4), count = ctx.create_buffer(4),
           scratch = ctx.create_buffer(gpu.sort_scratch_bytes(Type::u32, n + 1));
    auto whole = [](const Buffer& b) { return BufferRange{b.handle(), 0, b.size()}; };
    CHECK(gpu.plan_sort(Type::u32, n, whole(keys), whole(alt), whole(scratch)).dispatches() == 1);
    Buffer more = ctx.create_buffer((n + 1) * 4), more_alt = ctx.create_buffer((n + 1) * 4);
    CHECK(gpu.plan_sort(Type::u32, n + 1, whole(more), whole(more_alt), whole(scratch)).dispatches() == 5);
    // A count read on the device with a bound of a tile: one dispatch, the keys past the count left as
    // they were (four passes: the result in place).
    std::vector<uint32_t> input = verify::sort_keys(SortPattern::random, n, seed++);
    const uint32_t live = 1000;
    ctx.upload(keys, input.data(), n * 4);
    ctx.upload(count, &live, 4);
    SortPlan plan = gpu.plan_sort(Type::u32, IndirectCount{count.handle(), 0, n}, whole(keys), whole(alt), whole(scratch));
    CHECK(plan.dispatches() == 1);
    CHECK_FALSE(plan.result_in_alternate());
    ctx.run(plan);
    std::vector<uint32_t> got(n);
    ctx.download(keys, got.data(), n * 4);
    std::vector<uint32_t> want(input.begin(), input.begin() + live);
    std::sort(want.begin(), want.end());
    CHECK(std::equal(want.begin(), want.end(), got.begin()));
    CHECK(std::equal(input.begin() + live, input.end(), got.begin() + live));
}

TEST_CASE("sort: bad arguments get errors that name the problem") {
    Context& ctx = test::context();
    Device& gpu = ctx.device();
    const uint64_t n = 1000;
    Buffer keys = ctx.create_buffer(n * 4), alt = ctx.create_buffer(n * 4), values = ctx.create_buffer(n * 4),
           values_alt = ctx.create_buffer(n * 4), scratch = ctx.create_buffer(gpu.sort_scratch_bytes(Type::u32, n));
    std::vector<uint32_t> original(n);
    for (uint64_t i = 0; i < n; ++i) original[i] = uint32_t(n - i);
    ctx.upload(keys, original.data(), n * 4);
    auto whole = [](const Buffer& b) { return BufferRange{b.handle(), 0, b.size()}; };
    auto contains = [](const std::string& message, const char* part) {
        INFO(message);
        CHECK(message.find(part) != std::string::npos);
    };
    contains(test::error_of([&] { gpu.plan_sort(Type::u32x2, n, whole(keys), whole(alt), whole(scratch)); }),
             "keys of type uvec2 are not supported");
    contains(test::error_of([&] {
                 gpu.plan_sort_pairs(Type::u32, 3, n, whole(keys), whole(alt), whole(values), whole(values_alt),
                                     whole(scratch));
             }),
             "values of 3 bytes");
    SortOptions wide;
    wide.end_bit = 40;
    contains(test::error_of([&] { gpu.plan_sort(Type::u32, n, whole(keys), whole(alt), whole(scratch), wide); }),
             "bit range [0, 40)");
    wide.end_bit = 72;
    contains(test::error_of([&] { gpu.plan_sort(Type::i64, n / 2, whole(keys), whole(alt), whole(scratch), wide); }),
             "not within the key's 64 bits");
    // 64-bit keys take twice the bytes: 1000 of them do not fit the 4000-byte ranges.
    contains(test::error_of([&] { gpu.plan_sort(Type::u64, n, whole(keys), whole(alt), whole(scratch)); }),
             "the keys range holds 4000 bytes; 8000 are needed");
    contains(test::error_of([&] { ctx.sort(keys, Type::f64, n); }), "the keys buffer holds 4000 bytes; 8000");
    SortOptions backwards;
    backwards.begin_bit = 20;
    backwards.end_bit = 10;
    contains(test::error_of([&] { gpu.plan_sort(Type::u32, n, whole(keys), whole(alt), whole(scratch), backwards); }),
             "begin_bit <= end_bit");
    contains(test::error_of([&] { gpu.plan_sort(Type::u32, sort_max_count + 1, whole(keys), whole(alt), whole(scratch)); }),
             "the most one sort takes");
    contains(test::error_of([&] { gpu.plan_sort(Type::u32, n, {}, whole(alt), whole(scratch)); }),
             "the keys buffer is VK_NULL_HANDLE");
    contains(test::error_of([&] { gpu.plan_sort(Type::u32, n, {keys.handle(), 4, n * 4 - 4}, whole(alt), whole(scratch)); }),
             "the keys offset 4 is not a multiple");
    contains(test::error_of([&] { gpu.plan_sort(Type::u32, n, whole(keys), {alt.handle(), 0, 16}, whole(scratch)); }),
             "the alternate keys range holds 16 bytes");
    contains(test::error_of([&] { gpu.plan_sort(Type::u32, n, whole(keys), whole(alt), {scratch.handle(), 0, 64}); }),
             "the scratch range holds 64 bytes");
    contains(test::error_of([&] { gpu.plan_sort(Type::u32, n, whole(keys), whole(keys), whole(scratch)); }),
             "the keys range overlaps the alternate keys range");
    contains(test::error_of([&] {
                 gpu.plan_sort_pairs(Type::u32, 4, n, whole(keys), whole(alt), whole(values), whole(keys),
                                     whole(scratch));
             }),
             "overlaps the alternate values range");
    contains(test::error_of([&] {
                 gpu.plan_sort(Type::u32, IndirectCount{keys.handle(), 8, n}, whole(keys), whole(alt), whole(scratch));
             }),
             "the IndirectCount's count lies in the keys range");
    contains(test::error_of([&] { ctx.sort(keys, Type::u32, 2 * n); }), "the keys buffer holds 4000 bytes; 8000");
    contains(test::error_of([&] { ctx.sort_pairs(keys, keys, Type::u32, 4, n); }), "the same buffer");
    std::vector<uint32_t> few(3), fewer(2);
    contains(test::error_of([&] { ctx.sort_pairs(std::span<uint32_t>(few), std::span<uint32_t>(fewer)); }),
             "differ in count");
    // Nothing ran: the keys are as uploaded.
    std::vector<uint32_t> after(n);
    ctx.download(keys, after.data(), n * 4);
    CHECK(after == original);
}

