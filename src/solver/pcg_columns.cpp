#include "solver/pcg_columns.hpp"

#include "kernels/cg_loop.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <iterator>
#include <memory>
#include <numeric>

namespace prism::solver {
namespace {

using backend::ColumnSet;
using backend::Scalar;
using backend::Vector;

/// The blocks of one multi-column solve and its per-column scalars, read back as a whole.
struct ColumnState {
  ColumnState(backend::Backend& be, index_t n, int k)
      : r(be.make_vector(n * k)),
        z(be.make_vector(n * k)),
        p(be.make_vector(n * k)),
        q(be.make_vector(n * k)),
        s(be.make_vector(static_cast<index_t>(k) * backend::kNumScalars)) {}
  std::unique_ptr<Vector> r, z, p, q, s;
  std::vector<double> host;  // s, as last read

  double at(index_t j, Scalar slot) const {
    return host[static_cast<std::size_t>(j) * backend::kNumScalars + static_cast<int>(slot)];
  }
  backend::ScalarValues scalars(index_t j) const {
    backend::ScalarValues v{};
    for (int i = 0; i < backend::kNumScalars; ++i) {
      v[i] = host[static_cast<std::size_t>(j) * backend::kNumScalars + i];
    }
    return v;
  }
};

/// Times one phase on the backend's timer.
template <typename Body>
void timed(backend::PhaseTimer& timer, Phase phase, const Body& body) {
  timer.begin(phase);
  body();
  timer.end(phase);
}

class ColumnsPcg {
 public:
  ColumnsPcg(backend::Backend& be, const backend::Matrix& a, precond::Preconditioner& m,
             const Vector& b, Vector& x, int k, const std::vector<double>& absolute,
             const SolverOptions& options)
      : be_(be),
        a_(a),
        m_(m),
        b_(b),
        x_(x),
        n_(a.rows()),
        options_(options),
        absolute_(absolute),
        v_(be, a.rows(), k),
        timer_(be.timer()) {
    result_.columns.resize(static_cast<std::size_t>(k));
    target_.resize(static_cast<std::size_t>(k));
  }

  ColumnsResult run();

 private:
  std::unique_ptr<ColumnSet> set_of(const std::vector<index_t>& columns) {
    return be_.make_column_set(n_, columns);
  }
  void read() { be_.copy_to_host(*v_.s, v_.host); }
  double scale(index_t j) const {
    const double rhs = result_.columns[j].rhs_norm;
    return rhs > 0.0 ? rhs : 1.0;
  }
  /// r_j = b_j - A x_j and s[j][rr] = (r_j, r_j) for the set's columns (pcg's queue_residual).
  void queue_residual(const ColumnSet& set) {
    be_.spmm(a_, x_, *v_.q, set);
    be_.column_copy(b_, *v_.r, set);
    be_.column_axpy(-1.0, *v_.q, *v_.r, set);
    be_.column_dot(*v_.r, *v_.r, set, *v_.s, Scalar::rr);
  }
  /// The true residuals of `columns`, read back: their true_residual_norm.
  void true_residuals(const std::vector<index_t>& columns) {
    if (columns.empty()) return;
    queue_residual(*set_of(columns));
    read();
    for (const index_t j : columns) {
      result_.columns[j].true_residual_norm = std::sqrt(v_.at(j, Scalar::rr));
    }
  }
  void start();
  void second_half(const std::vector<index_t>& restarting);
  void first_half();
  void loop_iteration(const ColumnSet& set);
  void check(int k);
  bool loops() const;
  int run_loop(int first);

  backend::Backend& be_;
  const backend::Matrix& a_;
  precond::Preconditioner& m_;
  const Vector& b_;
  Vector& x_;
  index_t n_;
  const SolverOptions& options_;
  const std::vector<double>& absolute_;
  ColumnState v_;
  backend::PhaseTimer& timer_;
  ColumnsResult result_;
  std::vector<double> target_;
  std::vector<index_t> active_;      // columns still iterating
  std::vector<index_t> restarting_;  // active columns whose direction starts afresh: p = z
  std::unique_ptr<ColumnSet> active_set_;
  bool masks_ = false;  // loops go on past a stop with the column masked, not recorded again
  std::vector<index_t> loop_columns_;          // the columns loop_ was recorded on
  std::unique_ptr<ColumnSet> loop_set_;        // their set: its masks follow active_
  std::unique_ptr<backend::ColumnLoop> loop_;  // recorded on loop_set_, dropped with it
};

/// Iterations a device-side loop runs at most before the host looks (at a check point).
constexpr int kLoopChunk = 1000;

// The initial residuals and pcg()'s verdicts at iteration 0.
void ColumnsPcg::start() {
  const int k = static_cast<int>(result_.columns.size());
  std::vector<index_t> all(static_cast<std::size_t>(k));
  std::iota(all.begin(), all.end(), 0);
  const std::unique_ptr<ColumnSet> every = set_of(all);
  be_.column_dot(b_, b_, *every, *v_.s, Scalar::rz);  // ||b_j||^2 and ||b_j - A x_j||^2
  queue_residual(*every);
  read();
  std::vector<index_t> zero;
  for (index_t j = 0; j < k; ++j) {
    PcgResult& c = result_.columns[j];
    c.rhs_norm = std::sqrt(v_.at(j, Scalar::rz));
    c.initial_residual_norm = c.residual_norm = c.true_residual_norm =
        std::sqrt(v_.at(j, Scalar::rr));
    c.history.push_back({0, c.residual_norm, c.residual_norm / scale(j), {}});
    target_[j] = std::max(options_.tolerance * c.rhs_norm, absolute_[j]);
    if (c.rhs_norm == 0.0) {
      zero.push_back(j);  // b = 0 has the solution x = 0 exactly
      c.residual_norm = c.true_residual_norm = 0.0;
      c.history.back() = {0, 0.0, 0.0, {}};
      c.status = SolveStatus::converged;
    } else if (!std::isfinite(c.residual_norm) || !std::isfinite(c.rhs_norm)) {
      c.status = SolveStatus::breakdown;
      c.diagnosis = diagnose(c, v_.scalars(j), options_);
    } else if (c.residual_norm <= target_[j]) {
      c.status = SolveStatus::converged;
    } else {
      active_.push_back(j);
    }
  }
  if (!zero.empty()) be_.column_copy(b_, x_, *set_of(zero));
  restarting_ = active_;
  if (!active_.empty()) active_set_ = set_of(active_);
}

// z = M^{-1} r; then rz_new = (r, z), beta = rz_new / rz, p = z + beta p on the columns
// that go on, and p = z, rz = (r, z) on those that start (afresh, or from a replacement).
void ColumnsPcg::second_half(const std::vector<index_t>& restarting) {
  if (restarting.empty() && options_.timing == TimingMode::total) {
    // As pcg()'s fused steps: rz_new formed by the preconditioner where it forms it.
    m_.apply_columns_dot(be_, *v_.r, *v_.z, *active_set_, *v_.s, Scalar::rz_new, &timer_);
    timed(timer_, Phase::update,
          [&] { be_.column_cg_direction(*v_.z, *v_.p, *active_set_, *v_.s); });
    return;
  }
  m_.apply_columns(be_, *v_.r, *v_.z, *active_set_, &timer_);
  // Sets of their own only in the rare iterations with a start (a set on cuda is an upload).
  std::unique_ptr<ColumnSet> on_own, fresh;
  const ColumnSet* on = active_set_.get();
  if (!restarting.empty()) {
    std::vector<index_t> going_on;
    std::set_difference(active_.begin(), active_.end(), restarting.begin(), restarting.end(),
                        std::back_inserter(going_on));
    on_own = going_on.empty() ? nullptr : set_of(going_on);
    on = on_own.get();
    fresh = set_of(restarting);
  }
  timed(timer_, Phase::dot, [&] {
    if (on) be_.column_dot(*v_.r, *v_.z, *on, *v_.s, Scalar::rz_new);
    if (fresh) be_.column_dot(*v_.r, *v_.z, *fresh, *v_.s, Scalar::rz);
  });
  timed(timer_, Phase::update, [&] {
    if (on) be_.column_cg_direction(*v_.z, *v_.p, *on, *v_.s);
    if (fresh) be_.column_copy(*v_.z, *v_.p, *fresh);
  });
}

// q = A p;  pq = (p, q);  alpha = rz / pq;  x += alpha p;  r -= alpha q;  rr = (r, r)
void ColumnsPcg::first_half() {
  // The SpMV phase covers the dot (p, q) where the backend fuses it, as pcg()'s does.
  timed(timer_, Phase::spmv,
        [&] { be_.spmm_dot(a_, *v_.p, *v_.q, *active_set_, *v_.s, Scalar::pq); });
  timed(timer_, Phase::update,
        [&] { be_.column_cg_update(*v_.p, *v_.q, x_, *v_.r, *active_set_, *v_.s); });
}

// second_half and first_half of the device loop, with x lagging one step (as pcg()'s fused
// steps): column_cg_direction_x adds the alpha p that column_cg_residual left owing.
void ColumnsPcg::loop_iteration(const ColumnSet& set) {
  m_.apply_columns_dot(be_, *v_.r, *v_.z, set, *v_.s, Scalar::rz_new, &timer_);
  be_.column_cg_direction_x(*v_.z, *v_.p, x_, set, *v_.s);
  be_.spmm_dot(a_, *v_.p, *v_.q, set, *v_.s, Scalar::pq);
  be_.column_cg_residual(*v_.p, *v_.q, x_, *v_.r, set, *v_.s);
}

// pcg()'s check after iteration k for every active column, and its ending: a converged
// recursion confirmed by the true residual or restarted from it, at most
// kMaxResidualReplacements times; a column that stops leaves the active set.
void ColumnsPcg::check(int k) {
  read();
  std::vector<index_t> claims, stopped, going_on;
  for (const index_t j : active_) {
    PcgResult& c = result_.columns[j];
    c.residual_norm = std::sqrt(v_.at(j, Scalar::rr));
    c.history.push_back({k, c.residual_norm, c.residual_norm / scale(j), {}});
    const kernels::LoopStop stop =
        kernels::cg_stop(v_.at(j, Scalar::rz), v_.at(j, Scalar::pq), c.residual_norm, target_[j], k,
                         options_.max_iterations);
    if (stop == kernels::LoopStop::running) {
      going_on.push_back(j);
    } else if (stop == kernels::LoopStop::converged) {
      claims.push_back(j);
    } else {
      c.status = stop == kernels::LoopStop::breakdown ? SolveStatus::breakdown
                                                      : SolveStatus::max_iterations;
      c.diagnosis = diagnose(c, v_.scalars(j), options_);
      stopped.push_back(j);
    }
  }
  if (claims.empty() && stopped.empty()) return;
  true_residuals(stopped);
  restarting_.clear();
  if (!claims.empty()) {
    true_residuals(claims);
    for (const index_t j : claims) {
      PcgResult& c = result_.columns[j];
      if (c.true_residual_norm <= target_[j]) {
        c.status = SolveStatus::converged;
      } else if (c.residual_replacements == kMaxResidualReplacements ||
                 k >= options_.max_iterations) {
        c.status = SolveStatus::stagnated;
        c.diagnosis = diagnose(c, v_.scalars(j), options_);
      } else {
        ++c.residual_replacements;
        c.residual_norm = c.true_residual_norm;  // r_j = b_j - A x_j already
        restarting_.push_back(j);
      }
    }
  }
  going_on.insert(going_on.end(), restarting_.begin(), restarting_.end());
  std::sort(going_on.begin(), going_on.end());
  active_ = std::move(going_on);
  active_set_ = active_.empty() ? nullptr : set_of(active_);
  if (loop_ && masks_ && !active_.empty()) {
    be_.mask_columns(*loop_set_, active_);
  } else {
    loop_.reset();
    loop_set_.reset();
  }
}

// The device-side loop where the backend runs one over columns and nothing needs the host
// inside an iteration: phase timing and a preconditioner applied through the host do.
bool ColumnsPcg::loops() const {
  return options_.graph != GraphMode::off && options_.timing == TimingMode::total &&
         m_.recordable() && be_.can_loop_columns();
}

// Iterations first + 1, ... of the active columns (none restarting) as one device-side
// loop to the first check point where a column stops (or kLoopChunk on): the residuals
// of the check points it passed go to the history, that last one is check()'s. The loop
// is recorded once where the backend masks columns (check() masks those that stop), else
// again after each stop.
int ColumnsPcg::run_loop(int first) {
  if (!loop_) {
    loop_columns_ = active_;
    loop_set_ = set_of(loop_columns_);
    const ColumnSet& set = *loop_set_;
    loop_ = be_.record_column_loop([&] { loop_iteration(set); }, set, *v_.s, target_,
                                   options_.check_every, options_.max_iterations);
  }
  const backend::ColumnLoopOutcome out = loop_->run(first, kLoopChunk);
  be_.column_cg_finish(*v_.p, x_, *loop_set_, *v_.s);  // the last iteration's alpha p
  // The loop's rows list loop_columns_, masked ones (no longer active) included.
  const std::size_t count = loop_columns_.size();
  std::size_t row = 0;
  for (int k = first + 1; k < out.iteration; ++k) {
    if (k % options_.check_every != 0 && k != options_.max_iterations) continue;
    for (std::size_t c = 0; c < count && (row + 1) * count <= out.residual_norms.size(); ++c) {
      const index_t j = loop_columns_[c];
      if (!std::binary_search(active_.begin(), active_.end(), j)) continue;
      PcgResult& col = result_.columns[j];
      col.residual_norm = out.residual_norms[row * count + c];
      col.history.push_back({k, col.residual_norm, col.residual_norm / scale(j), {}});
    }
    ++row;
  }
  for (const index_t j : active_) result_.columns[j].iterations = out.iteration;
  check(out.iteration);
  return out.iteration;
}

ColumnsResult ColumnsPcg::run() {
  const auto begin = std::chrono::steady_clock::now();
  timer_.set_enabled(options_.timing == TimingMode::phases);
  timer_.per_iteration();  // drop anything recorded before this solve
  start();
  const bool looping = loops();
  masks_ = looping && m_.applies_columns_at_once() && be_.can_mask_columns(a_);
  int k = 0;
  while (!active_.empty() && k < options_.max_iterations) {
    if (looping && restarting_.empty()) {
      result_.device_loop = true;
      k = run_loop(k);
      continue;
    }
    second_half(restarting_);
    restarting_.clear();
    first_half();
    ++k;
    timer_.next_iteration();
    for (const index_t j : active_) result_.columns[j].iterations = k;
    if (k % options_.check_every == 0 || k == options_.max_iterations) check(k);
  }
  // Only with max_iterations 0: pcg()'s verdict on the initial residual.
  for (const index_t j : active_) {
    PcgResult& c = result_.columns[j];
    c.diagnosis = diagnose(c, v_.scalars(j), options_);
  }
  true_residuals(active_);
  result_.iterations = k;
  for (const PhaseArray& times : timer_.per_iteration()) {
    for (int ph = 0; ph < kNumPhases; ++ph) result_.phase_seconds[ph] += times[ph];
  }
  be_.synchronize();
  result_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  return std::move(result_);
}

}  // namespace

ColumnsResult pcg_columns(backend::Backend& backend, const backend::Matrix& a,
                          precond::Preconditioner& preconditioner, const backend::Vector& b,
                          backend::Vector& x, int k, const std::vector<double>& absolute_tolerance,
                          const SolverOptions& options) {
  return ColumnsPcg(backend, a, preconditioner, b, x, k, absolute_tolerance, options).run();
}

}  // namespace prism::solver
