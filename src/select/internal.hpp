// Shared by the device-wide select's sources (src/select/): the checks every entry point makes and
// the plan's state. Not installed.
#pragma once

#include <cstdint>
#include <memory>

#include "device/device_core.hpp"
#include "vkc/contract.h"

#include "vkc/select.hpp"

namespace vkc {

// Item types a select takes: 8- to 64-bit integers, and half, float and double.
bool is_select_item(Type item);
// Throws Error naming what is wrong: the item type, the predicate, the command, the count.
void check_select_arguments(Type item, uint64_t count, const SelectOptions& o, const char* what);
// Scratch bytes a select of count items needs.
uint64_t select_scratch_bytes_of(uint64_t count);
// Bytes of the indirect command options.command asks for (0 for none).
uint32_t select_command_bytes(KeptCommand command);

// Push constants of vkc/device_select.glsl (its Params block), 32 bytes like every module's.
struct SelectParams {
    uint32_t count, tiles, flags, limits;
    uint32_t a[2], b[2];
};
static_assert(sizeof(SelectParams) == module_push_constant_bytes);
static_assert(select_tile_items == VKC_SELECT_WORKGROUP_SIZE * VKC_SELECT_ITEMS);
static_assert(select_max_count == VKC_SELECT_MAX_COUNT);
static_assert(uint32_t(Selection::flagged) == VKC_SELECT_BY_FLAGGED && uint32_t(Selection::predicate) == VKC_SELECT_BY_PREDICATE &&
              uint32_t(Selection::unique) == VKC_SELECT_BY_UNIQUE);

struct SelectPlan::State {
    std::shared_ptr<DeviceCore> core;
    VkPipeline pipeline = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VkDescriptorSet set = VK_NULL_HANDLE;
    BufferRange scratch;            // the range the fill zeroes
    BufferRange kept_zero;          // no items (no pipeline): the kept count's range, filled with 0
    BufferRange command;            // where the command's fixed words go (size 0: no command)
    uint32_t command_words[5] = {}; // those words, the kept-dependent one as for 0 kept
    SelectParams params{};
    uint32_t grid_x = 0, grid_y = 0;
    uint64_t count = 0;
    Path path = Path::shared_memory;
    ~State() {
        if (pool) core->vk.vkDestroyDescriptorPool(core->device, pool, core->allocator);
    }
};

} // namespace vkc
