#include "kernels/dense_triangular.hpp"

#include <algorithm>
#include <cstddef>
#include <string>

#include <prism/errors.hpp>

namespace prism::kernels::reference {
namespace {

void check_dims(const char* who, index_t n, index_t lda) {
  if (n < 0) throw ConfigError(std::string(who) + ": negative size n = " + std::to_string(n));
  if (lda < std::max<index_t>(1, n)) {
    throw ConfigError(std::string(who) + ": leading dimension " + std::to_string(lda) +
                      " < max(1, n = " + std::to_string(n) + ")");
  }
}

// Straight from the definitions, one case at a time (no index tricks shared with the
// CUDA code, so the oracle stays independent of it). a(i, j) = a[i + j * lda].
template <typename T>
void trsv_impl(TriUplo uplo, TriOp op, TriDiag diag, index_t n, const T* a, index_t lda, T* x) {
  check_dims("trsv", n, lda);
  const std::ptrdiff_t ld = lda;
  auto at = [&](index_t i, index_t j) { return a[i + j * ld]; };
  const bool unit = diag == TriDiag::unit;
  const bool forward = (uplo == TriUplo::lower) == (op == TriOp::none);
  if (forward) {
    for (index_t i = 0; i < n; ++i) {
      T s = x[i];
      for (index_t k = 0; k < i; ++k) {
        // lower/none: row i of A; upper/transpose: column i of A.
        s -= (op == TriOp::none ? at(i, k) : at(k, i)) * x[k];
      }
      x[i] = unit ? s : s / at(i, i);
    }
  } else {
    for (index_t i = n - 1; i >= 0; --i) {
      T s = x[i];
      for (index_t k = i + 1; k < n; ++k) {
        // upper/none: row i of A; lower/transpose: column i of A.
        s -= (op == TriOp::none ? at(i, k) : at(k, i)) * x[k];
      }
      x[i] = unit ? s : s / at(i, i);
    }
  }
}

template <typename T>
void trsm_impl(TriUplo uplo, TriOp op, TriDiag diag, index_t m, index_t nrhs, T alpha, const T* a,
               index_t lda, T* b, index_t ldb) {
  check_dims("trsm", m, lda);
  if (nrhs < 0) throw ConfigError("trsm: negative nrhs = " + std::to_string(nrhs));
  if (ldb < std::max<index_t>(1, m)) {
    throw ConfigError("trsm: ldb = " + std::to_string(ldb) + " < max(1, m = " + std::to_string(m) +
                      ")");
  }
  for (index_t j = 0; j < nrhs; ++j) {
    T* col = b + static_cast<std::ptrdiff_t>(j) * ldb;
    for (index_t i = 0; i < m; ++i) col[i] *= alpha;
    trsv_impl(uplo, op, diag, m, a, lda, col);
  }
}

template <typename T>
void batched_impl(TriUplo uplo, TriOp op, TriDiag diag, index_t batch, const index_t* n,
                  const T* const* a, const index_t* lda, T* const* x) {
  if (batch < 0) throw ConfigError("trsv_batched: negative batch = " + std::to_string(batch));
  for (index_t k = 0; k < batch; ++k) {
    if (n[k] > 128) {
      throw ConfigError("trsv_batched: system " + std::to_string(k) +
                        " has n = " + std::to_string(n[k]) + " > 128");
    }
    trsv_impl(uplo, op, diag, n[k], a[k], lda[k], x[k]);
  }
}

}  // namespace

void trsv(TriUplo uplo, TriOp op, TriDiag diag, index_t n, const double* a, index_t lda,
          double* x) {
  trsv_impl(uplo, op, diag, n, a, lda, x);
}
void trsv(TriUplo uplo, TriOp op, TriDiag diag, index_t n, const float* a, index_t lda, float* x) {
  trsv_impl(uplo, op, diag, n, a, lda, x);
}
void trsm(TriUplo uplo, TriOp op, TriDiag diag, index_t m, index_t nrhs, double alpha,
          const double* a, index_t lda, double* b, index_t ldb) {
  trsm_impl(uplo, op, diag, m, nrhs, alpha, a, lda, b, ldb);
}
void trsm(TriUplo uplo, TriOp op, TriDiag diag, index_t m, index_t nrhs, float alpha,
          const float* a, index_t lda, float* b, index_t ldb) {
  trsm_impl(uplo, op, diag, m, nrhs, alpha, a, lda, b, ldb);
}
void trsv_batched(TriUplo uplo, TriOp op, TriDiag diag, index_t batch, const index_t* n,
                  const double* const* a, const index_t* lda, double* const* x) {
  batched_impl(uplo, op, diag, batch, n, a, lda, x);
}
void trsv_batched(TriUplo uplo, TriOp op, TriDiag diag, index_t batch, const index_t* n,
                  const float* const* a, const index_t* lda, float* const* x) {
  batched_impl(uplo, op, diag, batch, n, a, lda, x);
}

}  // namespace prism::kernels::reference
