#include "verify/verify.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <type_traits>

#include "vkc/half.hpp"

namespace vkc::verify {
namespace {

using Rng = std::mt19937_64;

// ---- Per-type host traits --------------------------------------------------------------------

template <class T>
constexpr bool is_float_v = std::is_floating_point_v<T> || std::is_same_v<T, half>;

// Floats are compared through long double, wide enough to hold every sum of the test data exactly
// or nearly so; ints through their own type.
template <class T>
long double wide(T v) {
    if constexpr (std::is_same_v<T, half>) return static_cast<float>(v);
    else return static_cast<long double>(v);
}

template <class T>
T narrow(long double v) {
    if constexpr (std::is_same_v<T, half>) return half(float(v));
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
    else return std::numeric_limits<T>::epsilon();
}

template <class T>
T infinity() {
    if constexpr (std::is_same_v<T, half>) return half::from_bits(0x7c00);
    else return std::numeric_limits<T>::infinity();
}

template <class T>
T quiet_nan() {
    if constexpr (std::is_same_v<T, half>) return half::from_bits(0x7e00);
    else return std::numeric_limits<T>::quiet_NaN();
}

// OpenCL C's identities.
template <class T>
T identity(Op op) {
    if (op == Op::add) return narrow<T>(0);
    if constexpr (is_float_v<T>) {
        T inf = infinity<T>();
        return op == Op::min ? inf : narrow<T>(-wide(inf));
    } else {
        return op == Op::min ? std::numeric_limits<T>::max() : std::numeric_limits<T>::lowest();
    }
}

// Exact host combine for ints (add wraps) and for float min/max (NaN ignored, as the shaders do).
template <class T>
T combine(Op op, T a, T b) {
    if constexpr (is_float_v<T>) {
        if (is_nan(a)) return b;
        if (is_nan(b)) return a;
        if (op == Op::min) return wide(b) < wide(a) ? b : a;
        return wide(b) > wide(a) ? b : a;
    } else {
        using U = std::make_unsigned_t<T>;
        switch (op) {
        case Op::add: return T(U(a) + U(b));
        case Op::min: return std::min(a, b);
        default: return std::max(a, b);
        }
    }
}

template <class T>
std::string show(T v) {
    std::ostringstream s;
    if constexpr (std::is_same_v<T, half>) s << float(v) << " (bits 0x" << std::hex << v.bits << ")";
    else if constexpr (is_float_v<T>) s.precision(std::numeric_limits<T>::max_digits10), s << v;
    else s << +v;
    return s.str();
}

// Random floats in [-999, 999]; halves in [-60, 60], so that a sum over 1024 of them stays finite.
template <class T>
T random_value(Rng& rng) {
    if constexpr (is_float_v<T>) {
        long double range = std::is_same_v<T, half> ? 60.0L : 999.0L;
        std::uniform_real_distribution<double> d(-double(range), double(range));
        return narrow<T>(d(rng));
    } else {
        return T(rng());
    }
}

template <class T>
std::vector<T> extremes(Op op) {
    if constexpr (is_float_v<T>) {
        T inf = infinity<T>();
        std::vector<T> v = {inf, narrow<T>(-wide(inf)), narrow<T>(0.0L), narrow<T>(-0.0L)};
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

// ---- Layout of a case's input ----------------------------------------------------------------

struct Layout {
    uint64_t group_size = 1;
    uint64_t count = 0;
    uint64_t groups() const { return (count + group_size - 1) / group_size; }
    uint64_t live(uint64_t g) const { return std::min(group_size, count - g * group_size); }
};

uint64_t boundary_index(const Context& ctx, uint64_t live) {
    uint64_t s = ctx.device().subgroup_size;
    return s < live ? s : live / 2;
}

std::string where(uint64_t group, uint64_t local, const std::string& pattern) {
    return "work-group " + std::to_string(group) + " (" + pattern + "), local id " + std::to_string(local);
}

// ---- Reduce and scans ---------------------------------------------------------------------------

template <class T>
std::string check_scan_group(Collective c, Op op, const T* in, const T* out, uint64_t n, uint64_t group,
                             const std::string& pattern) {
    const bool float_add = is_float_v<T> && op == Op::add;
    // Exact reference (ints, float min/max) and, for float add, the wide sum with its error scale.
    std::vector<T> inclusive(n);
    std::vector<long double> sum(n), sum_abs(n);
    T acc = identity<T>(op);
    long double s = 0, sa = 0;
    for (uint64_t i = 0; i < n; ++i) {
        acc = i == 0 ? (op == Op::add ? in[0] : combine(op, identity<T>(op), in[0])) : combine(op, acc, in[i]);
        inclusive[i] = acc;
        s += wide(in[i]);
        sa += std::fabs(wide(in[i]));
        sum[i] = s;
        sum_abs[i] = sa;
    }
    for (uint64_t i = 0; i < n; ++i) {
        // The expected value combines k items: the prefix [0, last].
        uint64_t k = c == Collective::scan_inclusive ? i + 1 : c == Collective::scan_exclusive ? i : n;
        T got = out[i];
        if (k == 0) { // exclusive element 0: the identity, bit for bit
            T want = identity<T>(op);
            if (bits_of(got) != bits_of(want)) {
                return where(group, i, pattern) + ": expected the identity " + show(want) + ", got " + show(got);
            }
            continue;
        }
        if (!float_add) {
            T want = inclusive[k - 1];
            bool ok = is_float_v<T> ? wide(got) == wide(want) : bits_of(got) == bits_of(want);
            if (!ok) return where(group, i, pattern) + ": expected " + show(want) + ", got " + show(got);
            continue;
        }
        long double want = sum[k - 1];
        bool ok;
        if (std::isnan(want)) {
            ok = std::isnan(wide(got));
        } else if (std::isinf(want)) {
            ok = wide(got) == want;
        } else {
            // Any summation order of k items is within (k-1) * u * sum|x| (u = eps/2); allow eps.
            long double bound = (k - 1) * epsilon<T>() * sum_abs[k - 1];
            ok = std::isfinite(wide(got)) && std::fabs(wide(got) - want) <= bound;
        }
        if (!ok) {
            return where(group, i, pattern) + ": expected " + show(narrow<T>(want)) + " within (k-1)*eps*sum|x| for k = " +
                   std::to_string(k) + ", got " + show(got);
        }
    }
    return {};
}

template <class T>
std::vector<std::string> scan_patterns() {
    std::vector<std::string> p = {"random", "one value", "extremes"};
    if constexpr (is_float_v<T>) {
        p.insert(p.end(), {"NaN at first item", "NaN at last item", "NaN at subgroup boundary"});
    }
    return p;
}

template <class T>
void fill_scan_group(const std::string& pattern, Op op, T* items, uint64_t n, uint64_t boundary, Rng& rng) {
    if (pattern == "one value") {
        T v = random_value<T>(rng);
        std::fill(items, items + n, v);
        return;
    }
    for (uint64_t i = 0; i < n; ++i) items[i] = random_value<T>(rng);
    if (pattern == "extremes") {
        auto ex = extremes<T>(op);
        for (uint64_t i = 0; i < n; ++i) {
            if (rng() % 2) items[i] = ex[rng() % ex.size()];
        }
    } else if (pattern.rfind("NaN", 0) == 0) {
        uint64_t at = pattern == "NaN at first item" ? 0 : pattern == "NaN at last item" ? n - 1 : boundary;
        items[at] = quiet_nan<T>();
    }
}

// ---- Broadcast ---------------------------------------------------------------------------------

template <class T>
std::string check_broadcast_group(const T* in, const T* out, uint64_t n, uint64_t source, uint64_t group) {
    for (uint64_t i = 0; i < n; ++i) {
        if (bits_of(out[i]) != bits_of(in[source])) {
            return where(group, i, "source " + std::to_string(source)) + ": expected bits of " + show(in[source]) +
                   ", got " + show(out[i]);
        }
    }
    return {};
}

// ---- all / any --------------------------------------------------------------------------------

const std::vector<std::string> vote_patterns = {
    "all true",          "all false",         "true but first",         "true but last",
    "true but boundary", "false but first",   "false but last",         "false but boundary"};

void fill_vote_group(const std::string& pattern, uint32_t* items, uint64_t n, uint64_t boundary, Rng& rng) {
    auto truthy = [&] { return uint32_t(rng() | 1u) << (rng() % 8); }; // non-zero, not always 1
    if (pattern == "random") {
        for (uint64_t i = 0; i < n; ++i) items[i] = rng() % 2 ? truthy() : 0u;
        return;
    }
    bool base = pattern.rfind("true", 0) == 0 || pattern == "all true";
    for (uint64_t i = 0; i < n; ++i) items[i] = base ? truthy() : 0u;
    if (pattern.find(" but ") != std::string::npos) {
        uint64_t at = pattern.ends_with("first") ? 0 : pattern.ends_with("last") ? n - 1 : boundary;
        items[at] = base ? 0u : truthy();
    }
}

// ---- Running ------------------------------------------------------------------------------------

struct Runner {
    Context& ctx;
    Outcome outcome;
    uint64_t validation_before;

    explicit Runner(Context& c) : ctx(c), validation_before(c.validation_messages()) {}

    bool fail(const std::string& why) {
        outcome.status = Status::fail;
        outcome.detail = why;
        return false;
    }
    bool validation_clean() {
        if (ctx.validation_messages() != validation_before) {
            return fail("validation layer: " + ctx.last_validation_message());
        }
        return true;
    }
};

template <class T>
void run_scan_family(Runner& r, WorkgroupRequest req, std::vector<T> in, const std::vector<std::string>& names) {
    Layout layout{req.shape.size(), in.size()};
    std::vector<T> out = r.ctx.run(req, in);
    if (!r.validation_clean()) return;
    for (uint64_t g = 0; g < layout.groups(); ++g) {
        std::string err = check_scan_group(req.collective, req.op, &in[g * layout.group_size],
                                           &out[g * layout.group_size], layout.live(g), g, names[g]);
        if (!err.empty()) {
            r.fail(err);
            return;
        }
    }
}

template <class T>
void scan_case(Runner& r, const Case& c, uint64_t count, Rng& rng) {
    WorkgroupRequest req{c.collective, c.type, c.op, c.shape};
    Layout layout{c.shape.size(), count};
    auto patterns = scan_patterns<T>();
    std::vector<T> in(count);
    std::vector<std::string> names;
    for (uint64_t g = 0; g < layout.groups(); ++g) {
        uint64_t n = layout.live(g);
        names.push_back(g < patterns.size() ? patterns[g] : "random");
        fill_scan_group(names.back(), c.op, &in[g * layout.group_size], n, boundary_index(r.ctx, n), rng);
    }
    run_scan_family(r, req, std::move(in), names);
}

template <class T>
void broadcast_case(Runner& r, const Case& c, Rng& rng) {
    const WorkgroupShape& s = c.shape;
    uint64_t size = s.size();
    std::vector<uint64_t> sources = {0, size - 1, size / 2, rng() % size};
    uint32_t native_dims = s.z > 1 ? 3 : s.y > 1 ? 2 : 1;
    for (size_t k = 0; k < sources.size() && r.outcome.status == Status::pass; ++k) {
        uint64_t src = sources[k];
        WorkgroupRequest req{c.collective, c.type, c.op, s};
        req.source.dims = k % 2 == 0 ? native_dims : 1; // both the coordinate and the linear overloads
        req.source.id[0] = uint32_t(req.source.dims == 1 ? src : src % s.x);
        req.source.id[1] = uint32_t(src / s.x % s.y);
        req.source.id[2] = uint32_t(src / (uint64_t(s.x) * s.y));
        // A short last group must still hold the source.
        uint64_t tail = c.short_tail && src + 1 < size ? src + 1 + rng() % (size - src - 1) : 0;
        uint64_t count = c.groups * size + tail;
        std::vector<T> in(count);
        for (auto& v : in) {
            uint64_t b = rng();
            std::memcpy(static_cast<void*>(&v), &b, sizeof(T)); // any bits, NaN payloads included: broadcast is a copy
        }
        std::vector<T> out = r.ctx.run(req, in);
        if (!r.validation_clean()) return;
        Layout layout{size, count};
        for (uint64_t g = 0; g < layout.groups(); ++g) {
            std::string err = check_broadcast_group(&in[g * size], &out[g * size], layout.live(g), src, g);
            if (!err.empty()) {
                r.fail(err + " (source given as " + std::to_string(req.source.dims) + "D)");
                return;
            }
        }
    }
}

void vote_case(Runner& r, const Case& c, uint64_t count, Rng& rng) {
    WorkgroupRequest req{c.collective, Type::u32, Op::add, c.shape};
    Layout layout{c.shape.size(), count};
    std::vector<uint32_t> in(count);
    std::vector<std::string> names;
    for (uint64_t g = 0; g < layout.groups(); ++g) {
        uint64_t n = layout.live(g);
        bool tail = c.short_tail && g + 1 == layout.groups() && n < layout.group_size;
        // The short group is uniform, so padding that voted the wrong way would show.
        names.push_back(tail ? (c.collective == Collective::all ? "all true" : "all false")
                             : g < vote_patterns.size() ? vote_patterns[g] : "random");
        fill_vote_group(names.back(), &in[g * layout.group_size], n, boundary_index(r.ctx, n), rng);
    }
    std::vector<uint32_t> out = r.ctx.run(req, in);
    if (!r.validation_clean()) return;
    for (uint64_t g = 0; g < layout.groups(); ++g) {
        const uint32_t* gi = &in[g * layout.group_size];
        uint64_t n = layout.live(g);
        bool all = std::all_of(gi, gi + n, [](uint32_t v) { return v != 0; });
        bool any = std::any_of(gi, gi + n, [](uint32_t v) { return v != 0; });
        uint32_t want = (c.collective == Collective::all ? all : any) ? 1u : 0u;
        for (uint64_t i = 0; i < n; ++i) {
            if (out[g * layout.group_size + i] != want) {
                r.fail(where(g, i, names[g]) + ": expected " + std::to_string(want) + ", got " +
                       std::to_string(out[g * layout.group_size + i]));
                return;
            }
        }
    }
}

template <class F>
void with_host_type(Type t, F&& f) {
    switch (t) {
    case Type::f16: f(half{}); break;
    case Type::i32: f(int32_t{}); break;
    case Type::u32: f(uint32_t{}); break;
    case Type::i64: f(int64_t{}); break;
    case Type::u64: f(uint64_t{}); break;
    case Type::f32: f(float{}); break;
    case Type::f64: f(double{}); break;
    }
}

template <class Body>
Outcome guarded(Context& ctx, Collective c, Type t, Op op, Body&& body) {
    Runner r(ctx);
    try {
        r.outcome.module = ctx.select_module(c, t, op).name;
        body(r);
    } catch (const UnsupportedError& e) {
        r.outcome.status = Status::skip;
        r.outcome.detail = e.what();
    } catch (const std::exception& e) {
        r.fail(e.what());
    }
    return r.outcome;
}

} // namespace

std::string Case::label() const {
    std::string s(name(collective));
    if (collective == Collective::reduce || collective == Collective::scan_inclusive ||
        collective == Collective::scan_exclusive) {
        s += " ";
        s += name(op);
    }
    if (collective != Collective::all && collective != Collective::any) {
        s += " ";
        s += name(type);
    }
    return s + " " + shape.text();
}

Outcome run_case(Context& ctx, const Case& c) {
    return guarded(ctx, c.collective, c.type, c.op, [&](Runner& r) {
        Rng rng(c.seed ^ (uint64_t(c.collective) << 40) ^ (uint64_t(c.type) << 48) ^ (uint64_t(c.op) << 56) ^
                c.shape.size());
        uint64_t size = c.shape.size();
        uint64_t tail = c.short_tail && size > 1 ? 1 + rng() % (size - 1) : 0;
        uint64_t count = c.groups * size + tail;
        switch (c.collective) {
        case Collective::broadcast:
            with_host_type(c.type, [&](auto tag) { broadcast_case<decltype(tag)>(r, c, rng); });
            break;
        case Collective::all:
        case Collective::any: vote_case(r, c, count, rng); break;
        default: with_host_type(c.type, [&](auto tag) { scan_case<decltype(tag)>(r, c, count, rng); });
        }
    });
}

Outcome run_items(Context& ctx, const WorkgroupRequest& request, const std::vector<uint8_t>& bytes) {
    return guarded(ctx, request.collective, request.type, request.op, [&](Runner& r) {
        with_host_type(request.type, [&](auto tag) {
            using T = decltype(tag);
            std::vector<T> in(bytes.size() / sizeof(T));
            std::memcpy(in.data(), bytes.data(), in.size() * sizeof(T));
            Layout layout{request.shape.size(), in.size()};
            run_scan_family(r, request, std::move(in), std::vector<std::string>(layout.groups(), "given items"));
        });
    });
}

std::vector<WorkgroupShape> standard_shapes(const DeviceInfo& d) {
    std::vector<WorkgroupShape> all;
    for (uint32_t n : {1, 2, 3, 7, 8, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 255, 256, 512, 1024}) {
        all.push_back({n, 1, 1});
    }
    uint32_t s = std::max(d.subgroup_size, 1u);
    for (WorkgroupShape w : {WorkgroupShape{16, 16, 1}, WorkgroupShape{8, 8, 8}, WorkgroupShape{3, 5, 7},
                             WorkgroupShape{1, s, 1}, WorkgroupShape{32, 4, 1}}) {
        all.push_back(w);
    }
    return all; // shapes past the device limits run as skips that name the limit
}

} // namespace vkc::verify
