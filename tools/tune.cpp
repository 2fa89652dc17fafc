// vkc tune: measures the device-wide scan's and reduce's shapes on this device and writes a section
// of a tuning file (include/vkc/tuning.hpp, docs/tuning.md) with what ran fastest. Each decision
// compares candidates of one field (or two that make one shape) with the others at the library's
// values, and a candidate replaces the library's value only when it runs at least 2 % faster, so
// that noise does not move a field. The searched fields are the ones whose best value differed
// between the GPUs measured (docs/decisions.md, "Tuning that follows the device").
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "arguments.hpp"
#include "bench.hpp"
#include "vkc/vkc.hpp"

namespace vkc::tool {

const char* tune_usage =
    "  tune [options]              measure the scan's and reduce's shapes on this device and write a\n"
    "                              tuning section (docs/tuning.md) for VKC_TUNING_FILE or vkc::set_tuning\n"
    "    --device X                device index or part of its name\n"
    "    --max-log2 K              the largest size measured, 2^K items (default 26; 12 to 28)\n"
    "    --runs N                  timed runs a candidate, the median taken (default 15)\n"
    "    --out FILE                write the section there (default: standard output)\n"
    "    --show                    measure nothing: print every field's value in effect on the device\n"
    "                              (the library's, scaled to it, with VKC_TUNING_FILE applied)\n";

namespace {

struct TuneOptions {
    std::string device, out;
    int max_log2 = 26;
    int runs = 15;
    bool show = false;
};

// The device a Context with this --device would open, without opening one.
DeviceInfo list_device(const std::string& device) {
    ContextOptions co;
    co.device = device;
    Context ctx(co);
    return ctx.info();
}

// The fields of the row in effect (tuning_section's lines), by name.
std::map<std::string, uint64_t> row_of(const DeviceInfo& info) {
    std::map<std::string, uint64_t> row;
    std::istringstream lines(tuning_section(info));
    for (std::string line; std::getline(lines, line);) {
        std::istringstream words(line);
        std::string key;
        uint64_t value;
        if (words >> key >> value) row[key] = value;
    }
    return row;
}

class Tuner {
public:
    Tuner(Context& ctx, const TuneOptions& o) : ctx_(ctx), o_(o), max_n_(uint64_t(1) << o.max_log2) {
        // Every 32-bit word 1.0f: as u32, f32, u64 or f64, ordinary numbers (no NaN, no denormal).
        uint64_t bytes = max_n_ * 8;
        std::vector<uint32_t> words(bytes / 4, 0x3f800000u);
        in_ = ctx.create_buffer(bytes);
        out_ = ctx.create_buffer(bytes);
        result_ = ctx.create_buffer(16);
        ctx.upload(in_, words.data(), bytes);
    }

    // Median GPU time of a scan (reduce false) or reduce of n items with these overrides; in a dry
    // pass, one run and 0.
    double ms(Type type, uint64_t n, const ScanTuningOverrides& tuning, bool reduce) {
        ScanOptions so;
        so.tuning = tuning;
        auto once = [&] {
            if (reduce) ctx_.reduce(in_, result_, type, Op::add, n, so);
            else ctx_.scan(in_, out_, type, Op::add, n, so);
        };
        if (dry) {
            once();
            return 0;
        }
        return median_gpu_ms(ctx_, o_.runs, once);
    }

    // Copies for `seconds`: the GPU stays busy while the driver finishes its pipelines.
    void settle(double seconds) {
        WorkgroupRequest copy{Collective::copy, Type::u32, Op::add, {256}, max_n_ * 2};
        auto start = std::chrono::steady_clock::now();
        while (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
            ctx_.run(copy, in_, out_);
        }
    }

    bool dry = false;

    // The candidate of least total time; the first (the library's value) unless another is 2 % faster.
    template <class Candidate>
    size_t best(const std::vector<Candidate>& candidates, const std::vector<double>& totals) {
        size_t pick = 0;
        for (size_t i = 1; i < candidates.size(); ++i) {
            if (totals[i] < totals[pick] && totals[i] < 0.98 * totals[0]) pick = i;
        }
        return pick;
    }

    uint64_t max_n() const { return max_n_; }

private:
    Context& ctx_;
    const TuneOptions& o_;
    uint64_t max_n_;
    Buffer in_, out_, result_;
};

// The values in order, each once: the library's value first, then the other candidates.
std::vector<uint32_t> distinct(std::initializer_list<uint32_t> values) {
    std::vector<uint32_t> out;
    for (uint32_t v : values) {
        if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
    }
    return out;
}

std::string ms_list(const std::vector<double>& v) {
    std::string s;
    char b[32];
    for (double x : v) {
        std::snprintf(b, sizeof(b), "%s%.4f", s.empty() ? "" : " ", x);
        s += b;
    }
    return s;
}

int run(const TuneOptions& o) {
    if (o.show) {
        std::fputs(tuning_section(list_device(o.device)).c_str(), stdout);
        return 0;
    }
    set_tuning(""); // measure against the library's own rows, whatever VKC_TUNING_FILE says
    ContextOptions co;
    co.device = o.device;
    Context ctx(co);
    ctx.set_timing(true, 3);
    ctx.device().probe_subgroup_layout(ctx.queue(), ctx.queue_family()); // the subgroup modules, as plans take them
    const DeviceInfo& info = ctx.info();
    std::map<std::string, uint64_t> row = row_of(info);
    Tuner t(ctx, o);
    const uint64_t n = t.max_n();
    std::ostringstream header;
    header << "# vkc tune, " << today() << ": " << info.name << " (" << info.driver << "), multiprocessors "
         << (info.compute_units ? std::to_string(info.compute_units) : std::string("not reported")) << ", sizes up to 2^"
         << o.max_log2 << ", median GPU ms of " << o.runs << " runs each\n";
    header << "device " << info.name << "\ndriver " << info.driver << "\n";
    auto progress = [&](const char* what) {
        if (!t.dry) std::fprintf(stderr, "vkc tune: %s\n", what);
    };
    auto invocations = uint32_t(row["invocations"]);

    // The search runs twice: a dry pass creates every candidate's pipelines, then, after a few
    // seconds, the measured pass. Pipelines the driver has just created can run several times slower
    // for a while (an f32 scan measured 0.54 ms, and 0.16 ms seconds later on the same pipeline:
    // docs/decisions.md, "Pipelines run slowly for seconds after the driver creates them").
    auto search = [&] {
        std::ostringstream text;
        // 1. Integer reduces: bytes an invocation holds (u32 and u64 summed; 0: the row's item_bytes).
        progress("integer reduce tiles");
        {
            std::vector<uint32_t> bytes = distinct({uint32_t(row["integer_reduce_item_bytes"]), 64, 128});
            std::vector<double> totals;
            for (uint32_t b : bytes) {
                double sum = 0;
                for (Type type : {Type::u32, Type::u64}) {
                    ScanTuningOverrides s;
                    if (b) {
                        s.workgroup_size = invocations;
                        s.items_per_invocation = std::max<uint32_t>(1, b / uint32_t(size_of(type)));
                    }
                    sum += t.ms(type, n / (size_of(type) / 4), s, true);
                }
                totals.push_back(sum);
            }
            size_t pick = t.best(bytes, totals);
            text << "integer_reduce_item_bytes " << bytes[pick] << "  # u32 + u64 reduce ms at bytes";
            for (uint32_t b : bytes) text << " " << b;
            text << ": " << ms_list(totals) << "\n";
        }

        // 2. Work-groups of reduce (u32 and f32 summed; each a contiguous share of the tiles).
        progress("reduce work-groups");
        {
            uint32_t cap = uint32_t(row["reduce_chunk_cap"]);
            std::vector<uint32_t> caps = distinct({cap, std::max(8u, cap / 2), std::min(65535u, cap * 2)});
            std::vector<double> totals;
            for (uint32_t c : caps) {
                ScanTuningOverrides s;
                s.chunks = c;
                totals.push_back(t.ms(Type::u32, n, s, true) + t.ms(Type::f32, n, s, true));
            }
            size_t pick = t.best(caps, totals);
            text << "reduce_chunk_cap " << caps[pick] << "  # u32 + f32 reduce ms at caps";
            for (uint32_t c : caps) text << " " << c;
            text << ": " << ms_list(totals) << "\n";
        }

        // 3. Wide tiles of 32-bit look-back scans: the integer shape, then f32's invocations with its
        //    items, then the count from which they beat the ordinary tile at every size measured.
        if (row["wide_tile_min_items"] && row["wide_tile_items"]) {
            progress("wide tiles");
            struct Shape {
                uint32_t invocations, items;
            };
            std::vector<Shape> shapes = {{uint32_t(row["wide_tile_integer_invocations"]), uint32_t(row["wide_tile_items"])},
                                         {256, 32}, {224, 32}, {128, 32}, {256, 16}, {512, 16}};
            std::vector<double> times;
            for (Shape sh : shapes) {
                ScanTuningOverrides s;
                s.workgroup_size = sh.invocations;
                s.items_per_invocation = sh.items;
                times.push_back(t.ms(Type::u32, n, s, false));
            }
            Shape wide = shapes[t.best(shapes, times)];
            text << "wide_tile_items " << wide.items << "\nwide_tile_integer_invocations " << wide.invocations
                 << "  # u32 scan ms at (invocations x items)";
            for (Shape sh : shapes) text << " " << sh.invocations << "x" << sh.items;
            text << ": " << ms_list(times) << "\n";

            std::vector<uint32_t> float_sizes = distinct({uint32_t(row["wide_tile_float_invocations"]), 128, 224, 256, 512});
            std::vector<double> float_times;
            for (uint32_t size : float_sizes) {
                ScanTuningOverrides s;
                s.workgroup_size = size;
                s.items_per_invocation = wide.items;
                float_times.push_back(t.ms(Type::f32, n, s, false));
            }
            text << "wide_tile_float_invocations " << float_sizes[t.best(float_sizes, float_times)]
                 << "  # f32 scan ms at invocations";
            for (uint32_t size : float_sizes) text << " " << size;
            text << " (x " << wide.items << "): " << ms_list(float_times) << "\n";

            ScanTuningOverrides plain, wide_shape;
            plain.workgroup_size = invocations;
            plain.items_per_invocation = std::max<uint32_t>(1, uint32_t(row["items"] ? row["items"] : row["item_bytes"] / 4));
            wide_shape.workgroup_size = wide.invocations;
            wide_shape.items_per_invocation = wide.items;
            uint64_t from = 0;
            std::string figures;
            for (int e = o.max_log2; e >= std::max(10, o.max_log2 - 8); e -= 2) {
                double a = t.ms(Type::u32, uint64_t(1) << e, plain, false), b = t.ms(Type::u32, uint64_t(1) << e, wide_shape, false);
                figures += " 2^" + std::to_string(e) + " " + ms_list({a, b});
                if (b > a) break;
                from = uint64_t(1) << e;
            }
            if (!from) from = n * 2; // the wide tile lost at the largest size: past what was measured
            text << "wide_tile_min_items " << from << "  # u32 scan ms, ordinary tile then wide:" << figures << "\n";
        }

        // 4. Chunks of 64-bit look-back scans: tiles a chunk, then the count from which chunks beat
        //    single tiles at every size measured.
        if (row["chunked_min_items"]) {
            progress("64-bit chunks");
            std::vector<uint32_t> tiles = distinct({uint32_t(row["chunk_tiles"]), 2, 4, 8});
            // u64 alone: f64's chunks take their own narrower work-groups (f64_chunk_invocations), which
            // a chunk override would not.
            std::vector<double> totals;
            for (uint32_t k : tiles) {
                ScanTuningOverrides s;
                s.look_back_chunk_tiles = k;
                totals.push_back(t.ms(Type::u64, n / 2, s, false));
            }
            uint32_t chunk = tiles[t.best(tiles, totals)];
            text << "chunk_tiles " << chunk << "  # u64 scan ms at tiles a chunk";
            for (uint32_t k : tiles) text << " " << k;
            text << ": " << ms_list(totals) << "\n";

            ScanTuningOverrides single, chunked;
            single.look_back_chunk_tiles = 1;
            chunked.look_back_chunk_tiles = chunk;
            uint64_t from = 0;
            std::string figures;
            for (int e = o.max_log2 - 1; e >= std::max(10, o.max_log2 - 11); e -= 2) {
                double a = t.ms(Type::u64, uint64_t(1) << e, single, false), b = t.ms(Type::u64, uint64_t(1) << e, chunked, false);
                figures += " 2^" + std::to_string(e) + " " + ms_list({a, b});
                if (b > a) break;
                from = uint64_t(1) << e;
            }
            if (!from) from = n; // chunks lost at the largest size: past what was measured
            text << "chunked_min_items " << from << "  # u64 scan ms, single tiles then chunks:" << figures << "\n";
        }

        return text.str();
    };
    t.dry = true;
    search();
    t.dry = false;
    progress("letting the driver finish its pipelines");
    t.settle(3.0);
    std::string section = header.str() + search();

    // The section must read back as the library reads it.
    set_tuning(section);
    if (o.out.empty()) {
        std::fputs(section.c_str(), stdout);
    } else {
        std::ofstream f(o.out, std::ios::binary);
        f << section;
        if (!f.flush()) throw Error("vkc tune: cannot write " + o.out);
        std::fprintf(stderr, "vkc tune: wrote %s\n", o.out.c_str());
    }
    return 0;
}

} // namespace

int tune(int argc, char** argv) {
    TuneOptions o;
    Arguments args(argc, argv);
    while (args.next()) {
        if (args.is("--device")) o.device = args.text();
        else if (args.is("--max-log2")) o.max_log2 = args.number<int>(12, 28);
        else if (args.is("--runs")) o.runs = args.number<int>(1, 1000);
        else if (args.is("--out")) o.out = args.text();
        else if (args.is("--show")) o.show = true;
        else args.unknown();
    }
    return run(o);
}

} // namespace vkc::tool
