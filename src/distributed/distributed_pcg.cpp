#include "distributed/distributed_pcg.hpp"
#include "distributed/mpi_support.hpp"

#include "kernels/cg_loop.hpp"
#include "solver/pcg.hpp"  // the one-process loop's restart rule and diagnosis

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>

namespace prism::distributed {
namespace {

using Clock = std::chrono::steady_clock;

template <typename F>
void timed(double& slot, const F& f) {
  const auto start = Clock::now();
  f();
  slot += std::chrono::duration<double>(Clock::now() - start).count();
}

/// The vectors and the bookkeeping both variants share. Vectors that are SpMV inputs
/// (`direction`, `spmv_input`) have room for the ghosts behind the owned values.
class State {
 public:
  State(const PcgContext& c, PcgOutcome& out)
      : c_(c),
        out_(out),
        n_(c.rows),
        r(c.engine->make_vector(n_)),
        z(c.engine->make_vector(n_)),
        q(c.engine->make_vector(n_)),
        s(c.engine->make_vector(n_)),
        direction(c.engine->make_vector(c.extended_rows)),
        spmv_input(c.engine->make_vector(c.extended_rows)) {}

  index_t n() const { return n_; }
  RankEngine& engine() const { return *c_.engine; }
  const SolverOptions& options() const { return c_.options; }

  /// Sums the first `count` dot slots over the ranks into `values`.
  void reduce(double* values, int count) { engine().reduce(count, values, out_.phases); }
  void precondition(const RankVector& in, RankVector& z_out) {
    timed(out_.phases.precond, [&] {
      engine().precondition(in.data(), z_out.data());
      if (engine().times_phases()) engine().synchronize();
    });
  }
  /// y = A v; v has room for the ghosts.
  void multiply(RankVector& v, RankVector& y) {
    engine().multiply(v.data(), y.data(), out_.phases);
  }
  template <typename F>
  void vector_op(const F& f) {
    timed(out_.phases.vector_ops, [&] {
      f(engine());
      if (engine().times_phases()) engine().synchronize();
    });
  }
  /// r = b - A x; (r, r) in `slot`.
  void residual(const RankVector& b, const RankVector& x, int slot) {
    vector_op([&](RankEngine& e) { e.copy(n_, x.data(), spmv_input.data()); });
    multiply(spmv_input, q);
    vector_op([&](RankEngine& e) {
      e.copy(n_, b.data(), r.data());
      e.axpy(n_, -1.0, q.data(), r.data());
      e.dot(n_, r.data(), r.data(), slot);
    });
  }
  /// Adds iteration k's record, its times those since the previous record.
  void record(int k, double norm, double scale) {
    const DistributedPhases& t = out_.phases;
    PhaseArray now{};
    now[static_cast<int>(Phase::spmv)] = t.spmv_interior + t.halo + t.spmv_boundary;
    now[static_cast<int>(Phase::precond)] = t.precond;
    now[static_cast<int>(Phase::dot)] = t.reductions;
    now[static_cast<int>(Phase::update)] = t.vector_ops;
    PhaseArray delta{};
    for (int ph = 0; ph < kNumPhases; ++ph) delta[ph] = now[ph] - recorded_[ph];
    recorded_ = now;
    out_.history.push_back({k, norm, norm / scale, k == 0 ? PhaseArray{} : delta});
  }

  /// Whether the monitor asks to stop at `record`, agreed over the ranks: one all-reduce
  /// of each rank's answer (0 go on, 1 stop, 2 threw); what a rank threw, every rank throws.
  bool monitor_stops(const IterationRecord& record) {
    if (c_.monitor == nullptr || !*c_.monitor) return false;
    int answer = 0;
    std::exception_ptr error;
    try {
      answer = (*c_.monitor)(IterationRecord{
                   record.iteration, record.residual_norm, record.relative_residual, {}})
                   ? 0
                   : 1;
    } catch (...) {
      error = std::current_exception();
      answer = 2;
    }
    timed(out_.phases.reductions, [&] {
      PRISM_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &answer, 1, MPI_INT, MPI_MAX, c_.comm));
    });
    if (answer == 2) agree(c_.comm, error);
    return answer == 1;
  }

 private:
  const PcgContext& c_;
  PcgOutcome& out_;
  index_t n_;
  PhaseArray recorded_{};

 public:
  RankVector r, z, q, s;
  RankVector direction;                 // p (classic) or u = M^{-1} r (single reduction)
  RankVector spmv_input;                // x copied for its product; w's partner p in Gear
  double last_rz = 0.0, last_pq = 0.0;  // for the diagnosis
};

/// What the stopping rule says after iteration k; true where the cycle stops.
bool stop_after(int k, double rz, double pq, double norm, double target, State& st, PcgOutcome& out,
                double scale) {
  out.iterations = k;
  out.residual_norm = norm;
  st.last_rz = rz;
  st.last_pq = pq;
  st.record(k, norm, scale);
  // Converged and breakdown outrank the monitor's stop, as in the one-process loop.
  const bool stop_asked = st.monitor_stops(out.history.back());
  switch (kernels::cg_stop(rz, pq, norm, target, k, st.options().max_iterations)) {
    case kernels::LoopStop::converged:
      out.status = SolveStatus::converged;
      return true;
    case kernels::LoopStop::breakdown:
      out.status = SolveStatus::breakdown;
      return true;
    case kernels::LoopStop::max_iterations:
    case kernels::LoopStop::running:
    case kernels::LoopStop::requested:  // never a verdict of cg_stop
      break;
  }
  if (stop_asked) out.status = SolveStatus::stopped;
  return stop_asked || k >= st.options().max_iterations;
}

// Classic PCG from the current r; two all-reduces per iteration:
//   z = M^{-1} r;  p = z;  rz = (r, z)
//   q = A p;  pq = (p, q)  [all-reduce];  alpha = rz / pq;  x += alpha p;  r -= alpha q
//   z = M^{-1} r;  (r, z), (r, r)  [all-reduce];  stop?;  beta = rz' / rz;  p = z + beta p
void classic_cycle(State& st, RankVector& x, double target, double scale, PcgOutcome& out) {
  const index_t n = st.n();
  auto& p = st.direction;
  st.precondition(st.r, st.z);
  st.vector_op([&](RankEngine& e) {
    e.copy(n, st.z.data(), p.data());
    e.dot(n, st.r.data(), st.z.data(), 0);
  });
  double rz = 0.0;
  st.reduce(&rz, 1);
  for (int k = out.iterations + 1; k <= st.options().max_iterations; ++k) {
    st.multiply(p, st.q);
    st.vector_op([&](RankEngine& e) { e.dot(n, p.data(), st.q.data(), 0); });
    double pq = 0.0;
    st.reduce(&pq, 1);
    st.vector_op([&](RankEngine& e) {
      e.cg_update(n, rz, pq, p.data(), st.q.data(), x.data(), st.r.data(), 1);
    });
    st.precondition(st.r, st.z);
    st.vector_op([&](RankEngine& e) { e.dot(n, st.r.data(), st.z.data(), 0); });
    double sums[2];
    st.reduce(sums, 2);
    if (stop_after(k, sums[0], pq, std::sqrt(sums[1]), target, st, out, scale)) return;
    const double beta = sums[0] / rz;
    rz = sums[0];
    st.vector_op([&](RankEngine& e) { e.xpay(n, st.z.data(), beta, p.data()); });
  }
}

// Chronopoulos and Gear (1989) from the current r; one all-reduce per iteration:
//   u = M^{-1} r;  w = A u;  gamma = (r, u);  delta = (w, u)  [all-reduce];  alpha = gamma/delta
//   p = u + beta p;  s = w + beta s  (s = A p);  x += alpha p;  r -= alpha s
//   u = M^{-1} r;  w = A u;  (r, u), (w, u), (r, r)  [one all-reduce];  stop?
//   beta = gamma' / gamma;  alpha = gamma' / (delta' - beta gamma' / alpha)  (the last
//   denominator is (p', A p') of the next direction, so the breakdown test reads it)
void single_reduction_cycle(State& st, RankVector& x, double target, double scale,
                            PcgOutcome& out) {
  const index_t n = st.n();
  auto& u = st.direction;
  auto& w = st.q;
  auto& p = st.spmv_input;  // free during the cycle: x is copied there only between cycles
  auto& s = st.s;
  st.precondition(st.r, u);
  st.multiply(u, w);
  double sums[3] = {0.0, 0.0, 0.0};
  st.vector_op([&](RankEngine& e) { e.gear_dots(n, st.r.data(), u.data(), w.data(), 0); });
  st.reduce(sums, 2);
  double gamma = sums[0];
  double denominator = sums[1];
  if (kernels::cg_stop(gamma, denominator, out.residual_norm, target, out.iterations,
                       st.options().max_iterations) == kernels::LoopStop::breakdown) {
    st.last_rz = gamma;
    st.last_pq = denominator;
    out.status = SolveStatus::breakdown;
    return;
  }
  double alpha = gamma / denominator;
  double beta = 0.0;
  const int first_k = out.iterations + 1;
  for (int k = first_k; k <= st.options().max_iterations; ++k) {
    const bool first = k == first_k;
    st.vector_op([&](RankEngine& e) {
      e.gear_update(n, gamma, denominator, beta, first, u.data(), w.data(), p.data(), s.data(),
                    x.data(), st.r.data(), 2);
    });
    st.precondition(st.r, u);
    st.multiply(u, w);
    st.vector_op([&](RankEngine& e) { e.gear_dots(n, st.r.data(), u.data(), w.data(), 0); });
    st.reduce(sums, 3);
    beta = sums[0] / gamma;
    denominator = sums[1] - beta * sums[0] / alpha;
    if (stop_after(k, sums[0], denominator, std::sqrt(sums[2]), target, st, out, scale)) return;
    alpha = sums[0] / denominator;
    gamma = sums[0];
  }
}

/// diagnose()'s words (those of the one-process PCG) from the distributed state.
std::string diagnose(const PcgOutcome& r, const State& st) {
  solver::StopFacts f;
  f.status = r.status;
  f.iterations = r.iterations;
  f.residual_norm = r.residual_norm;
  f.rhs_norm = r.rhs_norm;
  f.true_residual_norm = r.true_residual_norm;
  f.residual_replacements = r.residual_replacements;
  f.tolerance = st.options().tolerance;
  f.pq = st.last_pq;
  f.rz = st.last_rz;
  return solver::diagnose(f);
}

}  // namespace

PcgOutcome distributed_pcg(const PcgContext& c, const RankVector& b, RankVector& x) {
  const auto start = Clock::now();
  PcgOutcome out;
  State st(c, out);
  const index_t n = st.n();
  // ||b|| and ||b - A x_0|| in one reduction.
  st.vector_op([&](RankEngine& e) { e.dot(n, b.data(), b.data(), 0); });
  st.residual(b, x, 1);
  double sums[2];
  st.reduce(sums, 2);
  out.rhs_norm = std::sqrt(sums[0]);
  out.initial_residual_norm = out.residual_norm = out.true_residual_norm = std::sqrt(sums[1]);
  const double scale = out.rhs_norm > 0.0 ? out.rhs_norm : 1.0;
  st.record(0, out.residual_norm, scale);
  const SolverOptions& options = c.options;
  const double target = std::max(options.tolerance * out.rhs_norm, options.absolute_tolerance);
  if (out.rhs_norm == 0.0) {
    st.engine().copy(n, b.data(), x.data());  // b = 0 has the solution x = 0 exactly
    out.residual_norm = out.true_residual_norm = 0.0;
    out.history.back() = {0, 0.0, 0.0, {}};
    out.status = SolveStatus::converged;
  } else if (!std::isfinite(out.residual_norm) || !std::isfinite(out.rhs_norm)) {
    out.status = SolveStatus::breakdown;
    out.diagnosis = diagnose(out, st);
  } else if (out.residual_norm <= target) {
    out.status = SolveStatus::converged;
  }
  if (st.monitor_stops(out.history.back()) && out.status == SolveStatus::max_iterations) {
    out.status = SolveStatus::stopped;
    out.diagnosis = diagnose(out, st);
  }
  if (out.status != SolveStatus::max_iterations) {
    st.engine().synchronize();
    out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
    return out;
  }

  // As the one-process loop: a converged recursion is confirmed with the true residual,
  // and CG restarts from it where that misses the target.
  bool verified = false;
  const auto true_residual = [&] {
    st.residual(b, x, 0);
    double rr = 0.0;
    st.reduce(&rr, 1);
    return std::sqrt(rr);
  };
  for (;;) {
    if (c.variant == CgVariant::classic) {
      classic_cycle(st, x, target, scale, out);
    } else {
      single_reduction_cycle(st, x, target, scale, out);
    }
    if (out.status != SolveStatus::converged) break;
    out.true_residual_norm = true_residual();
    verified = true;
    if (out.true_residual_norm <= target) break;
    if (out.residual_replacements == solver::kMaxResidualReplacements ||
        out.iterations >= options.max_iterations) {
      out.status = SolveStatus::stagnated;
      break;
    }
    ++out.residual_replacements;
    out.residual_norm = out.true_residual_norm;
    out.status = SolveStatus::max_iterations;
    verified = false;
  }
  if (out.status != SolveStatus::converged) out.diagnosis = diagnose(out, st);
  if (!verified) out.true_residual_norm = true_residual();
  st.engine().synchronize();
  out.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  return out;
}

}  // namespace prism::distributed
