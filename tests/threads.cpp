// vkc_threads: Contexts of mixed options (validation on and off, the shared-memory path, their own
// pipeline caches) made, used and destroyed on several threads at once, each checking its results.
// Built with ThreadSanitizer (CTest sanitizers.thread): a data race in the library fails it.
#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include <vkc/vkc.hpp>

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
    return failures ? 1 : 0;
}
