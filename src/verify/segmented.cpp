// The segmented scans' CPU reference and case runner (verify/segmented.hpp).
#include "verify/segmented.hpp"

#include <bit>
#include <cmath>
#include <cstring>
#include <random>

#include "verify/reference.hpp"
#include "verify/runner.hpp"

namespace vkc::verify {

namespace {
using detail::Rng;

// What the kernel combines items of type T as: halves as floats (rounded to half once, when stored).
template <class T>
using Combined = std::conditional_t<std::is_same_v<T, half>, float, T>;

template <class T>
T stored(Combined<T> v) {
    if constexpr (std::is_same_v<T, half>) return half(v);
    else return v;
}

template <class T>
T value_of(uint64_t bits) {
    if constexpr (sizeof(T) == 4) return std::bit_cast<T>(uint32_t(bits));
    else return std::bit_cast<T>(bits);
}

// Whether key i starts a run: keys compare as numbers of their type (-0 == +0, NaN never equal).
template <class K>
std::vector<bool> heads_of_keys(const std::vector<uint64_t>& keys) {
    std::vector<bool> heads(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) heads[i] = i == 0 || !(value_of<K>(keys[i]) == value_of<K>(keys[i - 1]));
    return heads;
}

std::vector<bool> heads_of(const SegmentedCase& c, const std::vector<uint32_t>& flags, const std::vector<uint64_t>& keys) {
    if (c.options.by == Segments::head_flags) {
        std::vector<bool> heads(flags.size());
        for (size_t i = 0; i < flags.size(); ++i) heads[i] = i == 0 || flags[i] != 0;
        return heads;
    }
    switch (c.options.key) {
    case Type::i32: return heads_of_keys<int32_t>(keys);
    case Type::f32: return heads_of_keys<float>(keys);
    case Type::u64: return heads_of_keys<uint64_t>(keys);
    case Type::i64: return heads_of_keys<int64_t>(keys);
    case Type::f64: return heads_of_keys<double>(keys);
    default: return heads_of_keys<uint32_t>(keys);
    }
}

template <class T>
void check(detail::Runner& r, const SegmentedCase& c, const std::vector<uint32_t>& flags,
           const std::vector<uint64_t>& key_bits, const std::vector<T>& values) {
    const std::vector<bool> heads = heads_of(c, flags, key_bits);
    const bool keys = c.options.by == Segments::keys;
    const bool run_lengths = c.options.output == SegmentedOutput::run_lengths;
    const bool reduce = c.options.output == SegmentedOutput::reduce || run_lengths;
    const bool exclusive = c.options.output == SegmentedOutput::scan_exclusive;
    const Op op = c.op;
    // The device's answer.
    const uint32_t key_bytes = keys ? uint32_t(size_of(c.options.key)) : 4;
    std::vector<uint8_t> head_data(c.count * key_bytes);
    for (uint64_t i = 0; i < c.count; ++i) {
        uint64_t bits = keys ? key_bits[i] : flags[i];
        std::memcpy(&head_data[i * key_bytes], &bits, key_bytes);
    }
    std::vector<T> got(c.count);
    std::vector<uint8_t> unique(reduce && keys ? c.count * key_bytes : 0);
    const uint64_t n = r.ctx.segmented_host(run_lengths ? nullptr : values.data(), head_data.data(), got.data(),
                                            unique.empty() ? nullptr : unique.data(), c.count, c.value, op, c.options);
    // The reference, segment by segment: exact combines, and for float sums the exact sum and sum |x|.
    const bool float_sum = detail::is_float_v<T> && op == Op::add;
    std::vector<T> want;
    std::vector<long double> want_sum, want_abs;
    std::vector<uint64_t> want_k, want_key_index;
    using C = Combined<T>;
    C running = detail::identity<C>(op);
    long double sum = 0, abs_sum = 0;
    uint64_t k = 0;
    auto emit = [&] { want.push_back(stored<T>(running)), want_sum.push_back(sum), want_abs.push_back(abs_sum), want_k.push_back(k); };
    for (uint64_t i = 0; i < c.count; ++i) {
        if (heads[i]) {
            if (reduce && i > 0) emit();
            if (reduce) want_key_index.push_back(i);
            running = detail::identity<C>(op), sum = 0, abs_sum = 0, k = 0;
        }
        if (exclusive) emit();
        const T v = detail::prepare(op, values[i]);
        running = detail::combine(op, running, C(v));
        sum += detail::wide(v), abs_sum += std::fabs(detail::wide(v)), ++k;
        if (!reduce && !exclusive) emit();
    }
    if (reduce && c.count > 0) emit();
    if (n != want.size()) {
        r.fail(std::string(reduce ? "segments " : "items ") + std::to_string(n) + " (want " + std::to_string(want.size()) + ")");
        return;
    }
    for (uint64_t i = 0; i < n; ++i) {
        std::string error;
        if (float_sum) {
            if (want_k[i] > 0) error = detail::float_sum_error(got[i], want_sum[i], want_k[i], want_abs[i]);
            else if (detail::bits_of(got[i]) != detail::bits_of(want[i])) error = "expected the identity " + detail::show(want[i]) + ", got " + detail::show(got[i]);
        } else if (detail::bits_of(got[i]) != detail::bits_of(want[i])) {
            error = "expected " + detail::show(want[i]) + ", got " + detail::show(got[i]);
        }
        if (!error.empty()) {
            r.fail(std::string(reduce ? "segment " : "item ") + std::to_string(i) + ": " + error);
            return;
        }
        if (reduce && keys) {
            uint64_t g = 0, w = key_bits[want_key_index[i]];
            std::memcpy(&g, &unique[i * key_bytes], key_bytes);
            if (g != w) {
                r.fail("segment " + std::to_string(i) + "'s key: bits " + std::to_string(g) + " (want " + std::to_string(w) + ")");
                return;
            }
        }
    }
    r.validation_clean();
}

// Non-trivial runs: the first index and length of each run of two keys or more, in order.
void check_non_trivial(detail::Runner& r, const SegmentedCase& c, const std::vector<uint64_t>& key_bits) {
    const std::vector<bool> heads = heads_of(c, {}, key_bits);
    const uint32_t key_bytes = uint32_t(size_of(c.options.key));
    std::vector<uint8_t> key_data(c.count * key_bytes);
    for (uint64_t i = 0; i < c.count; ++i) std::memcpy(&key_data[i * key_bytes], &key_bits[i], key_bytes);
    const uint64_t room = (c.count + 1) / 2;
    std::vector<uint32_t> offsets(room), lengths(room);
    const uint64_t n = r.ctx.segmented_host(nullptr, key_data.data(), lengths.data(), offsets.data(), c.count,
                                            Type::u32, Op::add, c.options);
    std::vector<uint32_t> want_offsets, want_lengths;
    for (uint64_t i = 0; i < c.count;) {
        uint64_t end = i + 1;
        while (end < c.count && !heads[end]) ++end;
        if (end - i > 1) want_offsets.push_back(uint32_t(i)), want_lengths.push_back(uint32_t(end - i));
        i = end;
    }
    if (n != want_offsets.size()) {
        r.fail("runs " + std::to_string(n) + " (want " + std::to_string(want_offsets.size()) + ")");
        return;
    }
    for (uint64_t k = 0; k < n; ++k) {
        if (offsets[k] != want_offsets[k] || lengths[k] != want_lengths[k]) {
            r.fail("run " + std::to_string(k) + ": offset " + std::to_string(offsets[k]) + " length " +
                   std::to_string(lengths[k]) + " (want " + std::to_string(want_offsets[k]) + ", " +
                   std::to_string(want_lengths[k]) + ")");
            return;
        }
    }
    r.validation_clean();
}

// Scans by offsets: each segment's items scanned, float sums within the summation bound of the items
// summed, the items outside every segment as they were.
template <class T>
void check_offset_scans(detail::Runner& r, const SegmentedCase& c, const std::vector<uint32_t>& offsets,
                        const std::vector<T>& values, const std::vector<T>& got) {
    const bool inclusive = c.options.output == SegmentedOutput::scan_inclusive;
    const bool float_sum = detail::is_float_v<T> && c.op == Op::add;
    std::vector<T> want(values);
    std::vector<long double> want_sum(c.count), want_abs(c.count);
    std::vector<uint64_t> want_k(c.count);
    std::vector<bool> inside(c.count, false);
    using C = Combined<T>;
    for (size_t s = 0; s + 1 < offsets.size(); ++s) {
        C running = detail::identity<C>(c.op);
        long double sum = 0, abs_sum = 0;
        uint64_t k = 0;
        for (uint32_t i = offsets[s]; i < offsets[s + 1]; ++i) {
            const T v = detail::prepare(c.op, values[i]);
            if (inclusive) running = detail::combine(c.op, running, C(v)), sum += detail::wide(v), abs_sum += std::fabs(detail::wide(v)), ++k;
            want[i] = stored<T>(running), want_sum[i] = sum, want_abs[i] = abs_sum, want_k[i] = k, inside[i] = true;
            if (!inclusive) running = detail::combine(c.op, running, C(v)), sum += detail::wide(v), abs_sum += std::fabs(detail::wide(v)), ++k;
        }
    }
    for (uint64_t i = 0; i < c.count; ++i) {
        std::string error;
        if (inside[i] && float_sum && want_k[i] > 0) {
            error = detail::float_sum_error(got[i], want_sum[i], want_k[i], want_abs[i]);
        } else if (detail::bits_of(got[i]) != detail::bits_of(want[i])) {
            error = (inside[i] ? "expected " : "outside every segment, expected its value ") + detail::show(want[i]) +
                    ", got " + detail::show(got[i]);
        }
        if (!error.empty()) {
            r.fail("item " + std::to_string(i) + ": " + error);
            return;
        }
    }
    r.validation_clean();
}

// Segments by offsets: each segment's total, the identity for an empty one, or the scans.
template <class T>
void check_offsets(detail::Runner& r, const SegmentedCase& c, const std::vector<T>& values) {
    const std::vector<uint32_t> offsets = segment_offsets(c.pattern, c.count, c.seed);
    SegmentedOptions o = c.options;
    o.segment_count = uint32_t(offsets.size() - 1);
    const bool scans = o.output != SegmentedOutput::reduce;
    std::vector<T> got(scans ? c.count : o.segment_count);
    const uint64_t n = r.ctx.segmented_host(values.data(), offsets.data(), got.data(), nullptr, c.count, c.value,
                                            c.op, o);
    const uint64_t want_n = scans ? c.count : o.segment_count;
    if (n != want_n) {
        r.fail(std::string(scans ? "items " : "segments ") + std::to_string(n) + " (want " + std::to_string(want_n) + ")");
        return;
    }
    if (scans) {
        check_offset_scans(r, c, offsets, values, got);
        return;
    }
    using C = Combined<T>;
    for (uint32_t s = 0; s < o.segment_count; ++s) {
        C combined = detail::identity<C>(c.op);
        long double sum = 0, abs_sum = 0;
        for (uint32_t i = offsets[s]; i < offsets[s + 1]; ++i) {
            const T v = detail::prepare(c.op, values[i]);
            combined = detail::combine(c.op, combined, C(v));
            sum += detail::wide(v), abs_sum += std::fabs(detail::wide(v));
        }
        const T want = stored<T>(combined);
        const uint64_t k = offsets[s + 1] - offsets[s];
        std::string error;
        if (detail::is_float_v<T> && c.op == Op::add && k > 0) {
            error = detail::float_sum_error(got[s], sum, k, abs_sum);
        } else if (detail::bits_of(got[s]) != detail::bits_of(want)) {
            error = "expected " + detail::show(want) + ", got " + detail::show(got[s]);
        }
        if (!error.empty()) {
            r.fail("segment " + std::to_string(s) + " [" + std::to_string(offsets[s]) + ", " +
                   std::to_string(offsets[s + 1]) + "): " + error);
            return;
        }
    }
    r.validation_clean();
}

template <class T>
std::vector<T> segment_values(const SegmentedCase& c) {
    Rng rng(c.seed * 0x9e3779b97f4a7c15ull + 7);
    std::vector<T> values(c.count);
    for (T& v : values) {
        if constexpr (detail::is_float_v<T>) {
            if (c.special && rng() % 4 == 0) {
                v = detail::special_value<T>(rng);
                continue;
            }
        }
        v = c.options.output == SegmentedOutput::run_lengths ? T(1) : detail::random_value<T>(c.op, rng);
    }
    return values;
}
} // namespace

const char* name(SegmentPattern p) {
    switch (p) {
    case SegmentPattern::random: return "random";
    case SegmentPattern::every_item: return "every item a segment";
    case SegmentPattern::one: return "one segment";
    case SegmentPattern::huge_among_tiny: return "a huge segment among tiny ones";
    case SegmentPattern::short_runs: return "segments of 1 to 16";
    }
    return "?";
}

std::vector<uint32_t> segment_heads(SegmentPattern p, uint64_t n, uint64_t seed) {
    Rng rng(seed ^ 0x2545f4914f6cdd1dull);
    std::vector<uint32_t> heads(n);
    const uint64_t huge_begin = n / 3, huge_end = n - n / 4;
    uint64_t left = 0; // short_runs: items left in the current segment
    for (uint64_t i = 0; i < n; ++i) {
        uint32_t r = uint32_t(rng());
        bool head = false;
        switch (p) {
        case SegmentPattern::random: head = r % 8 == 0; break;
        case SegmentPattern::every_item: head = true; break;
        case SegmentPattern::one: head = false; break;
        case SegmentPattern::huge_among_tiny: head = i == huge_begin || ((i < huge_begin || i >= huge_end) && r % 3 != 0); break;
        case SegmentPattern::short_runs:
            head = left == 0;
            left = head ? r % 16 : left - 1;
            break;
        }
        heads[i] = head ? (r >> 8) | 1u : 0u; // any nonzero flag starts a segment
        if (i == 0 && r % 2) heads[i] = 0;   // item 0 starts one whatever its flag
    }
    return heads;
}

std::vector<uint32_t> segment_offsets(SegmentPattern p, uint64_t n, uint64_t seed) {
    const std::vector<uint32_t> heads = segment_heads(p, n, seed);
    Rng rng(seed ^ 0x632be59bd9b4e019ull);
    const uint64_t before = seed % 2 ? n / 50 : 0, after = seed % 3 ? n / 40 : 0;
    std::vector<uint32_t> offsets;
    for (uint64_t i = before; i + after < n; ++i) {
        if (i == before || heads[i]) {
            offsets.push_back(uint32_t(i));
            while (rng() % 16 == 0) offsets.push_back(uint32_t(i)); // an empty segment
        }
    }
    offsets.push_back(uint32_t(n - after));
    if (rng() % 2) offsets.push_back(uint32_t(n - after)); // an empty last segment
    return offsets;
}

std::vector<uint64_t> segment_keys(Type key, SegmentPattern p, uint64_t n, uint64_t seed) {
    const std::vector<uint32_t> heads = segment_heads(p, n, seed);
    Rng rng(seed ^ 0x94d049bb133111ebull);
    const bool wide = size_of(key) == 8;
    std::vector<uint64_t> keys(n);
    uint64_t run = 0;
    uint64_t current = 0;
    for (uint64_t i = 0; i < n; ++i) {
        if (i == 0 || heads[i]) {
            ++run;
            uint64_t r = rng();
            if (key == Type::f32 || key == Type::f64) {
                // Numbers of both signs; now and then a NaN (a run of its own even when repeated), or
                // a zero whose run goes on with the other zero.
                double x = double(int64_t(run % 2000) - 1000) / 8.0;
                if (r % 16 == 0) x = std::nan("");
                else if (r % 16 == 1) x = 0.0;
                current = key == Type::f32 ? std::bit_cast<uint32_t>(float(x)) : std::bit_cast<uint64_t>(x);
            } else {
                current = wide ? (r & ~0xffffull) | (run & 0xffff) : uint32_t(run * 2654435761u); // neighbours differ
            }
        } else if ((key == Type::f32 || key == Type::f64) && rng() % 4 == 0) {
            const uint64_t sign = key == Type::f32 ? 0x80000000ull : 0x8000000000000000ull;
            if ((current & ~sign) == 0) current ^= sign; // -0 after +0 and back: one run
        }
        keys[i] = current;
    }
    return keys;
}

std::string SegmentedCase::label() const {
    std::string s = std::string(segmented_call_name(options)) + " " + std::string(vkc::name(value)) + " " +
                    std::string(vkc::name(op));
    if (options.output == SegmentedOutput::scan_exclusive) s += " exclusive";
    if (options.by == Segments::keys) s += std::string(" (keys ") + std::string(vkc::name(options.key)) + ")";
    if (options.by == Segments::offsets) s += " by offsets";
    s += " n=" + std::to_string(count) + " " + verify::name(pattern);
    if (special) s += " special values";
    if (options.test.force_fallback) s += " forced fallback";
    if (options.spin_limit) s += " spin " + std::to_string(options.spin_limit);
    return s;
}

Outcome run_segmented_case(Context& ctx, const SegmentedCase& c) {
    return detail::guarded(ctx, Collective::segmented, c.value, c.op, [&](detail::Runner& r) {
        r.outcome.module = ctx.device().select_module(Collective::segmented, c.value, c.op, c.options.path).name;
        const std::vector<uint64_t> keys =
            c.options.by == Segments::keys ? segment_keys(c.options.key, c.pattern, c.count, c.seed) : std::vector<uint64_t>{};
        const std::vector<uint32_t> flags =
            c.options.by == Segments::keys ? std::vector<uint32_t>{} : segment_heads(c.pattern, c.count, c.seed);
        detail::with_host_type(c.value, [&](auto host) {
            using T = decltype(host);
            if constexpr (std::is_same_v<T, half> || std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t> || std::is_same_v<T, uint16_t> ||
                          std::is_same_v<T, int16_t> || std::is_same_v<T, uint32_t> || std::is_same_v<T, int32_t> ||
                          std::is_same_v<T, float> || std::is_same_v<T, uint64_t> || std::is_same_v<T, int64_t> ||
                          std::is_same_v<T, double>) {
                if (c.options.output == SegmentedOutput::non_trivial_runs) check_non_trivial(r, c, keys);
                else if (c.options.by == Segments::offsets) check_offsets<T>(r, c, segment_values<T>(c));
                else check<T>(r, c, flags, keys, segment_values<T>(c));
            } else {
                r.fail(std::string("values of type ") + std::string(vkc::name(c.value)) + " are not segmented");
            }
        });
    });
}

} // namespace vkc::verify
