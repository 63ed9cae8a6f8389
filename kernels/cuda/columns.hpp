#pragma once
// The multi-column kernels of kernels/columns.hpp on the device, all asynchronous on
// `stream`. `cols` (the listed columns) and `s` (the columns' CG scalars,
// s[j * kCgScalarCount + slot]) are device arrays; `count` is the number of listed columns.
// The vector kernels run every listed column in one launch (grid y = column) with the
// one-column kernel's grid and sums (kernels/cuda/blas1.cu): each column's dot products
// are those of blas1's dot, bit for bit. spmm and the color-set solves read each row of
// the matrix or factor once for up to kColumnGroup columns, one thread a row; their sums
// run in entry order (SELL: as sell_spmv and sell_colorset_solve sum, so the same bits;
// CSR: the one-column kernels split a row over several threads, so equal to rounding).
//
// A negative entry of `cols` masks that listed column: every kernel here leaves it out
// (its vectors and scalars untouched) and computes the others as it would without it, so a
// graph recorded on a list goes on with fewer columns when the list's entries change.

#include "kernels/csr_view.hpp"
#include "kernels/cuda/colorset.hpp"
#include "kernels/cuda/sell.hpp"

#include <cuda_runtime.h>

#include <vector>

namespace prism::kernels::cuda {

/// Columns one thread sums together over a row (registers); more columns take more passes.
inline constexpr int kColumnGroup = 8;

/// Doubles of the `partials` workspace the reductions below need for `count` columns.
std::size_t column_partials_size(int count);

/// Y_j = A X_j (n = a.rows), the matrix in CSR.
void spmm(CsrView<double> a, const index_t* cols, int count, const double* x, double* y,
          cudaStream_t stream);
/// The same with A in SELL-32 (one range, rows [0, rows)).
void sell_spmm(index_t rows, SellView<double> a, const index_t* cols, int count, const double* x,
               double* y, cudaStream_t stream);
/// sell_spmm and s[j][slot] = X_j . Y_j in one pass over the matrix and X (CG's q = A p and
/// p . q): per column the y and the dot of sell_spmv_dot then its partials' sum (its grid,
/// its sums), so the same bits as the one-column fused pass; `partials` as dot_columns'.
void sell_spmm_dot(index_t rows, SellView<double> a, const index_t* cols, int count,
                   const double* x, double* y, double* partials, double* s, int slot,
                   cudaStream_t stream);

/// s[j][slot] = X_j . Y_j
void dot_columns(index_t n, const index_t* cols, int count, const double* x, const double* y,
                 double* partials, double* s, int slot, cudaStream_t stream);
/// Y_j += a X_j
void axpy_columns(index_t n, const index_t* cols, int count, double a, const double* x, double* y,
                  cudaStream_t stream);
/// Y_j = X_j
void copy_columns(index_t n, const index_t* cols, int count, const double* x, double* y,
                  cudaStream_t stream);
/// Y_j = d .* X_j
void pointwise_multiply_columns(index_t n, const index_t* cols, int count, const double* d,
                                const double* x, double* y, cudaStream_t stream);
/// pointwise_multiply_columns and s[j][slot] = X_j . Y_j in one pass (Jacobi's z = d .* r
/// and r . z): the same bits as the two calls (dot_columns' grid and sums).
void pointwise_multiply_dot_columns(index_t n, const index_t* cols, int count, const double* d,
                                    const double* x, double* y, double* partials, double* s,
                                    int slot, cudaStream_t stream);
/// Per column: alpha = s[rz] / s[pq] (0 unless both positive and finite); x += alpha p;
/// r -= alpha q; s[rr] = r . r
void cg_update_columns(index_t n, const index_t* cols, int count, const double* p, const double* q,
                       double* x, double* r, double* partials, double* s, cudaStream_t stream);
/// Per column: beta = s[rz_new] / s[rz] (0 unless s[rz] positive and finite);
/// p = z + beta p; s[rz] = s[rz_new]
void cg_direction_columns(index_t n, const index_t* cols, int count, const double* z, double* p,
                          double* s, cudaStream_t stream);

// x lagging one step (the multi-column device loop): s[j][alpha] holds the alpha p_j that
// x_j owes, NaN where it owes nothing. Each column's x, r and p get the sums of
// cg_update_columns and cg_direction_columns, only x's at a later pass.
/// cg_update_columns without x: r -= alpha q; s[rr] = r . r; s[alpha] = alpha (owed).
void cg_residual_columns(index_t n, const index_t* cols, int count, const double* q, double* r,
                         double* partials, double* s, cudaStream_t stream);
/// x += s[alpha] p where owed, on the same read of p as cg_direction_columns' p = z + beta p;
/// s[rz] = s[rz_new]; x owes nothing after.
void cg_direction_x_columns(index_t n, const index_t* cols, int count, const double* z, double* p,
                            double* x, double* s, cudaStream_t stream);
/// x += s[alpha] p where owed; x owes nothing after.
void cg_finish_columns(index_t n, const index_t* cols, int count, const double* p, double* x,
                       double* s, cudaStream_t stream);
/// s[j][alpha] = NaN: x owes nothing.
void owe_nothing_columns(const index_t* cols, int count, double* s, cudaStream_t stream);

/// colorset_solve (kernels/cuda/colorset.hpp) of each listed column, the strict triangle in
/// CSR, one launch per step of `plan` (its row ranges; the threads per row are not used),
/// one thread per row. X may alias B.
void colorset_solve_columns(CsrView<double> strict, const double* inverse_diagonal,
                            const ColorsetPlan& plan, bool lower, const index_t* cols, int count,
                            const double* b, double* x, cudaStream_t stream);
void colorset_solve_columns(CsrView<float> strict, const float* inverse_diagonal,
                            const ColorsetPlan& plan, bool lower, const index_t* cols, int count,
                            const double* b, double* x, cudaStream_t stream);

/// sell_colorset_solve (kernels/cuda/sell.hpp, first_scaled included) of each listed column.
void sell_colorset_solve_columns(SellView<double> strict, const double* inverse_diagonal,
                                 const std::vector<index_t>& range_ptr,
                                 const std::vector<index_t>& range_slice, bool lower,
                                 bool first_scaled, const index_t* cols, int count, const double* b,
                                 double* x, cudaStream_t stream);
void sell_colorset_solve_columns(SellView<float> strict, const float* inverse_diagonal,
                                 const std::vector<index_t>& range_ptr,
                                 const std::vector<index_t>& range_slice, bool lower,
                                 bool first_scaled, const index_t* cols, int count, const double* b,
                                 double* x, cudaStream_t stream);

/// s[cols[c]][slot] = the sum of partials[c * stride + i], i < blocks, for c < count (in
/// blas1's finish_sum order).
void finish_column_partials(const index_t* cols, int count, const double* partials, int blocks,
                            int stride, double* s, int slot, cudaStream_t stream);

/// sell_llt_forward and sell_llt_backward (kernels/cuda/sell.hpp) for the listed columns of
/// blocks of lower.range_ptr->back() rows: the same launches, grids and sums per column (so
/// each column's y and z are theirs, bit for bit), every row of the factor read once for up
/// to kColumnGroup columns. With `partials` (not null) each launch writes its blocks' parts
/// of |y_j|^2 at partials[c * stride + i] for listed column c, i from the count the halves
/// wrote before (give backward's the offset forward returned); both halves together write
/// at most sell_llt_dot_capacity of them, the stride to give; returns the count written
/// (finish with finish_column_partials: (b_j, z_j) as |L^{-1} b_j|^2).
int sell_llt_forward_columns(const SellTriangle<double>& lower, const SellTriangle<double>& upper,
                             const index_t* cols, int count, const double* b, double* y, double* z,
                             double* partials, int stride, cudaStream_t stream);
int sell_llt_forward_columns(const SellTriangle<float>& lower, const SellTriangle<float>& upper,
                             const index_t* cols, int count, const double* b, double* y, double* z,
                             double* partials, int stride, cudaStream_t stream);
int sell_llt_backward_columns(const SellTriangle<double>& upper, const SellTriangle<double>& lower,
                              const index_t* cols, int count, const double* b, const double* y,
                              double* z, double* partials, int stride, cudaStream_t stream);
int sell_llt_backward_columns(const SellTriangle<float>& upper, const SellTriangle<float>& lower,
                              const index_t* cols, int count, const double* b, const double* y,
                              double* z, double* partials, int stride, cudaStream_t stream);

}  // namespace prism::kernels::cuda
