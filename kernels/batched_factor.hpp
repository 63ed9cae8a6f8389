#pragma once
/// @file
/// Batched factorizations of many small dense matrices and the solves with their factors:
///
///  - getrf: LU with partial (row) pivoting, P A = L U, L unit lower, U upper;
///  - potrf: Cholesky A = L L^T of symmetric positive definite matrices (lower triangle);
///  - getrs / potrs: solve A X = B with those factors, one or several right-hand sides.
///
/// Conventions (shared with the CUDA backend, kernels/cuda/batched_factor.hpp, and with
/// LAPACK / cuBLAS so that factors can be exchanged):
///  - Matrices are column-major: entry (i, j) of matrix b at a[b * stride + i + j * lda],
///    lda >= max(1, n). Right-hand sides likewise with ldb, stride_b.
///  - Pivots are 1-based like LAPACK and cublas<t>getrfBatched: for i = 0 .. n-1 in
///    order, row i was interchanged with row ipiv[i] - 1 (>= i). The pivots of matrix b
///    are ipiv[b * n .. b * n + n - 1] (cuBLAS' layout) in the uniform-size routines.
///  - getrf info (one per matrix): 0 on success; k > 0 when U(k-1, k-1) is exactly zero
///    (the first such k). The factorization still completes, as in LAPACK: the pivot
///    column is left unscaled, no NaN or Inf is produced, and getrs must not be called
///    with that matrix (its U is singular).
///  - potrf reads and writes only the lower triangle (LAPACK uplo = 'L'); info 0 on
///    success, k > 0 when the leading minor of order k is not positive definite (pivot
///    <= 0 or NaN). The factorization of that matrix stops there (as LAPACK's does): its
///    columns >= k - 1 are unspecified; the strictly upper triangle is never touched.
///
/// The reference routines here are plain, unblocked loops (LAPACK getf2 / potf2 / getrs /
/// potrs semantics, ties in the pivot search resolved to the first row, like idamax);
/// they are the oracle for the CUDA kernels, which follow Dong, Haidar, Luszczek, Harris,
/// Tomov and Dongarra, "LU Factorization of Small Matrices: Accelerating Batched DGETRF on
/// the GPU", HPCC 2014 (right-looking nb = 32 panels, parallel row swap, recursive panel,
/// trtri + gemm for the row block, multi-level delayed trailing updates).

#include <cstdint>

#include <prism/types.hpp>

namespace prism::kernels::reference {

/// LU with partial pivoting of `batch` n x n matrices stored with stride `stride_a`
/// (>= lda * n) apart. ipiv holds batch * n entries, info batch entries. Throws
/// ConfigError on negative sizes or lda < max(1, n).
void getrf_batched(index_t n, double* a, index_t lda, std::int64_t stride_a, index_t* ipiv,
                   index_t* info, index_t batch);
/// Single-precision twin (arithmetic in float).
void getrf_batched(index_t n, float* a, index_t lda, std::int64_t stride_a, index_t* ipiv,
                   index_t* info, index_t batch);

/// Variable-size LU: matrix b is n[b] x n[b] at a[b] with leading dimension lda[b]; its
/// pivots are ipiv[b * ipiv_stride .. + n[b] - 1] (ipiv_stride >= max n[b]).
void getrf_vbatched(const index_t* n, double* const* a, const index_t* lda, index_t* ipiv,
                    index_t ipiv_stride, index_t* info, index_t batch);
void getrf_vbatched(const index_t* n, float* const* a, const index_t* lda, index_t* ipiv,
                    index_t ipiv_stride, index_t* info, index_t batch);

/// Solves A X = B for each matrix with the factors and pivots from getrf (no transpose).
/// b holds nrhs columns per matrix; overwritten with X.
void getrs_batched(index_t n, index_t nrhs, const double* a, index_t lda, std::int64_t stride_a,
                   const index_t* ipiv, double* b, index_t ldb, std::int64_t stride_b,
                   index_t batch);
void getrs_batched(index_t n, index_t nrhs, const float* a, index_t lda, std::int64_t stride_a,
                   const index_t* ipiv, float* b, index_t ldb, std::int64_t stride_b,
                   index_t batch);

/// Cholesky A = L L^T of the lower triangles; info as in the file comment.
void potrf_batched(index_t n, double* a, index_t lda, std::int64_t stride_a, index_t* info,
                   index_t batch);
void potrf_batched(index_t n, float* a, index_t lda, std::int64_t stride_a, index_t* info,
                   index_t batch);

/// Solves A X = B with the factor L from potrf (L y = b, then L^T x = y).
void potrs_batched(index_t n, index_t nrhs, const double* a, index_t lda, std::int64_t stride_a,
                   double* b, index_t ldb, std::int64_t stride_b, index_t batch);
void potrs_batched(index_t n, index_t nrhs, const float* a, index_t lda, std::int64_t stride_a,
                   float* b, index_t ldb, std::int64_t stride_b, index_t batch);

}  // namespace prism::kernels::reference
