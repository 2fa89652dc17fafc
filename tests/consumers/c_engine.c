/* An engine in C that embeds vkcollectives through its C API (include/vkc/vkc.h). Written in the
 * common subset of C99 and C++: CMake builds it as C99 (engine_c) and, through c_engine_nothrow.cpp,
 * as C++ with exceptions and RTTI off (engine_cxx_no_exceptions). It makes its own instance, device
 * and buffers, a VkcDevice with no queue, probes the subgroup layout on its own queue, records a
 * scan, a reduce and an indirect-count scan into its own command buffer, checks them against the
 * CPU, and checks that bad arguments come back as VkcResults with a message, nothing written.
 * Exit 0 and "c engine: ok" on success. VKC_DEVICE (part of a device name) picks the device. */
#include <vulkan/vulkan.h>

#include <vkc/vkc.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void must(VkResult r, const char* what) {
    if (r != VK_SUCCESS) {
        fprintf(stderr, "c engine: %s failed with %d\n", what, (int)r);
        exit(1);
    }
}

static void expect(int ok, const char* what) {
    if (!ok) {
        fprintf(stderr, "c engine: %s (last vkc error: %s)\n", what, vkcGetLastErrorMessage());
        exit(1);
    }
}

typedef struct Engine {
    VkInstance instance;
    VkPhysicalDevice physical;
    VkDevice device;
    uint32_t family;
    VkQueue queue;
    VkPhysicalDeviceFeatures2 features;
} Engine;

typedef struct HostBuffer {
    VkBuffer buffer;
    VkDeviceMemory memory;
    unsigned char* bytes;
} HostBuffer;

static void make_engine(Engine* e) {
    VkApplicationInfo app;
    VkInstanceCreateInfo ii;
    VkPhysicalDevice list[16];
    uint32_t n = 16, i, families = 16;
    VkQueueFamilyProperties family_list[16];
    const char* want = getenv("VKC_DEVICE");
    float priority = 1.0f;
    VkDeviceQueueCreateInfo q;
    VkDeviceCreateInfo di;

    memset(e, 0, sizeof *e);
    memset(&app, 0, sizeof app);
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.apiVersion = VK_API_VERSION_1_1;
    memset(&ii, 0, sizeof ii);
    ii.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    ii.pApplicationInfo = &app;
    must(vkCreateInstance(&ii, NULL, &e->instance), "vkCreateInstance");
    if (vkEnumeratePhysicalDevices(e->instance, &n, list) < 0 || n == 0) must(VK_ERROR_INITIALIZATION_FAILED, "no device");
    e->physical = list[0];
    for (i = 0; i < n && want && *want; ++i) {
        VkPhysicalDeviceProperties p;
        vkGetPhysicalDeviceProperties(list[i], &p);
        if (strstr(p.deviceName, want)) {
            e->physical = list[i];
            break;
        }
    }
    vkGetPhysicalDeviceQueueFamilyProperties(e->physical, &families, family_list);
    while (e->family < families && !(family_list[e->family].queueFlags & VK_QUEUE_COMPUTE_BIT)) ++e->family;
    if (e->family == families) must(VK_ERROR_INITIALIZATION_FAILED, "a compute queue");
    memset(&e->features, 0, sizeof e->features); /* no optional features: 32-bit items only */
    e->features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
    memset(&q, 0, sizeof q);
    q.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    q.queueFamilyIndex = e->family;
    q.queueCount = 1;
    q.pQueuePriorities = &priority;
    memset(&di, 0, sizeof di);
    di.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    di.pNext = &e->features;
    di.queueCreateInfoCount = 1;
    di.pQueueCreateInfos = &q;
    must(vkCreateDevice(e->physical, &di, NULL, &e->device), "vkCreateDevice");
    vkGetDeviceQueue(e->device, e->family, 0, &e->queue);
}

static HostBuffer make_buffer(const Engine* e, VkDeviceSize bytes) {
    HostBuffer b;
    VkBufferCreateInfo bi;
    VkMemoryRequirements req;
    VkPhysicalDeviceMemoryProperties mp;
    VkMemoryAllocateInfo ai;
    const VkMemoryPropertyFlags host = VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
    uint32_t t;
    void* mapped = NULL;

    memset(&bi, 0, sizeof bi);
    bi.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
    bi.size = bytes;
    bi.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
    must(vkCreateBuffer(e->device, &bi, NULL, &b.buffer), "vkCreateBuffer");
    vkGetBufferMemoryRequirements(e->device, b.buffer, &req);
    vkGetPhysicalDeviceMemoryProperties(e->physical, &mp);
    for (t = 0; t < mp.memoryTypeCount; ++t) {
        if ((req.memoryTypeBits & (1u << t)) && (mp.memoryTypes[t].propertyFlags & host) == host) break;
    }
    if (t == mp.memoryTypeCount) must(VK_ERROR_INITIALIZATION_FAILED, "host-visible memory");
    memset(&ai, 0, sizeof ai);
    ai.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
    ai.allocationSize = req.size;
    ai.memoryTypeIndex = t;
    must(vkAllocateMemory(e->device, &ai, NULL, &b.memory), "vkAllocateMemory");
    must(vkBindBufferMemory(e->device, b.buffer, b.memory, 0), "vkBindBufferMemory");
    must(vkMapMemory(e->device, b.memory, 0, VK_WHOLE_SIZE, 0, &mapped), "vkMapMemory");
    b.bytes = (unsigned char*)mapped;
    return b;
}

static void free_buffer(const Engine* e, HostBuffer* b) {
    vkDestroyBuffer(e->device, b->buffer, NULL);
    vkFreeMemory(e->device, b->memory, NULL);
}

/* Records the plans between the barriers their contract asks for, submits, waits. */
static void run_plans(const Engine* e, VkcPlan* plans, uint32_t count) {
    VkCommandPoolCreateInfo pi;
    VkCommandPool pool;
    VkCommandBufferAllocateInfo ai;
    VkCommandBuffer cmd;
    VkCommandBufferBeginInfo bi;
    VkMemoryBarrier before, after;
    VkSubmitInfo si;
    uint32_t i;

    memset(&pi, 0, sizeof pi);
    pi.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
    pi.queueFamilyIndex = e->family;
    must(vkCreateCommandPool(e->device, &pi, NULL, &pool), "vkCreateCommandPool");
    memset(&ai, 0, sizeof ai);
    ai.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    must(vkAllocateCommandBuffers(e->device, &ai, &cmd), "vkAllocateCommandBuffers");
    memset(&bi, 0, sizeof bi);
    bi.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
    must(vkBeginCommandBuffer(cmd, &bi), "vkBeginCommandBuffer");
    memset(&before, 0, sizeof before);
    before.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
    before.srcAccessMask = VK_ACCESS_HOST_WRITE_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    before.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    after = before;
    after.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
    after.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    for (i = 0; i < count; ++i) {
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_HOST_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                             VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &before, 0,
                             NULL, 0, NULL);
        expect(vkcCmdRecordPlan(plans[i], cmd) == VKC_SUCCESS, "vkcCmdRecordPlan");
    }
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &after, 0, NULL,
                         0, NULL);
    must(vkEndCommandBuffer(cmd), "vkEndCommandBuffer");
    memset(&si, 0, sizeof si);
    si.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cmd;
    must(vkQueueSubmit(e->queue, 1, &si, VK_NULL_HANDLE), "vkQueueSubmit");
    must(vkQueueWaitIdle(e->queue), "vkQueueWaitIdle");
    vkDestroyCommandPool(e->device, pool, NULL);
}

/* A sort plan of pairs by key bits [0, 24): three passes, so the result lands in the alternates;
 * stable, which the values (each key's index) show. */
static void check_sort(const Engine* e, VkcDevice gpu) {
    enum { N = 50001 };
    const VkDeviceSize keys_at = 0, alt_at = 256 << 10, values_at = 512 << 10, values_alt_at = 768 << 10;
    VkcSortPlanCreateInfo info, bad;
    VkDeviceSize scratch_bytes = 0;
    HostBuffer data, scratch;
    VkcPlan plan = NULL, rejected = NULL;
    uint32_t *keys, *sorted, *values, i;
    memset(&info, 0, sizeof info);
    info.keyType = VKC_TYPE_U32;
    info.valueBytes = 4;
    info.endBit = 24;
    info.count = N;
    expect(vkcGetSortScratchSize(gpu, &info, &scratch_bytes) == VKC_SUCCESS, "vkcGetSortScratchSize");
    data = make_buffer(e, 1 << 20);
    scratch = make_buffer(e, scratch_bytes);
    keys = (uint32_t*)data.bytes;
    for (i = 0; i < N; ++i) {
        keys[i] = (i * 2654435761u) >> 12; /* 20 bits: many equal keys */
        ((uint32_t*)(data.bytes + values_at))[i] = i;
    }
    info.keys.buffer = info.keysAlternate.buffer = info.values.buffer = info.valuesAlternate.buffer = data.buffer;
    info.keys.offset = keys_at;
    info.keysAlternate.offset = alt_at;
    info.values.offset = values_at;
    info.valuesAlternate.offset = values_alt_at;
    info.keys.size = info.keysAlternate.size = info.values.size = info.valuesAlternate.size = N * 4;
    info.scratch.buffer = scratch.buffer;
    info.scratch.size = scratch_bytes;
    bad = info;
    bad.valueBytes = 3;
    expect(vkcCreateSortPlan(gpu, &bad, &rejected) == VKC_ERROR_INVALID_ARGUMENT && rejected == NULL,
           "values of 3 bytes were not refused");
    expect(strstr(vkcGetLastErrorMessage(), "3 bytes") != NULL, "the message does not name the value size");
    expect(vkcCreateSortPlan(gpu, &info, &plan) == VKC_SUCCESS, "vkcCreateSortPlan");
    expect(vkcGetPlanResultInAlternate(plan) == 1, "three passes end in the alternates");
    run_plans(e, &plan, 1);
    sorted = (uint32_t*)(data.bytes + alt_at);
    values = (uint32_t*)(data.bytes + values_alt_at);
    for (i = 0; i < N; ++i) {
        /* the keys' range held the second pass's output: the key of value v is recomputed */
        expect(values[i] < N && (values[i] * 2654435761u) >> 12 == sorted[i], "a value that does not belong to its key");
        if (i > 0) {
            expect(sorted[i - 1] <= sorted[i], "keys out of order");
            expect(sorted[i - 1] < sorted[i] || values[i - 1] < values[i], "equal keys out of input order");
        }
    }
    vkcDestroyPlan(plan);
    free_buffer(e, &data);
    free_buffer(e, &scratch);
}

/* A select plan by predicate (f32 items below 0.5) that writes the number kept and an indirect draw of
 * that many instances; an unknown predicate is refused first. */
static void check_select(const Engine* e, VkcDevice gpu) {
    enum { N = 30011 };
    const VkDeviceSize out_at = 256 << 10, words_at = 512 << 10;
    VkcSelectPlanCreateInfo info, bad;
    VkDeviceSize scratch_bytes = 0;
    HostBuffer data, scratch;
    VkcPlan plan = NULL, rejected = NULL;
    float *items, *out;
    uint32_t *words, i, kept = 0, at = 0;
    float half = 0.5f;
    memset(&info, 0, sizeof info);
    info.itemType = VKC_TYPE_F32;
    info.selection = VKC_SELECTION_PREDICATE;
    info.predicate = VKC_PREDICATE_LESS;
    memcpy(&info.operandA, &half, 4);
    info.command = VKC_KEPT_COMMAND_DRAW;
    info.commandParameter = 6;
    info.count = N;
    expect(vkcGetSelectScratchSize(gpu, &info, &scratch_bytes) == VKC_SUCCESS, "vkcGetSelectScratchSize");
    data = make_buffer(e, 1 << 20);
    scratch = make_buffer(e, scratch_bytes);
    items = (float*)data.bytes;
    for (i = 0; i < N; ++i) items[i] = (float)((i * 2654435761u) >> 8) / 16777216.0f;
    info.input.buffer = info.output.buffer = info.keptCount.buffer = info.commandBuffer.buffer = data.buffer;
    info.output.offset = out_at;
    info.input.size = info.output.size = N * 4;
    info.keptCount.offset = words_at;
    info.keptCount.size = 4;
    info.commandBuffer.offset = words_at + 16;
    info.commandBuffer.size = 16;
    info.scratch.buffer = scratch.buffer;
    info.scratch.size = scratch_bytes;
    bad = info;
    bad.predicate = (VkcPredicate)12;
    expect(vkcCreateSelectPlan(gpu, &bad, &rejected) == VKC_ERROR_INVALID_ARGUMENT && rejected == NULL,
           "predicate 12 was not refused");
    expect(strstr(vkcGetLastErrorMessage(), "SelectPredicate::Kind") != NULL, "the message does not name the predicate");
    expect(vkcCreateSelectPlan(gpu, &info, &plan) == VKC_SUCCESS, "vkcCreateSelectPlan");
    expect(vkcGetPlanDispatchCount(plan) == 1, "one dispatch");
    run_plans(e, &plan, 1);
    out = (float*)(data.bytes + out_at);
    words = (uint32_t*)(data.bytes + words_at);
    for (i = 0; i < N; ++i) kept += items[i] < half;
    expect(words[0] == kept, "the number kept");
    expect(words[4] == 6 && words[5] == kept && words[6] == 0 && words[7] == 0, "the draw command");
    for (i = 0; i < N; ++i) {
        if (items[i] < half) expect(out[at++] == items[i], "a kept item out of place");
    }
    vkcDestroyPlan(plan);
    free_buffer(e, &data);
    free_buffer(e, &scratch);
}

/* A histogram plan of RGBA u8 pixels (red and green, 16 and 8 even bins) with the pixel count read on
 * the device; an upper bound past the samples' range is refused first. */
static void check_histogram(const Engine* e, VkcDevice gpu) {
    enum { PIXELS = 20011, LIVE = 15000 };
    const VkDeviceSize counts_at = 128 << 10, count_at = 192 << 10;
    VkcHistogramPlanCreateInfo info, bad;
    VkDeviceSize scratch_bytes = 0;
    HostBuffer data, scratch;
    VkcPlan plan = NULL, rejected = NULL;
    unsigned char* pixels;
    uint32_t *counts, want[24], i;
    memset(&info, 0, sizeof info);
    info.sampleType = VKC_TYPE_U8;
    info.binning = VKC_BINNING_EVEN;
    info.channels = 4;
    info.activeChannels = 2;
    info.bins[0] = 16;
    info.upper[0] = 256;
    info.bins[1] = 8;
    info.lower[1] = 64;
    info.upper[1] = 192;
    info.count = PIXELS;
    expect(vkcGetHistogramScratchSize(gpu, &info, &scratch_bytes) == VKC_SUCCESS, "vkcGetHistogramScratchSize");
    data = make_buffer(e, 256 << 10);
    scratch = make_buffer(e, scratch_bytes);
    pixels = data.bytes;
    for (i = 0; i < PIXELS * 4; ++i) pixels[i] = (unsigned char)((i * 2654435761u) >> 24);
    *(uint32_t*)(data.bytes + count_at) = LIVE;
    info.countBuffer = data.buffer;
    info.countBufferOffset = count_at;
    info.samples.buffer = info.histogram.buffer = data.buffer;
    info.samples.size = PIXELS * 4;
    info.histogram.offset = counts_at;
    info.histogram.size = 24 * 4;
    info.scratch.buffer = scratch.buffer;
    info.scratch.size = scratch_bytes;
    bad = info;
    bad.upper[0] = 300;
    expect(vkcCreateHistogramPlan(gpu, &bad, &rejected) == VKC_ERROR_INVALID_ARGUMENT && rejected == NULL,
           "an upper bound of 300 for uchar samples was not refused");
    expect(strstr(vkcGetLastErrorMessage(), "channel 0's bounds") != NULL, "the message does not name the bounds");
    expect(vkcCreateHistogramPlan(gpu, &info, &plan) == VKC_SUCCESS, "vkcCreateHistogramPlan");
    expect(vkcGetPlanDispatchCount(plan) == 1, "one dispatch");
    run_plans(e, &plan, 1);
    memset(want, 0, sizeof want);
    for (i = 0; i < LIVE; ++i) {
        unsigned red = pixels[4 * i], green = pixels[4 * i + 1];
        ++want[red / 16];
        if (green >= 64 && green < 192) ++want[16 + (green - 64) / 16];
    }
    counts = (uint32_t*)(data.bytes + counts_at);
    for (i = 0; i < 24; ++i) expect(counts[i] == want[i], "a histogram count");
    vkcDestroyPlan(plan);
    free_buffer(e, &data);
    free_buffer(e, &scratch);
}

/* A reduce by key of float values over uint keys (runs of 1 to 7 equal keys) with the count read on
 * the device, then the non-trivial runs of the same keys; a run-length plan of float values is
 * refused first. */
static void check_segmented(const Engine* e, VkcDevice gpu) {
    enum { ITEMS = 30011, LIVE = 25000 };
    const VkDeviceSize keys_at = 128 << 10, out_at = 256 << 10, unique_at = 384 << 10, words_at = 512 << 10;
    VkcSegmentedPlanCreateInfo info, bad;
    VkDeviceSize scratch_bytes = 0;
    HostBuffer data, scratch;
    VkcPlan plan = NULL, rejected = NULL;
    float *values, *totals, sum = 0;
    uint32_t *keys, *unique, *lengths, segments = 0, runs = 0, begin = 0, i;
    memset(&info, 0, sizeof info);
    info.valueType = VKC_TYPE_F32;
    info.op = VKC_OP_ADD;
    info.segments = VKC_SEGMENTS_KEYS;
    info.keyType = VKC_TYPE_U32;
    info.outputKind = VKC_SEGMENTED_REDUCE;
    info.count = ITEMS;
    expect(vkcGetSegmentedScratchSize(gpu, &info, &scratch_bytes) == VKC_SUCCESS, "vkcGetSegmentedScratchSize");
    data = make_buffer(e, 640 << 10);
    scratch = make_buffer(e, scratch_bytes);
    values = (float*)data.bytes;
    keys = (uint32_t*)(data.bytes + keys_at);
    for (i = 0; i < ITEMS; ++i) {
        values[i] = (float)(i % 5);
        keys[i] = (i / 7) * 3 + ((i * 2654435761u) >> 30 == 0 ? 1 : 0); /* runs of 7, split now and then */
    }
    *(uint32_t*)(data.bytes + words_at) = LIVE;
    info.countBuffer = data.buffer;
    info.countBufferOffset = words_at;
    info.values.buffer = info.heads.buffer = info.output.buffer = info.uniqueKeys.buffer = data.buffer;
    info.segmentsOut.buffer = data.buffer;
    info.values.size = info.heads.size = info.output.size = info.uniqueKeys.size = ITEMS * 4;
    info.heads.offset = keys_at;
    info.output.offset = out_at;
    info.uniqueKeys.offset = unique_at;
    info.segmentsOut.offset = words_at + 4;
    info.segmentsOut.size = 4;
    info.scratch.buffer = scratch.buffer;
    info.scratch.size = scratch_bytes;
    bad = info;
    bad.outputKind = VKC_SEGMENTED_RUN_LENGTHS;
    expect(vkcCreateSegmentedPlan(gpu, &bad, &rejected) == VKC_ERROR_INVALID_ARGUMENT && rejected == NULL,
           "run lengths of float values were not refused");
    expect(strstr(vkcGetLastErrorMessage(), "run lengths are counted as uint add") != NULL,
           "the message does not name the run lengths' type");
    expect(vkcCreateSegmentedPlan(gpu, &info, &plan) == VKC_SUCCESS, "vkcCreateSegmentedPlan");
    expect(vkcGetPlanDispatchCount(plan) == 1, "one dispatch");
    run_plans(e, &plan, 1);
    totals = (float*)(data.bytes + out_at);
    unique = (uint32_t*)(data.bytes + unique_at);
    for (i = 0; i < LIVE; ++i) {
        if (i > 0 && keys[i] != keys[i - 1]) {
            expect(totals[segments] == sum && unique[segments] == keys[i - 1], "a segment's total or key");
            ++segments;
            sum = 0;
        }
        sum += values[i];
    }
    expect(totals[segments] == sum && unique[segments] == keys[LIVE - 1], "the last segment's total or key");
    expect(*(uint32_t*)(data.bytes + words_at + 4) == segments + 1, "the number of segments");
    vkcDestroyPlan(plan);

    info.valueType = VKC_TYPE_U32;
    info.outputKind = VKC_SEGMENTED_NON_TRIVIAL_RUNS;
    info.output.size = info.uniqueKeys.size = (ITEMS + 1) / 2 * 4;
    expect(vkcCreateSegmentedPlan(gpu, &info, &plan) == VKC_SUCCESS, "vkcCreateSegmentedPlan (non-trivial runs)");
    run_plans(e, &plan, 1);
    lengths = (uint32_t*)(data.bytes + out_at);
    for (i = 1; i <= LIVE; ++i) {
        if (i == LIVE || keys[i] != keys[i - 1]) {
            if (i - begin > 1) {
                expect(unique[runs] == begin && lengths[runs] == i - begin, "a non-trivial run's offset or length");
                ++runs;
            }
            begin = i;
        }
    }
    expect(*(uint32_t*)(data.bytes + words_at + 4) == runs, "the number of non-trivial runs");
    vkcDestroyPlan(plan);
    free_buffer(e, &data);
    free_buffer(e, &scratch);
}

int main(void) {
    enum { N = 100003, LIVE = 70001 };
    const VkDeviceSize bytes = N * 4, at_out = 1 << 20, at_result = 2 << 20, at_count = (2 << 20) + 256;
    Engine e;
    VkcDeviceCreateInfo create;
    VkcDevice gpu = NULL;
    VkcSubgroupLayout layout;
    VkcPlanCreateInfo scan, reduce, indirect, bad, prepared[3];
    VkDeviceSize scratch_bytes = 0, reduce_scratch = 0;
    HostBuffer data, scratch;
    VkcPlan plans[3] = {NULL, NULL, NULL}, rejected = NULL;
    uint32_t* in;
    uint32_t* out;
    uint32_t running = 0, max = 0, i;
    unsigned char before[64];
    size_t cache_size = 0;

    make_engine(&e);
    memset(&create, 0, sizeof create);
    create.instance = e.instance;
    create.physicalDevice = e.physical;
    create.device = e.device;
    create.pEnabledFeatures = &e.features;
    expect(vkcCreateDevice(&create, &gpu) == VKC_SUCCESS, "vkcCreateDevice");
    expect(vkcProbeSubgroupLayout(gpu, e.queue, e.family, &layout) == VKC_SUCCESS, "vkcProbeSubgroupLayout");
    expect(layout.sizeCount != 0, "the probe found no work-group size");

    memset(&scan, 0, sizeof scan);
    scan.primitive = VKC_PRIMITIVE_SCAN;
    scan.type = VKC_TYPE_U32;
    scan.op = VKC_OP_ADD;
    scan.flags = VKC_PLAN_EXCLUSIVE_BIT;
    scan.count = N;
    reduce = scan;
    reduce.primitive = VKC_PRIMITIVE_REDUCE;
    reduce.op = VKC_OP_MAX;
    reduce.flags = 0;
    expect(vkcGetScratchSize(gpu, &scan, &scratch_bytes) == VKC_SUCCESS, "vkcGetScratchSize (scan)");
    expect(vkcGetScratchSize(gpu, &reduce, &reduce_scratch) == VKC_SUCCESS, "vkcGetScratchSize (reduce)");
    if (reduce_scratch > scratch_bytes) scratch_bytes = reduce_scratch;

    data = make_buffer(&e, at_count + 256);
    scratch = make_buffer(&e, scratch_bytes);
    in = (uint32_t*)data.bytes;
    out = (uint32_t*)(data.bytes + at_out);
    for (i = 0; i < N; ++i) in[i] = (i * 2654435761u) >> 22;
    *(uint32_t*)(data.bytes + at_count) = LIVE;

    scan.input.buffer = data.buffer;
    scan.input.size = bytes;
    scan.output.buffer = data.buffer;
    scan.output.offset = at_out;
    scan.output.size = bytes;
    scan.scratch.buffer = scratch.buffer;
    scan.scratch.size = scratch_bytes;
    reduce.input = scan.input;
    reduce.scratch = scan.scratch;
    reduce.output.buffer = data.buffer;
    reduce.output.offset = at_result;
    reduce.output.size = 4;
    /* An in-place inclusive scan of the first LIVE items of the output, the count read on the GPU. */
    indirect = scan;
    indirect.flags = 0;
    indirect.input = scan.output;
    indirect.countBuffer = data.buffer;
    indirect.countBufferOffset = at_count;
    /* The three plans' pipelines made ahead, on two threads; then a preparation that names a type
     * that is not one: refused, naming which. */
    prepared[0] = scan;
    prepared[1] = reduce;
    prepared[2] = indirect;
    expect(vkcPrepareScans(gpu, 3, prepared, 2) == VKC_SUCCESS, "vkcPrepareScans");
    prepared[1].type = (VkcType)99;
    expect(vkcPrepareScans(gpu, 3, prepared, 0) == VKC_ERROR_INVALID_ARGUMENT, "vkcPrepareScans of type 99");
    expect(strstr(vkcGetLastErrorMessage(), "type 99") != NULL, "vkcPrepareScans: the message does not name the type");
    expect(vkcPrepareScans(NULL, 3, prepared, 0) == VKC_ERROR_INVALID_ARGUMENT, "vkcPrepareScans with no device");
    expect(vkcCreatePlan(gpu, &scan, &plans[0]) == VKC_SUCCESS, "vkcCreatePlan (scan)");
    expect(vkcCreatePlan(gpu, &reduce, &plans[1]) == VKC_SUCCESS, "vkcCreatePlan (reduce)");
    expect(vkcCreatePlan(gpu, &indirect, &plans[2]) == VKC_SUCCESS, "vkcCreatePlan (indirect scan)");
    expect(vkcGetPlanDispatchCount(plans[0]) >= 1, "a plan with no dispatch");

    /* Bad arguments: a result and a message, no plan, nothing recorded or written. */
    memcpy(before, data.bytes + at_out, sizeof before);
    bad = scan;
    bad.output.offset = at_out + 4;
    expect(vkcCreatePlan(gpu, &bad, &rejected) == VKC_ERROR_INVALID_ARGUMENT && rejected == NULL,
           "a misaligned output offset was not refused");
    expect(strstr(vkcGetLastErrorMessage(), "offset") != NULL, "the message does not name the offset");
    bad = scan;
    bad.scratch.size = 4;
    expect(vkcCreatePlan(gpu, &bad, &rejected) == VKC_ERROR_INVALID_ARGUMENT, "a short scratch range was not refused");
    bad = scan;
    bad.type = (VkcType)99;
    expect(vkcCreatePlan(gpu, &bad, &rejected) == VKC_ERROR_INVALID_ARGUMENT, "type 99 was not refused");
    expect(strstr(vkcGetLastErrorMessage(), "type 99") != NULL, "the message does not name the type");
    bad = scan;
    bad.type = VKC_TYPE_U64; /* shaderInt64 was not enabled (or, in a build of fewer types, no module) */
    expect(vkcCreatePlan(gpu, &bad, &rejected) == VKC_ERROR_UNSUPPORTED, "u64 without shaderInt64 was not refused");
    expect(strstr(vkcGetLastErrorMessage(), "shaderInt64") != NULL ||
               strstr(vkcGetLastErrorMessage(), "no module was built for device_scan add on ulong") != NULL,
           "the message names neither shaderInt64 nor the missing module");
    expect(vkcCreatePlan(NULL, &scan, &rejected) == VKC_ERROR_INVALID_ARGUMENT, "a NULL device was not refused");
    expect(memcmp(before, data.bytes + at_out, sizeof before) == 0, "a refused plan wrote the output");
    expect(strcmp(vkcResultName(VKC_ERROR_UNSUPPORTED), "VKC_ERROR_UNSUPPORTED") == 0, "vkcResultName");

    run_plans(&e, plans, 3);
    for (i = 0; i < N; ++i) {
        uint32_t want = running;
        running += in[i];
        if (in[i] > max) max = in[i];
        /* the indirect plan then scanned the first LIVE exclusive sums in place */
        if (i >= LIVE && out[i] != want) {
            fprintf(stderr, "c engine: exclusive scan item %u is %u, not %u\n", i, out[i], want);
            return 1;
        }
    }
    {
        /* the first LIVE items: the inclusive scan of the exclusive sums */
        uint32_t sum = 0, inclusive = 0;
        for (i = 0; i < LIVE; ++i) {
            inclusive += sum; /* sum is item i's exclusive prefix */
            sum += in[i];
            if (out[i] != inclusive) {
                fprintf(stderr, "c engine: indirect scan item %u is %u, not %u\n", i, out[i], inclusive);
                return 1;
            }
        }
    }
    expect(*(uint32_t*)(data.bytes + at_result) == max, "the max reduce");

    check_sort(&e, gpu);
    check_select(&e, gpu);
    check_histogram(&e, gpu);
    check_segmented(&e, gpu);

    expect(vkcGetPipelineCacheData(gpu, &cache_size, NULL) == VKC_SUCCESS && cache_size > 0, "pipeline cache size");
    for (i = 0; i < 3; ++i) vkcDestroyPlan(plans[i]);
    vkcDestroyDevice(gpu);
    free_buffer(&e, &data);
    free_buffer(&e, &scratch);
    vkDestroyDevice(e.device, NULL);
    vkDestroyInstance(e.instance, NULL);
    printf("c engine: ok\n");
    return 0;
}
