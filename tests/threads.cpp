// vkc_threads: Contexts of mixed options (validation on and off, the shared-memory path, their own
// pipeline caches) made, used and destroyed on several threads at once, each checking its results;
// then one Device whose pipelines four threads prepare (Device::prepare_scans) while four others
// make plans of the same and other scans, the plans run afterwards and checked.
// Built with ThreadSanitizer (CTest sanitizers.thread): a data race in the library fails it.
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include <vkc/vkc.hpp>

// Scans of u32 add (inclusive and exclusive), u64 max and i32 min, and reductions, of several counts:
// planned on four threads at once on one Device while prepare_scans makes the same pipelines on four
// more, then run one after another and checked against the host.
void shared_device_plans(const std::string& device, std::atomic<int>& failures) {
    try {
        vkc::ContextOptions options;
        options.device = device;
        vkc::Context ctx(options);
        vkc::Device& gpu = ctx.device();
        struct Job {
            vkc::Type type;
            vkc::Op op;
            bool exclusive, reduce;
            uint64_t count;
        };
        std::vector<Job> jobs;
        for (int t = 0; t < 4; ++t) {
            for (uint64_t count : {1ull, 1000ull + 777ull * t, 70000ull}) {
                jobs.push_back({vkc::Type::u32, vkc::Op::add, t % 2 == 1, false, count});
                jobs.push_back({vkc::Type::u64, vkc::Op::max, false, t == 2, count});
                jobs.push_back({vkc::Type::i32, vkc::Op::min, false, t == 3, count});
            }
        }
        const uint64_t most = 70000;
        std::vector<vkc::ScanPreparation> preparations;
        for (const Job& j : jobs) {
            vkc::ScanPreparation p;
            p.type = j.type;
            p.op = j.op;
            p.max_count = most;
            p.reduce = j.reduce;
            p.options.exclusive = j.exclusive;
            preparations.push_back(p);
        }
        std::vector<vkc::Buffer> inputs, outputs, scratches;
        std::vector<std::vector<uint64_t>> host(jobs.size());
        for (size_t i = 0; i < jobs.size(); ++i) {
            const Job& j = jobs[i];
            size_t bytes = vkc::size_of(j.type);
            host[i].resize(j.count);
            std::vector<uint8_t> raw(j.count * bytes);
            for (uint64_t k = 0; k < j.count; ++k) {
                uint64_t x = (k * 2654435761u + i * 97) % 100003;
                host[i][k] = x;
                std::memcpy(raw.data() + k * bytes, &x, bytes); // little-endian low bytes
            }
            inputs.push_back(ctx.create_buffer(raw.size()));
            ctx.upload(inputs.back(), raw.data(), raw.size());
            outputs.push_back(ctx.create_buffer(j.reduce ? bytes : raw.size()));
            scratches.push_back(ctx.create_buffer(std::max<uint64_t>(
                16, j.reduce ? gpu.reduce_scratch_bytes(j.type, j.count) : gpu.scan_scratch_bytes(j.type, j.count))));
        }
        std::vector<vkc::ScanPlan> plans(jobs.size());
        std::vector<std::thread> threads;
        threads.emplace_back([&] {
            try {
                gpu.prepare_scans(preparations, 4);
            } catch (const vkc::Error& e) {
                std::fprintf(stderr, "prepare_scans: %s\n", e.what());
                ++failures;
            }
        });
        for (int t = 0; t < 4; ++t) {
            threads.emplace_back([&, t] {
                try {
                    for (size_t i = t; i < jobs.size(); i += 4) {
                        const Job& j = jobs[i];
                        vkc::ScanOptions o;
                        o.exclusive = j.exclusive;
                        vkc::BufferRange in{inputs[i].handle(), 0, inputs[i].size()};
                        vkc::BufferRange out{outputs[i].handle(), 0, outputs[i].size()};
                        vkc::BufferRange scratch{scratches[i].handle(), 0, scratches[i].size()};
                        plans[i] = j.reduce ? gpu.plan_reduce(j.type, j.op, j.count, in, out, scratch, o)
                                            : gpu.plan_scan(j.type, j.op, j.count, in, out, scratch, o);
                    }
                } catch (const vkc::Error& e) {
                    std::fprintf(stderr, "planning thread %d: %s\n", t, e.what());
                    ++failures;
                }
            });
        }
        for (auto& t : threads) t.join();
        if (failures) return;
        for (size_t i = 0; i < jobs.size(); ++i) {
            const Job& j = jobs[i];
            ctx.run(plans[i]);
            size_t bytes = vkc::size_of(j.type);
            std::vector<uint8_t> raw(outputs[i].size());
            ctx.download(outputs[i], raw.data(), raw.size());
            uint64_t mask = bytes == 8 ? ~0ull : 0xffffffffull;
            uint64_t acc = j.op == vkc::Op::add ? 0 : j.op == vkc::Op::max ? 0 : mask >> 1; // identities (values >= 0)
            for (uint64_t k = 0; k < j.count; ++k) {
                uint64_t before = acc;
                acc = j.op == vkc::Op::add ? (acc + host[i][k]) & mask
                      : j.op == vkc::Op::max ? std::max(acc, host[i][k])
                                             : std::min(acc, host[i][k]);
                if (j.reduce) continue;
                uint64_t got = 0;
                std::memcpy(&got, raw.data() + k * bytes, bytes);
                if (got != (j.exclusive ? before : acc)) {
                    std::fprintf(stderr, "job %zu item %llu: %llu, expected %llu\n", i, (unsigned long long)k,
                                 (unsigned long long)got, (unsigned long long)(j.exclusive ? before : acc));
                    ++failures;
                    break;
                }
            }
            if (j.reduce) {
                uint64_t got = 0;
                std::memcpy(&got, raw.data(), bytes);
                if (got != acc) {
                    std::fprintf(stderr, "job %zu: reduce %llu, expected %llu\n", i, (unsigned long long)got,
                                 (unsigned long long)acc);
                    ++failures;
                }
            }
        }
        if (ctx.validation_messages() != 0) {
            std::fprintf(stderr, "shared device: %s\n", ctx.last_validation_message().c_str());
            ++failures;
        }
    } catch (const vkc::Error& e) {
        std::fprintf(stderr, "shared device: %s\n", e.what());
        ++failures;
    }
}

int main(int argc, char** argv) {
#if defined(__SANITIZE_THREAD__)
    // Keep the loader, lavapipe and the validation layer mapped after they are closed: ThreadSanitizer's
    // library suppressions (tests/sanitizers/tsan.supp) end the run when a named library unloads.
    dlopen("libvulkan.so.1", RTLD_NOW | RTLD_NODELETE);
    dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE);
    dlopen("libVkLayer_khronos_validation.so", RTLD_NOW | RTLD_NODELETE);
#endif
    const std::string device = argc > 1 ? argv[1] : "";
    std::atomic<int> failures{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&, t] {
            try {
                for (int round = 0; round < 2; ++round) {
                    vkc::ContextOptions options;
                    options.device = device;
                    options.validation = (t + round) % 2 == 0;
                    options.shared_memory_only = t == 3;
                    vkc::Context ctx(options);
                    std::vector<uint32_t> items(4000 + 1000 * t);
                    for (size_t i = 0; i < items.size(); ++i) items[i] = uint32_t(i % 13 + t);
                    std::vector<uint32_t> sums = ctx.scan(std::span<const uint32_t>(items), vkc::Op::add);
                    uint32_t want = 0;
                    for (size_t i = 0; i < items.size(); ++i) {
                        want += items[i];
                        if (sums[i] != want) {
                            std::fprintf(stderr, "thread %d: item %zu is %u, expected %u\n", t, i, sums[i], want);
                            ++failures;
                            break;
                        }
                    }
                    uint32_t most = ctx.reduce(std::span<const uint32_t>(items), vkc::Op::max);
                    if (most != uint32_t(12 + t)) ++failures;
                    if (ctx.validation_messages() != 0) {
                        std::fprintf(stderr, "thread %d: %s\n", t, ctx.last_validation_message().c_str());
                        ++failures;
                    }
                }
            } catch (const vkc::Error& e) {
                std::fprintf(stderr, "thread %d: %s\n", t, e.what());
                ++failures;
            }
        });
    }
    for (auto& t : threads) t.join();
    std::printf("vkc_threads: 4 threads x 2 Contexts: %s\n", failures ? "FAILED" : "ok");
    int context_failures = failures.exchange(0);
    shared_device_plans(device, failures);
    std::printf("vkc_threads: one Device, plans made on 4 threads beside prepare_scans on 4: %s\n",
                failures ? "FAILED" : "ok");
    return failures || context_failures ? 1 : 0;
}
