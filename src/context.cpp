// The Context: a Device (device/device.cpp) on a device with a queue, and its own state beside it
// (submit/context_state.hpp). Its work lives by concern in device/ (instance, device, memory),
// pipeline/, submit/, collectives/ and device_scan/.
#include <memory>
#include <mutex>
#include <string>

#include "device/device_core.hpp"
#include "device/device_state.hpp"
#include "submit/context_state.hpp"

namespace vkc {

// ---- Context ----

// On a throw, the members' destructors destroy what was made, once: state_'s, then device_'s.
Context::Context(const ContextOptions& options) {
    device_.state_ = std::make_unique<DeviceState>();
    DeviceQueue queue = device_.state_->create(options);
    state_ = std::make_unique<ContextState>(*device_.state_, queue);
    state_->create();
}
Context::~Context() = default;

bool Context::validation_enabled() const { return device_.state_->validation_on; }
uint64_t Context::validation_messages() const { return state_->core->validation_count; }
std::string Context::last_validation_message() const {
    std::lock_guard<std::mutex> lock(state_->core->validation_mutex);
    return state_->core->validation_last;
}

VkInstance Context::vk_instance() const { return device_.state_->instance; }
VkPhysicalDevice Context::vk_physical_device() const { return device_.state_->physical; }
VkDevice Context::vk_device() const { return state_->device; }
uint32_t Context::queue_family() const { return state_->queue_family; }
VkQueue Context::queue() const { return state_->queue; }

} // namespace vkc
