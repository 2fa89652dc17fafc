// The device-wide sort's CPU reference and case runner (verify/sort.hpp).
#include "verify/sort.hpp"

#include <algorithm>
#include <bit>
#include <random>

#include "verify/runner.hpp"

namespace vkc::verify {

namespace {
// The key as an unsigned number of the same order: int's sign bit flipped; float's negatives flipped
// whole and positives with the sign bit set (-0 below +0, NaNs with the sign bit set below all, the
// others above all).
template <class K>
K ordered(Type t, K bits) {
    constexpr K sign = K(1) << (8 * sizeof(K) - 1);
    if (t == Type::i32 || t == Type::i64) return bits ^ sign;
    if (t == Type::f32 || t == Type::f64) return (bits & sign) ? K(~bits) : K(bits | sign);
    return bits;
}
template <class K>
K sort_key(Type t, K bits, const SortOptions& o) {
    K k = ordered(t, bits);
    if (o.descending) k = K(~k);
    const uint32_t end = o.end_bit ? o.end_bit : uint32_t(8 * sizeof(K));
    const uint32_t width = end - o.begin_bit;
    if (width == 0) return 0;
    return K(k >> o.begin_bit) & (width == 8 * sizeof(K) ? K(~K(0)) : K((K(1) << width) - 1));
}
template <class K>
std::vector<uint32_t> reference_order(Type key, const std::vector<K>& keys, const SortOptions& o) {
    std::vector<uint32_t> order(keys.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return sort_key(key, keys[a], o) < sort_key(key, keys[b], o); });
    return order;
}
} // namespace

const char* name(SortPattern p) {
    switch (p) {
    case SortPattern::random: return "random";
    case SortPattern::equal: return "all equal";
    case SortPattern::sorted: return "sorted";
    case SortPattern::reversed: return "reversed";
    case SortPattern::few: return "few distinct";
    case SortPattern::high_bits: return "high bits only";
    case SortPattern::low_bits: return "low bits only";
    case SortPattern::floats_special: return "-0, +0, denormals, infinities, NaNs";
    }
    return "?";
}

std::vector<uint32_t> sort_keys(SortPattern p, uint64_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<uint32_t> k(n);
    static const uint32_t special[] = {0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu, 0x7f800000u,
                                       0xff800000u, 0x7fc00000u, 0xffc00001u, 0x3f800000u, 0xbf800000u};
    for (uint64_t i = 0; i < n; ++i) {
        uint32_t r = uint32_t(rng());
        switch (p) {
        case SortPattern::random: k[i] = r; break;
        case SortPattern::equal: k[i] = 0x12345678u; break;
        case SortPattern::sorted: k[i] = uint32_t(i * 977); break;
        case SortPattern::reversed: k[i] = uint32_t((n - i) * 977); break;
        case SortPattern::few: k[i] = r % 5 * 0x01010101u; break;
        case SortPattern::high_bits: k[i] = r & 0xff000000u; break;
        case SortPattern::low_bits: k[i] = r & 0xffu; break;
        case SortPattern::floats_special:
            k[i] = r % 3 ? special[r % 10] : std::bit_cast<uint32_t>(float(int32_t(r >> 8) % 1000) / 7.0f);
            break;
        }
    }
    return k;
}

std::vector<uint64_t> sort_keys_64(SortPattern p, uint64_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<uint64_t> k(n);
    static const uint64_t special[] = {0x0000000000000000ull, 0x8000000000000000ull, 0x0000000000000001ull,
                                       0x800fffffffffffffull, 0x7ff0000000000000ull, 0xfff0000000000000ull,
                                       0x7ff8000000000000ull, 0xfff8000000000001ull, 0x3ff0000000000000ull,
                                       0xbff0000000000000ull};
    for (uint64_t i = 0; i < n; ++i) {
        uint64_t r = rng();
        switch (p) {
        case SortPattern::random: k[i] = r; break;
        case SortPattern::equal: k[i] = 0x123456789abcdef0ull; break;
        case SortPattern::sorted: k[i] = i * 0x0000100000001ull * 977; break;
        case SortPattern::reversed: k[i] = (n - i) * 0x0000100000001ull * 977; break;
        case SortPattern::few: k[i] = r % 5 * 0x0101010101010101ull; break;
        case SortPattern::high_bits: k[i] = r & 0xff00000000000000ull; break;
        case SortPattern::low_bits: k[i] = r & 0xffull; break;
        case SortPattern::floats_special:
            k[i] = r % 3 ? special[r % 10] : std::bit_cast<uint64_t>(double(int64_t(r >> 8) % 100000) / 7.0);
            break;
        }
    }
    return k;
}

std::vector<uint32_t> sort_reference_order(Type key, const std::vector<uint32_t>& keys, const SortOptions& o) {
    return reference_order(key, keys, o);
}
std::vector<uint32_t> sort_reference_order(Type key, const std::vector<uint64_t>& keys, const SortOptions& o) {
    return reference_order(key, keys, o);
}

std::string SortCase::label() const {
    std::string s = std::string("sort ") + std::string(vkc::name(key)) + " n=" + std::to_string(count) + " " +
                    verify::name(pattern);
    if (options.begin_bit || options.end_bit) {
        s += " bits [" + std::to_string(options.begin_bit) + ", " + std::to_string(options.end_bit) + ")";
    }
    if (options.descending) s += " descending";
    if (value_bytes) s += " values " + std::to_string(value_bytes);
    if (options.test.force_fallback) s += " forced fallback";
    if (options.spin_limit) s += " spin " + std::to_string(options.spin_limit);
    return s;
}

namespace {
template <class K>
void run_typed(Context& ctx, const SortCase& c, detail::Runner& r) {
    std::vector<K> keys;
    if constexpr (sizeof(K) == 8) keys = sort_keys_64(c.pattern, c.count, c.seed);
    else keys = sort_keys(c.pattern, c.count, c.seed);
    std::vector<uint32_t> order = reference_order(c.key, keys, c.options);
    std::vector<K> got = keys;
    const uint32_t words = c.value_bytes / 4;
    std::vector<uint32_t> values(c.count * words);
    for (uint64_t i = 0; i < c.count; ++i) {
        for (uint32_t w = 0; w < words; ++w) values[i * words + w] = uint32_t(i) * 4 + w;
    }
    ctx.sort_host(got.data(), words ? values.data() : nullptr, c.count, c.key, c.value_bytes, c.options);
    for (uint64_t i = 0; i < c.count; ++i) {
        bool value_ok = true;
        for (uint32_t w = 0; w < words; ++w) value_ok = value_ok && values[i * words + w] == order[i] * 4 + w;
        if (got[i] != keys[order[i]] || !value_ok) {
            r.fail("position " + std::to_string(i) + ": key " + std::to_string(got[i]) + " (want " +
                   std::to_string(keys[order[i]]) + ")" +
                   (words ? ", value " + std::to_string(values[i * words]) + " (want " + std::to_string(order[i] * 4) +
                                ")"
                          : ""));
            return;
        }
    }
    r.validation_clean();
}
} // namespace

Outcome run_sort_case(Context& ctx, const SortCase& c) {
    return detail::guarded(ctx, Collective::radix_sort, Type::u32, Op::add, [&](detail::Runner& r) {
        r.outcome.module = ctx.device().select_module(Collective::radix_sort, Type::u32, Op::add, c.options.path).name;
        if (size_of(c.key) == 8) run_typed<uint64_t>(ctx, c, r);
        else run_typed<uint32_t>(ctx, c, r);
    });
}

} // namespace vkc::verify
