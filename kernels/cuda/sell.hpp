#pragma once
// SELL-32 kernels (layout: kernels/sell.hpp): one thread per row, the k-th entries of a
// slice's 32 rows read with one coalesced load, padding (column -1) skipped.

#include "kernels/sell.hpp"

#include <cuda_runtime.h>

#include <vector>

namespace prism::kernels::cuda {

/// A SELL layout's arrays on the device; V is the value type (double, or float for the
/// mixed-precision factor).
template <typename V>
struct SellView {
  const index_t* slice_ptr = nullptr;
  const index_t* col_idx = nullptr;
  const V* values = nullptr;
};

/// y = A x for a layout with one range (rows [0, rows)). Asynchronous on `stream`.
void sell_spmv(index_t rows, SellView<double> a, const double* x, double* y, cudaStream_t stream);

/// y = A x and partials[b] = the part of x . y summed by block b, for b < the returned
/// count (at most kReductionBlocks of kernels/cuda/blas1.hpp; finish with sum_partials):
/// SpMV and the curvature p . Ap of CG in one pass. Asynchronous on `stream`.
int sell_spmv_dot(index_t rows, SellView<double> a, const double* x, double* y, double* partials,
                  cudaStream_t stream);

/// Color-set solve (D + S) x = b, S in SELL with one range per independent row block
/// (`range_ptr` / `range_slice` from the layout, on the host), D given inverted; lower:
/// ranges first to last, upper: last to first. x may alias b. Sums in double. Every
/// launch is a dependent launch (kernels/cuda/dependent_launch.cuh); all but the first
/// read their first factor entries before they wait for the one ahead.
/// `first_scaled` (lower only): S holds its entries in the first range's columns
/// c < range_ptr[1] times the inverse diagonal there, l_rc * dl_c (rounded to V; in float,
/// of l_rc and dl_c rounded to float). The first range has no strict entries, so
/// x_c = b_c * dl_c there, and a step multiplies b_c alone: one gather instead of two for
/// those columns (docs/kernels/colorset.md). The first range then runs last, when nothing
/// reads its b any more.
/// The device IC(0) factorization writes L so (Ic0Output::scaled_end).
void sell_colorset_solve(SellView<double> strict, const double* inverse_diagonal,
                         const std::vector<index_t>& range_ptr,
                         const std::vector<index_t>& range_slice, bool lower, bool first_scaled,
                         const double* b, double* x, cudaStream_t stream);
void sell_colorset_solve(SellView<float> strict, const float* inverse_diagonal,
                         const std::vector<index_t>& range_ptr,
                         const std::vector<index_t>& range_slice, bool lower, bool first_scaled,
                         const double* b, double* x, cudaStream_t stream);

/// The two halves of z = (L L^T)^{-1} b with both triangles color-set solves in SELL:
/// `lower` = strict L over its ranges (first range [0, f) has no strict entries, last
/// range [a, n) no upper ones), `upper` = strict L^T over its own ranges, each with its
/// inverse diagonal (equal values, one copy per triangle). Equal bit for bit to
/// sell_colorset_solve lower (b -> y, `first_scaled`) then upper (y -> z), with passes
/// folded away: `lower` must be first_scaled, so y on the first range, b * dl, is never
/// formed (its columns multiply b), and every row from e = max(f, min(a, start of upper's
/// last range)) on has no entry of L^T (upper's last range depends on nothing), so its
/// forward step writes z = y * du at once. So y holds L^{-1} b only on rows [f, a); the
/// forward half runs lower ranges 1 .. last (or the one range), the backward half the rows
/// of upper ranges before e. y and z must not alias b.
template <typename V>
struct SellTriangle {
  SellView<V> strict;
  const V* inverse_diagonal = nullptr;
  const std::vector<index_t>* range_ptr = nullptr;
  const std::vector<index_t>* range_slice = nullptr;
};
/// With `partials` (not null), each half also writes partial sums of |y|^2, y = L^{-1} b
/// (every row's y once over the two halves, in a fixed order), and returns their count;
/// their sum is (b, z) in exact arithmetic (z = L^{-T} y), so CG's r . z needs no pass
/// of its own. (In float, the lower copy's first-color entries are float(l_ik dl_k)
/// where the upper copy has float(l_ik) and float(dl_k), so the two triangles are a
/// float rounding from transposes and the sum differs from (b, z) by about that much:
/// 3.5e-10 of sum |b_i z_i| on a 27-point grid of 4845 rows, GPU test.) Give backward
/// the slots after forward's; the two counts together stay within
/// sell_llt_dot_capacity. z is the same bit for bit with or without partials; without,
/// both return 0.
int sell_llt_forward(const SellTriangle<double>& lower, const SellTriangle<double>& upper,
                     const double* b, double* y, double* z, double* partials, cudaStream_t stream);
int sell_llt_forward(const SellTriangle<float>& lower, const SellTriangle<float>& upper,
                     const double* b, double* y, double* z, double* partials, cudaStream_t stream);
int sell_llt_backward(const SellTriangle<double>& upper, const SellTriangle<double>& lower,
                      const double* b, const double* y, double* z, double* partials,
                      cudaStream_t stream);
int sell_llt_backward(const SellTriangle<float>& upper, const SellTriangle<float>& lower,
                      const double* b, const double* y, double* z, double* partials,
                      cudaStream_t stream);
/// First row whose backward step sell_llt_forward does, for triangles with these range_ptr.
index_t sell_llt_folded_begin(const std::vector<index_t>& lower_ranges,
                              const std::vector<index_t>& upper_ranges);
/// The most partial sums the two halves write together, for triangles with these range_ptr.
int sell_llt_dot_capacity(const std::vector<index_t>& lower_ranges,
                          const std::vector<index_t>& upper_ranges);

}  // namespace prism::kernels::cuda
