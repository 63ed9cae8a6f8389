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

double gear_update(index_t n, double alpha, double beta, bool first, const double* u,
                   const double* w, double* p, double* s, double* x, double* r) {
  double rr = 0.0;
  for (index_t i = 0; i < n; ++i) {
    p[i] = first ? u[i] : u[i] + beta * p[i];
    s[i] = first ? w[i] : w[i] + beta * s[i];
    x[i] += alpha * p[i];
    r[i] -= alpha * s[i];
    rr += r[i] * r[i];
  }
  return rr;
}

void gear_dots(index_t n, const double* r, const double* u, const double* w, double sums[2]) {
  sums[0] = dot(n, r, u);
  sums[1] = dot(n, w, u);
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
