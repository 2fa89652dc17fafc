// Shared by the suites: one Context per process (device from VKC_DEVICE, validation on when the
// layer is installed) and a runner for a matrix of cases that reports skips with their reasons.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "verify/verify.hpp"
#include "vkc/vkc.hpp"

namespace vkc::test {

Context& context();

// The path a module with every feature available runs on: subgroup, unless VKC_SHARED_MEMORY_ONLY=1.
Path preferred_path();

// OpenCL C's types and operators (the foundation), and every type and operator of
// include/vkc/types.def (what came after: 8/16-bit integers, mul, bitwise and logical ops, the worked
// custom operators), in enum order.
inline const std::vector<Type>& all_types() {
    static const std::vector<Type> t = [] {
        std::vector<Type> v;
        for (Type x : vkc::all_types()) {
            if (is_opencl(x)) v.push_back(x);
        }
        return v;
    }();
    return t;
}
inline const std::vector<Op>& all_ops() {
    static const std::vector<Op> o = [] {
        std::vector<Op> v;
        for (Op x : vkc::all_ops()) {
            if (is_opencl(x)) v.push_back(x);
        }
        return v;
    }();
    return o;
}
inline const std::vector<Type>& every_type() {
    static const std::vector<Type> t(vkc::all_types().begin(), vkc::all_types().end());
    return t;
}
inline const std::vector<Op>& every_op() {
    static const std::vector<Op> o(vkc::all_ops().begin(), vkc::all_ops().end());
    return o;
}
// Fewer shapes for the operators and types past OpenCL C's, to keep the suite's time in bounds:
// a size below the narrowest subgroups, one just past a power of two, a full one, and a 3D shape that
// lavapipe packs row by row.
inline std::vector<WorkgroupShape> reduced_shapes() { return {{7}, {33}, {256}, {3, 5, 7}}; }

// Whether case `index` of a matrix too large to run whole at every width runs in this entry. CTest's
// entries at the six lavapipe widths set VKC_TEST_SPREAD=1 and share such a matrix out: a case runs
// where (index + log2 of the subgroup size) % parts == 0, so each case runs at 6 / parts of the widths
// and each width runs a part of every row. Lavapipe compiles a pipeline per (module, shape), and with
// a cold shader cache that is what the suite's time is made of. Without the variable (the
// shared-memory entry, a run by hand, any GPU) every case runs.
// VKC_TEST_THIN=2 (CTest's lavapipe entries) thins every such matrix by half again: parts becomes
// 2 x parts, at most 6, so each case runs at one or two widths (the fractions the tests' comments
// give are those of VKC_TEST_THIN=1, a run with every case at two or three widths). The 64-lane
// entry, whose pipelines compile slowest, hands every other of its cases to the 4-lane entry.
bool spread(uint64_t index, uint32_t parts);
// A device-wide primitive's matrix (select, histogram): spread(index, parts), and on the shared-memory
// entry (which does not spread) the first part only: a primitive's shared-memory module differs from
// its subgroup one in how a tile is joined, which every case runs, and the matrix's rows are the same
// code on both. A run by hand with neither variable runs every case. VKC_TEST_THIN=2 halves the
// shared-memory entry's part too.
bool share(uint64_t index, uint32_t parts);
// The shared-memory entry (VKC_SHARED_MEMORY_ONLY=1 without VKC_TEST_SPREAD): it alone runs the
// shared-memory modules, so its matrices keep every module and rotate what else they vary.
bool shared_memory_entry();

// Runs the case and records it: a failure fails the test with the case's detail; a skip prints its
// reason, and fails too when VKC_EXPECT_NO_SKIPS=1 (set for lavapipe, which supports everything).
void expect_pass(const verify::Case& c);
void expect_pass(const verify::DeviceCase& c);

// Runs `collective` for every type x op (when it has them) x the standard work-group shapes (with
// VKC_TEST_SPREAD and on the shared-memory entry, a third of the shapes a pair).
void run_matrix(Collective collective, bool per_type, bool per_op);

// Runs f and returns the message of the vkc::Error it throws ("" when it throws none).
template <class F>
std::string error_of(F&& f) {
    try {
        f();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

// Runs `collective` for the types and ops past OpenCL C's, at reduced_shapes() (with VKC_TEST_SPREAD,
// half of them a pair).
void run_extended_matrix(Collective collective);

} // namespace vkc::test
