// vkc bench: throughput of our kernels against a compute-shader copy and CUB.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <tuple>
#include <string>
#include <vector>

#include "arguments.hpp"

namespace vkc {
class Context;
}

namespace vkc::tool {
// The options of a size sweep (bench sort, select, histogram): --device, --min-log2, --max-log2,
// --step, --runs, --cub.
struct SweepOptions {
    std::string device;
    int min_log2 = 16, max_log2 = 28, step = 2, runs = 15;
    int largest_log2 = 29; // what --min-log2 and --max-log2 take at most
    std::string cub_csv;
    bool take(Arguments& args); // the current option, if it is one of these
    void check() const;         // UsageError where the sizes run backwards
};
extern const char* bench_usage;
int bench(int argc, char** argv); // arguments after "bench"
uint32_t hash(uint32_t x);        // item data: non-zero-ish, so that no bench times zeros
// A CUB peer's CSV (bench/cuda): (op, type, n) -> the number in `column` of its row; '#' lines and the
// header skipped.
using CubRows = std::map<std::tuple<std::string, std::string, uint64_t>, double>;
// A CUB peer's CSV rows, split at commas ('#' lines and the header skipped).
std::vector<std::vector<std::string>> read_cub_csv(const std::string& path);
CubRows read_cub_rows(const std::string& path, size_t column);
std::string today();              // UTC date, for the results' headers
// The median of `runs` GPU times (Context::last_gpu_ms) of `timed`, each measurement warmed up by at
// least 3 runs and 300 ms of its own work: the host's data making and uploads before it leave the
// GPU idle, and its clocks drop. Taken twice, the lower kept (a note on stderr where they differ).
double median_gpu_ms(Context& ctx, int runs, const std::function<void()>& timed);
// A new process's first scan (tools/first_call.cpp): on a Context's own device, or with `engine` on a
// device the process made itself through the loader, as an engine does; with prepare_threads > 0,
// after Device::prepare_scans of the common scans and reductions on that many threads.
int bench_first_call(const std::string& device, bool engine, int prepare_threads = -1);
// vkc bench sort (tools/bench_sort.cpp): arguments after "bench", "sort" first.
extern const char* bench_sort_usage;
int bench_sort(int argc, char** argv);
// vkc bench select (tools/bench_select.cpp): arguments after "bench", "select" first.
extern const char* bench_select_usage;
int bench_select(int argc, char** argv);
// vkc bench histogram (tools/bench_histogram.cpp): arguments after "bench", "histogram" first.
extern const char* bench_histogram_usage;
int bench_histogram(int argc, char** argv);
// vkc bench segmented (tools/bench_segmented.cpp): arguments after "bench", "segmented" first.
extern const char* bench_segmented_usage;
int bench_segmented(int argc, char** argv);
// vkc tune (tools/tune.cpp): arguments after "tune".
extern const char* tune_usage;
int tune(int argc, char** argv);
} // namespace vkc::tool
