// vkc bench: throughput measured on the GPU with timestamp queries, as ratios to a compute-shader copy of
// the same bytes measured in the same run, and to CUB where its results are given (bench/cuda).
#include "bench.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "vkc/vkc.hpp"

namespace vkc::tool {
namespace {

struct Options {
    std::string device;
    int log2n = 28;
    uint32_t size = 128;
    std::vector<uint32_t> items = {1, 2, 3, 4, 6, 8, 9, 12, 16};
    std::vector<uint32_t> tiles_per_group = {1, 8};
    int runs = 30;
    std::string cub_csv;
    std::string csv;
};

std::vector<uint32_t> parse_list(const std::string& text) {
    std::vector<uint32_t> out;
    std::stringstream ss(text);
    for (std::string part; std::getline(ss, part, ',');) out.push_back(uint32_t(std::stoul(part)));
    return out;
}

// Median GPU time of `runs` timed runs after three warm-ups.
template <class Run>
double median_ms(Context& ctx, int runs, Run&& run) {
    for (int i = 0; i < 3; ++i) run();
    std::vector<double> t;
    for (int i = 0; i < runs; ++i) {
        run();
        t.push_back(ctx.last_gpu_ms());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

// CUB's results: "cub_block_scan,items,bytes,median_ms,gbps" lines of bench/cuda/cub_block_scan.
std::map<uint32_t, double> read_cub(const std::string& path) {
    std::map<uint32_t, double> gbps;
    std::ifstream in(path);
    if (!in) throw Error("cannot read CUB results from " + path);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind("cub_block_scan,", 0) != 0) continue;
        std::vector<std::string> f;
        std::stringstream ss(line);
        for (std::string part; std::getline(ss, part, ',');) f.push_back(part);
        if (f.size() >= 5) gbps[uint32_t(std::stoul(f[1]))] = std::stod(f[4]);
    }
    return gbps;
}

uint32_t hash(uint32_t x) { // non-zero-ish data: never time on zeros
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

int bench_block(const Options& o) {
    ContextOptions co;
    co.device = o.device;
    Context ctx(co);
    ctx.set_timing(true);
    const DeviceInfo& d = ctx.device();
    uint64_t n = uint64_t(1) << o.log2n;
    std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof(date), "%Y-%m-%d", std::gmtime(&now));
    std::printf("# vkc bench block: %s (%s), %s, u32 inclusive add, 2^%d items, work-group %u, median of %d\n",
                d.name.c_str(), d.driver.c_str(), date, o.log2n, o.size, o.runs);

    std::printf("# subgroups packed in order at work-group %u: %s\n", o.size,
                ctx.subgroups_packed({o.size}) ? "yes" : "no (the raking scan runs)");
    std::vector<uint32_t> data(n);
    for (uint64_t i = 0; i < n; ++i) data[i] = hash(uint32_t(i)) & 0xffffu;
    Buffer in = ctx.create_buffer(n * 4), out = ctx.create_buffer(n * 4);
    ctx.upload(in, data.data(), n * 4);

    WorkgroupRequest copy{Collective::copy, Type::u32, Op::add, {256}, n};
    double copy_ms = median_ms(ctx, o.runs, [&] { ctx.run(copy, in, out); });
    double copy_gbps = 8.0 * n / copy_ms * 1e-6;

    std::map<uint32_t, double> cub;
    if (!o.cub_csv.empty()) cub = read_cub(o.cub_csv);
    std::FILE* csv = o.csv.empty() ? nullptr : std::fopen(o.csv.c_str(), "w");
    if (csv) std::fprintf(csv, "kind,items,tiles_per_group,bytes,median_ms,gbps,ratio_copy,ratio_cub\n");
    if (csv) std::fprintf(csv, "copy,0,0,%llu,%.5f,%.1f,1,\n", (unsigned long long)(8 * n), copy_ms, copy_gbps);

    std::printf("\n| items | tiles/group | ms | GB/s | / copy (%.0f GB/s) | CUB GB/s | / CUB |\n", copy_gbps);
    std::printf("|---:|---:|---:|---:|---:|---:|---:|\n");
    int failures = 0;
    for (uint32_t k : o.items) {
        uint64_t tile = uint64_t(o.size) * k;
        for (uint32_t tpg : o.tiles_per_group) {
            uint64_t span = tile * tpg;
            uint64_t count = n / span * span; // whole tiles only; the rest is not counted
            BlockRequest r{Collective::block_scan_inclusive, Type::u32, Op::add, {o.size}, k, tpg, count};
            double ms = median_ms(ctx, o.runs, [&] { ctx.run(r, in, out); });
            double gbps = 8.0 * count / ms * 1e-6;
            // Check the first and the last tile against the CPU.
            for (uint64_t first : {uint64_t(0), count - tile}) {
                std::vector<uint32_t> got(tile);
                ctx.download(out, got.data(), tile * 4, first * 4);
                uint32_t sum = 0;
                for (uint64_t i = 0; i < tile; ++i) {
                    sum += data[first + i];
                    if (got[i] != sum) {
                        std::printf("FAIL items %u: tile at %llu, item %llu: expected %u, got %u\n", k,
                                    (unsigned long long)first, (unsigned long long)i, sum, got[i]);
                        ++failures;
                        break;
                    }
                }
            }
            auto c = cub.find(k);
            std::string cub_text = c == cub.end() ? "-" : std::to_string(int(c->second + 0.5));
            std::string ratio = c == cub.end() ? "-" : std::to_string(gbps / c->second).substr(0, 4);
            std::printf("| %u | %u | %.4f | %.0f | %.3f | %s | %s |\n", k, tpg, ms, gbps, gbps / copy_gbps,
                        cub_text.c_str(), ratio.c_str());
            if (csv) {
                std::fprintf(csv, "block_scan,%u,%u,%llu,%.5f,%.1f,%.4f,%s\n", k, tpg,
                             (unsigned long long)(8 * count), ms, gbps, gbps / copy_gbps,
                             c == cub.end() ? "" : std::to_string(gbps / c->second).c_str());
            }
        }
    }
    if (csv) std::fclose(csv);
    std::printf("\nbench: %d checks failed\n", failures);
    return failures ? 1 : 0;
}

} // namespace

const char* bench_usage =
    "  bench block [options]       each work-group scans its own tiles of a u32 buffer (CUB BlockScan's\n"
    "                              job); GB/s, ratio to a compute-shader copy, and to CUB when given\n"
    "    --device X --log2n 28 --size 128 --items 1,2,3,4,6,8,9,12,16 --tiles-per-group 1,8 --runs 30\n"
    "    --cub FILE (output of bench/cuda/cub_block_scan)  --csv FILE\n";

int bench(int argc, char** argv) {
    if (argc < 1 || std::strcmp(argv[0], "block") != 0) {
        std::fprintf(stderr, "usage:\n%s", bench_usage);
        return 2;
    }
    Options o;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) throw Error("option " + a + " needs a value");
            return argv[++i];
        };
        if (a == "--device") o.device = value();
        else if (a == "--log2n") o.log2n = std::stoi(value());
        else if (a == "--size") o.size = uint32_t(std::stoul(value()));
        else if (a == "--items") o.items = parse_list(value());
        else if (a == "--tiles-per-group") o.tiles_per_group = parse_list(value());
        else if (a == "--runs") o.runs = std::stoi(value());
        else if (a == "--cub") o.cub_csv = value();
        else if (a == "--csv") o.csv = value();
        else throw Error("unknown option " + a);
    }
    if (o.log2n < 10 || o.log2n > 31) throw Error("--log2n must be 10 to 31");
    return bench_block(o);
}

} // namespace vkc::tool
