#include "kernels/cuda/check.hpp"
#include "kernels/cuda/ic0.hpp"

namespace prism::kernels::cuda {
namespace {

constexpr int kThreads = 128;

int blocks_for(long long n) {
  return static_cast<int>((n + kThreads - 1) / kThreads);
}

/// Entry p of row i of L_s is final: its unscaled value into the solves' copies.
__device__ __forceinline__ void emit_entry(const Ic0Output& out, index_t i, index_t p, double ls) {
  if (out.lower_dest == nullptr) return;
  const double v = __dmul_rn(ls, out.row_scale[i]);
  const index_t dl = out.lower_dest[p], du = out.upper_dest[p];
  if (out.lower != nullptr) {
    if (dl >= 0) out.lower[dl] = v;
    if (du >= 0) out.upper[du] = v;
  } else {
    if (dl >= 0) out.lower32[dl] = static_cast<float>(v);
    if (du >= 0) out.upper32[du] = static_cast<float>(v);
  }
}

/// Row i's pivot l_s(ii) is final: 1 / l_ii into both inverse diagonals.
__device__ __forceinline__ void emit_pivot(const Ic0Output& out, index_t i, double ls) {
  if (out.lower_dest == nullptr) return;
  const double v = 1.0 / __dmul_rn(ls, out.row_scale[i]);
  if (out.lower_inverse != nullptr) {
    out.lower_inverse[i] = v;
    out.upper_inverse[i] = v;
  } else {
    out.lower_inverse32[i] = static_cast<float>(v);
    out.upper_inverse32[i] = static_cast<float>(v);
  }
}

/// Row i's shifted pivot a_ii + shift - sum l_ij^2 is known: l_ii = sqrt(pivot), or a
/// failure (the pivot left in the diagonal slot, the row min-reduced into *failed_row).
__device__ __forceinline__ void finish_row(const Ic0Output& out, index_t i, index_t diag,
                                           double pivot, double* values, int* failed_row) {
  if (!(pivot > 0.0) || !isfinite(pivot)) {
    values[diag] = pivot;
    atomicMin(failed_row, static_cast<int>(i));
    return;
  }
  values[diag] = sqrt(pivot);
  emit_pivot(out, i, values[diag]);
}

__global__ void ic0_rows(index_t begin, index_t end, const index_t* __restrict__ row_ptr,
                         const index_t* __restrict__ col_idx, double* values, double shift,
                         int* failed_row, Ic0Output out) {
  const index_t i = begin + static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= end) return;
  const index_t first = row_ptr[i], diag = row_ptr[i + 1] - 1;
  // l_ik = (a_ik - sum_{j<k} l_ij l_kj) / l_kk over the common pattern of rows i and k,
  // in the reference kernel's order and without fused multiply-adds (__dmul_rn,
  // __dsub_rn), so the device factor is the reference factor bit for bit.
  for (index_t p = first; p < diag; ++p) {
    const index_t k = col_idx[p];
    const index_t k_diag = row_ptr[k + 1] - 1;
    index_t a = first, b = row_ptr[k];
    double sum = values[p];
    while (a < p && b < k_diag) {
      const index_t ca = col_idx[a], cb = col_idx[b];
      if (ca == cb) {
        sum = __dsub_rn(sum, __dmul_rn(values[a], values[b]));
        ++a;
        ++b;
      } else if (ca < cb) {
        ++a;
      } else {
        ++b;
      }
    }
    values[p] = sum / values[k_diag];
    emit_entry(out, i, p, values[p]);
  }
  // l_ii = sqrt(a_ii + shift - sum_{j<i} l_ij^2)
  double pivot = values[diag] + shift;
  for (index_t p = first; p < diag; ++p) pivot = __dsub_rn(pivot, __dmul_rn(values[p], values[p]));
  finish_row(out, i, diag, pivot, values, failed_row);
}

/// One warp per row, for long rows: the entries p of row i in order, as ic0_rows; for
/// each, the lanes take 32 of row i's entries before p at a time and look their columns
/// up in row k (binary search), and every lane subtracts the products of the matches in
/// column order from its copy of the sum, as the reference does, so the factor is the
/// same bit for bit. Lane 0 stores; __syncwarp makes the store visible to the warp.
__global__ void __launch_bounds__(kThreads)
    ic0_rows_warp(index_t begin, index_t end, const index_t* __restrict__ row_ptr,
                  const index_t* __restrict__ col_idx, double* values, double shift,
                  int* failed_row, Ic0Output out) {
  constexpr unsigned kAll = 0xffffffffu;
  const int lane = static_cast<int>(threadIdx.x % 32);
  const index_t i = begin + static_cast<index_t>(
                                (static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x) / 32);
  if (i >= end) return;  // the whole warp
  const index_t first = row_ptr[i], diag = row_ptr[i + 1] - 1;
  for (index_t p = first; p < diag; ++p) {
    const index_t k = col_idx[p];
    const index_t k_first = row_ptr[k], k_diag = row_ptr[k + 1] - 1;
    double sum = values[p];
    for (index_t a0 = first; a0 < p; a0 += 32) {
      const index_t a = a0 + lane;
      double product = 0.0;
      bool match = false;
      if (a < p) {
        const index_t c = col_idx[a];
        index_t lo = k_first, hi = k_diag;
        while (lo < hi) {
          const index_t mid = lo + (hi - lo) / 2;
          if (col_idx[mid] < c) {
            lo = mid + 1;
          } else {
            hi = mid;
          }
        }
        if (lo < k_diag && col_idx[lo] == c) {
          match = true;
          product = __dmul_rn(values[a], values[lo]);
        }
      }
      for (unsigned m = __ballot_sync(kAll, match); m != 0; m &= m - 1) {
        sum = __dsub_rn(sum, __shfl_sync(kAll, product, __ffs(m) - 1));
      }
    }
    const double l = sum / values[k_diag];
    if (lane == 0) {
      values[p] = l;
      emit_entry(out, i, p, l);
    }
    __syncwarp();
  }
  // l_ii = sqrt(a_ii + shift - sum_{j<i} l_ij^2), the squares subtracted in order
  double pivot = values[diag] + shift;
  for (index_t a0 = first; a0 < diag; a0 += 32) {
    const index_t a = a0 + lane;
    const double square = a < diag ? __dmul_rn(values[a], values[a]) : 0.0;
    for (unsigned m = __ballot_sync(kAll, a < diag); m != 0; m &= m - 1) {
      pivot = __dsub_rn(pivot, __shfl_sync(kAll, square, __ffs(m) - 1));
    }
  }
  if (lane != 0) return;
  finish_row(out, i, diag, pivot, values, failed_row);
}

__global__ void ic0_row_scale(index_t rows, const index_t* __restrict__ diagonal_source,
                              const double* __restrict__ a, double* __restrict__ row_scale,
                              double* __restrict__ inverse_scale, int* failed_row) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= rows) return;
  const double d = a[diagonal_source[i]];
  if (!(d > 0.0) || !isfinite(d)) {
    atomicMin(failed_row, static_cast<int>(i));
    return;
  }
  const double r = sqrt(d);
  row_scale[i] = r;
  inverse_scale[i] = 1.0 / r;
}

__global__ void ic0_scale_entries(index_t nnz, const index_t* __restrict__ entry_row,
                                  const index_t* __restrict__ col_idx,
                                  const index_t* __restrict__ source, const double* __restrict__ a,
                                  const double* __restrict__ inverse_scale,
                                  double* __restrict__ scaled) {
  const index_t k = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (k >= nnz) return;
  scaled[k] =
      __dmul_rn(__dmul_rn(a[source[k]], inverse_scale[entry_row[k]]), inverse_scale[col_idx[k]]);
}

}  // namespace

void ic0_factor_rows(index_t begin, index_t end, CsrView<double> lower, double* values,
                     double shift, int* failed_row, cudaStream_t stream, bool warp_per_row,
                     const Ic0Output* output) {
  if (end <= begin) return;
  const Ic0Output out = output != nullptr ? *output : Ic0Output{};
  if (warp_per_row) {
    ic0_rows_warp<<<blocks_for(32LL * (end - begin)), kThreads, 0, stream>>>(
        begin, end, lower.row_ptr, lower.col_idx, values, shift, failed_row, out);
  } else {
    ic0_rows<<<blocks_for(end - begin), kThreads, 0, stream>>>(
        begin, end, lower.row_ptr, lower.col_idx, values, shift, failed_row, out);
  }
  PRISM_CUDA_CHECK_LAUNCH();
}

void ic0_scale(CsrView<double> lower, index_t nnz, const index_t* entry_row, const index_t* source,
               const index_t* diagonal_source, const double* a, double* scaled, double* row_scale,
               double* inverse_scale, int* failed_row, cudaStream_t stream) {
  PRISM_CUDA_CHECK(cudaMemsetAsync(failed_row, kNoFailedRowByte, sizeof(int), stream));
  if (lower.rows == 0) return;
  ic0_row_scale<<<blocks_for(lower.rows), kThreads, 0, stream>>>(
      lower.rows, diagonal_source, a, row_scale, inverse_scale, failed_row);
  PRISM_CUDA_CHECK_LAUNCH();
  // A bad row leaves its scale unset: the caller reads failed_row and stops first.
  if (nnz == 0) return;
  ic0_scale_entries<<<blocks_for(nnz), kThreads, 0, stream>>>(nnz, entry_row, lower.col_idx, source,
                                                              a, inverse_scale, scaled);
  PRISM_CUDA_CHECK_LAUNCH();
}

}  // namespace prism::kernels::cuda
