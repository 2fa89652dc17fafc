// vkc bench segmented: reductions and scans by key, run-length encoding, non-trivial runs, and
// reductions and scans by offsets (SegmentedPlan on the Context's buffers) against a copy measured in the same run and, given
// bench/cuda/cub_segmented's output, against CUB on the same data: keys i / L (segments of L items),
// offsets s x L, values hash32(i) & 0xffff.
#include <algorithm>
#include <bit>
#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "arguments.hpp"
#include "bench.hpp"
#include "vkc/vkc.hpp"

namespace vkc::tool {

namespace {

using SegmentedBenchOptions = SweepOptions;

// The cases, in the table's order: the op's name, the value type, what vkcollectives runs, the
// segment length (0: n / 4096, 4096 segments), and CUB's op (bench/cuda/cub_segmented) it is
// compared with: the same op, but for scans by offsets CUB's scan by key over the same segments
// (CUB 3.0 has no segmented scan by offsets).
struct Case {
    const char* op;
    Type value;
    Segments by;
    SegmentedOutput output;
    uint64_t length;
    const char* peer;
};
constexpr Case cases[] = {
    {"reduce_by_key", Type::u32, Segments::keys, SegmentedOutput::reduce, 1, "reduce_by_key"},
    {"reduce_by_key", Type::u32, Segments::keys, SegmentedOutput::reduce, 16, "reduce_by_key"},
    {"reduce_by_key", Type::u32, Segments::keys, SegmentedOutput::reduce, 0, "reduce_by_key"},
    {"reduce_by_key", Type::f32, Segments::keys, SegmentedOutput::reduce, 16, "reduce_by_key"},
    {"scan_by_key", Type::u32, Segments::keys, SegmentedOutput::scan_inclusive, 16, "scan_by_key"},
    {"scan_by_key", Type::f32, Segments::keys, SegmentedOutput::scan_inclusive, 0, "scan_by_key"},
    {"rle", Type::u32, Segments::keys, SegmentedOutput::run_lengths, 16, "rle"},
    {"non_trivial_runs", Type::u32, Segments::keys, SegmentedOutput::non_trivial_runs, 16, "non_trivial_runs"},
    {"non_trivial_runs", Type::u32, Segments::keys, SegmentedOutput::non_trivial_runs, 0, "non_trivial_runs"},
    {"segmented_reduce", Type::u32, Segments::offsets, SegmentedOutput::reduce, 1, "segmented_reduce"},
    {"segmented_reduce", Type::u32, Segments::offsets, SegmentedOutput::reduce, 16, "segmented_reduce"},
    {"segmented_reduce", Type::u32, Segments::offsets, SegmentedOutput::reduce, 0, "segmented_reduce"},
    {"segmented_scan", Type::u32, Segments::offsets, SegmentedOutput::scan_inclusive, 16, "scan_by_key"},
    {"segmented_scan", Type::u32, Segments::offsets, SegmentedOutput::scan_inclusive, 0, "scan_by_key"},
};
// Run lengths and non-trivial runs count keys: no values, a uint add plan.
bool counts_runs(const Case& c) {
    return c.output == SegmentedOutput::run_lengths || c.output == SegmentedOutput::non_trivial_runs;
}

// bench/cuda/cub_segmented rows: (op, value type, segment length, n) -> median ms.
using PeerRows = std::map<std::tuple<std::string, std::string, uint64_t, uint64_t>, double>;
PeerRows read_peer_rows(const std::string& path) {
    PeerRows out;
    for (const std::vector<std::string>& f : read_cub_csv(path)) {
        if (f.size() < 5) continue;
        try {
            out[{f[0], f[1], std::stoull(f[2]), std::stoull(f[3])}] = std::stod(f[4]);
        } catch (const std::exception&) {
        }
    }
    return out;
}

int run(const SegmentedBenchOptions& o) {
    ContextOptions co;
    co.device = o.device;
    Context ctx(co);
    ctx.set_timing(true, 1);
    ctx.device().probe_subgroup_layout(ctx.queue(), ctx.queue_family()); // plans may take the subgroup module
    const DeviceInfo& d = ctx.info();
    PeerRows cub;
    if (!o.cub_csv.empty()) cub = read_peer_rows(o.cub_csv);
    const uint64_t max_n = uint64_t(1) << o.max_log2;
    std::printf("# vkc bench segmented: %s (%s), %s, 2^%d to 2^%d items, median of %d runs, each measurement after "
                "300 ms of its own work\n",
                d.name.c_str(), d.driver.c_str(), today().c_str(), o.min_log2, o.max_log2, o.runs);
    std::printf("# G/s: input items a second; / bound: the time a copy of the bytes read and written takes (keys or\n"
                "# flags and values in; totals and keys, or scanned values, out) over ours; CUB:\n"
                "# bench/cuda/cub_segmented on this GPU. Keys i / L (L items a segment; n/4096: 4096 segments),\n"
                "# values hash32(i) & 0xffff; segmented_reduce and _scan: offsets s x L (both take offsets);\n"
                "# segmented_scan's CUB: scan_by_key over the same segments; non_trivial_runs: every run has L >= 16 keys\n\n");
    std::string header = "| items | copy GB/s |", rule = "|---:|---:|";
    for (const Case& c : cases) {
        const std::string length = c.length ? "L=" + std::to_string(c.length) : "4096 segs";
        header += std::string(" ") + c.op + " " + std::string(name(c.value)) + " " + length + " G/s | / bound | / CUB |";
        rule += "---:|---:|---:|";
    }
    std::printf("%s\n%s\n", header.c_str(), rule.c_str());
    Buffer values = ctx.create_buffer(max_n * 4), heads = ctx.create_buffer(max_n * 4 + 4), output = ctx.create_buffer(max_n * 4),
           unique = ctx.create_buffer(max_n * 4), words = ctx.create_buffer(256),
           scratch = ctx.create_buffer(ctx.device().segmented_scratch_bytes(Type::u32, max_n));
    std::vector<uint32_t> host(max_n), host_heads(max_n + 1);
    int failures = 0;
    for (int e = o.min_log2; e <= o.max_log2; e += o.step) {
        const uint64_t n = uint64_t(1) << e;
        auto median = [&](const std::function<void()>& timed) { return median_gpu_ms(ctx, o.runs, timed); };
        WorkgroupRequest copy{Collective::copy, Type::u32, Op::add, {256}, n};
        const double copy_ms = median([&] { ctx.run(copy, values, output); });
        const double copy_bytes_per_ms = 2.0 * n * 4 / copy_ms;
        std::string row = "| 2^" + std::to_string(e) + " | " + std::to_string(int(copy_bytes_per_ms * 1e-6));
        for (const Case& c : cases) {
            const uint64_t length = c.length ? c.length : std::max<uint64_t>(1, n / 4096);
            for (uint64_t i = 0; i < n; ++i) {
                const uint32_t v = hash(uint32_t(i) + 1) & 0xffffu;
                host[i] = c.value == Type::f32 ? std::bit_cast<uint32_t>(float(v)) : v;
            }
            ctx.upload(values, host.data(), n * 4);
            const uint64_t segments = (n + length - 1) / length;
            const bool by_offsets = c.by == Segments::offsets;
            for (uint64_t i = 0; i < n; ++i) host_heads[i] = by_offsets ? uint32_t(i * length) : uint32_t(i / length);
            if (by_offsets) host_heads[segments] = uint32_t(n);
            const uint64_t head_bytes = (by_offsets ? segments + 1 : n) * 4;
            ctx.upload(heads, host_heads.data(), head_bytes);
            SegmentedOptions so;
            so.by = c.by;
            so.output = c.output;
            so.segment_count = by_offsets ? uint32_t(segments) : 0;
            SegmentedRanges r;
            r.values = {values.handle(), 0, n * 4};
            (by_offsets ? r.offsets : r.heads) = {heads.handle(), 0, head_bytes};
            r.output = {output.handle(), 0, n * 4};
            r.unique_keys = {unique.handle(), 0, n * 4};
            r.segments = {words.handle(), 0, 4};
            r.scratch = {scratch.handle(), 0, scratch.size()};
            const Type value = counts_runs(c) ? Type::u32 : c.value;
            SegmentedPlan plan = ctx.device().plan_segmented(value, Op::add, n, r, so);
            const double ms = median([&] { ctx.run(plan); });
            const bool reducing = c.output != SegmentedOutput::scan_inclusive;
            if (by_offsets) { // segment 0's total: the reduce's first value, the scan's last in the segment
                const uint64_t at = reducing ? 0 : std::min(n, length) - 1;
                uint32_t got = 0, want = 0;
                ctx.download(output, &got, 4, at * 4);
                for (uint64_t i = 0; i < std::min(n, length); ++i) want += hash(uint32_t(i) + 1) & 0xffffu;
                if (got != want) {
                    std::printf("FAIL %s n=%llu: segment 0's total %u (want %u)\n", c.op, (unsigned long long)n, got, want);
                    ++failures;
                }
            } else if (reducing) {
                uint32_t got = 0;
                ctx.download(words, &got, 4);
                if (got != segments) {
                    std::printf("FAIL %s %s n=%llu: %u segments (want %llu)\n", c.op, std::string(name(c.value)).c_str(),
                                (unsigned long long)n, got, (unsigned long long)segments);
                    ++failures;
                }
            }
            // Bytes moved: keys and values in (runs: keys only; by offsets: values and offsets), and out
            // the totals with their keys (runs: lengths with keys or offsets), or the scanned values.
            const bool has_values = !counts_runs(c);
            const bool keys_out = reducing && c.by == Segments::keys;
            const double bytes = (by_offsets ? (segments + 1) * 4.0 : n * 4.0) + (has_values ? n * 4.0 : 0.0) +
                                 (reducing ? segments * (4.0 + (keys_out ? 4.0 : 0.0)) : n * 4.0);
            const double bound = bytes / copy_bytes_per_ms / ms;
            auto it = cub.find({c.peer, std::string(c.value == Type::f32 ? "f32" : "u32"), length, n});
            std::string vs_cub = it == cub.end() || it->second <= 0 ? "-" : std::to_string(it->second / ms).substr(0, 5);
            char cell[96];
            std::snprintf(cell, sizeof cell, " | %.2f | %.3f | %s", n / ms * 1e-6, bound, vs_cub.c_str());
            row += cell;
        }
        std::printf("%s |\n", row.c_str());
        std::fflush(stdout);
    }
    std::printf("\nbench: %d checks failed\n", failures);
    return failures ? 1 : 0;
}

} // namespace

const char* bench_segmented_usage =
    "  bench segmented [options]   reduce and scan by key, run-length encoding, non-trivial runs, and segmented\n"
    "                              reduce and scan (by offsets) of u32 and f32 values by size; items a second,\n"
    "                              ratio to a copy of the bytes moved, and to CUB when given\n"
    "    --device X --min-log2 16 --max-log2 28 --step 2 --runs 15\n"
    "    --cub FILE (output of bench/cuda/cub_segmented)\n";

int bench_segmented(int argc, char** argv) {
    Arguments args(argc, argv);
    args.next(); // "segmented"
    SegmentedBenchOptions o;
    while (args.next()) {
        if (!o.take(args)) args.unknown();
    }
    o.check();
    return run(o);
}

} // namespace vkc::tool
