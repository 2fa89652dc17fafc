// Device-wide scan and reduce on a Context's own Buffers and on host arrays: plans run on the
// Context's queue, on a scratch Buffer it keeps.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "device/device_state.hpp"
#include "device/memory.hpp"
#include "device_scan/internal.hpp"
#include "environment.hpp"
#include "submit/context_state.hpp"

namespace vkc {

namespace {
BufferRange whole(const Buffer& b) { return {b.handle(), 0, b.size()}; }

// The Context's own scratch, zeroed when it is made and kept zeroed by every plan on it
// (ScanOptions::scratch_zeroed), so its scans and reduces record no fill.
Buffer& scratch_for(Context& context, ContextState& state, uint64_t bytes) {
    if (state.scratch.size() < bytes) {
        state.scratch = Buffer();
        Buffer fresh = context.create_buffer(std::max<uint64_t>(bytes, 4096));
        std::vector<uint8_t> zeros(fresh.size());
        context.upload(fresh, zeros.data(), zeros.size());
        state.scratch = std::move(fresh);
    }
    return state.scratch;
}

// A Context's own calls wait, so they may probe the subgroup layout of a tile size its first probe
// did not cover (a tuning override's), where a Device's plans would take the shared-memory modules.
void probe_tile_size(ContextState& state, Type type, const ScanOptions& o, uint64_t count, bool reduce) {
    const DeviceState& dev = state.dev;
    if (o.path == Path::subgroup && !dev.options.shared_memory_only) {
        state.subgroups_packed({resolve_scan_policy(dev.info, type, o, count, reduce).tile.workgroup_size});
    }
}

// Checks before the Context's own scratch grows for the call.
void check_buffers(const DeviceMemory& memory, const char* what, const Buffer& input, uint64_t input_bytes,
                   const Buffer& output, uint64_t output_bytes) {
    memory.check_buffer(input, "the input");
    memory.check_buffer(output, "the output");
    if (input.size() < input_bytes) {
        throw Error(std::string(what) + ": the input range holds " + std::to_string(input.size()) + " bytes; " +
                    std::to_string(input_bytes) + " are needed");
    }
    if (output.size() < output_bytes) {
        throw Error(std::string(what) + ": the " + (output_bytes == input_bytes ? "output" : "result") +
                    " range holds " + std::to_string(output.size()) + " bytes; " + std::to_string(output_bytes) +
                    " are needed");
    }
}
} // namespace

void ContextState::run_plan(const ScanPlan& plan) {
    begin();
    VkMemoryBarrier before{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    before.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    before.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    vk.vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                            VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &before, 0,
                            nullptr, 0, nullptr);
    timed([&] { plan.record(cmd); });
    finish_timed();
}

void Context::run(const ScanPlan& plan) {
    if (plan.state_ && plan.state_->core != state_->core) throw Error("run: the plan was made on another device");
    state_->run_plan(plan);
}

void Context::scan(const Buffer& input, Buffer& output, Type type, Op op, uint64_t count, const ScanOptions& o) {
    DeviceState& dev = *device_.state_;
    uint64_t bytes = items_bytes(count, type, "scan");
    check_buffers(dev.memory, "scan", input, bytes, output, bytes);
    if (count == 0) return;
    Buffer& scratch = scratch_for(*this, *state_, dev.scratch_bytes_for(false, type, count, o, "scan"));
    probe_tile_size(*state_, type, o, count, false);
    ScanPlan plan = dev.make_plan(false, type, op, count, whole(input), whole(output), whole(scratch),
                                  on_own_scratch(o), false, 0);
    state_->run_plan(plan);
    // The counters cover one dispatch: segmented scans zero them per segment, so print single ones only.
    if (environment::lookback_stats() && !o.reproducible && plan.dispatches() == 1) {
        uint32_t header[state_header_words];
        download(scratch, header, sizeof header);
        ScanTile tile = dev.scan_tile(type, o, count);
        double chunks = double(ceil_div(ceil_div(count, tile.items()), tile.look_back_chunk_tiles));
        std::fprintf(stderr, "look-back: %.0f chunks; per chunk %.2f rounds, %.2f chunks walked, %.4f fallbacks\n",
                     chunks, header[stat_rounds_word] / chunks, header[stat_walked_word] / chunks,
                     header[stat_fallbacks_word] / chunks);
    }
}

void Context::reduce(const Buffer& input, Buffer& result, Type type, Op op, uint64_t count, const ScanOptions& o) {
    DeviceState& dev = *device_.state_;
    check_buffers(dev.memory, "reduce", input, items_bytes(count, type, "reduce"), result, size_of(type));
    Buffer& scratch = scratch_for(*this, *state_, dev.scratch_bytes_for(true, type, count, o, "reduce"));
    BufferRange in = count ? whole(input) : BufferRange{};
    probe_tile_size(*state_, type, o, count, true);
    state_->run_plan(
        dev.make_plan(true, type, op, count, in, whole(result), whole(scratch), on_own_scratch(o), false, 0));
}

// Host arrays: chunks of stream_bytes go up, are scanned in place with the carry of the chunks
// before, and come down.
void Context::scan_host(const void* items, void* out, uint64_t count, Type type, Op op, const ScanOptions& o) {
    DeviceState& dev = *device_.state_;
    items_bytes(count, type, "scan");
    require_op("scan", type, op);
    if (count == 0) return;
    uint64_t bytes = size_of(type);
    ScanTile tile = dev.scan_tile(type, o, 0);
    uint64_t chunk = std::max<uint64_t>(1, (o.stream_bytes ? o.stream_bytes : default_stream_bytes) / bytes);
    chunk = std::min(round_up(chunk, tile.items()), count); // whole tiles, so every chunk is 16-byte aligned
    Buffer device = create_buffer(chunk * bytes);
    Buffer& scratch = scratch_for(*this, *state_, dev.scratch_bytes_for(false, type, chunk, o, "scan"));
    uint32_t slot = 0;
    for (uint64_t first = 0; first < count; first += chunk) {
        uint64_t n = std::min(chunk, count - first);
        upload(device, static_cast<const char*>(items) + first * bytes, n * bytes);
        probe_tile_size(*state_, type, o, n, false);
        ScanPlan plan = dev.make_plan(false, type, op, n, whole(device), whole(device), whole(scratch),
                                      on_own_scratch(o), first > 0, slot);
        state_->run_plan(plan);
        slot = plan.state_->carry_slot_after;
        download(device, static_cast<char*>(out) + first * bytes, n * bytes);
    }
}

void Context::reduce_host(const void* items, void* result, uint64_t count, Type type, Op op, const ScanOptions& o) {
    DeviceState& dev = *device_.state_;
    items_bytes(count, type, "reduce");
    require_op("reduce", type, op);
    uint64_t bytes = size_of(type);
    ScanTile tile = resolve_scan_policy(dev.info, type, o, 0, true).tile;
    uint64_t chunk = std::max<uint64_t>(1, (o.stream_bytes ? o.stream_bytes : default_stream_bytes) / bytes);
    chunk = std::max<uint64_t>(1, std::min(round_up(chunk, tile.items()), count));
    Buffer device = create_buffer(chunk * bytes);
    Buffer total = create_buffer(bytes);
    Buffer& scratch = scratch_for(*this, *state_, dev.scratch_bytes_for(true, type, chunk, o, "reduce"));
    uint32_t slot = 0;
    uint64_t first = 0;
    do {
        uint64_t n = std::min(chunk, count - first);
        if (n) upload(device, static_cast<const char*>(items) + first * bytes, n * bytes);
        probe_tile_size(*state_, type, o, n, true);
        ScanPlan plan = dev.make_plan(true, type, op, n, n ? whole(device) : BufferRange{}, whole(total),
                                      whole(scratch), on_own_scratch(o), first > 0, slot);
        state_->run_plan(plan);
        slot = plan.state_->carry_slot_after;
        first += n;
    } while (first < count);
    download(total, result, bytes);
}

} // namespace vkc
