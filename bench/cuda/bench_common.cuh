// Shared by the CUDA peers: error checks, the input hash, and GPU timing with CUDA events.
#pragma once

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(call)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

// Input pattern, identical on host and device so the host can rebuild any item for verification.
__host__ __device__ inline uint32_t hash32(uint32_t x) {
  x += 1u;  // so that element 0 is not hash(0) == 0
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

// Holds the stream while the host enqueues all timed event pairs, so that host launch overhead does not
// show up as idle time between a start event and its kernel (matters at small sizes).
__global__ void spin_kernel(unsigned long long ns) {
  unsigned long long t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

// Median of `reps` launches, each between its own pair of events, after `warmup` launches; the stream
// is held for head_start_ms first, far longer than enqueueing the pairs takes.
template <class F>
static float median_ms(F&& launch, int warmup, int reps, unsigned long long head_start_ms) {
  for (int i = 0; i < warmup; ++i) launch();
  CK(cudaDeviceSynchronize());
  std::vector<cudaEvent_t> ev(2 * reps);
  for (auto& e : ev) CK(cudaEventCreate(&e));
  spin_kernel<<<1, 1>>>(head_start_ms * 1000 * 1000);
  CK(cudaGetLastError());
  for (int r = 0; r < reps; ++r) {
    CK(cudaEventRecord(ev[2 * r]));
    launch();
    CK(cudaEventRecord(ev[2 * r + 1]));
  }
  CK(cudaEventSynchronize(ev.back()));
  std::vector<float> ms(reps);
  for (int r = 0; r < reps; ++r) CK(cudaEventElapsedTime(&ms[r], ev[2 * r], ev[2 * r + 1]));
  for (auto& e : ev) CK(cudaEventDestroy(e));
  std::sort(ms.begin(), ms.end());
  return reps % 2 ? ms[reps / 2] : 0.5f * (ms[reps / 2 - 1] + ms[reps / 2]);
}

// Starts the leading '#' line of a peer's output: device, driver, runtime and CUB versions. The caller
// ends the line with what it adds. Returns the device's properties.
inline cudaDeviceProp print_device_line() {
  int dev = 0, drv = 0, rt = 0;
  CK(cudaGetDevice(&dev));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, dev));
  CK(cudaDriverGetVersion(&drv));
  CK(cudaRuntimeGetVersion(&rt));
  std::printf("# device=%s sms=%d driver=%d runtime=%d cub=%d", prop.name, prop.multiProcessorCount, drv, rt,
              int(CUB_VERSION));
  return prop;
}

// A uint4 a thread over a full grid: the bandwidth ceiling the sort and select peers report.
__global__ void copy_uint4(const uint4* __restrict__ in, uint4* __restrict__ out, size_t nvec) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < nvec) out[i] = in[i];
}

// At least 300 ms of the work about to be timed: the host's checks between sizes leave the GPU idle,
// and its clocks drop.
template <class F>
static void warm_up(F&& launch) {
  const auto start = std::chrono::steady_clock::now();
  do {
    launch();
    CK(cudaDeviceSynchronize());
  } while (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(300));
}

// One CSV row of the sort and select peers: op,type,n,median_ms,gitems_per_s.
static void csv_row(const char* op, const char* type, size_t n, float ms) {
  std::printf("%s,%s,%zu,%.6f,%.4f\n", op, type, n, ms, double(n) / (double(ms) * 1e-3) / 1e9);
  std::fflush(stdout);
}

// The read-only ceiling of reduce and histogram: kVecBlock threads a block over uint4s.
constexpr int kVecBlock = 256;
constexpr int kUnroll = 4;
// Grid-stride with a capped grid (kUnroll loads in flight per thread) keeps the atomics few; the block sum
// goes to one atomic per block so the loads cannot be optimised away.
__global__ void __launch_bounds__(kVecBlock) read_kernel(const uint4* __restrict__ in, size_t nvec,
                                                         unsigned long long* sink) {
  const size_t stride = size_t(gridDim.x) * blockDim.x;
  size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  uint32_t acc = 0;
  for (; i + (kUnroll - 1) * stride < nvec; i += kUnroll * stride) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = in[i + u * stride];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) acc += v[u].x + v[u].y + v[u].z + v[u].w;
  }
  for (; i < nvec; i += stride) {
    const uint4 v = in[i];
    acc += v.x + v.y + v.z + v.w;
  }
  using BlockReduce = cub::BlockReduce<unsigned long long, kVecBlock>;
  __shared__ typename BlockReduce::TempStorage tmp;
  const unsigned long long s = BlockReduce(tmp).Sum((unsigned long long)acc);
  if (threadIdx.x == 0) atomicAdd(sink, s);
}

// The sizes of a sweep (cub_sort, cub_select, cub_histogram, cub_segmented): --min-log2, --max-log2,
// --step. Prints the usage and exits, before any CUDA call, on --help (0), an unknown option, or a range
// that is backwards or outside [lowest, 30] (n must fit CUB's int counts) (1).
struct Sweep {
  int min_log2 = 16, max_log2 = 28, step = 2;
};
static Sweep parse_sweep(int argc, char** argv, int lowest) {
  Sweep s;
  bool help = false, unknown = false;
  for (int i = 1; i < argc; ++i) {
    const bool value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--min-log2") && value) s.min_log2 = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--max-log2") && value) s.max_log2 = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--step") && value) s.step = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) help = true;
    else unknown = true;
  }
  if (help || unknown || s.min_log2 < lowest || s.max_log2 > 30 || s.min_log2 > s.max_log2 || s.step < 1) {
    std::fprintf(help ? stdout : stderr,
                 "usage: %s [--min-log2 16] [--max-log2 28] [--step 2] (%d <= min <= max <= 30)\n", argv[0], lowest);
    std::exit(help ? 0 : 1);
  }
  return s;
}
