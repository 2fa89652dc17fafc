// vkc_faults: every host allocation of a Context, a scan and a plan may fail. For n = 0, 1, 2, ... a
// child process fails the n-th allocation made through ContextOptions::allocator, and must end with a
// vkc::Error naming the failure (and, where the Context was already made, a Context that still scans
// correctly) or with a correct result; until an n that no allocation reaches. Children run apart so
// that a driver which crashes on its own failed allocation cannot take the test with it: such a crash
// is counted and reported as the driver's only where the blamed frame is inside Mesa's Vulkan driver
// stack (lavapipe, or its implicit device-select layer), and fails the test anywhere else.
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <vkc/vkc.hpp>
#include <vulkan/vulkan.h>

namespace {

int64_t countdown = -1; // allocations left before the failing one; -1: never
bool failed = false;
int report_fd = -1; // the child's pipe to its parent

__attribute__((noinline)) void failing_here() { asm volatile(""); } // a breakpoint for debugging one n (--only)

bool fail_now() {
    if (countdown < 0) return false;
    if (countdown-- == 0) {
        failed = true;
        failing_here();
    }
    return countdown == -1 && failed;
}
VKAPI_ATTR void* VKAPI_CALL allocate(void*, size_t size, size_t alignment, VkSystemAllocationScope) {
    if (fail_now()) return nullptr;
    return std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
}
VKAPI_ATTR void* VKAPI_CALL reallocate(void*, void* original, size_t size, size_t alignment, VkSystemAllocationScope s) {
    if (!original) return allocate(nullptr, size, alignment, s);
    if (size == 0) {
        std::free(original);
        return nullptr;
    }
    if (fail_now()) return nullptr;
    return std::realloc(original, size);
}
VKAPI_ATTR void VKAPI_CALL release(void*, void* memory) { std::free(memory); }

// Where a crash happened: the shared object of the first frame outside the C library and the
// sanitizer runtimes (an abort in free() is the caller's fault), found past this handler's own frames.
// Under AddressSanitizer (abort_on_error=1) a bad free or a leak at exit aborts here too: a leak's
// first frame is this program's exit, so it fails the test.
void on_crash(int, siginfo_t*, void*) {
    void* frames[64];
    int n = backtrace(frames, 64);
    const char* where = "unknown";
    bool past_handler = false;
    for (int i = 0; i < n; ++i) {
        Dl_info info{};
        const char* file = dladdr(frames[i], &info) && info.dli_fname ? info.dli_fname : "unknown";
        // The C library and the sanitizers' runtimes report; the frame below them made the mistake.
        bool libc = std::strstr(file, "libc.so") || std::strstr(file, "libasan") || std::strstr(file, "libubsan");
        if (!past_handler) {
            past_handler = libc; // the signal trampoline
            continue;
        }
        if (!libc) {
            where = file;
            break;
        }
    }
    ssize_t ignored = write(report_fd, where, std::strlen(where));
    (void)ignored;
    _exit(99);
}

#if defined(__SANITIZE_ADDRESS__)
extern "C" void __asan_set_error_report_callback(void (*callback)(const char*));
// AddressSanitizer's report of a bad access, free or allocation: the module of its first frame past the
// allocator is to blame (lavapipe's bad free on its own failed allocation is the driver's, as is the
// device-select layer's out-of-memory report).
void on_asan_report(const char* report) {
    const char* frame = std::strstr(report, "    #1 ");
    const char* end = frame ? std::strchr(frame, '\n') : nullptr;
    std::string line = frame && end ? std::string(frame, end) : "unknown";
    // The device-select layer callocs a count that its failed query of device extensions left unset.
    const char* where = line.find("libvulkan_lvp") != std::string::npos       ? "libvulkan_lvp.so (AddressSanitizer)"
                        : line.find("libVkLayer_MESA") != std::string::npos ? "libVkLayer_MESA_device_select.so (AddressSanitizer)"
                                                                             : "AddressSanitizer report";
    ssize_t ignored = write(report_fd, where, std::strlen(where));
    (void)ignored;
    _exit(99);
}
#endif

bool scan_and_plan(vkc::Context& ctx) {
    std::vector<uint32_t> items(3000);
    for (size_t i = 0; i < items.size(); ++i) items[i] = uint32_t(i * 7 + 1);
    std::vector<uint32_t> sums = ctx.scan(std::span<const uint32_t>(items), vkc::Op::add);
    uint32_t want = 0;
    for (size_t i = 0; i < items.size(); ++i) {
        want += items[i];
        if (sums[i] != want) return false;
    }
    uint64_t scratch = ctx.device().scan_scratch_bytes(vkc::Type::u32, items.size());
    vkc::Buffer data = ctx.create_buffer(items.size() * 4), scratch_buffer = ctx.create_buffer(scratch);
    vkc::ScanPlan plan = ctx.device().plan_scan(vkc::Type::u32, vkc::Op::add, items.size(), {data.handle(), 0, items.size() * 4},
                                       {data.handle(), 0, items.size() * 4}, {scratch_buffer.handle(), 0, scratch});
    return plan.dispatches() >= 1;
}

// The child's outcome, as its exit code.
// absorbed: an allocation failed and whoever asked for it (the loader, the driver) did without, so the
// scan ran and was right.
enum Outcome { passed_untouched = 0, error_before_context = 1, error_context_works = 2, wrong = 3, absorbed = 4 };

int child(int64_t n, const std::string& device) {
    VkAllocationCallbacks callbacks{};
    callbacks.pfnAllocation = allocate;
    callbacks.pfnReallocation = reallocate;
    callbacks.pfnFree = release;
    vkc::ContextOptions options;
    options.device = device;
    options.allocator = &callbacks;
    countdown = n;
    std::unique_ptr<vkc::Context> ctx;
    try {
        ctx = std::make_unique<vkc::Context>(options);
        if (!scan_and_plan(*ctx)) return wrong;
    } catch (const vkc::Error& e) {
        countdown = -1;
        if (!failed) return wrong; // an error with no fault injected
        if (!std::strstr(e.what(), "failed")) {
            std::fprintf(stderr, "n=%lld: the error does not name the failure: %s\n", (long long)n, e.what());
            return wrong;
        }
        if (!ctx) return error_before_context;
        try {
            return scan_and_plan(*ctx) ? error_context_works : wrong;
        } catch (const vkc::Error& again) {
            std::fprintf(stderr, "n=%lld: the Context failed again after the fault: %s\n", (long long)n, again.what());
            return wrong;
        }
    }
    return failed ? absorbed : passed_untouched;
}

} // namespace

int main(int argc, char** argv) {
#if defined(__SANITIZE_ADDRESS__)
    // Keep lavapipe and the validation layer mapped after the loader closes them, so that LeakSanitizer can name its frames and its
    // suppressions (tests/sanitizers/lsan.supp) apply: the leaks of an unloaded library show no module.
    dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE);
    dlopen("libVkLayer_khronos_validation.so", RTLD_NOW | RTLD_NODELETE);
#endif
    // vkc_faults [device] [--stride K] [--only N]: --stride tries every K-th n (the LeakSanitizer build,
    // whose check at each child's exit is slow); --only runs one n in this process, to debug it.
    std::string device = argc > 1 ? argv[1] : "";
    int64_t stride = 1;
    if (argc > 3 && std::strcmp(argv[2], "--only") == 0) return child(std::atoll(argv[3]), device);
    if (argc > 3 && std::strcmp(argv[2], "--stride") == 0) stride = std::max<int64_t>(1, std::atoll(argv[3]));
    int errors = 0, survived = 0, absorbed_count = 0, bad = 0;
    std::vector<std::string> driver_crashes;
    for (int64_t n = 0;; n += stride) {
        std::fflush(stdout); // a child must not inherit unwritten output
        int fds[2];
        if (pipe(fds) != 0) return 2;
        pid_t pid = fork();
        if (pid == 0) {
            close(fds[0]);
            report_fd = fds[1];
            struct sigaction sa{};
            sa.sa_sigaction = on_crash;
            sa.sa_flags = SA_SIGINFO;
            sigaction(SIGSEGV, &sa, nullptr);
            sigaction(SIGBUS, &sa, nullptr);
            sigaction(SIGABRT, &sa, nullptr);
#if defined(__SANITIZE_ADDRESS__)
            __asan_set_error_report_callback(on_asan_report);
#endif
            int code = child(n, device);
#if defined(__SANITIZE_ADDRESS__)
            std::exit(code); // LeakSanitizer checks each child as it exits
#else
            _exit(code);
#endif
        }
        close(fds[1]);
        char where[512] = {};
        ssize_t got = read(fds[0], where, sizeof where - 1);
        close(fds[0]);
        int status = 0;
        waitpid(pid, &status, 0);
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        if (code == passed_untouched) {
            std::printf("vkc_faults: %lld allocations, every %lld%s failed in turn: %d gave a vkc::Error (%d after the "
                        "Context was made, which then scanned correctly), %d were done without by the loader or "
                        "driver (correct results), %zu crashed in the driver",
                        (long long)n, (long long)stride, stride == 1 ? "" : "th", errors, survived, absorbed_count,
                        driver_crashes.size());
            for (auto& d : driver_crashes) std::printf(" [%s]", d.c_str());
            std::printf("; %d failed\n", bad);
            return bad ? 1 : 0;
        }
        if (code == 23) {
            ++bad;
            std::printf("FAIL n=%lld: LeakSanitizer found a leak\n", (long long)n);
        } else if (code == absorbed) {
            ++absorbed_count;
        } else if (code == error_before_context || code == error_context_works) {
            ++errors;
            if (code == error_context_works) ++survived;
        } else if (code == 99 && got > 0 && (std::strstr(where, "libvulkan_lvp") || std::strstr(where, "libVkLayer_MESA"))) {
            // Mesa's (mesa-vulkan-drivers): lavapipe, or its implicit device-select layer
            driver_crashes.push_back("n=" + std::to_string(n) + (std::strstr(where, "MESA") ? " device-select layer" : ""));
        } else {
            ++bad;
            std::printf("FAIL n=%lld: exit %d%s%s\n", (long long)n, code, got > 0 ? ", crashed in " : "", got > 0 ? where : "");
        }
        if (n > 20000) {
            std::printf("FAIL: more than 20000 allocations\n");
            return 1;
        }
    }
}
