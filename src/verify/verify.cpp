#include <vulkan/vulkan.h> // the loader's exports, as an engine that links libvulkan calls them

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
    else if (std::isinf(g)) ok = std::signbit(g) == std::signbit(want) && std::fabs(want) + bound >= largest_finite<T>();
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
    case 3: case 4: return narrow<T>(0.0L);
    case 5: case 6: return narrow<T>(-0.0L);
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

// Checks m outputs against n items, after the shaders' prepare rule:
//   scan_inclusive: out[i] = in[0] op ... op in[i]                       (m = n)
//   scan_exclusive: out[i] = in[0] op ... op in[i-1], out[0] the identity bit for bit
//   reduce:         every out[i] = in[0] op ... op in[n-1]; the identity when n = 0
// Float add is checked against (k-1)*eps*sum|x| for a k-item prefix; everything else exactly (a NaN
// must meet a NaN; floats compare as values, so -0 meets +0). `at(i)` says where output i is.
template <class T, class At>
std::string check_scan(Collective c, Op op, const T* in, uint64_t n, const T* out, uint64_t m, At&& at) {
    const bool float_add = is_float_v<T> && op == Op::add;
    std::vector<T> inclusive(n);
    std::vector<long double> sum(n), sum_abs(n);
    T acc = identity<T>(op);
    long double s = 0, sa = 0;
    for (uint64_t i = 0; i < n; ++i) {
        T x = prepare(op, in[i]);
        acc = i == 0 ? x : combine(op, acc, x);
        inclusive[i] = acc;
        s += wide(x);
        sa += std::fabs(wide(x));
        sum[i] = s;
        sum_abs[i] = sa;
    }
    for (uint64_t i = 0; i < m; ++i) {
        // The expected value combines k items: the prefix [0, k).
        uint64_t k = c == Collective::scan_inclusive ? i + 1 : c == Collective::scan_exclusive ? i : n;
        T got = out[i];
        if (k == 0) { // the identity, bit for bit
            T want = identity<T>(op);
            if (bits_of(got) != bits_of(want)) {
                return at(i) + ": expected the identity " + show(want) + ", got " + show(got);
            }
            continue;
        }
        if (!float_add) {
            T want = inclusive[k - 1];
            bool ok;
            // min and max return one of the items bit for bit; mul's zeros may take either sign.
            if constexpr (is_float_v<T>) ok = is_nan(want)                        ? is_nan(got)
                                              : op == Op::min || op == Op::max ? bits_of(got) == bits_of(want)
                                                                               : wide(got) == wide(want);
            else ok = bits_of(got) == bits_of(want);
            if (!ok) return at(i) + ": expected " + show(want) + ", got " + show(got);
            continue;
        }
        long double want = sum[k - 1];
        std::string error = float_sum_error(got, want, k, sum_abs[k - 1]);
        if (!error.empty()) return at(i) + ": " + error;
    }
    return {};
}

template <class T>
std::string check_scan_group(Collective c, Op op, const T* in, const T* out, uint64_t n, uint64_t group,
                             const std::string& pattern) {
    return check_scan(c, op, in, n, out, n, [&](uint64_t i) { return where(group, i, pattern); });
}

template <class T>
std::vector<std::string> scan_patterns(Op op) {
    std::vector<std::string> p = {"random", "one value", "extremes"};
    if constexpr (is_pair_v<T>) p.pop_back();
    if constexpr (is_float_v<T>) {
        p.insert(p.end(), {"NaN at first item", "NaN at last item", "NaN at subgroup boundary"});
        // min and max must keep denormals bit for bit on every device. add and mul follow the device's
        // float controls: a driver without DenormPreserve may flush them (README, Semantics).
        if (op == Op::min || op == Op::max) p.insert(p.end(), {"smallest denormal", "denormals, zeros, infinities, NaN"});
    }
    return p;
}

template <class T>
void fill_scan_group(const std::string& pattern, Op op, T* items, uint64_t n, uint64_t boundary, Rng& rng) {
    if (pattern == "one value") {
        T v = random_value<T>(op, rng);
        std::fill(items, items + n, v);
        return;
    }
    for (uint64_t i = 0; i < n; ++i) items[i] = random_value<T>(op, rng);
    if (pattern == "extremes") {
        auto ex = extremes<T>(op);
        for (uint64_t i = 0; i < n; ++i) {
            if (rng() % 2) items[i] = ex[rng() % ex.size()];
        }
    } else if (pattern == "smallest denormal") {
        if constexpr (is_float_v<T>) std::fill(items, items + n, denormal<T>(1, false));
    } else if (pattern == "denormals, zeros, infinities, NaN") {
        if constexpr (is_float_v<T>) {
            for (uint64_t i = 0; i < n; ++i) items[i] = special_value<T>(rng);
        }
    } else if (pattern.rfind("NaN", 0) == 0) {
        if constexpr (is_float_v<T>) {
            uint64_t at = pattern == "NaN at first item" ? 0 : pattern == "NaN at last item" ? n - 1 : boundary;
            items[at] = quiet_nan<T>();
        }
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
    auto patterns = scan_patterns<T>(c.op);
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

// ---- Block scans ---------------------------------------------------------------------------------

template <class T>
void block_case(Runner& r, const Case& c, Rng& rng) {
    const uint64_t size = c.shape.size();
    const uint64_t tile = size * c.items_per_invocation;
    const uint64_t tiles = uint64_t(c.groups) * c.tiles_per_group;
    // The last tiles: one partial (or empty for 1-item tiles), one empty.
    uint64_t count = tiles * tile;
    if (c.short_tail && tiles >= 2) count = (tiles - 2) * tile + (tile > 1 ? 1 + rng() % (tile - 1) : 0);
    if (count == 0) count = 1;
    auto patterns = scan_patterns<T>(c.op);
    std::vector<T> in(count);
    std::vector<std::string> names(tiles, "random");
    for (uint64_t t = 0; t * tile < count; ++t) {
        uint64_t n = std::min(tile, count - t * tile);
        names[t] = t < patterns.size() ? patterns[t] : "random";
        fill_scan_group(names[t], c.op, &in[t * tile], n, boundary_index(r.ctx, n), rng);
    }
    T seed = random_value<T>(c.op, rng);
    BlockRequest req{c.collective, c.type, c.op, c.shape, c.items_per_invocation, c.tiles_per_group, count};
    req.seeded = c.prefix != Case::Prefix::none;
    req.running = c.prefix == Case::Prefix::running || c.prefix == Case::Prefix::callback;
    req.prefix_callback = c.prefix == Case::Prefix::callback;
    std::memcpy(&req.seed_bits, &seed, sizeof(T));
    req.algorithm = c.algorithm;
    r.outcome.module = r.ctx.select_module(c.collective, c.type, c.op, c.algorithm).name;

    uint64_t bytes = count * sizeof(T), record_items = 2 * tiles * size;
    Buffer input = r.ctx.create_buffer(bytes), output = r.ctx.create_buffer(bytes);
    Buffer record = r.ctx.create_buffer(record_items * sizeof(T));
    r.ctx.upload(input, in.data(), bytes);
    r.ctx.run(req, input, output, &record);
    std::vector<T> out(count), rec(record_items);
    r.ctx.download(output, out.data(), bytes);
    r.ctx.download(record, rec.data(), record_items * sizeof(T));
    if (!r.validation_clean()) return;

    const bool scan = c.collective != Collective::block_reduce;
    const Collective kind = c.collective == Collective::block_scan_inclusive ? Collective::scan_inclusive
                                                                             : Collective::scan_exclusive;
    T prefix = prepare(c.op, seed);
    std::vector<T> seq;
    // Tiles of the work-groups that ran: with one tile a group, the empty last tile has no group.
    const uint64_t groups_run = ((count + tile - 1) / tile + c.tiles_per_group - 1) / c.tiles_per_group;
    for (uint64_t t = 0; t < std::min(tiles, groups_run * c.tiles_per_group); ++t) {
        uint64_t first = t * tile;
        uint64_t n = first < count ? std::min(tile, count - first) : 0;
        const T* items = in.data() + first;
        const T* got = out.data() + std::min(first, count);
        const T* aggregates = rec.data() + 2 * t * size;
        const T* carried = aggregates + size;
        if (req.running && t % c.tiles_per_group == 0) prefix = prepare(c.op, seed);
        auto at = [&](const char* what) {
            return [&, what](uint64_t i) {
                return "tile " + std::to_string(t) + " (" + names[t] + ", " + std::to_string(n) + " valid), " + what +
                       " " + std::to_string(i);
            };
        };
        std::string err = check_scan(Collective::reduce, c.op, items, n, aggregates, size, at("aggregate in invocation"));
        if (err.empty() && (!scan || !req.seeded)) {
            err = check_scan(scan ? kind : Collective::reduce, c.op, items, n, got, n, at("item"));
        } else if (err.empty()) { // the scan of [prefix, items...]
            seq.assign(1, prefix);
            seq.insert(seq.end(), items, items + n);
            if (kind == Collective::scan_inclusive) {
                std::vector<T> with_prefix(1, prefix);
                with_prefix.insert(with_prefix.end(), got, got + n);
                err = check_scan(kind, c.op, seq.data(), n + 1, with_prefix.data(), n + 1,
                                 [&](uint64_t i) { return at("item")(i - 1); });
            } else {
                err = check_scan(Collective::scan_inclusive, c.op, seq.data(), n + 1, got, n, at("item"));
            }
            if (err.empty() && req.running) {
                err = check_scan(Collective::reduce, c.op, seq.data(), n + 1, carried, size,
                                 at("running prefix after the tile in invocation"));
                prefix = carried[0]; // the next tile starts from what the device carried
            }
        }
        if (!err.empty()) {
            r.fail(err);
            return;
        }
    }
}

// ---- Device-wide scan and reduce -----------------------------------------------------------------

// One output against the reference: exact, or for float add within (k-1)*eps*sum|x| of the k-item sum.
template <class T>
std::string compare_prefix(T got, T exact, uint64_t k, long double sum, long double sum_abs, Op op) {
    if (k == 0) {
        T want = identity<T>(op);
        return bits_of(got) == bits_of(want) ? "" : "expected the identity " + show(want) + ", got " + show(got);
    }
    if (!(is_float_v<T> && op == Op::add)) {
        bool ok;
        if constexpr (is_float_v<T>) ok = is_nan(exact)                       ? is_nan(got)
                                          : op == Op::min || op == Op::max ? bits_of(got) == bits_of(exact)
                                                                           : wide(got) == wide(exact);
        else ok = bits_of(got) == bits_of(exact);
        return ok ? "" : "expected " + show(exact) + ", got " + show(got);
    }
    return float_sum_error(got, sum, k, sum_abs);
}

// Streams through the items once: no per-item reference arrays, so 2^25-item cases stay cheap.
template <class T>
std::string check_device(const DeviceCase& c, const T* in, const T* out) {
    T acc = identity<T>(c.op);
    long double sum = 0, sum_abs = 0;
    for (uint64_t i = 0; i < c.count; ++i) {
        if (!c.reduce && c.options.exclusive) {
            std::string e = compare_prefix(out[i], acc, i, sum, sum_abs, c.op);
            if (!e.empty()) return "item " + std::to_string(i) + ": " + e;
        }
        T x = prepare(c.op, in[i]);
        acc = i == 0 ? x : combine(c.op, acc, x);
        sum += wide(x);
        sum_abs += std::fabs(wide(x));
        if (!c.reduce && !c.options.exclusive) {
            std::string e = compare_prefix(out[i], acc, i + 1, sum, sum_abs, c.op);
            if (!e.empty()) return "item " + std::to_string(i) + ": " + e;
        }
    }
    if (c.reduce) {
        std::string e = compare_prefix(out[0], acc, c.count, sum, sum_abs, c.op);
        if (!e.empty()) return "the total of " + std::to_string(c.count) + " items: " + e;
    }
    return {};
}

// A command buffer of the caller's own, on the Context's device: the way an engine records a plan.
class CallerCommands {
public:
    explicit CallerCommands(Context& ctx) : ctx_(ctx) {
        VkCommandPoolCreateInfo p{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        p.queueFamilyIndex = ctx.queue_family();
        vkCreateCommandPool(ctx.vk_device(), &p, nullptr, &pool_);
        VkCommandBufferAllocateInfo a{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        a.commandPool = pool_;
        a.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        a.commandBufferCount = 1;
        vkAllocateCommandBuffers(ctx.vk_device(), &a, &cmd_);
        VkFenceCreateInfo f{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        vkCreateFence(ctx.vk_device(), &f, nullptr, &fence_);
    }
    ~CallerCommands() {
        vkDestroyFence(ctx_.vk_device(), fence_, nullptr);
        vkDestroyCommandPool(ctx_.vk_device(), pool_, nullptr);
    }
    // Records the barriers the plan's header asks of the caller around it, submits, waits.
    void run(const ScanPlan& plan) {
        VkCommandBufferBeginInfo b{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        vkBeginCommandBuffer(cmd_, &b);
        VkMemoryBarrier before{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        before.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT;
        before.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
        vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &before,
                                 0, nullptr, 0, nullptr);
        plan.record(cmd_);
        VkMemoryBarrier after{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        after.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
        after.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_HOST_READ_BIT;
        vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                 VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &after, 0, nullptr,
                                 0, nullptr);
        vkEndCommandBuffer(cmd_);
        VkSubmitInfo s{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        s.commandBufferCount = 1;
        s.pCommandBuffers = &cmd_;
        vkResetFences(ctx_.vk_device(), 1, &fence_);
        if (vkQueueSubmit(ctx_.queue(), 1, &s, fence_) != VK_SUCCESS) throw Error("vkQueueSubmit failed");
        if (vkWaitForFences(ctx_.vk_device(), 1, &fence_, VK_TRUE, 300ull * 1000 * 1000 * 1000) != VK_SUCCESS) {
            throw Error("the recorded plan did not finish within 300 s");
        }
        vkResetCommandPool(ctx_.vk_device(), pool_, 0);
    }

private:
    Context& ctx_;
    VkCommandPool pool_ = VK_NULL_HANDLE;
    VkCommandBuffer cmd_ = VK_NULL_HANDLE;
    VkFence fence_ = VK_NULL_HANDLE;
};

template <class T>
void device_case(Runner& r, const DeviceCase& c, Rng& rng) {
    Context& ctx = r.ctx;
    std::vector<T> in(c.count);
    for (auto& v : in) v = random_value<T>(c.op, rng);
    if constexpr (is_float_v<T>) {
        // A long product of random +-2 and +-0.5 wanders out of half's normal range in some orders
        // and not others: the device-wide cases multiply +-1, with a few 2s, so every order is exact.
        if (c.op == Op::mul) {
            for (uint64_t i = 0; i < c.count; ++i) in[i] = narrow<T>(rng() % 2 ? -1.0L : 1.0L);
            for (int k = 0; k < 8 && c.count > 0; ++k) in[rng() % c.count] = narrow<T>(2.0L);
        }
        // Half sums of millions of items in [-60, 60] pass 65504; small integers keep them in range.
        if (c.op == Op::add && std::is_same_v<T, half>) {
            for (uint64_t i = 0; i < c.count; ++i) in[i] = narrow<T>(int(rng() % 9) - 4);
        }
        if (c.denormals && (c.op == Op::min || c.op == Op::max)) {
            for (uint64_t i = 0; i < c.count; ++i) in[i] = special_value<T>(rng);
        }
        if ((c.op == Op::min || c.op == Op::max) && c.count > 0) {
            for (uint64_t i : {uint64_t(0), c.count / 2, c.count - 1}) in[i] = quiet_nan<T>();
        }
    }
    const uint64_t bytes = c.count * sizeof(T);
    const uint64_t out_items = c.reduce ? 1 : c.count;
    auto run_once = [&]() -> std::vector<T> {
        std::vector<T> out(std::max<uint64_t>(out_items, 1));
        if (c.api == DeviceCase::Api::host) {
            if (c.reduce) ctx.reduce_host(in.data(), out.data(), c.count, c.type, c.op, c.options);
            else ctx.scan_host(in.data(), out.data(), c.count, c.type, c.op, c.options);
            return out;
        }
        if (c.api == DeviceCase::Api::buffers) {
            Buffer input = ctx.create_buffer(std::max<uint64_t>(bytes, 16));
            ctx.upload(input, in.data(), bytes);
            Buffer separate = c.in_place && !c.reduce ? Buffer() : ctx.create_buffer(std::max<uint64_t>(out_items, 1) * sizeof(T));
            Buffer& output = c.in_place && !c.reduce ? input : separate;
            if (c.reduce) ctx.reduce(input, output, c.type, c.op, c.count, c.options);
            else ctx.scan(input, output, c.type, c.op, c.count, c.options);
            ctx.download(output, out.data(), out_items * sizeof(T));
            return out;
        }
        // Recorded: input, output and scratch at non-zero offsets inside larger buffers filled with a
        // pattern; everything outside the output range must keep it.
        const uint64_t align = std::max<uint64_t>(256, ctx.device().min_storage_buffer_offset_alignment);
        auto round = [&](uint64_t x) { return (x + align - 1) / align * align; };
        uint64_t in_at = align, out_at = c.in_place && !c.reduce ? in_at : round(in_at + bytes + 1);
        uint64_t out_bytes = out_items * sizeof(T);
        uint64_t data_size = round(std::max(in_at + bytes, out_at + out_bytes) + 1);
        uint64_t scratch_bytes = c.reduce ? ctx.reduce_scratch_bytes(c.type, c.count, c.options)
                                          : ctx.scan_scratch_bytes(c.type, c.count, c.options);
        uint64_t scratch_at = 3 * align, scratch_size = round(scratch_at + scratch_bytes + 1);
        std::vector<uint8_t> data(data_size), scratch(scratch_size);
        for (auto& b : data) b = uint8_t(rng());
        for (auto& b : scratch) b = uint8_t(rng());
        // A caller that keeps its scratch zeroed zeroes it once, before the first plan.
        if (c.options.scratch_zeroed) std::fill_n(scratch.begin() + scratch_at, scratch_bytes, uint8_t(0));
        if (bytes) std::memcpy(data.data() + in_at, in.data(), bytes); // in.data() may be null for count 0
        Buffer data_buffer = ctx.create_buffer(data_size), scratch_buffer = ctx.create_buffer(scratch_size);
        ctx.upload(data_buffer, data.data(), data_size);
        ctx.upload(scratch_buffer, scratch.data(), scratch_size);
        BufferRange in_range{data_buffer.handle(), in_at, bytes};
        BufferRange out_range{data_buffer.handle(), out_at, out_bytes};
        BufferRange scratch_range{scratch_buffer.handle(), scratch_at, scratch_bytes};
        ScanPlan plan = c.reduce ? ctx.plan_reduce(c.type, c.op, c.count, in_range, out_range, scratch_range, c.options)
                                 : ctx.plan_scan(c.type, c.op, c.count, in_range, out_range, scratch_range, c.options);
        CallerCommands commands(ctx);
        commands.run(plan);
        if (c.options.scratch_zeroed && c.count > 0) {
            // The plan must have left the scratch ready for the next one: run it again on other
            // items (the same ones reversed, one of them doubled so that totals change too) and
            // check that run. A counter left behind would lose the result or fold in old totals.
            std::vector<T> reversed(in.rbegin(), in.rend());
            if (c.count > 1) reversed[c.count / 2] = reversed[c.count / 2 - 1];
            std::vector<uint8_t> first_out(out_bytes);
            ctx.download(data_buffer, first_out.data(), out_bytes, out_at);
            ctx.upload(data_buffer, reversed.data(), bytes, in_at);
            commands.run(plan);
            std::vector<T> second(std::max<uint64_t>(out_items, 1));
            ctx.download(data_buffer, second.data(), out_bytes, out_at);
            std::string err = check_device(c, reversed.data(), second.data());
            if (!err.empty()) throw Error("the second run of the plan on the scratch the first left: " + err);
            ctx.upload(data_buffer, in.data(), bytes, in_at);
            ctx.upload(data_buffer, first_out.data(), out_bytes, out_at); // back as the first run left it
        }
        std::vector<uint8_t> data_after(data_size), scratch_after(scratch_size);
        ctx.download(data_buffer, data_after.data(), data_size);
        ctx.download(scratch_buffer, scratch_after.data(), scratch_size);
        for (uint64_t i = 0; i < data_size; ++i) {
            bool in_output = i >= out_at && i < out_at + out_bytes && (c.count > 0 || c.reduce);
            if (!in_output && data_after[i] != data[i]) {
                throw Error("byte " + std::to_string(i) + " of the data buffer, outside the output range [" +
                            std::to_string(out_at) + ", " + std::to_string(out_at + out_bytes) + "), changed");
            }
        }
        for (uint64_t i = 0; i < scratch_size; ++i) {
            if ((i < scratch_at || i >= scratch_at + scratch_bytes) && scratch_after[i] != scratch[i]) {
                throw Error("byte " + std::to_string(i) + " of the scratch buffer, outside the scratch range, changed");
            }
        }
        if (out_bytes) std::memcpy(out.data(), data_after.data() + out_at, out_bytes);
        return out;
    };
    std::vector<T> out = run_once();
    if (!r.validation_clean()) return;
    for (uint32_t k = 1; k < c.runs; ++k) {
        std::vector<T> again = run_once();
        if (std::memcmp(again.data(), out.data(), out_items * sizeof(T)) != 0) {
            for (uint64_t i = 0; i < out_items; ++i) {
                if (bits_of(again[i]) != bits_of(out[i])) {
                    r.fail("run " + std::to_string(k + 1) + " differs from run 1 at item " + std::to_string(i) + ": " +
                           show(again[i]) + " against " + show(out[i]));
                    return;
                }
            }
        }
    }
    std::string err = check_device(c, in.data(), out.data());
    if (!err.empty()) r.fail(err);
}

template <class F>
void with_host_type(Type t, F&& f) {
    switch (t) {
    case Type::i8: f(int8_t{}); break;
    case Type::u8: f(uint8_t{}); break;
    case Type::i16: f(int16_t{}); break;
    case Type::u16: f(uint16_t{}); break;
    case Type::u32x2: f(Pair{}); break;
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
    if (has_op(collective)) {
        s += " ";
        s += name(op);
    }
    if (collective != Collective::all && collective != Collective::any) {
        s += " ";
        s += name(type);
    }
    if (is_block(collective)) {
        s += " items " + std::to_string(items_per_invocation);
        s += prefix == Prefix::seeded    ? " seeded"
             : prefix == Prefix::running ? " running"
             : prefix == Prefix::callback ? " callback"
                                          : "";
        s += algorithm == Path::shared_memory ? " raking" : "";
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
        if (is_block(c.collective)) {
            with_host_type(c.type, [&](auto tag) { block_case<decltype(tag)>(r, c, rng); });
            return;
        }
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

std::string DeviceCase::label() const {
    std::string s = "device ";
    s += reduce ? "reduce" : options.exclusive ? "scan_exclusive" : "scan_inclusive";
    s += " " + std::string(name(op)) + " " + std::string(name(type)) + " n=" + std::to_string(count);
    if (in_place && !reduce) s += " in place";
    if (denormals) s += " denormals";
    if (options.reproducible) s += " reproducible";
    if (options.force_fallback) s += " forced fallback";
    if (options.segment_items) s += " segments of " + std::to_string(options.segment_items);
    if (options.workgroup_size) s += " tile " + std::to_string(options.workgroup_size) + "x" + std::to_string(options.items_per_invocation);
    if (options.staged >= 0) s += options.staged ? " staged" : " direct";
    if (options.algorithm == Path::shared_memory) s += " shared memory";
    if (api == Api::host) s += " host stream of " + std::to_string(options.stream_bytes) + " bytes";
    if (api == Api::recorded) s += " recorded at offsets";
    if (api == Api::recorded && options.scratch_zeroed) s += " on a scratch kept zeroed, twice";
    if (runs > 1) s += " x" + std::to_string(runs) + " runs";
    return s;
}

Outcome run_device_case(Context& ctx, const DeviceCase& c) {
    return guarded(ctx, Collective::device_scan, c.type, c.op, [&](Runner& r) {
        r.outcome.module = ctx.select_module(Collective::device_scan, c.type, c.op, c.options.algorithm).name;
        Rng rng(c.seed ^ (uint64_t(c.type) << 48) ^ (uint64_t(c.op) << 56) ^ c.count);
        with_host_type(c.type, [&](auto tag) { device_case<decltype(tag)>(r, c, rng); });
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
