#pragma once
// The backend interface: the few operations the PCG loop and the preconditioners
// need, implemented once per backend (cpu: kernels/reference; cuda: kernels/cuda).
// Handles are opaque; a backend only accepts handles it created.

#include <prism/csr_matrix.hpp>
#include <prism/options.hpp>
#include <prism/report.hpp>

#include <memory>
#include <string>
#include <vector>

namespace prism::backend {

/// A vector living in the backend's memory.
class Vector {
 public:
  virtual ~Vector() = default;
  virtual index_t size() const = 0;
};

/// A CSR matrix living in the backend's memory.
class Matrix {
 public:
  virtual ~Matrix() = default;
  virtual index_t rows() const = 0;
  virtual index_t nnz() const = 0;
  /// Replaces the values, same pattern (refactor).
  virtual void update_values(const std::vector<double>& values) = 0;
};

/// Times the phases of each iteration. A backend may record asynchronously (events)
/// and resolve the times only in per_iteration(), so timing adds no host round trip.
class PhaseTimer {
 public:
  virtual ~PhaseTimer() = default;
  virtual void begin(Phase phase) = 0;
  virtual void end(Phase phase) = 0;
  /// Closes the current iteration's record.
  virtual void next_iteration() = 0;
  /// Times of every closed iteration; also resets the timer.
  virtual std::vector<PhaseArray> per_iteration() = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;

  virtual std::unique_ptr<Vector> make_vector(index_t n) = 0;
  virtual std::unique_ptr<Matrix> make_matrix(const CsrMatrix<double>& a) = 0;
  virtual void copy_from_host(const std::vector<double>& src, Vector& dst) = 0;
  virtual void copy_to_host(const Vector& src, std::vector<double>& dst) = 0;

  /// y = A x
  virtual void spmv(const Matrix& a, const Vector& x, Vector& y) = 0;
  /// x . y
  virtual double dot(const Vector& x, const Vector& y) = 0;
  /// y += a x
  virtual void axpy(double a, const Vector& x, Vector& y) = 0;
  /// y = x + b y
  virtual void xpay(const Vector& x, double b, Vector& y) = 0;
  /// x += alpha p; r -= alpha q; returns r . r
  virtual double cg_update(double alpha, const Vector& p, const Vector& q, Vector& x,
                           Vector& r) = 0;
  /// y = x
  virtual void copy(const Vector& x, Vector& y) = 0;
  /// y = d .* x
  virtual void pointwise_multiply(const Vector& d, const Vector& x, Vector& y) = 0;
  /// Solves L x = b, L lower triangular with the diagonal last in each row.
  virtual void lower_solve(const Matrix& l, const Vector& b, Vector& x) = 0;
  /// Solves U x = b, U upper triangular with the diagonal first in each row.
  virtual void upper_solve(const Matrix& u, const Vector& b, Vector& x) = 0;

  virtual PhaseTimer& timer() = 0;
};

/// Creates the backend for a kind; `automatic` resolves to cuda when a device is
/// usable, else cpu. Throws BackendError for `cuda` when no CUDA backend is usable.
std::unique_ptr<Backend> make_backend(BackendKind kind);

}  // namespace prism::backend
