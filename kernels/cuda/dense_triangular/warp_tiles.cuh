#pragma once
// 32 x 32 tiles of L' in shared memory and what one warp does with them: request a tile
// asynchronously, prepare a diagonal tile, solve it, multiply by its inverse or invert it.
// The pieces of the trsv kernels (trsv_small.cu, trsv_sync.cu). Internal to
// kernels/cuda/dense_triangular/.

#include "kernels/cuda/dense_triangular/common.cuh"

#include "kernels/cuda/async_copy.cuh"

#include <cuda_runtime.h>

#include <type_traits>

namespace prism::kernels::cuda::dense_triangular {

/// zero-filled without being read; prepare_diag_tile finishes a diagonal tile once it has
/// landed. Threads tid in [0, nthreads) take part.
template <typename T, bool kRev, bool kSwap>
__device__ void issue_tile32(const LowerView<T, kRev, kSwap>& L, int bi, int bj, bool unit, T* s,
                             int tid, int nthreads) {
  for (int e = tid; e < kTile * kTile; e += nthreads) {
    const int fast = e & (kTile - 1);
    const int slow = e / kTile;
    const int r = kSwap ? slow : fast;  // fast index along the storage rows of A
    const int c = kSwap ? fast : slow;
    const int i = kTile * bi + r;
    const int j = kTile * bj + c;
    bool ok = i < L.n && j < L.n;
    if (bi == bj) ok = ok && (r > c || (r == c && !unit));
    cp_async(s + c * kLds + r, ok ? L.ptr(i, j) : L.a, ok);
  }
}

/// One warp, after the tile has landed: diagonal entry -> its reciprocal (1 when unit or
/// past n, so padded rows are an identity and no solve divides).
template <typename T>
__device__ void prepare_diag_tile(T* s, int first_row, int n, bool unit, int lane) {
  T& d = s[lane * kLds + lane];
  d = (unit || first_row + lane >= n) ? T(1) : T(1) / d;
}

/// Per-lane steps of the warp solves below as selects (float) or as branches (double).
/// The float build turns `if (lane == i) ... else if (lane > i)` into a divergent region
/// per step (as in the trsm's substitution); double compiles the branches to
/// predicated instructions, and selects there add a dependent instruction to each step
/// (docs/kernels/dense_triangular.md).
template <typename T>
inline constexpr bool kSelectLanes = std::is_same<T, float>::value;

/// Step i of a warp's forward substitution, lane r holding b'(r) and then x'(r): lane i
/// scales its entry by the reciprocal diagonal diag(), broadcasts it with a shuffle, and
/// the lanes past i subtract entry() times it. diag() and entry() are read only where they
/// are used (inside the lane branches in double).
template <typename T, typename Diag, typename Entry>
__device__ __forceinline__ T substitution_step(T val, int lane, int i, Diag diag, Entry entry) {
  if constexpr (kSelectLanes<T>) {
    const T scaled = val * diag();
    val = lane == i ? scaled : val;
  } else if (lane == i) {
    val *= diag();
  }
  const T xi = __shfl_sync(kFullMask, val, i);
  if constexpr (kSelectLanes<T>) {
    const T updated = val - entry() * xi;
    val = lane > i ? updated : val;
  } else if (lane > i) {
    val -= entry() * xi;
  }
  return val;
}

/// One warp solves a 32x32 diagonal tile (reciprocal diagonal, lower part read only): lane r
/// holds b'(r) in val and returns x'(r). The solved entry is broadcast with a shuffle: the
/// paper's volatile shared slot relies on implicit warp synchrony, which Volta and later
/// no longer guarantee without __syncwarp.
template <typename T>
__device__ T warp_diag_solve(const T* s, T val, int lane) {
#pragma unroll
  for (int i = 0; i < kTile; ++i) {
    val = substitution_step(
        val, lane, i, [&] { return s[i * kLds + i]; }, [&] { return s[i * kLds + lane]; });
  }
  return val;
}

/// x'(lane) = sum_{c <= lane} X(lane, c) val(c): multiply with an explicit inverse
/// (independent FMAs instead of 32 dependent steps on the critical path). The zeros above
/// the diagonal are skipped, not multiplied: 0 * NaN would spread a NaN in b'(c) to the
/// rows before c, which substitution leaves alone.
template <typename T>
__device__ T warp_inverse_multiply(const T* inv, T val, int lane) {
  T out = T(0);
#pragma unroll
  for (int c = 0; c < kTile; ++c) {
    const T vc = __shfl_sync(kFullMask, val, c);
    if (c <= lane) out += inv[c * kLds + lane] * vc;
  }
  return out;
}

/// x'(lane) = sum_c A(lane, c) val(c) for a 32x32 tile A in shared memory (A(r, c) at
/// a[c * kLds + r]), val broadcast through `stage` (32 entries of shared memory that only
/// this warp uses) instead of shuffles, four partial sums instead of one chain of 32
/// dependent FMAs. kLower: A is lower triangular (an inverse) and its zeros above the
/// diagonal are skipped, as in warp_inverse_multiply.
template <bool kLower, typename T>
__device__ T warp_tile_multiply_staged(const T* a, T val, int lane, T* stage) {
  __syncwarp();  // earlier reads of stage are done
  stage[lane] = val;
  __syncwarp();
  T o[4] = {T(0), T(0), T(0), T(0)};
#pragma unroll
  for (int c = 0; c < kTile; ++c) {
    if (!kLower || c <= lane) o[c & 3] += a[c * kLds + lane] * stage[c];
  }
  return (o[0] + o[1]) + (o[2] + o[3]);
}

/// One warp computes columns c0 .. c0 + kN - 1 of inv(S) for a prepared diagonal tile S
/// (lane = row): forward substitution on unit vectors, kN independent chains interleaved.
/// The result is exactly zero above the diagonal.
template <typename T, int kN>
__device__ void warp_inverse_columns(const T* s, int c0, int lane, T (&v)[kN]) {
#pragma unroll
  for (int j = 0; j < kN; ++j) v[j] = lane == c0 + j ? T(1) : T(0);
  for (int i = c0; i < kTile; ++i) {
    const T di = s[i * kLds + i];
    const T li = s[i * kLds + lane];
#pragma unroll
    for (int j = 0; j < kN; ++j) {
      const T xi = __shfl_sync(kFullMask, v[j], i) * di;
      if constexpr (kSelectLanes<T>) {
        const T updated = v[j] - li * xi;
        v[j] = lane == i ? xi : (lane > i ? updated : v[j]);
      } else if (lane == i) {
        v[j] = xi;
      } else if (lane > i) {
        v[j] -= li * xi;
      }
    }
  }
}

__host__ __device__ constexpr int tri_tiles(int nb) {
  return nb * (nb + 1) / 2;
}

/// Position of tile (bi, bj), bj <= bi, in the packed lower triangle of tiles, column by
/// column (column bj holds tiles bj .. nb-1).
__device__ inline int tile_slot(int bi, int bj, int nb) {
  return bj * nb - bj * (bj - 1) / 2 + (bi - bj);
}

}  // namespace prism::kernels::cuda::dense_triangular
