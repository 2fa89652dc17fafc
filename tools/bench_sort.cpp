// vkc bench sort: the device-wide radix sort (SortPlan on the Context's buffers) against a copy of the
// keys' bytes measured in the same run and, given bench/cuda/cub_sort's output, against CUB's
// DeviceRadixSort. Each timed run sorts the same unsorted keys: they are copied in from a pristine
// buffer before it, outside its timestamps.
#include <algorithm>
#include <bit>
#include <chrono>
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

// The keys bench/cuda/cub_sort sorts: its hash of the index (hash(i + 1) here); floats finite, of both
// signs, over the whole exponent range.
uint32_t key_at(uint64_t i, bool as_float) {
    uint32_t h = hash(uint32_t(i) + 1);
    return as_float ? (h & 0x807fffffu) | ((h % 254u + 1u) << 23) : h;
}
// Its u64 keys: the u32 key low, another hash high.
uint64_t wide_key_at(uint64_t i) { return uint64_t(hash((uint32_t(i) ^ 0x55555555u) + 1)) << 32 | key_at(i, false); }

struct SortBenchOptions : SweepOptions {
    uint32_t end_bit = 0; // 0: every key bit
    uint32_t key_bits = 0; // integer keys keep only their low key_bits bits (0: all): passes whose
                           // digit is 0 for every key copy their tiles
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
    const uint64_t max_n = uint64_t(1) << o.max_log2;
    std::printf("# vkc bench sort: %s (%s), %s, 2^%d to 2^%d keys, median of %d runs, each measurement after "
                "300 ms of its own work\n",
                d.name.c_str(), d.driver.c_str(), today().c_str(), o.min_log2, o.max_log2, o.runs);
    if (o.key_bits) std::printf("# u32 and u64 keys below 2^%u\n", o.key_bits);
    std::printf("# G/s: keys (or pairs) sorted a second; / bound: the time a copy of the passes' bytes takes\n"
                "# (a read of the keys to count, then a read and a write of keys and values a pass) over the\n"
                "# sort's; CUB: cub::DeviceRadixSort from bench/cuda/cub_sort on this GPU\n");
    Buffer pristine = ctx.create_buffer(max_n * 8), keys = ctx.create_buffer(max_n * 8), // room for u64 keys
           alternate = ctx.create_buffer(max_n * 8), values = ctx.create_buffer(max_n * 4),
           values_alternate = ctx.create_buffer(max_n * 4), value_source = ctx.create_buffer(max_n * 4);
    Buffer scratch = ctx.create_buffer(ctx.device().sort_scratch_bytes(Type::u32, max_n));
    std::vector<uint32_t> host(max_n);
    std::vector<uint64_t> wide_host(max_n);
    for (uint64_t i = 0; i < max_n; ++i) host[i] = uint32_t(i);
    ctx.upload(value_source, host.data(), max_n * 4);
    int failures = 0;
    for (int e = o.min_log2; e <= o.max_log2; e += o.step) {
        const uint64_t n = uint64_t(1) << e;
        WorkgroupRequest copy{Collective::copy, Type::u32, Op::add, {256}, n};
        // Each measurement is warmed up by at least 300 ms of its own work: the host's data making and
        // uploads before it leave the GPU idle, and its clocks drop.
        auto median = [&](const std::function<void()>& timed) { return median_gpu_ms(ctx, o.runs, timed); };
        const double copy_ms = median([&] { ctx.run(copy, pristine, keys); });
        const double copy_bytes_per_ms = 2.0 * n * 4 / copy_ms;
        double rate[4] = {0, 0, 0, 0}, bound[4] = {0, 0, 0, 0};
        for (int kind = 0; kind < 4; ++kind) { // u32 keys, f32 keys, u32 pairs, u64 keys
            const bool as_float = kind == 1, pairs = kind == 2, wide = kind == 3;
            const Type type = as_float ? Type::f32 : wide ? Type::u64 : Type::u32;
            const uint64_t key_bytes = n * size_of(type);
            const uint64_t key_mask = o.key_bits ? (uint64_t(1) << o.key_bits) - 1 : ~uint64_t(0);
            if (wide) {
                for (uint64_t i = 0; i < n; ++i) wide_host[i] = wide_key_at(i) & key_mask;
                ctx.upload(pristine, wide_host.data(), key_bytes);
            } else {
                for (uint64_t i = 0; i < n; ++i) host[i] = as_float ? key_at(i, true) : key_at(i, false) & key_mask;
                ctx.upload(pristine, host.data(), key_bytes);
            }
            WorkgroupRequest copy_keys{Collective::copy, Type::u32, Op::add, {256}, key_bytes / 4};
            BufferRange k{keys.handle(), 0, key_bytes}, ka{alternate.handle(), 0, key_bytes}, v{values.handle(), 0, n * 4},
                va{values_alternate.handle(), 0, n * 4}, s{scratch.handle(), 0, scratch.size()};
            SortOptions so;
            so.end_bit = o.end_bit;
            SortPlan plan = pairs ? ctx.device().plan_sort_pairs(type, 4, n, k, ka, v, va, s, so)
                                  : ctx.device().plan_sort(type, n, k, ka, s, so);
            if (e == o.min_log2 && kind == 0) {
                std::printf("# ranking: %s\n\n", plan.path() == Path::subgroup ? "subgroup ballots" : "shared memory");
                std::printf("| keys | copy GB/s | u32 keys G/s | / bound | / CUB | f32 keys G/s | / CUB | u32 pairs G/s | "
                            "/ bound | / CUB | u64 keys G/s | / bound | / CUB |\n"
                            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            }
            const double ms = median([&] {
                ctx.run(copy_keys, pristine, keys);
                if (pairs) ctx.run(copy_keys, value_source, values);
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
            double bytes = double(key_bytes) + 2.0 * plan.passes() * (key_bytes + (pairs ? n * 4.0 : 0.0));
            bound[kind] = bytes / copy_bytes_per_ms / ms;
            // Sorted, a permutation (sums agree), values with their keys.
            const Buffer& result = plan.result_in_alternate() ? alternate : keys;
            if (wide) {
                std::vector<uint64_t> got(n);
                ctx.download(result, got.data(), key_bytes);
                const uint64_t mask = o.end_bit ? (uint64_t(1) << o.end_bit) - 1 : ~uint64_t(0);
                uint64_t sum_in = 0, sum_out = 0;
                bool ordered = true;
                for (uint64_t i = 0; i < n; ++i) {
                    sum_in += wide_host[i];
                    sum_out += got[i];
                    ordered = ordered && (i == 0 || (got[i - 1] & mask) <= (got[i] & mask));
                }
                if (!ordered || sum_in != sum_out) {
                    std::printf("FAIL sort u64 n=%llu: %s\n", (unsigned long long)n,
                                !ordered ? "out of order" : "not a permutation");
                    ++failures;
                }
                continue;
            }
            std::vector<uint32_t> got(n), got_values(pairs ? n : 0);
            ctx.download(result, got.data(), n * 4);
            if (pairs) ctx.download(plan.result_in_alternate() ? values_alternate : values, got_values.data(), n * 4);
            uint64_t sum_in = 0, sum_out = 0;
            bool ordered = true, paired = true;
            const uint32_t mask = o.end_bit ? (1u << o.end_bit) - 1u : 0xffffffffu; // the sorted bits
            auto sorted_bits = [&](uint32_t k) { return as_float || o.end_bit ? k & mask : k; };
            for (uint64_t i = 0; i < n; ++i) {
                sum_in += host[i];
                sum_out += got[i];
                if (i > 0) {
                    if (as_float && !o.end_bit) {
                        ordered = ordered && std::bit_cast<float>(got[i - 1]) <= std::bit_cast<float>(got[i]);
                    } else if (!as_float) {
                        ordered = ordered && sorted_bits(got[i - 1]) <= sorted_bits(got[i]);
                    }
                }
                if (pairs) paired = paired && got_values[i] < n && host[got_values[i]] == got[i];
            }
            if (!ordered || !paired || sum_in != sum_out) {
                std::printf("FAIL sort %s%s n=%llu: %s\n", as_float ? "f32" : "u32", pairs ? " pairs" : "",
                            (unsigned long long)n,
                            !ordered ? "out of order" : !paired ? "a value away from its key" : "not a permutation");
                ++failures;
            }
        }
        auto vs_cub = [&](const char* op, const char* type, double ours) {
            auto it = cub.find({op, type, n});
            // CUB's keys use every bit: no ratio for keys cut to key_bits.
            if (it == cub.end() || it->second <= 0 || o.key_bits) return std::string("-");
            double cub_rate = n / it->second * 1e-6; // CUB's median ms -> G/s
            return std::to_string(ours / cub_rate).substr(0, 5);
        };
        std::printf("| 2^%d | %.0f | %.2f | %.3f | %s | %.2f | %s | %.2f | %.3f | %s | %.2f | %.3f | %s |\n", e,
                    copy_bytes_per_ms * 1e-6, rate[0], bound[0], vs_cub("sort_keys", "u32", rate[0]).c_str(), rate[1],
                    vs_cub("sort_keys", "f32", rate[1]).c_str(), rate[2], bound[2],
                    vs_cub("sort_pairs", "u32", rate[2]).c_str(), rate[3], bound[3],
                    vs_cub("sort_keys", "u64", rate[3]).c_str());
        std::fflush(stdout);
    }
    std::printf("\nbench: %d checks failed\n", failures);
    return failures ? 1 : 0;
}

} // namespace

const char* bench_sort_usage =
    "  bench sort [options]        device-wide radix sort of u32, f32 and u64 keys and u32 pairs by size; keys a\n"
    "                              second, ratio to a copy of the passes' bytes, and to CUB when given\n"
    "    --device X --min-log2 16 --max-log2 28 --step 2 --runs 15\n"
    "    --end-bit N (sort by key bits [0, N): N / 8 passes, to price a pass)\n"
    "    --key-bits N (u32 and u64 keys below 2^N: the passes above copy; no CUB ratios)\n"
    "    --cub FILE (output of bench/cuda/cub_sort)\n";

int bench_sort(int argc, char** argv) {
    Arguments args(argc, argv);
    args.next(); // "sort"
    SortBenchOptions o;
    while (args.next()) {
        if (o.take(args)) continue;
        if (args.is("--end-bit")) o.end_bit = args.number<uint32_t>(1, 32);
        else if (args.is("--key-bits")) o.key_bits = args.number<uint32_t>(1, 63);
        else args.unknown();
    }
    o.check();
    return run(o);
}

} // namespace vkc::tool
