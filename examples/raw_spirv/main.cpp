// An engine that takes vkcollectives' SPIR-V modules without linking its C++ library: it picks modules
// from manifest.json, builds each pipeline from what the manifest says (descriptor bindings, push
// constants, specialization constants), runs work-group collectives over random uints and checks
// them against a CPU reference, a short last work-group included.
//   raw_spirv [<spirv dir>]   the folder of manifest.json and the .spv files; the default is the
//                             installed package's (vkcollectives_SPIRV_DIR).
// Prints "raw_spirv: ok" and exits 0 when every result matches.
#include "../common/gpu.hpp"
#include "json.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string_view>
#include <utility>

namespace {

// The manifest spells Vulkan enums as vulkan_core.h does.
VkDescriptorType descriptor_type(const std::string& name) {
    if (name != "VK_DESCRIPTOR_TYPE_STORAGE_BUFFER") fail("descriptor type " + name + " not handled");
    return VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
}

VkSubgroupFeatureFlags subgroup_bit(const std::string& name) {
    const std::pair<const char*, VkSubgroupFeatureFlags> bits[] = {
        {"VK_SUBGROUP_FEATURE_BASIC_BIT", VK_SUBGROUP_FEATURE_BASIC_BIT},
        {"VK_SUBGROUP_FEATURE_VOTE_BIT", VK_SUBGROUP_FEATURE_VOTE_BIT},
        {"VK_SUBGROUP_FEATURE_ARITHMETIC_BIT", VK_SUBGROUP_FEATURE_ARITHMETIC_BIT},
        {"VK_SUBGROUP_FEATURE_BALLOT_BIT", VK_SUBGROUP_FEATURE_BALLOT_BIT},
        {"VK_SUBGROUP_FEATURE_SHUFFLE_BIT", VK_SUBGROUP_FEATURE_SHUFFLE_BIT},
        {"VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT", VK_SUBGROUP_FEATURE_SHUFFLE_RELATIVE_BIT}};
    for (auto [n, bit] : bits)
        if (name == n) return bit;
    fail("unknown subgroup operation " + name);
}

const json::Value& find_module(const json::Value& manifest, std::string_view collective, std::string_view type,
                               std::string_view op, std::string_view path) {
    for (const json::Value& m : manifest["modules"].array()) {
        // Not "cpp_only" (the device-wide scans: a multi-pass protocol the C++ runtime drives) nor "internal".
        if (m["host_protocol"].str() != "direct" || m["type"].is_null() || m["op"].is_null()) continue;
        if (m["collective"].str() == collective && m["type"].str() == type && m["op"].str() == op &&
            m["path"].str() == path)
            return m;
    }
    fail("the manifest has no module " + std::string(collective) + " " + std::string(type) + " " + std::string(op) +
         " " + std::string(path));
}

// Why `module` cannot run on this device in work-groups of `size`, or "" when it can.
std::string unsupported(const Gpu& gpu, const json::Value& module, uint32_t size) {
    // This example enables no optional device feature, so it takes only modules that need none.
    if (!module["features"].array().empty()) return module["features"].array()[0].str();
    if (!module["extensions"].array().empty()) return module["extensions"].array()[0].str();
    for (const json::Value& op : module["subgroup_operations"].array()) {
        if (!(gpu.subgroup.supportedStages & VK_SHADER_STAGE_COMPUTE_BIT)) return "subgroup operations in compute";
        if (!(gpu.subgroup.supportedOperations & subgroup_bit(op.str()))) return op.str();
    }
    if (size > module["max_workgroup_size"].u32() || size > gpu.properties.limits.maxComputeWorkGroupInvocations ||
        size > gpu.properties.limits.maxComputeWorkGroupSize[0])
        return "work-groups of " + std::to_string(size);
    return "";
}

// Runs `module` over `input` in 1D work-groups of `size` invocations; returns the output buffer, which
// holds a whole last work-group so that a write past the live items would show.
std::vector<uint32_t> run_module(const Gpu& gpu, const std::string& dir, const json::Value& module, uint32_t size,
                                 const std::vector<uint32_t>& input) {
    const auto count = uint32_t(input.size());
    const uint32_t group_count = (count + size - 1) / size;

    // Descriptor set layout: one entry per binding the manifest lists.
    std::vector<VkDescriptorSetLayoutBinding> bindings;
    for (const json::Value& b : module["bindings"].array()) {
        if (b["set"].u32() != 0) fail("this example handles descriptor set 0 only");
        bindings.push_back({b["binding"].u32(), descriptor_type(b["type"].str()), 1, VK_SHADER_STAGE_COMPUTE_BIT});
    }
    VkDescriptorSetLayoutCreateInfo dslci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    dslci.bindingCount = uint32_t(bindings.size());
    dslci.pBindings = bindings.data();
    VkDescriptorSetLayout set_layout;
    check(vkCreateDescriptorSetLayout(gpu.device, &dslci, nullptr, &set_layout), "vkCreateDescriptorSetLayout");

    // Push constants: the size the manifest gives, with the fields this collective uses set by name.
    const json::Value& push = module["push_constants"];
    std::vector<uint8_t> push_bytes(push["size"].u32());
    auto set_field = [&](std::string_view name, uint32_t value) {
        for (const json::Value& f : push["fields"].array()) {
            if (f["name"].str() == name && f["size"].u32() == 4 && f["offset"].u32() + 4 <= push_bytes.size()) {
                std::memcpy(push_bytes.data() + f["offset"].u32(), &value, 4);
                return;
            }
        }
        fail("no 4-byte push constant " + std::string(name));
    };
    set_field("count", count);
    set_field("group_count", group_count);
    VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, uint32_t(push_bytes.size())};
    VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    plci.setLayoutCount = 1;
    plci.pSetLayouts = &set_layout;
    plci.pushConstantRangeCount = 1;
    plci.pPushConstantRanges = &range;
    VkPipelineLayout layout;
    check(vkCreatePipelineLayout(gpu.device, &plci, nullptr, &layout), "vkCreatePipelineLayout");

    // Specialization constants, found by their names in the manifest; the others keep their defaults.
    // Subgroups packed = false is safe on every device: Vulkan does not promise that subgroup s holds
    // local indices [s*S, (s+1)*S) (lavapipe at 32 lanes or more does not), and without that promise the
    // module joins through shared memory. Where a probe of the shape finds them packed, true is faster:
    // examples/glsl_include/ shows the probe.
    struct Wanted {
        std::string_view name;
        uint32_t value;
        bool required;
    };
    const Wanted wanted[] = {{"workgroup_size_x", size, true},
                             {"workgroup_size_y", 1, true},
                             {"workgroup_size_z", 1, true},
                             {"subgroups_packed", VK_FALSE, false},
                             {"scratch_capacity", size, false}};
    std::vector<VkSpecializationMapEntry> entries;
    std::vector<uint32_t> values; // uint32 and bool (VkBool32) constants both take 4 bytes
    for (const Wanted& w : wanted) {
        const size_t before = entries.size();
        for (const json::Value& s : module["specialization_constants"].array()) {
            if (s["name"].str() == w.name) {
                entries.push_back({s["id"].u32(), uint32_t(4 * values.size()), 4});
                values.push_back(w.value);
            }
        }
        if (w.required && entries.size() == before)
            fail("the manifest lists no specialization constant " + std::string(w.name));
    }
    VkSpecializationInfo spec{uint32_t(entries.size()), entries.data(), 4 * values.size(), values.data()};

    VkShaderModule shader = gpu.load_shader(dir + "/" + module["file"].str());
    VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
    cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
    cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
    cpci.stage.module = shader;
    cpci.stage.pName = module["entry_point"].str().c_str();
    cpci.stage.pSpecializationInfo = &spec;
    cpci.layout = layout;
    VkPipeline pipeline;
    check(vkCreateComputePipelines(gpu.device, VK_NULL_HANDLE, 1, &cpci, nullptr, &pipeline),
          "vkCreateComputePipelines");

    // Buffers: the binding the manifest marks "read" takes the input, "write" the output. The output
    // starts as 0xdeadbeef so that a write past the live items would show.
    HostBuffer in = gpu.create_buffer(4 * input.size());
    HostBuffer out = gpu.create_buffer(4ull * group_count * size);
    std::memcpy(in.data, input.data(), in.size);
    std::fill_n(static_cast<uint32_t*>(out.data), group_count * size, 0xdeadbeefu);
    VkDescriptorPoolSize pool_size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, uint32_t(bindings.size())};
    VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpci.maxSets = 1;
    dpci.poolSizeCount = 1;
    dpci.pPoolSizes = &pool_size;
    VkDescriptorPool pool;
    check(vkCreateDescriptorPool(gpu.device, &dpci, nullptr, &pool), "vkCreateDescriptorPool");
    VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
    dsai.descriptorPool = pool;
    dsai.descriptorSetCount = 1;
    dsai.pSetLayouts = &set_layout;
    VkDescriptorSet set;
    check(vkAllocateDescriptorSets(gpu.device, &dsai, &set), "vkAllocateDescriptorSets");
    std::vector<VkDescriptorBufferInfo> infos;
    infos.reserve(bindings.size()); // the writes point into it
    std::vector<VkWriteDescriptorSet> writes;
    for (const json::Value& b : module["bindings"].array()) {
        const std::string& access = b["access"].str();
        if (access != "read" && access != "write") fail("binding access " + access + " not handled");
        infos.push_back({access == "read" ? in.buffer : out.buffer, 0, VK_WHOLE_SIZE});
        VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
        w.dstSet = set;
        w.dstBinding = b["binding"].u32();
        w.descriptorCount = 1;
        w.descriptorType = descriptor_type(b["type"].str());
        w.pBufferInfo = &infos.back();
        writes.push_back(w);
    }
    vkUpdateDescriptorSets(gpu.device, uint32_t(writes.size()), writes.data(), 0, nullptr);

    gpu.run([&](VkCommandBuffer cmd) {
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0, nullptr);
        vkCmdPushConstants(cmd, layout, VK_SHADER_STAGE_COMPUTE_BIT, 0, range.size, push_bytes.data());
        vkCmdDispatch(cmd, group_count, 1, 1);
    });
    const auto* result = static_cast<const uint32_t*>(out.data);
    std::vector<uint32_t> output(result, result + group_count * size);

    gpu.destroy(in);
    gpu.destroy(out);
    vkDestroyDescriptorPool(gpu.device, pool, nullptr);
    vkDestroyPipeline(gpu.device, pipeline, nullptr);
    vkDestroyShaderModule(gpu.device, shader, nullptr);
    vkDestroyPipelineLayout(gpu.device, layout, nullptr);
    vkDestroyDescriptorSetLayout(gpu.device, set_layout, nullptr);
    return output;
}

// What the kernel (shaders/kernels/workgroup_scan.comp) writes: each work-group scans or reduces its own
// items, a short last group only its live ones; reduce writes the group's total to each of its items.
std::vector<uint32_t> reference(std::string_view collective, std::string_view op, const std::vector<uint32_t>& in,
                                uint32_t size) {
    const uint32_t identity = op == "min" ? UINT32_MAX : 0; // add wraps, max of uints starts at 0
    auto combine = [op](uint32_t a, uint32_t b) {
        return op == "add" ? a + b : op == "min" ? std::min(a, b) : std::max(a, b);
    };
    std::vector<uint32_t> out(in.size());
    for (size_t first = 0; first < in.size(); first += size) {
        const size_t last = std::min(in.size(), first + size);
        uint32_t acc = identity;
        for (size_t i = first; i < last; ++i) {
            out[i] = collective == "scan_exclusive" ? acc : combine(acc, in[i]);
            acc = combine(acc, in[i]);
        }
        if (collective == "reduce") std::fill(out.begin() + first, out.begin() + last, acc);
    }
    return out;
}

void run(int argc, char** argv) {
    const std::string dir = argc > 1 ? argv[1] : VKC_SPIRV_DIR;
    json::Value manifest;
    try {
        manifest = json::parse(read_file(dir + "/manifest.json"));
    } catch (const std::exception& e) {
        fail(dir + "/manifest.json: " + e.what());
    }
    if (manifest["format"].str() != "vkcollectives-manifest" || manifest["format_version"].u32() != 1)
        fail(dir + "/manifest.json is not a version 1 vkcollectives manifest");
    Gpu gpu;
    std::printf("raw_spirv: %s, subgroup size %u\n", gpu.properties.deviceName, gpu.subgroup.subgroupSize);

    // Four work-groups of 256 and a last one of 77: the short group must cover only its own items.
    const uint32_t size = 256;
    std::vector<uint32_t> input(4 * size + 77);
    std::mt19937 rng(2026);
    for (uint32_t& x : input) x = uint32_t(rng()); // full range, so add wraps

    struct Case {
        const char *collective, *op, *path;
    };
    const Case cases[] = {{"scan_inclusive", "add", "shared_memory"},
                          {"scan_inclusive", "add", "subgroup"},
                          {"reduce", "add", "subgroup"},
                          {"scan_exclusive", "min", "shared_memory"}};
    for (const Case& c : cases) {
        const json::Value& module = find_module(manifest, c.collective, "uint", c.op, c.path);
        const std::string name = module["name"].str();
        if (std::string missing = unsupported(gpu, module, size); !missing.empty()) {
            // Where a device lacks subgroup arithmetic, the shared_memory module of the same collective runs.
            std::printf("raw_spirv: %s skipped: the device lacks %s\n", name.c_str(), missing.c_str());
            continue;
        }
        std::vector<uint32_t> got = run_module(gpu, dir, module, size, input);
        std::vector<uint32_t> want = reference(c.collective, c.op, input, size);
        for (size_t i = 0; i < got.size(); ++i) {
            uint32_t expected = i < want.size() ? want[i] : 0xdeadbeefu; // past the live items: untouched
            if (got[i] != expected)
                fail(name + ": item " + std::to_string(i) + " is " + std::to_string(got[i]) + ", expected " +
                     std::to_string(expected));
        }
        std::printf("raw_spirv: %s matches (%zu items, work-groups of %u)\n", name.c_str(), input.size(), size);
    }
}

} // namespace

int main(int argc, char** argv) {
    try {
        run(argc, argv);
    } catch (const std::exception& e) { // a mismatch, a Vulkan error, or a manifest without a key we read
        std::fprintf(stderr, "raw_spirv: FAILED: %s\n", e.what());
        return 1;
    }
    std::printf("raw_spirv: ok\n");
    return 0;
}
