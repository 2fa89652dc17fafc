// The embedded module table: one module per collective x type x op x path, each needing what its
// type and path say.
#include "support.hpp"

#include <cstdio>
#include <cstring>
#include <set>
#include <string>
#include <vector>

using namespace vkc;

TEST_CASE("modules: every collective x type x op is built for both paths, with its requirements") {
    std::set<std::string> names;
    for (const ModuleInfo& m : modules()) {
        CHECK(names.insert(m.name).second);
        CHECK(m.code_bytes % 4 == 0);
        REQUIRE(m.code_bytes > 20);
        REQUIRE(m.code());
        CHECK(m.code()[0] == 0x07230203u); // SPIR-V magic
        bool subgroup = any(m.required & Feature::subgroup_basic);
        CHECK(subgroup == (m.path == Path::subgroup));
        // (segmented half values are combined as floats: 16-bit storage access alone)
        if (m.type == Type::f16) {
            CHECK(any(m.required & Feature::storage_buffer_16bit));
            CHECK(any(m.required & Feature::shader_float16) != (m.collective == Collective::segmented));
        }
        // (the device-wide min and max of double on subgroups combine 64-bit integer keys only)
        bool integer_keys = m.collective == Collective::device_scan && m.path == Path::subgroup &&
                            (m.op == Op::min || m.op == Op::max);
        if (m.type == Type::f64) CHECK(any(m.required & Feature::shader_float64) != integer_keys);
        if (m.type == Type::f64 && integer_keys) CHECK(any(m.required & Feature::shader_int64));
        if (m.type == Type::i64 || m.type == Type::u64) CHECK(any(m.required & Feature::shader_int64));
    }
    for (Collective c : {Collective::reduce, Collective::scan_inclusive, Collective::scan_exclusive}) {
        for (Type t : test::all_types()) {
            for (Op op : test::all_ops()) {
                for (const char* path : {"subgroup", "shared"}) {
                    std::string n = std::string(name(c)) + "_" + std::string(name(op)) + "_" +
                                    std::string(name(t)) + "_" + path;
                    CHECK_MESSAGE(names.count(n) == 1, n);
                }
            }
        }
    }
    CHECK(names.count("all_subgroup") == 1);
    CHECK(names.count("any_shared") == 1);
    CHECK(names.count("broadcast_double_shared") == 1);
    CHECK(names.count("layout_probe_subgroup") == 1);
}

TEST_CASE("types: names parse back, half converts both ways") {
    for (Type t : test::every_type()) {
        Type back;
        CHECK(parse(name(t), back));
        CHECK(back == t);
    }
    for (Op op : test::every_op()) {
        Op back;
        CHECK(parse(name(op), back));
        CHECK(back == op);
    }
    // include/vkc/types.def: enum values 0 ... N-1 in order; OpenCL C's seven types and three operators.
    for (size_t i = 0; i < all_types().size(); ++i) CHECK(uint32_t(all_types()[i]) == i);
    for (size_t i = 0; i < all_ops().size(); ++i) CHECK(uint32_t(all_ops()[i]) == i);
    CHECK(test::all_types().size() == 7);
    CHECK(test::all_ops().size() == 3);
    CHECK(short_name(Type::u32x2) == "u32x2");
    CHECK(name(Op::bit_and) == "and");
    CHECK(has_op(Type::f32, Op::mul));
    CHECK(!has_op(Type::f32, Op::bit_xor));
    CHECK(has_op(Type::u32x2, Op::argmax));
    CHECK(!has_op(Type::u32, Op::argmax));
    CHECK(test::error_of([] { (void)name(Type(99)); }) == "invalid vkc::Type value 99");
    CHECK(float(half(1.5f)) == 1.5f);
    CHECK(float(half(-65504.0f)) == -65504.0f);
    CHECK(half(1e6f).bits == 0x7c00);           // overflow to +INF
    CHECK(half(5.9604645e-8f).bits == 0x0001);  // smallest subnormal
    CHECK(float(half::from_bits(0x0001)) == 5.9604645e-8f);
    CHECK(half(1.0f + 1.0f / 4096).bits == 0x3c00); // rounds to nearest even
}

// The table must name exactly the device features a module's SPIR-V declares capabilities for: a
// module that used, say, subgroupShuffleUp without listing shuffle_relative would be picked on a device
// that cannot run it, and one listing a feature it does not use would be refused where it could run.
TEST_CASE("modules: the table lists the features the SPIR-V capabilities need") {
    // SPIR-V capability -> the feature it needs (capabilities of Vulkan 1.1 compute need none).
    const std::pair<uint32_t, Feature> needs[] = {
        {9, Feature::shader_float16},      {10, Feature::shader_float64},
        {11, Feature::shader_int64},       {22, Feature::shader_int16},
        {39, Feature::shader_int8},        {61, Feature::subgroup_basic},
        {62, Feature::subgroup_vote},      {63, Feature::subgroup_arithmetic},
        {64, Feature::subgroup_ballot},    {65, Feature::subgroup_shuffle},
        {66, Feature::subgroup_shuffle_relative},
    };
    Feature mapped = Feature::none; // the features this check speaks for
    for (const auto& need : needs) mapped = mapped | need.second;
    for (const ModuleInfo& m : modules()) {
        size_t words = m.code_bytes / 4;
        const uint32_t* code = m.code();
        REQUIRE(code);
        Feature declared = Feature::none;
        // Instructions start after the 5-word header; OpCapability (17) comes first.
        for (size_t at = 5; at < words;) {
            uint32_t count = code[at] >> 16, opcode = code[at] & 0xffffu;
            if (count == 0) break;
            if (opcode == 17) {
                for (const auto& [capability, feature] : needs) {
                    if (code[at + 1] == capability) declared = declared | feature;
                }
            } else if (opcode != 11 && opcode != 10) { // past OpCapability, OpExtension, OpExtInstImport
                break;
            }
            at += count;
        }
        CHECK_MESSAGE(uint32_t(m.required & mapped) == uint32_t(declared), std::string(m.name), ": table ",
                      uint32_t(m.required & mapped), ", SPIR-V ", uint32_t(declared));
    }
}

// The library unpacks exactly the modules the build made and installs: each module's words are the
// .spv file manifest.json names for it, and a signed type's add, mul, bitwise and logical modules are
// the unsigned type's (same bits), while its min and max are its own.
TEST_CASE("modules: the packed streams unpack to the .spv files the manifest names") {
    std::string_view json = modules_manifest_json();
    size_t shared = 0;
    for (const ModuleInfo& m : modules()) {
        std::string key = "{\"name\": \"" + std::string(m.name) + "\", \"file\": \"";
        size_t at = json.find(key);
        REQUIRE_MESSAGE(at != std::string_view::npos, m.name);
        at += key.size();
        std::string file(json.substr(at, json.find('"', at) - at));
        std::string own = std::string(m.name) + ".spv";
        if (file != own) {
            ++shared;
            CHECK_MESSAGE((m.op != Op::min && m.op != Op::max), m.name);
            CHECK_MESSAGE((m.type == Type::i8 || m.type == Type::i16 || m.type == Type::i32 || m.type == Type::i64),
                          m.name);
        }
        std::FILE* f = std::fopen((std::string(VKC_BUILD_SPIRV_DIR) + "/" + file).c_str(), "rb");
        REQUIRE_MESSAGE(f, file);
        std::vector<uint32_t> words(m.code_bytes / 4 + 1);
        size_t read = std::fread(words.data(), 4, words.size(), f);
        std::fclose(f);
        CHECK_MESSAGE(read == m.code_bytes / 4, file);
        CHECK_MESSAGE(std::memcmp(words.data(), m.code(), m.code_bytes) == 0, m.name);
    }
    CHECK(shared > 0);
}
