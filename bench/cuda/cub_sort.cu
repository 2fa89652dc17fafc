// CUDA device-wide peer of vkc's sort: cub::DeviceRadixSort::SortKeys (u32, f32 and u64 keys; u8,
// u16 and f16 keys) and SortPairs (u32 keys, u32 values; u16 keys, u32 values), each from an input
// buffer that stays unsorted to an output buffer, over every key bit; and a uint4 copy of the keys'
// bytes (the bandwidth ceiling) in the same run.
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o cub_sort cub_sort.cu
// Usage: cub_sort [--min-log2 16] [--max-log2 28] [--step 2]
// Output: CSV on stdout (op,type,n,median_ms,gitems_per_s), a '#' line with the device first.

#include <cub/cub.cuh>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

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

__global__ void fill_keys(uint32_t* keys, uint32_t* values, size_t n, bool as_float, bool wide) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint32_t h = hash32(uint32_t(i));
    if (wide) { // u64: the u32 key low, another hash high
      keys[2 * i] = h;
      keys[2 * i + 1] = hash32(uint32_t(i) ^ 0x55555555u);
      continue;
    }
    // Floats: finite values of both signs over the whole exponent range.
    keys[i] = as_float ? (h & 0x807fffffu) | ((h % 254u + 1u) << 23) : h;
    values[i] = uint32_t(i);
  }
}

// 8- and 16-bit keys (the low bits of the u32 key; halves finite, of both signs, over every
// exponent) and u32 values, the input index.
__global__ void fill_narrow_keys(void* keys, uint32_t* values, size_t n, int key_bytes, bool as_half) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint32_t h = hash32(uint32_t(i));
    if (key_bytes == 1) static_cast<uint8_t*>(keys)[i] = uint8_t(h);
    else static_cast<uint16_t*>(keys)[i] = uint16_t(as_half ? (h & 0x83ffu) | ((h % 30u + 1u) << 10) : h);
    values[i] = uint32_t(i);
  }
}

// Sorted (as unsigned, floats by their order-preserving transform) and a permutation of the input
// (the sums of keys agree, every value's key is its input key).
static void check(const char* op, const char* type, size_t n, int key_bytes, bool as_float, const void* d_keys_in,
                  const void* d_keys, const uint32_t* d_values) {
  std::vector<uint8_t> in(n * key_bytes), keys(n * key_bytes);
  std::vector<uint32_t> values(d_values ? n : 0);
  CK(cudaMemcpy(in.data(), d_keys_in, n * key_bytes, cudaMemcpyDeviceToHost));
  CK(cudaMemcpy(keys.data(), d_keys, n * key_bytes, cudaMemcpyDeviceToHost));
  if (d_values) CK(cudaMemcpy(values.data(), d_values, n * 4, cudaMemcpyDeviceToHost));
  auto at = [&](const std::vector<uint8_t>& v, size_t i) {
    uint64_t b = 0;
    std::memcpy(&b, &v[i * key_bytes], key_bytes);
    return b;
  };
  const uint64_t sign = uint64_t(1) << (8 * key_bytes - 1), all = sign | (sign - 1);
  auto ordered = [&](uint64_t b) { return !as_float ? b : (b & sign) ? ~b & all : b | sign; };
  uint64_t sum_in = 0, sum_out = 0;
  for (size_t i = 0; i < n; ++i) {
    sum_in += at(in, i);
    sum_out += at(keys, i);
    bool ok = (i == 0 || ordered(at(keys, i - 1)) <= ordered(at(keys, i))) &&
              (!d_values || (values[i] < n && at(in, values[i]) == at(keys, i)));
    if (!ok) {
      std::printf("FAIL op=%s type=%s n=%zu index=%zu\n", op, type, n, i);
      std::exit(1);
    }
  }
  if (sum_in != sum_out) {
    std::printf("FAIL op=%s type=%s n=%zu: not a permutation\n", op, type, n);
    std::exit(1);
  }
}

// CUB's sort of n keys of type K (and values, where given) into the output buffers, timed.
template <class K>
static float time_sort(const void* keys_in, void* keys_out, const uint32_t* values_in, uint32_t* values_out, int items) {
  const K* in = static_cast<const K*>(keys_in);
  K* out = static_cast<K*>(keys_out);
  size_t temp_bytes = 0;
  void* temp = nullptr;
  auto sort = [&] {
    if (values_in) CK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, in, out, values_in, values_out, items));
    else CK(cub::DeviceRadixSort::SortKeys(temp, temp_bytes, in, out, items));
  };
  sort(); // the temporary storage's size
  CK(cudaMalloc(&temp, std::max<size_t>(temp_bytes, 1)));
  warm_up(sort);
  const float ms = median_ms(sort, kWarmup, kReps, 10);
  CK(cudaFree(temp));
  return ms;
}

int main(int argc, char** argv) {
  const Sweep sweep = parse_sweep(argc, argv, 4);
  const int min_log2 = sweep.min_log2, max_log2 = sweep.max_log2, step = sweep.step;
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int driver = 0;
  CK(cudaDriverGetVersion(&driver));
  std::printf("# cub_sort: %s, CUDA driver %d, CUB %d.%d.%d, median of %d, each after 300 ms of its own work\n",
              prop.name, driver, CUB_MAJOR_VERSION, CUB_MINOR_VERSION, CUB_SUBMINOR_VERSION, kReps);
  std::printf("op,type,n,median_ms,gitems_per_s\n");
  const size_t max_n = size_t(1) << max_log2;
  uint32_t *keys_in, *keys_out, *values_in, *values_out;
  CK(cudaMalloc(&keys_in, max_n * 8)); // room for u64 keys
  CK(cudaMalloc(&keys_out, max_n * 8));
  CK(cudaMalloc(&values_in, max_n * 4));
  CK(cudaMalloc(&values_out, max_n * 4));
  for (int e = min_log2; e <= max_log2; e += step) {
    const size_t n = size_t(1) << e;
    const int items = int(n);
    {
      const size_t nvec = n * 4 / 16;
      auto launch = [&] {
        copy_uint4<<<unsigned((nvec + 255) / 256), 256>>>(reinterpret_cast<const uint4*>(keys_in),
                                                           reinterpret_cast<uint4*>(keys_out), nvec);
      };
      warm_up(launch);
      csv_row("copy", "u32", n, median_ms(launch, kWarmup, kReps, 10));
    }
    for (int kind = 0; kind < 4; ++kind) { // u32 keys, f32 keys, u32 pairs, u64 keys
      const bool as_float = kind == 1, pairs = kind == 2, wide = kind == 3;
      fill_keys<<<1024, 256>>>(keys_in, values_in, n, as_float, wide);
      CK(cudaGetLastError());
      uint32_t* v_in = pairs ? values_in : nullptr;
      const float ms = as_float ? time_sort<float>(keys_in, keys_out, v_in, values_out, items)
                       : wide   ? time_sort<uint64_t>(keys_in, keys_out, v_in, values_out, items)
                                : time_sort<uint32_t>(keys_in, keys_out, v_in, values_out, items);
      const char* op = pairs ? "sort_pairs" : "sort_keys";
      const char* type = as_float ? "f32" : wide ? "u64" : "u32";
      check(op, type, n, wide ? 8 : 4, as_float, keys_in, keys_out, pairs ? values_out : nullptr);
      csv_row(op, type, n, ms);
    }
    for (int kind = 0; kind < 4; ++kind) { // u8 keys, u16 keys, f16 keys, u16 keys with u32 values
      const int key_bytes = kind == 0 ? 1 : 2;
      const bool as_half = kind == 2, pairs = kind == 3;
      fill_narrow_keys<<<1024, 256>>>(keys_in, values_in, n, key_bytes, as_half);
      CK(cudaGetLastError());
      uint32_t* v_in = pairs ? values_in : nullptr;
      const float ms = key_bytes == 1 ? time_sort<uint8_t>(keys_in, keys_out, v_in, values_out, items)
                       : as_half     ? time_sort<__half>(keys_in, keys_out, v_in, values_out, items)
                                     : time_sort<uint16_t>(keys_in, keys_out, v_in, values_out, items);
      const char* op = pairs ? "sort_pairs" : "sort_keys";
      const char* type = key_bytes == 1 ? "u8" : as_half ? "f16" : "u16";
      check(op, type, n, key_bytes, as_half, keys_in, keys_out, pairs ? values_out : nullptr);
      csv_row(op, type, n, ms);
    }
  }
  return 0;
}
