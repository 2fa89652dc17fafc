// vkc bench: throughput measured on the GPU with timestamp queries, as ratios to a compute-shader copy of
// the same bytes measured in the same run, and to CUB where its results are given (bench/cuda).
#include "bench.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>
#include <type_traits>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "arguments.hpp"
#include "vkc/vkc.hpp"

namespace vkc::tool {

bool SweepOptions::take(Arguments& args) {
    if (args.is("--device")) device = args.text();
    else if (args.is("--min-log2")) min_log2 = args.number(10, largest_log2);
    else if (args.is("--max-log2")) max_log2 = args.number(10, largest_log2);
    else if (args.is("--step")) step = args.number(1, 20);
    else if (args.is("--runs")) runs = args.number(1, 1000);
    else if (args.is("--cub")) cub_csv = args.text();
    else return false;
    return true;
}

void SweepOptions::check() const {
    if (min_log2 > max_log2) throw UsageError("--min-log2 is past --max-log2");
}

uint32_t hash(uint32_t x) { // non-zero-ish data: never time on zeros
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

namespace {
// Warm-up runs of `timed` (at least three, and at least `warm_up`), then the median GPU time of `runs`.
double warm_median_ms(Context& ctx, int runs, std::chrono::milliseconds warm_up, const std::function<void()>& timed) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < 3 || std::chrono::steady_clock::now() - start < warm_up; ++i) timed();
    std::vector<double> t;
    for (int i = 0; i < runs; ++i) {
        timed();
        t.push_back(ctx.last_gpu_ms());
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}
} // namespace

double median_gpu_ms(Context& ctx, int runs, const std::function<void()>& timed) {
    // Two medians, the lower kept: after the host has prepared and uploaded a large input, a whole
    // median sometimes comes out 1.4 to 3.6 x slow, every run of it alike, and the same plan on the
    // same buffers runs at full speed measured again right after (results/README.md, select).
    const double first = warm_median_ms(ctx, runs, std::chrono::milliseconds(300), timed);
    const double second = warm_median_ms(ctx, runs, std::chrono::milliseconds(0), timed);
    if (std::max(first, second) > 1.1 * std::min(first, second)) {
        std::fprintf(stderr, "# medians %.5f and %.5f ms of one measurement: the lower kept\n", first, second);
    }
    return std::min(first, second);
}

std::string today() { // for the results' headers
    std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof(date), "%Y-%m-%d", std::gmtime(&now));
    return date;
}

std::vector<std::vector<std::string>> read_cub_csv(const std::string& path) {
    std::vector<std::vector<std::string>> rows;
    std::ifstream in(path);
    if (!in) throw Error("cannot read CUB results from " + path);
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        std::vector<std::string> f;
        std::stringstream ss(line);
        for (std::string part; std::getline(ss, part, ',');) f.push_back(part);
        if (!f.empty() && f[0] != "op") rows.push_back(std::move(f));
    }
    return rows;
}

CubRows read_cub_rows(const std::string& path, size_t column) {
    CubRows out;
    for (const std::vector<std::string>& f : read_cub_csv(path)) {
        if (f.size() <= column) continue;
        try {
            out[{f[0], f[1], std::stoull(f[2])}] = std::stod(f[column]);
        } catch (const std::exception&) {
        }
    }
    return out;
}

namespace {

struct Options {
    std::string device;
    int log2n = 28;
    uint32_t size = 128;
    std::vector<uint32_t> items = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    std::vector<uint32_t> tiles_per_group = {1, 8};
    int runs = 30;
    uint32_t repeats = 5; // back-to-back repetitions a timed run (Context::set_timing)
    std::string cub_csv;
    std::string csv;
};

// Median GPU time of `runs` timed runs after warm-ups: at least three, and at least 200 ms of them, so
// that the GPU has left its idle clocks (an H200 idles at 405 MHz, where a copy runs at 40 % of its
// speed, and takes a few hundred milliseconds of work to clock up again after the host has kept it idle).
double median_ms(Context& ctx, int runs, const std::function<void()>& run) {
    return warm_median_ms(ctx, runs, std::chrono::milliseconds(200), run);
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
        try {
            if (f.size() >= 5) gbps[uint32_t(std::stoul(f[1]))] = std::stod(f[4]);
        } catch (const std::exception&) {
            throw Error("CUB results " + path + ": not items and GB/s in the line '" + line + "'");
        }
    }
    return gbps;
}

ContextOptions timed_context(const std::string& device) {
    ContextOptions co;
    co.device = device;
    return co;
}


int bench_block(const Options& o) {
    Context ctx(timed_context(o.device));
    ctx.set_timing(true, o.repeats);
    const DeviceInfo& d = ctx.info();
    uint64_t n = uint64_t(1) << o.log2n;
    const std::string date = today();
    std::printf("# vkc bench block: %s (%s), %s, u32 inclusive add, 2^%d items, work-group %u, median of %d runs"
                " (each the median of %u back-to-back repetitions)\n",
                d.name.c_str(), d.driver.c_str(), date.c_str(), o.log2n, o.size, o.runs, o.repeats);

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
            // Check the first work-group's tiles (tiles loaded together take other code than the first)
            // and the last tile against the CPU. With the whole output downloaded and checked after
            // every shape (about a second of GPU idle), the H100's timings came out erratic: shapes
            // that measure 0.9 to 1.0 of a copy measured 0.28 to 1.0 (results/README.md).
            std::vector<uint64_t> firsts;
            for (uint64_t t = 0; t < tpg && t * tile < count; ++t) firsts.push_back(t * tile);
            firsts.push_back(count - tile);
            for (uint64_t first : firsts) {
                std::vector<uint32_t> got(tile);
                ctx.download(out, got.data(), tile * 4, first * 4);
                uint32_t sum = 0;
                for (uint64_t i = 0; i < tile; ++i) {
                    sum += data[first + i];
                    if (got[i] != sum) {
                        std::printf("FAIL items %u, %u tiles a group: tile at %llu, item %llu: expected %u, got %u\n",
                                    k, tpg, (unsigned long long)first, (unsigned long long)i, sum, got[i]);
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


// ---- vkc bench scan: device-wide scan and reduce ----------------------------------------------------

struct ScanBenchOptions {
    std::string device;
    std::vector<std::string> types = {"u32", "u64", "f32", "f64"};
    Op op = Op::add;
    int min_log2 = 10, max_log2 = 30, step = 2;
    int runs = 20;
    uint32_t repeats = 5; // back-to-back repetitions a timed run (Context::set_timing)
    uint32_t size = 0, items = 0; // tile override (0: the device's)
    int staged = -1;
    int prefetch = -1;
    uint32_t chunks = 0, spin = 0, chunk_tiles = 0;
    bool indirect = false; // also plans whose count is read on the device (IndirectCount)
    std::string cub_csv, csv, svg;
};

// bench/cuda/cub_device rows: op,type,n,bytes,median_ms,gbps,...
CubRows read_cub_device(const std::string& path) { return read_cub_rows(path, 5); }

// Data that is never all zeros, with sums that stay exact in floats (k / 65536, as the CUB peer).
template <class T>
T bench_value(uint64_t i) {
    uint32_t h = hash(uint32_t(i) ^ uint32_t(i >> 32));
    if constexpr (std::is_floating_point_v<T>) return T(h & 0xffffu) * T(1.0 / 65536.0);
    else if constexpr (sizeof(T) == 8) return T(uint64_t(h) * 0x9e3779b97f4a7c15ull);
    else return T(h);
}

struct Series {
    std::string name;
    std::vector<std::pair<int, double>> points; // log2 n, GB/s
};

// A plain SVG line chart: throughput against log2 of the item count.
void write_svg(const std::string& path, const std::string& title, const std::vector<Series>& series) {
    std::ofstream f(path);
    if (!f) throw Error("cannot write " + path);
    const double W = 900, H = 560, L = 70, R = 230, T = 40, B = 50;
    double ymax = 1;
    int xmin = 99, xmax = 0;
    for (auto& s : series) {
        for (auto& [x, y] : s.points) {
            ymax = std::max(ymax, y);
            xmin = std::min(xmin, x);
            xmax = std::max(xmax, x);
        }
    }
    ymax = std::ceil(ymax / 500) * 500;
    if (xmax <= xmin) xmax = xmin + 1;
    auto px = [&](double x) { return L + (x - xmin) / (xmax - xmin) * (W - L - R); };
    auto py = [&](double y) { return H - B - y / ymax * (H - T - B); };
    const char* colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
                             "#7f7f7f", "#bcbd22", "#17becf", "#000000", "#aec7e8"};
    f << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H
      << "\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    f << "<text x=\"" << L << "\" y=\"22\" font-size=\"14\">" << title << "</text>\n";
    for (int i = 0; i <= 5; ++i) {
        double y = ymax * i / 5;
        f << "<line x1=\"" << L << "\" x2=\"" << W - R << "\" y1=\"" << py(y) << "\" y2=\"" << py(y)
          << "\" stroke=\"#ddd\"/><text x=\"" << L - 8 << "\" y=\"" << py(y) + 4 << "\" text-anchor=\"end\">" << int(y)
          << "</text>\n";
    }
    for (int x = xmin; x <= xmax; x += 2) {
        f << "<text x=\"" << px(x) << "\" y=\"" << H - B + 18 << "\" text-anchor=\"middle\">2^" << x << "</text>\n";
    }
    f << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 10 << "\" text-anchor=\"middle\">items</text>\n";
    f << "<text x=\"16\" y=\"" << (T + H - B) / 2 << "\" transform=\"rotate(-90 16 " << (T + H - B) / 2
      << ")\" text-anchor=\"middle\">GB/s (bytes read + written)</text>\n";
    for (size_t i = 0; i < series.size(); ++i) {
        const char* c = colours[i % 12];
        bool dashed = series[i].name.find("CUB") != std::string::npos || series[i].name.find("copy") != std::string::npos;
        f << "<polyline fill=\"none\" stroke=\"" << c << "\" stroke-width=\"2\"" << (dashed ? " stroke-dasharray=\"5,4\"" : "")
          << " points=\"";
        for (auto& [x, y] : series[i].points) f << px(x) << "," << py(y) << " ";
        f << "\"/>\n<text x=\"" << W - R + 10 << "\" y=\"" << T + 16 * i + 10 << "\" fill=\"" << c << "\">"
          << series[i].name << "</text>\n";
    }
    f << "</svg>\n";
}

template <class T>
int bench_scan_type(Context& ctx, const ScanBenchOptions& o, const std::string& tname, Type type, std::FILE* csv,
                    const CubRows& cub,
                    std::vector<Series>& series) {
    const uint64_t max_n = uint64_t(1) << o.max_log2;
    const uint64_t bytes_max = max_n * sizeof(T);
    std::vector<T> data(max_n);
    for (uint64_t i = 0; i < max_n; ++i) data[i] = bench_value<T>(i);
    Buffer in = ctx.create_buffer(bytes_max), out = ctx.create_buffer(bytes_max), result = ctx.create_buffer(16);
    ctx.upload(in, data.data(), bytes_max);
    // Inclusive sums of the data, once: every size is a prefix of it.
    std::vector<double> prefix(max_n);
    std::vector<T> exact(max_n);
    double fsum = 0;
    T isum = T(0);
    for (uint64_t i = 0; i < max_n; ++i) {
        fsum += double(data[i]);
        if (o.op == Op::add) isum = T(isum + data[i]);
        else if (i == 0) isum = data[0];
        else isum = o.op == Op::min ? std::min(isum, data[i]) : std::max(isum, data[i]);
        prefix[i] = fsum;
        exact[i] = isum;
    }
    // min and max are exact in every type; float sums within a relative error.
    const bool approximate = std::is_floating_point_v<T> && o.op == Op::add;
    // Item i of an inclusive result (a reduce's: i = n - 1).
    auto matches = [&](T got, uint64_t i) {
        return approximate ? std::fabs(double(got) - prefix[i]) <= 1e-3 * std::max(1.0, prefix[i]) : got == exact[i];
    };
    ScanOptions so;
    so.tuning.workgroup_size = o.size;
    so.tuning.items_per_invocation = o.items;
    so.tuning.staged = o.staged;
    so.tuning.look_back_prefetch = o.prefetch;
    so.tuning.chunks = o.chunks;
    so.tuning.spin_limit = o.spin;
    so.tuning.look_back_chunk_tiles = o.chunk_tiles;
    ScanTile tile = ctx.device().scan_tile(type, so), large_tile = ctx.device().scan_tile(type, so, 1ull << o.max_log2);
    auto t0 = std::chrono::steady_clock::now();
    ctx.scan(in, out, type, o.op, 1024, so); // creates the pipeline
    double first_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    {
        // Every pipeline of the sweep made now, then three seconds of copies: pipelines the driver
        // has just created can run several times slower for seconds (docs/decisions.md, "Pipelines
        // run slowly for seconds after the driver creates them"), and the host kept the GPU idle
        // while it made the data.
        ScanOptions excl = so, repro = so;
        excl.exclusive = true;
        repro.reproducible = true;
        for (int e = o.min_log2; e <= o.max_log2; e += o.step) {
            for (const ScanOptions* opt : {&so, &excl, &repro}) ctx.scan(in, out, type, o.op, uint64_t(1) << e, *opt);
            ctx.reduce(in, result, type, o.op, uint64_t(1) << e, so);
        }
        WorkgroupRequest copy{Collective::copy, Type::u32, Op::add, {256}, std::min<uint64_t>(bytes_max, 1ull << 31) / 4};
        WorkgroupRequest read{Collective::read, Type::u32, Op::add, {256}, std::min<uint64_t>(bytes_max, 1ull << 31) / 4};
        ctx.run(read, in, out);
        auto start = std::chrono::steady_clock::now();
        while (std::chrono::steady_clock::now() - start < std::chrono::seconds(3)) ctx.run(copy, in, out);
    }
    std::string wide;
    if (large_tile.workgroup_size != tile.workgroup_size || large_tile.items_per_invocation != tile.items_per_invocation ||
        large_tile.staged != tile.staged || large_tile.look_back_chunk_tiles > 1) {
        // The shape changes with the count (Context::scan_tile): name the one of the largest scan too.
        wide = "; look-back scans of 2^" + std::to_string(o.max_log2) + ": " +
               std::to_string(large_tile.workgroup_size) + " x " + std::to_string(large_tile.items_per_invocation) +
               (large_tile.staged ? " staged" : "");
        if (large_tile.look_back_chunk_tiles > 1) {
            bool held = large_tile.staged && large_tile.look_back_chunk_tiles <= look_back_register_chunk_tiles;
            wide += ", chunks of " + std::to_string(large_tile.look_back_chunk_tiles) + " tiles " +
                    (held ? "held in registers" : "read twice");
        }
    }
    std::printf("\n## %s (tile %u x %u items%s%s; first call, pipeline creation included: %.0f ms)\n\n",
                tname.c_str(), tile.workgroup_size, tile.items_per_invocation, tile.staged ? ", staged" : "",
                wide.c_str(), first_ms);
    std::printf("| items | copy GB/s | inclusive GB/s | / copy | CUB incl. | / CUB | exclusive / copy | reproducible "
                "/ copy | read GB/s | reduce GB/s | / read | CUB reduce | / CUB |%s\n",
                o.indirect ? " indirect incl. / copy | indirect reduce / read |" : "");
    std::printf("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|%s\n", o.indirect ? "---:|---:|" : "");
    Series s_incl{tname + " inclusive sum", {}}, s_cub{tname + " CUB inclusive", {}}, s_red{tname + " reduce", {}},
        s_cub_red{tname + " CUB reduce", {}}, s_copy{tname + " copy", {}};
    int failures = 0;
    for (int e = o.min_log2; e <= o.max_log2; e += o.step) {
        uint64_t n = uint64_t(1) << e;
        uint64_t bytes = n * sizeof(T);
        // The ceilings run in one binding: past 2 GiB (maxStorageBufferRange is 4 GiB - 1 on NVIDIA) they
        // are measured on the first 2 GiB, where bandwidth has long been flat.
        uint64_t ceiling_bytes = std::min<uint64_t>(bytes, 1ull << 31);
        WorkgroupRequest copy{Collective::copy, Type::u32, Op::add, {256}, ceiling_bytes / 4};
        WorkgroupRequest read{Collective::read, Type::u32, Op::add, {256}, ceiling_bytes / 4};
        double copy_ms = median_ms(ctx, o.runs, [&] { ctx.run(copy, in, out); });
        double read_ms = median_ms(ctx, o.runs, [&] { ctx.run(read, in, out); });
        auto timed_scan = [&](ScanOptions opt) {
            return median_ms(ctx, o.runs, [&] { ctx.scan(in, out, type, o.op, n, opt); });
        };
        ScanOptions excl = so, repro = so;
        excl.exclusive = true;
        repro.reproducible = true;
        double repro_ms = timed_scan(repro);
        double excl_ms = timed_scan(excl);
        double incl_ms = timed_scan(so); // last: its output is checked below
        // Check the inclusive output at the ends and at spread positions.
        std::vector<uint64_t> at = {0, n - 1, n / 2, n / 3};
        for (int k = 0; k < 60; ++k) at.push_back(hash(uint32_t(k * 7919 + e)) % n);
        for (uint64_t i : at) {
            T got;
            ctx.download(out, &got, sizeof(T), i * sizeof(T));
            if (!matches(got, i)) {
                std::printf("FAIL %s inclusive n=%llu item %llu: got %.17g want %.17g\n", tname.c_str(),
                            (unsigned long long)n, (unsigned long long)i, double(got),
                            approximate ? prefix[i] : double(exact[i]));
                ++failures;
                break;
            }
        }
        double reduce_ms = median_ms(ctx, o.runs, [&] { ctx.reduce(in, result, type, o.op, n, so); });
        T total;
        ctx.download(result, &total, sizeof(T));
        if (!matches(total, n - 1)) {
            std::printf("FAIL %s reduce n=%llu: got %.17g\n", tname.c_str(), (unsigned long long)n, double(total));
            ++failures;
        }
        // The same inclusive scan and reduce as plans that read the count (n) from a buffer, on a
        // scratch kept zeroed as the Context keeps its own.
        double indirect_incl_ms = 0, indirect_reduce_ms = 0;
        if (o.indirect && n < (uint64_t(1) << 32)) {
            uint32_t n32 = uint32_t(n);
            Buffer count = ctx.create_buffer(16);
            ctx.upload(count, &n32, 4);
            ScanOptions kept = so;
            kept.scratch_zeroed = true;
            uint64_t scratch_bytes = std::max(ctx.device().scan_scratch_bytes(type, n, kept), ctx.device().reduce_scratch_bytes(type, n, kept));
            Buffer scratch = ctx.create_buffer(scratch_bytes);
            std::vector<uint8_t> zeros(scratch_bytes);
            ctx.upload(scratch, zeros.data(), scratch_bytes);
            IndirectCount indirect{count.handle(), 0, n};
            BufferRange scratch_range{scratch.handle(), 0, scratch_bytes};
            ScanPlan scan_plan = ctx.device().plan_scan(type, o.op, indirect, {in.handle(), 0, bytes}, {out.handle(), 0, bytes},
                                               scratch_range, kept);
            ScanPlan reduce_plan = ctx.device().plan_reduce(type, o.op, indirect, {in.handle(), 0, bytes},
                                                   {result.handle(), 0, sizeof(T)}, scratch_range, kept);
            indirect_incl_ms = median_ms(ctx, o.runs, [&] { ctx.run(scan_plan); });
            indirect_reduce_ms = median_ms(ctx, o.runs, [&] { ctx.run(reduce_plan); });
            T last, indirect_total;
            ctx.download(out, &last, sizeof(T), (n - 1) * sizeof(T));
            ctx.download(result, &indirect_total, sizeof(T));
            for (T got : {last, indirect_total}) {
                if (!matches(got, n - 1)) {
                    std::printf("FAIL %s indirect n=%llu: got %.17g\n", tname.c_str(), (unsigned long long)n, double(got));
                    ++failures;
                }
            }
        }
        double gb = 1e-6; // bytes per ms -> GB/s
        double copy_g = 2.0 * ceiling_bytes / copy_ms * gb, read_g = 1.0 * ceiling_bytes / read_ms * gb;
        double incl_g = 2.0 * bytes / incl_ms * gb, excl_g = 2.0 * bytes / excl_ms * gb;
        double repro_g = 2.0 * bytes / repro_ms * gb, red_g = 1.0 * bytes / reduce_ms * gb;
        auto cub_of = [&](const char* op) {
            auto it = cub.find({op, tname, n});
            return it == cub.end() ? 0.0 : it->second;
        };
        // CUB's figures are sums: no peer for min and max.
        double cub_incl = o.op == Op::add ? cub_of("inclusive_sum") : 0, cub_red = o.op == Op::add ? cub_of("reduce_sum") : 0;
        auto ratio = [](double a, double b) { return b > 0 ? std::to_string(a / b).substr(0, 5) : std::string("-"); };
        auto num = [](double v) { return v > 0 ? std::to_string(int(v + 0.5)) : std::string("-"); };
        std::printf("| 2^%d | %.0f | %.0f | %.3f | %s | %s | %.3f | %.3f | %.0f | %.0f | %.3f | %s | %s |", e, copy_g,
                    incl_g, incl_g / copy_g, num(cub_incl).c_str(), ratio(incl_g, cub_incl).c_str(), excl_g / copy_g,
                    repro_g / copy_g, read_g, red_g, red_g / read_g, num(cub_red).c_str(), ratio(red_g, cub_red).c_str());
        if (o.indirect) {
            double ind_incl_g = indirect_incl_ms > 0 ? 2.0 * bytes / indirect_incl_ms * gb : 0;
            double ind_red_g = indirect_reduce_ms > 0 ? 1.0 * bytes / indirect_reduce_ms * gb : 0;
            std::printf(" %s | %s |", ind_incl_g > 0 ? ratio(ind_incl_g, copy_g).c_str() : "-",
                        ind_red_g > 0 ? ratio(ind_red_g, read_g).c_str() : "-");
        }
        std::printf("\n");
        std::fflush(stdout);
        if (csv) {
            auto row = [&](const char* op, double ms, double g, double ceiling, double peer) {
                std::fprintf(csv, "%s,%s,%llu,%.6f,%.1f,%.4f,%s\n", op, tname.c_str(), (unsigned long long)n, ms, g,
                             g / ceiling, peer > 0 ? std::to_string(g / peer).c_str() : "");
            };
            row("copy", copy_ms, copy_g, copy_g, 0);
            row("read", read_ms, read_g, read_g, 0);
            row("inclusive_sum", incl_ms, incl_g, copy_g, cub_incl);
            row("exclusive_sum", excl_ms, excl_g, copy_g, cub_of("exclusive_sum"));
            row("inclusive_sum_reproducible", repro_ms, repro_g, copy_g, 0);
            row("reduce_sum", reduce_ms, red_g, read_g, cub_red);
        }
        s_incl.points.push_back({e, incl_g});
        s_red.points.push_back({e, red_g});
        s_copy.points.push_back({e, copy_g});
        if (cub_incl > 0) s_cub.points.push_back({e, cub_incl});
        if (cub_red > 0) s_cub_red.points.push_back({e, cub_red});
    }
    for (Series* s : {&s_incl, &s_cub, &s_red, &s_cub_red, &s_copy}) {
        if (!s->points.empty()) series.push_back(*s);
    }
    return failures;
}

int bench_scan(const ScanBenchOptions& o) {
    Context ctx(timed_context(o.device));
    ctx.set_timing(true, o.repeats);
    const DeviceInfo& d = ctx.info();
    const std::string date = today();
    std::printf("# vkc bench scan: %s (%s), %s, %s, 2^%d to 2^%d items, median of %d runs (each the median of %u"
                " back-to-back repetitions)\n",
                d.name.c_str(), d.driver.c_str(), date.c_str(), std::string(name(o.op)).c_str(), o.min_log2, o.max_log2, o.runs, o.repeats);
    std::printf("# GB/s count bytes read + written (scans: 2 x items x size; reduce and read: items x size);\n"
                "# copy and read are compute-shader uvec4 passes over the same bytes, measured in the same run\n");
    CubRows cub;
    if (!o.cub_csv.empty()) cub = read_cub_device(o.cub_csv);
    std::FILE* csv = o.csv.empty() ? nullptr : std::fopen(o.csv.c_str(), "w");
    if (csv) std::fprintf(csv, "op,type,n,median_ms,gbps,ratio_ceiling,ratio_cub\n");
    std::vector<Series> series;
    int failures = 0;
    for (const std::string& t : o.types) {
        if (t == "u32") failures += bench_scan_type<uint32_t>(ctx, o, t, Type::u32, csv, cub, series);
        else if (t == "u64") failures += bench_scan_type<uint64_t>(ctx, o, t, Type::u64, csv, cub, series);
        else if (t == "f32") failures += bench_scan_type<float>(ctx, o, t, Type::f32, csv, cub, series);
        else if (t == "f64") failures += bench_scan_type<double>(ctx, o, t, Type::f64, csv, cub, series);
        else if (t == "i32") failures += bench_scan_type<int32_t>(ctx, o, t, Type::i32, csv, cub, series);
        else if (t == "i64") failures += bench_scan_type<int64_t>(ctx, o, t, Type::i64, csv, cub, series);
        else throw Error("bench scan: unknown type " + t + " (u32, u64, f32, f64, i32, i64)");
    }
    if (csv) std::fclose(csv);
    if (!o.svg.empty()) write_svg(o.svg, "vkc bench scan: " + d.name + ", " + date, series);
    std::printf("\nbench: %d checks failed\n", failures);
    return failures ? 1 : 0;
}

} // namespace

const char* bench_usage =
    "  bench block [options]       each work-group scans its own tiles of a u32 buffer (CUB BlockScan's\n"
    "                              job); GB/s, ratio to a compute-shader copy, and to CUB when given\n"
    "    --device X --log2n 28 --size 128 --items 1,2,...,16 --tiles-per-group 1,8 --runs 30\n"
    "    --repeats 5 (back-to-back repetitions in each timed run, their median its time)\n"
    "    --cub FILE (output of bench/cuda/cub_block_scan)  --csv FILE\n"
    "  bench scan [options]        device-wide inclusive/exclusive/reproducible scan and reduce (add) by size;\n"
    "                              GB/s, ratios to a copy and a read of the same bytes, and to CUB when given\n"
    "    --device X --types u32,u64,f32,f64 --op add|min|max --min-log2 10 --max-log2 30 --step 2 --runs 20\n"
    "    --repeats 5\n"
    "    --size N --items K --staged 0|1 (tile) --chunks N (reduce) --spin N (look-back polls)\n"
    "    --chunk-tiles N (tiles a look-back work-group takes)  --prefetch 0|1 (while looking back)\n"
    "    --indirect (also plans that read the count from a buffer: IndirectCount)\n"
    "    --cub FILE (output of bench/cuda/cub_device)  --csv FILE  --svg FILE\n"
    "  bench first-call [--device X] [--engine] [--prepare THREADS]  a new process's wait for its first\n"
    "                              scan: Context creation, the first u32 scan of 2^20 items and then the first\n"
    "                              sort of 2^20 u32 keys (pipelines included), through the Context's pipeline\n"
    "                              cache file (VKC_PIPELINE_CACHE=none: cold every time);\n"
    "                              --engine: on a device the process made itself; --prepare: first every scan\n"
    "                              and reduce pipeline of u32 u64 f32 f64 x add min max up to 2^28 items made\n"
    "                              by Device::prepare_scans on THREADS threads, and its time\n";

int bench(int argc, char** argv) {
    Arguments args(argc, argv);
    // block, scan, sort, select, histogram, segmented or first-call
    const std::string_view what = args.next() ? args.option() : "";
    if (what == "first-call") {
        std::string device;
        bool engine = false;
        int prepare_threads = -1;
        while (args.next()) {
            if (args.is("--device")) device = args.text();
            else if (args.is("--engine")) engine = true;
            else if (args.is("--prepare")) prepare_threads = args.number<int>(1, 64);
            else args.unknown();
        }
        return bench_first_call(device, engine, prepare_threads);
    }
    if (what == "sort") return bench_sort(argc, argv);
    if (what == "select") return bench_select(argc, argv);
    if (what == "histogram") return bench_histogram(argc, argv);
    if (what == "segmented") return bench_segmented(argc, argv);
    if (what == "scan") {
        ScanBenchOptions o;
        while (args.next()) {
            if (args.is("--device")) o.device = args.text();
            else if (args.is("--types")) {
                o.types.clear();
                std::stringstream ss(args.text());
                for (std::string t; std::getline(ss, t, ',');) o.types.push_back(t);
            } else if (args.is("--op")) {
                if (!parse(args.text(), o.op) || (o.op != Op::add && o.op != Op::min && o.op != Op::max)) {
                    throw UsageError("--op takes add, min or max");
                }
            } else if (args.is("--min-log2")) o.min_log2 = args.number(10, 32);
            else if (args.is("--max-log2")) o.max_log2 = args.number(10, 32);
            else if (args.is("--step")) o.step = args.number(1, 22);
            else if (args.is("--runs")) o.runs = args.number(1, 1000000);
            else if (args.is("--repeats")) o.repeats = args.number<uint32_t>(1, 1000);
            else if (args.is("--size")) o.size = args.number<uint32_t>();
            else if (args.is("--items")) o.items = args.number<uint32_t>();
            else if (args.is("--staged")) o.staged = args.number(0, 1);
            else if (args.is("--prefetch")) o.prefetch = args.number(0, 1);
            else if (args.is("--chunks")) o.chunks = args.number<uint32_t>();
            else if (args.is("--spin")) o.spin = args.number<uint32_t>();
            else if (args.is("--chunk-tiles")) o.chunk_tiles = args.number<uint32_t>();
            else if (args.is("--indirect")) o.indirect = true;
            else if (args.is("--cub")) o.cub_csv = args.text();
            else if (args.is("--csv")) o.csv = args.text();
            else if (args.is("--svg")) o.svg = args.text();
            else args.unknown();
        }
        if (o.min_log2 > o.max_log2) throw UsageError("--min-log2 is past --max-log2");
        return bench_scan(o);
    }
    if (what != "block") throw UsageError("the bench is block, scan, sort, select, histogram, segmented or first-call");
    Options o;
    while (args.next()) {
        if (args.is("--device")) o.device = args.text();
        else if (args.is("--log2n")) o.log2n = args.number(10, 31);
        else if (args.is("--size")) o.size = args.number<uint32_t>();
        else if (args.is("--items")) o.items = args.numbers(1, 1024);
        else if (args.is("--tiles-per-group")) o.tiles_per_group = args.numbers(1, 1u << 16);
        else if (args.is("--runs")) o.runs = args.number(1, 1000000);
        else if (args.is("--repeats")) o.repeats = args.number<uint32_t>(1, 1000);
        else if (args.is("--cub")) o.cub_csv = args.text();
        else if (args.is("--csv")) o.csv = args.text();
        else args.unknown();
    }
    return bench_block(o);
}

} // namespace vkc::tool
