// vkcollectives: Vulkan work-group collectives (OpenCL C's reduce, scans, broadcast, all, any) for
// every subgroup width, as GLSL headers, embedded SPIR-V modules and this C++ runtime.
#pragma once

#include "vkc/context.hpp"
#include "vkc/half.hpp"
#include "vkc/modules.hpp"
#include "vkc/tuning.hpp"
#include "vkc/types.hpp"
