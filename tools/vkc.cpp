// vkc: the command-line tool. `vkc devices` lists devices; `vkc selftest` runs every collective on
// one device against the CPU reference and exits non-zero on any failure.
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <span>
#include <string>
#include <vector>

#include <vulkan/vulkan_core.h>

#include "arguments.hpp"
#include "bench.hpp"
#include "verify/histogram.hpp"
#include "verify/segmented.hpp"
#include "verify/select.hpp"
#include "verify/sort.hpp"
#include "verify/verify.hpp"
#include "vkc/vkc.hpp"

namespace {

const char* usage =
    "usage: vkc <command> [options]\n"
    "  devices                     list Vulkan devices with their subgroup sizes and features\n"
    "  tune [options]              measure the scan's shapes on a device: a tuning file (vkc --help)\n"
    "  selftest [options]          run every collective x type x op at several work-group shapes on one\n"
    "                              device against the CPU reference; exit 1 on any failure\n"
    "    --device X                device index or part of its name (default: $VKC_DEVICE, else the\n"
    "                              first discrete GPU, else any device)\n"
    "    --quick                   fewer work-group shapes and block configurations\n"
    "    --shared-memory-only      test the shared-memory path, as on a device without subgroup arithmetic\n"
    "    --validation              enable the Khronos validation layer; any message fails the case\n"
    "    --only TEXT               only the rows whose name contains TEXT (\"scan_inclusive add\")\n"
    "    --jobs N                  rows run on N Contexts (N threads) at once, so that the driver creates\n"
    "                              their pipelines in parallel (default: the CPU's threads, at most 16)\n"
    "  modules [--json]            list the embedded SPIR-V modules and what each needs (--json: the\n"
    "                              manifest.json installed beside the .spv files)\n"
    "  check --type T --op OP --count N [--reduce] [--exclusive] [--in-place] [--device X]\n"
    "                              one device-wide scan or reduce of N items against the CPU reference\n";
// The bench in two lines; vkc --help prints its options instead (bench_usage).
const char* bench_summary =
    "  bench block|scan|sort|select|histogram|segmented|first-call [options]  throughput against a\n"
    "                              copy and CUB, and a new process's first scan (vkc --help for their options)\n";

int devices() {
    for (const vkc::DeviceInfo& d : vkc::list_devices()) {
        std::printf("%u: %s (%s, Vulkan %u.%u, %s)\n", d.index, d.name.c_str(), d.type_name().c_str(),
                    VK_API_VERSION_MAJOR(d.api_version), VK_API_VERSION_MINOR(d.api_version), d.driver.c_str());
        std::printf("   subgroup size %u (range %u..%u); work-group up to %u invocations; shared memory %u bytes\n",
                    d.subgroup_size, d.min_subgroup_size, d.max_subgroup_size, d.max_workgroup_invocations,
                    d.max_shared_memory);
        if (d.compute_units) std::printf("   multiprocessors: %u\n", d.compute_units);
        else std::printf("   multiprocessors: not reported\n");
        std::printf("   features: %s\n", vkc::feature_names(d.features).c_str());
        if (d.float_controls_known) {
            std::printf("   float controls: denormals preservable (half, float, double) %s %s %s; flushable %s %s %s\n",
                        d.denorm_preserve[0] ? "yes" : "no", d.denorm_preserve[1] ? "yes" : "no",
                        d.denorm_preserve[2] ? "yes" : "no", d.denorm_flush[0] ? "yes" : "no",
                        d.denorm_flush[1] ? "yes" : "no", d.denorm_flush[2] ? "yes" : "no");
        } else {
            std::printf("   float controls: not reported\n");
        }
        std::printf("   lacks:    %s\n", vkc::feature_names(vkc::all_features & ~d.features).c_str());
    }
    return 0;
}

int list_modules(bool json) {
    if (json) {
        std::fwrite(vkc::modules_manifest_json().data(), 1, vkc::modules_manifest_json().size(), stdout);
        return 0;
    }
    std::printf("%-40s %-9s %-8s %s\n", "module", "path", "bytes", "needs");
    for (const vkc::ModuleInfo& m : vkc::modules()) {
        std::printf("%-40s %-9s %-8zu %s\n", m.name, std::string(vkc::name(m.path)).c_str(), m.code_bytes,
                    vkc::feature_names(m.required).c_str());
    }
    return 0;
}

struct Tally {
    int pass = 0, fail = 0, skip = 0;
    std::vector<std::string> notes; // failures and skip reasons
};

int selftest(int argc, char** argv) {
    vkc::ContextOptions options;
    bool quick = false;
    std::string only;
    uint32_t jobs = std::clamp(std::thread::hardware_concurrency(), 1u, 16u);
    vkc::tool::Arguments args(argc, argv);
    while (args.next()) {
        if (args.is("--device")) options.device = args.text();
        else if (args.is("--only")) only = args.text();
        else if (args.is("--jobs")) jobs = args.number<uint32_t>(1, 64);
        else if (args.is("--quick")) quick = true;
        else if (args.is("--shared-memory-only")) options.shared_memory_only = true;
        else if (args.is("--validation")) options.validation = true;
        else args.unknown();
    }
    vkc::Context ctx(options);
    const vkc::DeviceInfo& d = ctx.info();
    std::printf("device %u: %s (%s), subgroup size %u, %s\n", d.index, d.name.c_str(), d.driver.c_str(),
                d.subgroup_size, ctx.validation_enabled() ? "validation on" : "validation off");

    // Rows of the table: every collective x type x op. OpenCL C's types and ops run at every standard
    // shape; the later ones (8/16-bit integers, mul, bitwise, logical, custom ops) at fewer; block
    // scans at a few tile shapes, rotating prefix modes, with both algorithms.
    using vkc::Collective;
    using Prefix = vkc::verify::Case::Prefix;
    std::vector<vkc::WorkgroupShape> shapes = vkc::verify::standard_shapes(d);
    std::vector<vkc::WorkgroupShape> few = {{7}, {33}, {256}, {1024}, {3, 5, 7}};
    if (quick) {
        shapes = {{1}, {7}, {32}, {33}, {100}, {256}, {1024}, {3, 5, 7}, {8, 8, 8}};
        few = {{33}, {3, 5, 7}};
    }
    const std::span<const vkc::Type> types = vkc::all_types(); // include/vkc/types.def
    const std::span<const vkc::Op> ops = vkc::all_ops();
    auto opencl = [](vkc::Type t, vkc::Op op) { return vkc::is_opencl(t) && vkc::is_opencl(op); };
    struct Row {
        vkc::verify::Case base;
        std::vector<vkc::verify::Case> cases;
        std::vector<vkc::verify::DeviceCase> device_cases; // device-wide rows (base.collective device_scan)
        std::vector<vkc::verify::SortCase> sort_cases;     // sort rows (base.collective radix_sort)
        std::vector<vkc::verify::SelectCase> select_cases; // select rows (base.collective select)
        std::vector<vkc::verify::HistogramCase> histogram_cases; // histogram rows (base.collective histogram)
        std::vector<vkc::verify::SegmentedCase> segmented_cases; // segmented rows (base.collective segmented)
        std::string label() const {
            if (base.collective == Collective::segmented) {
                return std::string("device segmented ") + std::string(vkc::name(base.type)) + " " +
                       std::string(vkc::name(base.op)) + " -";
            }
            if (base.collective == Collective::histogram) {
                const vkc::verify::HistogramCase& h = histogram_cases.front();
                return std::string("device histogram ") + std::string(vkc::name(h.sample)) +
                       (h.options.binning == vkc::Binning::even ? " even" : " range") + " -";
            }
            if (base.collective == Collective::select) {
                const vkc::verify::SelectCase& s = select_cases.front();
                const char* by = s.options.by == vkc::Selection::flagged     ? "flagged"
                                 : s.options.by == vkc::Selection::predicate ? "by predicate"
                                                                             : "unique";
                return std::string("device ") + (s.options.partition ? "partition " : "select ") +
                       std::string(vkc::name(s.item)) + " " + by + " -";
            }
            if (base.collective == Collective::radix_sort) {
                const vkc::verify::SortCase& s = sort_cases.front();
                return std::string("device sort ") + std::string(vkc::name(s.key)) +
                       (s.value_bytes ? " pairs, " + std::to_string(s.value_bytes) + "-byte values" : " keys") +
                       (s.options.descending ? " descending" : "") + " -";
            }
            if (base.collective != Collective::device_scan) return base.label();
            const vkc::verify::DeviceCase& d = device_cases.front();
            return std::string("device ") + (d.reduce ? "reduce" : d.options.exclusive ? "scan_exclusive" : "scan_inclusive") +
                   " " + std::string(vkc::name(d.op)) + " " + std::string(vkc::name(d.type)) + " -";
        }
    };
    std::vector<Row> rows;
    for (Collective c : {Collective::reduce, Collective::scan_inclusive, Collective::scan_exclusive}) {
        for (vkc::Type t : types) {
            for (vkc::Op op : ops) {
                if (!vkc::has_op(t, op)) continue;
                Row row{{c, t, op}, {}};
                for (const auto& shape : opencl(t, op) ? shapes : few) {
                    row.cases.push_back({c, t, op, shape});
                }
                rows.push_back(row);
            }
        }
    }
    for (vkc::Type t : types) {
        if (!vkc::is_float(t) && !vkc::is_integer(t)) continue; // broadcast: scalar types
        Row row{{Collective::broadcast, t}, {}};
        for (const auto& shape : vkc::is_opencl(t) ? shapes : few)
            row.cases.push_back({Collective::broadcast, t, vkc::Op::add, shape});
        rows.push_back(row);
    }
    for (Collective c : {Collective::all, Collective::any}) {
        Row row{{c}, {}};
        for (const auto& shape : shapes) row.cases.push_back({c, vkc::Type::u32, vkc::Op::add, shape});
        rows.push_back(row);
    }
    for (Collective c : {Collective::block_reduce, Collective::block_scan_inclusive, Collective::block_scan_exclusive}) {
        for (vkc::Type t : types) {
            for (vkc::Op op : ops) {
                if (!vkc::has_op(t, op)) continue;
                Row row{{c, t, op}, {}};
                int k = 0;
                for (vkc::WorkgroupShape shape : {vkc::WorkgroupShape{128}, vkc::WorkgroupShape{65, 2, 1}}) {
                    for (uint32_t items : {1u, 4u, 9u}) {
                        for (vkc::Path algorithm : {vkc::Path::subgroup, vkc::Path::shared_memory}) {
                            if (quick && k % 3) {
                                ++k;
                                continue;
                            }
                            vkc::verify::Case b{c, t, op, shape};
                            b.groups = 4;
                            b.items_per_invocation = items;
                            b.path = algorithm;
                            b.prefix = c == Collective::block_reduce ? Prefix::none : Prefix(k % 4);
                            row.cases.push_back(b);
                            ++k;
                        }
                    }
                }
                rows.push_back(row);
            }
        }
    }

    // Device-wide scan and reduce: each type x op x inclusive/exclusive/reduce at sizes 0, 1, a tile +- 1
    // and many tiles, with the forced look-back fallback, in place and the reproducible mode in rotation,
    // and a recorded plan with its count on the device.
    for (int kind = 0; kind < 3; ++kind) {
        for (vkc::Type t : types) {
            for (vkc::Op op : ops) {
                if (!vkc::has_op(t, op)) continue;
                Row row{{Collective::device_scan, t, op}, {}, {}};
                uint64_t tile = ctx.device().scan_tile(t).items();
                int k = 0;
                for (uint64_t n : {uint64_t(0), uint64_t(1), tile - 1, tile + 1, 37 * tile + 5, 1000 * tile + 3}) {
                    if (quick && n > 100 * tile) continue;
                    vkc::verify::DeviceCase c;
                    c.type = t;
                    c.op = op;
                    c.count = n;
                    c.reduce = kind == 2;
                    c.options.exclusive = kind == 1;
                    c.options.test.force_fallback = k % 3 == 1;
                    c.options.reproducible = k % 3 == 2;
                    c.in_place = k % 2 == 1;
                    c.seed = uint64_t(k) + 1;
                    row.device_cases.push_back(c);
                    ++k;
                }
                // Float min and max over denormals, signed zeros and infinities: bits must survive.
                if (vkc::is_float(t) && (op == vkc::Op::min || op == vkc::Op::max)) {
                    vkc::verify::DeviceCase c = row.device_cases.back();
                    c.count = 37 * tile + 5;
                    c.denormals = true;
                    c.options.test.force_fallback = false;
                    c.options.reproducible = false;
                    row.device_cases.push_back(c);
                }
                // A plan recorded into a command buffer of our own that reads its count on the
                // device (IndirectCount), made for a larger bound.
                {
                    vkc::verify::DeviceCase c = row.device_cases[4]; // 37 tiles
                    c.api = vkc::verify::DeviceCase::Api::recorded;
                    c.indirect_max = 40 * tile + 1;
                    c.seed = uint64_t(k) + 1;
                    row.device_cases.push_back(c);
                }
                rows.push_back(row);
            }
        }
    }

    // Device-wide sort: keys of each type ascending and descending, and pairs of each value size (and
    // of 64-bit keys), at counts 0, 1, a tile +- 1, many tiles and (not quick) a thousand; a forced
    // fallback, a bit range and few distinct keys in rotation; many tiles look back in portions of 16
    // tiles (the path of sorts past 2^30 keys).
    {
        const uint64_t tile = vkc::sort_tile_keys;
        auto sort_row = [&](vkc::Type key, uint32_t value_bytes, bool descending) {
            Row row{{Collective::radix_sort, vkc::Type::u32, vkc::Op::add}, {}, {}, {}};
            int k = 0;
            for (uint64_t n : {uint64_t(0), uint64_t(1), tile - 1, tile + 1, 37 * tile + 5, 1000 * tile + 3}) {
                if (quick && n > 100 * tile) continue;
                vkc::verify::SortCase c;
                c.key = key;
                c.value_bytes = value_bytes;
                c.count = n;
                c.options.descending = descending;
                c.options.test.force_fallback = k % 3 == 1;
                c.options.test.portion_tiles = n > 16 * tile ? 16 : 0;
                const size_t key_size = vkc::size_of(key); // a 64-bit key's range has a digit across the words
                if (k % 3 == 2) {
                    c.options.begin_bit = key_size == 8 ? 28 : key_size == 4 ? 4 : 2;
                    c.options.end_bit = key_size == 8 ? 52 : key_size == 4 ? 28 : uint32_t(8 * key_size) - 1;
                }
                const bool is_float = vkc::is_float(key);
                c.pattern = k % 2 ? vkc::verify::SortPattern::few
                                  : is_float ? vkc::verify::SortPattern::floats_special : vkc::verify::SortPattern::random;
                c.seed = uint64_t(k) + 1;
                row.sort_cases.push_back(c);
                ++k;
            }
            rows.push_back(row);
        };
        for (vkc::Type key : {vkc::Type::u8, vkc::Type::i8, vkc::Type::u16, vkc::Type::i16, vkc::Type::f16,
                              vkc::Type::u32, vkc::Type::i32, vkc::Type::f32, vkc::Type::u64, vkc::Type::i64,
                              vkc::Type::f64}) {
            for (bool descending : {false, true}) sort_row(key, 0, descending);
        }
        for (uint32_t value_bytes : {1u, 2u, 4u, 8u, 16u}) sort_row(vkc::Type::u32, value_bytes, false);
        sort_row(vkc::Type::u64, 8, false);
        sort_row(vkc::Type::u16, 1, false);
    }

    // Device-wide select: each item type flagged, by a predicate, unique, and partitioned by a
    // predicate, at counts 0, 1, a tile +- 1, many tiles and (not quick) a thousand; a forced
    // fallback in rotation.
    {
        const uint64_t tile = vkc::select_tile_items;
        auto select_row = [&](vkc::Type item, vkc::Selection by, bool partition) {
            Row row{{Collective::select, vkc::select_module_type(item), vkc::Op::add}, {}, {}, {}, {}};
            int k = 0;
            for (uint64_t n : {uint64_t(0), uint64_t(1), tile - 1, tile + 1, 37 * tile + 5, 1000 * tile + 3}) {
                if (quick && n > 100 * tile) continue;
                vkc::verify::SelectCase c;
                c.item = item;
                c.count = n;
                c.options.by = by;
                c.options.partition = partition;
                c.options.test.force_fallback = k % 3 == 1;
                // Integers below 0 (about half the random ones; unsigned: below their top bit); floats
                // below 1.5, among the specials.
                const bool is_float = vkc::is_float(item);
                const uint64_t top_bit = 1ull << (8 * vkc::size_of(item) - 1);
                const bool is_signed = vkc::is_signed_integer(item);
                c.options.predicate.kind = vkc::SelectPredicate::Kind::less;
                c.options.predicate.type = item;
                c.options.predicate.a = item == vkc::Type::f16   ? vkc::half(1.5f).bits
                                        : item == vkc::Type::f32 ? std::bit_cast<uint32_t>(1.5f)
                                        : item == vkc::Type::f64 ? std::bit_cast<uint64_t>(1.5)
                                        : is_signed               ? 0
                                                                 : top_bit;
                c.pattern = by == vkc::Selection::unique ? vkc::verify::SelectPattern::runs
                            : is_float                  ? vkc::verify::SelectPattern::floats_special
                                                        : vkc::verify::SelectPattern::random;
                c.flags = k % 2 ? vkc::verify::FlagPattern::alternating : vkc::verify::FlagPattern::random;
                c.seed = uint64_t(k) + 1;
                row.select_cases.push_back(c);
                ++k;
            }
            rows.push_back(row);
        };
        for (vkc::Type item : {vkc::Type::u32, vkc::Type::i32, vkc::Type::f32, vkc::Type::u64, vkc::Type::i64,
                               vkc::Type::f64, vkc::Type::u8, vkc::Type::f16}) {
            select_row(item, vkc::Selection::flagged, false);
            select_row(item, vkc::Selection::predicate, false);
            select_row(item, vkc::Selection::unique, false);
            select_row(item, vkc::Selection::predicate, true);
        }
        // The other 8- and 16-bit types share those two modules: their order by a predicate.
        for (vkc::Type item : {vkc::Type::i8, vkc::Type::u16, vkc::Type::i16}) select_row(item, vkc::Selection::predicate, false);
    }

    // Device-wide histograms: each sample type with even and range bins, at counts 0, 1, a tile +- 1,
    // many tiles and (not quick) a thousand; channels, device atomics and edge samples in rotation.
    {
        auto histogram_row = [&](vkc::Type sample, vkc::Binning binning) {
            Row row{{Collective::histogram, vkc::Type::u32, vkc::Op::add}, {}, {}, {}, {}, {}};
            const uint64_t tile = 4096 * (4 / vkc::size_of(sample)); // samples a work-group's tile holds
            const bool is_float = vkc::is_float(sample);
            const bool is_signed = vkc::is_signed_integer(sample);
            const double top = std::ldexp(1.0, int(vkc::size_of(sample)) * 8 - (is_signed ? 1 : 0));
            int k = 0;
            for (uint64_t n : {uint64_t(0), uint64_t(1), tile - 1, tile + 1, 37 * tile + 5, 1000 * tile + 3}) {
                if (quick && n > 100 * tile) continue;
                vkc::verify::HistogramCase c;
                c.sample = sample;
                c.pixels = n;
                c.options.binning = binning;
                c.options.channels = uint32_t(k % 4) + 1;
                c.options.active_channels = std::max(1, k % 4);
                for (uint32_t ch = 0; ch < 4; ++ch) {
                    c.options.channel[ch] = {binning == vkc::Binning::even ? 250 + ch : 100 + ch,
                                             is_float ? -2.0 : is_signed ? -top : 0.0, is_float ? 2.0 : top};
                }
                c.options.test.force_device_atomics = k % 3 == 2;
                c.pattern = k % 2 ? vkc::verify::SamplePattern::edges : vkc::verify::SamplePattern::in_bins;
                c.seed = uint64_t(k) + 1;
                row.histogram_cases.push_back(c);
                ++k;
            }
            rows.push_back(row);
        };
        for (vkc::Type sample : {vkc::Type::u8, vkc::Type::i8, vkc::Type::u16, vkc::Type::i16, vkc::Type::u32,
                                 vkc::Type::i32, vkc::Type::f16, vkc::Type::f32}) {
            histogram_row(sample, vkc::Binning::even);
            histogram_row(sample, vkc::Binning::range);
        }
    }

    // Segmented scans and reductions: each value type with add, min and max, at counts 0, 1, a tile +- 1,
    // many tiles and (not quick) a thousand; the outputs (run lengths and non-trivial runs on uint add),
    // head flags, offsets or keys of every type, segment sizes and forced fallbacks in rotation.
    {
        const uint64_t tile = vkc::segmented_tile_items;
        const vkc::Type key_types[] = {vkc::Type::u32, vkc::Type::i32, vkc::Type::f32,
                                       vkc::Type::u64, vkc::Type::i64, vkc::Type::f64};
        const vkc::Type value_types[] = {vkc::Type::u8,  vkc::Type::i8,  vkc::Type::u16, vkc::Type::i16,
                                         vkc::Type::f16, vkc::Type::u32, vkc::Type::i32, vkc::Type::f32,
                                         vkc::Type::u64, vkc::Type::i64, vkc::Type::f64};
        using vkc::SegmentedOutput;
        const SegmentedOutput outputs[] = {SegmentedOutput::reduce, SegmentedOutput::scan_inclusive,
                                           SegmentedOutput::scan_exclusive};
        const vkc::verify::SegmentPattern patterns[] = {
            vkc::verify::SegmentPattern::random, vkc::verify::SegmentPattern::short_runs,
            vkc::verify::SegmentPattern::huge_among_tiny, vkc::verify::SegmentPattern::every_item};
        for (vkc::Type value : value_types) {
            for (vkc::Op op : {vkc::Op::add, vkc::Op::min, vkc::Op::max}) {
                Row row{{Collective::segmented, value, op}, {}, {}, {}, {}, {}, {}};
                int k = 0;
                for (uint64_t n : {uint64_t(0), uint64_t(1), tile - 1, tile + 1, 37 * tile + 5, 1000 * tile + 3}) {
                    if (quick && n > 100 * tile) continue;
                    vkc::verify::SegmentedCase c;
                    c.value = value;
                    c.op = op;
                    c.count = n;
                    const bool counts = value == vkc::Type::u32 && op == vkc::Op::add; // runs: uint add
                    const bool runs = counts && (k == 3 || k == 4);
                    c.options.output = !runs ? outputs[k % 3]
                                       : k == 3 ? SegmentedOutput::run_lengths
                                                : SegmentedOutput::non_trivial_runs;
                    c.options.by = runs || (k % 3 != 1 && k % 2 == 0) ? vkc::Segments::keys
                                   : k % 3 == 1                       ? vkc::Segments::offsets
                                                                      : vkc::Segments::head_flags;
                    c.options.key = key_types[(k + int(op)) % 6];
                    c.options.test.force_fallback = k % 3 == 1;
                    c.pattern = patterns[k % 4];
                    c.special = k % 2 == 1;
                    c.seed = uint64_t(k) + 1;
                    row.segmented_cases.push_back(c);
                    ++k;
                }
                rows.push_back(row);
            }
        }
    }

    // A build made with VKC_TYPES / VKC_OPS / VKC_KERNELS lacks some modules: their rows are left out.
    size_t all_rows = rows.size();
    std::erase_if(rows, [](const Row& row) {
        const vkc::verify::Case& b = row.base;
        bool vote = b.collective == Collective::all || b.collective == Collective::any;
        for (const vkc::ModuleInfo& m : vkc::modules()) {
            if (m.collective == b.collective && (vote || (m.type == b.type && m.op == b.op))) return false;
        }
        return true;
    });
    if (rows.size() < all_rows) {
        std::printf("%zu of %zu rows left out: this build has no module for them\n", all_rows - rows.size(), all_rows);
    }
    if (!only.empty()) {
        std::erase_if(rows, [&](const Row& row) { return row.label().find(only) == std::string::npos; });
        if (rows.empty()) throw vkc::Error("--only \"" + only + "\" matches no collective");
    }
    // Rows run on `jobs` Contexts at once, each row on one Context (a Context is used by one thread
    // at a time); the table is printed in row order as rows finish. Most of a cold selftest is the
    // driver creating pipelines, which several threads do in parallel.
    struct RowResult {
        Tally tally;
        std::string module;
        bool done = false;
        double seconds = 0; // the row's wall time on its Context, driver and host work together
    };
    std::vector<RowResult> results(rows.size());
    auto run_row = [&](vkc::Context& on, size_t r) {
        Tally row;
        std::string module;
        std::vector<std::pair<std::string, std::function<vkc::verify::Outcome()>>> runs;
        vkc::Context* c_ctx = &on;
        for (const vkc::verify::Case& c : rows[r].cases) {
            runs.emplace_back(c.label(), [c_ctx, c] { return vkc::verify::run_case(*c_ctx, c); });
        }
        for (const vkc::verify::DeviceCase& c : rows[r].device_cases) {
            runs.emplace_back(c.label(), [c_ctx, c] { return vkc::verify::run_device_case(*c_ctx, c); });
        }
        for (const vkc::verify::SortCase& c : rows[r].sort_cases) {
            runs.emplace_back(c.label(), [c_ctx, c] { return vkc::verify::run_sort_case(*c_ctx, c); });
        }
        for (const vkc::verify::SelectCase& c : rows[r].select_cases) {
            runs.emplace_back(c.label(), [c_ctx, c] { return vkc::verify::run_select_case(*c_ctx, c); });
        }
        for (const vkc::verify::HistogramCase& c : rows[r].histogram_cases) {
            runs.emplace_back(c.label(), [c_ctx, c] { return vkc::verify::run_histogram_case(*c_ctx, c); });
        }
        for (const vkc::verify::SegmentedCase& c : rows[r].segmented_cases) {
            runs.emplace_back(c.label(), [c_ctx, c] { return vkc::verify::run_segmented_case(*c_ctx, c); });
        }
        for (auto& [case_label, run] : runs) {
            vkc::verify::Outcome o = run();
            module = o.module.empty() ? module : o.module;
            switch (o.status) {
            case vkc::verify::Status::pass: ++row.pass; break;
            case vkc::verify::Status::fail:
                ++row.fail;
                row.notes.push_back("FAIL " + case_label + ": " + o.detail);
                break;
            case vkc::verify::Status::skip:
                ++row.skip;
                row.notes.push_back("skip " + case_label + ": " + o.detail);
                break;
            }
        }
        return RowResult{.tally = row, .module = module, .done = true};
    };
    jobs = uint32_t(std::min<size_t>(jobs, std::max<size_t>(rows.size(), 1)));
    std::printf("%zu rows on %u Context%s at once\n", rows.size(), jobs, jobs > 1 ? "s" : "");
    std::vector<std::unique_ptr<vkc::Context>> helpers;
    for (uint32_t j = 1; j < jobs; ++j) helpers.push_back(std::make_unique<vkc::Context>(options));
    std::mutex mutex;
    std::condition_variable finished;
    std::atomic<size_t> next{0};
    std::string worker_error;
    auto worker = [&](vkc::Context& on) {
        for (size_t r; (r = next++) < rows.size();) {
            RowResult result;
            const auto start = std::chrono::steady_clock::now();
            try {
                result = run_row(on, r);
            } catch (const std::exception& e) { // a row that throws fails, and the others still run
                result.tally.fail = 1;
                result.tally.notes.push_back("FAIL " + rows[r].label() + ": " + e.what());
                result.done = true;
            }
            result.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            std::lock_guard<std::mutex> lock(mutex);
            results[r] = std::move(result);
            finished.notify_all();
        }
    };
    std::vector<std::thread> threads;
    for (auto& h : helpers) threads.emplace_back(worker, std::ref(*h));
    threads.emplace_back(worker, std::ref(ctx));
    Tally total;
    std::vector<std::pair<std::string, Tally>> table;
    std::vector<std::pair<double, std::string>> row_seconds;
    for (size_t r = 0; r < rows.size(); ++r) {
        RowResult result;
        {
            std::unique_lock<std::mutex> lock(mutex);
            finished.wait(lock, [&] { return results[r].done; });
            result = results[r];
        }
        Tally row = result.tally;
        std::string module = result.module;
        std::string label = rows[r].label();
        label = label.substr(0, label.rfind(' ')); // the shapes go in the columns
        if (vkc::is_block(rows[r].base.collective)) label = label.substr(0, label.find(" items"));
        std::printf("[%3zu/%zu] %-36s %-44s %3d pass %3d fail %3d skip\n", r + 1, rows.size(), label.c_str(),
                    module.c_str(), row.pass, row.fail, row.skip);
        std::fflush(stdout);
        total.pass += row.pass;
        total.fail += row.fail;
        total.skip += row.skip;
        table.emplace_back(label, row);
        row_seconds.emplace_back(result.seconds, rows[r].label());
    }
    for (std::thread& t : threads) t.join();
    std::printf("\n%-36s %6s %6s %6s\n", "collective", "pass", "fail", "skip");
    for (auto& [label, row] : table) {
        std::printf("%-36s %6d %6d %6d\n", label.c_str(), row.pass, row.fail, row.skip);
    }
    for (auto& [label, row] : table) {
        for (auto& note : row.notes) std::printf("%s\n", note.c_str());
    }
    std::printf("\nshapes (OpenCL C types and ops): ");
    for (auto& s : shapes) std::printf("%s ", s.text().c_str());
    std::printf("\nshapes (8/16-bit types, later ops): ");
    for (auto& s : few) std::printf("%s ", s.text().c_str());
    std::printf("\nblock scans: 128 and 65x2 invocations x 1, 4, 9 items x subgroup and raking, 4 groups of 3 tiles");
    std::printf("\ndevice scans: 0, 1, tile - 1, tile + 1, 37 tiles + 5%s items; forced fallback, in place and "
                "reproducible in rotation; 37 tiles + 5 as a recorded plan with its count on the device",
                quick ? "" : ", 1000 tiles + 3");
    std::printf("\ndevice sorts: the same counts (tiles of %u keys); forced fallback, bits [4, 28) ([28, 52) of "
                "64-bit keys) and few distinct keys in rotation",
                vkc::sort_tile_keys);
    std::printf("\ndevice selects: the same counts (tiles of %u items); forced fallback and alternating flags in "
                "rotation",
                vkc::select_tile_items);
    std::printf("\ndevice histograms: counts 0, 1, a tile +- 1 and 37 tiles + 5%s; 1 to 4 channels, device "
                "atomics and edge samples in rotation",
                quick ? "" : ", 1000 tiles + 3");
    std::printf("\ndevice segmented scans and reductions: the same counts (tiles of %u items); outputs, head flags "
                "or keys of every type, segment sizes, special values and forced fallbacks in rotation",
                vkc::segmented_tile_items);
    // Where a slow run's time went: the longest rows (each on one Context; rows overlap with --jobs).
    std::sort(row_seconds.begin(), row_seconds.end(), std::greater<>());
    row_seconds.resize(std::min<size_t>(row_seconds.size(), 5));
    std::printf("\nlongest rows:");
    for (auto& [seconds, label] : row_seconds) std::printf(" %s %.2f s;", label.c_str(), seconds);
    std::printf("\nselftest: %d passed, %d failed, %d skipped\n", total.pass, total.fail, total.skip);
    return total.fail == 0 ? 0 : 1;
}

} // namespace

// vkc check: one device-wide scan or reduce of any size, checked item by item against the CPU
// reference, with its GPU time (counts past 2^32 items run here: the suites keep to small ones).
int check(int argc, char** argv) {
    vkc::ContextOptions options;
    vkc::verify::DeviceCase c;
    c.count = 0;
    vkc::tool::Arguments args(argc, argv);
    while (args.next()) {
        if (args.is("--device")) options.device = args.text();
        else if (args.is("--type")) {
            std::string t = args.text();
            // The bench's short names too (u32, f64, ...).
            for (vkc::Type type : vkc::all_types()) {
                if (vkc::short_name(type) == t) t = vkc::name(type);
            }
            if (!vkc::parse(t, c.type)) throw vkc::tool::UsageError("unknown type " + t);
        } else if (args.is("--op")) {
            std::string op = args.text();
            if (!vkc::parse(op, c.op)) throw vkc::tool::UsageError("unknown op " + op);
        } else if (args.is("--count")) c.count = args.number<uint64_t>();
        else if (args.is("--reduce")) c.reduce = true;
        else if (args.is("--exclusive")) c.options.exclusive = true;
        else if (args.is("--in-place")) c.in_place = true;
        else args.unknown();
    }
    vkc::Context ctx(options);
    ctx.set_timing(true);
    auto t0 = std::chrono::steady_clock::now();
    vkc::verify::Outcome r = vkc::verify::run_device_case(ctx, c);
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s: %s on %s (%s); GPU %.2f ms, %.1f s with upload, download and the CPU check%s%s\n",
                c.label().c_str(), r.status == vkc::verify::Status::pass ? "pass" : r.status == vkc::verify::Status::skip ? "skip" : "FAIL",
                ctx.info().name.c_str(), ctx.info().driver.c_str(), ctx.last_gpu_ms(), seconds,
                r.detail.empty() ? "" : ": ", r.detail.c_str());
    return r.status == vkc::verify::Status::pass ? 0 : 1;
}

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fputs(usage, stderr);
        std::fputs(bench_summary, stderr);
        return 2;
    }
    std::string cmd = argv[1];
    if (cmd == "--help" || cmd == "-h") {
        std::fputs(usage, stdout);
        std::fputs(vkc::tool::bench_usage, stdout);
        std::fputs(vkc::tool::bench_sort_usage, stdout);
        std::fputs(vkc::tool::bench_select_usage, stdout);
        std::fputs(vkc::tool::bench_histogram_usage, stdout);
        std::fputs(vkc::tool::bench_segmented_usage, stdout);
        std::fputs(vkc::tool::tune_usage, stdout);
        return 0;
    }
    try {
        if (cmd == "devices" && argc == 2) return devices();
        if (cmd == "modules" && argc == 2) return list_modules(false);
        if (cmd == "modules" && argc == 3 && std::strcmp(argv[2], "--json") == 0) return list_modules(true);
        if (cmd == "devices" || cmd == "modules") throw vkc::tool::UsageError("unexpected arguments after " + cmd);
        if (cmd == "selftest") return selftest(argc - 2, argv + 2);
        if (cmd == "bench") return vkc::tool::bench(argc - 2, argv + 2);
        if (cmd == "check") return check(argc - 2, argv + 2);
        if (cmd == "tune") return vkc::tool::tune(argc - 2, argv + 2);
    } catch (const vkc::tool::UsageError& e) {
        std::fprintf(stderr, "vkc %s: %s (vkc --help lists the options)\n", cmd.c_str(), e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "vkc %s: %s\n", cmd.c_str(), e.what());
        return 1;
    }
    std::fprintf(stderr, "vkc: unknown command '%s'\n%s%s", cmd.c_str(), usage, bench_summary);
    return 2;
}
