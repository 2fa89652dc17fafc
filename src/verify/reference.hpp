// vkcollectives: the CPU reference of the verifier: per-type host traits, the operators' identities
// and combine rules, and the random and special items the cases are filled with.
#pragma once

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "vkc/half.hpp"
#include "vkc/types.hpp"

namespace vkc::verify::detail {

using Rng = std::mt19937_64;

// ---- Per-type host traits --------------------------------------------------------------------

// The host type of uvec2 items (the worked custom operators).
struct Pair {
    uint32_t x, y;
};

template <class T>
constexpr bool is_float_v = std::is_floating_point_v<T> || std::is_same_v<T, half>;
template <class T>
constexpr bool is_pair_v = std::is_same_v<T, Pair>;

// Floats are compared through long double, wide enough to hold every sum of the test data exactly
// or nearly so; ints through their own type.
template <class T>
long double wide(T v) {
    if constexpr (std::is_same_v<T, half>) return static_cast<float>(v);
    else if constexpr (is_pair_v<T>) return v.y;
    else return static_cast<long double>(v);
}

template <class T>
T narrow(long double v) {
    if constexpr (std::is_same_v<T, half>) return half(float(v));
    else if constexpr (is_pair_v<T>) return Pair{0, uint32_t(v)};
    else return T(v);
}

template <class T>
uint64_t bits_of(T v) {
    uint64_t b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
}

template <class T>
bool is_nan(T v) {
    if constexpr (is_float_v<T>) return std::isnan(wide(v));
    else return false;
}

template <class T>
long double epsilon() {
    if constexpr (std::is_same_v<T, half>) return std::ldexp(1.0L, -10);
    else if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::epsilon();
    else return 0;
}

template <class T>
T infinity() {
    if constexpr (std::is_same_v<T, half>) return half::from_bits(0x7c00);
    else if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::infinity();
    else return T{};
}

template <class T>
T quiet_nan() {
    if constexpr (std::is_same_v<T, half>) return half::from_bits(0x7e00);
    else if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::quiet_NaN();
    else return T{};
}

// The identities of OpenCL C and cl_khr_work_group_uniform_arithmetic, and of the worked custom ops.
template <class T>
T identity(Op op) {
    if constexpr (is_pair_v<T>) {
        return op == Op::argmax ? Pair{0xff800000u, 0xffffffffu} : Pair{0, 0};
    } else if constexpr (is_float_v<T>) {
        T inf = infinity<T>();
        switch (op) {
        case Op::min: return inf;
        case Op::max: return narrow<T>(-wide(inf));
        case Op::mul: return narrow<T>(1);
        default: return narrow<T>(0);
        }
    } else {
        switch (op) {
        case Op::min: return std::numeric_limits<T>::max();
        case Op::max: return std::numeric_limits<T>::lowest();
        case Op::mul:
        case Op::logical_and: return T(1);
        case Op::bit_and: return T(~T(0));
        default: return T(0);
        }
    }
}

// A float's bits as an integer that orders every non-NaN value, -0 below +0 (common.glsl's vkc_ordered).
template <class T>
int64_t ordered(T v) {
    int64_t b;
    if constexpr (sizeof(T) == 2) b = int16_t(bits_of(v));
    else if constexpr (sizeof(T) == 4) b = int32_t(bits_of(v));
    else b = int64_t(bits_of(v));
    return b < 0 ? b ^ (std::numeric_limits<int64_t>::max() >> (64 - 8 * sizeof(T))) : b;
}

// What the shaders do to each item first: min/max treat NaN as the identity, logical ops see 0 or 1.
template <class T>
T prepare(Op op, T v) {
    if (is_nan(v) && (op == Op::min || op == Op::max)) return identity<T>(op);
    if constexpr (std::is_integral_v<T>) {
        if (op == Op::logical_and || op == Op::logical_or || op == Op::logical_xor) return T(v != 0 ? 1 : 0);
    }
    return v;
}

// Exact host combine of prepared items: ints (add and mul wrap), float min/max and mul, the pairs.
template <class T>
T combine(Op op, T a, T b) {
    if constexpr (is_pair_v<T>) {
        if (op == Op::segmented_add) return Pair{a.x | b.x, b.x ? b.y : a.y + b.y};
        float va = std::bit_cast<float>(a.x), vb = std::bit_cast<float>(b.x);
        return (vb > va || (vb == va && b.y < a.y)) ? b : a;
    } else if constexpr (is_float_v<T>) {
        if (op == Op::mul) return narrow<T>(wide(a) * wide(b));
        if (op == Op::add) return narrow<T>(wide(a) + wide(b));
        // min and max order the bits as the shaders do (-0 below +0), so the result is an input.
        if (op == Op::min) return ordered(b) < ordered(a) ? b : a;
        return ordered(b) > ordered(a) ? b : a;
    } else {
        using U = std::make_unsigned_t<T>;
        switch (op) {
        case Op::add: return T(U(uint64_t(U(a)) + uint64_t(U(b))));
        case Op::mul: return T(U(uint64_t(U(a)) * uint64_t(U(b))));
        case Op::min: return std::min(a, b);
        case Op::max: return std::max(a, b);
        case Op::bit_and:
        case Op::logical_and: return T(a & b);
        case Op::bit_or:
        case Op::logical_or: return T(a | b);
        default: return T(a ^ b);
        }
    }
}

template <class T>
std::string show(T v) {
    std::ostringstream s;
    if constexpr (is_pair_v<T>) s << "(" << v.x << ", " << v.y << ")";
    else if constexpr (std::is_same_v<T, half>) s << float(v) << " (bits 0x" << std::hex << v.bits << ")";
    else if constexpr (is_float_v<T>) s.precision(std::numeric_limits<T>::max_digits10), s << v;
    else s << +v;
    return s.str();
}

template <class T>
long double largest_finite() {
    if constexpr (std::is_same_v<T, half>) return 65504.0L;
    else if constexpr (std::is_floating_point_v<T>) return std::numeric_limits<T>::max();
    else return 0;
}

// Empty where `got` is right for a float sum of k items whose exact value is `want` (sum|x| = sum_abs):
// within (k-1)*eps*sum_abs, as any summation order is, or an infinity of the sum's sign where the sum,
// give or take that bound, passes the largest finite value (a tile of halves does easily); else why not.
template <class T>
std::string float_sum_error(T got, long double want, uint64_t k, long double sum_abs) {
    long double g = wide(got), bound = (k - 1) * epsilon<T>() * sum_abs;
    bool ok;
    if (std::isnan(want)) ok = std::isnan(g);
    else if (std::isinf(want)) ok = g == want;
    else if (std::isinf(g))
        ok = std::signbit(g) == std::signbit(want) && std::fabs(want) + bound >= largest_finite<T>();
    else ok = std::isfinite(g) && std::fabs(g - want) <= bound;
    if (ok) return {};
    return "expected " + show(narrow<T>(want)) + " within (k-1)*eps*sum|x| for k = " + std::to_string(k) + ", got " +
           show(got);
}

// Random items for an operator. Floats: add/min/max uniform in [-999, 999] (halves in [-60, 60], so a
// sum over 1024 stays finite); mul mostly +-1 with a few +-2 and +-0.5, so products are exact. Ints:
// the full range, biased for and/or and the logical ops so their prefixes do not settle at once.
template <class T>
T random_value(Op op, Rng& rng) {
    if constexpr (is_pair_v<T>) {
        if (op == Op::segmented_add) return Pair{rng() % 8 == 0 ? 1u : 0u, uint32_t(rng())};
        float v = float(int(rng() % 64) - 32); // few values, so ties happen
        return Pair{std::bit_cast<uint32_t>(v), uint32_t(rng())};
    } else if constexpr (is_float_v<T>) {
        if (op == Op::mul) {
            uint64_t r = rng();
            bool rare = r % (std::is_same_v<T, half> ? 64 : 16) == 0;
            long double m = rare ? ((r >> 8) % 2 ? 2.0L : 0.5L) : 1.0L;
            return narrow<T>((r >> 9) % 2 ? -m : m);
        }
        long double range = std::is_same_v<T, half> ? 60.0L : 999.0L;
        std::uniform_real_distribution<double> d(-double(range), double(range));
        return narrow<T>(d(rng));
    } else {
        uint64_t r = rng();
        switch (op) {
        case Op::bit_and: return T(r | rng() | rng());
        case Op::bit_or: return T(r & rng() & rng());
        case Op::logical_and: return T(r % 64 == 0 ? 0 : (r >> 8) | 1);
        case Op::logical_or: return T(r % 64 == 0 ? (r >> 8) | 1 : 0);
        case Op::logical_xor: return T(r % 2 ? 0 : r >> 1);
        default: return T(r);
        }
    }
}

// A denormal from its mantissa bits (1: the smallest), of either sign.
template <class T>
T denormal(uint64_t mantissa, bool negative) {
    constexpr int mantissa_bits = sizeof(T) == 2 ? 10 : sizeof(T) == 4 ? 23 : 52;
    uint64_t b = (mantissa % ((uint64_t(1) << mantissa_bits) - 1)) + 1;
    if (negative) b |= uint64_t(1) << (8 * sizeof(T) - 1);
    T v;
    std::memcpy(static_cast<void*>(&v), &b, sizeof(T));
    return v;
}

// Mostly denormals of both signs, with signed zeros and a few infinities and NaNs: where a driver
// flushes denormals, min and max over these lose them unless they move bits, not values.
template <class T>
T special_value(Rng& rng) {
    uint64_t r = rng();
    switch (r % 32) {
    case 0: return infinity<T>();
    case 1: return narrow<T>(-wide(infinity<T>()));
    case 2: return quiet_nan<T>();
    case 3:
    case 4: return narrow<T>(0.0L);
    case 5:
    case 6: return narrow<T>(-0.0L);
    default: return denormal<T>(r >> 8 & (r & 32 ? 0xff : 0xfffff), r & 64);
    }
}

template <class T>
std::vector<T> extremes(Op op) {
    if constexpr (is_pair_v<T>) {
        return {identity<T>(op)};
    } else if constexpr (is_float_v<T>) {
        T inf = infinity<T>();
        std::vector<T> v = {inf, narrow<T>(-wide(inf)), narrow<T>(0.0L), narrow<T>(-0.0L)};
        if (op == Op::mul) return {inf, narrow<T>(-wide(inf)), narrow<T>(0.0L), narrow<T>(-0.0L), narrow<T>(1.0L)};
        if (op != Op::add) { // the largest finite values would overflow a sum; min/max take them exactly
            T big;
            if constexpr (std::is_same_v<T, half>) big = half::from_bits(0x7bff);
            else big = std::numeric_limits<T>::max();
            v.push_back(big);
            v.push_back(narrow<T>(-wide(big)));
        }
        return v;
    } else if constexpr (std::is_signed_v<T>) {
        return {std::numeric_limits<T>::min(), std::numeric_limits<T>::max(), T(0), T(-1), T(1)};
    } else {
        return {T(0), std::numeric_limits<T>::max(), T(1), T(std::numeric_limits<T>::max() - 1)};
    }
}

// Calls f(T{}) with the host type of t (include/vkc/types.def's host column).
template <class F>
void with_host_type(Type t, F&& f) {
    switch (t) {
#define VKC_TYPE(enumerator, value, name, type_class, opencl, bytes, glsl, glsl_vec, vec_width, host, ...)             \
    case Type::enumerator:                                                                                             \
        f(host{});                                                                                                     \
        break;
#include "vkc/types.def"
    }
}

} // namespace vkc::verify::detail
