#pragma once
/// @file
/// Batched LU with partial pivoting, Cholesky and the solves with their factors on the GPU,
/// after Dong, Haidar, Luszczek, Harris, Tomov and Dongarra, "LU Factorization of Small
/// Matrices: Accelerating Batched DGETRF on the GPU", HPCC 2014. Same conventions as the
/// reference (kernels/batched_factor.hpp): column-major, 1-based LAPACK pivots stored n per
/// matrix (cuBLAS' layout), per-matrix info, potrf on the lower triangle.
///
/// Matrices are passed like cuBLAS' batched routines take them: a device array of device
/// pointers (cublas<t>getrfBatched, cusolverDn<t>potrfBatched), or one base pointer and a
/// stride (the *StridedBatched form); see DeviceMatrixBatch. ipiv and info are device
/// arrays. Every routine is asynchronous on `stream` and throws BackendError when a launch
/// fails and ConfigError on invalid arguments (checked on the host only: n, lda, batch).
///
/// getrf paths, chosen per call from n and GetrfOptions (each switchable so that
/// tools/bench_batched_factor.cu can measure it on and off):
///  - n <= 32 (register_max_n): one warp per matrix (several per warp for n <= 16), row i
///    in lane i's registers; pivoting moves no data (lanes swap their row *positions*), the
///    pivot row is broadcast through shared memory, rows are written to their final places
///    at the end;
///  - 32 < n <= 40 (register_max_n, up to 64): the same with one thread per row and 64
///    threads per matrix, one barrier per column;
///  - n <= shared_max_n (<= 128; off by default): the whole matrix in one thread block's
///    shared memory;
///  - otherwise the blocked right-looking algorithm of the paper with nb = 32 panels kept in
///    place (column-major, no transposition): panel factorization (rows in registers,
///    recursive in shared memory, or classic), row swaps outside the panel (parallel or
///    serial), row block U12 = L11^{-1} A12 (trtri + gemm or trsm), trailing update
///    A22 -= L21 U12 (batched gemm), with the trailing update optionally delayed over
///    `update_depth` panels (multi-level blocking); the last panel, a square block of at most
///    32 columns, by the n <= 32 warp kernel (warp_last_panel).
///
/// potrf paths (PotrfOptions): n <= 32 one warp per matrix, 32 < n <= 40 (up to 64) one
/// thread per row, both with the rows in registers; optionally the whole matrix in shared
/// memory; else blocked right-looking (nb = 32: potf2 + triangular solve of the m x 32
/// panel, with one thread per row in registers or in shared memory; then a batched syrk of
/// the trailing lower triangle).

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include <cuda_runtime_api.h>

#include "kernels/batched_factor.hpp"

namespace prism::kernels::cuda {

/// `batch` column-major matrices in device memory with leading dimension ld: either a
/// device array of device pointers (pointers != nullptr) or base + b * stride.
template <typename T>
struct DeviceMatrixBatch {
  T* const* pointers = nullptr;  ///< device array of `batch` device pointers, or null
  T* base = nullptr;             ///< strided form: matrix b at base + b * stride
  std::int64_t stride = 0;
  index_t ld = 0;

  /// cuBLAS *Batched form: `pointers` is a device array of device pointers.
  static DeviceMatrixBatch pointer_array(T* const* pointers, index_t ld) {
    DeviceMatrixBatch m;
    m.pointers = pointers;
    m.ld = ld;
    return m;
  }
  /// cuBLAS *StridedBatched form.
  static DeviceMatrixBatch strided(T* base, index_t ld, std::int64_t stride) {
    DeviceMatrixBatch m;
    m.base = base;
    m.ld = ld;
    m.stride = stride;
    return m;
  }
  /// Read-only view (for the solves).
  template <typename U = T,
            typename = std::enable_if_t<std::is_same_v<U, T> && !std::is_const_v<U>>>
  operator DeviceMatrixBatch<const U>() const {
    DeviceMatrixBatch<const U> m;
    m.pointers = pointers;
    m.base = base;
    m.stride = stride;
    m.ld = ld;
    return m;
  }
};

/// getrf algorithm switches. The defaults are the fastest path for each n in
/// tools/bench_batched_factor.cu (double, batch 10^4); docs/kernels/batched_factor.md has
/// the tables.
struct GetrfOptions {
  /// n <= this (0..64) runs a register kernel: one warp per matrix for n <= 32, one thread
  /// per row (64 threads, 40, 48 or 64 columns in registers) for 32 < n <= 64. Default 40:
  /// from n = 42 on the blocked path, its last panel on the warp kernel (warp_last_panel),
  /// wins (docs/kernels/batched_factor.md).
  int register_max_n = 40;
  /// 8 < n <= 16 (the register kernel with 16 lanes per matrix): a resident grid whose
  /// lane groups take one matrix after another and copy the next into shared memory while
  /// they factor the current one, instead of one matrix per lane group and launch slot,
  /// so that the loads of the next matrix hide behind the factorization. Not used for
  /// n <= 8 (no gain) nor for 16 < n <= 32: those kernels are bound by the
  /// instruction latency of their 32-lane steps, not by the loads. Float takes the same
  /// rule.
  bool prefetch_next = true;
  /// register_max_n < n <= this (0..128) runs the whole-matrix shared-memory kernel. Off
  /// by default: the register kernels and the blocked path beat it at every n
  /// (docs/kernels/batched_factor.md).
  int shared_max_n = 0;
  /// Blocked path: all swaps of a panel applied at once from two pivot vectors (Sec. VI-A)
  /// instead of one row interchange after another (LAPACK laswp).
  bool parallel_swap = true;
  /// Blocked path: the panel factored with one thread per row, the rows in registers (one
  /// barrier per column). Takes precedence over recursive_panel.
  bool register_panel = true;
  /// Blocked path without register_panel: panel held in shared memory and factored
  /// recursively (32 -> 16 -> 8 columns, Sec. VI-B) instead of column by column in global
  /// memory (classic getf2).
  bool recursive_panel = true;
  /// Blocked path: the last panel, the square trailing block of at most 32 columns, factored
  /// by the n <= 32 register kernel (one warp, or half or a quarter of one, per matrix)
  /// instead of the panel kernel (a block of one thread per row per matrix).
  bool warp_last_panel = true;
  /// Blocked path: U12 = inv(L11) A12 with inv(L11) from trtri (Sec. V-A3) instead of a
  /// triangular solve (trsm). Needs workspace (getrf_workspace_bytes).
  bool trtri_rowblock = true;
  /// Blocked path: the row block of a single 32-column panel by substitution with each
  /// column of A12 in one thread's registers (one warp per 32 columns, no barriers) instead
  /// of the trtri_rowblock / trsm kernels, which then serve the 64- and 128-column ones.
  bool register_rowblock = true;
  /// Blocked path: panels per trailing update (Sec. VI-D): 1 = plain right-looking (rank-32
  /// updates); 2 or 4 = the next panels are updated as they come and the rest of the
  /// trailing matrix once per 64 / 128 columns; 0 = automatic: 1 below n = 192, 2 from
  /// there (kGetrfDepth2MinN in batched_factor/factor.cu).
  int update_depth = 0;
  /// Blocked path: trailing updates wider than 32 columns, and with trtri_rowblock the row
  /// blocks of 64-column panels, on 64 x 64 tiles (FP64 tensor cores in double; the tiles
  /// of one matrix scheduled together) instead of 32 x 32 tiles.
  bool tile64_update = true;
};

/// Device workspace getrf_batched needs with these options (0 when none).
std::size_t getrf_workspace_bytes(index_t n, index_t batch, std::size_t elem_size,
                                  const GetrfOptions& options = {});

/// LU with partial pivoting of `batch` n x n matrices (n <= 512). ipiv: batch * n device
/// ints, info: batch device ints (both fully written). `workspace` must hold
/// getrf_workspace_bytes(...) bytes (may be null when that is 0).
void getrf_batched(index_t n, DeviceMatrixBatch<double> a, index_t* ipiv, index_t* info,
                   index_t batch, void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
                   const GetrfOptions& options = {});
void getrf_batched(index_t n, DeviceMatrixBatch<float> a, index_t* ipiv, index_t* info,
                   index_t batch, void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
                   const GetrfOptions& options = {});

/// Variable-size LU (every n[b] <= max_n <= 128): n, a (device pointers), lda are device
/// arrays of `batch` entries; pivots of matrix b at ipiv[b * ipiv_stride ...] (ipiv_stride
/// >= max_n). max_n (a host value, >= every n[b]) sizes the shared memory; one thread
/// block per matrix with the whole matrix in shared memory. The device arrays are checked
/// on the device: a matrix with n[b] < 0 or n[b] > max_n gets info[b] = -1, one with
/// lda[b] < max(1, n[b]) info[b] = -4 (LAPACK's codes for an illegal first or fourth
/// argument); it is left untouched and the others are factored.
void getrf_vbatched(const index_t* n, index_t max_n, double* const* a, const index_t* lda,
                    index_t* ipiv, index_t ipiv_stride, index_t* info, index_t batch,
                    cudaStream_t stream);
void getrf_vbatched(const index_t* n, index_t max_n, float* const* a, const index_t* lda,
                    index_t* ipiv, index_t ipiv_stride, index_t* info, index_t batch,
                    cudaStream_t stream);

/// Solves A X = B with getrf's factors, nrhs right-hand sides per matrix in b (overwritten).
void getrs_batched(index_t n, index_t nrhs, DeviceMatrixBatch<const double> a, const index_t* ipiv,
                   DeviceMatrixBatch<double> b, index_t batch, cudaStream_t stream);
void getrs_batched(index_t n, index_t nrhs, DeviceMatrixBatch<const float> a, const index_t* ipiv,
                   DeviceMatrixBatch<float> b, index_t batch, cudaStream_t stream);

/// potrf switches (defaults: the fastest path for each n, as GetrfOptions).
struct PotrfOptions {
  /// n <= this (0..64) runs a register kernel: one warp per matrix for n <= 32, one thread
  /// per row (64 threads) for 32 < n <= 64. Default 48: up to there the one-thread-per-row
  /// kernel beats the blocked path with the register panel, above it the blocked path wins
  /// (docs/kernels/batched_factor.md).
  int register_max_n = 48;
  /// register_max_n < n <= this (0..128) runs the whole-matrix shared-memory kernel. Off by
  /// default: the blocked path beats it at every n >= 48.
  int shared_max_n = 0;
  /// Blocked path: the m x 32 panel factored with one thread per row, the rows in registers
  /// (one barrier per column), instead of in shared memory with 256 threads.
  bool register_panel = true;
  /// Blocked path: panels per trailing update: 1 = plain right-looking (rank-32 syrk); 2 or
  /// 4 = each panel updates only the next panels of its group, the rest of the trailing
  /// matrix is updated once per 64 / 128 columns (as getrf's multi-level update); 0 =
  /// automatic: 1 below n = 128, 2 from there (kPotrfDepth2MinN in
  /// batched_factor/factor.cu).
  int update_depth = 0;
  /// Blocked path: as GetrfOptions::tile64_update, for the syrk.
  bool tile64_update = true;
};

/// Cholesky of the lower triangles of `batch` n x n SPD matrices (n <= 512); info: batch
/// device ints.
void potrf_batched(index_t n, DeviceMatrixBatch<double> a, index_t* info, index_t batch,
                   cudaStream_t stream, const PotrfOptions& options = {});
void potrf_batched(index_t n, DeviceMatrixBatch<float> a, index_t* info, index_t batch,
                   cudaStream_t stream, const PotrfOptions& options = {});

/// Solves A X = B with potrf's factor L (L Y = B, L^T X = Y); b overwritten.
void potrs_batched(index_t n, index_t nrhs, DeviceMatrixBatch<const double> a,
                   DeviceMatrixBatch<double> b, index_t batch, cudaStream_t stream);
void potrs_batched(index_t n, index_t nrhs, DeviceMatrixBatch<const float> a,
                   DeviceMatrixBatch<float> b, index_t batch, cudaStream_t stream);

/// Largest n getrf_batched / potrf_batched accept.
inline constexpr index_t kBatchedFactorMaxN = 512;
/// Largest n getrf_vbatched accepts.
inline constexpr index_t kBatchedFactorVarMaxN = 128;

}  // namespace prism::kernels::cuda
