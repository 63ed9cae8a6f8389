#include "kernels/cuda/setup_checks.hpp"

#include "kernels/cuda/check.hpp"
#include "kernels/setup_checks.hpp"

namespace prism::kernels::cuda {
namespace {

constexpr int kThreads = 256;

int blocks_for(index_t n) {
  return static_cast<int>((static_cast<long long>(n) + kThreads - 1) / kThreads);
}

// Or-s `flags` of the whole warp into *defects with one atomic (the common case: none).
__device__ void report(int flags, int* defects) {
  const unsigned any = __ballot_sync(0xffffffffu, flags != kNoDefect);
  if (any == 0) return;
  if (flags != kNoDefect) atomicOr(defects, flags);
}

__global__ void storage_pass(CsrView<double> a, index_t nnz, int* defects) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  int found = kNoDefect;
  if (i < a.rows) {
    const index_t begin = a.row_ptr[i], end = a.row_ptr[i + 1];
    if (begin < 0 || end < begin || end > nnz) {
      found = kBadStorage;
    } else {
      for (index_t k = begin; k < end; ++k) {
        const index_t j = a.col_idx[k];
        if (j < 0 || j >= a.cols || (k > begin && a.col_idx[k - 1] >= j)) found = kBadStorage;
      }
    }
  }
  report(found, defects);
}

// Mirrors by a binary search in the mirror's row (sorted, as the storage pass found).
__global__ void structure_pass(CsrView<double> a, index_t* __restrict__ mirror, int* defects) {
  if (*defects & kBadStorage) return;  // the rows may not be read
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  int found = kNoDefect;
  if (i < a.rows) {
    bool diagonal = false;
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t j = a.col_idx[k];
      index_t lo = a.row_ptr[j], hi = a.row_ptr[j + 1];  // first column >= i in [lo, hi)
      while (lo < hi) {
        const index_t mid = lo + (hi - lo) / 2;
        if (a.col_idx[mid] < i) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      if (lo == a.row_ptr[j + 1] || a.col_idx[lo] != i) {
        found |= kNoMirror;
        continue;
      }
      mirror[k] = lo;
      diagonal = diagonal || j == i;
    }
    if (!diagonal) found |= kMissingDiagonal;
  }
  report(found, defects);
}

}  // namespace

void pattern_defects(const CsrView<double>& a, index_t nnz, bool structure, index_t* mirror,
                     int* defects, cudaStream_t stream) {
  PRISM_CUDA_CHECK(cudaMemsetAsync(defects, 0, sizeof(int), stream));
  if (a.rows == 0) return;
  storage_pass<<<blocks_for(a.rows), kThreads, 0, stream>>>(a, nnz, defects);
  PRISM_CUDA_CHECK_LAUNCH();
  if (!structure) return;
  structure_pass<<<blocks_for(a.rows), kThreads, 0, stream>>>(a, mirror, defects);
  PRISM_CUDA_CHECK_LAUNCH();
}

}  // namespace prism::kernels::cuda
