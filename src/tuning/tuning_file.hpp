// Tuning files (include/vkc/tuning.hpp): the fields a file may set, their parsing, and the text in
// effect for this process (set_tuning, or VKC_TUNING_FILE).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "tuning/scan_tuning.hpp"

namespace vkc {

struct TuningField {
    const char* name;
    std::variant<uint32_t ScanTuning::*, uint64_t ScanTuning::*, bool ScanTuning::*> member;
    uint64_t min, max;
    uint64_t get(const ScanTuning& row) const;
    void set(ScanTuning& row, uint64_t value) const;
};

// Every field of the row a tuning file may set, in the row's order.
const std::vector<TuningField>& tuning_fields();
const TuningField* find_tuning_field(std::string_view name);

// The section of the tuning in effect that matches the device (its driver's before the device's
// alone), applied to the row. Throws Error where VKC_TUNING_FILE cannot be read or parsed.
void apply_tuning_text(ScanTuning& row, const DeviceInfo& device);

} // namespace vkc
