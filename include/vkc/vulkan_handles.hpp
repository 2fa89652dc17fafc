// The Vulkan types vkcollectives' public C++ headers name: include/vkc/vulkan_handles.h says why
// they are declared there rather than taken from <vulkan/vulkan_core.h>.
#pragma once

#include "vkc/vulkan_handles.h"
