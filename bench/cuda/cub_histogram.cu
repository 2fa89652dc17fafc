// CUDA device-wide peer of vkc's histogram: cub::DeviceHistogram on hashed samples spread over the
// bins' whole range, and a uint4 copy and a uint4 read-only pass over the samples' bytes (a histogram
// only reads its samples: the read is its bandwidth ceiling) for each sample type in the same run.
//
// Cases (the op column; n counts samples, 4 a pixel for RGBA):
//   even_u8_256      HistogramEven, u8, 256 bins over [0, 256)
//   even_u8x4_3_256  MultiHistogramEven<4, 3>, u8 RGBA pixels, 256 bins over [0, 256) for R, G and B
//   even_u16_1024    HistogramEven, u16, 1024 bins over [0, 65536)
//   even_u32_256     HistogramEven, u32, 256 bins over [0, 2^32), unsigned long long levels
//   even_f32_1024    HistogramEven, f32 in [0, 1), 1024 bins over [0, 1)
//   range_f32_256    HistogramRange, f32 in [0, 1), 257 ascending levels i / 257 (i = 0..256)
// Samples: hash32 of the index, its top bits for u8 and u16, k / 2^24 (k the top 24 bits) for f32,
// exactly as `vkc bench histogram` makes them.
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o cub_histogram cub_histogram.cu
// Usage: cub_histogram [--min-log2 16] [--max-log2 28] [--step 2]
// Output: CSV on stdout (op,type,n,median_ms,gitems_per_s; n samples, gitems samples a second), a '#'
// line with the device first. The counts are checked bin by bin against the CPU up to 2^24 samples,
// above that only their total.

#include <cub/cub.cuh>
#include <cuda/std/array>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <type_traits>
#include <vector>

#include "bench_common.cuh"

constexpr int kWarmup = 3;
constexpr int kReps = 15;
constexpr size_t kCpuCheckMax = size_t(1) << 24;
constexpr int kRangeBins = 256;

enum Kind { kEvenU8, kEvenU8x4, kEvenU16, kEvenU32, kEvenF32, kRangeF32, kKinds };

struct Case {
  Kind kind;
  const char* op;
  int bins;         // a channel
  int channels;     // samples a pixel
  int active;       // channels counted
  double lower, upper; // even bins: [lower, upper)
};
constexpr Case kCases[kKinds] = {
    {kEvenU8, "even_u8_256", 256, 1, 1, 0, 256},
    {kEvenU8x4, "even_u8x4_3_256", 256, 4, 3, 0, 256},
    {kEvenU16, "even_u16_1024", 1024, 1, 1, 0, 65536},
    {kEvenU32, "even_u32_256", 256, 1, 1, 0, 4294967296.0},
    {kEvenF32, "even_f32_1024", 1024, 1, 1, 0, 1},
    {kRangeF32, "range_f32_256", kRangeBins, 1, 1, 0, 0},
};

// The samples, identical on host and device (the Vulkan bench's hash(i + 1) is hash32(i)): the top
// bits of the hash, so that each type's samples cover its bins evenly.
template <class T>
__host__ __device__ inline T sample_at(uint32_t i) {
  const uint32_t h = hash32(i);
  if constexpr (std::is_same_v<T, uint8_t>) return uint8_t(h >> 24);
  else if constexpr (std::is_same_v<T, uint16_t>) return uint16_t(h >> 16);
  else if constexpr (std::is_same_v<T, uint32_t>) return h;
  else return float(h >> 8) * (1.0f / 16777216.0f); // exact: 24 bits times a power of two, in [0, 1)
}

// range_f32_256's boundaries, all below 1: the samples from 256/257 up count nowhere, on both sides.
inline float level_at(int i) { return float(i) / 257.0f; }

template <class T>
__global__ void fill_samples(T* p, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = sample_at<T>(uint32_t(i));
}


// The counts CUB should give, rebuilt from the hash with CUB's own arithmetic (integers exact, floats
// (x - lower) * (bins / (upper - lower)) in float; for this data both are exact).
template <class T>
static std::vector<uint32_t> cpu_counts(const Case& c, size_t n) {
  std::vector<uint32_t> counts(size_t(c.bins) * c.active);
  std::vector<float> levels;
  for (int i = 0; i <= c.bins; ++i) levels.push_back(level_at(i));
  const float scale = float(c.bins) / (float(c.upper) - float(c.lower));
  for (size_t i = 0; i < n; ++i) {
    const int channel = int(i % c.channels);
    if (channel >= c.active) continue;
    const T x = sample_at<T>(uint32_t(i));
    long long bin = -1;
    if (c.kind == kRangeF32) {
      if (x >= levels.front() && x < levels.back())
        bin = (std::upper_bound(levels.begin(), levels.end(), float(x)) - levels.begin()) - 1;
    } else if constexpr (std::is_same_v<T, float>) {
      if (x >= float(c.lower) && x < float(c.upper))
        bin = std::min<long long>((long long)((x - float(c.lower)) * scale), c.bins - 1);
    } else {
      const double v = double(x);
      if (v >= c.lower && v < c.upper)
        bin = (long long)((unsigned long long)(v - c.lower) * (unsigned long long)c.bins /
                          (unsigned long long)(c.upper - c.lower));
    }
    if (bin >= 0) ++counts[size_t(channel) * c.bins + size_t(bin)];
  }
  return counts;
}

// Times one case on the n samples in d_samples, counts into d_hist (bins x active channels, one channel
// after another, as vkc lays them out), and checks them.
template <class T>
static void run_case(const Case& c, const char* type, size_t n, const void* d_samples, uint32_t* d_hist,
                     const float* d_levels) {
  const int items = int(n); // int counts, as a typical caller passes them (n <= 2^30 is enforced)
  const int pixels = int(n / c.channels);
  const T* in = static_cast<const T*>(d_samples);
  auto call = [&](void* temp, size_t& bytes) -> cudaError_t {
    if constexpr (std::is_same_v<T, uint8_t>) {
      if (c.kind == kEvenU8x4) {
        return cub::DeviceHistogram::MultiHistogramEven<4, 3>(
            temp, bytes, in, ::cuda::std::array<uint32_t*, 3>{d_hist, d_hist + 256, d_hist + 512},
            ::cuda::std::array<int, 3>{257, 257, 257}, ::cuda::std::array<int, 3>{0, 0, 0},
            ::cuda::std::array<int, 3>{256, 256, 256}, pixels);
      }
      return cub::DeviceHistogram::HistogramEven(temp, bytes, in, d_hist, 257, 0, 256, items);
    } else if constexpr (std::is_same_v<T, uint16_t>) {
      return cub::DeviceHistogram::HistogramEven(temp, bytes, in, d_hist, 1025, 0, 65536, items);
    } else if constexpr (std::is_same_v<T, uint32_t>) {
      // The upper level 2^32 needs 64-bit levels; CUB then bins in 64-bit integer arithmetic.
      return cub::DeviceHistogram::HistogramEven(temp, bytes, in, d_hist, 257, 0ull, 1ull << 32, items);
    } else {
      if (c.kind == kRangeF32)
        return cub::DeviceHistogram::HistogramRange(temp, bytes, in, d_hist, kRangeBins + 1, d_levels, items);
      return cub::DeviceHistogram::HistogramEven(temp, bytes, in, d_hist, 1025, 0.0f, 1.0f, items);
    }
  };
  size_t temp_bytes = 0;
  CK(call(nullptr, temp_bytes));
  void* temp = nullptr;
  CK(cudaMalloc(&temp, std::max<size_t>(temp_bytes, 1)));
  const size_t bins = size_t(c.bins) * c.active;
  // Stale counts from the previous case cannot pass the check: CUB zeroes the bins itself.
  CK(cudaMemset(d_hist, 0xff, bins * sizeof(uint32_t)));
  auto launch = [&] { CK(call(temp, temp_bytes)); };
  warm_up(launch);
  const float ms = median_ms(launch, kWarmup, kReps, 10);
  std::vector<uint32_t> got(bins);
  CK(cudaMemcpy(got.data(), d_hist, bins * sizeof(uint32_t), cudaMemcpyDeviceToHost));
  unsigned long long total = 0;
  for (uint32_t x : got) total += x;
  // Above kCpuCheckMax the host counts would take seconds per row; only the total is checked there
  // (every sample of an active channel lies in the even cases' range; range counts at most n).
  const unsigned long long counted = n / c.channels * c.active;
  bool bad = c.kind == kRangeF32 ? total > counted : total != counted;
  size_t first_bad = bins;
  if (n <= kCpuCheckMax) {
    const std::vector<uint32_t> want = cpu_counts<T>(c, n);
    for (size_t b = 0; b < bins && first_bad == bins; ++b)
      if (got[b] != want[b]) first_bad = b;
    if (first_bad < bins) {
      std::fprintf(stderr, "FAIL op=%s type=%s n=%zu: bin %zu counts %u, expected %u\n", c.op, type, n, first_bad,
                   got[first_bad], want[first_bad]);
      std::exit(1);
    }
  }
  if (bad) {
    std::fprintf(stderr, "FAIL op=%s type=%s n=%zu: %llu samples counted, expected %s%llu\n", c.op, type, n, total,
                 c.kind == kRangeF32 ? "at most " : "", counted);
    std::exit(1);
  }
  csv_row(c.op, type, n, ms);
  CK(cudaFree(temp));
}

// Fills n samples of T, times the copy and the read of their bytes, then each case on T.
template <class T>
static void run_type(const char* type, size_t n, void* samples, void* out, unsigned long long* sink,
                     uint32_t* d_hist, const float* d_levels, int sms) {
  fill_samples<T><<<1024, 256>>>(static_cast<T*>(samples), n);
  CK(cudaGetLastError());
  const size_t nvec = n * sizeof(T) / 16;
  {
    auto launch = [&] {
      copy_uint4<<<unsigned((nvec + 255) / 256), 256>>>(static_cast<const uint4*>(samples), static_cast<uint4*>(out),
                                                         nvec);
    };
    warm_up(launch);
    csv_row("copy", type, n, median_ms(launch, kWarmup, kReps, 10));
  }
  {
    const size_t want_blocks = (nvec + size_t(kVecBlock) * kUnroll - 1) / (size_t(kVecBlock) * kUnroll);
    const unsigned grid = unsigned(std::max<size_t>(1, std::min<size_t>(want_blocks, size_t(sms) * 8)));
    auto launch = [&] { read_kernel<<<grid, kVecBlock>>>(static_cast<const uint4*>(samples), nvec, sink); };
    warm_up(launch);
    csv_row("read", type, n, median_ms(launch, kWarmup, kReps, 10));
  }
  for (const Case& c : kCases) {
    const bool mine = std::is_same_v<T, uint8_t>    ? c.kind == kEvenU8 || c.kind == kEvenU8x4
                      : std::is_same_v<T, uint16_t> ? c.kind == kEvenU16
                      : std::is_same_v<T, uint32_t> ? c.kind == kEvenU32
                                                    : c.kind == kEvenF32 || c.kind == kRangeF32;
    if (mine) run_case<T>(c, type, n, samples, d_hist, d_levels);
  }
}

int main(int argc, char** argv) {
  // n >= 16 gives the u8 copy and read at least one uint4 and RGBA whole pixels.
  const Sweep sweep = parse_sweep(argc, argv, 4);
  const int min_log2 = sweep.min_log2, max_log2 = sweep.max_log2, step = sweep.step;
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0;
  CK(cudaDriverGetVersion(&driver));
  std::printf("# cub_histogram: %s, CUDA driver %d, CUB %d.%d.%d, median of %d, each after 300 ms of its own work\n",
              prop.name, driver, CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION, kReps);
  std::printf("op,type,n,median_ms,gitems_per_s\n");
  const size_t max_n = size_t(1) << max_log2;
  void *samples, *out;
  uint32_t* d_hist;
  float* d_levels;
  unsigned long long* sink;
  CK(cudaMalloc(&samples, max_n * 4)); // room for 32-bit samples
  CK(cudaMalloc(&out, max_n * 4));
  CK(cudaMalloc(&d_hist, 1024 * sizeof(uint32_t))); // the most bins of any case (even_u16_1024, even_f32_1024)
  CK(cudaMalloc(&d_levels, (kRangeBins + 1) * sizeof(float)));
  CK(cudaMalloc(&sink, sizeof(unsigned long long)));
  std::vector<float> levels;
  for (int i = 0; i <= kRangeBins; ++i) levels.push_back(level_at(i));
  CK(cudaMemcpy(d_levels, levels.data(), levels.size() * sizeof(float), cudaMemcpyHostToDevice));
  for (int e = min_log2; e <= max_log2; e += step) {
    const size_t n = size_t(1) << e;
    run_type<uint8_t>("u8", n, samples, out, sink, d_hist, d_levels, prop.multiProcessorCount);
    run_type<uint16_t>("u16", n, samples, out, sink, d_hist, d_levels, prop.multiProcessorCount);
    run_type<uint32_t>("u32", n, samples, out, sink, d_hist, d_levels, prop.multiProcessorCount);
    run_type<float>("f32", n, samples, out, sink, d_hist, d_levels, prop.multiProcessorCount);
  }
  CK(cudaFree(samples));
  CK(cudaFree(out));
  CK(cudaFree(d_hist));
  CK(cudaFree(d_levels));
  CK(cudaFree(sink));
  return 0;
}
