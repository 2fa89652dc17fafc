#define DOCTEST_CONFIG_IMPLEMENT
#include "support.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

namespace vkc::test {
namespace {
std::unique_ptr<Context> shared_context;
int skipped = 0;

bool env_is(const char* name, const char* value) {
    const char* v = std::getenv(name);
    return v && std::string(v) == value;
}
} // namespace

Context& context() {
    if (!shared_context) {
        ContextOptions options;
        options.validation = true; // when installed; any message fails the case
        shared_context = std::make_unique<Context>(options);
    }
    return *shared_context;
}

namespace {
// parts x VKC_TEST_THIN (1 or 2), at most the six widths, so that every case still runs somewhere.
uint32_t thinned(uint32_t parts) {
    static const uint32_t thin = env_is("VKC_TEST_THIN", "2") ? 2 : 1;
    return parts <= 1 ? 1 : std::min(6u, parts * thin);
}
} // namespace

bool spread(uint64_t index, uint32_t parts) {
    static const bool spreading = env_is("VKC_TEST_SPREAD", "1");
    if (!spreading || parts <= 1) return true;
    uint32_t slot = 0;
    for (uint32_t lanes = context().info().subgroup_size; lanes > 1; lanes /= 2) ++slot;
    const uint32_t p = thinned(parts);
    auto home = [&](uint32_t s) { return (index + s) % p == 0; };
    // Lavapipe's 64-lane vectors compile at about twice the others' cost: every other case of the
    // 64-lane entry (slot 6) runs at 4 lanes (slot 2) instead, where it may already run.
    const bool moved = home(6) && (index / p) % 2 == 1;
    if (slot == 6) return home(6) && !moved;
    if (slot == 2) return home(2) || moved;
    return home(slot);
}

bool shared_memory_entry() {
    static const bool shared_only = env_is("VKC_SHARED_MEMORY_ONLY", "1") && !env_is("VKC_TEST_SPREAD", "1");
    return shared_only;
}

bool share(uint64_t index, uint32_t parts) {
    return shared_memory_entry() ? index % thinned(parts) == 0 : spread(index, parts);
}

Path preferred_path() {
    return env_is("VKC_SHARED_MEMORY_ONLY", "1") ? Path::shared_memory : Path::subgroup;
}

namespace {
void expect_outcome(const verify::Outcome& o, const std::string& case_label) {
    std::string label = case_label + " [" + o.module + "]";
    if (o.status == verify::Status::skip) {
        ++skipped;
        MESSAGE("skipped " << label << ": " << o.detail);
        CHECK_MESSAGE(!env_is("VKC_EXPECT_NO_SKIPS", "1"), "unexpected skip on this device: " << label << ": "
                                                                                               << o.detail);
        return;
    }
    CHECK_MESSAGE(o.status == verify::Status::pass, label << ": " << o.detail);
}
} // namespace

void expect_pass(const verify::Case& c) { expect_outcome(verify::run_case(context(), c), c.label()); }
void expect_pass(const verify::DeviceCase& c) { expect_outcome(verify::run_device_case(context(), c), c.label()); }

void run_matrix(Collective collective, bool per_type, bool per_op) {
    const std::vector<Type> types = per_type ? all_types() : std::vector<Type>{Type::u32};
    const std::vector<Op> ops = per_op ? all_ops() : std::vector<Op>{Op::add};
    uint64_t seed = 1, pair = 0;
    for (Type t : types) {
        for (Op op : ops) {
            // Each (type, op) with a third of the shapes a width and on the shared-memory entry, each
            // shape with a third of the pairs.
            uint64_t shape_index = pair++;
            for (const WorkgroupShape& shape : verify::standard_shapes(context().info())) {
                verify::Case c{collective, t, op, shape};
                c.seed = seed++;
                if (share(shape_index++, 3)) expect_pass(c);
            }
        }
    }
}

void run_extended_matrix(Collective collective) {
    uint64_t seed = 1000, pair = 0;
    for (Type t : every_type()) {
        for (Op op : every_op()) {
            bool foundation = is_opencl(t) && is_opencl(op);
            if (!has_op(t, op) || foundation) continue;
            uint64_t shape_index = pair++;
            for (const WorkgroupShape& shape : reduced_shapes()) {
                verify::Case c{collective, t, op, shape};
                c.seed = seed++;
                if (spread(shape_index++, 2)) expect_pass(c); // half the shapes a width
            }
        }
    }
}

} // namespace vkc::test

int main(int argc, char** argv) {
    using namespace vkc::test;
#if defined(__SANITIZE_ADDRESS__)
    // Keep lavapipe and the validation layer mapped after the loader closes them, so that LeakSanitizer can name its frames and its
    // suppressions (tests/sanitizers/lsan.supp) apply: the leaks of an unloaded library show no module.
    dlopen("libvulkan_lvp.so", RTLD_NOW | RTLD_NODELETE);
    dlopen("libVkLayer_khronos_validation.so", RTLD_NOW | RTLD_NODELETE);
#endif
    try {
        context();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "cannot create the test context: %s\n", e.what());
        return 1;
    }
    const vkc::DeviceInfo& d = context().info();
    std::printf("device: %s (%s), subgroup size %u, validation %s, path %s\n", d.name.c_str(), d.driver.c_str(),
                d.subgroup_size, context().validation_enabled() ? "on" : "off (layer not installed)",
                std::getenv("VKC_SHARED_MEMORY_ONLY") ? "shared memory only" : "subgroup where supported");
    // A lavapipe entry of the suite names the subgroup size it is meant to run at; a mismatch means the
    // LP_NATIVE_VECTOR_WIDTH setting did not take, and the entry would test the wrong width.
    if (const char* want = std::getenv("VKC_EXPECT_SUBGROUP_SIZE")) {
        if (std::to_string(d.subgroup_size) != want) {
            std::fprintf(stderr, "expected subgroup size %s, the device reports %u\n", want, d.subgroup_size);
            return 1;
        }
    }
    if (std::getenv("VKC_REQUIRE_VALIDATION") && !context().validation_enabled()) {
        std::fprintf(stderr, "VKC_REQUIRE_VALIDATION is set but VK_LAYER_KHRONOS_validation is not installed\n");
        return 1;
    }
    doctest::Context runner(argc, argv);
    int rc = runner.run();
    if (skipped) std::printf("%d cases skipped (reasons above)\n", skipped);
    // Before exit, while the driver is whole: NVIDIA's tears itself down in exit handlers, and the
    // suite crashed there (rc 139 after every test passed) when the Context died with the statics.
    shared_context.reset();
    return rc;
}
