// work_group_broadcast from 1D, 2D and 3D local ids, bit-exact.
#include "support.hpp"

using namespace vkc;

TEST_CASE("broadcast: every type at every work-group shape, sources first, last, middle and random") {
    test::run_matrix(Collective::broadcast, true, false);
}

TEST_CASE("broadcast: a 2D source (x, y) is local index x + y*X") {
    std::vector<uint32_t> items(12);
    for (uint32_t i = 0; i < 12; ++i) items[i] = 100 + i;
    WorkgroupRequest r{Collective::broadcast, Type::u32, Op::add, {4, 3}};
    r.source.dims = 2;
    r.source.id[0] = 1;
    r.source.id[1] = 2; // index 9
    CHECK(test::context().run(r, items) == std::vector<uint32_t>(12, 109));
    r.shape = {2, 3, 2};
    r.source.dims = 3;
    r.source.id[0] = 1;
    r.source.id[1] = 0;
    r.source.id[2] = 1; // index 1 + 2*(0 + 1*3) = 7
    CHECK(test::context().run(r, items) == std::vector<uint32_t>(12, 107));
}

TEST_CASE("broadcast: 8- and 16-bit integers") {
    uint64_t seed = 77;
    for (Type t : test::every_type()) {
        if (!is_integer(t) || size_of(t) > 2) continue;
        for (const WorkgroupShape& shape : test::reduced_shapes()) {
            verify::Case c{Collective::broadcast, t, Op::add, shape};
            c.seed = seed++;
            test::expect_pass(c);
        }
    }
}
