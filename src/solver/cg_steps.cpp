#include "solver/cg_steps.hpp"

namespace prism::solver {
namespace {

using backend::Scalar;

void add(PhaseArray& bytes, Phase phase, double amount) {
  bytes[static_cast<int>(phase)] += amount;
}

/// SpMV with doubles and 32-bit indices: values and columns (12 B/nnz), row pointers
/// (4 B/row), x read once, y written.
double spmv_bytes(const backend::Matrix& a) {
  return 12.0 * a.nnz() + 4.0 * (a.rows() + 1) + 16.0 * a.rows();
}

}  // namespace

CgSteps::CgSteps(backend::Backend& backend, const backend::Matrix& a,
                 precond::Preconditioner& preconditioner, CgVectors& v, backend::Vector& x,
                 bool fused_steps)
    : backend_(backend),
      a_(a),
      preconditioner_(preconditioner),
      v_(v),
      x_(x),
      timer_(backend.timer()),
      fused_steps_(fused_steps),
      fused_spmv_dot_(backend.fuses_spmv_dot(a)),
      forms_dot_(fused_steps && preconditioner.forms_dot()) {
  const double n = a.rows();
  add(first_bytes_, Phase::spmv, spmv_bytes(a));
  add(second_bytes_, Phase::update, fused_steps ? 40.0 * n : 24.0 * n);
  const PhaseArray precond = preconditioner.traffic();
  for (int ph = 0; ph < kNumPhases; ++ph) second_bytes_[ph] += precond[ph];
  if (!forms_dot_) add(second_bytes_, Phase::dot, 16.0 * n);
  if (fused_steps) {
    // The dot (p, q) rides on the step's SpMV pass where the SpMV does not form it.
    if (!fused_spmv_dot_) add(first_bytes_, Phase::spmv, 16.0 * n);
    add(first_bytes_, Phase::update, 24.0 * n);
    add(finish_bytes_, Phase::update, 24.0 * n);
  } else {
    if (!fused_spmv_dot_) add(first_bytes_, Phase::dot, 16.0 * n);
    add(first_bytes_, Phase::update, 48.0 * n);
  }
}

void CgSteps::first_half() {
  if (fused_steps_) {
    backend_.cg_step(a_, *v_.p, *v_.q, *v_.r);
    return;
  }
  timer_.begin(Phase::spmv);
  if (fused_spmv_dot_) {
    backend_.spmv_dot(a_, *v_.p, *v_.q, Scalar::pq);  // q = A p, pq = (p, q)
  } else {
    backend_.spmv(a_, *v_.p, *v_.q);
  }
  timer_.end(Phase::spmv);
  if (!fused_spmv_dot_) {
    timer_.begin(Phase::dot);
    backend_.dot(*v_.p, *v_.q, Scalar::pq);
    timer_.end(Phase::dot);
  }
  timer_.begin(Phase::update);
  backend_.cg_update(*v_.p, *v_.q, x_, *v_.r);  // x += alpha p; r -= alpha q; rr = (r, r)
  timer_.end(Phase::update);
}

void CgSteps::second_half() {
  if (fused_steps_) {
    // z = M^{-1} r with rz_new = (r, z) where the preconditioner forms it on the way,
    // else the dot reads r and z; then x += alpha p, p = z + beta p (reads z, p, x).
    if (forms_dot_) {
      preconditioner_.apply(*v_.r, *v_.z, &timer_, Scalar::rz_new);
      backend_.cg_direction_x(*v_.z, *v_.p, x_);
    } else {
      preconditioner_.apply(*v_.r, *v_.z, &timer_);
      backend_.cg_direction_dot(*v_.r, *v_.z, *v_.p, x_);
    }
    return;
  }
  preconditioner_.apply(*v_.r, *v_.z, &timer_);  // z = M^{-1} r
  timer_.begin(Phase::dot);
  backend_.dot(*v_.r, *v_.z, Scalar::rz_new);
  timer_.end(Phase::dot);
  timer_.begin(Phase::update);
  backend_.cg_direction(*v_.z, *v_.p);  // p = z + beta p; rz = rz_new
  timer_.end(Phase::update);
}

void CgSteps::finish() {
  if (fused_steps_) backend_.cg_finish(*v_.p, x_);  // the last step's x += alpha p
}

PhaseArray CgSteps::traffic(int iterations) const {
  PhaseArray bytes{};
  if (iterations == 0) return bytes;
  for (int ph = 0; ph < kNumPhases; ++ph) {
    bytes[ph] =
        iterations * first_bytes_[ph] + (iterations - 1) * second_bytes_[ph] + finish_bytes_[ph];
  }
  return bytes;
}

}  // namespace prism::solver
