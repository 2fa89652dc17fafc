// vkc bench select: the device-wide select (SelectPlan on the Context's buffers) against a copy
// measured in the same run and, given bench/cuda/cub_select's output, against CUB's DeviceSelect and
// DevicePartition on the same items: a hash of the index (runs of 4 for unique), about half kept.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "bench.hpp"
#include "vkc/vkc.hpp"

namespace vkc::tool {

namespace {

// bench/cuda/cub_select's items and flags (its hash32(x) is hash(x + 1) here): 8- and 16-bit items
// are the low bytes of the 32-bit ones.
uint64_t item_at(uint64_t i, uint32_t bytes) {
    uint32_t k = uint32_t(i);
    uint64_t low = hash(k + 1);
    if (bytes == 8) return low | uint64_t(hash((k ^ 0x55555555u) + 1)) << 32;
    return bytes == 4 ? low : low & ((uint64_t(1) << 8 * bytes) - 1);
}
uint32_t flag_at(uint64_t i) { return hash((uint32_t(i) ^ 0x9e3779b9u) + 1) & 1u; }

using SelectBenchOptions = SweepOptions;

// The kinds timed, in the table's order: the column, CUB's op and type names, the item type, how the
// items are kept, and whether the column shows the fraction of the memory bound.
struct Kind {
    const char* column;
    const char* op;
    const char* cub_type;
    Type type;
    Selection by;
    bool partition;
    bool bound;
};
constexpr Kind kinds[] = {{"u32 if", "select_if", "u32", Type::u32, Selection::predicate, false, true},
                          {"flagged", "select_flagged", "u32", Type::u32, Selection::flagged, false, false},
                          {"partition", "partition_if", "u32", Type::u32, Selection::predicate, true, false},
                          {"unique", "unique", "u32", Type::u32, Selection::unique, false, false},
                          {"u64 if", "select_if", "u64", Type::u64, Selection::predicate, false, true},
                          {"u64 unique", "unique", "u64", Type::u64, Selection::unique, false, false},
                          {"u8 if", "select_if", "u8", Type::u8, Selection::predicate, false, true},
                          {"u8 unique", "unique", "u8", Type::u8, Selection::unique, false, false},
                          {"u16 if", "select_if", "u16", Type::u16, Selection::predicate, false, true}};

// Keep the items below half the type's range: about half of the hashed items.
SelectPredicate below_half(Type type) {
    switch (type) {
    case Type::u8: return SelectPredicate::less(uint8_t(0x80));
    case Type::u16: return SelectPredicate::less(uint16_t(0x8000));
    case Type::u64: return SelectPredicate::less(uint64_t(1) << 63);
    default: return SelectPredicate::less(0x80000000u);
    }
}

int run(const SelectBenchOptions& o) {
    ContextOptions co;
    co.device = o.device;
    Context ctx(co);
    ctx.set_timing(true, 1);
    ctx.device().probe_subgroup_layout(ctx.queue(), ctx.queue_family()); // plans may take the subgroup module
    const DeviceInfo& d = ctx.info();
    CubRows cub; // bench/cuda/cub_select rows: op,type,n,median_ms,gitems_per_s
    if (!o.cub_csv.empty()) cub = read_cub_rows(o.cub_csv, 3);
    const uint64_t max_n = uint64_t(1) << o.max_log2;
    std::printf("# vkc bench select: %s (%s), %s, 2^%d to 2^%d items, median of %d runs, each measurement after "
                "300 ms of its own work\n",
                d.name.c_str(), d.driver.c_str(), today().c_str(), o.min_log2, o.max_log2, o.runs);
    std::printf("# G/s: input items a second; / bound: the time a copy of the bytes read and written takes (items\n"
                "# and flags in, kept items out; partition writes them all) over the select's; CUB:\n"
                "# bench/cuda/cub_select on this GPU. if: items below half the type's range, half kept;\n"
                "# flagged: half the flags set; unique: runs of 4; u8 and u16 items: the u32 items' low bytes\n\n");
    std::string header = "| items | copy GB/s", rule = "|---:|---:";
    for (const Kind& k : kinds) {
        header += std::string(" | ") + k.column + " G/s" + (k.bound ? " | / bound" : "") + " | / CUB";
        rule += k.bound ? "|---:|---:|---:" : "|---:|---:";
    }
    std::printf("%s |\n%s|\n", header.c_str(), rule.c_str());
    Buffer input = ctx.create_buffer(max_n * 8), output = ctx.create_buffer(max_n * 8), flags = ctx.create_buffer(max_n * 4),
           words = ctx.create_buffer(256), scratch = ctx.create_buffer(ctx.device().select_scratch_bytes(Type::u64, max_n));
    std::vector<uint32_t> flag_host(max_n);
    for (uint64_t i = 0; i < max_n; ++i) flag_host[i] = flag_at(i);
    ctx.upload(flags, flag_host.data(), max_n * 4);
    std::vector<uint8_t> host(max_n * 8);
    int failures = 0;
    for (int e = o.min_log2; e <= o.max_log2; e += o.step) {
        const uint64_t n = uint64_t(1) << e;
        auto median = [&](const std::function<void()>& timed) { return median_gpu_ms(ctx, o.runs, timed); };
        WorkgroupRequest copy{Collective::copy, Type::u32, Op::add, {256}, n};
        const double copy_ms = median([&] { ctx.run(copy, input, output); });
        const double copy_bytes_per_ms = 2.0 * n * 4 / copy_ms;
        std::string row = "| 2^" + std::to_string(e) + " | " + std::to_string(int(copy_bytes_per_ms * 1e-6));
        for (const Kind& k : kinds) {
            const uint32_t bytes = size_of(k.type);
            const uint64_t half = uint64_t(1) << (8 * bytes - 1);
            const bool runs = k.by == Selection::unique;
            uint64_t want = 0;
            for (uint64_t i = 0; i < n; ++i) {
                const uint64_t x = item_at(runs ? i / 4 : i, bytes);
                std::memcpy(host.data() + i * bytes, &x, bytes); // little-endian: the low bytes
                want += k.by == Selection::flagged ? flag_host[i] != 0
                        : runs                      ? i % 4 == 0 && (i == 0 || x != item_at(i / 4 - 1, bytes))
                                                    : x < half;
            }
            ctx.upload(input, host.data(), n * bytes);
            SelectOptions so;
            so.by = k.by;
            so.partition = k.partition;
            so.predicate = below_half(k.type);
            SelectRanges r;
            r.input = {input.handle(), 0, n * bytes};
            r.output = {output.handle(), 0, n * bytes};
            r.flags = {flags.handle(), 0, n * 4};
            r.kept = {words.handle(), 0, 4};
            r.scratch = {scratch.handle(), 0, scratch.size()};
            SelectPlan plan = ctx.device().plan_select(k.type, n, r, so);
            const double ms = median([&] { ctx.run(plan); });
            const double rate = n / ms * 1e-6;
            uint32_t kept = 0;
            ctx.download(words, &kept, 4);
            if (kept != want) {
                std::printf("FAIL %s %s n=%llu: kept %u (want %llu)\n", k.op, k.cub_type, (unsigned long long)n, kept,
                            (unsigned long long)want);
                ++failures;
            }
            const double moved = n * double(bytes) + (k.by == Selection::flagged ? n * 4.0 : 0.0) +
                                 (k.partition ? n : kept) * double(bytes);
            const double bound = moved / copy_bytes_per_ms / ms;
            auto it = cub.find({k.op, k.cub_type, n});
            std::string vs_cub = it == cub.end() || it->second <= 0 ? "-" : std::to_string(it->second / ms).substr(0, 5);
            char cell[96];
            if (k.bound) {
                std::snprintf(cell, sizeof cell, " | %.2f | %.3f | %s", rate, bound, vs_cub.c_str());
            } else {
                std::snprintf(cell, sizeof cell, " | %.2f | %s", rate, vs_cub.c_str());
            }
            row += cell;
        }
        std::printf("%s |\n", row.c_str());
        std::fflush(stdout);
    }
    std::printf("\nbench: %d checks failed\n", failures);
    return failures ? 1 : 0;
}

} // namespace

const char* bench_select_usage =
    "  bench select [options]      device-wide select (by predicate, flagged, unique) and partition of u32, u64,\n"
    "                              u8 and u16 items by size; items a second, ratio to a copy of the bytes moved, and to\n"
    "                              CUB when given\n"
    "    --device X --min-log2 16 --max-log2 28 --step 2 --runs 15\n"
    "    --cub FILE (output of bench/cuda/cub_select)\n";

int bench_select(int argc, char** argv) {
    Arguments args(argc, argv);
    args.next(); // "select"
    SelectBenchOptions o;
    while (args.next()) {
        if (!o.take(args)) args.unknown();
    }
    o.check();
    return run(o);
}

} // namespace vkc::tool
