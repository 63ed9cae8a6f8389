#pragma once
/// @file
/// Dense triangular solves, BLAS-like: trsv (op(A) x = b), trsm (op(A) X = alpha B, A on
/// the left) and a batched trsv for many small independent blocks of varied size, the
/// shape the dense diagonal blocks of a supernodal factor have.
///
/// Conventions (as in the reference BLAS):
///  - A is n x n, column-major with leading dimension lda >= max(1, n); only the triangle
///    named by `uplo` is read, and with TriDiag::unit not even its diagonal.
///  - x has unit stride and is overwritten by the solution (in-place, like BLAS);
///    B is column-major with leading dimension ldb and is overwritten by X.
///  - No pivoting and no singularity check: a zero diagonal gives inf/NaN, as in BLAS.
///
/// The reference backend (here) is plain loops, the oracle; the CUDA backend
/// (kernels/cuda/dense_triangular.hpp) follows J. D. Hogg, "A Fast Dense Triangular Solve
/// in CUDA", SIAM J. Sci. Comput. 35(3), 2013, for trsv.

#include <prism/types.hpp>

namespace prism::kernels {

/// Which triangle of A holds the matrix.
enum class TriUplo { lower, upper };
/// Solve with A (none) or with its transpose.
enum class TriOp { none, transpose };
/// Whether the diagonal is read (non_unit) or taken to be all ones (unit).
enum class TriDiag { non_unit, unit };

}  // namespace prism::kernels

namespace prism::kernels::reference {

/// Solves op(A) x = b in place (x holds b on entry): forward substitution for lower/none and
/// upper/transpose, backward substitution otherwise. n == 0 is a no-op.
/// Throws ConfigError on n < 0 or lda < max(1, n).
void trsv(TriUplo uplo, TriOp op, TriDiag diag, index_t n, const double* a, index_t lda, double* x);
/// Single-precision twin (arithmetic in float).
void trsv(TriUplo uplo, TriOp op, TriDiag diag, index_t n, const float* a, index_t lda, float* x);

/// Solves op(A) X = alpha B for X (m x nrhs), overwriting B. Column j of X is
/// trsv(column j of alpha B). Throws ConfigError on negative sizes, lda < max(1, m) or
/// ldb < max(1, m).
void trsm(TriUplo uplo, TriOp op, TriDiag diag, index_t m, index_t nrhs, double alpha,
          const double* a, index_t lda, double* b, index_t ldb);
/// Single-precision twin.
void trsm(TriUplo uplo, TriOp op, TriDiag diag, index_t m, index_t nrhs, float alpha,
          const float* a, index_t lda, float* b, index_t ldb);

/// Solves `batch` independent systems op(A_k) x_k = b_k in place, system k of size n[k]
/// (0 <= n[k] <= 128, 0 allowed) with matrix a[k] (leading dimension lda[k]) and
/// right-hand side / solution x[k]; same uplo, op and diag for all. Host arrays.
void trsv_batched(TriUplo uplo, TriOp op, TriDiag diag, index_t batch, const index_t* n,
                  const double* const* a, const index_t* lda, double* const* x);
/// Single-precision twin.
void trsv_batched(TriUplo uplo, TriOp op, TriDiag diag, index_t batch, const index_t* n,
                  const float* const* a, const index_t* lda, float* const* x);

}  // namespace prism::kernels::reference
