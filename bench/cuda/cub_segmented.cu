// CUDA device-wide peer of vkc's segmented scans and reductions: cub::DeviceReduce::ReduceByKey,
// DeviceScan::InclusiveScanByKey (both a sum), DeviceRunLengthEncode::Encode and ::NonTrivialRuns,
// and DeviceSegmentedReduce::Sum, on the data `vkc bench segmented` builds, for segments of L items:
//   keys[i]    = i / L (u32), for i < n
//   values[i]  = hash32(i) & 0xffff (bench_common.cuh's hash32, which hashes i + 1), as u32 or
//                converted to f32 (exact)
//   offsets[s] = s * L (u32), for s = 0 .. n / L (S + 1 entries: offsets[S] = n), segment s being
//                [offsets[s], offsets[s + 1])
// L is 16 and n / 4096 (4096 segments) for every op, and also 1 for reduce_by_key and
// segmented_reduce; a length that two of these give (n = 2^16: 16; n = 2^12: 1) makes one row.
// reduce_by_key and scan_by_key run on u32 and f32 values, rle and non_trivial_runs (on the keys)
// and segmented_reduce on u32.
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o cub_segmented cub_segmented.cu
// Usage: cub_segmented [--min-log2 16] [--max-log2 28] [--step 2]
// Output: CSV on stdout (op,type,segment,n,median_ms,gitems_per_s; type: the values', segment: L,
// n input items a second), a '#' line with the device first. Every output (counts, unique keys,
// totals, run lengths, scanned values) is checked against the host up to 2^24 items; above that the
// count and the first and last segments.

#include <cub/cub.cuh>
#include <cuda/std/functional>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <utility>
#include <vector>

#include "bench_common.cuh"

constexpr int kWarmup = 3;
constexpr int kReps = 15;
constexpr size_t kCpuCheckMax = size_t(1) << 24;
constexpr size_t kSegments = 4096; // the third length: n / kSegments
// f32 sums from 2^24 up round, in an order of CUB's choosing: a few dozen roundings deep at most.
constexpr double kF32Tolerance = 1e-5;

__host__ __device__ inline uint32_t value_bits(uint32_t i) { return hash32(i) & 0xffffu; }

template <class V>
__global__ void fill(uint32_t* keys, V* values, uint32_t* offsets, size_t n, uint32_t length) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    keys[i] = uint32_t(i / length);
    values[i] = V(value_bits(uint32_t(i)));
    if (i % length == 0) offsets[i / length] = uint32_t(i);
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) offsets[n / length] = uint32_t(n);
}

struct Buffers {
  uint32_t *keys, *keys_out, *offsets;
  void *values, *out; // 4 bytes an item: u32 or f32 values, totals, scanned values or run lengths
  int* num;
};

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

template <class T>
static std::vector<T> download(const T* d, size_t first, size_t count) {
  std::vector<T> h(count);
  CK(cudaMemcpy(h.data(), d + first, count * sizeof(T), cudaMemcpyDeviceToHost));
  return h;
}

// The segments [first, last) the check covers: all up to kCpuCheckMax items, else the first and the
// last (the host's side would take seconds a row).
static std::vector<std::pair<size_t, size_t>> checked(size_t segments, size_t n) {
  if (n <= kCpuCheckMax || segments < 2) return {{0, segments}};
  return {{0, 1}, {segments - 1, segments}};
}

// u32 sums wrap as CUB's do (segments above 2^16 items); f32 ones below 2^24 are sums of integers,
// exact in any order.
template <class V>
static bool same(V got, uint64_t want) {
  if constexpr (std::is_same_v<V, float>)
    return want < (uint64_t(1) << 24) ? got == float(want)
                                      : std::fabs(double(got) - double(want)) <= kF32Tolerance * double(want);
  else return got == uint32_t(want);
}

template <class V>
static void run_values(const char* type, size_t n, uint32_t length, const Buffers& b) {
  V* values = static_cast<V*>(b.values);
  V* out = static_cast<V*>(b.out);
  fill<V><<<1024, 256>>>(b.keys, values, b.offsets, n, length);
  CK(cudaGetLastError());
  const int items = int(n); // int counts, as a typical caller passes them (n <= 2^30 is enforced)
  const size_t segments = n / length; // both powers of two
  // Scan by key and run-length encoding of 1-item segments only where that is the 4096-segment case.
  const bool every_op = length != 1 || n == kSegments;

  auto expect = [&](const char* op, bool ok, const char* what, size_t at, double got, double want) {
    if (ok) return;
    std::fprintf(stderr, "FAIL op=%s type=%s L=%u n=%zu: %s %zu is %.9g, expected %.9g\n", op, type, length, n, what,
                 at, got, want);
    std::exit(1);
  };
  // -1 and NaN or 0xffffffff: what a previous op left cannot pass the checks.
  auto poison = [&] {
    CK(cudaMemset(b.num, 0xff, sizeof(int)));
    CK(cudaMemset(b.keys_out, 0xff, n * 4));
    CK(cudaMemset(b.out, 0xff, n * 4));
  };
  auto total = [&](size_t s) {
    uint64_t t = 0;
    for (size_t i = s * length; i < (s + 1) * length; ++i) t += value_bits(uint32_t(i));
    return t;
  };
  // One entry a segment: the count CUB wrote (where `counted`), the unique keys (where `keyed`), and
  // d_per[s] against want(s).
  auto check_segments = [&](const char* op, const auto* d_per, bool counted, bool keyed, auto want) {
    if (counted) {
      const int got = download(b.num, 0, 1)[0];
      expect(op, size_t(got) == segments, "segment count", 0, got, double(segments));
    }
    for (auto [first, last] : checked(segments, n)) {
      const auto per = download(d_per, first, last - first);
      const auto keys = keyed ? download(b.keys_out, first, last - first) : std::vector<uint32_t>();
      for (size_t s = first; s < last; ++s) {
        if (keyed) expect(op, keys[s - first] == s, "key of segment", s, keys[s - first], double(s));
        const uint64_t w = want(s);
        expect(op, same(per[s - first], w), "total of segment", s, double(per[s - first]), double(w));
      }
    }
  };

  poison();
  float ms = time_cub([&](void* temp, size_t& bytes) {
    return cub::DeviceReduce::ReduceByKey(temp, bytes, b.keys, b.keys_out, values, out, b.num, cuda::std::plus<V>(),
                                          items);
  });
  check_segments("reduce_by_key", out, true, true, total);
  csv("reduce_by_key", type, length, n, ms);

  if (every_op) {
    poison();
    ms = time_cub([&](void* temp, size_t& bytes) {
      return cub::DeviceScan::InclusiveScanByKey(temp, bytes, b.keys, values, out, cuda::std::plus<V>(), items);
    });
    for (auto [first, last] : checked(segments, n)) {
      const std::vector<V> got = download(out, first * length, (last - first) * length);
      for (size_t s = first; s < last; ++s) {
        uint64_t prefix = 0;
        for (size_t i = s * length; i < (s + 1) * length; ++i) {
          prefix += value_bits(uint32_t(i));
          const V g = got[i - first * length];
          expect("scan_by_key", same(g, prefix), "item", i, double(g), double(prefix));
        }
      }
    }
    csv("scan_by_key", type, length, n, ms);
  }

  if constexpr (std::is_same_v<V, uint32_t>) {
    if (every_op) {
      poison();
      ms = time_cub([&](void* temp, size_t& bytes) {
        return cub::DeviceRunLengthEncode::Encode(temp, bytes, b.keys, b.keys_out, out, b.num, items);
      });
      check_segments("rle", out, true, true, [&](size_t) { return uint64_t(length); });
      csv("rle", type, length, n, ms);
    }
    if (length > 1) { // every run non-trivial: run s begins at s * L (in keys_out, checked as a key s * L)
      poison();
      ms = time_cub([&](void* temp, size_t& bytes) {
        return cub::DeviceRunLengthEncode::NonTrivialRuns(temp, bytes, b.keys, b.keys_out, out, b.num, items);
      });
      const int runs = download(b.num, 0, 1)[0];
      expect("non_trivial_runs", size_t(runs) == segments, "run count", 0, runs, double(segments));
      for (auto [first, last] : checked(segments, n)) {
        const std::vector<uint32_t> offsets = download(b.keys_out, first, last - first);
        const std::vector<uint32_t> lengths = download(static_cast<uint32_t*>(b.out), first, last - first);
        for (size_t s = first; s < last; ++s) {
          expect("non_trivial_runs", offsets[s - first] == s * length, "offset of run", s, offsets[s - first],
                 double(s * length));
          expect("non_trivial_runs", lengths[s - first] == length, "length of run", s, lengths[s - first], length);
        }
      }
      csv("non_trivial_runs", type, length, n, ms);
    }
    poison();
    ms = time_cub([&](void* temp, size_t& bytes) {
      return cub::DeviceSegmentedReduce::Sum(temp, bytes, values, out, int(segments), b.offsets, b.offsets + 1);
    });
    check_segments("segmented_reduce", out, false, false, total);
    csv("segmented_reduce", type, length, n, ms);
  }
}

int main(int argc, char** argv) {
  // n >= 2^12 gives the 4096-segment case at least one item a segment.
  const Sweep sweep = parse_sweep(argc, argv, 12);
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0;
  CK(cudaDriverGetVersion(&driver));
  std::printf("# cub_segmented: %s, CUDA driver %d, CUB %d.%d.%d, median of %d, each after 300 ms of its own work\n",
              prop.name, driver, CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION, kReps);
  std::printf("op,type,segment,n,median_ms,gitems_per_s\n");
  const size_t max_n = size_t(1) << sweep.max_log2;
  Buffers b;
  CK(cudaMalloc(&b.keys, max_n * 4));
  CK(cudaMalloc(&b.keys_out, max_n * 4));
  CK(cudaMalloc(&b.offsets, (max_n + 1) * 4));
  CK(cudaMalloc(&b.values, max_n * 4));
  CK(cudaMalloc(&b.out, max_n * 4));
  CK(cudaMalloc(&b.num, sizeof(int)));
  for (int e = sweep.min_log2; e <= sweep.max_log2; e += sweep.step) {
    const size_t n = size_t(1) << e;
    std::vector<uint32_t> lengths = {1, 16};
    if (n / kSegments != 1 && n / kSegments != 16) lengths.push_back(uint32_t(n / kSegments));
    for (uint32_t length : lengths) {
      run_values<uint32_t>("u32", n, length, b);
      run_values<float>("f32", n, length, b);
    }
  }
  CK(cudaFree(b.keys));
  CK(cudaFree(b.keys_out));
  CK(cudaFree(b.offsets));
  CK(cudaFree(b.values));
  CK(cudaFree(b.out));
  CK(cudaFree(b.num));
  return 0;
}
