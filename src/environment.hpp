// Every environment variable the library reads, in one place. They are read where they are used
// (not cached), so a process may change them between Contexts.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace vkc::environment {

// ---- Settings for users (README.md) ----
// VKC_DEVICE: the device a Context opens when ContextOptions::device is empty (index or part of a name).
std::string device();
// VKC_VALIDATION=1: every Context enables the validation layer, as ContextOptions::validation does.
bool validation();
// VKC_SHARED_MEMORY_ONLY=1: run the shared-memory modules only, as ContextOptions::shared_memory_only does.
bool shared_memory_only();
// VKC_PIPELINE_CACHE=<file>: the pipeline cache file when ContextOptions::pipeline_cache_path is empty;
// "none": a Context's own cache stays in memory.
std::string pipeline_cache();
// VKC_TUNING_FILE=<file>: a tuning file (vkc/tuning.hpp) for processes that never call set_tuning.
std::string tuning_file();

// ---- Diagnostics and kernel experiments (docs/design.md); not for production ----
// VKC_PIPELINE_STATS=1: print the driver's pipeline statistics (registers, ...) for each pipeline,
// and the sizes a pipeline cache file was read and saved at.
bool pipeline_stats();
// VKC_SPIRV_OVERRIDE=<module name>=<file.spv>: run that file in place of the embedded module.
std::string spirv_override();
// VKC_LOOKBACK_STATS=1: the device scan's look-back counts its rounds, walks and fallbacks, and
// Context::scan prints them.
bool lookback_stats();
// VKC_LOOKBACK_WINDOW=<n>: predecessors a look-back round reads.
std::optional<uint32_t> lookback_window();
// VKC_BLOCK_STAGED=0: block scans load tiles straight into registers.
std::optional<bool> block_staged();
// VKC_BLOCK_BATCH=<1..8>: tiles a block scan's unstaged loop loads at once.
std::optional<uint32_t> block_batch();

} // namespace vkc::environment
