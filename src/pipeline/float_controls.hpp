// DenormPreserve for the float add and mul modules, set at shader-module creation where the device
// offers it (shaderDenormPreserveFloat16/32/64). The modules are built without it: one build runs on
// every device, and a module that declares a mode the device lacks is invalid there.
#pragma once

#include <cstdint>
#include <vector>

#include "vkc/context.hpp"

namespace vkc {

// The bit width (16, 32, 64) whose denormals a module's arithmetic should keep, or 0 where it has
// none to keep (integer types, min and max that compare bits, custom operators).
uint32_t denorm_preserve_width(const ModuleInfo& m);

// `code` with OpCapability DenormPreserve, the SPV_KHR_float_controls extension (SPIR-V before 1.4)
// and OpExecutionMode DenormPreserve <width> on its entry points. Throws Error on malformed SPIR-V.
std::vector<uint32_t> with_denorm_preserve(const uint32_t* code, size_t words, uint32_t width);

} // namespace vkc
