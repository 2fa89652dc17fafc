// CUDA device-wide peer of vkc's segmented scans and reductions: cub::DeviceReduce::ReduceByKey,
// DeviceScan::InclusiveScanByKey, DeviceRunLengthEncode::Encode and DeviceSegmentedReduce::Sum, on
// the data `vkc bench segmented` builds: keys i / L (u32; segments of L items, L = n / 4096 for
// 4096 segments), values hash32(i) & 0xffff as u32 or as f32, offsets s * L for the segmented reduce.
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o cub_segmented cub_segmented.cu
// Usage: cub_segmented [--min-log2 16] [--max-log2 28] [--step 2]
// Output: CSV on stdout (op,type,segment,n,median_ms,gitems_per_s; type: the values', segment: L,
// n input items a second), a '#' line with the device first. The number of segments is checked, and
// the first and last segments' totals against the host.

#include <cub/cub.cuh>
#include <cuda/std/functional>
#include <cuda_runtime.h>

#include <cstdint>
#include <cstdio>
#include <vector>

#include "bench_common.cuh"

constexpr int kWarmup = 3;
constexpr int kReps = 15;

__host__ __device__ inline uint32_t value_bits(uint32_t i) { return hash32(i) & 0xffffu; }

template <class V>
__global__ void fill(uint32_t* keys, V* values, uint32_t* offsets, size_t n, uint32_t length) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    keys[i] = uint32_t(i / length);
    values[i] = V(value_bits(uint32_t(i)));
    if (i % length == 0) offsets[i / length] = uint32_t(i);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) offsets[(n + length - 1) / length] = uint32_t(n);
}

static void csv(const char* op, const char* type, uint32_t length, size_t n, float ms) {
  std::printf("%s,%s,%u,%zu,%.6f,%.4f\n", op, type, length, n, ms, double(n) / (double(ms) * 1e-3) / 1e9);
  std::fflush(stdout);
}

// Times `call` (CUB's two-phase form: a null temp asks for its size).
template <class Call>
static float time_cub(Call&& call) {
  size_t temp_bytes = 0;
  CK(call(nullptr, temp_bytes));
  void* temp = nullptr;
  CK(cudaMalloc(&temp, std::max<size_t>(temp_bytes, 1)));
  auto launch = [&] { CK(call(temp, temp_bytes)); };
  warm_up(launch);
  const float ms = median_ms(launch, kWarmup, kReps, 10);
  CK(cudaFree(temp));
  return ms;
}

// The host's total of segment s (values as integers below 2^16: exact in f32 for L <= 256).
static double segment_total(size_t s, uint32_t length, size_t n) {
  double t = 0;
  for (size_t i = s * length; i < std::min(n, (s + 1) * size_t(length)); ++i) t += value_bits(uint32_t(i));
  return t;
}

template <class V>
static void run_values(const char* type, size_t n, uint32_t length, uint32_t* keys, void* values_mem, uint32_t* offsets,
                       uint32_t* keys_out, void* out_mem, int* d_num) {
  V* values = static_cast<V*>(values_mem);
  V* out = static_cast<V*>(out_mem);
  fill<V><<<1024, 256>>>(keys, values, offsets, n, length);
  CK(cudaGetLastError());
  const int items = int(n);
  const size_t segments = (n + length - 1) / length;
  auto check = [&](const char* op, bool counted) {
    int got = int(segments);
    if (counted) CK(cudaMemcpy(&got, d_num, sizeof(int), cudaMemcpyDeviceToHost));
    V first = 0, last = 0;
    CK(cudaMemcpy(&first, out, sizeof(V), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&last, out + segments - 1, sizeof(V), cudaMemcpyDeviceToHost));
    const bool exact = sizeof(V) == 4 && (V(0.5) == 0 || length <= 256);
    if (size_t(got) != segments ||
        (exact && (double(first) != segment_total(0, length, n) || double(last) != segment_total(segments - 1, length, n)))) {
      std::fprintf(stderr, "FAIL op=%s type=%s L=%u n=%zu: %d segments (want %zu), totals %g %g\n", op, type, length, n,
                   got, segments, double(first), double(last));
      std::exit(1);
    }
  };
  CK(cudaMemset(d_num, 0xff, sizeof(int)));
  float ms = time_cub([&](void* temp, size_t& bytes) {
    return cub::DeviceReduce::ReduceByKey(temp, bytes, keys, keys_out, values, out, d_num, cuda::std::plus<V>(), items);
  });
  check("reduce_by_key", true);
  csv("reduce_by_key", type, length, n, ms);
  ms = time_cub([&](void* temp, size_t& bytes) {
    return cub::DeviceScan::InclusiveScanByKey(temp, bytes, keys, values, out, cuda::std::plus<V>(), items);
  });
  csv("scan_by_key", type, length, n, ms);
  if (sizeof(V) == 4 && V(0.5) == 0) { // integer values: the run lengths and the offsets' reduce
    CK(cudaMemset(d_num, 0xff, sizeof(int)));
    ms = time_cub([&](void* temp, size_t& bytes) {
      return cub::DeviceRunLengthEncode::Encode(temp, bytes, keys, keys_out, reinterpret_cast<uint32_t*>(out), d_num,
                                                items);
    });
    int runs = -1;
    CK(cudaMemcpy(&runs, d_num, sizeof(int), cudaMemcpyDeviceToHost));
    if (size_t(runs) != segments) {
      std::fprintf(stderr, "FAIL op=rle L=%u n=%zu: %d runs (want %zu)\n", length, n, runs, segments);
      std::exit(1);
    }
    csv("rle", type, length, n, ms);
    ms = time_cub([&](void* temp, size_t& bytes) {
      return cub::DeviceSegmentedReduce::Sum(temp, bytes, values, out, int(segments), offsets, offsets + 1);
    });
    check("segmented_reduce", false);
    csv("segmented_reduce", type, length, n, ms);
  }
}

int main(int argc, char** argv) {
  const Sweep sweep = parse_sweep(argc, argv, 12);
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0;
  CK(cudaDriverGetVersion(&driver));
  std::printf("# cub_segmented: %s, CUDA driver %d, CUB %d.%d.%d, median of %d, each after 300 ms of its own work\n",
              prop.name, driver, CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION, kReps);
  std::printf("op,type,segment,n,median_ms,gitems_per_s\n");
  const size_t max_n = size_t(1) << sweep.max_log2;
  uint32_t *keys, *keys_out, *offsets;
  void *values, *out;
  int* d_num;
  CK(cudaMalloc(&keys, max_n * 4));
  CK(cudaMalloc(&keys_out, max_n * 4));
  CK(cudaMalloc(&offsets, (max_n + 1) * 4));
  CK(cudaMalloc(&values, max_n * 4));
  CK(cudaMalloc(&out, max_n * 4));
  CK(cudaMalloc(&d_num, sizeof(int)));
  for (int e = sweep.min_log2; e <= sweep.max_log2; e += sweep.step) {
    const size_t n = size_t(1) << e;
    for (uint32_t length : {1u, 16u, uint32_t(std::max<size_t>(1, n / 4096))}) {
      run_values<uint32_t>("u32", n, length, keys, values, offsets, keys_out, out, d_num);
      run_values<float>("f32", n, length, keys, values, offsets, keys_out, out, d_num);
    }
  }
  CK(cudaFree(keys));
  CK(cudaFree(keys_out));
  CK(cudaFree(offsets));
  CK(cudaFree(values));
  CK(cudaFree(out));
  CK(cudaFree(d_num));
  return 0;
}
