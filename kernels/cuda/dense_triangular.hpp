#pragma once
/// @file
/// Dense triangular solves on the GPU; same conventions as kernels/dense_triangular.hpp
/// (column-major A with leading dimension, unit-stride x overwritten in place, B
/// overwritten by X), device pointers, asynchronous on the given stream.
///
/// trsv after J. D. Hogg, "A Fast Dense Triangular Solve in CUDA", SIAM J. Sci. Comput.
/// 35(3), 2013:
///  - single_block (n <= 128): one thread block; warp 0 solves each 32x32 diagonal block
///    with the right-hand side in registers while the other warps prefetch the next block
///    column into shared memory (Section 2).
///  - global_sync (any n): one kernel; thread blocks take 32-row block rows in order from
///    an atomic counter and wait on a global "solved block columns" counter published
///    after __threadfence (Section 3, Listing 3); the critical-path off-diagonal block is
///    cached in registers; optionally the 32x32 diagonal blocks are inverted off the
///    critical path with Higham's method B (Section 4). The transpose and upper variants
///    read A through an index map and transpose tiles while prefetching (Section 7).
/// trsm: one thread per column of X, block rows of A and X staged through padded shared
/// memory with coalesced loads.

#include <cstddef>

#include <cuda_runtime_api.h>

#include "kernels/dense_triangular.hpp"

namespace prism::kernels::cuda {

/// Largest n the single-block trsv and the batched trsv handle.
inline constexpr index_t trsv_small_max_n = 128;

/// Which trsv kernel runs.
enum class TrsvAlgorithm {
  automatic,     ///< single_block for n <= trsv_small_max_n, else global_sync
  single_block,  ///< requires n <= trsv_small_max_n
  global_sync,   ///< any n
};

struct TrsvOptions {
  TrsvAlgorithm algorithm = TrsvAlgorithm::automatic;
  /// global_sync only: replace the substitution with each 32x32 diagonal block by a
  /// multiply with its inverse (computed by the block while it waits; Higham method B),
  /// for block rows >= invert_from_block_row (the first rows are latency bound and the
  /// inversion would delay them: paper Section 4).
  bool invert_diagonal_blocks = false;
  int invert_from_block_row = 4;
};

/// Device workspace trsv needs: the two global-memory synchronisation counters of the
/// global_sync kernel. Always returns the same small size; allocate once and reuse.
std::size_t trsv_workspace_bytes();

/// Solves op(A) x = b in place on `stream`. `workspace` must hold trsv_workspace_bytes()
/// bytes (it is reset on the stream by each call, so one workspace must not be shared by
/// calls running concurrently on different streams). Throws ConfigError on bad sizes or
/// a single_block request with n > 128, BackendError when a launch fails.
void trsv(TriUplo uplo, TriOp op, TriDiag diag, index_t n, const double* a, index_t lda, double* x,
          void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
          const TrsvOptions& options = {});
/// Single-precision twin.
void trsv(TriUplo uplo, TriOp op, TriDiag diag, index_t n, const float* a, index_t lda, float* x,
          void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
          const TrsvOptions& options = {});

/// Solves `batch` independent systems op(A_k) x_k = b_k in place, one thread block each.
/// n, a, lda and x are device arrays of length batch (sizes, matrix pointers, leading
/// dimensions, right-hand-side/solution pointers); max_n (<= 128) bounds every n[k] and
/// sizes the shared memory. Systems with n[k] == 0 are skipped.
void trsv_batched(TriUplo uplo, TriOp op, TriDiag diag, index_t batch, index_t max_n,
                  const index_t* n, const double* const* a, const index_t* lda, double* const* x,
                  cudaStream_t stream);
/// Single-precision twin.
void trsv_batched(TriUplo uplo, TriOp op, TriDiag diag, index_t batch, index_t max_n,
                  const index_t* n, const float* const* a, const index_t* lda, float* const* x,
                  cudaStream_t stream);

/// Solves op(A) X = alpha B in place (A on the left, m x m; B m x nrhs, leading dimension
/// ldb) on `stream`.
void trsm(TriUplo uplo, TriOp op, TriDiag diag, index_t m, index_t nrhs, double alpha,
          const double* a, index_t lda, double* b, index_t ldb, cudaStream_t stream);
/// Single-precision twin.
void trsm(TriUplo uplo, TriOp op, TriDiag diag, index_t m, index_t nrhs, float alpha,
          const float* a, index_t lda, float* b, index_t ldb, cudaStream_t stream);

}  // namespace prism::kernels::cuda
