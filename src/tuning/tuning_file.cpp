#include "tuning/tuning_file.hpp"

#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>

#include "environment.hpp"
#include "vkc/contract.h"
#include "vkc/tuning.hpp"

namespace vkc {
namespace {

struct Section {
    std::string device, driver; // driver empty: any
    std::vector<std::pair<const TuningField*, uint64_t>> values;
};
using Sections = std::vector<Section>;

std::string_view trim(std::string_view s) {
    size_t a = s.find_first_not_of(" \t\r");
    if (a == std::string_view::npos) return {};
    size_t b = s.find_last_not_of(" \t\r");
    return s.substr(a, b - a + 1);
}

// `where` names the source in errors: "set_tuning" or "VKC_TUNING_FILE=<path>".
Sections parse(std::string_view text, const std::string& where) {
    Sections sections;
    size_t line_number = 0;
    while (!text.empty()) {
        size_t end = text.find('\n');
        std::string_view line = text.substr(0, end);
        text = end == std::string_view::npos ? std::string_view{} : text.substr(end + 1);
        ++line_number;
        line = trim(line.substr(0, line.find('#')));
        if (line.empty()) continue;
        size_t space = line.find_first_of(" \t");
        std::string_view key = line.substr(0, space);
        std::string_view value = space == std::string_view::npos ? std::string_view{} : trim(line.substr(space));
        auto fail = [&](const std::string& problem) {
            return Error(where + ": line " + std::to_string(line_number) + ": " + problem);
        };
        if (key == "device") {
            if (value.empty()) throw fail("'device' needs the device's name");
            sections.push_back({std::string(value), {}, {}});
            continue;
        }
        if (sections.empty()) throw fail("'" + std::string(key) + "' comes before any 'device' line");
        if (key == "driver") {
            if (value.empty()) throw fail("'driver' needs the driver's name and version");
            if (!sections.back().driver.empty() || !sections.back().values.empty()) {
                throw fail("'driver' must follow its 'device' line");
            }
            sections.back().driver = std::string(value);
            continue;
        }
        const TuningField* field = find_tuning_field(key);
        if (!field) throw fail("unknown field '" + std::string(key) + "' (docs/tuning.md lists the fields)");
        uint64_t v = 0;
        bool digits = !value.empty() && value.find_first_not_of("0123456789") == std::string_view::npos &&
                      value.size() <= 19;
        if (digits) v = std::stoull(std::string(value));
        if (!digits || v < field->min || v > field->max) {
            throw fail(std::string(field->name) + " takes a whole number from " + std::to_string(field->min) + " to " +
                       std::to_string(field->max) + ", not '" + std::string(value) + "'");
        }
        sections.back().values.emplace_back(field, v);
    }
    return sections;
}

// The tuning in effect: set_tuning's, else VKC_TUNING_FILE's (read again when the variable changes).
struct Registry {
    std::mutex mutex;
    bool set = false;
    std::shared_ptr<const Sections> given;
    std::string file;
    std::shared_ptr<const Sections> from_file;
};
Registry& registry() {
    static Registry r;
    return r;
}

std::shared_ptr<const Sections> sections_in_effect() {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    if (r.set) return r.given;
    std::string path = environment::tuning_file();
    if (path.empty()) return nullptr;
    if (path != r.file || !r.from_file) {
        std::ifstream in(path, std::ios::binary);
        if (!in) throw Error("VKC_TUNING_FILE=" + path + ": the file cannot be read");
        std::stringstream text;
        text << in.rdbuf();
        r.from_file = std::make_shared<const Sections>(parse(text.str(), "VKC_TUNING_FILE=" + path));
        r.file = path;
    }
    return r.from_file;
}

} // namespace

uint64_t TuningField::get(const ScanTuning& row) const {
    return std::visit([&](auto m) { return uint64_t(row.*m); }, member);
}

void TuningField::set(ScanTuning& row, uint64_t value) const {
    std::visit([&](auto m) { row.*m = static_cast<std::remove_reference_t<decltype(row.*m)>>(value); }, member);
}

const std::vector<TuningField>& tuning_fields() {
    constexpr uint64_t counts = uint64_t(1) << 40, items = VKC_DEVICE_MAX_ITEMS_PER_INVOCATION;
    static const std::vector<TuningField> fields = {
        {"invocations", &ScanTuning::invocations, 1, 1024},
        {"items", &ScanTuning::items, 0, items},
        {"item_bytes", &ScanTuning::item_bytes, 0, 256},
        {"always_staged", &ScanTuning::always_staged, 0, 1},
        {"wide_tile_min_items", &ScanTuning::wide_tile_min_items, 0, counts},
        {"wide_tile_items", &ScanTuning::wide_tile_items, 0, items},
        {"wide_tile_integer_invocations", &ScanTuning::wide_tile_integer_invocations, 0, 1024},
        {"wide_tile_float_invocations", &ScanTuning::wide_tile_float_invocations, 0, 1024},
        {"stage_single_tiles", &ScanTuning::stage_single_tiles, 0, 1},
        {"chunked_min_items", &ScanTuning::chunked_min_items, 0, counts},
        {"chunk_tiles", &ScanTuning::chunk_tiles, 1, 64},
        {"f64_narrow_chunks_min_items", &ScanTuning::f64_narrow_chunks_min_items, 0, counts},
        {"f64_chunk_invocations", &ScanTuning::f64_chunk_invocations, 0, 1024},
        {"prefetch_min_bytes", &ScanTuning::prefetch_min_bytes, 0, counts},
        {"scan_chunk_cap", &ScanTuning::scan_chunk_cap, 1, 65535},
        {"reduce_chunk_cap", &ScanTuning::reduce_chunk_cap, 1, 65535},
        {"integer_reduce_item_bytes", &ScanTuning::integer_reduce_item_bytes, 0, 256},
    };
    return fields;
}

const TuningField* find_tuning_field(std::string_view name) {
    for (const TuningField& f : tuning_fields()) {
        if (name == f.name) return &f;
    }
    return nullptr;
}

void apply_tuning_text(ScanTuning& row, const DeviceInfo& device) {
    std::shared_ptr<const Sections> sections = sections_in_effect();
    if (!sections) return;
    const Section* best = nullptr;
    for (const Section& s : *sections) {
        if (s.device != device.name) continue;
        if (s.driver == device.driver) best = &s;
        else if (s.driver.empty() && !(best && best->driver == device.driver)) best = &s;
    }
    if (!best) return;
    for (auto [field, value] : best->values) field->set(row, value);
}

void set_tuning(std::string_view text) {
    auto parsed = std::make_shared<const Sections>(parse(text, "set_tuning"));
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    r.set = true;
    r.given = parsed->empty() ? nullptr : parsed;
}

std::string tuning_section(const DeviceInfo& device) {
    ScanTuning row = scan_tuning(device);
    std::string out = "device " + device.name + "\ndriver " + device.driver + "\n";
    for (const TuningField& f : tuning_fields()) out += std::string(f.name) + " " + std::to_string(f.get(row)) + "\n";
    return out;
}

} // namespace vkc
