// Memory: choosing memory types, the heap budget, Buffers, and staged upload and download.
#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "device/device_core.hpp"
#include "device/device_state.hpp"
#include "device/memory.hpp"
#include "submit/context_state.hpp"

namespace vkc {

void DeviceMemory::set_up(std::shared_ptr<DeviceCore> device, VkPhysicalDevice physical_device,
                          uint64_t max_allocation) {
    core = std::move(device);
    physical = physical_device;
    max_allocation_size = max_allocation;
    core->vki.vkGetPhysicalDeviceMemoryProperties(physical, &properties);
}

uint32_t DeviceMemory::memory_type(uint32_t allowed, VkMemoryPropertyFlags want, VkMemoryPropertyFlags avoid) const {
    for (uint32_t i = 0; i < properties.memoryTypeCount; ++i) {
        VkMemoryPropertyFlags flags = properties.memoryTypes[i].propertyFlags;
        if ((allowed & (1u << i)) && (flags & want) == want && !(flags & avoid)) return i;
    }
    return UINT32_MAX;
}

Buffer DeviceMemory::make_buffer(uint64_t bytes, VkMemoryPropertyFlags preferred,
                                 VkMemoryPropertyFlags fallback) const {
    if (bytes == 0) throw Error("buffer size 0: a buffer needs at least one byte");
    if (max_allocation_size && bytes > max_allocation_size) {
        throw Error("a buffer of " + std::to_string(bytes) +
                    " bytes exceeds the device limit maxMemoryAllocationSize = " + std::to_string(max_allocation_size));
    }
    const DeviceTable& vk = core->vk;
    VkDevice device = core->device;
    const VkAllocationCallbacks* allocator = core->allocator;
    Buffer b;
    b.owner_ = core;
    b.size_ = bytes;
    VkBufferCreateInfo info{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    info.size = bytes;
    info.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                 VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    check(vk.vkCreateBuffer(device, &info, allocator, &b.buffer_), "vkCreateBuffer");
    VkMemoryRequirements req;
    vk.vkGetBufferMemoryRequirements(device, b.buffer_, &req);
    uint32_t type = memory_type(req.memoryTypeBits, preferred);
    if (type == UINT32_MAX) type = memory_type(req.memoryTypeBits, fallback);
    if (type == UINT32_MAX) throw Error("no memory type fits a buffer of " + std::to_string(bytes) + " bytes");
    check_budget(type, req.size);
    VkMemoryAllocateInfo alloc{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    alloc.allocationSize = req.size;
    alloc.memoryTypeIndex = type;
    VkResult r = vk.vkAllocateMemory(device, &alloc, allocator, &b.memory_);
    if (r == VK_ERROR_OUT_OF_DEVICE_MEMORY) {
        throw Error("vkAllocateMemory failed: out of device memory for a buffer of " + std::to_string(bytes) +
                    " bytes");
    }
    check(r, "vkAllocateMemory");
    check(vk.vkBindBufferMemory(device, b.buffer_, b.memory_, 0), "vkBindBufferMemory");
    VkMemoryPropertyFlags flags = properties.memoryTypes[type].propertyFlags;
    const VkMemoryPropertyFlags mappable = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    if ((flags & mappable) == mappable) {
        check(vk.vkMapMemory(device, b.memory_, 0, VK_WHOLE_SIZE, 0, &b.mapped_), "vkMapMemory");
    }
    return b;
}

void DeviceMemory::check_budget(uint32_t type, uint64_t bytes) const {
    if (!budget) return;
    VkPhysicalDeviceMemoryBudgetPropertiesEXT heaps{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT};
    VkPhysicalDeviceMemoryProperties2 properties2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2};
    properties2.pNext = &heaps;
    core->vki.vkGetPhysicalDeviceMemoryProperties2(physical, &properties2);
    uint32_t heap = properties.memoryTypes[type].heapIndex;
    uint64_t total = heaps.heapBudget[heap], used = std::min(heaps.heapUsage[heap], total);
    if (total && bytes > total - used) {
        throw Error("a buffer of " + std::to_string(bytes) + " bytes exceeds the memory budget of heap " +
                    std::to_string(heap) + ": " + std::to_string(total - used) + " of " + std::to_string(total) +
                    " bytes are free (VK_EXT_memory_budget)");
    }
}

// ---- Buffer ----

Buffer::Buffer(Buffer&& o) noexcept { *this = std::move(o); }
Buffer& Buffer::operator=(Buffer&& o) noexcept {
    if (this != &o) {
        release();
        owner_ = std::exchange(o.owner_, nullptr);
        buffer_ = std::exchange(o.buffer_, VK_NULL_HANDLE);
        memory_ = std::exchange(o.memory_, VK_NULL_HANDLE);
        mapped_ = std::exchange(o.mapped_, nullptr);
        size_ = std::exchange(o.size_, 0);
    }
    return *this;
}
Buffer::~Buffer() { release(); }
void Buffer::release() {
    if (!owner_) return;
    if (buffer_) owner_->vk.vkDestroyBuffer(owner_->device, buffer_, owner_->allocator);
    if (memory_) owner_->vk.vkFreeMemory(owner_->device, memory_, owner_->allocator);
    owner_.reset();
    buffer_ = VK_NULL_HANDLE;
    memory_ = VK_NULL_HANDLE;
    mapped_ = nullptr;
    size_ = 0;
}

Buffer Context::create_buffer(uint64_t bytes) {
    return device_.state_->memory.make_buffer(bytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0);
}

void DeviceMemory::check_buffer(const Buffer& b, const char* role) const {
    if (!b.owner_) throw Error(std::string(role) + " is an empty Buffer (moved from, or never created)");
    if (b.owner_ != core) throw Error(std::string(role) + " is a Buffer of another Context");
}

void check_range(const Buffer& b, uint64_t bytes, uint64_t offset, const char* what) {
    if (!b.handle()) throw Error(std::string(what) + ": the buffer is empty (moved from or default constructed)");
    if (offset > b.size() || bytes > b.size() - offset) {
        throw Error(std::string(what) + ": " + std::to_string(bytes) + " bytes at offset " + std::to_string(offset) +
                    " run past the end of a buffer of " + std::to_string(b.size()) + " bytes");
    }
}

namespace {
constexpr uint64_t staging_bytes = uint64_t(256) << 20; // host-visible bytes an upload or download holds
} // namespace

void Context::upload(Buffer& dst, const void* src, uint64_t bytes, uint64_t offset) {
    check_range(dst, bytes, offset, "upload");
    device_.state_->memory.check_buffer(dst, "upload: the destination");
    if (bytes == 0) return;
    if (dst.mapped_) {
        std::memcpy(static_cast<char*>(dst.mapped_) + offset, src, bytes);
        return;
    }
    // Through a staging buffer of at most staging_bytes, so that uploads of any size need no host-visible
    // allocation of their size.
    const uint64_t chunk = std::min(bytes, staging_bytes);
    const VkMemoryPropertyFlags visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    Buffer staging = device_.state_->memory.make_buffer(chunk, visible, visible);
    for (uint64_t done = 0; done < bytes; done += chunk) {
        uint64_t n = std::min(chunk, bytes - done);
        std::memcpy(staging.mapped_, static_cast<const char*>(src) + done, n);
        state_->begin();
        VkBufferCopy region{0, offset + done, n};
        state_->vk.vkCmdCopyBuffer(state_->cmd, staging.buffer_, dst.buffer_, 1, &region);
        state_->submit_and_wait();
    }
}

void Context::download(const Buffer& src, void* dst, uint64_t bytes, uint64_t offset) {
    check_range(src, bytes, offset, "download");
    device_.state_->memory.check_buffer(src, "download: the source");
    if (bytes == 0) return;
    if (src.mapped_) {
        std::memcpy(dst, static_cast<const char*>(src.mapped_) + offset, bytes);
        return;
    }
    const uint64_t chunk = std::min(bytes, staging_bytes);
    const VkMemoryPropertyFlags visible = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    Buffer staging = device_.state_->memory.make_buffer(chunk, visible | VK_MEMORY_PROPERTY_HOST_CACHED_BIT, visible);
    for (uint64_t done = 0; done < bytes; done += chunk) {
        uint64_t n = std::min(chunk, bytes - done);
        state_->begin();
        VkBufferCopy region{offset + done, 0, n};
        state_->vk.vkCmdCopyBuffer(state_->cmd, src.buffer_, staging.buffer_, 1, &region);
        state_->submit_and_wait();
        std::memcpy(static_cast<char*>(dst) + done, staging.mapped_, n);
    }
}

} // namespace vkc
