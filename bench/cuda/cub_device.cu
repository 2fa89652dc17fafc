// CUDA device-wide peers: cub::DeviceScan::InclusiveSum / ExclusiveSum and cub::DeviceReduce::Sum,
// plus a uint4 copy (read + write ceiling) and a uint4 read-only reduce (read ceiling) of the same bytes.
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o cub_device cub_device.cu
// Usage: cub_device [--types u32,u64,f32,f64] [--min-log2 10] [--max-log2 30]   (even steps from min)
// Output: CSV on stdout (op,type,n,bytes,median_ms,gbps,gitems_per_s); skipped sizes on stderr.

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "bench_common.cuh"

constexpr int kWarmup = 3;
constexpr int kReps = 20;

// Input pattern, identical on host and device. Integers use all their bits (sums wrap on both sides);
// floats are k/65536 in [0,1): exact in f32 and f64, non-negative, and pseudo-random so that f32
// rounding along the scan is unbiased and stays far inside the 1e-3 tolerance.
template <class T>
__host__ __device__ inline T value_at(size_t i) {
  const uint32_t h = hash32(uint32_t(i));
  if constexpr (std::is_same_v<T, uint32_t>) return h;
  else if constexpr (std::is_same_v<T, uint64_t>) return uint64_t(h) * 0x9E3779B97F4A7C15ull;
  else return T(h & 0xFFFFu) * T(1.0 / 65536.0);
}

template <class T>
__global__ void fill_kernel(T* p, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = value_at<T>(i);
}

// Ceilings: uint4 copy (read + write) and uint4 read-only reduce of the same bytes.

// One uint4 per thread over a full grid: measured on H200 at cudaMemcpy speed (~4.23 TB/s), about 7%
// above a grid-stride loop with a capped grid, so the ceiling is not understated.
__global__ void __launch_bounds__(kVecBlock) copy_kernel(const uint4* __restrict__ in, uint4* __restrict__ out,
                                                         size_t nvec) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < nvec) out[i] = in[i];
}


static void print_row(const char* op, const char* type, size_t n, size_t bytes, float ms) {
  const double s = double(ms) * 1e-3;
  std::printf("%s,%s,%zu,%zu,%.6f,%.2f,%.4f\n", op, type, n, bytes, ms, double(bytes) / s / 1e9, double(n) / s / 1e9);
  std::fflush(stdout);
}

// Host accumulator: integers wrap exactly like the GPU, floats are summed in double.
template <class T>
using acc_t = std::conditional_t<std::is_floating_point_v<T>, double, T>;

template <class T>
static bool matches(T got, acc_t<T> want) {
  if constexpr (std::is_floating_point_v<T>)
    return std::fabs(double(got) - want) <= 1e-3 * std::max(std::fabs(want), 1.0);
  else
    return got == want;
}

template <class T>
static void report_fail(const char* op, const char* type, size_t n, size_t idx, T got, acc_t<T> want) {
  if constexpr (std::is_floating_point_v<T>)
    std::printf("FAIL op=%s type=%s n=%zu index=%zu got=%.17g want=%.17g\n", op, type, n, idx, double(got), want);
  else
    std::printf("FAIL op=%s type=%s n=%zu index=%zu got=%llu want=%llu\n", op, type, n, idx,
                (unsigned long long)got, (unsigned long long)want);
  std::exit(1);
}

template <class T>
static void run_size(const char* tname, int log2n, int sms) {
  const size_t n = size_t(1) << log2n;
  const int n_items = int(n);  // int num_items, as typical callers pass (n <= 2^30)
  const size_t bytes = n * sizeof(T);

  size_t t_inc = 0, t_exc = 0, t_red = 0;
  CK(cub::DeviceScan::InclusiveSum(nullptr, t_inc, static_cast<const T*>(nullptr), static_cast<T*>(nullptr), n_items));
  CK(cub::DeviceScan::ExclusiveSum(nullptr, t_exc, static_cast<const T*>(nullptr), static_cast<T*>(nullptr), n_items));
  CK(cub::DeviceReduce::Sum(nullptr, t_red, static_cast<const T*>(nullptr), static_cast<T*>(nullptr), n_items));

  size_t free_b = 0, total_b = 0;
  CK(cudaMemGetInfo(&free_b, &total_b));
  const size_t need = 2 * bytes + std::max({t_inc, t_exc, t_red}) + (size_t(512) << 20);  // 512 MiB margin
  if (need > free_b) {
    std::fprintf(stderr, "# skip type=%s n=%zu: needs %zu bytes, %zu free\n", tname, n, need, free_b);
    return;
  }

  T *d_in = nullptr, *d_out = nullptr, *d_red = nullptr;
  unsigned long long* d_sink = nullptr;
  CK(cudaMalloc(&d_in, bytes));
  CK(cudaMalloc(&d_out, bytes));
  CK(cudaMalloc(&d_red, sizeof(T)));
  CK(cudaMalloc(&d_sink, sizeof(unsigned long long)));
  fill_kernel<T><<<sms * 8, 256>>>(d_in, n);
  CK(cudaGetLastError());

  // Reference at sampled positions, one host pass over the pattern (no host copy of the input).
  std::vector<size_t> pos = {0, 1, 2, 31, 32, 33, n / 2 - 1, n / 2, n - 2, n - 1};
  for (uint32_t k = 0; k < 54; ++k) pos.push_back(size_t(hash32(0xC0FFEEu + k)) % n);
  pos.erase(std::remove_if(pos.begin(), pos.end(), [n](size_t p) { return p >= n; }), pos.end());
  std::sort(pos.begin(), pos.end());
  pos.erase(std::unique(pos.begin(), pos.end()), pos.end());
  std::vector<acc_t<T>> ref_inc(pos.size()), ref_exc(pos.size());
  acc_t<T> acc = 0;
  for (size_t i = 0, j = 0; i < n; ++i) {
    if (j < pos.size() && pos[j] == i) {
      ref_exc[j] = acc;
      acc += acc_t<T>(value_at<T>(i));
      ref_inc[j++] = acc;
    } else {
      acc += acc_t<T>(value_at<T>(i));
    }
  }
  const acc_t<T> ref_total = acc;

  auto check_scan = [&](const char* op, const std::vector<acc_t<T>>& ref) {
    for (size_t j = 0; j < pos.size(); ++j) {
      T got;
      CK(cudaMemcpy(&got, d_out + pos[j], sizeof(T), cudaMemcpyDeviceToHost));
      if (!matches<T>(got, ref[j])) report_fail<T>(op, tname, n, pos[j], got, ref[j]);
    }
  };

  const size_t nvec = bytes / sizeof(uint4);
  const unsigned copy_grid = unsigned((nvec + kVecBlock - 1) / kVecBlock);
  const size_t want_blocks = (nvec + size_t(kVecBlock) * kUnroll - 1) / (size_t(kVecBlock) * kUnroll);
  const unsigned read_grid = unsigned(std::max<size_t>(1, std::min<size_t>(want_blocks, size_t(sms) * 8)));

  {  // copy
    auto launch = [&] {
      copy_kernel<<<copy_grid, kVecBlock>>>(reinterpret_cast<const uint4*>(d_in), reinterpret_cast<uint4*>(d_out), nvec);
      CK(cudaGetLastError());
    };
    print_row("copy", tname, n, 2 * bytes, median_ms(launch, kWarmup, kReps, 10));
  }
  {  // read
    auto launch = [&] {
      read_kernel<<<read_grid, kVecBlock>>>(reinterpret_cast<const uint4*>(d_in), nvec, d_sink);
      CK(cudaGetLastError());
    };
    print_row("read", tname, n, bytes, median_ms(launch, kWarmup, kReps, 10));
  }

  void* d_temp = nullptr;
  {  // inclusive_sum
    CK(cudaMalloc(&d_temp, std::max<size_t>(t_inc, 1)));
    CK(cudaMemset(d_out, 0, bytes));
    auto launch = [&] { CK(cub::DeviceScan::InclusiveSum(d_temp, t_inc, static_cast<const T*>(d_in), d_out, n_items)); };
    const float ms = median_ms(launch, kWarmup, kReps, 10);
    check_scan("inclusive_sum", ref_inc);
    print_row("inclusive_sum", tname, n, 2 * bytes, ms);
    CK(cudaFree(d_temp));
  }
  {  // exclusive_sum
    CK(cudaMalloc(&d_temp, std::max<size_t>(t_exc, 1)));
    CK(cudaMemset(d_out, 0, bytes));
    auto launch = [&] { CK(cub::DeviceScan::ExclusiveSum(d_temp, t_exc, static_cast<const T*>(d_in), d_out, n_items)); };
    const float ms = median_ms(launch, kWarmup, kReps, 10);
    check_scan("exclusive_sum", ref_exc);
    print_row("exclusive_sum", tname, n, 2 * bytes, ms);
    CK(cudaFree(d_temp));
  }
  {  // reduce_sum
    CK(cudaMalloc(&d_temp, std::max<size_t>(t_red, 1)));
    CK(cudaMemset(d_red, 0, sizeof(T)));
    auto launch = [&] { CK(cub::DeviceReduce::Sum(d_temp, t_red, static_cast<const T*>(d_in), d_red, n_items)); };
    const float ms = median_ms(launch, kWarmup, kReps, 10);
    T got;
    CK(cudaMemcpy(&got, d_red, sizeof(T), cudaMemcpyDeviceToHost));
    if (!matches<T>(got, ref_total)) report_fail<T>("reduce_sum", tname, n, n, got, ref_total);
    print_row("reduce_sum", tname, n, bytes, ms);
    CK(cudaFree(d_temp));
  }

  CK(cudaFree(d_in));
  CK(cudaFree(d_out));
  CK(cudaFree(d_red));
  CK(cudaFree(d_sink));
}

template <class T>
static void run_type(const char* tname, int min_log2, int max_log2, int sms) {
  for (int e = min_log2; e <= max_log2; e += 2) run_size<T>(tname, e, sms);
}

int main(int argc, char** argv) {
  std::string types = "u32,u64,f32,f64";
  int min_log2 = 10, max_log2 = 30;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--types") && i + 1 < argc) types = argv[++i];
    else if (!std::strcmp(argv[i], "--min-log2") && i + 1 < argc) min_log2 = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--max-log2") && i + 1 < argc) max_log2 = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--types u32,u64,f32,f64] [--min-log2 K] [--max-log2 K]\n", argv[0]);
      return 1;
    }
  }
  // >= 2^4 items keeps every buffer a whole number of uint4; <= 2^30 keeps int num_items valid.
  if (min_log2 < 4 || max_log2 > 30 || min_log2 > max_log2) {
    std::fprintf(stderr, "bad options: need 4 <= --min-log2 <= --max-log2 <= 30\n");
    return 1;
  }
  std::vector<std::string> list;
  for (size_t b = 0; b <= types.size();) {
    size_t e = types.find(',', b);
    if (e == std::string::npos) e = types.size();
    if (e > b) list.push_back(types.substr(b, e - b));
    b = e + 1;
  }
  for (const auto& t : list)
    if (t != "u32" && t != "u64" && t != "f32" && t != "f64") {
      std::fprintf(stderr, "unknown type '%s' (u32, u64, f32, f64)\n", t.c_str());
      return 1;
    }

  const cudaDeviceProp prop = print_device_line();
  std::printf("\n");
  std::printf("op,type,n,bytes,median_ms,gbps,gitems_per_s\n");

  const int sms = prop.multiProcessorCount;
  for (const auto& t : list) {
    if (t == "u32") run_type<uint32_t>("u32", min_log2, max_log2, sms);
    else if (t == "u64") run_type<uint64_t>("u64", min_log2, max_log2, sms);
    else if (t == "f32") run_type<float>("f32", min_log2, max_log2, sms);
    else run_type<double>("f64", min_log2, max_log2, sms);
  }
  return 0;
}
