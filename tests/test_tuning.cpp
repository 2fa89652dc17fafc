// Tuning that follows the device: the row scaled to the multiprocessors a device reports, and tuning
// text (vkc/tuning.hpp, as `vkc tune` writes it) that sets the tiles of the plans made after it.
#include "support.hpp"

#include <map>
#include <random>
#include <sstream>

#include "vkc/tuning.hpp"
#include "vkc/vkc.h"

using namespace vkc;

namespace {

// The section's fields by name.
std::map<std::string, uint64_t> fields_of(const DeviceInfo& device) {
    std::map<std::string, uint64_t> f;
    std::istringstream lines(tuning_section(device));
    for (std::string line; std::getline(lines, line);) {
        std::istringstream words(line);
        std::string key;
        uint64_t value;
        if (words >> key >> value) f[key] = value;
    }
    return f;
}

// Clears the process's tuning text when a case ends, however it ends: the other suites run on the
// library's rows.
struct TuningGuard {
    ~TuningGuard() { set_tuning(""); }
};

DeviceInfo gpu_with(uint32_t compute_units) {
    DeviceInfo d;
    d.name = "a GPU of the tests";
    d.driver = "none";
    d.type = DeviceType::discrete_gpu;
    d.compute_units = compute_units;
    return d;
}

// An inclusive u32 sum of n random items on the context, checked against the CPU.
void check_scan(uint64_t n) {
    Context& ctx = test::context();
    std::mt19937 rng{uint32_t(n)};
    std::vector<uint32_t> in(n), out(n);
    for (uint32_t& x : in) x = rng();
    Buffer a = ctx.create_buffer(n * 4), b = ctx.create_buffer(n * 4);
    ctx.upload(a, in.data(), n * 4);
    ctx.scan(a, b, Type::u32, Op::add, n);
    ctx.download(b, out.data(), n * 4);
    uint32_t sum = 0;
    uint64_t wrong = 0;
    for (uint64_t i = 0; i < n; ++i) wrong += out[i] != (sum += in[i]);
    CHECK_MESSAGE(wrong == 0, wrong << " of " << n << " items wrong");
}

} // namespace

TEST_CASE("tuning: what fills a GPU scales with the multiprocessors it reports") {
    TuningGuard guard;
    set_tuning("");
    auto reference = fields_of(gpu_with(132)), unknown = fields_of(gpu_with(0)), quarter = fields_of(gpu_with(33)),
         wider = fields_of(gpu_with(264));
    // A GPU that reports nothing keeps the row as it was measured (132 multiprocessors).
    CHECK(unknown == reference);
    for (const char* scaled : {"wide_tile_min_items", "chunked_min_items", "f64_narrow_chunks_min_items",
                               "prefetch_min_bytes", "scan_chunk_cap", "reduce_chunk_cap"}) {
        CAPTURE(scaled);
        REQUIRE(reference[scaled] > 0);
        CHECK(quarter[scaled] == reference[scaled] / 4);
        CHECK(wider[scaled] == reference[scaled] * 2);
    }
    // Shapes do not scale.
    for (const char* kept : {"invocations", "item_bytes", "wide_tile_items", "chunk_tiles", "integer_reduce_item_bytes"}) {
        CAPTURE(kept);
        CHECK(quarter[kept] == reference[kept]);
    }
    CHECK(reference["chunked_min_items"] == (1u << 20));
    CHECK(reference["reduce_chunk_cap"] == 512);
    // The caps keep enough work-groups on the smallest GPUs.
    CHECK(fields_of(gpu_with(1))["reduce_chunk_cap"] == 8);
}

TEST_CASE("tuning: a section for the device sets its plans' tiles; other devices' sections do not") {
    TuningGuard guard;
    Context& ctx = test::context();
    const DeviceInfo& d = ctx.info();
    set_tuning("");
    ScanTile before = ctx.device().scan_tile(Type::u32, {});

    // The device alone: every driver.
    set_tuning("# a comment line\ndevice " + d.name + "\ninvocations 128   # trailing comment\nitems 8\nalways_staged 0\n");
    ScanTile tuned = ctx.device().scan_tile(Type::u32, {});
    CHECK(tuned.workgroup_size == 128);
    CHECK(tuned.items_per_invocation == 8);
    CHECK_FALSE(tuned.staged);
    CHECK(fields_of(d)["invocations"] == 128);
    // A scan under it: several tiles, a partial one, the look-back between them.
    check_scan(uint64_t(128) * 8 * 5 + 3);

    // The device and its driver win over the device alone, whichever comes first.
    set_tuning("device " + d.name + "\ndriver " + d.driver + "\ninvocations 256\n" + "device " + d.name +
               "\ninvocations 128\n");
    CHECK(ctx.device().scan_tile(Type::u32, {}).workgroup_size == 256);
    check_scan(uint64_t(256) * 4 * 7 + 1);

    // Sections for another device, or for this device on another driver, change nothing.
    set_tuning("device " + d.name + " (another)\ninvocations 128\ndevice " + d.name + "\ndriver another driver\nitems 8\n");
    ScanTile untouched = ctx.device().scan_tile(Type::u32, {});
    CHECK(untouched.workgroup_size == before.workgroup_size);
    CHECK(untouched.items_per_invocation == before.items_per_invocation);

    // Empty text clears it: the library's row again; the section in effect reads back as itself.
    set_tuning("");
    CHECK(ctx.device().scan_tile(Type::u32, {}).workgroup_size == before.workgroup_size);
    std::string in_effect = tuning_section(d);
    set_tuning(in_effect);
    CHECK(tuning_section(d) == in_effect);
    CHECK(ctx.device().scan_tile(Type::u32, {}).workgroup_size == before.workgroup_size);
}

TEST_CASE("tuning: bad text is refused with its line and problem, and the tuning in effect stays") {
    TuningGuard guard;
    Context& ctx = test::context();
    const DeviceInfo& d = ctx.info();
    const std::string good = "device " + d.name + "\ninvocations 128\n";
    set_tuning(good);
    struct Bad {
        std::string text, message;
    };
    const Bad bad[] = {
        {"invocations 64\n", "set_tuning: line 1: 'invocations' comes before any 'device' line"},
        {"device " + d.name + "\n\nchunk_tile 4\n", "line 3: unknown field 'chunk_tile'"},
        {"device " + d.name + "\nreduce_chunk_cap 0\n", "line 2: reduce_chunk_cap takes a whole number from 1 to 65535, not '0'"},
        {"device " + d.name + "\ninvocations 2048\n", "invocations takes a whole number from 1 to 1024, not '2048'"},
        {"device " + d.name + "\nitems eight\n", "items takes a whole number from 0 to 32, not 'eight'"},
        {"device " + d.name + "\nitems -1\n", "not '-1'"},
        {"device " + d.name + "\nitems\n", "not ''"},
        {"device " + d.name + "\nitems 8\ndriver x\n", "line 3: 'driver' must follow its 'device' line"},
        {"device\n", "line 1: 'device' needs the device's name"},
    };
    for (const Bad& b : bad) {
        CAPTURE(b.text);
        CHECK_THROWS_WITH_AS(set_tuning(b.text), doctest::Contains(b.message.c_str()), Error);
        CHECK(ctx.device().scan_tile(Type::u32, {}).workgroup_size == 128); // still the good text's
    }
    // The C API: the same refusal as a result and a message; a good text takes effect.
    CHECK(vkcSetTuning(nullptr, 4) == VKC_ERROR_INVALID_ARGUMENT);
    CHECK(std::string(vkcGetLastErrorMessage()).find("pText is NULL") != std::string::npos);
    std::string unknown = "device " + d.name + "\nspeed 11\n";
    CHECK(vkcSetTuning(unknown.data(), unknown.size()) == VKC_ERROR_INVALID_ARGUMENT);
    CHECK(std::string(vkcGetLastErrorMessage()).find("line 2: unknown field 'speed'") != std::string::npos);
    std::string wide = "device " + d.name + "\ninvocations 256\n";
    CHECK(vkcSetTuning(wide.data(), wide.size()) == VKC_SUCCESS);
    CHECK(ctx.device().scan_tile(Type::u32, {}).workgroup_size == 256);
    CHECK(vkcSetTuning(nullptr, 0) == VKC_SUCCESS);
}
