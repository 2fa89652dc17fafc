// The device-wide select's CPU reference and case runner (verify/select.hpp).
#include "verify/select.hpp"

#include <bit>
#include <random>

#include "verify/runner.hpp"

namespace vkc::verify {

namespace {
// The item as its host type, from its bits (half as the float it is: compares as a number).
template <class T>
auto value_of(uint64_t bits) {
    if constexpr (std::is_same_v<T, half>) return float(half::from_bits(uint16_t(bits)));
    else if constexpr (sizeof(T) == 1) return std::bit_cast<T>(uint8_t(bits));
    else if constexpr (sizeof(T) == 2) return std::bit_cast<T>(uint16_t(bits));
    else if constexpr (sizeof(T) == 4) return std::bit_cast<T>(uint32_t(bits));
    else return std::bit_cast<T>(bits);
}

// The predicate with the host type's comparisons (floats: NaN unordered, -0 == +0).
template <class T>
bool holds(const SelectPredicate& p, uint64_t bits) {
    using Kind = SelectPredicate::Kind;
    const auto x = value_of<T>(bits), a = value_of<T>(p.a), b = value_of<T>(p.b);
    switch (p.kind) {
    case Kind::less: return x < a;
    case Kind::less_equal: return x <= a;
    case Kind::greater: return x > a;
    case Kind::greater_equal: return x >= a;
    case Kind::equal: return x == a;
    case Kind::not_equal: return !(x == a);
    case Kind::inside: return a <= x && x < b;
    case Kind::outside: return x < a || x >= b;
    case Kind::bits_all: return (bits & p.a) == p.a;
    case Kind::bits_any: return (bits & p.a) != 0;
    }
    return false;
}

template <class T>
std::vector<bool> kept_items(const std::vector<uint64_t>& items, const std::vector<uint32_t>& flags,
                             const SelectOptions& o) {
    std::vector<bool> keep(items.size());
    for (size_t i = 0; i < items.size(); ++i) {
        switch (o.by) {
        case Selection::flagged: keep[i] = flags[i] != 0; break;
        case Selection::predicate: keep[i] = holds<T>(o.predicate, items[i]); break;
        case Selection::unique: keep[i] = i == 0 || !(value_of<T>(items[i]) == value_of<T>(items[i - 1])); break;
        }
    }
    return keep;
}
} // namespace

const char* name(SelectPattern p) {
    switch (p) {
    case SelectPattern::random: return "random";
    case SelectPattern::runs: return "runs";
    case SelectPattern::equal: return "all equal";
    case SelectPattern::floats_special: return "-0, +0, denormals, infinities, NaNs";
    }
    return "?";
}
const char* name(FlagPattern p) {
    switch (p) {
    case FlagPattern::random: return "random";
    case FlagPattern::all: return "all";
    case FlagPattern::none: return "none";
    case FlagPattern::alternating: return "alternating";
    }
    return "?";
}

std::vector<uint64_t> select_items(Type item, SelectPattern p, uint64_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    const uint64_t bytes = size_of(item);
    const uint64_t mask = bytes == 8 ? ~0ull : (1ull << (8 * bytes)) - 1;
    auto special = [&](uint64_t r) -> uint64_t {
        if (item == Type::f16) {
            static const uint16_t s[] = {0x0000, 0x8000, 0x0001, 0x83ff, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x3c00, 0xbc00};
            return r % 3 ? s[r % 10] : half(float(int32_t(r >> 8) % 1000) / 7.0f).bits;
        }
        if (item == Type::f32) {
            static const uint32_t s[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x7f800000u,
                                         0xff800000u, 0x7fc00000u, 0xffc00001u, 0x3f800000u, 0xbf800000u};
            return r % 3 ? s[r % 10] : std::bit_cast<uint32_t>(float(int32_t(r >> 8) % 1000) / 7.0f);
        }
        if (item == Type::f64) {
            static const uint64_t s[] = {0x0ull, 0x8000000000000000ull, 0x1ull, 0x800fffffffffffffull,
                                         0x7ff0000000000000ull, 0xfff0000000000000ull, 0x7ff8000000000000ull,
                                         0xfff8000000000001ull, 0x3ff0000000000000ull, 0xbff0000000000000ull};
            return r % 3 ? s[r % 10] : std::bit_cast<uint64_t>(double(int64_t(r >> 8) % 100000) / 7.0);
        }
        return uint64_t(int64_t(r % 21) - 10) & mask; // small numbers of both signs
    };
    std::vector<uint64_t> items(n);
    uint64_t run_value = rng() & mask;
    for (uint64_t i = 0; i < n; ++i) {
        uint64_t r = rng();
        switch (p) {
        case SelectPattern::random: items[i] = r & mask; break;
        case SelectPattern::runs:
            if (r % 4 == 0) run_value = special(r >> 2);
            items[i] = run_value;
            break;
        case SelectPattern::equal: items[i] = 0x123456789abcdef0ull & mask; break;
        case SelectPattern::floats_special: items[i] = special(r); break;
        }
    }
    return items;
}

std::vector<uint32_t> select_flags(FlagPattern p, uint64_t n, uint64_t seed) {
    std::mt19937_64 rng(seed ^ 0x5bd1e995u);
    std::vector<uint32_t> flags(n);
    for (uint64_t i = 0; i < n; ++i) {
        uint32_t r = uint32_t(rng());
        switch (p) {
        case FlagPattern::random: flags[i] = r & 1 ? r : 0; break; // any non-zero value keeps
        case FlagPattern::all: flags[i] = 1; break;
        case FlagPattern::none: flags[i] = 0; break;
        case FlagPattern::alternating: flags[i] = i % 2 ? 0 : 7; break;
        }
    }
    return flags;
}

std::vector<uint64_t> select_reference(Type item, const std::vector<uint64_t>& items, const std::vector<uint32_t>& flags,
                                       const SelectOptions& o, uint64_t& kept) {
    std::vector<bool> keep;
    switch (item) {
    case Type::i8: keep = kept_items<int8_t>(items, flags, o); break;
    case Type::u8: keep = kept_items<uint8_t>(items, flags, o); break;
    case Type::i16: keep = kept_items<int16_t>(items, flags, o); break;
    case Type::u16: keep = kept_items<uint16_t>(items, flags, o); break;
    case Type::f16: keep = kept_items<half>(items, flags, o); break;
    case Type::i32: keep = kept_items<int32_t>(items, flags, o); break;
    case Type::f32: keep = kept_items<float>(items, flags, o); break;
    case Type::u64: keep = kept_items<uint64_t>(items, flags, o); break;
    case Type::i64: keep = kept_items<int64_t>(items, flags, o); break;
    case Type::f64: keep = kept_items<double>(items, flags, o); break;
    default: keep = kept_items<uint32_t>(items, flags, o); break;
    }
    std::vector<uint64_t> out, rejected;
    for (size_t i = 0; i < items.size(); ++i) (keep[i] ? out : rejected).push_back(items[i]);
    kept = out.size();
    if (o.partition) out.insert(out.end(), rejected.rbegin(), rejected.rend());
    return out;
}

std::string SelectCase::label() const {
    std::string s = std::string(options.partition ? "partition " : "select ") + std::string(vkc::name(item)) +
                    " n=" + std::to_string(count) + " " + verify::name(pattern);
    switch (options.by) {
    case Selection::flagged: s += std::string(" flagged (") + verify::name(flags) + ")"; break;
    case Selection::unique: s += " unique"; break;
    case Selection::predicate: s += " predicate " + std::to_string(uint32_t(options.predicate.kind)); break;
    }
    if (options.test.force_fallback) s += " forced fallback";
    if (options.spin_limit) s += " spin " + std::to_string(options.spin_limit);
    return s;
}

Outcome run_select_case(Context& ctx, const SelectCase& c) {
    const Type module = select_module_type(c.item);
    return detail::guarded(ctx, Collective::select, module, Op::add, [&](detail::Runner& r) {
        r.outcome.module = ctx.device().select_module(Collective::select, module, Op::add, c.options.path).name;
        const std::vector<uint64_t> items = select_items(c.item, c.pattern, c.count, c.seed);
        const std::vector<uint32_t> flags = select_flags(c.flags, c.count, c.seed);
        uint64_t want_kept = 0;
        const std::vector<uint64_t> want = select_reference(c.item, items, flags, c.options, want_kept);
        // The items' bytes as the device holds them: each item's low bytes, little-endian.
        const uint64_t bytes = size_of(c.item);
        std::vector<uint8_t> in(c.count * bytes), got(c.count * bytes);
        for (uint64_t i = 0; i < c.count; ++i) {
            for (uint64_t b = 0; b < bytes; ++b) in[i * bytes + b] = uint8_t(items[i] >> (8 * b));
        }
        const uint32_t* flag_data = c.options.by == Selection::flagged ? flags.data() : nullptr;
        const uint64_t kept = ctx.select_host(in.data(), flag_data, got.data(), c.count, c.item, c.options);
        if (kept != want_kept) {
            r.fail("kept " + std::to_string(kept) + " (want " + std::to_string(want_kept) + ")");
            return;
        }
        for (uint64_t i = 0; i < want.size(); ++i) {
            uint64_t g = 0;
            for (uint64_t b = 0; b < bytes; ++b) g |= uint64_t(got[i * bytes + b]) << (8 * b);
            if (g != want[i]) {
                r.fail("position " + std::to_string(i) + ": " + std::to_string(g) + " (want " + std::to_string(want[i]) +
                       ")");
                return;
            }
        }
        r.validation_clean();
    });
}

} // namespace vkc::verify
