#pragma once
// The launchers of the batched factorization kernels, one per kernel family, called by the
// drivers in factor.cu. Each is defined (and instantiated for float and double) next to its
// kernels; all are asynchronous on `stream`. Internal to this folder.

#include "kernels/cuda/batched_factor.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include <prism/errors.hpp>

namespace prism::kernels::cuda::batched_factor {

// ConfigError (naming `who`) unless 0 <= n <= kBatchedFactorMaxN, batch >= 0 and
// ld >= max(1, n).
inline void check_uniform(const char* who, index_t n, index_t ld, index_t batch) {
  if (n < 0 || batch < 0) throw ConfigError(std::string(who) + ": negative n or batch");
  if (n > kBatchedFactorMaxN) {
    throw ConfigError(std::string(who) + ": n = " + std::to_string(n) + " > " +
                      std::to_string(kBatchedFactorMaxN));
  }
  if (ld < std::max<index_t>(1, n)) {
    throw ConfigError(std::string(who) + ": leading dimension " + std::to_string(ld) +
                      " < max(1, n = " + std::to_string(n) + ")");
  }
}

// Threads of a one-thread-per-row kernel for `rows` rows: whole warps.
inline int round_up_warp(int rows) {
  return (rows + 31) / 32 * 32;
}

// getrf_registers.cu ---------------------------------------------------------------------

// getrf_warp_kernel on the (n - j0) x (n - j0) block at (j0, j0): the whole matrix for n <= 32
// (j0 = 0), or the last panel of the blocked path. The resident prefetching kernel (prefetch:
// GetrfOptions::prefetch_next) only takes whole matrices of 8 < n <= 16.
template <typename T>
void launch_getrf_warp(index_t n, int j0, DeviceMatrixBatch<T> a, index_t* ipiv, index_t* info,
                       index_t batch, cudaStream_t stream, bool prefetch);

// getrf_rows_kernel on rows [j0, n), columns [j0, j0 + jb): the whole matrix for 32 < n <=
// 64 (j0 = 0), or a blocked-path panel (jb <= 32).
template <typename T>
void launch_getrf_rows(index_t n, int j0, int jb, DeviceMatrixBatch<T> a, index_t* ipiv,
                       index_t* info, index_t batch, cudaStream_t stream);

// potrf_registers.cu ---------------------------------------------------------------------

// potrf_warp_kernel: the whole matrix for n <= 32.
template <typename T>
void launch_potrf_warp(index_t n, DeviceMatrixBatch<T> a, index_t* info, index_t batch,
                       cudaStream_t stream);

// potrf_rows_kernel: the whole matrix for 32 < n <= 64 (j0 = 0, jb = n), or a blocked-path
// panel (jb <= 32).
template <typename T>
void launch_potrf_rows(index_t n, int j0, int jb, DeviceMatrixBatch<T> a, index_t* info,
                       index_t batch, cudaStream_t stream);

// panels.cu ------------------------------------------------------------------------------

// getrf_shared_kernel on uniform n x n matrices (n <= kBatchedFactorVarMaxN).
template <typename T>
void launch_getrf_shared(index_t n, DeviceMatrixBatch<T> a, index_t* ipiv, index_t* info,
                         index_t batch, cudaStream_t stream);

// getrf_shared_kernel on matrices of sizes n[b] <= max_n (arguments checked by the caller).
template <typename T>
void launch_getrf_vbatched(const index_t* n, index_t max_n, T* const* a, const index_t* lda,
                           index_t* ipiv, index_t ipiv_stride, index_t* info, index_t batch,
                           cudaStream_t stream);

// getrf_panel_kernel on the panel of columns [j, j + jb): in shared memory and recursive when
// `recursive` and the panel fits, else column by column in global memory.
template <typename T>
void launch_getrf_panel(index_t n, int j, int jb, DeviceMatrixBatch<T> a, index_t* ipiv,
                        index_t* info, index_t batch, bool recursive, cudaStream_t stream);

// potrf_panel_kernel on rows [j, n), columns [j, j + jb) (the whole matrix for j = 0,
// jb = n), in shared memory where it fits.
template <typename T>
void launch_potrf_panel(index_t n, int j, int jb, DeviceMatrixBatch<T> a, index_t* info,
                        index_t batch, cudaStream_t stream);

// updates.cu -----------------------------------------------------------------------------

// The row interchanges ipiv[j .. j + count) on columns [c0, c1) and [c2, c3)
// (swap_rows_kernel; `parallel`: composed into one permutation).
template <typename T>
void launch_swap(index_t n, int j, int count, int c0, int c1, int c2, int c3,
                 DeviceMatrixBatch<T> a, const index_t* ipiv, index_t batch, bool parallel,
                 cudaStream_t stream);

// The row block U12 = inv(L11) A12 of the panel at (j, j) of kb columns on columns
// [c0, c1), by the path `opt` selects (register_rowblock, trtri_rowblock with `inverse` as
// the workspace of the inverses, or trsm; tile64_update).
template <typename T>
void launch_row_block(int j, int kb, int c0, int c1, DeviceMatrixBatch<T> a, T* inverse,
                      index_t batch, const GetrfOptions& opt, cudaStream_t stream);

// C -= L U on rows [r0, r1), columns [c0, c1) with rank kb (kSyrk: potrf's syrk, the lower
// triangle only); matrices whose stop_if_info entry is set are skipped (null: none).
template <typename T, bool kSyrk>
void launch_update(int r0, int r1, int c0, int c1, int k0, int kb, DeviceMatrixBatch<T> a,
                   const index_t* stop_if_info, index_t batch, bool wide64, cudaStream_t stream);

}  // namespace prism::kernels::cuda::batched_factor
