#include "kernels/blas1.hpp"

namespace prism::kernels::reference {

double dot(index_t n, const double* x, const double* y) {
  double sum = 0.0;
  for (index_t i = 0; i < n; ++i) sum += x[i] * y[i];
  return sum;
}

void axpy(index_t n, double a, const double* x, double* y) {
  for (index_t i = 0; i < n; ++i) y[i] += a * x[i];
}

void xpay(index_t n, const double* x, double b, double* y) {
  for (index_t i = 0; i < n; ++i) y[i] = x[i] + b * y[i];
}

double cg_update(index_t n, double alpha, const double* p, const double* q, double* x, double* r) {
  double rr = 0.0;
  for (index_t i = 0; i < n; ++i) {
    x[i] += alpha * p[i];
    r[i] -= alpha * q[i];
    rr += r[i] * r[i];
  }
  return rr;
}

double cg_residual(index_t n, double alpha, const double* q, double* r) {
  double rr = 0.0;
  for (index_t i = 0; i < n; ++i) {
    r[i] -= alpha * q[i];
    rr += r[i] * r[i];
  }
  return rr;
}

void pointwise_multiply(index_t n, const double* d, const double* x, double* y) {
  for (index_t i = 0; i < n; ++i) y[i] = d[i] * x[i];
}

void copy(index_t n, const double* x, double* y) {
  for (index_t i = 0; i < n; ++i) y[i] = x[i];
}

void gather(index_t n, const index_t* perm, const double* x, double* y) {
  for (index_t i = 0; i < n; ++i) y[i] = x[perm[i]];
}

void scatter(index_t n, const index_t* perm, const double* x, double* y) {
  for (index_t i = 0; i < n; ++i) y[perm[i]] = x[i];
}

}  // namespace prism::kernels::reference
