#include "kernels/cuda/blas1.hpp"
#include "kernels/cuda/bsr.hpp"
#include "kernels/cuda/check.hpp"

#include <cstddef>

namespace prism::kernels::cuda {
namespace {

constexpr int kWarp = 32;
constexpr int kBlockThreads = 256;
constexpr int kWarpsPerBlock = kBlockThreads / kWarp;

/// Blocks per chunk by b (b = 2..8): kBlocks b^2 values fill most of the kSlots warp-wide
/// loads of a chunk (b = 2, 4, 8: all; 3, 5: 98%; 7: 92%; 6: 84%) at 2 to 5 loads per lane.
/// Chunks of 8 loads per lane took 90 registers for b = 6 and 7: a quarter of the warps
/// resident, so no more loads in flight per SM than half the slots with twice the warps.
constexpr int kChunkBlocks[9] = {0, 0, 16, 7, 4, 5, 3, 3, 2};

/// A warp reads a block row in chunks of kBlocks whole blocks: kValues contiguous values,
/// kSlots loads per lane.
template <int B>
struct Chunk {
  static constexpr int kBlocks = kChunkBlocks[B];
  static constexpr int kValues = kBlocks * B * B;
  static constexpr int kSlots = (kValues + kWarp - 1) / kWarp;
};

/// One warp per block row. Slot s of lane l reads value l + 32 s of each chunk, which
/// lies in block (l + 32 s) / b^2 of the chunk at the same row and column in every chunk:
/// each slot sums into one row, and the warp reduces the b row sums once at the end. The
/// loads of a chunk are all issued before any x is read (one memory latency per chunk, not
/// per value). Sums in a fixed order: deterministic run to run.
template <int B>
__global__ void __launch_bounds__(kBlockThreads)
    bsr_warp_kernel(BsrView<double> a, const double* __restrict__ x, double* __restrict__ y) {
  using C = Chunk<B>;
  constexpr int kSquare = B * B;
  const long long warp = static_cast<long long>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / kWarp;
  if (warp >= a.block_rows) return;  // the whole warp: the shuffles below see 32 lanes
  const index_t br = static_cast<index_t>(warp);
  const int lane = static_cast<int>(threadIdx.x % kWarp);

  // Per slot: its block in the chunk (kBlocks, never present, for the lanes past the chunk)
  // and its column in the block; its row is needed only at the end.
  int block[C::kSlots], col[C::kSlots];
#pragma unroll
  for (int s = 0; s < C::kSlots; ++s) {
    const int q = lane + kWarp * s;
    block[s] = q < C::kValues ? q / kSquare : C::kBlocks;
    col[s] = q % B;
  }
  double sum[C::kSlots];
#pragma unroll
  for (int s = 0; s < C::kSlots; ++s) sum[s] = 0.0;

  const index_t begin = a.block_row_ptr[br], end = a.block_row_ptr[br + 1];
  for (index_t k0 = begin; k0 < end; k0 += C::kBlocks) {
    const double* __restrict__ chunk = a.values + static_cast<std::size_t>(k0) * kSquare;
    index_t bc[C::kSlots];
    double v[C::kSlots];
#pragma unroll
    for (int s = 0; s < C::kSlots; ++s) {
      const bool here = block[s] < end - k0 && block[s] < C::kBlocks;
      bc[s] = here ? a.block_col_idx[k0 + block[s]] : -1;
      v[s] = here ? chunk[lane + kWarp * s] : 0.0;
    }
#pragma unroll
    for (int s = 0; s < C::kSlots; ++s) {
      const long long c = static_cast<long long>(bc[s]) * B + col[s];
      if (bc[s] >= 0 && c < a.cols) sum[s] += v[s] * x[c];
    }
  }

  double mine = 0.0;  // lane r < B ends with row r's sum
#pragma unroll
  for (int r = 0; r < B; ++r) {
    double t = 0.0;
#pragma unroll
    for (int s = 0; s < C::kSlots; ++s) t += ((lane + kWarp * s) % kSquare) / B == r ? sum[s] : 0.0;
#pragma unroll
    for (int offset = kWarp / 2; offset > 0; offset /= 2) {
      t += __shfl_xor_sync(0xffffffffu, t, offset);
    }
    if (lane == r) mine = t;
  }
  const long long i = static_cast<long long>(br) * B + lane;
  if (lane < B && i < a.rows) y[i] = mine;
}

/// Any block size: one thread per row, reading its b values of each block (contiguous).
__global__ void __launch_bounds__(kBlockThreads)
    bsr_row_kernel(BsrView<double> a, const double* __restrict__ x, double* __restrict__ y) {
  const long long i = static_cast<long long>(blockIdx.x) * kBlockThreads + threadIdx.x;
  if (i >= a.rows) return;
  const int b = a.block_size;
  const index_t br = static_cast<index_t>(i / b);
  const int r = static_cast<int>(i % b);
  double sum = 0.0;
  for (index_t k = a.block_row_ptr[br]; k < a.block_row_ptr[br + 1]; ++k) {
    const double* v =
        a.values + static_cast<std::size_t>(k) * b * b + static_cast<std::size_t>(r) * b;
    const long long c0 = static_cast<long long>(a.block_col_idx[k]) * b;
    for (int c = 0; c < b; ++c) {
      if (c0 + c < a.cols) sum += v[c] * x[c0 + c];
    }
  }
  y[i] = sum;
}

template <int B>
void launch_warps(BsrView<double> a, const double* x, double* y, cudaStream_t stream) {
  const long long blocks =
      (static_cast<long long>(a.block_rows) + kWarpsPerBlock - 1) / kWarpsPerBlock;
  bsr_warp_kernel<B><<<static_cast<unsigned>(blocks), kBlockThreads, 0, stream>>>(a, x, y);
}

}  // namespace

void bsr_spmv(BsrView<double> a, const double* x, double* y, cudaStream_t stream) {
  if (a.rows == 0) return;
  switch (a.block_size) {
    case 2:
      launch_warps<2>(a, x, y, stream);
      break;
    case 3:
      launch_warps<3>(a, x, y, stream);
      break;
    case 4:
      launch_warps<4>(a, x, y, stream);
      break;
    case 5:
      launch_warps<5>(a, x, y, stream);
      break;
    case 6:
      launch_warps<6>(a, x, y, stream);
      break;
    case 7:
      launch_warps<7>(a, x, y, stream);
      break;
    case 8:
      launch_warps<8>(a, x, y, stream);
      break;
    default: {
      const long long blocks = (static_cast<long long>(a.rows) + kBlockThreads - 1) / kBlockThreads;
      bsr_row_kernel<<<static_cast<unsigned>(blocks), kBlockThreads, 0, stream>>>(a, x, y);
    }
  }
  PRISM_CUDA_CHECK_LAUNCH();
}

void bsr_gather(index_t stored, const index_t* source, const double* csr_values, double* bsr_values,
                cudaStream_t stream) {
  // The same gather as SELL's refill (blas1.hpp); BSR needs no kernel of its own.
  gather_values(stored, source, csr_values, bsr_values, stream);
}

}  // namespace prism::kernels::cuda
