#include "solver/pcg.hpp"

#include "solver/cg_steps.hpp"
#include "solver/pcg_iterations.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

namespace prism::solver {

using backend::Scalar;

namespace {

double scalar(const backend::ScalarValues& s, Scalar which) {
  return s[static_cast<int>(which)];
}

/// Queues r = b - A x (q holds A x) and rr = (r, r).
void queue_residual(backend::Backend& backend, const backend::Matrix& a, const backend::Vector& b,
                    const backend::Vector& x, CgVectors& v) {
  backend.spmv(a, x, *v.q);
  backend.copy(b, *v.r);
  backend.axpy(-1.0, *v.q, *v.r);
  backend.dot(*v.r, *v.r, Scalar::rr);
}

/// r = b - A x; returns ||r||.
double replace_residual(backend::Backend& backend, const backend::Matrix& a,
                        const backend::Vector& b, const backend::Vector& x, CgVectors& v) {
  queue_residual(backend, a, b, x, v);
  return std::sqrt(scalar(backend.read_scalars(), Scalar::rr));
}

template <typename... Args>
std::string format(const char* pattern, Args... args) {
  char text[320];
  std::snprintf(text, sizeof text, pattern, args...);
  return text;
}

}  // namespace

std::string diagnose(const StopFacts& f) {
  switch (f.status) {
    case SolveStatus::converged:
      return "";
    case SolveStatus::max_iterations:
      return format("the iteration limit was reached at relative residual %.3e (%d iterations)",
                    f.residual_norm / f.rhs_norm, f.iterations);
    case SolveStatus::stagnated:
      return format(
          "the true relative residual ||b - A x|| / ||b|| = %.3e stays above the tolerance "
          "%.1e after %d restarts from it (iteration %d): A looks singular, or too "
          "ill-conditioned for this tolerance",
          f.true_residual_norm / f.rhs_norm, f.tolerance, f.residual_replacements, f.iterations);
    case SolveStatus::stopped:
      return format("stopped by the monitor at iteration %d, relative residual %.3e", f.iterations,
                    f.residual_norm / f.rhs_norm);
    case SolveStatus::breakdown:
      break;
  }
  if (f.overflowed || !std::isfinite(f.residual_norm)) {
    return format(
        "a residual norm overflowed (%g) at iteration %d: the values of A, b or x "
        "are too large, or A is singular",
        f.residual_norm, f.iterations);
  }
  if (!(f.pq > 0.0) || !std::isfinite(f.pq)) {
    return format("p'Ap = %.3e <= 0 at iteration %d: A looks singular or indefinite", f.pq,
                  f.iterations);
  }
  return format(
      "(r, M^-1 r) = %.3e at iteration %d: the preconditioner is not positive "
      "definite (A looks singular or indefinite)",
      f.rz, f.iterations);
}

std::string diagnose(const PcgResult& r, const backend::ScalarValues& s,
                     const SolverOptions& options) {
  StopFacts f;
  f.status = r.status;
  f.iterations = r.iterations;
  f.residual_norm = r.residual_norm;
  f.rhs_norm = r.rhs_norm;
  f.true_residual_norm = r.true_residual_norm;
  f.residual_replacements = r.residual_replacements;
  f.tolerance = options.tolerance;
  f.overflowed = r.iterations == 0;  // a breakdown before any iteration: b or x overflowed
  f.pq = scalar(s, Scalar::pq);
  f.rz = scalar(s, Scalar::rz);
  return diagnose(f);
}

// Preconditioned conjugate gradients with the CG scalars kept in the backend, so that an
// iteration needs no host round trip (CgSteps has the steps and their memory traffic):
//   r_0 = b - A x_0;  z_0 = M^{-1} r_0;  p_1 = z_0
//   for k = 1, 2, ...
//     q = A p_k;  alpha = (r, z) / (p, q);  x += alpha p_k;  r -= alpha q      first half
//     stop when ||r_k|| <= tolerance ||b|| (or on breakdown, or at the limit)    check
//     z = M^{-1} r_k;  beta = (r_k, z_k) / (r_{k-1}, z_{k-1});  p = z + beta p   second half
// The recursive r_k drifts from b - A x_k in floating point, and on a singular A it
// goes on shrinking while x grows without bound; so a converged recursion is confirmed
// with the true residual, and where that misses the tolerance CG starts again from it
// (residual replacement), at most kMaxResidualReplacements times.
PcgResult pcg(backend::Backend& backend, const backend::Matrix& a,
              precond::Preconditioner& preconditioner, const backend::Vector& b, backend::Vector& x,
              const SolverOptions& options, RunMode mode,
              const std::function<bool(const IterationRecord&)>* monitor) {
  const auto start = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  CgVectors v(backend, a.rows());
  backend::PhaseTimer& timer = backend.timer();
  timer.set_enabled(options.timing == TimingMode::phases);
  timer.per_iteration();  // drop anything recorded before this solve
  PcgResult result;
  result.mode = mode;

  // ||b|| and ||b - A x_0||, read back together.
  backend.dot(b, b, Scalar::rz);
  queue_residual(backend, a, b, x, v);
  const backend::ScalarValues initial = backend.read_scalars();
  result.rhs_norm = std::sqrt(scalar(initial, Scalar::rz));
  result.initial_residual_norm = result.residual_norm = result.true_residual_norm =
      std::sqrt(scalar(initial, Scalar::rr));
  const double scale = result.rhs_norm > 0.0 ? result.rhs_norm : 1.0;
  result.history.push_back({0, result.residual_norm, result.residual_norm / scale, {}});

  const double target = std::max(options.tolerance * result.rhs_norm, options.absolute_tolerance);
  if (result.rhs_norm == 0.0) {
    backend.copy(b, x);  // b = 0 has the solution x = 0 exactly
    result.residual_norm = result.true_residual_norm = 0.0;
    result.history.back() = {0, 0.0, 0.0, {}};
    result.status = SolveStatus::converged;
  } else if (!std::isfinite(result.residual_norm) || !std::isfinite(result.rhs_norm)) {
    result.status = SolveStatus::breakdown;
    result.diagnosis = diagnose(result, backend.read_scalars(), options);
  } else if (result.residual_norm <= target) {
    result.status = SolveStatus::converged;
  }
  if (monitor != nullptr && !(*monitor)(result.history.back()) &&
      result.status == SolveStatus::max_iterations) {
    result.status = SolveStatus::stopped;
    result.diagnosis = diagnose(result, backend.read_scalars(), options);
  }
  if (result.status != SolveStatus::max_iterations) {
    result.seconds = elapsed();
    return result;
  }

  const bool fused_steps = options.timing == TimingMode::total;
  CgSteps steps(backend, a, preconditioner, v, x, fused_steps);
  std::vector<int> recorded;
  bool verified = false;  // true_residual_norm is that of the returned x
  for (;;) {
    // z = M^{-1} r;  p = z;  rz = (r, z) (the fused steps take it in rz_new)
    preconditioner.apply(*v.r, *v.z);
    backend.copy(*v.z, *v.p);
    backend.dot(*v.r, *v.z, fused_steps ? Scalar::rz_new : Scalar::rz);
    const int before = result.iterations;
    const std::vector<int> cycle =
        run_iterations(mode, steps, {backend, options, target, scale, monitor}, before, result);
    recorded.insert(recorded.end(), cycle.begin(), cycle.end());
    if (result.iterations > before) {
      steps.finish();
      timer.next_iteration();
      recorded.push_back(result.iterations);
    }
    if (result.status != SolveStatus::converged) break;
    result.true_residual_norm = replace_residual(backend, a, b, x, v);
    verified = true;
    if (result.true_residual_norm <= target) break;
    if (result.residual_replacements == kMaxResidualReplacements ||
        result.iterations >= options.max_iterations) {
      result.status = SolveStatus::stagnated;
      break;
    }
    ++result.residual_replacements;
    result.residual_norm = result.true_residual_norm;
    result.status = SolveStatus::max_iterations;
    verified = false;  // the next cycle moves x
  }
  if (result.status != SolveStatus::converged) {
    result.diagnosis = diagnose(result, backend.read_scalars(), options);
  }
  if (!verified) result.true_residual_norm = replace_residual(backend, a, b, x, v);
  result.seconds = elapsed();
  result.phase_bytes = steps.traffic(result.iterations);
  attach_phase_times(timer.per_iteration(), recorded, result);
  return result;
}

}  // namespace prism::solver
