// volk, with the Vulkan prototypes switched off, for the runtime's own sources only.
#pragma once
#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <volk.h>
