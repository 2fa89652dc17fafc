// A compute kernel of the suite's own (tests/shaders/*.comp, compiled by the build), run on the
// Context's device and queue the way an engine runs its own shaders that #include vkc's GLSL pieces.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "vkc/vkc.hpp"

namespace vkc::test {

// The SPIR-V file tests/shaders/<name>.comp was compiled to (VKC_TEST_SHADER_DIR).
std::string test_shader_path(const std::string& name);

class RawKernel {
public:
    // `bindings` storage buffers at bindings 0.. of set 0, and `push_bytes` of push constants.
    RawKernel(Context& context, const std::string& spirv_path, uint32_t bindings, uint32_t push_bytes);
    ~RawKernel();
    RawKernel(const RawKernel&) = delete;
    RawKernel& operator=(const RawKernel&) = delete;

    // One dispatch of `groups` work-groups, specialization constant i set to constants[i]; waits.
    void run(const std::vector<uint32_t>& constants, const std::vector<const Buffer*>& buffers, const void* push,
             uint32_t groups);

private:
    Context& context_;
    VkDevice device_;
    uint32_t bindings_, push_bytes_;
    VkShaderModule module_ = VK_NULL_HANDLE;
    VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
    VkPipelineLayout layout_ = VK_NULL_HANDLE;
};

} // namespace vkc::test
