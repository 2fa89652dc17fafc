// What every plan does with the caller's ranges (src/device_scan/plan.cpp, src/sort/plan.cpp): checks
// them before anything is made, and binds them to descriptor sets of the shared layout. Not installed.
#pragma once

#include <cstdint>
#include <vector>

#include "device/vulkan_api.hpp"
#include "vkc/device_scan.hpp"

namespace vkc {

// Whether two ranges of a buffer share a byte.
bool overlaps(const BufferRange& a, uint64_t a_bytes, const BufferRange& b, uint64_t b_bytes);
// Throws Error naming `what` (the call) and `role` (the range): a null buffer, an offset that is not
// a multiple of `align`, fewer than `need` bytes.
void check_range(const BufferRange& range, uint64_t need, uint64_t align, const char* what, const char* role);
// Throws Error where the IndirectCount's buffer is null or its offset not a multiple of 4.
void check_indirect_count(const IndirectCount& count, const char* what);

// A range a plan binds: what it must hold and how it is named in errors.
struct RangeRole {
    const BufferRange* range;
    uint64_t bytes;
    uint64_t align;
    const char* name;
    bool written = true; // an IndirectCount may lie in a range the plan only reads
};
// Throws Error naming `what` and the role: a range check_range refuses, one past
// maxStorageBufferRange (a binding each), or two that overlap.
void check_roles(const std::vector<RangeRole>& roles, uint64_t max_storage_buffer_range, const char* what);
// check_indirect_count, and an Error where the count lies in a range the plan writes.
void check_indirect_count(const IndirectCount& count, const std::vector<RangeRole>& roles, const char* what);

// An IndirectCount's binding: its buffer from the offset at or before the count that the device's
// alignment allows, and the count's word in that binding.
struct CountBinding {
    VkDescriptorBufferInfo info{};
    uint32_t word = 0;
};
CountBinding count_binding(const IndirectCount& count, uint64_t min_offset_alignment);
// A plan's count binding: the IndirectCount's where it has one, else `placeholder` (a range the plan
// binds anyway: bound, never read) with word 0.
CountBinding count_binding(const IndirectCount* count, VkDescriptorBufferInfo placeholder, uint64_t min_offset_alignment);
// A range of `bytes` bound from the offset at or before it that the device's alignment allows, and its
// first word in that binding (at most 63: the alignment is at most 256 bytes), for ranges a kernel
// takes at any multiple of 4 bytes.
struct WordBinding {
    VkDescriptorBufferInfo info{};
    uint32_t word = 0;
};
WordBinding word_binding(const BufferRange& range, uint64_t bytes, uint64_t min_offset_alignment);

// A descriptor pool for `sets` sets of the shared layout (module_max_bindings storage buffers each:
// a pool counts the layout's descriptors, not the ones a plan writes), and the sets, allocated into `out`.
void allocate_sets(const DeviceTable& vk, VkDevice device, const VkAllocationCallbacks* allocator,
                   VkDescriptorSetLayout layout, uint32_t sets, VkDescriptorPool& pool, VkDescriptorSet* out);
// What the one-dispatch plans (select, segmented) and the sort's first pass record first: a fill of
// `scratch` with zeros and a barrier from that fill to compute reads and writes.
void record_scratch_zeroing(const DeviceTable& vk, VkCommandBuffer cmd, const BufferRange& scratch);
// A one-dispatch plan's dispatch: the pipeline, descriptor set 0, `bytes` of push constants and a
// grid of x by y work-groups.
void record_dispatch(const DeviceTable& vk, VkCommandBuffer cmd, VkPipeline pipeline, VkPipelineLayout layout,
                     VkDescriptorSet set, const void* params, uint32_t bytes, uint32_t grid_x, uint32_t grid_y);
// Points bindings 0 .. count - 1 of `set` at the ranges of `infos`.
void write_storage_buffers(const DeviceTable& vk, VkDevice device, VkDescriptorSet set,
                           const VkDescriptorBufferInfo* infos, uint32_t count);

} // namespace vkc
