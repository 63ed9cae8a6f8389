// single_block and batched trsv (n <= 128): one thread block per system.

#include "kernels/cuda/dense_triangular/common.cuh"
#include "kernels/cuda/dense_triangular/launch.hpp"
#include "kernels/cuda/dense_triangular/warp_tiles.cuh"

#include "kernels/cuda/async_copy.cuh"
#include "kernels/cuda/check.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include <prism/errors.hpp>

namespace prism::kernels::cuda {
namespace dense_triangular {
namespace {

constexpr int kSmallThreads = 128;  // single_block / batched

// single_block and batched trsv (n <= 128): Hogg Section 2, Listing 2. Every tile is
// requested up front (one cp.async group per block column), so the memory latency is paid
// about once instead of once per tile and per block column; the solve of block column k
// waits only for the group of column k.

template <typename T, bool kRev, bool kSwap>
__device__ void small_solve(int n, const T* a, long long lda, T* x, bool unit, T* smem) {
  const int nb = (n + kTile - 1) / kTile;
  const int tid = threadIdx.x;
  const int lane = tid & (kTile - 1);
  const int warp = tid / kTile;
  const int tile_elems = kTile * kLds;
  T* tiles = smem;
  T* xs = smem + tri_tiles(nb) * tile_elems;
  const LowerView<T, kRev, kSwap> L{a, lda, n};

  for (int bj = 0; bj < nb; ++bj) {
    for (int bi = bj; bi < nb; ++bi) {
      issue_tile32(L, bi, bj, unit, tiles + tile_slot(bi, bj, nb) * tile_elems, tid, blockDim.x);
    }
    cp_async_commit();
  }
  for (int i = tid; i < nb * kTile; i += blockDim.x) xs[i] = i < n ? x[L.p(i)] : T(0);
  for (int k = 0; k < nb; ++k) {
    switch (nb - 1 - k) {  // wait for block column k (nb <= 4 groups)
      case 0:
        cp_async_wait<0>();
        break;
      case 1:
        cp_async_wait<1>();
        break;
      case 2:
        cp_async_wait<2>();
        break;
      default:
        cp_async_wait<3>();
        break;
    }
    __syncthreads();
    if (warp == 0) {
      // x'(block k) = L'(k, k)^{-1} b'(block k), right-hand side in registers.
      T* d = tiles + tile_slot(k, k, nb) * tile_elems;
      prepare_diag_tile(d, kTile * k, n, unit, lane);
      __syncwarp();
      xs[kTile * k + lane] = warp_diag_solve(d, xs[kTile * k + lane], lane);
    }
    __syncthreads();
    // b'(below) -= L'(below, k) x'(block k), one thread per row.
    const int rows_below = (nb - k - 1) * kTile;
    for (int r = tid; r < rows_below; r += blockDim.x) {
      const T* t = tiles + tile_slot(k + 1 + r / kTile, k, nb) * tile_elems;
      const int rr = r & (kTile - 1);
      T acc = T(0);
#pragma unroll 8
      for (int c = 0; c < kTile; ++c) acc += t[c * kLds + rr] * xs[kTile * k + c];
      xs[kTile * (k + 1) + r] -= acc;
    }
    // The next iteration's __syncthreads orders these updates before the next solve.
  }
  for (int i = tid; i < n; i += blockDim.x) x[L.p(i)] = xs[i];
}

template <typename T, bool kRev, bool kSwap>
__global__ void __launch_bounds__(kSmallThreads)
    trsv_small_kernel(int n, const T* a, long long lda, T* x, bool unit) {
  extern __shared__ __align__(16) unsigned char small_smem[];
  small_solve<T, kRev, kSwap>(n, a, lda, x, unit, reinterpret_cast<T*>(small_smem));
}

template <typename T, bool kRev, bool kSwap>
__global__ void __launch_bounds__(kSmallThreads)
    trsv_batched_kernel(const index_t* n, const T* const* a, const index_t* lda, T* const* x,
                        bool unit) {
  extern __shared__ __align__(16) unsigned char batched_smem[];
  const int k = blockIdx.x;
  const int nk = n[k];
  if (nk <= 0) return;
  small_solve<T, kRev, kSwap>(nk, a[k], lda[k], x[k], unit, reinterpret_cast<T*>(batched_smem));
}

// single_block for n <= 32 kWarps (kWarps = 1 or 2) and trsv_batched for max_n <= 32: the
// calling thread is row i < 32 kWarps of the system and loads that row of L' straight
// into registers (the entries left of the diagonal and the diagonal's reciprocal; nothing
// it must not read). Warp w substitutes its 32 rows with one shuffle a step
// (substitution_step, as warp_diag_solve); with two warps, warp 0 then leaves its solution in xs
// (32 values, shared), and after one block barrier warp 1 subtracts its products before
// its own steps. Against small_solve's staging through shared memory this leaves little
// beyond the cost of loading the triangle and b and storing x
// (docs/kernels/dense_triangular.md).
template <typename T, bool kRev, bool kSwap, int kWarps>
__device__ void registers_solve(int n, const T* a, long long lda, T* x, bool unit, int i, T* xs) {
  constexpr int kRows = kTile * kWarps;
  const LowerView<T, kRev, kSwap> L{a, lda, n};
  const int lane = i % kTile;
  const int warp = i / kTile;
  const bool row = i < n;
  T l[kRows];
#pragma unroll
  for (int j = 0; j < kRows; ++j) l[j] = row && j < i ? *L.ptr(i, j) : T(0);
  const T d = row && !unit ? T(1) / *L.ptr(i, i) : T(1);
  T val = row ? x[L.p(i)] : T(0);
#pragma unroll
  for (int w = 0; w < kWarps; ++w) {
    if (warp == w) {
#pragma unroll
      for (int s = 0; s < kTile; ++s) {
        if (kTile * w + s < n) {  // uniform
          val = substitution_step(
              val, lane, s, [&] { return d; }, [&] { return l[kTile * w + s]; });
        }
      }
      if (w + 1 < kWarps) xs[lane] = val;
    }
    if (w + 1 < kWarps) {
      __syncthreads();
      if (warp > w) {
#pragma unroll
        for (int c = 0; c < kTile; ++c) val -= l[kTile * w + c] * xs[c];
      }
    }
  }
  if (row) x[L.p(i)] = val;
}

template <typename T, bool kRev, bool kSwap, int kWarps>
__global__ void __launch_bounds__(kTile* kWarps)
    trsv_warp_kernel(int n, const T* a, long long lda, T* x, bool unit) {
  __shared__ T xs[kTile];
  registers_solve<T, kRev, kSwap, kWarps>(n, a, lda, x, unit, static_cast<int>(threadIdx.x), xs);
}

// trsv_batched for max_n <= 32: one warp a system, kBatchedWarps systems a block.
constexpr int kBatchedWarps = 4;
template <typename T, bool kRev, bool kSwap>
__global__ void __launch_bounds__(kTile* kBatchedWarps)
    trsv_batched_warp_kernel(int batch, const index_t* n, const T* const* a, const index_t* lda,
                             T* const* x, bool unit) {
  const int k =
      static_cast<int>(blockIdx.x) * kBatchedWarps + static_cast<int>(threadIdx.x) / kTile;
  if (k >= batch) return;  // the whole warp
  const int nk = static_cast<int>(n[k]);
  if (nk <= 0) return;
  registers_solve<T, kRev, kSwap, 1>(nk, a[k], lda[k], x[k], unit,
                                     static_cast<int>(threadIdx.x) % kTile, nullptr);
}

std::size_t small_smem_bytes(int max_n, std::size_t elem) {
  const int nb = (max_n + kTile - 1) / kTile;
  return (static_cast<std::size_t>(tri_tiles(nb)) * kTile * kLds + nb * kTile) * elem;
}

template <typename T>
void batched_impl(TriUplo uplo, TriOp op, TriDiag diag, index_t batch, index_t max_n,
                  const index_t* n, const T* const* a, const index_t* lda, T* const* x,
                  cudaStream_t stream) {
  if (batch < 0) throw ConfigError("trsv_batched: negative batch = " + std::to_string(batch));
  if (max_n < 0 || max_n > trsv_small_max_n) {
    throw ConfigError("trsv_batched: max_n must be in [0, 128], got " + std::to_string(max_n));
  }
  if (batch == 0 || max_n == 0) return;
  const bool unit = diag == TriDiag::unit;
  if (max_n <= kTile) {
    const auto blocks = static_cast<unsigned>((batch + kBatchedWarps - 1) / kBatchedWarps);
    dispatch_view(uplo, op, [&](auto rev, auto swap) {
      trsv_batched_warp_kernel<T, decltype(rev)::value, decltype(swap)::value>
          <<<blocks, kTile * kBatchedWarps, 0, stream>>>(static_cast<int>(batch), n, a, lda, x,
                                                         unit);
      PRISM_CUDA_CHECK_LAUNCH();
    });
    return;
  }
  const std::size_t smem = small_smem_bytes(static_cast<int>(max_n), sizeof(T));
  launch_view(
      uplo, op,
      [](auto rev, auto swap) {
        return trsv_batched_kernel<T, decltype(rev)::value, decltype(swap)::value>;
      },
      static_cast<unsigned>(batch), kSmallThreads, smem, "trsv_batched", stream, n, a, lda, x,
      unit);
}

}  // namespace

template <typename T>
void launch_trsv_single_block(TriUplo uplo, TriOp op, index_t n, const T* a, index_t lda, T* x,
                              bool unit, cudaStream_t stream) {
  if (n <= 2 * kTile) {
    dispatch_view(uplo, op, [&](auto rev, auto swap) {
      constexpr bool kR = decltype(rev)::value, kS = decltype(swap)::value;
      if (n <= kTile) {
        trsv_warp_kernel<T, kR, kS, 1>
            <<<1, kTile, 0, stream>>>(static_cast<int>(n), a, lda, x, unit);
      } else {
        trsv_warp_kernel<T, kR, kS, 2>
            <<<1, 2 * kTile, 0, stream>>>(static_cast<int>(n), a, lda, x, unit);
      }
      PRISM_CUDA_CHECK_LAUNCH();
    });
    return;
  }
  const std::size_t smem = small_smem_bytes(static_cast<int>(n), sizeof(T));
  launch_view(
      uplo, op,
      [](auto rev, auto swap) {
        return trsv_small_kernel<T, decltype(rev)::value, decltype(swap)::value>;
      },
      1, kSmallThreads, smem, "trsv", stream, static_cast<int>(n), a, lda, x, unit);
}

template void launch_trsv_single_block<float>(TriUplo, TriOp, index_t, const float*, index_t,
                                              float*, bool, cudaStream_t);
template void launch_trsv_single_block<double>(TriUplo, TriOp, index_t, const double*, index_t,
                                               double*, bool, cudaStream_t);

}  // namespace dense_triangular

// The entry points below hand their work to the implementation above.
using dense_triangular::batched_impl;

void trsv_batched(TriUplo uplo, TriOp op, TriDiag diag, index_t batch, index_t max_n,
                  const index_t* n, const double* const* a, const index_t* lda, double* const* x,
                  cudaStream_t stream) {
  batched_impl(uplo, op, diag, batch, max_n, n, a, lda, x, stream);
}
void trsv_batched(TriUplo uplo, TriOp op, TriDiag diag, index_t batch, index_t max_n,
                  const index_t* n, const float* const* a, const index_t* lda, float* const* x,
                  cudaStream_t stream) {
  batched_impl(uplo, op, diag, batch, max_n, n, a, lda, x, stream);
}

}  // namespace prism::kernels::cuda
