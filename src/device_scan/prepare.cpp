// Device::prepare_scans: the pipelines of scans and reductions made ahead of their plans, on
// several threads at once.
#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <set>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "device/device_state.hpp"
#include "tuning/scan_tuning.hpp"

namespace vkc {

namespace {

// The counts from 1 to max_count at which the tile choice may change (scan_tuning.cpp's
// choose_tile compares the count with these thresholds alone): one count of each stretch.
std::vector<uint64_t> choice_counts(const DeviceInfo& dev, uint64_t max_count) {
    const ScanTuning t = scan_tuning(dev);
    std::set<uint64_t> counts{1, max_count};
    for (uint64_t threshold : {t.wide_tile_min_items, t.chunked_min_items, t.f64_narrow_chunks_min_items}) {
        if (threshold) counts.insert(threshold);
    }
    std::vector<uint64_t> kept;
    for (uint64_t c : counts) {
        if (c >= 1 && c <= max_count) kept.push_back(c);
    }
    return kept;
}

} // namespace

void DeviceState::prepare_scans(std::span<const ScanPreparation> preparations, uint32_t threads) {
    // Every argument is checked, and every pipeline named, before any is made.
    struct Job {
        size_t preparation;
        ScanPipelineKey pipeline;
    };
    std::vector<Job> jobs;
    std::set<ScanPipelineKey> named;
    for (size_t i = 0; i < preparations.size(); ++i) {
        const ScanPreparation& p = preparations[i];
        const std::string what = "prepare_scans: preparation " + std::to_string(i);
        if (p.indirect_count && p.max_count > UINT32_MAX) {
            throw Error(what + ": an IndirectCount's max_count of " + std::to_string(p.max_count) +
                        " items is past 4294967295, the most its uint32 count can name");
        }
        // A reduce runs for every count, 0 included; a scan of 0 items runs nothing.
        std::vector<uint64_t> counts = choice_counts(info, p.max_count);
        if (p.reduce && counts.empty()) counts.push_back(0);
        for (uint64_t count : counts) {
            ScanPolicy policy;
            const ModuleInfo& m = scan_module(p.reduce, p.type, p.op, count, p.options, what.c_str(), policy);
            const ScanPipelineKey key = scan_pipeline_key(m, policy, p.indirect_count);
            if (named.insert(key).second) jobs.push_back({i, key});
        }
    }
    if (threads == 0) threads = std::clamp(std::thread::hardware_concurrency(), 1u, 8u);
    threads = uint32_t(std::min<size_t>(threads, jobs.size()));
    std::atomic<size_t> next{0};
    std::exception_ptr first_error;
    std::atomic<bool> failed{false};
    std::mutex error_mutex;
    auto work = [&] {
        for (size_t j = next++; j < jobs.size() && !failed; j = next++) {
            try {
                scan_pipeline(jobs[j].pipeline);
            } catch (const Error& e) {
                std::lock_guard lock(error_mutex);
                if (!failed.exchange(true)) {
                    // Named after the preparation, and still an UnsupportedError where it was one.
                    const std::string message =
                        "prepare_scans: preparation " + std::to_string(jobs[j].preparation) + ": " + e.what();
                    first_error = dynamic_cast<const UnsupportedError*>(&e)
                                      ? std::make_exception_ptr(UnsupportedError(message))
                                      : std::make_exception_ptr(Error(message));
                }
            } catch (...) {
                std::lock_guard lock(error_mutex);
                if (!failed.exchange(true)) first_error = std::current_exception();
            }
        }
    };
    std::vector<std::thread> helpers;
    try {
        for (uint32_t t = 1; t < threads; ++t) helpers.emplace_back(work);
    } catch (const std::system_error&) {
        // No more threads to be had: the ones started, and this one, do the rest.
    }
    work();
    for (std::thread& h : helpers) h.join();
    if (first_error) std::rethrow_exception(first_error);
}

} // namespace vkc
