// vkcollectives verifier: the device-wide scan and reduce (Context::scan / reduce / plans), checked item
// by item against the CPU reference.
#include <vulkan/vulkan.h> // the loader's exports, as an engine that links libvulkan calls them

#include "verify/verify.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "verify/reference.hpp"
#include "verify/runner.hpp"

namespace vkc::verify {
namespace {

using namespace detail;

// ---- Device-wide scan and reduce -----------------------------------------------------------------

// One output against the reference: exact, or for float add within (k-1)*eps*sum|x| of the k-item sum.
template <class T>
std::string compare_prefix(T got, T exact, uint64_t k, long double sum, long double sum_abs, Op op) {
    if (k == 0) {
        T want = identity<T>(op);
        return bits_of(got) == bits_of(want) ? "" : "expected the identity " + show(want) + ", got " + show(got);
    }
    if (!(is_float_v<T> && op == Op::add)) {
        bool ok;
        if constexpr (is_float_v<T>)
            ok = is_nan(exact)                    ? is_nan(got)
                 : op == Op::min || op == Op::max ? bits_of(got) == bits_of(exact)
                                                  : wide(got) == wide(exact);
        else ok = bits_of(got) == bits_of(exact);
        return ok ? "" : "expected " + show(exact) + ", got " + show(got);
    }
    return float_sum_error(got, sum, k, sum_abs);
}

// Streams through the items once: no per-item reference arrays, so 2^25-item cases stay cheap.
template <class T>
std::string check_device(const DeviceCase& c, const T* in, const T* out) {
    T acc = identity<T>(c.op);
    long double sum = 0, sum_abs = 0;
    for (uint64_t i = 0; i < c.count; ++i) {
        if (!c.reduce && c.options.exclusive) {
            std::string e = compare_prefix(out[i], acc, i, sum, sum_abs, c.op);
            if (!e.empty()) return "item " + std::to_string(i) + ": " + e;
        }
        T x = prepare(c.op, in[i]);
        acc = i == 0 ? x : combine(c.op, acc, x);
        sum += wide(x);
        sum_abs += std::fabs(wide(x));
        if (!c.reduce && !c.options.exclusive) {
            std::string e = compare_prefix(out[i], acc, i + 1, sum, sum_abs, c.op);
            if (!e.empty()) return "item " + std::to_string(i) + ": " + e;
        }
    }
    if (c.reduce) {
        std::string e = compare_prefix(out[0], acc, c.count, sum, sum_abs, c.op);
        if (!e.empty()) return "the total of " + std::to_string(c.count) + " items: " + e;
    }
    return {};
}

// A command buffer of the caller's own, on the Context's device: the way an engine records a plan.
class CallerCommands {
public:
    explicit CallerCommands(Context& ctx) : ctx_(ctx) {
        VkCommandPoolCreateInfo p{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
        p.queueFamilyIndex = ctx.queue_family();
        vkCreateCommandPool(ctx.vk_device(), &p, nullptr, &pool_);
        VkCommandBufferAllocateInfo a{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
        a.commandPool = pool_;
        a.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
        a.commandBufferCount = 1;
        vkAllocateCommandBuffers(ctx.vk_device(), &a, &cmd_);
        VkFenceCreateInfo f{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
        vkCreateFence(ctx.vk_device(), &f, nullptr, &fence_);
    }
    ~CallerCommands() {
        vkDestroyFence(ctx_.vk_device(), fence_, nullptr);
        vkDestroyCommandPool(ctx_.vk_device(), pool_, nullptr);
    }
    // Records the barriers the plan's header asks of the caller around it, submits, waits.
    void run(const ScanPlan& plan) {
        VkCommandBufferBeginInfo b{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
        vkBeginCommandBuffer(cmd_, &b);
        VkMemoryBarrier before{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        before.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_HOST_WRITE_BIT;
        before.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
        vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT,
                             VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &before, 0,
                             nullptr, 0, nullptr);
        plan.record(cmd_);
        VkMemoryBarrier after{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
        after.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
        after.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_HOST_READ_BIT;
        vkCmdPipelineBarrier(cmd_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                             VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &after, 0, nullptr, 0,
                             nullptr);
        vkEndCommandBuffer(cmd_);
        VkSubmitInfo s{VK_STRUCTURE_TYPE_SUBMIT_INFO};
        s.commandBufferCount = 1;
        s.pCommandBuffers = &cmd_;
        vkResetFences(ctx_.vk_device(), 1, &fence_);
        if (vkQueueSubmit(ctx_.queue(), 1, &s, fence_) != VK_SUCCESS) throw Error("vkQueueSubmit failed");
        if (vkWaitForFences(ctx_.vk_device(), 1, &fence_, VK_TRUE, 300ull * 1000 * 1000 * 1000) != VK_SUCCESS) {
            throw Error("the recorded plan did not finish within 300 s");
        }
        vkResetCommandPool(ctx_.vk_device(), pool_, 0);
    }

private:
    Context& ctx_;
    VkCommandPool pool_ = VK_NULL_HANDLE;
    VkCommandBuffer cmd_ = VK_NULL_HANDLE;
    VkFence fence_ = VK_NULL_HANDLE;
};

template <class T>
void device_case(Runner& r, const DeviceCase& c, Rng& rng) {
    Context& ctx = r.ctx;
    std::vector<T> in(c.count);
    for (auto& v : in) v = random_value<T>(c.op, rng);
    if constexpr (is_float_v<T>) {
        // A long product of random +-2 and +-0.5 wanders out of half's normal range in some orders
        // and not others: the device-wide cases multiply +-1, with a few 2s, so every order is exact.
        if (c.op == Op::mul) {
            for (uint64_t i = 0; i < c.count; ++i) in[i] = narrow<T>(rng() % 2 ? -1.0L : 1.0L);
            for (int k = 0; k < 8 && c.count > 0; ++k) in[rng() % c.count] = narrow<T>(2.0L);
        }
        // Half sums of millions of items in [-60, 60] pass 65504; small integers keep them in range.
        if (c.op == Op::add && std::is_same_v<T, half>) {
            for (uint64_t i = 0; i < c.count; ++i) in[i] = narrow<T>(int(rng() % 9) - 4);
        }
        if (c.denormals && (c.op == Op::min || c.op == Op::max)) {
            for (uint64_t i = 0; i < c.count; ++i) in[i] = special_value<T>(rng);
        }
        if ((c.op == Op::min || c.op == Op::max) && c.count > 0) {
            for (uint64_t i : {uint64_t(0), c.count / 2, c.count - 1}) in[i] = quiet_nan<T>();
        }
    }
    const uint64_t bytes = c.count * sizeof(T);
    const uint64_t out_items = c.reduce ? 1 : c.count;
    auto run_once = [&]() -> std::vector<T> {
        std::vector<T> out(std::max<uint64_t>(out_items, 1));
        if (c.api == DeviceCase::Api::host) {
            if (c.reduce) ctx.reduce_host(in.data(), out.data(), c.count, c.type, c.op, c.options);
            else ctx.scan_host(in.data(), out.data(), c.count, c.type, c.op, c.options);
            return out;
        }
        if (c.api == DeviceCase::Api::buffers) {
            Buffer input = ctx.create_buffer(std::max<uint64_t>(bytes, 16));
            ctx.upload(input, in.data(), bytes);
            Buffer separate = c.in_place && !c.reduce ? Buffer()
                                                      : ctx.create_buffer(std::max<uint64_t>(out_items, 1) * sizeof(T));
            Buffer& output = c.in_place && !c.reduce ? input : separate;
            if (c.reduce) ctx.reduce(input, output, c.type, c.op, c.count, c.options);
            else ctx.scan(input, output, c.type, c.op, c.count, c.options);
            ctx.download(output, out.data(), out_items * sizeof(T));
            return out;
        }
        // Recorded: input, output and scratch at non-zero offsets inside larger buffers filled with a
        // pattern; everything outside the output range must keep it. With an indirect count the
        // ranges are sized for its bound, the count sits in the data buffer before the input, and
        // the output range past the count must keep the pattern too.
        const bool indirect = c.indirect_max > 0;
        const uint64_t room = indirect ? c.indirect_max : c.count; // items the ranges are sized for
        const uint64_t room_bytes = room * sizeof(T);
        const uint64_t align = std::max<uint64_t>(256, ctx.info().min_storage_buffer_offset_alignment);
        auto round = [&](uint64_t x) { return (x + align - 1) / align * align; };
        uint64_t in_at = align, out_at = c.in_place && !c.reduce ? in_at : round(in_at + room_bytes + 1);
        uint64_t out_bytes = out_items * sizeof(T); // what the plan writes
        uint64_t out_room = c.reduce ? out_bytes : room_bytes;
        uint64_t data_size = round(std::max(in_at + room_bytes, out_at + out_room) + 1);
        const uint64_t count_at = 8;
        uint64_t scratch_bytes = c.reduce ? ctx.device().reduce_scratch_bytes(c.type, room, c.options)
                                          : ctx.device().scan_scratch_bytes(c.type, room, c.options);
        uint64_t scratch_at = 3 * align, scratch_size = round(scratch_at + scratch_bytes + 1);
        std::vector<uint8_t> data(data_size), scratch(scratch_size);
        for (auto& b : data) b = uint8_t(rng());
        for (auto& b : scratch) b = uint8_t(rng());
        // A caller that keeps its scratch zeroed zeroes it once, before the first plan.
        if (c.options.scratch_zeroed) std::fill_n(scratch.begin() + scratch_at, scratch_bytes, uint8_t(0));
        if (bytes) std::memcpy(data.data() + in_at, in.data(), bytes); // in.data() may be null for count 0
        if (indirect) {
            uint32_t written = c.indirect_written ? c.indirect_written : uint32_t(c.count);
            std::memcpy(data.data() + count_at, &written, 4);
        }
        Buffer data_buffer = ctx.create_buffer(data_size), scratch_buffer = ctx.create_buffer(scratch_size);
        ctx.upload(data_buffer, data.data(), data_size);
        ctx.upload(scratch_buffer, scratch.data(), scratch_size);
        BufferRange in_range{data_buffer.handle(), in_at, room_bytes};
        BufferRange out_range{data_buffer.handle(), out_at, out_room};
        BufferRange scratch_range{scratch_buffer.handle(), scratch_at, scratch_bytes};
        auto plan_of = [&](const auto& count) { // a host count or an IndirectCount
            return c.reduce ? ctx.device().plan_reduce(c.type, c.op, count, in_range, out_range, scratch_range, c.options)
                            : ctx.device().plan_scan(c.type, c.op, count, in_range, out_range, scratch_range, c.options);
        };
        ScanPlan plan = indirect ? plan_of(IndirectCount{data_buffer.handle(), count_at, c.indirect_max})
                                 : plan_of(c.count);
        CallerCommands commands(ctx);
        commands.run(plan);
        if (c.options.scratch_zeroed && c.count > 0) {
            // The plan must have left the scratch ready for the next one: run it again on other
            // items (the same ones reversed, one of them doubled so that totals change too) and
            // check that run. A counter left behind would lose the result or fold in old totals.
            std::vector<T> reversed(in.rbegin(), in.rend());
            if (c.count > 1) reversed[c.count / 2] = reversed[c.count / 2 - 1];
            std::vector<uint8_t> first_out(out_bytes);
            ctx.download(data_buffer, first_out.data(), out_bytes, out_at);
            ctx.upload(data_buffer, reversed.data(), bytes, in_at);
            commands.run(plan);
            std::vector<T> second(std::max<uint64_t>(out_items, 1));
            ctx.download(data_buffer, second.data(), out_bytes, out_at);
            std::string err = check_device(c, reversed.data(), second.data());
            if (!err.empty()) throw Error("the second run of the plan on the scratch the first left: " + err);
            ctx.upload(data_buffer, in.data(), bytes, in_at);
            ctx.upload(data_buffer, first_out.data(), out_bytes, out_at); // back as the first run left it
        }
        std::vector<uint8_t> data_after(data_size), scratch_after(scratch_size);
        ctx.download(data_buffer, data_after.data(), data_size);
        ctx.download(scratch_buffer, scratch_after.data(), scratch_size);
        for (uint64_t i = 0; i < data_size; ++i) {
            bool in_output = i >= out_at && i < out_at + out_bytes && (c.count > 0 || c.reduce);
            if (!in_output && data_after[i] != data[i]) {
                throw Error("byte " + std::to_string(i) + " of the data buffer, outside the output range [" +
                            std::to_string(out_at) + ", " + std::to_string(out_at + out_bytes) + "), changed");
            }
        }
        for (uint64_t i = 0; i < scratch_size; ++i) {
            if ((i < scratch_at || i >= scratch_at + scratch_bytes) && scratch_after[i] != scratch[i]) {
                throw Error("byte " + std::to_string(i) + " of the scratch buffer, outside the scratch range, changed");
            }
        }
        if (out_bytes) std::memcpy(out.data(), data_after.data() + out_at, out_bytes);
        return out;
    };
    std::vector<T> out = run_once();
    if (!r.validation_clean()) return;
    for (uint32_t k = 1; k < c.runs; ++k) {
        std::vector<T> again = run_once();
        if (std::memcmp(again.data(), out.data(), out_items * sizeof(T)) != 0) {
            for (uint64_t i = 0; i < out_items; ++i) {
                if (bits_of(again[i]) != bits_of(out[i])) {
                    r.fail("run " + std::to_string(k + 1) + " differs from run 1 at item " + std::to_string(i) + ": " +
                           show(again[i]) + " against " + show(out[i]));
                    return;
                }
            }
        }
    }
    std::string err = check_device(c, in.data(), out.data());
    if (!err.empty()) r.fail(err);
}

} // namespace

std::string DeviceCase::label() const {
    std::string s = "device ";
    s += reduce ? "reduce" : options.exclusive ? "scan_exclusive" : "scan_inclusive";
    s += " " + std::string(name(op)) + " " + std::string(name(type)) + " n=" + std::to_string(count);
    if (in_place && !reduce) s += " in place";
    if (denormals) s += " denormals";
    if (options.reproducible) s += " reproducible";
    if (options.test.force_fallback) s += " forced fallback";
    if (options.test.segment_items) s += " segments of " + std::to_string(options.test.segment_items);
    if (options.tuning.workgroup_size)
        s += " tile " + std::to_string(options.tuning.workgroup_size) + "x" + std::to_string(options.tuning.items_per_invocation);
    if (options.tuning.staged >= 0) s += options.tuning.staged ? " staged" : " direct";
    if (options.path == Path::shared_memory) s += " shared memory";
    if (api == Api::host) s += " host stream of " + std::to_string(options.stream_bytes) + " bytes";
    if (api == Api::recorded) s += " recorded at offsets";
    if (api == Api::recorded && options.scratch_zeroed) s += " on a scratch kept zeroed, twice";
    if (indirect_max) {
        s += " count on the device, at most " + std::to_string(indirect_max);
        if (indirect_written) s += " (" + std::to_string(indirect_written) + " written)";
    }
    if (runs > 1) s += " x" + std::to_string(runs) + " runs";
    return s;
}

Outcome run_device_case(Context& ctx, const DeviceCase& c) {
    return guarded(ctx, Collective::device_scan, c.type, c.op, [&](Runner& r) {
        r.outcome.module = ctx.device().select_module(Collective::device_scan, c.type, c.op, c.options.path).name;
        Rng rng(c.seed ^ (uint64_t(c.type) << 48) ^ (uint64_t(c.op) << 56) ^ c.count);
        with_host_type(c.type, [&](auto tag) { device_case<decltype(tag)>(r, c, rng); });
    });
}

} // namespace vkc::verify
