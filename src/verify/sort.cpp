// The device-wide sort's CPU reference and case runner (verify/sort.hpp).
#include "verify/sort.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <random>

#include "verify/runner.hpp"

namespace vkc::verify {

namespace {
// The key as an unsigned number of the same order: int's sign bit flipped; float's negatives flipped
// whole and positives with the sign bit set (-0 below +0, NaNs with the sign bit set below all, the
// others above all).
template <class K>
K ordered(Type t, K bits) {
    constexpr K sign = K(K(1) << (8 * sizeof(K) - 1));
    if (is_signed_integer(t)) return K(bits ^ sign);
    if (is_float(t)) return (bits & sign) ? K(~bits) : K(bits | sign);
    return bits;
}
template <class K>
K sort_key(Type t, K bits, const SortOptions& o) {
    K k = ordered(t, bits);
    if (o.descending) k = K(~k);
    const uint32_t end = o.end_bit ? o.end_bit : uint32_t(8 * sizeof(K));
    const uint32_t width = end - o.begin_bit;
    if (width == 0) return 0;
    return K(K(k >> o.begin_bit) & (width == 8 * sizeof(K) ? K(~K(0)) : K((K(1) << width) - 1)));
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

// 8- and 16-bit keys of a pattern (floats_special: halves), `bits` wide.
template <class K>
std::vector<K> sort_keys_narrow(SortPattern p, uint64_t n, uint64_t seed) {
    constexpr uint32_t bits = 8 * sizeof(K);
    constexpr uint32_t all = (1u << bits) - 1, half_bits = bits / 2;
    std::mt19937_64 rng(seed);
    std::vector<K> k(n);
    static const uint16_t special[] = {0x0000, 0x8000, 0x0001, 0x83ff, 0x7c00, 0xfc00, 0x7e00, 0xfe01, 0x3c00, 0xbc00};
    for (uint64_t i = 0; i < n; ++i) {
        uint32_t r = uint32_t(rng());
        uint32_t v = 0;
        switch (p) {
        case SortPattern::random: v = r; break;
        case SortPattern::equal: v = 0x1234u; break;
        case SortPattern::sorted: v = uint32_t(i * all / std::max<uint64_t>(n, 1)); break;
        case SortPattern::reversed: v = uint32_t((n - i) * all / std::max<uint64_t>(n, 1)); break;
        case SortPattern::few: v = r % 5 * 0x0101u; break;
        case SortPattern::high_bits: v = r & (all ^ ((1u << half_bits) - 1)); break;
        case SortPattern::low_bits: v = r & ((1u << half_bits) - 1); break;
        case SortPattern::floats_special: // halves: specials among numbers of both signs
            v = r % 3 ? special[r % 10] : (r & 0x8000u) | (0x3000u + (r >> 8) % 0x1800u);
            break;
        }
        k[i] = K(v & all);
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
    if (options.test.portion_tiles) s += " portions of " + std::to_string(options.test.portion_tiles) + " tiles";
    if (options.spin_limit) s += " spin " + std::to_string(options.spin_limit);
    return s;
}

namespace {
// Value bytes of item i: its words i * 4 + w, or their low bytes for 1- and 2-byte values.
void value_of(uint64_t i, uint32_t value_bytes, uint8_t* out) {
    for (uint32_t w = 0; w * 4 < value_bytes; ++w) {
        const uint32_t word = uint32_t(i) * 4 + w;
        std::memcpy(out + w * 4, &word, std::min(4u, value_bytes));
    }
}

template <class K>
void run_typed(Context& ctx, const SortCase& c, detail::Runner& r) {
    std::vector<K> keys;
    if constexpr (sizeof(K) == 8) keys = sort_keys_64(c.pattern, c.count, c.seed);
    else if constexpr (sizeof(K) == 4) keys = sort_keys(c.pattern, c.count, c.seed);
    else keys = sort_keys_narrow<K>(c.pattern, c.count, c.seed);
    std::vector<uint32_t> order = reference_order(c.key, keys, c.options);
    std::vector<K> got = keys;
    const uint32_t vb = c.value_bytes;
    std::vector<uint8_t> values(c.count * vb), want(vb);
    for (uint64_t i = 0; i < c.count; ++i) value_of(i, vb, &values[i * vb]);
    ctx.sort_host(got.data(), vb ? values.data() : nullptr, c.count, c.key, vb, c.options);
    for (uint64_t i = 0; i < c.count; ++i) {
        value_of(order[i], vb, want.data());
        const bool value_ok = vb == 0 || std::memcmp(&values[i * vb], want.data(), vb) == 0;
        if (got[i] != keys[order[i]] || !value_ok) {
            uint32_t got_value = 0, want_value = 0;
            if (vb) std::memcpy(&got_value, &values[i * vb], std::min(4u, vb)), std::memcpy(&want_value, want.data(), std::min(4u, vb));
            r.fail("position " + std::to_string(i) + ": key " + std::to_string(uint64_t(got[i])) + " (want " +
                   std::to_string(uint64_t(keys[order[i]])) + ")" +
                   (vb ? ", value " + std::to_string(got_value) + " (want " + std::to_string(want_value) + ")" : ""));
            return;
        }
    }
    r.validation_clean();
}
} // namespace

Outcome run_sort_case(Context& ctx, const SortCase& c) {
    // 8- and 16-bit keys and 1- and 2-byte values take the uchar module (src/sort/plan.cpp).
    const bool narrow = size_of(c.key) < 4 || c.value_bytes == 1 || c.value_bytes == 2;
    const Type module = narrow ? Type::u8 : Type::u32;
    return detail::guarded(ctx, Collective::radix_sort, module, Op::add, [&](detail::Runner& r) {
        r.outcome.module = ctx.device().select_module(Collective::radix_sort, module, Op::add, c.options.path).name;
        switch (size_of(c.key)) {
        case 1: run_typed<uint8_t>(ctx, c, r); break;
        case 2: run_typed<uint16_t>(ctx, c, r); break;
        case 8: run_typed<uint64_t>(ctx, c, r); break;
        default: run_typed<uint32_t>(ctx, c, r); break;
        }
    });
}

} // namespace vkc::verify
