#include "distributed/local_operations.hpp"

#include "common/parallel.hpp"
#include "kernels/blas1.hpp"
#include "kernels/host/threaded.hpp"
#include "kernels/spmv.hpp"

#include <chrono>
#include <utility>

namespace prism::distributed {
namespace ref = kernels::reference;
namespace host = kernels::host;

LocalOps::LocalOps(CpuKernels kernels)
    : threads_(kernels == CpuKernels::threaded ? common::host_threads() : 0) {}

double LocalOps::dot(index_t n, const double* x, const double* y) const {
  return threads_ > 0 ? host::dot(threads_, n, x, y) : ref::dot(n, x, y);
}

void LocalOps::axpy(index_t n, double a, const double* x, double* y) const {
  threads_ > 0 ? host::axpy(threads_, n, a, x, y) : ref::axpy(n, a, x, y);
}

void LocalOps::xpay(index_t n, const double* x, double b, double* y) const {
  threads_ > 0 ? host::xpay(threads_, n, x, b, y) : ref::xpay(n, x, b, y);
}

double LocalOps::cg_update(index_t n, double alpha, const double* p, const double* q, double* x,
                           double* r) const {
  return threads_ > 0 ? host::cg_update(threads_, n, alpha, p, q, x, r)
                      : ref::cg_update(n, alpha, p, q, x, r);
}

void LocalOps::copy(index_t n, const double* x, double* y) const {
  threads_ > 0 ? host::copy(threads_, n, x, y) : ref::copy(n, x, y);
}

void LocalOps::spmv(const LocalCsr& a, const double* x, double* y) const {
  if (a.rows == 0) return;
  threads_ > 0 ? host::spmv(threads_, a.view(), x, y) : ref::spmv(a.view(), x, y);
}

DistributedMatrix::DistributedMatrix(LocalSystem system, Halo halo)
    : system_(std::move(system)), halo_(std::move(halo)) {}

void DistributedMatrix::multiply(const LocalOps& ops, double* x, double* y, DistributedPhases& t) {
  using clock = std::chrono::steady_clock;
  const auto seconds = [](clock::time_point a, clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
  };
  const auto t0 = clock::now();
  halo_.begin(x, x + system_.rows);
  const auto t1 = clock::now();
  ops.spmv(system_.interior, x, y);
  const auto t2 = clock::now();
  halo_.finish();
  const auto t3 = clock::now();
  ops.spmv(system_.boundary, x, y + system_.interior_rows);
  const auto t4 = clock::now();
  t.halo += seconds(t0, t1) + seconds(t2, t3);
  t.spmv_interior += seconds(t1, t2);
  t.spmv_boundary += seconds(t3, t4);
}

}  // namespace prism::distributed
