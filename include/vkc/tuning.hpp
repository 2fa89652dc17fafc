// Tuning files: the device-wide scan's and reduce's tile shapes and policies measured on the user's
// GPU by `vkc tune`, handed to the library as a file or as bytes an engine ships (like a pipeline
// cache). Without one, the library's own rows apply, scaled to the device's multiprocessor count.
//
// The text holds sections, each for one device (and optionally one driver); a section's lines set
// fields of the row (docs/tuning.md lists them). Lines after '#' are comments:
//
//   device NVIDIA H200                 # VkPhysicalDeviceProperties::deviceName, whole
//   driver NVIDIA 580.159.04           # DeviceInfo::driver, whole; left out: any driver
//   integer_reduce_item_bytes 128
//   chunk_tiles 4
//
// Fields a section leaves out keep the library's value. A section for the device and its driver
// wins over one for the device alone.
#pragma once

#include <string>
#include <string_view>

#include "vkc/api.hpp"
#include "vkc/device.hpp"

namespace vkc {
VKC_API_BEGIN

// Takes tuning text for this process, replacing what an earlier call or VKC_TUNING_FILE gave, for
// plans and scratch queries made from now on (plans made before keep their shapes: make them and
// their scratch under one tuning). Empty text clears it. Throws Error naming the line and the
// problem (an unknown field, a value out of range, a field before any "device" line); then the
// tuning in effect is unchanged.
void set_tuning(std::string_view text);

// The tuning in effect for this device as a section of a tuning file: every field, with the value
// plans use now (the library's row, scaled to the device, with whatever tuning text set).
std::string tuning_section(const DeviceInfo& device);

VKC_API_END
} // namespace vkc
