// Shared by the suites: one Context per process (device from VKC_DEVICE, validation on when the
// layer is installed) and a runner for a matrix of cases that reports skips with their reasons.
#pragma once

#include <doctest/doctest.h>

#include <cstdint>
#include <limits>

#include <vector>

#include "verify/verify.hpp"
#include "vkc/vkc.hpp"

namespace vkc::test {

Context& context();

// The path a module with every feature available runs on: subgroup, unless VKC_SHARED_MEMORY_ONLY=1.
Path preferred_path();

inline const std::vector<Type>& all_types() {
    static const std::vector<Type> t = {Type::f16, Type::i32, Type::u32, Type::i64, Type::u64, Type::f32, Type::f64};
    return t;
}
inline const std::vector<Op>& all_ops() {
    static const std::vector<Op> o = {Op::add, Op::min, Op::max};
    return o;
}

// Runs the case and records it: a failure fails the test with the case's detail; a skip prints its
// reason, and fails too when VKC_EXPECT_NO_SKIPS=1 (set for lavapipe, which supports everything).
void expect_pass(const verify::Case& c);

// Runs `collective` for every type x op (when it has them) x the standard work-group shapes.
void run_matrix(Collective collective, bool per_type, bool per_op);

} // namespace vkc::test
