#pragma once
// The two halves of a PCG iteration on the backend, and the bytes each half moves.
// Iteration k is first_half() (ending with r_k and (r_k, r_k)), the convergence check,
// then second_half() (the direction p_{k+1}).
//
// timing: phases runs one operation per phase, each timed. timing: total times nothing
// inside the iteration and takes the fused steps (backend.hpp: cg_step, cg_direction_dot;
// x lags one step, cg_finish adds the last alpha p): the same arithmetic in fewer passes,
// except where the preconditioner forms (r, z) itself (Preconditioner::forms_dot), which
// rounds differently; timing: phases keeps the solves' times free of it.

#include <prism/options.hpp>
#include <prism/report.hpp>

#include "backend/backend.hpp"
#include "precond/preconditioner.hpp"

namespace prism::solver {

/// The work vectors of one solve.
struct CgVectors {
  CgVectors(backend::Backend& backend, index_t n)
      : r(backend.make_vector(n)),
        z(backend.make_vector(n)),
        p(backend.make_vector(n)),
        q(backend.make_vector(n)) {}
  std::unique_ptr<backend::Vector> r, z, p, q;
};

class CgSteps {
 public:
  CgSteps(backend::Backend& backend, const backend::Matrix& a,
          precond::Preconditioner& preconditioner, CgVectors& v, backend::Vector& x,
          bool fused_steps);

  /// q = A p;  pq = (p, q);  alpha = rz / pq;  x += alpha p;  r -= alpha q;  rr = (r, r)
  void first_half();
  /// z = M^{-1} r;  rz_new = (r, z);  beta = rz_new / rz;  p = z + beta p
  void second_half();
  /// After the last iteration: the fused steps' x += alpha p.
  void finish();

  /// Modeled bytes of `iterations` iterations and finish(): each half's traffic is fixed
  /// per pattern, so it is computed once. Per iteration, n rows: SpMV 12 nnz + 20 n, two
  /// dots 32 n (16 n less when the backend fuses (p, q) into the SpMV, 16 n less when the
  /// preconditioner forms (r, z)), fused update 48 n, direction update 24 n, plus the
  /// preconditioner's own; the fused steps move 8 n less (x += alpha p rides on the
  /// direction update, p read once for both).
  PhaseArray traffic(int iterations) const;

 private:
  backend::Backend& backend_;
  const backend::Matrix& a_;
  precond::Preconditioner& preconditioner_;
  CgVectors& v_;
  backend::Vector& x_;
  backend::PhaseTimer& timer_;
  bool fused_steps_;
  bool fused_spmv_dot_;  ///< (p, q) formed by the SpMV: no pass of its own
  bool forms_dot_;       ///< (r, z) formed by the preconditioner (fused steps only)
  PhaseArray first_bytes_{};
  PhaseArray second_bytes_{};
  PhaseArray finish_bytes_{};
};

}  // namespace prism::solver
