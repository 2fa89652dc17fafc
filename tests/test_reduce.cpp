// work_group_reduce_<op>: every type x op x work-group shape, against the CPU reference.
#include "support.hpp"

using namespace vkc;

TEST_CASE("reduce: every type and op at every work-group shape") {
    test::run_matrix(Collective::reduce, true, true);
}

TEST_CASE("reduce: the OpenCL example [3 1 7 0 4 1 6 3] gives 25") {
    std::vector<int32_t> items = {3, 1, 7, 0, 4, 1, 6, 3};
    auto out = test::context().run(WorkgroupRequest{Collective::reduce, Type::i32, Op::add, {8}}, items);
    CHECK(out == std::vector<int32_t>(8, 25));
}

TEST_CASE("reduce: integer add wraps modulo 2^N") {
    std::vector<uint32_t> u = {0xffffffffu, 2u, 0x80000000u, 0x80000000u};
    CHECK(test::context().run(WorkgroupRequest{Collective::reduce, Type::u32, Op::add, {4}}, u) ==
          std::vector<uint32_t>(4, 1u));
    std::vector<int64_t> l = {INT64_MAX, 1};
    CHECK(test::context().run(WorkgroupRequest{Collective::reduce, Type::i64, Op::add, {2}}, l) ==
          std::vector<int64_t>(2, INT64_MIN));
}

TEST_CASE("reduce: min and max ignore NaN; only NaNs give the identity") {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float inf = std::numeric_limits<float>::infinity();
    auto& ctx = test::context();
    std::vector<float> items = {nan, 5.0f, -2.0f, nan};
    CHECK(ctx.run(WorkgroupRequest{Collective::reduce, Type::f32, Op::min, {4}}, items) ==
          std::vector<float>(4, -2.0f));
    CHECK(ctx.run(WorkgroupRequest{Collective::reduce, Type::f32, Op::max, {4}}, items) ==
          std::vector<float>(4, 5.0f));
    std::vector<float> nans(3, nan);
    CHECK(ctx.run(WorkgroupRequest{Collective::reduce, Type::f32, Op::min, {3}}, nans) == std::vector<float>(3, inf));
    CHECK(ctx.run(WorkgroupRequest{Collective::reduce, Type::f32, Op::max, {3}}, nans) == std::vector<float>(3, -inf));
}

TEST_CASE("reduce: 8/16-bit integers, mul, bitwise and logical ops, custom operators") {
    test::run_extended_matrix(Collective::reduce);
}
