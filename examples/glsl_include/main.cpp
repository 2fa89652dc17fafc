// Runs compact.comp, an engine's own shader built on the vkc GLSL headers, over random uints and checks
// each tile's kept items and count against the CPU. The subgroup build runs where the device has the
// subgroup operations it uses, the shared-memory build everywhere.
//   glsl_include [<folder of compact_subgroup.spv, compact_shared.spv and subgroup_probe.spv>]
// Prints "glsl_include: ok" and exits 0 when every result matches.
#include "../common/gpu.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <random>

namespace {

constexpr uint32_t tile = 256; // local_size_x of compact.comp and subgroup_probe.comp

// A compute pipeline whose shader reads storage buffers at bindings 0, 1, ... of set 0, with its
// descriptor set written.
struct Pipeline {
    VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;
    VkPipelineLayout layout = VK_NULL_HANDLE;
    VkShaderModule shader = VK_NULL_HANDLE;
    VkPipeline pipeline = VK_NULL_HANDLE;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VkDescriptorSet set = VK_NULL_HANDLE;

    Pipeline(const Gpu& gpu, const std::string& spv, const std::vector<VkBuffer>& buffers, uint32_t push_bytes,
             const VkSpecializationInfo* spec)
        : gpu_(gpu) {
        const auto n = uint32_t(buffers.size());
        std::vector<VkDescriptorSetLayoutBinding> bindings(n);
        for (uint32_t b = 0; b < n; ++b)
            bindings[b] = {b, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
        VkDescriptorSetLayoutCreateInfo dslci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
        dslci.bindingCount = n;
        dslci.pBindings = bindings.data();
        check(vkCreateDescriptorSetLayout(gpu.device, &dslci, nullptr, &set_layout), "vkCreateDescriptorSetLayout");
        VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
        VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
        plci.setLayoutCount = 1;
        plci.pSetLayouts = &set_layout;
        plci.pushConstantRangeCount = push_bytes ? 1 : 0;
        plci.pPushConstantRanges = &range;
        check(vkCreatePipelineLayout(gpu.device, &plci, nullptr, &layout), "vkCreatePipelineLayout");
        shader = gpu.load_shader(spv);
        VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
        cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
        cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
        cpci.stage.module = shader;
        cpci.stage.pName = "main";
        cpci.stage.pSpecializationInfo = spec;
        cpci.layout = layout;
        check(vkCreateComputePipelines(gpu.device, VK_NULL_HANDLE, 1, &cpci, nullptr, &pipeline),
              "vkCreateComputePipelines");

        VkDescriptorPoolSize pool_size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, n};
        VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
        dpci.maxSets = 1;
        dpci.poolSizeCount = 1;
        dpci.pPoolSizes = &pool_size;
        check(vkCreateDescriptorPool(gpu.device, &dpci, nullptr, &pool), "vkCreateDescriptorPool");
        VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
        dsai.descriptorPool = pool;
        dsai.descriptorSetCount = 1;
        dsai.pSetLayouts = &set_layout;
        check(vkAllocateDescriptorSets(gpu.device, &dsai, &set), "vkAllocateDescriptorSets");
        std::vector<VkDescriptorBufferInfo> infos(n);
        std::vector<VkWriteDescriptorSet> writes(n);
        for (uint32_t b = 0; b < n; ++b) {
            infos[b] = {buffers[b], 0, VK_WHOLE_SIZE};
            writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
            writes[b].dstSet = set;
            writes[b].dstBinding = b;
            writes[b].descriptorCount = 1;
            writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
            writes[b].pBufferInfo = &infos[b];
        }
        vkUpdateDescriptorSets(gpu.device, n, writes.data(), 0, nullptr);
    }
    ~Pipeline() {
        vkDestroyDescriptorPool(gpu_.device, pool, nullptr);
        vkDestroyPipeline(gpu_.device, pipeline, nullptr);
        vkDestroyShaderModule(gpu_.device, shader, nullptr);
        vkDestroyPipelineLayout(gpu_.device, layout, nullptr);
        vkDestroyDescriptorSetLayout(gpu_.device, set_layout, nullptr);
    }
    Pipeline(const Pipeline&) = delete;
    Pipeline& operator=(const Pipeline&) = delete;

    void bind(VkCommandBuffer cmd) const {
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
    }

private:
    const Gpu& gpu_;
};

// Whether the device packs a work-group of `tile` invocations into subgroups in local-index order, as
// the scan's subgroup path needs. Asked once per work-group shape, at startup.
bool subgroups_packed(const Gpu& gpu, const std::string& dir) {
    HostBuffer slots = gpu.create_buffer(4 * tile);
    bool packed = true;
    {
        Pipeline probe(gpu, dir + "/subgroup_probe.spv", {slots.buffer}, 0, nullptr);
        gpu.run([&](VkCommandBuffer cmd) {
            probe.bind(cmd);
            vkCmdDispatch(cmd, 1, 1, 1);
        });
        const auto* slot = static_cast<const uint32_t*>(slots.data);
        for (uint32_t i = 0; i < tile; ++i) packed = packed && slot[i] == i;
    }
    gpu.destroy(slots);
    return packed;
}

struct Params {
    uint32_t count;
    uint32_t threshold;
};

void run_and_check(const Gpu& gpu, const std::string& spv, VkBool32 packed, const std::vector<uint32_t>& items,
                   uint32_t threshold) {
    const auto count = uint32_t(items.size());
    const uint32_t tiles = (count + tile - 1) / tile;
    HostBuffer in = gpu.create_buffer(4ull * count);
    HostBuffer kept = gpu.create_buffer(4ull * tiles * tile);
    HostBuffer counts = gpu.create_buffer(4ull * tiles);
    std::memcpy(in.data, items.data(), in.size);
    {
        // Specialization constant 0 of compact.comp: subgroups_packed.
        VkSpecializationMapEntry entry{0, 0, sizeof(VkBool32)};
        VkSpecializationInfo spec{1, &entry, sizeof(packed), &packed};
        Pipeline compact(gpu, spv, {in.buffer, kept.buffer, counts.buffer}, sizeof(Params), &spec);
        const Params params{count, threshold};
        gpu.run([&](VkCommandBuffer cmd) {
            compact.bind(cmd);
            vkCmdPushConstants(cmd, compact.layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(params), &params);
            vkCmdDispatch(cmd, tiles, 1, 1);
        });
    }

    // Each tile keeps its items below the threshold, in order, at the front of its range of `kept`.
    const auto* got_kept = static_cast<const uint32_t*>(kept.data);
    const auto* got_counts = static_cast<const uint32_t*>(counts.data);
    for (uint32_t t = 0; t < tiles; ++t) {
        uint32_t n = 0;
        for (uint32_t i = t * tile; i < std::min(count, (t + 1) * tile); ++i) {
            if (items[i] >= threshold) continue;
            if (got_kept[t * tile + n] != items[i])
                fail(spv + ": tile " + std::to_string(t) + " kept item " + std::to_string(n) + " is " +
                     std::to_string(got_kept[t * tile + n]) + ", expected " + std::to_string(items[i]));
            ++n;
        }
        if (got_counts[t] != n)
            fail(spv + ": tile " + std::to_string(t) + " kept " + std::to_string(got_counts[t]) + " items, expected " +
                 std::to_string(n));
    }
    gpu.destroy(in);
    gpu.destroy(kept);
    gpu.destroy(counts);
}

void run(int argc, char** argv) {
    const std::string dir = argc > 1 ? argv[1] : SHADER_DIR;
    Gpu gpu;
    std::printf("glsl_include: %s, subgroup size %u\n", gpu.properties.deviceName, gpu.subgroup.subgroupSize);

    // Six full tiles and a short one of 100 items; about half the items are kept.
    std::vector<uint32_t> items(6 * tile + 100);
    std::mt19937 rng(2026);
    for (uint32_t& x : items) x = uint32_t(rng());
    const uint32_t threshold = 1u << 31;

    // What compact_subgroup.spv declares (OpCapability GroupNonUniform, ...Arithmetic, ...ShuffleRelative).
    const VkSubgroupFeatureFlags needs = VK_SUBGROUP_FEATURE_BASIC_BIT | VK_SUBGROUP_FEATURE_ARITHMETIC_BIT |
                                         VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT;
    if ((gpu.subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT) &&
        (gpu.subgroup.supportedOperations & needs) == needs) {
        const bool packed = subgroups_packed(gpu, dir);
        run_and_check(gpu, dir + "/compact_subgroup.spv", packed, items, threshold);
        std::printf("glsl_include: compact_subgroup.spv matches (%zu items, subgroups packed in order: %s)\n",
                    items.size(), packed ? "yes" : "no");
    } else {
        std::printf("glsl_include: compact_subgroup.spv skipped: the device lacks subgroup arithmetic or "
                    "shuffle_relative in compute\n");
    }
    run_and_check(gpu, dir + "/compact_shared.spv", VK_FALSE, items, threshold);
    std::printf("glsl_include: compact_shared.spv matches (%zu items)\n", items.size());
}

} // namespace

int main(int argc, char** argv) {
    try {
        run(argc, argv);
    } catch (const std::exception& e) { // a mismatch or a Vulkan error
        std::fprintf(stderr, "glsl_include: FAILED: %s\n", e.what());
        return 1;
    }
    std::printf("glsl_include: ok\n");
    return 0;
}
