// Reference batched LU / Cholesky and solves: unblocked LAPACK getf2 / potf2 / getrs /
// potrs loops, the oracle for kernels/cuda/batched_factor/.

#include "kernels/batched_factor.hpp"

#include <cmath>
#include <cstddef>
#include <string>
#include <utility>

#include <prism/errors.hpp>

namespace prism::kernels::reference {
namespace {

void check_sizes(const char* who, index_t n, index_t lda, index_t batch) {
  if (n < 0 || batch < 0) throw ConfigError(std::string(who) + ": negative n or batch");
  if (lda < (n > 1 ? n : 1)) {
    throw ConfigError(std::string(who) + ": lda " + std::to_string(lda) +
                      " < max(1, n = " + std::to_string(n) + ")");
  }
}

// One matrix: P A = L U, right-looking, column by column (LAPACK dgetf2).
template <typename T>
index_t getf2(index_t n, T* a, index_t lda, index_t* ipiv) {
  auto at = [&](index_t i, index_t j) -> T& {
    return a[static_cast<std::ptrdiff_t>(i) + static_cast<std::ptrdiff_t>(j) * lda];
  };
  index_t info = 0;
  for (index_t j = 0; j < n; ++j) {
    // Pivot: first row of largest |a(i, j)|, i >= j (idamax).
    index_t p = j;
    T best = std::abs(at(j, j));
    for (index_t i = j + 1; i < n; ++i) {
      if (std::abs(at(i, j)) > best) {
        best = std::abs(at(i, j));
        p = i;
      }
    }
    ipiv[j] = p + 1;
    if (at(p, j) != T(0)) {
      if (p != j) {
        for (index_t k = 0; k < n; ++k) std::swap(at(j, k), at(p, k));
      }
      // l(i, j) = a(i, j) / u(j, j)
      const T pivot = at(j, j);
      for (index_t i = j + 1; i < n; ++i) at(i, j) /= pivot;
    } else if (info == 0) {
      info = j + 1;  // column j is zero from row j on: the update below is a no-op
    }
    // a(i, k) -= l(i, j) u(j, k), i, k > j
    for (index_t k = j + 1; k < n; ++k) {
      const T ujk = at(j, k);
      if (ujk == T(0)) continue;
      for (index_t i = j + 1; i < n; ++i) at(i, k) -= at(i, j) * ujk;
    }
  }
  return info;
}

template <typename T>
void getrf_all(index_t n, T* a, index_t lda, std::int64_t stride_a, index_t* ipiv, index_t* info,
               index_t batch) {
  check_sizes("getrf_batched", n, lda, batch);
  for (index_t b = 0; b < batch; ++b) {
    info[b] = getf2(n, a + b * stride_a, lda, ipiv + static_cast<std::ptrdiff_t>(b) * n);
  }
}

template <typename T>
void getrf_var(const index_t* n, T* const* a, const index_t* lda, index_t* ipiv,
               index_t ipiv_stride, index_t* info, index_t batch) {
  if (batch < 0) throw ConfigError("getrf_vbatched: negative batch");
  for (index_t b = 0; b < batch; ++b) {
    check_sizes("getrf_vbatched", n[b], lda[b], 1);
    if (n[b] > ipiv_stride) throw ConfigError("getrf_vbatched: n[b] > ipiv_stride");
    info[b] = getf2(n[b], a[b], lda[b], ipiv + static_cast<std::ptrdiff_t>(b) * ipiv_stride);
  }
}

template <typename T>
void getrs_all(index_t n, index_t nrhs, const T* a, index_t lda, std::int64_t stride_a,
               const index_t* ipiv, T* b, index_t ldb, std::int64_t stride_b, index_t batch) {
  check_sizes("getrs_batched", n, lda, batch);
  check_sizes("getrs_batched (ldb)", n, ldb, batch);
  if (nrhs < 0) throw ConfigError("getrs_batched: negative nrhs");
  for (index_t m = 0; m < batch; ++m) {
    const T* am = a + m * stride_a;
    const index_t* pm = ipiv + static_cast<std::ptrdiff_t>(m) * n;
    auto A = [&](index_t i, index_t j) {
      return am[static_cast<std::ptrdiff_t>(i) + static_cast<std::ptrdiff_t>(j) * lda];
    };
    for (index_t c = 0; c < nrhs; ++c) {
      T* x = b + m * stride_b + static_cast<std::ptrdiff_t>(c) * ldb;
      for (index_t i = 0; i < n; ++i) std::swap(x[i], x[pm[i] - 1]);  // x = P b
      for (index_t i = 0; i < n; ++i) {                               // L y = P b
        for (index_t k = 0; k < i; ++k) x[i] -= A(i, k) * x[k];
      }
      for (index_t i = n - 1; i >= 0; --i) {  // U x = y
        for (index_t k = i + 1; k < n; ++k) x[i] -= A(i, k) * x[k];
        x[i] /= A(i, i);
      }
    }
  }
}

// One matrix: A = L L^T, left-looking by columns (LAPACK dpotf2, uplo = 'L').
template <typename T>
index_t potf2(index_t n, T* a, index_t lda) {
  auto at = [&](index_t i, index_t j) -> T& {
    return a[static_cast<std::ptrdiff_t>(i) + static_cast<std::ptrdiff_t>(j) * lda];
  };
  for (index_t j = 0; j < n; ++j) {
    // l(j, j) = sqrt(a(j, j) - sum_k l(j, k)^2)
    T ajj = at(j, j);
    for (index_t k = 0; k < j; ++k) ajj -= at(j, k) * at(j, k);
    if (!(ajj > T(0))) {
      at(j, j) = ajj;
      return j + 1;
    }
    ajj = std::sqrt(ajj);
    at(j, j) = ajj;
    // l(i, j) = (a(i, j) - sum_k l(i, k) l(j, k)) / l(j, j)
    for (index_t i = j + 1; i < n; ++i) {
      T s = at(i, j);
      for (index_t k = 0; k < j; ++k) s -= at(i, k) * at(j, k);
      at(i, j) = s / ajj;
    }
  }
  return 0;
}

template <typename T>
void potrf_all(index_t n, T* a, index_t lda, std::int64_t stride_a, index_t* info, index_t batch) {
  check_sizes("potrf_batched", n, lda, batch);
  for (index_t b = 0; b < batch; ++b) info[b] = potf2(n, a + b * stride_a, lda);
}

template <typename T>
void potrs_all(index_t n, index_t nrhs, const T* a, index_t lda, std::int64_t stride_a, T* b,
               index_t ldb, std::int64_t stride_b, index_t batch) {
  check_sizes("potrs_batched", n, lda, batch);
  check_sizes("potrs_batched (ldb)", n, ldb, batch);
  if (nrhs < 0) throw ConfigError("potrs_batched: negative nrhs");
  for (index_t m = 0; m < batch; ++m) {
    const T* am = a + m * stride_a;
    auto L = [&](index_t i, index_t j) {
      return am[static_cast<std::ptrdiff_t>(i) + static_cast<std::ptrdiff_t>(j) * lda];
    };
    for (index_t c = 0; c < nrhs; ++c) {
      T* x = b + m * stride_b + static_cast<std::ptrdiff_t>(c) * ldb;
      for (index_t i = 0; i < n; ++i) {  // L y = b
        for (index_t k = 0; k < i; ++k) x[i] -= L(i, k) * x[k];
        x[i] /= L(i, i);
      }
      for (index_t i = n - 1; i >= 0; --i) {  // L^T x = y
        for (index_t k = i + 1; k < n; ++k) x[i] -= L(k, i) * x[k];
        x[i] /= L(i, i);
      }
    }
  }
}

}  // namespace

void getrf_batched(index_t n, double* a, index_t lda, std::int64_t stride_a, index_t* ipiv,
                   index_t* info, index_t batch) {
  getrf_all(n, a, lda, stride_a, ipiv, info, batch);
}
void getrf_batched(index_t n, float* a, index_t lda, std::int64_t stride_a, index_t* ipiv,
                   index_t* info, index_t batch) {
  getrf_all(n, a, lda, stride_a, ipiv, info, batch);
}

void getrf_vbatched(const index_t* n, double* const* a, const index_t* lda, index_t* ipiv,
                    index_t ipiv_stride, index_t* info, index_t batch) {
  getrf_var(n, a, lda, ipiv, ipiv_stride, info, batch);
}
void getrf_vbatched(const index_t* n, float* const* a, const index_t* lda, index_t* ipiv,
                    index_t ipiv_stride, index_t* info, index_t batch) {
  getrf_var(n, a, lda, ipiv, ipiv_stride, info, batch);
}

void getrs_batched(index_t n, index_t nrhs, const double* a, index_t lda, std::int64_t stride_a,
                   const index_t* ipiv, double* b, index_t ldb, std::int64_t stride_b,
                   index_t batch) {
  getrs_all(n, nrhs, a, lda, stride_a, ipiv, b, ldb, stride_b, batch);
}
void getrs_batched(index_t n, index_t nrhs, const float* a, index_t lda, std::int64_t stride_a,
                   const index_t* ipiv, float* b, index_t ldb, std::int64_t stride_b,
                   index_t batch) {
  getrs_all(n, nrhs, a, lda, stride_a, ipiv, b, ldb, stride_b, batch);
}

void potrf_batched(index_t n, double* a, index_t lda, std::int64_t stride_a, index_t* info,
                   index_t batch) {
  potrf_all(n, a, lda, stride_a, info, batch);
}
void potrf_batched(index_t n, float* a, index_t lda, std::int64_t stride_a, index_t* info,
                   index_t batch) {
  potrf_all(n, a, lda, stride_a, info, batch);
}

void potrs_batched(index_t n, index_t nrhs, const double* a, index_t lda, std::int64_t stride_a,
                   double* b, index_t ldb, std::int64_t stride_b, index_t batch) {
  potrs_all(n, nrhs, a, lda, stride_a, b, ldb, stride_b, batch);
}
void potrs_batched(index_t n, index_t nrhs, const float* a, index_t lda, std::int64_t stride_a,
                   float* b, index_t ldb, std::int64_t stride_b, index_t batch) {
  potrs_all(n, nrhs, a, lda, stride_a, b, ldb, stride_b, batch);
}

}  // namespace prism::kernels::reference
