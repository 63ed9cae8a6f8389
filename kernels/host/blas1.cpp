#include "kernels/host/team.hpp"

namespace prism::kernels::host {

using detail::for_parts;
using detail::reduce;

bool threads_available() {
#ifdef _OPENMP
  return true;
#else
  return false;
#endif
}

double dot(int threads, index_t n, const double* x, const double* y) {
  return reduce(threads, n, [&](index_t i) { return x[i] * y[i]; });
}

void axpy(int threads, index_t n, double a, const double* x, double* y) {
  for_parts(threads, n, [&](index_t begin, index_t end) {
    for (index_t i = begin; i < end; ++i) y[i] += a * x[i];
  });
}

void xpay(int threads, index_t n, const double* x, double b, double* y) {
  for_parts(threads, n, [&](index_t begin, index_t end) {
    for (index_t i = begin; i < end; ++i) y[i] = x[i] + b * y[i];
  });
}

void axpy_xpay(int threads, index_t n, double a, double b, const double* z, double* p, double* x) {
  for_parts(threads, n, [&](index_t begin, index_t end) {
    for (index_t i = begin; i < end; ++i) {
      x[i] += a * p[i];
      p[i] = z[i] + b * p[i];
    }
  });
}

double cg_update(int threads, index_t n, double alpha, const double* p, const double* q, double* x,
                 double* r) {
  return reduce(threads, n, [&](index_t i) {
    x[i] += alpha * p[i];
    r[i] -= alpha * q[i];
    return r[i] * r[i];
  });
}

double cg_residual(int threads, index_t n, double alpha, const double* q, double* r) {
  return reduce(threads, n, [&](index_t i) {
    r[i] -= alpha * q[i];
    return r[i] * r[i];
  });
}

void pointwise_multiply(int threads, index_t n, const double* d, const double* x, double* y) {
  for_parts(threads, n, [&](index_t begin, index_t end) {
    for (index_t i = begin; i < end; ++i) y[i] = d[i] * x[i];
  });
}

void copy(int threads, index_t n, const double* x, double* y) {
  for_parts(threads, n, [&](index_t begin, index_t end) {
    for (index_t i = begin; i < end; ++i) y[i] = x[i];
  });
}

void fill(int threads, index_t n, double value, double* x) {
  for_parts(threads, n, [&](index_t begin, index_t end) { std::fill(x + begin, x + end, value); });
}

void gather(int threads, index_t n, const index_t* perm, const double* x, double* y) {
  for_parts(threads, n, [&](index_t begin, index_t end) {
    for (index_t i = begin; i < end; ++i) y[i] = x[perm[i]];
  });
}

}  // namespace prism::kernels::host
