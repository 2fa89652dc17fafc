// vkc bench sort: the device-wide radix sort (SortPlan on the Context's buffers) against a copy of the
// keys' bytes measured in the same run and, given bench/cuda/cub_sort's output, against CUB's
// DeviceRadixSort. Each timed run sorts the same unsorted keys: they are copied in from a pristine
// buffer before it, outside its timestamps.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cstring>
#include <cstdlib>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "arguments.hpp"
#include "bench.hpp"
#include "vkc/contract.h"
#include "vkc/vkc.hpp"

namespace vkc::tool {

namespace {

// What a table column sorts: keys of a type, with 4-byte values (the input index) or none.
struct Kind {
    const char* op;   // bench/cuda/cub_sort's op and type, for its rows
    const char* name;
    Type key;
    bool pairs;
};
// The default table, and --narrow's: 8- and 16-bit keys.
const Kind wide_kinds[] = {{"sort_keys", "u32", Type::u32, false},
                           {"sort_keys", "f32", Type::f32, false},
                           {"sort_pairs", "u32", Type::u32, true},
                           {"sort_keys", "u64", Type::u64, false}};
const Kind narrow_kinds[] = {{"sort_keys", "u8", Type::u8, false},
                             {"sort_keys", "u16", Type::u16, false},
                             {"sort_keys", "f16", Type::f16, false},
                             {"sort_pairs", "u16", Type::u16, true}};

// The keys bench/cuda/cub_sort sorts: its hash of the index (hash(i + 1) here); floats finite, of
// both signs, over the whole exponent range; u64 keys the u32 key low, another hash high; 8- and
// 16-bit keys the u32 key's low bits.
uint64_t key_at(uint64_t i, Type key) {
    const uint32_t h = hash(uint32_t(i) + 1);
    switch (key) {
    case Type::f32: return (h & 0x807fffffu) | ((h % 254u + 1u) << 23);
    case Type::f16: return (h & 0x83ffu) | ((h % 30u + 1u) << 10);
    case Type::u64: return uint64_t(hash((uint32_t(i) ^ 0x55555555u) + 1)) << 32 | h;
    case Type::u16: return h & 0xffffu;
    case Type::u8: return h & 0xffu;
    default: return h;
    }
}

// A key's bits in an order that sorts as unsigned (floats: negatives flipped whole).
uint64_t ordered(uint64_t bits, Type key) {
    if (key != Type::f32 && key != Type::f16) return bits;
    const uint64_t sign = key == Type::f32 ? 0x80000000u : 0x8000u, all = 2 * sign - 1;
    return bits & sign ? ~bits & all : bits | sign;
}

struct SortBenchOptions : SweepOptions {
    uint32_t end_bit = 0; // 0: every key bit
    uint32_t key_bits = 0; // integer keys keep only their low key_bits bits (0: all): passes whose
                           // digit is 0 for every key copy their tiles
    bool narrow = false;   // the 8- and 16-bit keys' table
};

int run(const SortBenchOptions& o) {
    ContextOptions co;
    co.device = o.device;
    Context ctx(co);
    ctx.set_timing(true, 1);
    ctx.device().probe_subgroup_layout(ctx.queue(), ctx.queue_family()); // plans may take the subgroup module
    const DeviceInfo& d = ctx.info();
    CubRows cub; // bench/cuda/cub_sort rows: op,type,n,median_ms,gitems_per_s
    if (!o.cub_csv.empty()) cub = read_cub_rows(o.cub_csv, 3);
    const Kind* kinds = o.narrow ? narrow_kinds : wide_kinds;
    const uint64_t max_n = uint64_t(1) << o.max_log2;
    std::printf("# vkc bench sort: %s (%s), %s, 2^%d to 2^%d keys, median of %d runs, each measurement after "
                "300 ms of its own work\n",
                d.name.c_str(), d.driver.c_str(), today().c_str(), o.min_log2, o.max_log2, o.runs);
    if (o.key_bits) std::printf("# integer keys below 2^%u\n", o.key_bits);
    std::printf("# G/s: keys (or pairs) sorted a second; / bound: the time a copy of the passes' bytes takes\n"
                "# (a read of the keys to count, then a read and a write of keys and values a pass) over the\n"
                "# sort's; CUB: cub::DeviceRadixSort from bench/cuda/cub_sort on this GPU\n");
    // Room for the table's widest key (u64, or u16 with --narrow), whose range a device may not bind
    // whole at the largest sizes: such columns print "-". Past 2^30 - 4096 keys a sort looks back in
    // portions (--narrow --max-log2 30 times that path).
    const uint64_t key_room = o.narrow ? 2 : 8;
    Buffer pristine = ctx.create_buffer(max_n * key_room), keys = ctx.create_buffer(max_n * key_room),
           alternate = ctx.create_buffer(max_n * key_room), values = ctx.create_buffer(max_n * 4),
           values_alternate = ctx.create_buffer(max_n * 4), value_source = ctx.create_buffer(max_n * 4);
    Buffer scratch = ctx.create_buffer(ctx.device().sort_scratch_bytes(Type::u32, max_n));
    std::vector<uint32_t> indices(max_n);
    for (uint64_t i = 0; i < max_n; ++i) indices[i] = uint32_t(i);
    ctx.upload(value_source, indices.data(), max_n * 4);
    std::vector<uint64_t> host(max_n); // the keys' bits
    std::vector<uint8_t> bytes(max_n * key_room), got(max_n * key_room);
    std::vector<uint32_t> got_values(max_n);
    int failures = 0;
    for (int e = o.min_log2; e <= o.max_log2; e += o.step) {
        const uint64_t n = uint64_t(1) << e;
        // The copy that prices the bytes: n words, or as many as a bound range holds.
        const uint64_t copy_n = std::min({n, max_n * key_room / 4, d.max_storage_buffer_range / 4});
        WorkgroupRequest copy{Collective::copy, Type::u32, Op::add, {256}, copy_n};
        // Each measurement is warmed up by at least 300 ms of its own work: the host's data making and
        // uploads before it leave the GPU idle, and its clocks drop.
        auto median = [&](const std::function<void()>& timed) { return median_gpu_ms(ctx, o.runs, timed); };
        const double copy_ms = median([&] { ctx.run(copy, pristine, keys); });
        const double copy_bytes_per_ms = 2.0 * copy_n * 4 / copy_ms;
        double rate[4] = {0, 0, 0, 0}, bound[4] = {0, 0, 0, 0};
        for (int kind = 0; kind < 4; ++kind) {
            const Kind& k = kinds[kind];
            const bool is_float = k.key == Type::f32 || k.key == Type::f16;
            const uint64_t key_size = size_of(k.key), key_bytes = n * key_size;
            if (std::max(key_bytes, k.pairs ? n * 4 : 0) > d.max_storage_buffer_range) continue; // "-"
            const uint64_t key_mask = o.key_bits && !is_float ? (uint64_t(1) << o.key_bits) - 1 : ~uint64_t(0);
            for (uint64_t i = 0; i < n; ++i) {
                host[i] = key_at(i, k.key) & key_mask;
                std::memcpy(&bytes[i * key_size], &host[i], key_size);
            }
            ctx.upload(pristine, bytes.data(), key_bytes);
            // The keys' copy moves whole words (a narrow key's last bytes with them).
            const uint64_t copy_words = (key_bytes + 3) / 4;
            WorkgroupRequest copy_keys{Collective::copy, Type::u32, Op::add, {256}, copy_words},
                copy_values{Collective::copy, Type::u32, Op::add, {256}, n};
            BufferRange kr{keys.handle(), 0, key_bytes}, ka{alternate.handle(), 0, key_bytes},
                v{values.handle(), 0, n * 4}, va{values_alternate.handle(), 0, n * 4},
                s{scratch.handle(), 0, scratch.size()};
            SortOptions so;
            so.end_bit = o.end_bit;
            SortPlan plan = k.pairs ? ctx.device().plan_sort_pairs(k.key, 4, n, kr, ka, v, va, s, so)
                                    : ctx.device().plan_sort(k.key, n, kr, ka, s, so);
            if (e == o.min_log2 && kind == 0) {
                std::printf("# ranking: %s\n\n", plan.path() == Path::subgroup ? "subgroup ballots" : "shared memory");
                std::printf("| keys | copy GB/s |");
                for (int c = 0; c < 4; ++c) {
                    std::printf(" %s %s G/s | / bound | / CUB |", kinds[c].name, kinds[c].pairs ? "pairs" : "keys");
                }
                std::printf("\n|---:|---:|");
                for (int c = 0; c < 4; ++c) std::printf("---:|---:|---:|");
                std::printf("\n");
            }
            const double ms = median([&] {
                ctx.run(copy_keys, pristine, keys);
                if (k.pairs) ctx.run(copy_values, value_source, values);
                ctx.run(plan);
            });
            rate[kind] = n / ms * 1e-6;
            if (kind == 0 && std::getenv("VKC_LOOKBACK_STATS")) { // the last run's look-back, all passes
                uint32_t stats[3];
                ctx.download(scratch, stats, sizeof stats, 4 * VKC_SORT_STAT_STEPS);
                double tiles = std::max(1u, stats[2]);
                std::printf("# 2^%d look-back: %u tiles; per tile %.2f statuses read a digit, %.4f tiles counted\n", e,
                            stats[2], stats[0] / tiles / 256, stats[1] / tiles);
            }
            // Traffic: a read of the keys to count, and each pass reads and writes keys (and values).
            const double traffic = double(key_bytes) + 2.0 * plan.passes() * (key_bytes + (k.pairs ? n * 4.0 : 0.0));
            bound[kind] = traffic / copy_bytes_per_ms / ms;
            // Sorted by the sorted bits (floats by value where every bit is sorted), a permutation
            // (sums agree), values with their keys.
            ctx.download(plan.result_in_alternate() ? alternate : keys, got.data(), key_bytes);
            if (k.pairs) ctx.download(plan.result_in_alternate() ? values_alternate : values, got_values.data(), n * 4);
            const uint64_t mask = o.end_bit ? (uint64_t(1) << o.end_bit) - 1 : ~uint64_t(0);
            uint64_t sum_in = 0, sum_out = 0, previous = 0;
            bool ordered_ok = true, paired = true;
            for (uint64_t i = 0; i < n; ++i) {
                uint64_t bits = 0;
                std::memcpy(&bits, &got[i * key_size], key_size);
                sum_in += host[i];
                sum_out += bits;
                const uint64_t sorted = is_float && !o.end_bit ? ordered(bits, k.key) : bits & mask;
                if (i > 0 && !(is_float && o.end_bit)) ordered_ok = ordered_ok && previous <= sorted;
                previous = sorted;
                if (k.pairs) paired = paired && got_values[i] < n && host[got_values[i]] == bits;
            }
            if (!ordered_ok || !paired || sum_in != sum_out) {
                std::printf("FAIL sort %s%s n=%llu: %s\n", k.name, k.pairs ? " pairs" : "", (unsigned long long)n,
                            !ordered_ok ? "out of order" : !paired ? "a value away from its key" : "not a permutation");
                ++failures;
            }
        }
        auto vs_cub = [&](const Kind& k, double ours) {
            auto it = cub.find({k.op, k.name, n});
            // CUB's keys use every bit: no ratio for keys cut to key_bits.
            if (it == cub.end() || it->second <= 0 || o.key_bits) return std::string("-");
            double cub_rate = n / it->second * 1e-6; // CUB's median ms -> G/s
            return std::to_string(ours / cub_rate).substr(0, 5);
        };
        std::printf("| 2^%d | %.0f |", e, copy_bytes_per_ms * 1e-6);
        for (int c = 0; c < 4; ++c) {
            if (rate[c] == 0) std::printf(" - | - | - |"); // past the device's maxStorageBufferRange
            else std::printf(" %.2f | %.3f | %s |", rate[c], bound[c], vs_cub(kinds[c], rate[c]).c_str());
        }
        std::printf("\n");
        std::fflush(stdout);
    }
    std::printf("\nbench: %d checks failed\n", failures);
    return failures ? 1 : 0;
}

} // namespace

const char* bench_sort_usage =
    "  bench sort [options]        device-wide radix sort of u32, f32 and u64 keys and u32 pairs by size; keys a\n"
    "                              (--narrow: u8, u16 and f16 keys and u16 keys with u32 values)\n"
    "                              second, ratio to a copy of the passes' bytes, and to CUB when given\n"
    "    --device X --min-log2 16 --max-log2 28 --step 2 --runs 15 (up to 30 with --narrow)\n"
    "    --end-bit N (sort by key bits [0, N): N / 8 passes, to price a pass)\n"
    "    --key-bits N (u32 and u64 keys below 2^N: the passes above copy; no CUB ratios)\n"
    "    --cub FILE (output of bench/cuda/cub_sort)\n";

int bench_sort(int argc, char** argv) {
    Arguments args(argc, argv);
    args.next(); // "sort"
    SortBenchOptions o;
    o.largest_log2 = 30; // 2^30 8- and 16-bit keys: a sort in portions
    while (args.next()) {
        if (o.take(args)) continue;
        if (args.is("--end-bit")) o.end_bit = args.number<uint32_t>(1, 32);
        else if (args.is("--key-bits")) o.key_bits = args.number<uint32_t>(1, 63);
        else if (args.is("--narrow")) o.narrow = true;
        else args.unknown();
    }
    o.check();
    if (o.max_log2 > 29 && !o.narrow) throw UsageError("bench sort: --max-log2 30 takes --narrow (8- and 16-bit keys)");
    return run(o);
}

} // namespace vkc::tool
