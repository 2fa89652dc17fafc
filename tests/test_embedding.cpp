// What an embedding engine relies on: bad enum values and internal collectives refused, sizes that
// overflow refused before any allocation, Buffers that keep their device alive and are refused by
// another Context, plans refused after their Context, the pipeline cache and allocation callbacks.
#include "support.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <filesystem>
#include <string>

#include <vulkan/vulkan.h>

using namespace vkc;

namespace {
using test::error_of;
bool has(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }
} // namespace

TEST_CASE("embedding: enum values outside the enums are Errors") {
    auto& ctx = test::context();
    std::vector<uint32_t> items(64, 1);
    CHECK(has(error_of([&] { ctx.run(WorkgroupRequest{Collective(99), Type::u32, Op::add, {64}}, items); }),
              "invalid vkc::Collective value 99"));
    CHECK(has(error_of([&] { ctx.run(WorkgroupRequest{Collective::reduce, Type(99), Op::add, {64}}, items); }),
              "invalid vkc::Type value 99"));
    CHECK(has(error_of([&] { ctx.run(WorkgroupRequest{Collective::reduce, Type::u32, Op(99), {64}}, items); }),
              "invalid vkc::Op value 99"));
    CHECK(has(error_of([&] { ctx.scan(std::span<const uint32_t>(items), Op(77)); }), "invalid vkc::Op value 77"));
    Buffer b = ctx.create_buffer(256);
    CHECK(has(error_of([&] { ctx.scan(b, b, Type(42), Op::add, 4); }), "invalid vkc::Type value 42"));
}

TEST_CASE("embedding: internal collectives are refused in a WorkgroupRequest") {
    auto& ctx = test::context();
    std::vector<uint32_t> items(64, 1);
    CHECK(has(error_of([&] { ctx.run(WorkgroupRequest{Collective::device_scan, Type::u32, Op::add, {64}}, items); }),
              "internal"));
    CHECK(has(error_of([&] { ctx.run(WorkgroupRequest{Collective::layout_probe, Type::u32, Op::add, {64}}, items); }),
              "internal"));
}

TEST_CASE("embedding: counts whose bytes overflow are refused before any allocation") {
    auto& ctx = test::context();
    Buffer small = ctx.create_buffer(64);
    const uint64_t wraps = (uint64_t(1) << 62) + 4; // x 4 bytes wraps to 16
    CHECK(has(error_of([&] { ctx.scan(small, small, Type::u32, Op::add, wraps); }), "more bytes than any buffer"));
    CHECK(has(error_of([&] { ctx.reduce(small, small, Type::u32, Op::add, wraps); }), "more bytes than any buffer"));
    CHECK(has(error_of([&] { (void)ctx.device().scan_scratch_bytes(Type::u64, wraps); }), "more bytes than any buffer"));
    CHECK(has(error_of([&] { ctx.device().plan_scan(Type::u32, Op::add, wraps, {}, {}, {}); }), "more bytes than any buffer"));
    // A count that fits 64 bits but not the buffer: refused before the Context's scratch grows for it.
    std::string too_many = error_of([&] { ctx.scan(small, small, Type::u32, Op::add, uint64_t(1) << 40); });
    INFO(too_many);
    CHECK(has(too_many, "are needed"));
}

TEST_CASE("embedding: Buffers belong to their Context and keep its device alive") {
    auto& ctx = test::context();
    ContextOptions options;
    options.device = ctx.info().name;
    Buffer outlives;
    {
        Context other(options);
        Buffer theirs = other.create_buffer(256);
        Buffer ours = ctx.create_buffer(256);
        CHECK(has(error_of([&] { ctx.scan(theirs, ours, Type::u32, Op::add, 4); }), "a Buffer of another Context"));
        CHECK(has(error_of([&] { ctx.upload(theirs, &options, 4); }), "a Buffer of another Context"));
        std::vector<uint32_t> four = {1, 2, 3, 4};
        other.upload(theirs, four.data(), 16);
        other.scan(theirs, theirs, Type::u32, Op::add, 4);
        std::vector<uint32_t> sums(4);
        other.download(theirs, sums.data(), 16);
        CHECK(sums == std::vector<uint32_t>{1, 3, 6, 10});
        outlives = std::move(theirs);
        uint64_t scratch = other.device().scan_scratch_bytes(Type::u32, 4);
        Buffer plan_scratch = other.create_buffer(scratch);
        ScanPlan plan = other.device().plan_scan(Type::u32, Op::add, 4, {outlives.handle(), 0, 16}, {outlives.handle(), 0, 16},
                                        {plan_scratch.handle(), 0, scratch});
        // The plan goes with the Context below, the Buffers after it: neither may touch a freed device.
        outlives = std::move(outlives);
    }
    CHECK(outlives.size() == 256); // its device is still alive; destroying it now frees it cleanly
}

TEST_CASE("embedding: a plan outliving its Context is refused when recorded") {
    auto& ctx = test::context();
    ContextOptions options;
    options.device = ctx.info().name;
    ScanPlan plan;
    Buffer data, scratch;
    {
        Context other(options);
        data = other.create_buffer(4096);
        uint64_t bytes = other.device().scan_scratch_bytes(Type::u32, 1024);
        scratch = other.create_buffer(bytes);
        plan = other.device().plan_scan(Type::u32, Op::add, 1024, {data.handle(), 0, 4096}, {data.handle(), 0, 4096},
                               {scratch.handle(), 0, bytes});
    }
    CHECK(has(error_of([&] { plan.record(VK_NULL_HANDLE); }), "Context was destroyed"));
}

TEST_CASE("embedding: the pipeline cache is kept in a file and handed out") {
    auto& ctx = test::context();
    auto file = std::filesystem::temp_directory_path() / ("vkc_cache_test_" + std::to_string(::getpid()) + ".bin");
    std::filesystem::remove(file);
    ContextOptions options;
    options.device = ctx.info().name;
    options.pipeline_cache_path = file.string();
    std::vector<uint32_t> items(1000, 1);
    {
        Context first(options);
        CHECK(first.device().vk_pipeline_cache() != VK_NULL_HANDLE);
        auto sums = first.scan(std::span<const uint32_t>(items), Op::add);
        CHECK(sums.back() == 1000);
        CHECK(!first.device().pipeline_cache_data().empty());
    }
    REQUIRE(std::filesystem::exists(file));
    CHECK(std::filesystem::file_size(file) > 0);
    {
        Context second(options); // reads the file: same results
        auto sums = second.scan(std::span<const uint32_t>(items), Op::add);
        CHECK(sums.back() == 1000);
    }
    std::filesystem::remove(file);
    // A file of junk is ignored, not an error.
    { std::FILE* f = std::fopen(file.c_str(), "wb"); std::fputs("not a pipeline cache", f); std::fclose(f); }
    {
        Context third(options);
        CHECK(third.scan(std::span<const uint32_t>(items), Op::add).back() == 1000);
    }
    std::filesystem::remove(file);
}

namespace {
// Counting callbacks: each block carries its size in front, so that reallocation copies what it holds.
std::atomic<int64_t> live_allocations{0};
std::atomic<uint64_t> total_allocations{0};
constexpr size_t header = 64; // keeps every alignment the implementations ask for (at most 64 here)
VKAPI_ATTR void* VKAPI_CALL counted_allocation(void*, size_t size, size_t alignment, VkSystemAllocationScope) {
    if (alignment > header) return nullptr;
    auto* block = static_cast<char*>(std::aligned_alloc(header, header + (size + header - 1) / header * header));
    if (!block) return nullptr;
    std::memcpy(block, &size, sizeof size);
    ++live_allocations;
    ++total_allocations;
    return block + header;
}
VKAPI_ATTR void VKAPI_CALL counted_free(void*, void* memory) {
    if (!memory) return;
    --live_allocations;
    std::free(static_cast<char*>(memory) - header);
}
VKAPI_ATTR void* VKAPI_CALL counted_reallocation(void*, void* original, size_t size, size_t alignment,
                                                 VkSystemAllocationScope scope) {
    if (!original) return counted_allocation(nullptr, size, alignment, scope);
    if (size == 0) {
        counted_free(nullptr, original);
        return nullptr;
    }
    void* fresh = counted_allocation(nullptr, size, alignment, scope);
    if (!fresh) return nullptr;
    size_t old = 0;
    std::memcpy(&old, static_cast<char*>(original) - header, sizeof old);
    std::memcpy(fresh, original, std::min(old, size));
    counted_free(nullptr, original);
    return fresh;
}
} // namespace

TEST_CASE("embedding: allocation callbacks reach the Vulkan objects the Context creates") {
    auto& ctx = test::context();
    VkAllocationCallbacks callbacks{};
    callbacks.pfnAllocation = counted_allocation;
    callbacks.pfnReallocation = counted_reallocation;
    callbacks.pfnFree = counted_free;
    ContextOptions options;
    options.device = ctx.info().name;
    options.allocator = &callbacks;
    live_allocations = 0;
    total_allocations = 0;
    {
        Context counted(options);
        std::vector<uint32_t> items(5000, 2);
        CHECK(counted.scan(std::span<const uint32_t>(items), Op::add).back() == 10000);
    }
    CHECK(total_allocations > 0);
    CHECK(live_allocations == 0); // every allocation made through the callbacks was freed through them
}

TEST_CASE("embedding: buffers past maxMemoryAllocationSize are refused before allocating") {
    auto& ctx = test::context();
    uint64_t most = ctx.info().max_memory_allocation_size;
    REQUIRE(most > 0);
    std::string message = error_of([&] { (void)ctx.create_buffer(most + 4096); });
    CHECK(has(message, "maxMemoryAllocationSize"));
    CHECK(ctx.create_buffer(4096).size() == 4096); // the Context goes on
}
