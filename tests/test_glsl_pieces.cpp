// The public GLSL pieces (shaders/include/vkc/), each instantiated in a kernel of the suite's own
// (tests/shaders/), run on the Context's device and checked against the CPU.
#include "raw_kernel.hpp"
#include "support.hpp"

#include <algorithm>
#include <cstdint>
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

} // namespace

TEST_CASE("GLSL pieces: vkc/tile_io.glsl loads, stores and exchanges tiles in a kernel of its own") {
    Context& ctx = context();
    const DeviceInfo& info = ctx.info();
    bool subgroups = any(info.features & Feature::subgroup_arithmetic) && preferred_path() == Path::subgroup;
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
    // every chunk; in place. With LP_NUM_THREADS=1 (lavapipe.single_thread) no chunk ever sees its
    // predecessor run: the fallback is what ends each look-back.
    Context& ctx = context();
    const DeviceInfo& info = ctx.info();
    bool subgroups = any(info.features & Feature::subgroup_arithmetic) && preferred_path() == Path::subgroup;
    struct Setting {
        uint32_t window, spin_limit, flags;
    };
    const std::vector<Setting> settings = {{32, 1000, 0}, {1, 1000, 0}, {64, 0, 0}, {8, 4, 1}, {32, 16, 2}, {3, 0, 3}};
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

} // namespace vkc::test
