// DenormPreserve, added to the float add and mul modules at shader-module creation where the device
// keeps denormals (src/pipeline/float_controls.cpp). Lavapipe reports no DenormPreserve support, so
// the patched modules are checked here with spirv-val rather than run.
#include "support.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "pipeline/float_controls.hpp"

using namespace vkc;

namespace {
struct Instruction {
    uint32_t opcode;
    std::vector<uint32_t> operands;
};
std::vector<Instruction> instructions(const std::vector<uint32_t>& code) {
    std::vector<Instruction> out;
    for (size_t i = 5; i < code.size();) {
        uint32_t count = code[i] >> 16;
        REQUIRE(count > 0);
        REQUIRE(i + count <= code.size());
        out.push_back({code[i] & 0xffffu, std::vector<uint32_t>(code.begin() + i + 1, code.begin() + i + count)});
        i += count;
    }
    return out;
}
bool spirv_val_accepts(const std::vector<uint32_t>& code, const std::string& name) {
    std::string path = std::string(std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp") + "/vkc_" + name + ".spv";
    std::FILE* f = std::fopen(path.c_str(), "wb");
    REQUIRE(f);
    std::fwrite(code.data(), 4, code.size(), f);
    std::fclose(f);
    std::string command = std::string(VKC_SPIRV_VAL) + " --target-env vulkan1.2 " + path;
    int status = std::system(command.c_str());
    std::remove(path.c_str());
    return status == 0;
}
} // namespace

TEST_CASE("float controls: which modules keep denormals") {
    for (const ModuleInfo& m : modules()) {
        uint32_t width = denorm_preserve_width(m);
        bool arithmetic = m.op == Op::add || m.op == Op::mul;
        bool scan_or_reduce = m.collective != Collective::broadcast && m.collective != Collective::all &&
                              m.collective != Collective::any && m.collective != Collective::copy &&
                              m.collective != Collective::read && m.collective != Collective::layout_probe;
        uint32_t expected = !arithmetic || !scan_or_reduce ? 0
                            : m.type == Type::f16          ? 16
                            : m.type == Type::f32          ? 32
                            : m.type == Type::f64          ? 64
                                                           : 0;
        CHECK_MESSAGE(width == expected, m.name);
    }
}

TEST_CASE("float controls: DenormPreserve added to a module is valid SPIR-V in the right sections") {
    int patched = 0;
    for (const ModuleInfo& m : modules()) {
        uint32_t width = denorm_preserve_width(m);
        // One module per float width and kernel is enough: the patch is the same for each.
        if (!width || m.op != Op::add || m.path != Path::subgroup) continue;
        if (m.collective != Collective::reduce && m.collective != Collective::block_scan_inclusive &&
            m.collective != Collective::device_scan) {
            continue;
        }
        CAPTURE(m.name);
        const uint32_t* words = m.code();
        REQUIRE(words);
        std::vector<uint32_t> original(words, words + m.code_bytes / 4);
        std::vector<uint32_t> code = with_denorm_preserve(words, m.code_bytes / 4, width);
        // a capability (2 words), the extension (1 + 6 words) and one execution mode (4 words)
        CHECK(code.size() == original.size() + 2 + 7 + 4);
        auto list = instructions(code);
        size_t capability = 0, extension = 0, mode = 0, entry = 0;
        for (size_t i = 0; i < list.size(); ++i) {
            const Instruction& ins = list[i];
            if (ins.opcode == 17 && ins.operands == std::vector<uint32_t>{4464}) capability = i + 1;
            if (ins.opcode == 10 &&
                std::string(reinterpret_cast<const char*>(ins.operands.data())) == "SPV_KHR_float_controls") {
                extension = i + 1;
            }
            if (ins.opcode == 15) entry = i + 1;
            if (ins.opcode == 16 && ins.operands.size() == 3 && ins.operands[1] == 4459) {
                CHECK(ins.operands[2] == width);
                mode = i + 1;
            }
        }
        CHECK(capability > 0);
        CHECK(extension > capability);
        CHECK(entry > extension);
        CHECK(mode > entry);
        CHECK(spirv_val_accepts(code, m.name));
        // Patching twice adds no second extension.
        CHECK(with_denorm_preserve(code.data(), code.size(), width).size() == code.size() + 2 + 4);
        ++patched;
    }
    CHECK(patched > 0);
    std::vector<uint32_t> garbage(8, 0xffffffffu);
    CHECK_THROWS_AS(with_denorm_preserve(garbage.data(), garbage.size(), 32), Error);
}
