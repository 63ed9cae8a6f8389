#include "solver/pcg.hpp"

#include <prism/errors.hpp>

#include <chrono>
#include <cmath>

namespace prism::solver {
namespace {

// Modeled bytes of the non-preconditioner operations, doubles and 32-bit indices:
// SpMV reads values and columns (12 B/nnz), row pointers (4 B/row), x once, writes y.
double spmv_bytes(const backend::Matrix& a) {
  return 12.0 * a.nnz() + 4.0 * (a.rows() + 1) + 16.0 * a.rows();
}

}  // namespace

// Per iteration: q = A p; alpha = (r,z)/(p,q); x += alpha p; r -= alpha q;
// z = M^{-1} r; beta = (r,z)_new/(r,z); p = z + beta p.
// Memory traffic per iteration, n rows: SpMV 12 nnz + 20 n, two dots 32 n,
// fused update 48 n, p update 24 n, plus the preconditioner's own.
PcgResult pcg(backend::Backend& backend, const backend::Matrix& a,
              precond::Preconditioner& preconditioner, const backend::Vector& b, backend::Vector& x,
              const SolverOptions& options) {
  if (!(options.tolerance > 0.0) || !std::isfinite(options.tolerance)) {
    throw ConfigError("solver: tolerance must be positive");
  }
  if (options.max_iterations < 0) throw ConfigError("solver: max_iterations must be >= 0");

  const auto start = std::chrono::steady_clock::now();
  const index_t n = a.rows();
  auto r = backend.make_vector(n);
  auto z = backend.make_vector(n);
  auto p = backend.make_vector(n);
  auto q = backend.make_vector(n);
  backend::PhaseTimer& timer = backend.timer();
  timer.per_iteration();  // drop anything recorded before this solve

  PcgResult result;
  const double n_d = static_cast<double>(n);
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };

  // r = b - A x
  backend.spmv(a, x, *q);
  backend.copy(b, *r);
  backend.axpy(-1.0, *q, *r);
  result.rhs_norm = std::sqrt(backend.dot(b, b));
  double rr = backend.dot(*r, *r);
  result.initial_residual_norm = result.residual_norm = std::sqrt(rr);
  const double scale = result.rhs_norm > 0.0 ? result.rhs_norm : 1.0;
  result.history.push_back({0, result.residual_norm, result.residual_norm / scale, {}});

  if (result.rhs_norm == 0.0) {
    // b = 0 has the solution x = 0 exactly.
    backend.copy(b, x);
    result.residual_norm = 0.0;
    result.status = SolveStatus::converged;
    result.history.back() = {0, 0.0, 0.0, {}};
    result.seconds = elapsed();
    return result;
  }
  const double target = options.tolerance * result.rhs_norm;
  if (result.residual_norm <= target) {
    result.status = SolveStatus::converged;
    result.seconds = elapsed();
    return result;
  }

  preconditioner.apply(*r, *z);
  backend.copy(*z, *p);
  double rz = backend.dot(*r, *z);
  if (!(rz > 0.0) || !std::isfinite(rz)) {
    result.status = SolveStatus::breakdown;
    result.seconds = elapsed();
    return result;
  }

  auto& bytes = result.phase_bytes;
  auto add = [&bytes](Phase phase, double b) { bytes[static_cast<int>(phase)] += b; };
  for (int k = 1; k <= options.max_iterations; ++k) {
    timer.begin(Phase::spmv);
    backend.spmv(a, *p, *q);  // q = A p
    timer.end(Phase::spmv);
    add(Phase::spmv, spmv_bytes(a));

    timer.begin(Phase::dot);
    const double pq = backend.dot(*p, *q);
    timer.end(Phase::dot);
    add(Phase::dot, 16.0 * n_d);
    if (!(pq > 0.0) || !std::isfinite(pq)) {
      // A is not positive definite along p (or the values overflowed).
      timer.next_iteration();
      result.status = SolveStatus::breakdown;
      break;
    }
    const double alpha = rz / pq;

    timer.begin(Phase::update);
    rr = backend.cg_update(alpha, *p, *q, x, *r);  // x += alpha p; r -= alpha q
    timer.end(Phase::update);
    add(Phase::update, 48.0 * n_d);

    result.iterations = k;
    result.residual_norm = std::sqrt(rr);
    result.history.push_back({k, result.residual_norm, result.residual_norm / scale, {}});
    if (!std::isfinite(rr)) {
      timer.next_iteration();
      result.status = SolveStatus::breakdown;
      break;
    }
    if (result.residual_norm <= target) {
      timer.next_iteration();
      result.status = SolveStatus::converged;
      break;
    }

    timer.begin(Phase::precond);
    preconditioner.apply(*r, *z);  // z = M^{-1} r
    timer.end(Phase::precond);
    add(Phase::precond, preconditioner.bytes_per_apply());

    timer.begin(Phase::dot);
    const double rz_new = backend.dot(*r, *z);
    timer.end(Phase::dot);
    add(Phase::dot, 16.0 * n_d);
    if (!(rz_new > 0.0) || !std::isfinite(rz_new)) {
      // The preconditioner is not positive definite.
      timer.next_iteration();
      result.status = SolveStatus::breakdown;
      break;
    }

    timer.begin(Phase::update);
    backend.xpay(*z, rz_new / rz, *p);  // p = z + beta p
    timer.end(Phase::update);
    add(Phase::update, 24.0 * n_d);
    rz = rz_new;
    timer.next_iteration();
  }

  const std::vector<PhaseArray> times = timer.per_iteration();
  for (std::size_t i = 0; i < times.size() && i + 1 < result.history.size(); ++i) {
    result.history[i + 1].seconds = times[i];
  }
  result.seconds = elapsed();
  return result;
}

}  // namespace prism::solver
