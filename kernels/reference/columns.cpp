#include "kernels/columns.hpp"

#include "kernels/blas1.hpp"
#include "kernels/cg_scalars.hpp"

#include <cmath>

namespace prism::kernels::reference {
namespace {

bool positive(double v) {
  return v > 0.0 && std::isfinite(v);
}

/// Where column `c` of a block of n rows starts.
inline std::ptrdiff_t at(index_t c, index_t n) {
  return static_cast<std::ptrdiff_t>(c) * n;
}

}  // namespace

void spmm(CsrView<double> a, const index_t* cols, int count, const double* x, double* y) {
  const index_t n = a.rows;
  for (index_t i = 0; i < n; ++i) {
    for (int c = 0; c < count; ++c) {
      const double* xc = x + at(cols[c], n);
      double sum = 0.0;
      for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k)
        sum += a.values[k] * xc[a.col_idx[k]];
      y[at(cols[c], n) + i] = sum;
    }
  }
}

void dot_columns(index_t n, const index_t* cols, int count, const double* x, const double* y,
                 double* s, int slot) {
  for (int c = 0; c < count; ++c) {
    s[cols[c] * kCgScalarCount + slot] = dot(n, x + at(cols[c], n), y + at(cols[c], n));
  }
}

void axpy_columns(index_t n, const index_t* cols, int count, double a, const double* x, double* y) {
  for (int c = 0; c < count; ++c) axpy(n, a, x + at(cols[c], n), y + at(cols[c], n));
}

void copy_columns(index_t n, const index_t* cols, int count, const double* x, double* y) {
  for (int c = 0; c < count; ++c) copy(n, x + at(cols[c], n), y + at(cols[c], n));
}

void pointwise_multiply_columns(index_t n, const index_t* cols, int count, const double* d,
                                const double* x, double* y) {
  for (int c = 0; c < count; ++c) pointwise_multiply(n, d, x + at(cols[c], n), y + at(cols[c], n));
}

void cg_update_columns(index_t n, const index_t* cols, int count, const double* p, const double* q,
                       double* x, double* r, double* s) {
  for (int c = 0; c < count; ++c) {
    double* sc = s + cols[c] * kCgScalarCount;
    const double rz = sc[kCgRz], pq = sc[kCgPq];
    const double alpha = positive(rz) && positive(pq) ? rz / pq : 0.0;
    const std::ptrdiff_t o = at(cols[c], n);
    sc[kCgRr] = cg_update(n, alpha, p + o, q + o, x + o, r + o);
  }
}

void cg_direction_columns(index_t n, const index_t* cols, int count, const double* z, double* p,
                          double* s) {
  for (int c = 0; c < count; ++c) {
    double* sc = s + cols[c] * kCgScalarCount;
    const double beta = positive(sc[kCgRz]) ? sc[kCgRzNew] / sc[kCgRz] : 0.0;
    xpay(n, z + at(cols[c], n), beta, p + at(cols[c], n));
    sc[kCgRz] = sc[kCgRzNew];
  }
}

void colorset_solve_columns(CsrView<double> strict, const double* inverse_diagonal,
                            const index_t* block_ptr, int num_blocks, bool lower,
                            const index_t* cols, int count, const double* b, double* x) {
  const index_t n = strict.rows;
  for (int step = 0; step < num_blocks; ++step) {
    const int block = lower ? step : num_blocks - 1 - step;
    for (index_t i = block_ptr[block]; i < block_ptr[block + 1]; ++i) {
      for (int c = 0; c < count; ++c) {
        const std::ptrdiff_t o = at(cols[c], n);
        double sum = 0.0;
        for (index_t k = strict.row_ptr[i]; k < strict.row_ptr[i + 1]; ++k) {
          sum += strict.values[k] * x[o + strict.col_idx[k]];
        }
        x[o + i] = (b[o + i] - sum) * inverse_diagonal[i];
      }
    }
  }
}

}  // namespace prism::kernels::reference
