// Bad input gets an error that names the problem, and nothing outside the output is written.
#include "support.hpp"

#include <string>

using namespace vkc;

using test::error_of;

TEST_CASE("errors: work-group sizes of 0 and past the device limits") {
    auto& ctx = test::context();
    std::vector<uint32_t> items(64, 1);
    std::string zero = error_of([&] { ctx.run(WorkgroupRequest{Collective::reduce, Type::u32, Op::add, {0}}, items); });
    CHECK(zero.find("zero dimension") != std::string::npos);
    uint32_t too_wide = ctx.info().max_workgroup_size[0] + 1;
    std::string wide =
        error_of([&] { ctx.run(WorkgroupRequest{Collective::reduce, Type::u32, Op::add, {too_wide}}, items); });
    CHECK(wide.find("maxComputeWorkGroupSize.x") != std::string::npos);
    uint32_t side = 1;
    while (side * side * side <= ctx.info().max_workgroup_invocations) side *= 2;
    WorkgroupShape cube{side, side, side};
    if (side <= ctx.info().max_workgroup_size[2]) {
        std::string many = error_of([&] { ctx.run(WorkgroupRequest{Collective::reduce, Type::u32, Op::add, cube}, items); });
        CHECK(many.find("maxComputeWorkGroupInvocations") != std::string::npos);
    }
}

TEST_CASE("errors: empty input and empty buffers") {
    auto& ctx = test::context();
    std::vector<uint32_t> none;
    std::string empty = error_of([&] { ctx.run(WorkgroupRequest{Collective::reduce, Type::u32, Op::add, {32}}, none); });
    CHECK(empty.find("empty") != std::string::npos);
    CHECK(error_of([&] { ctx.create_buffer(0); }).find("size 0") != std::string::npos);
}

TEST_CASE("errors: buffers too small, host type of the wrong size") {
    auto& ctx = test::context();
    Buffer small = ctx.create_buffer(16);
    Buffer big = ctx.create_buffer(64);
    WorkgroupRequest r{Collective::scan_inclusive, Type::u32, Op::add, {4}, 8};
    CHECK(error_of([&] { ctx.run(r, small, big); }).find("input") != std::string::npos);
    CHECK(error_of([&] { ctx.run(r, big, small); }).find("output") != std::string::npos);
    std::vector<uint64_t> wrong(4);
    CHECK(error_of([&] { ctx.run(r, wrong); }).find("do not match") != std::string::npos);
}

TEST_CASE("errors: nothing past the count is written") {
    auto& ctx = test::context();
    std::vector<uint32_t> items(100, 0xdeadbeefu);
    for (uint32_t i = 0; i < 37; ++i) items[i] = i;
    Buffer in = ctx.create_buffer(400);
    Buffer out = ctx.create_buffer(400);
    ctx.upload(in, items.data(), 400);
    ctx.upload(out, items.data(), 400);
    ctx.run(WorkgroupRequest{Collective::scan_inclusive, Type::u32, Op::add, {16}, 37}, in, out);
    std::vector<uint32_t> got(100);
    ctx.download(out, got.data(), 400);
    uint32_t sum = 0;
    for (uint32_t i = 0; i < 37; ++i) {
        sum = i % 16 == 0 ? i : sum + i;
        CHECK(got[i] == sum);
    }
    for (uint32_t i = 37; i < 100; ++i) CHECK(got[i] == 0xdeadbeefu);
}

TEST_CASE("errors: broadcast sources outside the group or past a short last group") {
    auto& ctx = test::context();
    std::vector<float> items(10, 1.0f);
    WorkgroupRequest r{Collective::broadcast, Type::f32, Op::add, {4}};
    r.source.id[0] = 4;
    CHECK(error_of([&] { ctx.run(r, items); }).find("outside the work-group") != std::string::npos);
    r.source.id[0] = 3; // the last group holds items 8 and 9 only
    CHECK(error_of([&] { ctx.run(r, items); }).find("short last work-group") != std::string::npos);
    r.source.dims = 4;
    CHECK(error_of([&] { ctx.run(r, items); }).find("coordinates") != std::string::npos);
}

TEST_CASE("errors: a type the device lacks is an error naming the feature") {
    ContextOptions o;
    o.validation = true;
    o.hide_features = Feature::shader_float64 | Feature::shader_float16;
    Context ctx(o);
    std::vector<double> d(8, 1.0);
    std::string msg;
    try {
        ctx.run(WorkgroupRequest{Collective::reduce, Type::f64, Op::add, {8}}, d);
    } catch (const UnsupportedError& e) {
        msg = e.what();
    }
    CHECK(msg.find("shaderFloat64") != std::string::npos);
    CHECK_THROWS_AS(ctx.device().select_module(Collective::broadcast, Type::f16, Op::add), UnsupportedError);
    CHECK(ctx.device().select_module(Collective::reduce, Type::f32, Op::add).path == test::preferred_path());
}

TEST_CASE("fallback: without subgroup arithmetic, or without it for a type, the shared-memory path runs") {
    ContextOptions o;
    o.validation = true;
    o.hide_features = Feature::subgroup_extended_types;
    Context ctx(o);
    CHECK(ctx.device().select_module(Collective::scan_inclusive, Type::i64, Op::add).path == Path::shared_memory);
    CHECK(ctx.device().select_module(Collective::scan_inclusive, Type::i32, Op::add).path == test::preferred_path());
    verify::Case c{Collective::scan_inclusive, Type::i64, Op::max, {100}};
    CHECK(verify::run_case(ctx, c).status == verify::Status::pass);

    o.hide_features = Feature::subgroup_arithmetic | Feature::subgroup_vote;
    Context plain(o);
    CHECK(plain.device().select_module(Collective::reduce, Type::f32, Op::min).path == Path::shared_memory);
    CHECK(plain.device().select_module(Collective::any, Type::u32, Op::add).path == Path::shared_memory);
    CHECK(ctx.validation_messages() == 0);
}

TEST_CASE("errors: prepare_scans names the preparation and the problem") {
    auto& ctx = test::context();
    Device& gpu = ctx.device();
    ScanPreparation good;
    good.max_count = 5000;
    ScanPreparation float_and = good;
    float_and.type = Type::f32;
    float_and.op = Op::bit_and;
    std::vector<ScanPreparation> list{good, float_and};
    std::string op = error_of([&] { gpu.prepare_scans(list, 2); });
    CHECK(op.find("prepare_scans: preparation 1") != std::string::npos);
    INFO(op);
    CHECK(op.find("float") != std::string::npos);
    ScanPreparation past = good;
    past.indirect_count = true;
    past.max_count = uint64_t(1) << 33;
    list = {good, good, past};
    std::string bound = error_of([&] { gpu.prepare_scans(list, 1); });
    CHECK(bound.find("prepare_scans: preparation 2") != std::string::npos);
    CHECK(bound.find("4294967295") != std::string::npos);
    ScanPreparation huge = good;
    huge.max_count = uint64_t(1) << 62;
    list = {huge};
    CHECK(error_of([&] { gpu.prepare_scans(list); }).find("prepare_scans: preparation 0") != std::string::npos);
    // Nothing to prepare, and a reduce of at most 0 items (it still runs one work-group).
    CHECK_NOTHROW(gpu.prepare_scans({}));
    ScanPreparation empty_reduce = good;
    empty_reduce.reduce = true;
    empty_reduce.max_count = 0;
    list = {empty_reduce};
    CHECK_NOTHROW(gpu.prepare_scans(list, 3));
}
