#pragma once
// Kernels of the multi-column PCG (Solver::solve with `columns`): k right-hand sides
// stored column-major, column j of a block at data + j * n, each operation restricted to
// the `count` columns listed in `cols` (the columns still iterating; converged ones are
// left as they are). Each column's CG scalars sit at s[j * kCgScalarCount + slot]
// (kernels/cg_scalars.hpp), so each column has its own alpha and beta.
//
// Every column is computed exactly as the one-column kernel computes it (kernels/blas1.hpp,
// spmv.hpp, colorset.hpp): the same sums in the same order, so a column's bits are those
// of a one-column solve. What the columns share is read once per row for all of them:
// the matrix in spmm and the factor in colorset_solve_columns (12 B/nnz + 4 B/row once,
// then 8 B/row per column for each vector). The vector kernels have nothing to share
// (each column reads its own vectors): their traffic is the one-column kernel's per column.

#include "kernels/csr_view.hpp"

namespace prism::kernels::reference {

/// Y_j = A X_j for the listed columns (n = a.rows = a.cols).
void spmm(CsrView<double> a, const index_t* cols, int count, const double* x, double* y);

/// s[j][slot] = X_j . Y_j
void dot_columns(index_t n, const index_t* cols, int count, const double* x, const double* y,
                 double* s, int slot);

/// Y_j += a X_j
void axpy_columns(index_t n, const index_t* cols, int count, double a, const double* x, double* y);

/// Y_j = X_j
void copy_columns(index_t n, const index_t* cols, int count, const double* x, double* y);

/// Y_j = d .* X_j (Jacobi: d read once per row for all columns)
void pointwise_multiply_columns(index_t n, const index_t* cols, int count, const double* d,
                                const double* x, double* y);

/// Per column: alpha = s[rz] / s[pq] (0 unless both positive and finite);
/// x += alpha p; r -= alpha q; s[rr] = r . r (reference::cg_update per column)
void cg_update_columns(index_t n, const index_t* cols, int count, const double* p, const double* q,
                       double* x, double* r, double* s);

/// Per column: beta = s[rz_new] / s[rz] (0 unless s[rz] positive and finite);
/// p = z + beta p; s[rz] = s[rz_new]
void cg_direction_columns(index_t n, const index_t* cols, int count, const double* z, double* p,
                          double* s);

/// reference::colorset_solve for each listed column, X_j from B_j (n = strict.rows),
/// every row of the factor read once for all columns. X may alias B.
void colorset_solve_columns(CsrView<double> strict, const double* inverse_diagonal,
                            const index_t* block_ptr, int num_blocks, bool lower,
                            const index_t* cols, int count, const double* b, double* x);

}  // namespace prism::kernels::reference

namespace prism::kernels::host {

// The same on `threads` host threads (kernels/host/threaded.hpp): the rows of spmm and of
// each color-set block in parts, the vector kernels one column after another, each as the
// threaded one-column kernel (its fixed-order sums, so the same bits for any thread count).

void spmm(int threads, CsrView<double> a, const index_t* cols, int count, const double* x,
          double* y);
void dot_columns(int threads, index_t n, const index_t* cols, int count, const double* x,
                 const double* y, double* s, int slot);
void axpy_columns(int threads, index_t n, const index_t* cols, int count, double a, const double* x,
                  double* y);
void copy_columns(int threads, index_t n, const index_t* cols, int count, const double* x,
                  double* y);
void pointwise_multiply_columns(int threads, index_t n, const index_t* cols, int count,
                                const double* d, const double* x, double* y);
void cg_update_columns(int threads, index_t n, const index_t* cols, int count, const double* p,
                       const double* q, double* x, double* r, double* s);
void cg_direction_columns(int threads, index_t n, const index_t* cols, int count, const double* z,
                          double* p, double* s);
void colorset_solve_columns(int threads, CsrView<double> strict, const double* inverse_diagonal,
                            const index_t* block_ptr, int num_blocks, bool lower,
                            const index_t* cols, int count, const double* b, double* x);

}  // namespace prism::kernels::host
