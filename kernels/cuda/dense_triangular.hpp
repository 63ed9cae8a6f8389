#pragma once
/// @file
/// Dense triangular solves on the GPU; same conventions as kernels/dense_triangular.hpp
/// (column-major A with leading dimension, unit-stride x overwritten in place, B
/// overwritten by X), device pointers, asynchronous on the given stream.
///
/// trsv after J. D. Hogg, "A Fast Dense Triangular Solve in CUDA", SIAM J. Sci. Comput.
/// 35(3), 2013:
///  - single_block (n <= 128): one thread block; every tile of the triangle is requested
///    at the start with asynchronous copies (cp.async), one group per 32-wide block column,
///    so the load of later columns overlaps the solve of earlier ones (the paper's
///    prefetching warps, Section 2, done by the copy engine); warp 0 solves each 32x32
///    diagonal block with the right-hand side in registers. For n <= 64 one or two warps
///    instead, each lane loading its row of the triangle straight into registers.
///  - global_sync (any n): one kernel; thread blocks take block rows of 32, 64 or 128 rows
///    in order from an atomic counter (Section 3, Listing 3). Solved entries of x are
///    published as values in the workspace, which starts as "unsolved" marks, and a block
///    polls them instead of a counter. Each block streams its off-diagonal tiles through a
///    ring of shared-memory stages filled by cp.async (in 16-byte pieces when the columns
///    of A are 16-byte aligned, else element by element), issued before any wait, so
///    memory traffic overlaps the dependency chain; x is waited for only when the stream
///    reaches the frontier. The 32x32 diagonal chunks are solved by substitution or,
///    optionally, multiplied by their inverses computed off the critical path (Section 4);
///    with 32-row block rows the inverse also absorbs the last two off-diagonal tiles. The
///    transpose and upper variants read A through an index map and transpose tiles on their
///    way into shared memory (Section 7). Long 32-row block rows are split: helper thread
///    blocks stream their leftmost tiles and publish partial sums (TrsvOptions::split_tiles).
///    A TrsvWorkspace spares the reset of the workspace before each solve.
/// trsm (A on the left): a data-flow kernel over 64x64 tiles of X. Thread blocks take tiles
/// in row-major order from an atomic counter; tile (I, J) accumulates L'(I, l) X'(l, J) for
/// l < I with a cp.async double-buffered GEMM (double: FP64 tensor cores, mma.sync m8n8k4;
/// float: a 4x4 register tile per thread) as soon as X'(l, J) is published, then solves
/// its 64x64 diagonal block (by default a multiply with its inverse, computed for every
/// diagonal tile in parallel before; else substitution) and publishes X'(I, J). Small nrhs gets a
/// pipelined chain down the block rows, large nrhs GEMM-like throughput. For large
/// problems, the blocked trsm splits op(A) into diagonal blocks of TrsmOptions::block_rows
/// rows: each is solved by the data-flow kernel and the rows below it (in solve order) are
/// updated by one cuBLAS GEMM (the split of MAGMA's and LAPACK's blocked trsm; the vendor
/// GEMM runs near the tensor-core peak that a 64x64 tile of the data-flow kernel does not
/// reach).

#include <cstddef>

#include <cuda_runtime_api.h>

#include "kernels/cuda/device_memory.hpp"
#include "kernels/dense_triangular.hpp"

namespace prism::kernels::cuda {

/// Largest n the single-block trsv and the batched trsv handle.
inline constexpr index_t trsv_small_max_n = 128;
/// Largest n for which TrsvAlgorithm::automatic picks single_block
/// (docs/kernels/dense_triangular.md): single_block wins up to n = 64; from n = 100 on,
/// global_sync with 32- or 64-row block rows wins (two or more thread blocks overlap
/// the loads of later block rows with the solve of earlier ones, where single_block's one
/// warp serialises four 32x32 diagonal solves and three block updates).
inline constexpr index_t trsv_auto_single_block_max_n = 64;
/// The same with a TrsvWorkspace, whose global_sync solves skip the memset, so that
/// global_sync already wins at n = 64 and the two are about even at n = 32.
inline constexpr index_t trsv_auto_single_block_max_n_ready = 32;

/// Which trsv kernel runs.
enum class TrsvAlgorithm {
  automatic,     ///< single_block for n <= trsv_auto_single_block_max_n (with a
                 ///< TrsvWorkspace: ..._max_n_ready), else global_sync
  single_block,  ///< requires n <= trsv_small_max_n
  global_sync,   ///< any n
};

struct TrsvOptions {
  TrsvAlgorithm algorithm = TrsvAlgorithm::automatic;
  /// global_sync only: replace the substitution with each 32x32 diagonal chunk by a
  /// multiply with its inverse (computed by the block before its stream, off the critical
  /// path; forward substitution on unit vectors), for 32-row chunks >= invert_from_block_row
  /// (the first rows are latency bound and the inversion would delay them: paper Section 4).
  /// With 32-row block rows an inverted block also takes in the two tiles left of it
  /// (their products with the inverse are formed before the stream), so that one 32x32
  /// multiply is left between the previous block row's solution and this one's.
  /// Defaults: on, from chunk 4 (row 128), the best setting in
  /// docs/kernels/dense_triangular.md.
  bool invert_diagonal_blocks = true;
  int invert_from_block_row = 4;
  /// global_sync only: rows per thread block, 32, 64 or 128; 0 picks by n
  /// (trsv_auto_block_rows). Larger block rows shorten the chain of inter-block waits
  /// (n / rows steps) at the price of fewer, longer-running thread blocks.
  int block_rows = 0;
  /// global_sync with 32-row block rows only: split long block rows. A block row with at
  /// least 2 split_tiles off-diagonal 32-column tiles gets helper thread blocks, each
  /// streaming split_tiles of its leftmost tiles and publishing partial sums, so that the
  /// long rows of a large n stream through many SMs instead of one each (what one SM can
  /// stream bounds an unsplit row). 0 picks (trsv_auto_split_tiles), < 0 never splits; a request is
  /// raised to at least 32 tiles and to enough that no row has more than 16 helpers.
  int split_tiles = 0;
};

/// The block_rows global_sync uses for n when TrsvOptions::block_rows is 0. wide_copies:
/// whether the off-diagonal tiles are copied in 16-byte pieces, which global_sync does when
/// the columns of A are 16-byte aligned (a and lda, and n when uplo is upper xor op is
/// transpose, the solves that run through A backwards).
int trsv_auto_block_rows(index_t n, bool wide_copies);

/// The split_tiles global_sync uses when TrsvOptions::split_tiles is 0 (0: none), for
/// elements of elem_size bytes, with or without inverted diagonal blocks.
int trsv_auto_split_tiles(index_t n, int block_rows, std::size_t elem_size, bool inverted);

/// Device workspace the global_sync trsv needs for size n: a block-row ticket, the solution
/// as it is published between thread blocks and the partial sums of split block rows
/// (at most 8 n + n^2 / 256 bytes, sized for double: one workspace serves both precisions,
/// every block_rows and split_tiles, and every smaller n). single_block needs none.
std::size_t trsv_workspace_bytes(index_t n);

/// Solves op(A) x = b in place on `stream`. `workspace` must hold trsv_workspace_bytes(n)
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

/// A global_sync trsv workspace that every call leaves ready for the next one, so that a
/// call runs no memset before its kernel (docs/kernels/dense_triangular.md has the time it
/// saves).
/// It holds two copies of the published solution, used by solves in turn: a solve resets
/// what the solve before it used of the other copy, and its last thread block to start
/// hands that copy to the next solve. Made ready once by the constructor, which waits for
/// the device; serves every n <= max_n in both precisions. Solves that share one must not
/// run concurrently (one stream, or streams the caller orders). The state lives on the
/// device, so solves captured in a CUDA graph and replayed keep it ready too. A kernel that
/// fails mid-solve leaves it unusable (the CUDA context is lost then anyway).
class TrsvWorkspace {
 public:
  /// Allocates and initialises about 2 trsv_workspace_bytes(max_n) bytes of device memory;
  /// throws BackendError when CUDA fails.
  explicit TrsvWorkspace(index_t max_n);

  /// The largest n this workspace serves.
  index_t max_n() const noexcept { return max_n_; }

 private:
  friend struct TrsvWorkspaceAccess;  // the solves' view (dense_triangular/trsv.cu)
  DeviceBuffer<unsigned char> buffer_;
  std::size_t half_bytes_ = 0;  // one of the two copies of the published solution
  index_t max_n_ = 0;
};

/// trsv (above) with a TrsvWorkspace (n <= workspace.max_n(), else ConfigError): no reset per
/// call. single_block solves do not touch it.
void trsv(TriUplo uplo, TriOp op, TriDiag diag, index_t n, const double* a, index_t lda, double* x,
          TrsvWorkspace& workspace, cudaStream_t stream, const TrsvOptions& options = {});
/// Single-precision twin.
void trsv(TriUplo uplo, TriOp op, TriDiag diag, index_t n, const float* a, index_t lda, float* x,
          TrsvWorkspace& workspace, cudaStream_t stream, const TrsvOptions& options = {});

/// Solves `batch` independent systems op(A_k) x_k = b_k in place, one thread block each
/// (one warp each when max_n <= 32). n, a, lda and x are device arrays of length batch
/// (sizes, matrix pointers, leading dimensions, right-hand-side/solution pointers); max_n
/// (<= 128) bounds every n[k] and sizes the shared memory. Systems with n[k] == 0 are
/// skipped.
void trsv_batched(TriUplo uplo, TriOp op, TriDiag diag, index_t batch, index_t max_n,
                  const index_t* n, const double* const* a, const index_t* lda, double* const* x,
                  cudaStream_t stream);
/// Single-precision twin.
void trsv_batched(TriUplo uplo, TriOp op, TriDiag diag, index_t batch, index_t max_n,
                  const index_t* n, const float* const* a, const index_t* lda, float* const* x,
                  cudaStream_t stream);

/// Which trsm algorithm runs.
enum class TrsmAlgorithm {
  automatic,  ///< blocked where trsm_auto_blocked says so, else data_flow
  data_flow,  ///< one data-flow kernel over 64x64 tiles of X
  blocked,    ///< diagonal blocks by the data-flow kernel, the rest by cuBLAS GEMM
};

struct TrsmOptions {
  TrsmAlgorithm algorithm = TrsmAlgorithm::automatic;
  /// blocked only: rows of a diagonal block, a positive multiple of 64; 0 picks by the
  /// shape (trsm_auto_block_rows).
  index_t block_rows = 0;
  /// Invert the 64x64 diagonal tiles first (one thread block each, all in parallel) and
  /// multiply by the inverses on tensor cores, instead of a 64-step substitution per tile
  /// on the critical path (Hogg's Section 4, as the trsv does with its 32x32 chunks).
  /// The forward error then grows with the condition of the 64x64 diagonal tiles rather
  /// than staying backward stable; turn it off for badly conditioned triangles.
  bool invert_diagonal_blocks = true;
};

/// Whether TrsmAlgorithm::automatic takes the blocked algorithm for an m x nrhs solve.
bool trsm_auto_blocked(index_t m, index_t nrhs);
/// The diagonal block rows of the blocked trsm when TrsmOptions::block_rows is 0.
index_t trsm_auto_block_rows(index_t m, index_t nrhs);

/// Device workspace trsm needs for m x nrhs: the tile counter, one "solved block rows"
/// counter per 64-column tile of X, and the inverses of the 64x64 diagonal tiles.
std::size_t trsm_workspace_bytes(index_t m, index_t nrhs);

/// Solves op(A) X = alpha B in place (A on the left, m x m; B m x nrhs, leading dimension
/// ldb) on `stream`, with a stream-ordered workspace (cudaMallocAsync) of
/// trsm_workspace_bytes(m, nrhs). The blocked algorithm issues its GEMMs on `stream`
/// through the calling thread's cuBLAS handle (cublas_handle.hpp). Throws ConfigError on
/// bad sizes or options, BackendError when a launch or cuBLAS call fails.
void trsm(TriUplo uplo, TriOp op, TriDiag diag, index_t m, index_t nrhs, double alpha,
          const double* a, index_t lda, double* b, index_t ldb, cudaStream_t stream,
          const TrsmOptions& options = {});
/// Single-precision twin.
void trsm(TriUplo uplo, TriOp op, TriDiag diag, index_t m, index_t nrhs, float alpha,
          const float* a, index_t lda, float* b, index_t ldb, cudaStream_t stream,
          const TrsmOptions& options = {});
/// As above with a caller-owned workspace of at least trsm_workspace_bytes(m, nrhs) bytes
/// (reset on the stream by each call: not to be shared by concurrent calls).
void trsm(TriUplo uplo, TriOp op, TriDiag diag, index_t m, index_t nrhs, double alpha,
          const double* a, index_t lda, double* b, index_t ldb, void* workspace,
          std::size_t workspace_bytes, cudaStream_t stream, const TrsmOptions& options = {});
/// Single-precision twin.
void trsm(TriUplo uplo, TriOp op, TriDiag diag, index_t m, index_t nrhs, float alpha,
          const float* a, index_t lda, float* b, index_t ldb, void* workspace,
          std::size_t workspace_bytes, cudaStream_t stream, const TrsmOptions& options = {});

}  // namespace prism::kernels::cuda
