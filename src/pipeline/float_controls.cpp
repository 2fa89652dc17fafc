#include "pipeline/float_controls.hpp"

#include <cstring>
#include <string_view>

namespace vkc {
namespace {
// SPIR-V opcodes, capability and execution mode (SPIR-V 1.6 unified specification).
constexpr uint32_t op_extension = 10, op_capability = 17, op_entry_point = 15, op_execution_mode = 16;
constexpr uint32_t capability_denorm_preserve = 4464, mode_denorm_preserve = 4459;
constexpr uint32_t spirv_magic = 0x07230203, spirv_1_4 = 0x00010400, header_words = 5;
constexpr std::string_view float_controls_extension = "SPV_KHR_float_controls";

uint32_t instruction(uint32_t words, uint32_t opcode) { return words << 16 | opcode; }
} // namespace

uint32_t denorm_preserve_width(const ModuleInfo& m) {
    if (m.op != Op::add && m.op != Op::mul) return 0;
    switch (m.collective) {
    case Collective::reduce:
    case Collective::scan_inclusive:
    case Collective::scan_exclusive:
    case Collective::block_reduce:
    case Collective::block_scan_inclusive:
    case Collective::block_scan_exclusive:
    case Collective::device_scan:
    case Collective::segmented: break;
    default: return 0;
    }
    switch (m.type) {
    case Type::f16: return 16;
    case Type::f32: return 32;
    case Type::f64: return 64;
    default: return 0;
    }
}

std::vector<uint32_t> with_denorm_preserve(const uint32_t* code, size_t words, uint32_t width) {
    if (words < header_words || code[0] != spirv_magic) throw Error("with_denorm_preserve: not a SPIR-V module");
    // Where each new instruction goes: after the last capability, after the last extension (or the
    // capabilities), and after the last entry point (execution modes follow the entry points).
    size_t after_capabilities = header_words, after_extensions = 0, after_entry_points = 0;
    bool has_extension = false;
    std::vector<uint32_t> entry_points;
    for (size_t i = header_words; i < words;) {
        uint32_t count = code[i] >> 16, opcode = code[i] & 0xffffu;
        if (count == 0 || i + count > words) throw Error("with_denorm_preserve: malformed SPIR-V instruction");
        if (opcode == op_capability) after_capabilities = i + count;
        if (opcode == op_extension) {
            after_extensions = i + count;
            const char* name = reinterpret_cast<const char*>(code + i + 1);
            has_extension = has_extension ||
                            std::string_view(name, strnlen(name, 4 * (count - 1))) == float_controls_extension;
        }
        if (opcode == op_entry_point && count >= 3) {
            entry_points.push_back(code[i + 2]);
            after_entry_points = i + count;
        }
        i += count;
    }
    if (entry_points.empty()) throw Error("with_denorm_preserve: the module has no entry point");
    if (!after_extensions) after_extensions = after_capabilities;

    std::vector<uint32_t> extension;
    if (!has_extension && code[1] < spirv_1_4) {
        size_t string_words = float_controls_extension.size() / 4 + 1; // with its terminating zero
        extension.assign(1 + string_words, 0);
        extension[0] = instruction(uint32_t(extension.size()), op_extension);
        std::memcpy(extension.data() + 1, float_controls_extension.data(), float_controls_extension.size());
    }
    std::vector<uint32_t> out;
    out.reserve(words + 2 + extension.size() + 4 * entry_points.size());
    out.insert(out.end(), code, code + after_capabilities);
    out.insert(out.end(), {instruction(2, op_capability), capability_denorm_preserve});
    out.insert(out.end(), code + after_capabilities, code + after_extensions);
    out.insert(out.end(), extension.begin(), extension.end());
    out.insert(out.end(), code + after_extensions, code + after_entry_points);
    for (uint32_t id : entry_points) {
        out.insert(out.end(), {instruction(4, op_execution_mode), id, mode_denorm_preserve, width});
    }
    out.insert(out.end(), code + after_entry_points, code + words);
    return out;
}

} // namespace vkc
