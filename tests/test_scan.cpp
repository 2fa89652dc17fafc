// work_group_scan_inclusive_<op> and work_group_scan_exclusive_<op>.
#include "support.hpp"

#include <cstring>

using namespace vkc;

TEST_CASE("scan_inclusive: every type and op at every work-group shape") {
    test::run_matrix(Collective::scan_inclusive, true, true);
}

TEST_CASE("scan_exclusive: every type and op at every work-group shape") {
    test::run_matrix(Collective::scan_exclusive, true, true);
}

TEST_CASE("scan: the OpenCL example [3 1 7 0 4 1 6 3]") {
    std::vector<int32_t> items = {3, 1, 7, 0, 4, 1, 6, 3};
    auto& ctx = test::context();
    CHECK(ctx.run(WorkgroupRequest{Collective::scan_inclusive, Type::i32, Op::add, {8}}, items) ==
          std::vector<int32_t>{3, 4, 11, 11, 15, 16, 22, 25});
    CHECK(ctx.run(WorkgroupRequest{Collective::scan_exclusive, Type::i32, Op::add, {8}}, items) ==
          std::vector<int32_t>{0, 3, 4, 11, 11, 15, 16, 22});
    // The same items as a 4x2 and a 2x2x2 work-group: scan order is the linear local id.
    CHECK(ctx.run(WorkgroupRequest{Collective::scan_inclusive, Type::i32, Op::add, {4, 2}}, items) ==
          std::vector<int32_t>{3, 4, 11, 11, 15, 16, 22, 25});
    CHECK(ctx.run(WorkgroupRequest{Collective::scan_exclusive, Type::i32, Op::add, {2, 2, 2}}, items) ==
          std::vector<int32_t>{0, 3, 4, 11, 11, 15, 16, 22});
}

TEST_CASE("scan_exclusive: element 0 is the identity, bit for bit") {
    auto& ctx = test::context();
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> f = {-0.0f, 1.0f};
    auto add = ctx.run(WorkgroupRequest{Collective::scan_exclusive, Type::f32, Op::add, {2}}, f);
    uint32_t bits;
    std::memcpy(&bits, &add[0], 4);
    CHECK(bits == 0u); // +0, not -0
    CHECK(ctx.run(WorkgroupRequest{Collective::scan_exclusive, Type::f32, Op::min, {2}}, f)[0] == inf);
    CHECK(ctx.run(WorkgroupRequest{Collective::scan_exclusive, Type::f32, Op::max, {2}}, f)[0] == -inf);
    std::vector<int32_t> i = {5, 6};
    CHECK(ctx.run(WorkgroupRequest{Collective::scan_exclusive, Type::i32, Op::min, {2}}, i)[0] == INT32_MAX);
    CHECK(ctx.run(WorkgroupRequest{Collective::scan_exclusive, Type::i32, Op::max, {2}}, i)[0] == INT32_MIN);
    std::vector<uint64_t> u = {5, 6};
    CHECK(ctx.run(WorkgroupRequest{Collective::scan_exclusive, Type::u64, Op::min, {2}}, u)[0] == UINT64_MAX);
    CHECK(ctx.run(WorkgroupRequest{Collective::scan_exclusive, Type::u64, Op::max, {2}}, u)[0] == 0u);
}

TEST_CASE("scan: a short last group covers only its own items") {
    // 10 items in groups of 4: the last group holds 2.
    std::vector<uint32_t> items(10, 1u);
    auto out = test::context().run(WorkgroupRequest{Collective::scan_inclusive, Type::u32, Op::add, {4}}, items);
    CHECK(out == std::vector<uint32_t>{1, 2, 3, 4, 1, 2, 3, 4, 1, 2});
    auto red = test::context().run(WorkgroupRequest{Collective::reduce, Type::u32, Op::add, {4}}, items);
    CHECK(red == std::vector<uint32_t>{4, 4, 4, 4, 4, 4, 4, 4, 2, 2});
}

TEST_CASE("scan_inclusive: 8/16-bit integers, mul, bitwise and logical ops, custom operators") {
    test::run_extended_matrix(Collective::scan_inclusive);
}

TEST_CASE("scan_exclusive: 8/16-bit integers, mul, bitwise and logical ops, custom operators") {
    test::run_extended_matrix(Collective::scan_exclusive);
}
