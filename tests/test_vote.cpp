// work_group_all and work_group_any.
#include "support.hpp"

using namespace vkc;

TEST_CASE("all: single odd items at the first item, last item and a subgroup boundary, every shape") {
    test::run_matrix(Collective::all, false, false);
}

TEST_CASE("any: single odd items at the first item, last item and a subgroup boundary, every shape") {
    test::run_matrix(Collective::any, false, false);
}

TEST_CASE("all/any: non-zero is true") {
    std::vector<uint32_t> items = {2, 0x80000000u, 7, 1};
    auto& ctx = test::context();
    CHECK(ctx.run(WorkgroupRequest{Collective::all, Type::u32, Op::add, {4}}, items) == std::vector<uint32_t>(4, 1));
    items[2] = 0;
    CHECK(ctx.run(WorkgroupRequest{Collective::all, Type::u32, Op::add, {4}}, items) == std::vector<uint32_t>(4, 0));
    CHECK(ctx.run(WorkgroupRequest{Collective::any, Type::u32, Op::add, {4}}, items) == std::vector<uint32_t>(4, 1));
}
