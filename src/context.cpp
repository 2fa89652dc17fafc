// The Context: a Device (device/device.cpp) on a device with a queue, and the state it reports. Its work lives by concern in
// device/ (instance, device, memory), pipeline/, submit/, collectives/ and device_scan/.
#include <mutex>
#include <string>

#include "context_impl.hpp"

namespace vkc {

// ---- Context ----

Context::Context(const ContextOptions& options) {
    device_.state_ = std::make_unique<DeviceState>();
    device_.state_->create(options); // on a throw, device_'s destructor destroys what was made, once
}
Context::~Context() = default;

bool Context::validation_enabled() const { return impl()->validation_on; }
uint64_t Context::validation_messages() const { return impl()->core->validation_count; }
std::string Context::last_validation_message() const {
    std::lock_guard<std::mutex> lock(impl()->core->validation_mutex);
    return impl()->core->validation_last;
}

void DeviceState::check_buffer(const Buffer& b, const char* role) const {
    if (!b.owner_) throw Error(std::string(role) + " is an empty Buffer (moved from, or never created)");
    if (b.owner_ != core) throw Error(std::string(role) + " is a Buffer of another Context");
}

VkInstance Context::vk_instance() const { return impl()->instance; }
VkPhysicalDevice Context::vk_physical_device() const { return impl()->physical; }
VkDevice Context::vk_device() const { return impl()->device; }
uint32_t Context::queue_family() const { return impl()->queue_family; }
VkQueue Context::queue() const { return impl()->queue; }

} // namespace vkc
