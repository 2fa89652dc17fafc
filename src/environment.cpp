#include "environment.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace vkc::environment {
namespace {
const char* get(const char* name) {
    const char* v = std::getenv(name);
    return v && *v ? v : nullptr;
}
bool flag(const char* name) {
    const char* v = get(name);
    return v && std::strcmp(v, "0") != 0;
}
std::string text(const char* name) {
    const char* v = get(name);
    return v ? v : "";
}
std::optional<uint32_t> number(const char* name) {
    const char* v = get(name);
    if (!v) return std::nullopt;
    return uint32_t(std::strtoul(v, nullptr, 10));
}
} // namespace

std::string device() { return text("VKC_DEVICE"); }
bool validation() { return flag("VKC_VALIDATION"); }
bool shared_memory_only() { return flag("VKC_SHARED_MEMORY_ONLY"); }
std::string pipeline_cache() { return text("VKC_PIPELINE_CACHE"); }
std::string tuning_file() { return text("VKC_TUNING_FILE"); }

bool pipeline_stats() { return flag("VKC_PIPELINE_STATS"); }
std::string spirv_override() { return text("VKC_SPIRV_OVERRIDE"); }
bool lookback_stats() { return std::getenv("VKC_LOOKBACK_STATS") != nullptr; }
std::optional<uint32_t> lookback_window() { return number("VKC_LOOKBACK_WINDOW"); }
std::optional<bool> block_staged() {
    const char* v = get("VKC_BLOCK_STAGED");
    if (!v) return std::nullopt;
    return std::atoi(v) != 0;
}
std::optional<uint32_t> block_batch() {
    const char* v = get("VKC_BLOCK_BATCH");
    if (!v) return std::nullopt;
    return uint32_t(std::clamp(std::atoi(v), 1, 8));
}

} // namespace vkc::environment
