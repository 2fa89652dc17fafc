// CUDA device-wide peer of vkc's stream compaction: cub::DeviceSelect::If (keep x below half the type's
// range, about half kept), DeviceSelect::Flagged (u32 flags, about half set), DevicePartition::If (same
// predicate) and DeviceSelect::Unique (runs of 4, a quarter kept), on u32, u64, u8 and u16 items, each
// from an input buffer to an output buffer with the count in a device int; and a uint4 copy of the
// items' bytes (the bandwidth ceiling) for each type in the same run.
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o cub_select cub_select.cu
// Usage: cub_select [--min-log2 16] [--max-log2 28] [--step 2]
// Output: CSV on stdout (op,type,n,median_ms,gitems_per_s; n input items a second), a '#' line with the
// device first. The selected count is checked against the CPU up to 2^24 items, only bounded above.

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bench_common.cuh"

constexpr int kWarmup = 3;
constexpr int kReps = 15;
constexpr size_t kCpuCheckMax = size_t(1) << 24;

enum Op { kSelectIf, kSelectFlagged, kPartitionIf, kUnique, kOps };
constexpr const char* kOpName[kOps] = {"select_if", "select_flagged", "partition_if", "unique"};

// The items, as the Vulkan bench builds them: k is the index, or index / 4 for unique.
template <class T>
__host__ __device__ inline T item_at(uint32_t k) {
  if constexpr (sizeof(T) < 4) return T(hash32(k)); // the low bytes, as vkc bench select's
  else if constexpr (sizeof(T) == 4) return hash32(k);
  else return uint64_t(hash32(k)) | uint64_t(hash32(k ^ 0x55555555u)) << 32;
}

__host__ __device__ inline uint32_t flag_at(uint32_t i) { return hash32(i ^ 0x9e3779b9u) & 1u; }

// Keep x < 2^(bits-1): for hashed data, about half.
template <class T>
struct BelowHalf {
  __host__ __device__ bool operator()(const T& x) const { return x < T(T(1) << (8 * sizeof(T) - 1)); }
};

template <class T>
__global__ void fill_items(T* p, size_t n, bool runs_of_4) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = item_at<T>(uint32_t(runs_of_4 ? i / 4 : i));
}

__global__ void fill_flags(uint32_t* f, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    f[i] = flag_at(uint32_t(i));
}

// The count CUB should report, rebuilt from the hash (partition's count is that of the selected part).
template <class T>
static long long cpu_count(Op op, size_t n) {
  long long c = 0;
  for (size_t i = 0; i < n; ++i) {
    if (op == kSelectFlagged) c += flag_at(uint32_t(i));
    else if (op == kUnique) c += i == 0 || item_at<T>(uint32_t(i / 4)) != item_at<T>(uint32_t((i - 1) / 4));
    else c += BelowHalf<T>()(item_at<T>(uint32_t(i)));
  }
  return c;
}

// Times the uint4 copy of n items of T, then each op on them.
template <class T>
static void run_type(const char* type, size_t n, void* in, void* out, const uint32_t* flags, int* d_num) {
  const int items = int(n); // int counts, as a typical caller passes them (n <= 2^30 is enforced)
  const T* d_in = static_cast<const T*>(in);
  T* d_out = static_cast<T*>(out);
  {
    const size_t nvec = n * sizeof(T) / 16;
    auto launch = [&] {
      copy_uint4<<<unsigned((nvec + 255) / 256), 256>>>(static_cast<const uint4*>(in), static_cast<uint4*>(out),
                                                         nvec);
    };
    warm_up(launch);
    csv_row("copy", type, n, median_ms(launch, kWarmup, kReps, 10));
  }
  for (int o = 0; o < kOps; ++o) {
    const Op op = Op(o);
    fill_items<T><<<1024, 256>>>(static_cast<T*>(in), n, op == kUnique);
    CK(cudaGetLastError());
    // -1 so that a count left over from the previous op cannot pass the check.
    CK(cudaMemset(d_num, 0xff, sizeof(int)));
    auto call = [&](void* temp, size_t& bytes) {
      switch (op) {
        case kSelectIf: return cub::DeviceSelect::If(temp, bytes, d_in, d_out, d_num, items, BelowHalf<T>());
        case kSelectFlagged: return cub::DeviceSelect::Flagged(temp, bytes, d_in, flags, d_out, d_num, items);
        case kPartitionIf: return cub::DevicePartition::If(temp, bytes, d_in, d_out, d_num, items, BelowHalf<T>());
        default: return cub::DeviceSelect::Unique(temp, bytes, d_in, d_out, d_num, items);
      }
    };
    size_t temp_bytes = 0;
    CK(call(nullptr, temp_bytes));
    void* temp = nullptr;
    CK(cudaMalloc(&temp, std::max<size_t>(temp_bytes, 1)));
    auto launch = [&] { CK(call(temp, temp_bytes)); };
    warm_up(launch);
    const float ms = median_ms(launch, kWarmup, kReps, 10);
    int got = 0;
    CK(cudaMemcpy(&got, d_num, sizeof(int), cudaMemcpyDeviceToHost));
    // Above kCpuCheckMax the host count would take seconds per row; only the bounds are checked there.
    const bool bad = n <= kCpuCheckMax ? got != cpu_count<T>(op, n) : got < 0 || size_t(got) > n;
    if (bad) {
      std::fprintf(stderr, "FAIL op=%s type=%s n=%zu: selected %d, expected %lld\n", kOpName[op], type, n, got,
                   n <= kCpuCheckMax ? cpu_count<T>(op, n) : -1ll);
      std::exit(1);
    }
    csv_row(kOpName[op], type, n, ms);
    CK(cudaFree(temp));
  }
}

int main(int argc, char** argv) {
  // n >= 4 gives the u32 copy at least one uint4.
  const Sweep sweep = parse_sweep(argc, argv, 2);
  const int min_log2 = sweep.min_log2, max_log2 = sweep.max_log2, step = sweep.step;
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0;
  CK(cudaDriverGetVersion(&driver));
  std::printf("# cub_select: %s, CUDA driver %d, CUB %d.%d.%d, median of %d, each after 300 ms of its own work\n",
              prop.name, driver, CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION, kReps);
  std::printf("op,type,n,median_ms,gitems_per_s\n");
  const size_t max_n = size_t(1) << max_log2;
  void *in, *out;
  uint32_t* flags;
  int* d_num;
  CK(cudaMalloc(&in, max_n * 8)); // room for u64 items
  CK(cudaMalloc(&out, max_n * 8));
  CK(cudaMalloc(&flags, max_n * 4));
  CK(cudaMalloc(&d_num, sizeof(int)));
  // The flags depend on the index only: filled once for every size.
  fill_flags<<<1024, 256>>>(flags, max_n);
  CK(cudaGetLastError());
  for (int e = min_log2; e <= max_log2; e += step) {
    const size_t n = size_t(1) << e;
    run_type<uint32_t>("u32", n, in, out, flags, d_num);
    run_type<uint64_t>("u64", n, in, out, flags, d_num);
    run_type<uint8_t>("u8", n, in, out, flags, d_num);
    run_type<uint16_t>("u16", n, in, out, flags, d_num);
  }
  CK(cudaFree(in));
  CK(cudaFree(out));
  CK(cudaFree(flags));
  CK(cudaFree(d_num));
  return 0;
}
