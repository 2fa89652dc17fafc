// vkc: the command-line tool. `vkc devices` lists devices; `vkc selftest` runs every collective on
// one device against the CPU reference and exits non-zero on any failure.
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "verify/verify.hpp"
#include "vkc/vkc.hpp"

namespace {

const char* usage =
    "usage: vkc <command> [options]\n"
    "  devices                     list Vulkan devices with their subgroup sizes and features\n"
    "  selftest [options]          run every collective x type x op at several work-group shapes on one\n"
    "                              device against the CPU reference; exit 1 on any failure\n"
    "    --device X                device index or part of its name (default: $VKC_DEVICE, else the\n"
    "                              first discrete GPU, else any device)\n"
    "    --quick                   fewer work-group shapes (1, 7, 32, 33, 100, 256, 1024, 3x5x7, 8x8x8)\n"
    "    --shared-memory-only      test the shared-memory path, as on a device without subgroup arithmetic\n"
    "    --validation              enable the Khronos validation layer; any message fails the case\n"
    "  modules                     list the embedded SPIR-V modules and what each needs\n";

int devices() {
    for (const vkc::DeviceInfo& d : vkc::list_devices()) {
        std::printf("%u: %s (%s, Vulkan %u.%u, %s)\n", d.index, d.name.c_str(), d.type_name().c_str(),
                    VK_API_VERSION_MAJOR(d.api_version), VK_API_VERSION_MINOR(d.api_version), d.driver.c_str());
        std::printf("   subgroup size %u (range %u..%u); work-group up to %u invocations; shared memory %u bytes\n",
                    d.subgroup_size, d.min_subgroup_size, d.max_subgroup_size, d.max_workgroup_invocations,
                    d.max_shared_memory);
        std::printf("   features: %s\n", vkc::feature_names(d.features).c_str());
        std::printf("   lacks:    %s\n", vkc::feature_names(vkc::all_features & ~d.features).c_str());
    }
    return 0;
}

int list_modules() {
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
    for (int i = 0; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--device" && i + 1 < argc) options.device = argv[++i];
        else if (a == "--quick") quick = true;
        else if (a == "--shared-memory-only") options.shared_memory_only = true;
        else if (a == "--validation") options.validation = true;
        else {
            std::fprintf(stderr, "vkc selftest: unknown option '%s'\n%s", a.c_str(), usage);
            return 2;
        }
    }
    vkc::Context ctx(options);
    const vkc::DeviceInfo& d = ctx.device();
    std::printf("device %u: %s (%s), subgroup size %u, %s\n", d.index, d.name.c_str(), d.driver.c_str(),
                d.subgroup_size, ctx.validation_enabled() ? "validation on" : "validation off");

    std::vector<vkc::WorkgroupShape> shapes = vkc::verify::standard_shapes(d);
    if (quick) {
        shapes = {{1}, {7}, {32}, {33}, {100}, {256}, {1024}, {3, 5, 7}, {8, 8, 8}};
    }
    // The rows of the table: every collective x type x op.
    std::vector<vkc::verify::Case> rows;
    using vkc::Collective;
    const vkc::Type types[] = {vkc::Type::f16, vkc::Type::i32, vkc::Type::u32, vkc::Type::i64,
                               vkc::Type::u64, vkc::Type::f32, vkc::Type::f64};
    for (Collective c : {Collective::reduce, Collective::scan_inclusive, Collective::scan_exclusive}) {
        for (vkc::Type t : types) {
            for (vkc::Op op : {vkc::Op::add, vkc::Op::min, vkc::Op::max}) rows.push_back({c, t, op});
        }
    }
    for (vkc::Type t : types) rows.push_back({Collective::broadcast, t});
    rows.push_back({Collective::all});
    rows.push_back({Collective::any});

    Tally total;
    std::vector<std::pair<std::string, Tally>> table;
    for (size_t r = 0; r < rows.size(); ++r) {
        Tally row;
        std::string module;
        for (const auto& shape : shapes) {
            vkc::verify::Case c = rows[r];
            c.shape = shape;
            vkc::verify::Outcome o = vkc::verify::run_case(ctx, c);
            module = o.module.empty() ? module : o.module;
            switch (o.status) {
            case vkc::verify::Status::pass: ++row.pass; break;
            case vkc::verify::Status::fail:
                ++row.fail;
                row.notes.push_back("FAIL " + c.label() + ": " + o.detail);
                break;
            case vkc::verify::Status::skip:
                ++row.skip;
                row.notes.push_back("skip " + c.label() + ": " + o.detail);
                break;
            }
        }
        std::string label = rows[r].label();
        label = label.substr(0, label.rfind(' ')); // the shape goes in the columns
        std::printf("[%2zu/%zu] %-30s %-36s %3d pass %3d fail %3d skip\n", r + 1, rows.size(), label.c_str(),
                    module.c_str(), row.pass, row.fail, row.skip);
        std::fflush(stdout);
        total.pass += row.pass;
        total.fail += row.fail;
        total.skip += row.skip;
        table.emplace_back(label, row);
    }
    std::printf("\n%-30s %6s %6s %6s\n", "collective", "pass", "fail", "skip");
    for (auto& [label, row] : table) {
        std::printf("%-30s %6d %6d %6d\n", label.c_str(), row.pass, row.fail, row.skip);
    }
    for (auto& [label, row] : table) {
        for (auto& note : row.notes) std::printf("%s\n", note.c_str());
    }
    std::printf("\nshapes: ");
    for (auto& s : shapes) std::printf("%s ", s.text().c_str());
    std::printf("\nselftest: %d passed, %d failed, %d skipped\n", total.pass, total.fail, total.skip);
    return total.fail == 0 ? 0 : 1;
}

} // namespace

int main(int argc, char** argv) {
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
        std::fputs(usage, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    std::string cmd = argv[1];
    try {
        if (cmd == "devices") return devices();
        if (cmd == "modules") return list_modules();
        if (cmd == "selftest") return selftest(argc - 2, argv + 2);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "vkc %s: %s\n", cmd.c_str(), e.what());
        return 1;
    }
    std::fprintf(stderr, "vkc: unknown command '%s'\n%s", cmd.c_str(), usage);
    return 2;
}
