#pragma once
// Dense triangular solves (trsv, batched trsv, trsm); see kernels/cuda/dense_triangular.hpp.
// trsv.cu picks the algorithm, trsv_small.cu and trsv_sync.cu hold the trsv kernels,
// trsm.cu the trsm.
//
// Every variant is reduced to one lower-triangular, non-transposed solve L' x' = b' through
// an index map (LowerView): with p(i) = i or n-1-i,
//   lower/none:      L'(i, j) = A(i, j)                x'(i) = x(i)
//   lower/transpose: L'(i, j) = A(n-1-j, n-1-i)        x'(i) = x(n-1-i)
//   upper/none:      L'(i, j) = A(n-1-i, n-1-j)        x'(i) = x(n-1-i)
//   upper/transpose: L'(i, j) = A(j, i)                x'(i) = x(i)
// i.e. reverse = (upper != transpose) and swap = transpose. With swap the rows of L' are
// the columns of A, so the tile loaders let the fast thread index run along the storage
// rows of A (coalesced) and transpose the tile on its way into shared memory (Hogg,
// Section 7: "transpose critical-path blocks while prefetching").
//
// What every file of kernels/cuda/dense_triangular/ shares: that index map (LowerView), the
// tile size and the host-side choice of the kernel instance for a view. Internal to this
// folder.

#include "kernels/cuda/dense_triangular.hpp"

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/launch_config.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <type_traits>

#include <prism/errors.hpp>

namespace prism::kernels::cuda::dense_triangular {

constexpr int kTile = 32;        // trsv chunk / diagonal block size = warp size
constexpr int kLds = kTile + 1;  // padded leading dimension of 32x32 shared tiles (no bank
                                 // conflicts when a tile is transposed on the way in)
constexpr unsigned kFullMask = 0xffffffffu;

/// The effective lower-triangular matrix L' of the file comment, on top of A.
template <typename T, bool kRev, bool kSwap>
struct LowerView {
  const T* a;
  long long lda;
  int n;
  __device__ int p(int i) const { return kRev ? n - 1 - i : i; }
  /// Address of L'(i, j) for 0 <= i, j < n.
  __device__ const T* ptr(int i, int j) const {
    int r = p(i);
    int c = p(j);
    if (kSwap) {
      const int t = r;
      r = c;
      c = t;
    }
    return a + r + static_cast<long long>(c) * lda;
  }
};

/// Requests tile (bi, bj) of L' into s asynchronously: s[c * kLds + r] = L'(32 bi + r,

/// Whether the index map onto L' runs backwards through A (file header: upper xor
/// transpose).
inline bool reversed(TriUplo uplo, TriOp op) {
  return (uplo == TriUplo::upper) != (op == TriOp::transpose);
}

/// Calls f(integral_constant<bool, reverse>, integral_constant<bool, swap>).
template <typename F>
void dispatch_view(TriUplo uplo, TriOp op, F&& f) {
  const bool rev = reversed(uplo, op);
  const bool swap = op == TriOp::transpose;
  using Y = std::true_type;
  using N = std::false_type;
  if (rev && swap) {
    f(Y{}, Y{});
  } else if (rev) {
    f(Y{}, N{});
  } else if (swap) {
    f(N{}, Y{});
  } else {
    f(N{}, N{});
  }
}

/// Launches pick(rev, swap), the instance of a kernel template for the view of (uplo, op),
/// on `blocks` blocks of `threads` with `smem` bytes of dynamic shared memory, reserved
/// first (reserve_dynamic_shared, naming `who`).
template <typename Pick, typename... Args>
void launch_view(TriUplo uplo, TriOp op, Pick pick, unsigned blocks, int threads, std::size_t smem,
                 const char* who, cudaStream_t stream, Args... args) {
  dispatch_view(uplo, op, [&](auto rev, auto swap) {
    const auto kernel = pick(rev, swap);
    reserve_dynamic_shared(kernel_id(kernel), smem, who);
    kernel<<<blocks, threads, smem, stream>>>(args...);
    PRISM_CUDA_CHECK_LAUNCH();
  });
}

// ConfigError (naming `who`) unless n >= 0 and lda >= max(1, n).
inline void check_square(const char* who, index_t n, index_t lda) {
  if (n < 0) throw ConfigError(std::string(who) + ": negative size n = " + std::to_string(n));
  if (lda < (n > 1 ? n : 1)) {
    throw ConfigError(std::string(who) + ": leading dimension " + std::to_string(lda) +
                      " < max(1, n = " + std::to_string(n) + ")");
  }
}

}  // namespace prism::kernels::cuda::dense_triangular
