// The public GLSL pieces (shaders/include/vkc/), each instantiated in a kernel of the suite's own
// (tests/shaders/), run on the Context's device and checked against the CPU.
#include "raw_kernel.hpp"
#include "support.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace vkc::test {
namespace {

// tests/shaders/tile_io_test.comp's modes, constants and register layout.
enum TileMode : uint32_t {
    load_blocked = 0,
    load_striped = 1,
    load_transposed = 2,
    load_warp_transposed = 3,
    load_striped_exchanged = 4,
    load_blocked_exchanged = 5,
    load_blocked_vectors = 6,
    load_warp_striped_vectors_exchanged = 7,
    load_warp_transposed_vectors = 8,
    load_warp_blocked_exchanged_vectors = 9,
    store_blocked = 16,
    store_striped = 17,
    store_transposed = 18,
    store_warp_transposed = 19,
    store_blocked_vectors = 20,
    store_warp_transposed_vectors = 21,
    store_warp_striped_vectors = 22,
};
constexpr uint32_t convert = 0x5a5a0000u, oob = 0xdeadbeefu, registers_per_invocation = 8, untouched = 0x0badf00du;

bool at_subgroup_scope(TileMode m) {
    return m == load_warp_transposed || m == load_warp_striped_vectors_exchanged ||
           m == load_warp_transposed_vectors || m == load_warp_blocked_exchanged_vectors ||
           m == store_warp_transposed || m == store_warp_transposed_vectors || m == store_warp_striped_vectors;
}
bool full_tiles_only(TileMode m) {
    return m == load_warp_striped_vectors_exchanged || m == load_warp_transposed_vectors ||
           m == store_warp_transposed_vectors || m == store_warp_striped_vectors;
}

// What invocation l's register i holds after the load `m`: the item it reads (its index in the
// input), converted as it came in; -1 where the register is not used.
struct Expected {
    int64_t index;
    bool to_memory; // the vectors of blocked_to_striped_vectors: converted back
};
Expected expected_register(TileMode m, uint32_t size, uint32_t items, uint32_t lanes_in_subgroup, uint64_t first,
                           uint32_t l, uint32_t i) {
    if (i >= items) return {-1, false};
    uint32_t g = at_subgroup_scope(m) ? lanes_in_subgroup : size;
    uint64_t part = uint64_t(l / g) * g * items, lane = l % g;
    switch (m) {
    case load_striped: return {int64_t(first + uint64_t(i) * size + l), false};
    case load_blocked_exchanged: return {int64_t(first + uint64_t(i) * size + l), false};
    case load_warp_blocked_exchanged_vectors: {
        uint64_t v = uint64_t(i / 4) * g + lane;
        return {int64_t(first + part + v * 4 + i % 4), true};
    }
    default: return {int64_t(first + uint64_t(l) * items + i), false};
    }
}

void check_tile_io(const std::string& spirv, uint32_t size, uint32_t items, TileMode mode, bool partial,
                   uint32_t subgroup_size) {
    Context& ctx = context();
    const uint32_t tiles = 3;
    const uint64_t tile_items = uint64_t(size) * items;
    const uint32_t count = partial ? uint32_t(2 * tile_items + tile_items / 2 + 3) : uint32_t(tiles * tile_items);
    std::mt19937 random(size * 131 + items * 7 + mode);
    std::vector<uint32_t> input(tiles * tile_items + 4);
    for (uint32_t& x : input) x = random();
    std::vector<uint32_t> output(input.size(), untouched);
    std::vector<uint32_t> registers(size_t(tiles) * size * registers_per_invocation, untouched);
    Buffer in = ctx.create_buffer(input.size() * 4), out = ctx.create_buffer(output.size() * 4),
           regs = ctx.create_buffer(registers.size() * 4);
    ctx.upload(in, input.data(), input.size() * 4);
    ctx.upload(out, output.data(), output.size() * 4);
    ctx.upload(regs, registers.data(), registers.size() * 4);
    RawKernel kernel(ctx, spirv, 3, 8);
    uint32_t push[2] = {mode, count};
    uint64_t messages = ctx.validation_messages();
    kernel.run({size, items}, {&in, &out, &regs}, push, tiles);
    CHECK(ctx.validation_messages() == messages);
    ctx.download(out, output.data(), output.size() * 4);
    ctx.download(regs, registers.data(), registers.size() * 4);
    INFO("mode ", mode, ", work-group ", size, " x ", items, " items, count ", count, ", subgroup ", subgroup_size);
    if (mode < store_blocked) {
        size_t wrong = 0;
        for (uint32_t t = 0; t < tiles; ++t) {
            for (uint32_t l = 0; l < size; ++l) {
                for (uint32_t i = 0; i < registers_per_invocation; ++i) {
                    Expected e = expected_register(mode, size, items, subgroup_size, t * tile_items, l, i);
                    uint32_t want = 0;
                    if (e.index >= 0) {
                        want = uint64_t(e.index) < count ? input[e.index] ^ convert : oob;
                        if (e.to_memory) want ^= convert;
                    }
                    uint32_t got = registers[(size_t(t) * size + l) * registers_per_invocation + i];
                    if (got != want && wrong++ < 3) {
                        FAIL_CHECK("tile ", t, " invocation ", l, " register ", i, ": ", got, ", expected ", want);
                    }
                }
            }
        }
        CHECK(wrong == 0);
    } else {
        size_t wrong = 0;
        for (size_t k = 0; k < output.size(); ++k) {
            uint32_t want = k < count ? input[k] : untouched;
            if (output[k] != want && wrong++ < 3) FAIL_CHECK("item ", k, ": ", output[k], ", expected ", want);
        }
        CHECK(wrong == 0);
    }
}

// Whether a test kernel's subgroup-arithmetic build runs here (its shared-memory build always does).
bool subgroup_builds_run(const DeviceInfo& info) {
    return any(info.features & Feature::subgroup_arithmetic) && preferred_path() == Path::subgroup;
}

} // namespace

TEST_CASE("GLSL pieces: vkc/tile_io.glsl loads, stores and exchanges tiles in a kernel of its own") {
    Context& ctx = context();
    const DeviceInfo& info = ctx.info();
    bool subgroups = subgroup_builds_run(info);
    std::vector<TileMode> loads = {load_blocked,           load_striped,         load_transposed,
                                   load_striped_exchanged, load_blocked_exchanged, load_blocked_vectors};
    std::vector<TileMode> stores = {store_blocked, store_striped, store_transposed, store_blocked_vectors};
    std::vector<TileMode> warp = {load_warp_transposed,         load_warp_striped_vectors_exchanged,
                                  load_warp_transposed_vectors, load_warp_blocked_exchanged_vectors,
                                  store_warp_transposed,        store_warp_transposed_vectors,
                                  store_warp_striped_vectors};
    for (bool subgroup_build : {false, true}) {
        if (subgroup_build && !subgroups) {
            MESSAGE("the subgroup build of tile_io_test is not run: the device has no subgroup arithmetic");
            continue;
        }
        std::string spirv = test_shader_path(subgroup_build ? "tile_io_test_subgroup" : "tile_io_test_shared");
        uint64_t shape_index = 0;
        for (uint32_t size : {64u, 96u}) {
            for (uint32_t items : {4u, 8u}) {
                std::vector<TileMode> modes = loads;
                modes.insert(modes.end(), stores.begin(), stores.end());
                bool packed = subgroup_build && size % info.subgroup_size == 0 && ctx.subgroups_packed({size});
                if (packed) modes.insert(modes.end(), warp.begin(), warp.end());
                uint64_t mode_index = shape_index++;
                for (TileMode mode : modes) {
                    if (!test::spread(mode_index++, 2)) continue; // each shape with half its modes a width
                    for (bool partial : {false, true}) {
                        if (partial && full_tiles_only(mode)) continue;
                        check_tile_io(spirv, size, items, mode, partial, info.subgroup_size);
                    }
                }
            }
        }
    }
}

TEST_CASE("GLSL pieces: vkc/look_back.glsl chains a single-pass scan in a kernel of its own") {
    // tests/shaders/look_back_test.comp: an inclusive scan of uint items, a tile of size x 4 items a
    // chunk. Windows of 1 (poll one predecessor at a time) to the work-group; spin limits that
    // wait for posts, and 0 (the fallback whenever a predecessor is silent); the fallback forced for
    // every chunk; in place; the aggregate posted first, then the look-back (flag 4, the two-step
    // form), alone, forced and in place. With LP_NUM_THREADS=1 (lavapipe.single_thread) no chunk ever sees its
    // predecessor run: the fallback is what ends each look-back. Runs, not compiles, make this case's
    // time (a silent predecessor costs spin_limit polls): CTest's entries share the (size, count,
    // setting) runs out (test::share), every pipeline at every width.
    Context& ctx = context();
    const DeviceInfo& info = ctx.info();
    bool subgroups = subgroup_builds_run(info);
    struct Setting {
        uint32_t window, spin_limit, flags;
    };
    const std::vector<Setting> settings = {{32, 200, 0}, {1, 200, 0}, {64, 0, 0}, {8, 4, 1}, {32, 16, 2}, {3, 0, 3},
                                         {32, 200, 4}, {8, 4, 5}, {32, 16, 6}};
    uint64_t index = 0;
    for (bool subgroup_build : {false, true}) {
        if (subgroup_build && !subgroups) {
            MESSAGE("the subgroup build of look_back_test is not run: the device has no subgroup arithmetic");
            continue;
        }
        for (std::string op : {"add", "max"}) {
            std::string spirv = test_shader_path(std::string("look_back_test_") +
                                                 (subgroup_build ? "subgroup_" : "shared_") + op);
            RawKernel kernel(ctx, spirv, 3, 16);
            for (uint32_t size : {64u, 128u}) {
                const uint32_t tile = size * 4;
                for (uint32_t count : {1u, tile, 2 * tile + 1, 37 * tile - 5}) {
                    for (const Setting& s : settings) {
                        if (!share(index++, 3)) continue;
                        bool in_place = s.flags & 2;
                        uint32_t chunks = (count + tile - 1) / tile;
                        std::mt19937 random(count * 7 + size + s.window);
                        std::vector<uint32_t> input(count);
                        // add: small values, so that sums pass 16 bits (both status words) and wrap
                        for (uint32_t& x : input) x = op == "add" ? random() % 100000 : random();
                        std::vector<uint32_t> want(count);
                        for (uint32_t k = 0; k < count; ++k) {
                            want[k] = k == 0 ? input[0] : op == "add" ? want[k - 1] + input[k] : std::max(want[k - 1], input[k]);
                        }
                        std::vector<uint32_t> state(1 + 2 * chunks, 0);
                        Buffer in = ctx.create_buffer(count * 4ull), out = ctx.create_buffer(count * 4ull),
                               status = ctx.create_buffer(state.size() * 4);
                        ctx.upload(in, input.data(), count * 4ull);
                        ctx.upload(status, state.data(), state.size() * 4);
                        uint32_t push[4] = {count, s.window, s.spin_limit, s.flags};
                        uint64_t messages = ctx.validation_messages();
                        kernel.run({size, ctx.subgroups_packed({size}) ? 1u : 0u}, {&in, in_place ? &in : &out, &status},
                                   push, chunks);
                        CHECK(ctx.validation_messages() == messages);
                        std::vector<uint32_t> got(count);
                        ctx.download(in_place ? in : out, got.data(), count * 4ull);
                        size_t first_wrong = std::mismatch(got.begin(), got.end(), want.begin()).first - got.begin();
                        INFO(op, subgroup_build ? std::string(" subgroup") : std::string(" shared"), " build, work-group ", size, ", count ", count,
                             ", window ", s.window, ", spin limit ", s.spin_limit, ", flags ", s.flags);
                        CHECK_MESSAGE(first_wrong == count, "item ", first_wrong, " is wrong");
                    }
                }
            }
        }
    }
}

namespace {
// tests/shaders/radix_test.comp's builds (tests/CMakeLists.txt) and modes.
struct RadixBuild {
    const char* name;
    uint32_t items, bits, capacity;
    bool subgroup;
};
enum RadixMode : uint32_t { radix_rank = 0, radix_sort_keys = 1, radix_sort_pairs = 2 };
struct RadixPush {
    uint32_t mode, count, begin_bit, end_bit, descending, transform;
};

// The order a key sorts in: int and float bits through the same transforms as the shader's.
uint32_t radix_key(uint32_t x, uint32_t transform) {
    if (transform == 1) return x ^ 0x80000000u;
    if (transform == 2) return (x & 0x80000000u) ? ~x : x | 0x80000000u;
    return x;
}

std::vector<uint32_t> radix_keys(uint32_t pattern, uint32_t count, std::mt19937& random) {
    std::vector<uint32_t> keys(count);
    const uint32_t specials[] = {0x80000000u, 0u, 0x00000001u, 0x80000001u, 0x7f800000u, 0xff800000u,
                                 0x7fc00000u, 0xffc00000u, 0x3f800000u, 0xbf800000u, 0x7fffffffu, 0xffffffffu};
    for (uint32_t k = 0; k < count; ++k) {
        switch (pattern) {
        case 0: keys[k] = random(); break;                               // random
        case 1: keys[k] = random() % 5 * 0x01010101u; break;             // few distinct, high and low bits
        case 2: keys[k] = 42; break;                                     // all equal
        case 3: keys[k] = k * 2654435761u >> 7 << 7; break;              // only high bits vary
        case 4: keys[k] = count - k; break;                              // reversed, low bits
        default: keys[k] = specials[random() % std::size(specials)];     // float extremes, -0, NaNs
        }
    }
    return keys;
}
} // namespace

TEST_CASE("GLSL pieces: vkc/radix_rank.glsl ranks and sorts tiles in a kernel of its own") {
    // tests/shaders/radix_test.comp: one tile a work-group. Ranks by one digit (partial tiles count
    // only their items); sorts keys and pairs over whole and partial bit ranges, ascending and
    // descending, uint, int and float keys; values are the items' indices, so the values show
    // stability. Against std::stable_sort.
    Context& ctx = context();
    const DeviceInfo& info = ctx.info();
    bool subgroups = subgroup_builds_run(info);
    const RadixBuild builds[] = {{"radix_test_subgroup_4", 3, 4, 128, true},
                                 {"radix_test_shared_4", 4, 4, 128, false},
                                 {"radix_test_subgroup_8", 4, 8, 32, true},
                                 {"radix_test_shared_7", 2, 7, 64, false}};
    uint64_t build_index = 0;
    for (const RadixBuild& b : builds) {
        if (b.subgroup && !subgroups) {
            MESSAGE(b.name << " is not run: the device has no subgroup arithmetic");
            continue;
        }
        RawKernel kernel(ctx, test_shader_path(b.name), 3, sizeof(RadixPush));
        std::vector<uint32_t> sizes;
        for (uint32_t size : {32u, 64u, 96u, 128u}) {
            if (size <= b.capacity) sizes.push_back(size);
        }
        uint64_t size_index = build_index++;
        for (uint32_t size : sizes) {
            if (sizes.size() > 1 && !spread(size_index++, 2)) continue; // each build with half its sizes a width
            const uint32_t tile = size * b.items;
            uint32_t seed = size * 131 + b.bits;
            uint32_t turn = 0;
            for (uint32_t count : {1u, tile - 1, tile, 3 * tile + 5}) {
                // Two of the six key patterns a count, all six over the counts.
                for (uint32_t pattern : {turn % 3, turn % 3 + 3}) {
                    ++turn;
                    std::mt19937 random(seed++);
                    std::vector<uint32_t> keys = radix_keys(pattern, count, random), values(count);
                    for (uint32_t k = 0; k < count; ++k) values[k] = k;
                    const uint32_t groups = (count + tile - 1) / tile, starts = (1u << b.bits) + 1;
                    Buffer key_buffer = ctx.create_buffer(count * 4ull), value_buffer = ctx.create_buffer(count * 4ull),
                           out = ctx.create_buffer((2ull * count + groups * starts) * 4);
                    ctx.upload(key_buffer, keys.data(), count * 4ull);
                    ctx.upload(value_buffer, values.data(), count * 4ull);
                    // One rank and three sorts a case, their settings turning with the seed.
                    uint32_t bit = random() % (33 - b.bits);
                    uint32_t begin = pattern == 3 ? 7 : random() % 3 * 4, end = random() % 2 ? 32 : 20;
                    uint32_t transform = pattern == 5 ? 2 : random() % 3;
                    const RadixPush pushes[] = {{radix_rank, count, bit, 0, 0, 0},
                                                {radix_sort_keys, count, begin, end, seed % 2, transform},
                                                {radix_sort_pairs, count, 0, 32, 0, transform},
                                                {radix_sort_pairs, count, begin, end, 1, transform}};
                    for (const RadixPush& p : pushes) {
                        uint64_t messages = ctx.validation_messages();
                        kernel.run({size, ctx.subgroups_packed({size}) ? 1u : 0u}, {&key_buffer, &value_buffer, &out},
                                   &p, groups);
                        CHECK(ctx.validation_messages() == messages);
                        std::vector<uint32_t> got(2ull * count + groups * starts);
                        ctx.download(out, got.data(), got.size() * 4);
                        // The CPU: each tile stably ordered by the digit or the key's bits in range.
                        std::vector<uint32_t> want(got.size(), 0);
                        for (uint32_t g = 0; g < groups; ++g) {
                            uint32_t first = g * tile, n = std::min(tile, count - first);
                            auto order_of = [&](uint32_t k) -> uint64_t {
                                uint32_t key = keys[first + k];
                                if (p.mode == radix_rank) return (key >> p.begin_bit) & ((1u << b.bits) - 1);
                                key = radix_key(key, p.transform);
                                if (p.descending) key = ~key;
                                uint32_t bits = p.end_bit - p.begin_bit;
                                return bits >= 32 ? key : (key >> p.begin_bit) & ((1u << bits) - 1);
                            };
                            std::vector<uint32_t> order(n);
                            for (uint32_t k = 0; k < n; ++k) order[k] = k;
                            std::stable_sort(order.begin(), order.end(),
                                             [&](uint32_t x, uint32_t y) { return order_of(x) < order_of(y); });
                            if (p.mode == radix_rank) {
                                for (uint32_t r = 0; r < n; ++r) want[first + order[r]] = r;
                                for (uint32_t d = 0; d < starts; ++d) {
                                    uint32_t before = 0;
                                    for (uint32_t k = 0; k < n; ++k) before += order_of(k) < d;
                                    want[count + g * starts + d] = before;
                                }
                            } else {
                                for (uint32_t r = 0; r < n; ++r) {
                                    want[first + r] = keys[first + order[r]];
                                    want[count + first + r] = p.mode == radix_sort_pairs ? first + order[r] : 0;
                                }
                            }
                        }
                        if (p.mode == radix_rank) got.resize(count + groups * starts);
                        else got.resize(2ull * count);
                        want.resize(got.size());
                        if (p.mode == radix_sort_keys) {
                            // Keys only: the values the kernel wrote are whatever its registers held.
                            std::fill(got.begin() + count, got.end(), 0);
                        }
                        size_t first_wrong = std::mismatch(got.begin(), got.end(), want.begin()).first - got.begin();
                        INFO(b.name, ", work-group ", size, ", count ", count, ", keys ", pattern, ", mode ", p.mode,
                             ", bits [", p.begin_bit, ", ", p.end_bit, "), descending ", p.descending, ", transform ",
                             p.transform);
                        CHECK_MESSAGE(first_wrong == got.size(), "word ", first_wrong, " is wrong: got ",
                                      first_wrong < got.size() ? got[first_wrong] : 0, ", want ",
                                      first_wrong < got.size() ? want[first_wrong] : 0);
                    }
                }
            }
        }
    }
}

// tests/shaders/histogram_test.comp: vkc/block_histogram.glsl's shared counts and bin functions in a
// kernel of the suite's own, against the CPU's exact binning.
TEST_CASE("GLSL pieces: vkc/block_histogram.glsl counts in shared memory in a kernel of its own") {
    Context& ctx = context();
    RawKernel kernel(ctx, test_shader_path("histogram_test_shared"), 3, 24);
    std::mt19937 rng(45);
    const uint32_t n = 20000, bins = 300;
    std::vector<uint32_t> samples(n);
    for (uint32_t& s : samples) s = rng();
    struct Push {
        uint32_t mode, count, bins, lower, span, estimate;
    };
    std::vector<uint32_t> levels(bins + 1);
    for (uint32_t& l : levels) l = rng();
    std::sort(levels.begin(), levels.end());
    Buffer in = ctx.create_buffer(n * 4), counts = ctx.create_buffer(bins * 4), level_buffer = ctx.create_buffer(levels.size() * 4);
    ctx.upload(in, samples.data(), n * 4);
    ctx.upload(level_buffer, levels.data(), levels.size() * 4);
    const float lower = -1.5f, upper = 2.5f, scale = float(double(bins) / (double(upper) - double(lower)));
    for (uint32_t mode : {0u, 1u, 2u}) {
        INFO("mode " << mode);
        // mode 0: [1000, 2^32 - 7) wide enough that (x - lower) x bins needs 64 bits; mode 1: the bits as
        // floats over [-1.5, 2.5) (most samples outside); mode 2: between the sorted random levels
        const uint64_t lower_int = 1000, upper_int = 4294967289ull, span = upper_int - lower_int - 1;
        // (mode 0: every other sample the first or last value of a bin, where a float estimate of the
        // bin is off by one before the exact correction)
        std::vector<uint32_t> float_samples(n);
        for (uint32_t i = 0; i < n; ++i) {
            const uint64_t k = samples[i] % (bins - 1) + 1, edge = lower_int + (k * (span + 1) + bins - 1) / bins;
            float_samples[i] = mode == 1   ? std::bit_cast<uint32_t>(float(int32_t(samples[i] % 8000) - 3000) / 1000.0f)
                               : mode == 0 && i % 2 ? uint32_t(edge - (i % 4 == 1 ? 1 : 0))
                                                    : samples[i];
        }
        ctx.upload(in, float_samples.data(), n * 4);
        Push push{mode, n, bins, mode == 1 ? std::bit_cast<uint32_t>(lower) : uint32_t(lower_int),
                  mode == 1 ? std::bit_cast<uint32_t>(upper) : uint32_t(span),
                  std::bit_cast<uint32_t>(mode == 1 ? scale : float(double(bins) / double(span + 1)))};
        std::vector<uint32_t> want(bins);
        for (uint32_t x : float_samples) {
            if (mode == 0 && x >= lower_int && x < upper_int) ++want[(uint64_t(x) - lower_int) * bins / (span + 1)];
            if (mode == 1) {
                float f = std::bit_cast<float>(x);
                if (f >= lower && f < upper) {
                    float offset = f - lower;
                    float scaled = offset * scale;
                    ++want[std::min(uint32_t(scaled), bins - 1)];
                }
            }
            if (mode == 2 && x >= levels.front() && x < levels.back()) {
                ++want[uint32_t(std::upper_bound(levels.begin(), levels.end(), x) - levels.begin() - 1)];
            }
        }
        std::vector<uint32_t> zeros(bins, 0), got(bins);
        ctx.upload(counts, zeros.data(), bins * 4);
        kernel.run({128}, {&in, &counts, &level_buffer}, &push, 7);
        ctx.download(counts, got.data(), bins * 4);
        CHECK(got == want);
    }
}

// tests/shaders/segmented_test.comp: vkc/block_segmented.glsl's tile scan of (head, value) pairs in a
// kernel of its own, both paths, against a CPU scan that restarts at heads and at each tile.
TEST_CASE("GLSL pieces: vkc/block_segmented.glsl scans a tile by segments in a kernel of its own") {
    Context& ctx = context();
    const uint32_t tiles = 5, n = tiles * 256;
    std::mt19937 rng(46);
    std::vector<int32_t> values(n);
    std::vector<uint32_t> heads(n);
    for (uint32_t i = 0; i < n; ++i) {
        values[i] = int32_t(rng() % 2001) - 1000;
        heads[i] = rng() % 7 == 0 ? rng() | 1u : 0u;
    }
    std::vector<int32_t> want(2 * n);
    std::vector<uint32_t> want_heads(tiles);
    int32_t running = INT32_MIN;
    for (uint32_t i = 0; i < n; ++i) {
        const bool head = heads[i] != 0;
        if (head || i % 256 == 0) running = INT32_MIN;
        want[2 * i + 1] = running;
        running = std::max(running, values[i]);
        want[2 * i] = running;
        want_heads[i / 256] += head ? 1 : 0;
    }
    Buffer in = ctx.create_buffer(n * 4), flags = ctx.create_buffer(n * 4), out = ctx.create_buffer(2 * n * 4),
           per_tile = ctx.create_buffer(tiles * 4);
    ctx.upload(in, values.data(), n * 4);
    ctx.upload(flags, heads.data(), n * 4);
    for (const char* path : {"segmented_test_shared", "segmented_test_subgroup"}) {
        if (std::string(path).find("subgroup") != std::string::npos && !subgroup_builds_run(ctx.info())) continue;
        INFO(path);
        RawKernel kernel(ctx, test_shader_path(path), 4, 0);
        kernel.run({64, ctx.subgroups_packed({64}) ? 1u : 0u}, {&in, &flags, &out, &per_tile}, nullptr, tiles);
        std::vector<int32_t> got(2 * n);
        std::vector<uint32_t> got_heads(tiles);
        ctx.download(out, got.data(), 2 * n * 4);
        ctx.download(per_tile, got_heads.data(), tiles * 4);
        CHECK(got == want);
        CHECK(got_heads == want_heads);
    }
}

} // namespace vkc::test
