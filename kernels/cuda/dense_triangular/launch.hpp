#pragma once
// The trsv launchers shared between the files of kernels/cuda/dense_triangular/: the
// single_block solves (trsv_small.cu) and the global_sync solve (trsv_sync.cu), called by
// trsv.cu. Internal to this folder.

#include "kernels/cuda/dense_triangular.hpp"

#include <cuda_runtime.h>

#include <cstddef>

namespace prism::kernels::cuda::dense_triangular {

/// The workspace a global_sync solve is given: `size` bytes at `bytes`, the header, then
/// xpub; or a TrsvWorkspace (`ready`): two xpub halves `half_bytes` apart (see SyncArgs),
/// for n <= max_n.
struct SyncWorkspace {
  void* bytes = nullptr;
  std::size_t size = 0;
  bool ready = false;
  std::size_t half_bytes = 0;
  index_t max_n = 0;
};

// single_block trsv of n <= trsv_small_max_n rows (one thread block).
template <typename T>
void launch_trsv_single_block(TriUplo uplo, TriOp op, index_t n, const T* a, index_t lda, T* x,
                              bool unit, cudaStream_t stream);

// global_sync trsv in block rows of `rows` = 32, 64 or 128 (workspace and options checked by
// the caller): invert the diagonal blocks from block row invert_from on when `invert`, copy
// tiles in 16-byte pieces when `wide` (trsv_wide_copies), split long block rows into
// segments of `split` tiles (0: none; 32-row block rows only).
template <typename T>
void launch_global_sync(TriUplo uplo, TriOp op, index_t n, const T* a, index_t lda, T* x, bool unit,
                        const SyncWorkspace& ws, int rows, bool invert, int invert_from, bool wide,
                        int split, cudaStream_t stream);

}  // namespace prism::kernels::cuda::dense_triangular
