// CUDA peer for the work-group scan: every CTA scans its own tile with cub::BlockScan (no carry between
// tiles), out of place, plus a uint4 copy of the same buffer as the bandwidth ceiling.
//
// Build: nvcc -O3 -std=c++17 -arch=sm_90 -o cub_block_scan cub_block_scan.cu
// Usage: cub_block_scan [--log2n K] [--block 128|256]
// Output: CSV on stdout (kind,items,bytes,median_ms,gbps); per-algorithm timings on stderr.

#include <cub/cub.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>

#include "bench_common.cuh"

constexpr int kWarmup = 5;
constexpr int kReps = 50;

__global__ void fill_kernel(uint32_t* p, size_t n) {
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    p[i] = hash32(uint32_t(i));
}

// Bandwidth ceiling: uint4 copy of the same buffer.
constexpr int kCopyBlock = 256;

// One uint4 per thread over a full grid: measured on H200 at cudaMemcpy speed (~4.23 TB/s), about 7%
// above a grid-stride loop with a capped grid, so the ceiling is not understated.
__global__ void __launch_bounds__(kCopyBlock) copy_kernel(const uint4* __restrict__ in, uint4* __restrict__ out,
                                                         size_t nvec) {
  const size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < nvec) out[i] = in[i];
}

template <int BLOCK, int ITEMS, cub::BlockLoadAlgorithm LOAD_ALG>
__global__ void __launch_bounds__(BLOCK) block_scan_kernel(const uint32_t* __restrict__ in,
                                                           uint32_t* __restrict__ out) {
  using Load = cub::BlockLoad<uint32_t, BLOCK, ITEMS, LOAD_ALG>;
  using Scan = cub::BlockScan<uint32_t, BLOCK, cub::BLOCK_SCAN_WARP_SCANS>;
  using Store = cub::BlockStore<uint32_t, BLOCK, ITEMS, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  // The three phases never overlap (barriers between them), so they share one shared-memory buffer.
  __shared__ union {
    typename Load::TempStorage load;
    typename Scan::TempStorage scan;
    typename Store::TempStorage store;
  } smem;

  const size_t base = size_t(blockIdx.x) * (BLOCK * ITEMS);
  uint32_t items[ITEMS];
  Load(smem.load).Load(in + base, items);
  __syncthreads();
  Scan(smem.scan).InclusiveSum(items, items);
  __syncthreads();
  Store(smem.store).Store(out + base, items);
}

static void print_row(const char* kind, int items, size_t bytes, float ms) {
  std::printf("%s,%d,%zu,%.6f,%.2f\n", kind, items, bytes, ms, double(bytes) / (ms * 1e-3) / 1e9);
  std::fflush(stdout);
}

// Checks first, middle and last tile against a CPU inclusive sum (u32, wrapping like the GPU).
static void verify_tiles(const uint32_t* d_out, size_t tile, size_t n_tiles, int items, const char* alg) {
  std::vector<uint32_t> h(tile);
  const size_t tiles[3] = {0, n_tiles / 2, n_tiles - 1};
  for (size_t t : tiles) {
    const size_t base = t * tile;
    CK(cudaMemcpy(h.data(), d_out + base, tile * sizeof(uint32_t), cudaMemcpyDeviceToHost));
    uint32_t acc = 0;
    for (size_t k = 0; k < tile; ++k) {
      acc += hash32(uint32_t(base + k));
      if (h[k] != acc) {
        std::printf("FAIL items=%d load=%s tile=%zu index=%zu got=%u want=%u\n", items, alg, t, k, h[k], acc);
        std::exit(1);
      }
    }
  }
}

template <int BLOCK, int ITEMS, cub::BlockLoadAlgorithm ALG>
static float run_variant(const uint32_t* d_in, uint32_t* d_out, size_t n_tiles, const char* alg) {
  const size_t tile = size_t(BLOCK) * ITEMS;
  // Clear so that a variant cannot pass on the previous variant's output.
  CK(cudaMemset(d_out, 0, n_tiles * tile * sizeof(uint32_t)));
  auto launch = [&] {
    block_scan_kernel<BLOCK, ITEMS, ALG><<<unsigned(n_tiles), BLOCK>>>(d_in, d_out);
    CK(cudaGetLastError());
  };
  const float ms = median_ms(launch, kWarmup, kReps, 20);
  verify_tiles(d_out, tile, n_tiles, ITEMS, alg);
  return ms;
}

template <int BLOCK, int ITEMS>
static void run_items(const uint32_t* d_in, uint32_t* d_out, size_t n) {
  const size_t tile = size_t(BLOCK) * ITEMS;
  const size_t n_tiles = n / tile;  // N not a multiple of the tile: the remainder is not scanned nor counted
  const float ms_wt = run_variant<BLOCK, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE>(d_in, d_out, n_tiles, "warp_transpose");
  const float ms_vec = run_variant<BLOCK, ITEMS, cub::BLOCK_LOAD_VECTORIZE>(d_in, d_out, n_tiles, "vectorize");
  std::fprintf(stderr, "# block=%d items=%d warp_transpose_ms=%.6f vectorize_ms=%.6f\n", BLOCK, ITEMS, ms_wt, ms_vec);
  print_row("cub_block_scan", ITEMS, n_tiles * tile * 2 * sizeof(uint32_t), std::min(ms_wt, ms_vec));
}

// Every item count from 1 to 16.
template <int BLOCK, int... K>
static void run_all(const uint32_t* d_in, uint32_t* d_out, size_t n, std::integer_sequence<int, K...>) {
  (run_items<BLOCK, K + 1>(d_in, d_out, n), ...);
}
template <int BLOCK>
static void run_all(const uint32_t* d_in, uint32_t* d_out, size_t n) {
  run_all<BLOCK>(d_in, d_out, n, std::make_integer_sequence<int, 16>{});
}

int main(int argc, char** argv) {
  int log2n = 28, block = 128;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--log2n") && i + 1 < argc) log2n = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--block") && i + 1 < argc) block = std::atoi(argv[++i]);
    else {
      std::fprintf(stderr, "usage: %s [--log2n K (12..31)] [--block 128|256]\n", argv[0]);
      return 1;
    }
  }
  // At least one 256x16 tile; at most 2^31 so that u32 indices in the hash stay distinct.
  if (log2n < 12 || log2n > 31 || (block != 128 && block != 256)) {
    std::fprintf(stderr, "bad options: --log2n must be 12..31, --block 128 or 256\n");
    return 1;
  }
  const size_t n = size_t(1) << log2n;

  const cudaDeviceProp prop = print_device_line();
  std::printf(" block=%d n=%zu\n", block, n);

  uint32_t *d_in = nullptr, *d_out = nullptr;
  CK(cudaMalloc(&d_in, n * sizeof(uint32_t)));
  CK(cudaMalloc(&d_out, n * sizeof(uint32_t)));
  fill_kernel<<<prop.multiProcessorCount * 8, 256>>>(d_in, n);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());

  std::printf("kind,items,bytes,median_ms,gbps\n");

  {
    const size_t nvec = n * sizeof(uint32_t) / sizeof(uint4);
    const unsigned grid = unsigned((nvec + kCopyBlock - 1) / kCopyBlock);
    auto launch = [&] {
      copy_kernel<<<grid, kCopyBlock>>>(reinterpret_cast<const uint4*>(d_in), reinterpret_cast<uint4*>(d_out), nvec);
      CK(cudaGetLastError());
    };
    const float ms = median_ms(launch, kWarmup, kReps, 20);
    // Spot check: the copy must reproduce the input exactly.
    uint32_t last = 0;
    CK(cudaMemcpy(&last, d_out + n - 1, sizeof(uint32_t), cudaMemcpyDeviceToHost));
    if (last != hash32(uint32_t(n - 1))) {
      std::printf("FAIL copy last=%u want=%u\n", last, hash32(uint32_t(n - 1)));
      return 1;
    }
    print_row("copy", 0, n * 2 * sizeof(uint32_t), ms);
  }

  if (block == 128) run_all<128>(d_in, d_out, n);
  else run_all<256>(d_in, d_out, n);

  CK(cudaFree(d_in));
  CK(cudaFree(d_out));
  return 0;
}
