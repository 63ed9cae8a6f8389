#pragma once
// What one rank computes between messages: the vector kernels of the cpu backend on the
// rank's values, and the distributed SpMV (interior rows while the halo travels, then
// the boundary rows).

#include <prism/distributed.hpp>
#include <prism/options.hpp>

#include "distributed/halo.hpp"
#include "distributed/local_rows.hpp"

namespace prism::distributed {

/// The threaded host kernels (every host thread the rank may use) or the reference ones,
/// as SolverConfig::cpu_kernels says.
class LocalOps {
 public:
  explicit LocalOps(CpuKernels kernels);

  double dot(index_t n, const double* x, const double* y) const;
  void axpy(index_t n, double a, const double* x, double* y) const;
  void xpay(index_t n, const double* x, double b, double* y) const;  ///< y = x + b y
  /// x += alpha p; r -= alpha q; returns r . r
  double cg_update(index_t n, double alpha, const double* p, const double* q, double* x,
                   double* r) const;
  void copy(index_t n, const double* x, double* y) const;
  void spmv(const LocalCsr& a, const double* x, double* y) const;

 private:
  int threads_ = 0;  // 0: the reference kernels
};

/// A on the rank's rows, in the rank's order (local_rows.hpp).
class DistributedMatrix {
 public:
  DistributedMatrix() = default;
  DistributedMatrix(LocalSystem system, Halo halo);

  /// y = A x for the owned rows. x holds rows() owned values followed by room for
  /// ghost_count() more, which this fills from the other ranks. Adds its times to `t`.
  void multiply(const LocalOps& ops, double* x, double* y, DistributedPhases& t);

  index_t rows() const { return system_.rows; }
  /// rows() + the ghosts: the length of multiply()'s input.
  index_t extended_rows() const { return system_.rows + halo_.ghost_count(); }
  const LocalSystem& system() const { return system_; }
  const Halo& halo() const { return halo_; }
  LocalSystem& system() { return system_; }

 private:
  LocalSystem system_;
  Halo halo_;
};

}  // namespace prism::distributed
