#include "solver/pcg.hpp"

#include "solver/cg_steps.hpp"
#include "solver/pcg_iterations.hpp"

#include <chrono>
#include <cmath>

namespace prism::solver {

using backend::Scalar;

// Preconditioned conjugate gradients with the CG scalars kept in the backend, so that an
// iteration needs no host round trip (CgSteps has the steps and their memory traffic):
//   r_0 = b - A x_0;  z_0 = M^{-1} r_0;  p_1 = z_0
//   for k = 1, 2, ...
//     q = A p_k;  alpha = (r, z) / (p, q);  x += alpha p_k;  r -= alpha q      first half
//     stop when ||r_k|| <= tolerance ||b|| (or on breakdown, or at the limit)    check
//     z = M^{-1} r_k;  beta = (r_k, z_k) / (r_{k-1}, z_{k-1});  p = z + beta p   second half
PcgResult pcg(backend::Backend& backend, const backend::Matrix& a,
              precond::Preconditioner& preconditioner, const backend::Vector& b, backend::Vector& x,
              const SolverOptions& options, RunMode mode) {
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

  // r = b - A x;  ||b|| = sqrt((b, b));  ||r|| = sqrt((r, r))
  backend.spmv(a, x, *v.q);
  backend.copy(b, *v.r);
  backend.axpy(-1.0, *v.q, *v.r);
  backend.dot(b, b, Scalar::rz);
  backend.dot(*v.r, *v.r, Scalar::rr);
  const backend::ScalarValues s = backend.read_scalars();
  result.rhs_norm = std::sqrt(s[static_cast<int>(Scalar::rz)]);
  result.initial_residual_norm = result.residual_norm = std::sqrt(s[static_cast<int>(Scalar::rr)]);
  const double scale = result.rhs_norm > 0.0 ? result.rhs_norm : 1.0;
  result.history.push_back({0, result.residual_norm, result.residual_norm / scale, {}});

  const double target = options.tolerance * result.rhs_norm;
  if (result.rhs_norm == 0.0) {
    backend.copy(b, x);  // b = 0 has the solution x = 0 exactly
    result.residual_norm = 0.0;
    result.history.back() = {0, 0.0, 0.0, {}};
    result.status = SolveStatus::converged;
  } else if (!std::isfinite(result.residual_norm)) {
    result.status = SolveStatus::breakdown;
  } else if (result.residual_norm <= target) {
    result.status = SolveStatus::converged;
  }
  if (result.status != SolveStatus::max_iterations) {
    result.seconds = elapsed();
    return result;
  }

  // z = M^{-1} r;  p = z;  rz = (r, z) (the fused steps take it in rz_new)
  const bool fused_steps = options.timing == TimingMode::total;
  preconditioner.apply(*v.r, *v.z);
  backend.copy(*v.z, *v.p);
  backend.dot(*v.r, *v.z, fused_steps ? Scalar::rz_new : Scalar::rz);

  CgSteps steps(backend, a, preconditioner, v, x, fused_steps);
  std::vector<int> recorded =
      run_iterations(mode, steps, {backend, options, target, scale}, result);
  if (result.iterations > 0) {
    steps.finish();
    timer.next_iteration();
    recorded.push_back(result.iterations);
  }
  result.seconds = elapsed();
  result.phase_bytes = steps.traffic(result.iterations);
  attach_phase_times(timer.per_iteration(), recorded, result);
  return result;
}

}  // namespace prism::solver
