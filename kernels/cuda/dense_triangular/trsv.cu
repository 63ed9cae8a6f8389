// trsv: the algorithm for a call (single_block or global_sync, block rows, splits) and the
// public entry points; the solves are in trsv_small.cu and trsv_sync.cu.

#include "kernels/cuda/dense_triangular.hpp"

#include "kernels/cuda/dense_triangular/common.cuh"
#include "kernels/cuda/dense_triangular/launch.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

#include <prism/errors.hpp>

namespace prism::kernels::cuda {
namespace dense_triangular {
namespace {

/// Whether global_sync copies the off-diagonal tiles of op(A) in 16-byte pieces (see
/// issue_row_tile): every column of A 16-byte aligned (a and lda) and, with the index map
/// reversed, n a multiple of the piece too (a reversed block row or tile starts at A row
/// n - 32 (R + 1)).
bool trsv_wide_copies(TriUplo uplo, TriOp op, index_t n, const void* a, index_t lda,
                      std::size_t elem) {
  const auto per = static_cast<index_t>(16 / elem);
  return reinterpret_cast<std::uintptr_t>(a) % 16 == 0 && lda % per == 0 &&
         (!reversed(uplo, op) || n % per == 0);
}

template <typename T>
void trsv_impl(TriUplo uplo, TriOp op, TriDiag diag, index_t n, const T* a, index_t lda, T* x,
               const SyncWorkspace& ws, cudaStream_t stream, const TrsvOptions& options) {
  check_square("trsv", n, lda);
  const bool wide = trsv_wide_copies(uplo, op, n, a, lda, sizeof(T));
  const int rows = options.block_rows == 0 ? trsv_auto_block_rows(n, wide) : options.block_rows;
  if (rows != 32 && rows != 64 && rows != 128) {
    throw ConfigError("trsv: block_rows must be 0, 32, 64 or 128, got " +
                      std::to_string(options.block_rows));
  }
  if (n == 0) return;
  const bool unit = diag == TriDiag::unit;
  TrsvAlgorithm algo = options.algorithm;
  if (algo == TrsvAlgorithm::automatic) {
    const index_t single_max =
        ws.ready ? trsv_auto_single_block_max_n_ready : trsv_auto_single_block_max_n;
    algo = n <= single_max ? TrsvAlgorithm::single_block : TrsvAlgorithm::global_sync;
  }
  if (algo == TrsvAlgorithm::single_block) {
    if (n > trsv_small_max_n) {
      throw ConfigError("trsv: single_block needs n <= 128, got n = " + std::to_string(n));
    }
    launch_trsv_single_block<T>(uplo, op, n, a, lda, x, unit, stream);
    return;
  }
  if (ws.ready && ws.bytes == nullptr) {
    throw ConfigError("trsv: the TrsvWorkspace is empty (moved from)");
  }
  if (ws.ready && n > ws.max_n) {
    throw ConfigError("trsv: n = " + std::to_string(n) +
                      " is larger than the TrsvWorkspace's max_n = " + std::to_string(ws.max_n));
  }
  if (!ws.ready && (ws.bytes == nullptr || ws.size < trsv_workspace_bytes(n))) {
    throw ConfigError("trsv: global_sync needs a workspace of trsv_workspace_bytes(n = " +
                      std::to_string(n) + ") = " + std::to_string(trsv_workspace_bytes(n)) +
                      " bytes, got " + std::to_string(ws.bytes == nullptr ? 0 : ws.size));
  }
  if (reinterpret_cast<std::uintptr_t>(ws.bytes) % 16 != 0) {
    throw ConfigError("trsv: the workspace must be 16-byte aligned (cudaMalloc's is)");
  }
  const int invert_from = options.invert_from_block_row;
  const int split = options.split_tiles < 0 ? 0
                    : options.split_tiles > 0
                        ? options.split_tiles
                        : trsv_auto_split_tiles(n, rows, sizeof(T), options.invert_diagonal_blocks);
  launch_global_sync<T>(uplo, op, n, a, lda, x, unit, ws, rows, options.invert_diagonal_blocks,
                        invert_from, wide, split, stream);
}

}  // namespace
}  // namespace dense_triangular

// The entry points below hand their work to the implementation above.
using dense_triangular::SyncWorkspace;
using dense_triangular::trsv_impl;

int trsv_auto_block_rows(index_t n, bool wide_copies) {
  // With inverted diagonal chunks (docs/kernels/dense_triangular.md): tiles copied in
  // 16-byte pieces take 32-row block rows (one chain step per 32 rows, no elimination
  // inside the block) at every n, their long rows split from n = 4097 on
  // (trsv_auto_split_tiles), which beats 64-row block rows. Tiles copied element by element
  // take 32 rows up to n = 16384 and 64 above, where the two are about even.
  return wide_copies || n <= 16384 ? 32 : 64;
}

int trsv_auto_split_tiles(index_t n, int block_rows, std::size_t elem_size, bool inverted) {
  // Splitting pays once a block row is longer than 32 KiB, in helper segments of 32 tiles
  // (the best segment length or close to it; docs/kernels/dense_triangular.md). With
  // substituted diagonal blocks the chain step is longer and splitting does not pay, so
  // only inverted ones are split.
  const bool long_rows = static_cast<double>(n) * static_cast<double>(elem_size) > 32768.0;
  return block_rows == 32 && inverted && long_rows ? 32 : 0;
}

void trsv(TriUplo uplo, TriOp op, TriDiag diag, index_t n, const double* a, index_t lda, double* x,
          void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
          const TrsvOptions& options) {
  trsv_impl(uplo, op, diag, n, a, lda, x, SyncWorkspace{workspace, workspace_bytes}, stream,
            options);
}
void trsv(TriUplo uplo, TriOp op, TriDiag diag, index_t n, const float* a, index_t lda, float* x,
          void* workspace, std::size_t workspace_bytes, cudaStream_t stream,
          const TrsvOptions& options) {
  trsv_impl(uplo, op, diag, n, a, lda, x, SyncWorkspace{workspace, workspace_bytes}, stream,
            options);
}

struct TrsvWorkspaceAccess {
  static SyncWorkspace view(TrsvWorkspace& w) {
    return SyncWorkspace{w.buffer_.data(), w.buffer_.size(), true, w.half_bytes_, w.max_n_};
  }
};

void trsv(TriUplo uplo, TriOp op, TriDiag diag, index_t n, const double* a, index_t lda, double* x,
          TrsvWorkspace& workspace, cudaStream_t stream, const TrsvOptions& options) {
  trsv_impl(uplo, op, diag, n, a, lda, x, TrsvWorkspaceAccess::view(workspace), stream, options);
}
void trsv(TriUplo uplo, TriOp op, TriDiag diag, index_t n, const float* a, index_t lda, float* x,
          TrsvWorkspace& workspace, cudaStream_t stream, const TrsvOptions& options) {
  trsv_impl(uplo, op, diag, n, a, lda, x, TrsvWorkspaceAccess::view(workspace), stream, options);
}

}  // namespace prism::kernels::cuda
