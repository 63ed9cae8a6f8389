// Batched LU with partial pivoting, Cholesky, getrs and potrs on the GPU, after Dong,
// Haidar, Luszczek, Harris, Tomov, Dongarra, "LU Factorization of Small Matrices:
// Accelerating Batched DGETRF on the GPU" (HPCC 2014). Conventions: kernels/batched_factor.hpp.
//
// Correctness is checked by tests/kernels/test_batched_factor_cuda.cpp (every path against
// the reference), speed by tools/bench_batched_factor.cu. What is still to tune is marked
// TUNE. Paths: kernels/cuda/batched_factor.hpp.
//
// Blocked getrf (n beyond the register and shared-memory paths), K = nb * update_depth
//   (Sec. VI-D, multi-level update):
//   for J in 0, K, 2K, ...:                        (big panel: columns [J, J + KB))
//     for j in J, J + nb, ... < J + KB:            (panel: columns [j, j + jb))
//       panel:    P [A(j:n, j:j+jb)] = L U, pivots ipiv[j .. j+jb)
//       swap:     those pivots on the big panel's other columns [J, j), [j+jb, J+KB)
//       row block: U12 = inv(L11) A12 on columns [j+jb, J+KB)   (in registers, trtri +
//                                                                 gemm, or trsm)
//       update:   A22 -= L21 U12 on rows [j+jb, n), columns [j+jb, J+KB)  (rank jb)
//     swap:     all KB pivots of the big panel on columns [0, J) and [J+KB, n)
//     row block: U12 = inv(L_KB) A12 on columns [J+KB, n)
//     update:   A22 -= L21 U12 on rows [J+KB, n), columns [J+KB, n)        (rank KB)
// With update_depth = 1 this is the plain right-looking algorithm (Algorithm 2).
//
// Memory traffic per panel step: the panel (m x 32) is read and written once; the swap
// touches 2 * jb rows of the other columns; the trailing update reads L21 and U12 once per
// output tile (64 x 64, or 32 x 32 for narrow updates) and reads + writes A22 once. Where
// the time goes (ncu) is in docs/kernels/batched_factor.md.
//
// The kernels live beside this file, one family each: getrf_registers.cu and
// potrf_registers.cu (rows in registers), panels.cu (one block per matrix in shared or
// global memory), updates.cu (swaps, row blocks, trailing updates), solve.cu (getrs and
// potrs); this file picks the path and drives the blocked algorithm.

#include "kernels/cuda/batched_factor.hpp"

#include "kernels/cuda/batched_factor/common.cuh"
#include "kernels/cuda/batched_factor/launch.hpp"

#include "kernels/cuda/check.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include <prism/errors.hpp>

namespace prism::kernels::cuda {
namespace batched_factor {
namespace {

// Blocked getrf, update_depth = 0 (automatic): depth 2 from this n on, else 1. Delaying
// the update over two panels saves a pass over the trailing matrix, which pays only once
// that matrix is large; the crossover is in docs/kernels/batched_factor.md.
constexpr int kGetrfDepth2MinN = 192;
// potrf, update_depth = 0 (automatic): depth 2 from this n on, else 1; the same trade-off,
// with its own crossover.
constexpr int kPotrfDepth2MinN = 128;

// Zeroes the info of every matrix: none has failed yet.
void clear_info(index_t* info, index_t batch, cudaStream_t stream) {
  PRISM_CUDA_CHECK(
      cudaMemsetAsync(info, 0, static_cast<std::size_t>(batch) * sizeof(index_t), stream));
}

// Checks the arguments of a uniform factorization (check_uniform, naming `who`); true when
// nothing is left to launch: an empty batch, or n = 0, whose info is then 0.
bool nothing_to_factor(const char* who, index_t n, index_t ld, index_t* info, index_t batch,
                       cudaStream_t stream) {
  check_uniform(who, n, ld, batch);
  if (batch == 0) return true;
  if (n == 0) {
    clear_info(info, batch, stream);
    return true;
  }
  return false;
}

// Panels per trailing update on the blocked path: `requested` (update_depth of the options)
// as 1, 2 or 4; 0 picks 2 from n = depth2_min_n on, else 1.
int update_depth(index_t n, int requested, index_t depth2_min_n) {
  const int depth = requested > 0 ? requested : (n >= depth2_min_n ? 2 : 1);
  return depth >= 4 ? 4 : (depth >= 2 ? 2 : 1);
}

template <typename T>
void getrf_blocked(index_t n, DeviceMatrixBatch<T> a, index_t* ipiv, index_t* info, index_t batch,
                   void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
                   const GetrfOptions& opt) {
  const int big = kNb * update_depth(n, opt.update_depth, kGetrfDepth2MinN);
  T* inverse = nullptr;
  if (opt.trtri_rowblock) {
    const std::size_t need = static_cast<std::size_t>(batch) * big * big * sizeof(T);
    if (workspace == nullptr || workspace_bytes < need) {
      throw ConfigError("getrf_batched: trtri_rowblock needs " + std::to_string(need) +
                        " bytes of workspace (getrf_workspace_bytes)");
    }
    inverse = static_cast<T*>(workspace);
  }
  clear_info(info, batch, stream);

  auto panel = [&](int j, int jb) {
    if (opt.warp_last_panel && j + jb == n) {
      launch_getrf_warp<T>(n, j, a, ipiv, info, batch, stream, false);
      return;
    }
    if (opt.register_panel) {
      launch_getrf_rows<T>(n, j, jb, a, ipiv, info, batch, stream);
      return;
    }
    launch_getrf_panel<T>(n, j, jb, a, ipiv, info, batch, opt.recursive_panel, stream);
  };

  for (int J = 0; J < n; J += big) {
    const int KB = std::min(big, n - J);
    for (int j = J; j < J + KB; j += kNb) {
      const int jb = std::min(kNb, J + KB - j);
      panel(j, jb);
      launch_swap<T>(n, j, jb, J, j, j + jb, J + KB, a, ipiv, batch, opt.parallel_swap, stream);
      launch_row_block<T>(j, jb, j + jb, J + KB, a, inverse, batch, opt, stream);
      launch_update<T, false>(j + jb, n, j + jb, J + KB, j, jb, a, nullptr, batch,
                              opt.tile64_update, stream);
    }
    launch_swap<T>(n, J, KB, 0, J, J + KB, n, a, ipiv, batch, opt.parallel_swap, stream);
    launch_row_block<T>(J, KB, J + KB, n, a, inverse, batch, opt, stream);
    launch_update<T, false>(J + KB, n, J + KB, n, J, KB, a, nullptr, batch, opt.tile64_update,
                            stream);
  }
}

// Which getrf path runs for n under `opt` (see GetrfOptions).
enum class GetrfPath { warp, rows, shared, blocked };

GetrfPath getrf_path(index_t n, const GetrfOptions& opt) {
  if (n <= std::min(opt.register_max_n, 32)) return GetrfPath::warp;
  if (n <= std::min(opt.register_max_n, 64)) return GetrfPath::rows;
  if (n <= std::min<int>(opt.shared_max_n, kBatchedFactorVarMaxN)) return GetrfPath::shared;
  return GetrfPath::blocked;
}

template <typename T>
void getrf_impl(index_t n, DeviceMatrixBatch<T> a, index_t* ipiv, index_t* info, index_t batch,
                void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
                const GetrfOptions& opt) {
  if (nothing_to_factor("getrf_batched", n, a.ld, info, batch, stream)) return;
  switch (getrf_path(n, opt)) {
    case GetrfPath::warp:
      launch_getrf_warp<T>(n, 0, a, ipiv, info, batch, stream, opt.prefetch_next);
      break;
    case GetrfPath::rows:
      launch_getrf_rows<T>(n, 0, n, a, ipiv, info, batch, stream);
      break;
    case GetrfPath::shared:
      launch_getrf_shared<T>(n, a, ipiv, info, batch, stream);
      break;
    case GetrfPath::blocked:
      getrf_blocked<T>(n, a, ipiv, info, batch, workspace, workspace_bytes, stream, opt);
      break;
  }
}

template <typename T>
void getrf_var_impl(const index_t* n, index_t max_n, T* const* a, const index_t* lda, index_t* ipiv,
                    index_t ipiv_stride, index_t* info, index_t batch, cudaStream_t stream) {
  if (batch < 0 || max_n < 0) throw ConfigError("getrf_vbatched: negative batch or max_n");
  if (max_n > kBatchedFactorVarMaxN) {
    throw ConfigError("getrf_vbatched: max_n = " + std::to_string(max_n) + " > " +
                      std::to_string(kBatchedFactorVarMaxN));
  }
  if (ipiv_stride < max_n) throw ConfigError("getrf_vbatched: ipiv_stride < max_n");
  if (batch == 0) return;
  launch_getrf_vbatched<T>(n, max_n, a, lda, ipiv, ipiv_stride, info, batch, stream);
}

template <typename T>
void potrf_impl(index_t n, DeviceMatrixBatch<T> a, index_t* info, index_t batch,
                cudaStream_t stream, const PotrfOptions& opt) {
  if (nothing_to_factor("potrf_batched", n, a.ld, info, batch, stream)) return;
  if (n <= std::min(opt.register_max_n, 32)) {
    launch_potrf_warp<T>(n, a, info, batch, stream);
    return;
  }
  if (n <= std::min(opt.register_max_n, 64)) {
    launch_potrf_rows<T>(n, 0, n, a, info, batch, stream);
    return;
  }
  // The first panel (j = 0) sets every info; later ones skip the matrices that failed.
  if (n <= std::min<int>(opt.shared_max_n, kBatchedFactorVarMaxN)) {
    launch_potrf_panel<T>(n, 0, n, a, info, batch, stream);
    return;
  }
  auto panel = [&](int j, int jb) {
    if (opt.register_panel) {
      launch_potrf_rows<T>(n, j, jb, a, info, batch, stream);
    } else {
      launch_potrf_panel<T>(n, j, jb, a, info, batch, stream);
    }
  };
  // Columns [J, J + KB) per trailing update: each panel but the last updates only the
  // big panel's remaining columns (rows below them), then one syrk of rank KB.
  const int big = kNb * update_depth(n, opt.update_depth, kPotrfDepth2MinN);
  for (int J = 0; J < n; J += big) {
    const int KB = std::min(big, n - J);
    for (int j = J; j < J + KB; j += kNb) {
      const int jb = std::min(kNb, J + KB - j);
      panel(j, jb);
      launch_update<T, true>(j + jb, n, j + jb, J + KB, j, jb, a, info, batch, opt.tile64_update,
                             stream);
    }
    launch_update<T, true>(J + KB, n, J + KB, n, J, KB, a, info, batch, opt.tile64_update, stream);
  }
}

}  // namespace
}  // namespace batched_factor

// The entry points below hand their work to the implementation above.
using batched_factor::getrf_impl;
using batched_factor::getrf_path;
using batched_factor::getrf_var_impl;
using batched_factor::GetrfPath;
using batched_factor::kGetrfDepth2MinN;
using batched_factor::kNb;
using batched_factor::potrf_impl;
using batched_factor::update_depth;

std::size_t getrf_workspace_bytes(index_t n, index_t batch, std::size_t elem_size,
                                  const GetrfOptions& options) {
  if (getrf_path(n, options) != GetrfPath::blocked || !options.trtri_rowblock || batch <= 0) {
    return 0;
  }
  const std::size_t big =
      static_cast<std::size_t>(kNb) * update_depth(n, options.update_depth, kGetrfDepth2MinN);
  return static_cast<std::size_t>(batch) * big * big * elem_size;
}

void getrf_batched(index_t n, DeviceMatrixBatch<double> a, index_t* ipiv, index_t* info,
                   index_t batch, void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
                   const GetrfOptions& options) {
  getrf_impl(n, a, ipiv, info, batch, workspace, workspace_bytes, stream, options);
}
void getrf_batched(index_t n, DeviceMatrixBatch<float> a, index_t* ipiv, index_t* info,
                   index_t batch, void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
                   const GetrfOptions& options) {
  getrf_impl(n, a, ipiv, info, batch, workspace, workspace_bytes, stream, options);
}

void getrf_vbatched(const index_t* n, index_t max_n, double* const* a, const index_t* lda,
                    index_t* ipiv, index_t ipiv_stride, index_t* info, index_t batch,
                    cudaStream_t stream) {
  getrf_var_impl(n, max_n, a, lda, ipiv, ipiv_stride, info, batch, stream);
}
void getrf_vbatched(const index_t* n, index_t max_n, float* const* a, const index_t* lda,
                    index_t* ipiv, index_t ipiv_stride, index_t* info, index_t batch,
                    cudaStream_t stream) {
  getrf_var_impl(n, max_n, a, lda, ipiv, ipiv_stride, info, batch, stream);
}

void potrf_batched(index_t n, DeviceMatrixBatch<double> a, index_t* info, index_t batch,
                   cudaStream_t stream, const PotrfOptions& options) {
  potrf_impl(n, a, info, batch, stream, options);
}
void potrf_batched(index_t n, DeviceMatrixBatch<float> a, index_t* info, index_t batch,
                   cudaStream_t stream, const PotrfOptions& options) {
  potrf_impl(n, a, info, batch, stream, options);
}

}  // namespace prism::kernels::cuda
