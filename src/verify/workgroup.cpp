// vkcollectives verifier: work-group collectives (reduce, scans, broadcast, all/any) and block scans,
// checked group by group against the CPU reference.
#include <vulkan/vulkan.h> // the loader's exports, as an engine that links libvulkan calls them

#include "verify/verify.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "verify/reference.hpp"
#include "verify/runner.hpp"

namespace vkc::verify {
namespace {

using namespace detail;

// ---- Layout of a case's input ----------------------------------------------------------------

struct Layout {
    uint64_t group_size = 1;
    uint64_t count = 0;
    uint64_t groups() const { return (count + group_size - 1) / group_size; }
    uint64_t live(uint64_t g) const { return std::min(group_size, count - g * group_size); }
};

uint64_t boundary_index(const Context& ctx, uint64_t live) {
    uint64_t s = ctx.info().subgroup_size;
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
            if constexpr (is_float_v<T>)
                ok = is_nan(want)                     ? is_nan(got)
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
        if (op == Op::min || op == Op::max)
            p.insert(p.end(), {"smallest denormal", "denormals, zeros, infinities, NaN"});
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

const std::vector<std::string> vote_patterns = {"all true",       "all false",         "true but first",
                                                "true but last",  "true but boundary", "false but first",
                                                "false but last", "false but boundary"};

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
        names.push_back(tail                       ? (c.collective == Collective::all ? "all true" : "all false")
                        : g < vote_patterns.size() ? vote_patterns[g]
                                                   : "random");
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
    req.path = c.path;
    r.outcome.module = r.ctx.device().select_module(c.collective, c.type, c.op, c.path).name;

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
        std::string err = check_scan(Collective::reduce, c.op, items, n, aggregates, size,
                                     at("aggregate in invocation"));
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
        s += prefix == Prefix::seeded     ? " seeded"
             : prefix == Prefix::running  ? " running"
             : prefix == Prefix::callback ? " callback"
                                          : "";
        s += path == Path::shared_memory ? " raking" : "";
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
