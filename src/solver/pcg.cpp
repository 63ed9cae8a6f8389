#include "solver/pcg.hpp"

#include <prism/errors.hpp>

#include "kernels/cg_loop.hpp"

#include <chrono>
#include <cmath>

namespace prism::solver {
namespace {

using backend::Scalar;

// Modeled bytes of the non-preconditioner operations, doubles and 32-bit indices:
// SpMV reads values and columns (12 B/nnz), row pointers (4 B/row), x once, writes y.
double spmv_bytes(const backend::Matrix& a) {
  return 12.0 * a.nnz() + 4.0 * (a.rows() + 1) + 16.0 * a.rows();
}

double get(const backend::ScalarValues& s, Scalar which) {
  return s[static_cast<int>(which)];
}

/// How the iterations after the first run (solver.graph).
enum class Mode { launches, replay, loop };

/// A device-side loop keeps the residual of every iteration in device memory
/// (8 B each): beyond this many iterations `auto` replays between host checks instead.
constexpr int kMaxLoopIterations = 1 << 24;

/// `auto` records when the backend can and no phase is timed (a replayed graph records
/// no per-phase events): a device-side loop where the backend runs one, else a replay
/// between host checks. `on` and `loop` insist. The cpu backend runs `loop` on the host
/// (same stopping rule), which is how the loop logic is tested without a GPU.
Mode pick_mode(backend::Backend& backend, const SolverOptions& options) {
  switch (options.graph) {
    case GraphMode::off:
      return Mode::launches;
    case GraphMode::on:
    case GraphMode::loop: {
      const bool loop = options.graph == GraphMode::loop;
      const char* name = loop ? "loop" : "on";
      if (options.timing == TimingMode::phases) {
        throw ConfigError(std::string("solver: graph: ") + name +
                          " needs timing: total (a graph replay is timed whole)");
      }
      if (loop ? !backend.can_loop() : !backend.can_record()) {
        throw ConfigError(std::string("solver: graph: ") + name + " needs a backend that " +
                          (loop ? "runs device-side loops" : "records graphs") + "; the " +
                          backend.name() + " backend does not");
      }
      if (loop && options.max_iterations > kMaxLoopIterations) {
        throw ConfigError(
            "solver: graph: loop keeps every residual on the device and takes "
            "max_iterations up to " +
            std::to_string(kMaxLoopIterations));
      }
      return loop ? Mode::loop : Mode::replay;
    }
    case GraphMode::automatic:
      break;
  }
  if (options.timing != TimingMode::total || !backend.can_record()) return Mode::launches;
  return backend.can_loop() && options.max_iterations <= kMaxLoopIterations ? Mode::loop
                                                                            : Mode::replay;
}

}  // namespace

// Per iteration, with the scalars kept in the backend:
//   q = A p;  pq = (p, q);  alpha = rz / pq;  x += alpha p;  r -= alpha q;  rr = (r, r)
//   [every check_every iterations: read rr, pq, rz and test convergence / breakdown]
//   z = M^{-1} r;  rz_new = (r, z);  beta = rz_new / rz;  p = z + beta p
// Memory traffic per iteration, n rows: SpMV 12 nnz + 20 n, two dots 32 n (16 n less
// when the backend fuses (p, q) into the SpMV, and 16 n less when the preconditioner
// forms (r, z) on the way: Preconditioner::apply_timed_dot), fused update 48 n,
// direction update 24 n, plus the preconditioner's own. The fused steps (timing: total)
// move 8 n less: the x update rides on the direction update (x += alpha p with p read once
// for both).
PcgResult pcg(backend::Backend& backend, const backend::Matrix& a,
              precond::Preconditioner& preconditioner, const backend::Vector& b, backend::Vector& x,
              const SolverOptions& options) {
  if (!(options.tolerance > 0.0) || !std::isfinite(options.tolerance)) {
    throw ConfigError("solver: tolerance must be positive");
  }
  if (options.max_iterations < 0) throw ConfigError("solver: max_iterations must be >= 0");
  if (options.check_every < 1) throw ConfigError("solver: check_every must be >= 1");

  const index_t n = a.rows();
  auto r = backend.make_vector(n);
  auto z = backend.make_vector(n);
  auto p = backend.make_vector(n);
  auto q = backend.make_vector(n);
  backend::PhaseTimer& timer = backend.timer();
  timer.set_enabled(options.timing == TimingMode::phases);
  timer.per_iteration();  // drop anything recorded before this solve

  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  PcgResult result;

  // r = b - A x; ||b|| and ||r|| (read once: set-up of the iteration).
  backend.spmv(a, x, *q);
  backend.copy(b, *r);
  backend.axpy(-1.0, *q, *r);
  backend.dot(b, b, Scalar::rz);
  backend.dot(*r, *r, Scalar::rr);
  backend::ScalarValues s = backend.read_scalars();
  result.rhs_norm = std::sqrt(get(s, Scalar::rz));
  result.initial_residual_norm = result.residual_norm = std::sqrt(get(s, Scalar::rr));
  const double scale = result.rhs_norm > 0.0 ? result.rhs_norm : 1.0;
  result.history.push_back({0, result.residual_norm, result.residual_norm / scale, {}});

  if (result.rhs_norm == 0.0) {
    backend.copy(b, x);  // b = 0 has the solution x = 0 exactly
    result.residual_norm = 0.0;
    result.history.back() = {0, 0.0, 0.0, {}};
    result.status = SolveStatus::converged;
    result.seconds = elapsed();
    return result;
  }
  const double target = options.tolerance * result.rhs_norm;
  if (!std::isfinite(result.residual_norm)) {
    result.status = SolveStatus::breakdown;
    result.seconds = elapsed();
    return result;
  }
  if (result.residual_norm <= target) {
    result.status = SolveStatus::converged;
    result.seconds = elapsed();
    return result;
  }

  // timing: total times nothing inside the iteration, so it takes the fused steps
  // (backend.hpp: cg_step, cg_direction_dot; x lags one step). timing: phases keeps one
  // operation per phase. Same arithmetic, same iterates, except where the preconditioner
  // forms (r, z) itself under timing: total (Preconditioner::apply_timed_dot): its rz
  // rounds differently, and timing: phases keeps the solves' times free of it.
  const bool fused_steps = options.timing == TimingMode::total;
  preconditioner.apply(*r, *z);
  backend.copy(*z, *p);
  backend.dot(*r, *z, fused_steps ? Scalar::rz_new : Scalar::rz);

  PhaseArray& bytes = result.phase_bytes;
  auto add = [&bytes](Phase phase, double amount) { bytes[static_cast<int>(phase)] += amount; };
  const double n_d = static_cast<double>(n);
  // Iteration k is first_half (ending with r_k and (r_k, r_k)), the convergence check,
  // then second_half (the direction p_{k+1}).
  // With a fused SpMV + dot the curvature costs no pass of its own (its time and bytes
  // are the SpMV's).
  const bool fused = backend.fuses_spmv_dot(a);
  auto first_half = [&] {
    if (fused_steps) {
      // q = A p, pq, alpha, r -= alpha q, rr: the SpMV's bytes, then read q and r, write r.
      backend.cg_step(a, *p, *q, *r);
      add(Phase::spmv, spmv_bytes(a) + (fused ? 0.0 : 16.0 * n_d));
      add(Phase::update, 24.0 * n_d);
      return;
    }
    timer.begin(Phase::spmv);
    if (fused) {
      backend.spmv_dot(a, *p, *q, Scalar::pq);  // q = A p, pq = (p, q)
    } else {
      backend.spmv(a, *p, *q);
    }
    timer.end(Phase::spmv);
    add(Phase::spmv, spmv_bytes(a));
    if (!fused) {
      timer.begin(Phase::dot);
      backend.dot(*p, *q, Scalar::pq);
      timer.end(Phase::dot);
      add(Phase::dot, 16.0 * n_d);
    }

    timer.begin(Phase::update);
    backend.cg_update(*p, *q, x, *r);  // x += alpha p; r -= alpha q; rr = (r, r)
    timer.end(Phase::update);
    add(Phase::update, 48.0 * n_d);
  };
  auto second_half = [&] {
    if (fused_steps) {
      // z = M^{-1} r, and rz_new = (r, z) where the preconditioner forms it on the way
      // (the same number up to rounding); else the dot reads r and z. Then x += alpha p,
      // p = z + beta p (reads z, p, x).
      if (preconditioner.apply_timed_dot(*r, *z, Scalar::rz_new, timer, bytes)) {
        backend.cg_direction_x(*z, *p, x);
      } else {
        backend.cg_direction_dot(*r, *z, *p, x);
        add(Phase::dot, 16.0 * n_d);
      }
      add(Phase::update, 40.0 * n_d);
      return;
    }

    preconditioner.apply_timed(*r, *z, timer, bytes);  // z = M^{-1} r
    timer.begin(Phase::dot);
    backend.dot(*r, *z, Scalar::rz_new);
    timer.end(Phase::dot);
    add(Phase::dot, 16.0 * n_d);

    timer.begin(Phase::update);
    backend.cg_direction(*z, *p);  // p = z + beta p; rz = rz_new
    timer.end(Phase::update);
    add(Phase::update, 24.0 * n_d);
  };

  // With a graph, the work between two checks points (second_half of k - 1, first_half
  // of k) is recorded once, at k = 2, and replayed; its modeled bytes are counted once
  // per replay. With a device-side loop it is recorded as the loop's body, which runs
  // every iteration from 2 on and tests convergence itself.
  std::unique_ptr<backend::Recording> recording;
  PhaseArray replay_bytes{};
  const Mode mode = pick_mode(backend, options);
  result.graph = mode != Mode::launches;
  result.device_loop = mode == Mode::loop;
  std::vector<int> recorded;  // iteration numbers of the timer's records
  for (int k = 1; k <= options.max_iterations; ++k) {
    if (k > 1 && mode == Mode::loop) {
      const PhaseArray before = bytes;
      const std::unique_ptr<backend::Loop> loop = backend.record_loop(
          [&] {
            second_half();
            first_half();
          },
          target, options.max_iterations);
      for (int ph = 0; ph < kNumPhases; ++ph) replay_bytes[ph] = bytes[ph] - before[ph];
      bytes = before;
      const backend::LoopOutcome out = loop->run(k - 1);
      for (std::size_t i = 0; i < out.residual_norms.size(); ++i) {
        const double norm = out.residual_norms[i];
        result.history.push_back({k + static_cast<int>(i), norm, norm / scale, {}});
      }
      const int passes = out.iteration - (k - 1);
      for (int ph = 0; ph < kNumPhases; ++ph) bytes[ph] += passes * replay_bytes[ph];
      result.iterations = out.iteration;
      if (!out.residual_norms.empty()) result.residual_norm = out.residual_norms.back();
      if (out.stop == kernels::LoopStop::converged) result.status = SolveStatus::converged;
      if (out.stop == kernels::LoopStop::breakdown) result.status = SolveStatus::breakdown;
      break;
    }
    if (k > 1 && mode == Mode::replay && !recording) {
      const PhaseArray before = bytes;
      recording = backend.record([&] {
        second_half();
        first_half();
      });
      for (int ph = 0; ph < kNumPhases; ++ph) replay_bytes[ph] = bytes[ph] - before[ph];
      bytes = before;
    }
    if (k > 1) {
      if (recording) {
        recording->replay();
        for (int ph = 0; ph < kNumPhases; ++ph) bytes[ph] += replay_bytes[ph];
      } else {
        second_half();
      }
      timer.next_iteration();
      recorded.push_back(k - 1);
    }
    if (!recording) first_half();
    result.iterations = k;

    // The first iteration is always checked before a device-side loop takes over.
    if (mode == Mode::loop || k % options.check_every == 0 || k == options.max_iterations) {
      s = backend.read_scalars();
      result.residual_norm = std::sqrt(get(s, Scalar::rr));
      result.history.push_back({k, result.residual_norm, result.residual_norm / scale, {}});
      // The rule the device-side loop applies too (kernels/cg_loop.hpp).
      const kernels::LoopStop stop =
          kernels::cg_stop(get(s, Scalar::rz), get(s, Scalar::pq), result.residual_norm, target, k,
                           options.max_iterations);
      if (stop == kernels::LoopStop::breakdown) {
        result.status = SolveStatus::breakdown;
        break;
      }
      if (stop == kernels::LoopStop::converged) {
        result.status = SolveStatus::converged;
        break;
      }
    }
  }
  if (result.iterations > 0) {
    if (fused_steps) {
      backend.cg_finish(*p, x);  // the last step's x += alpha p
      add(Phase::update, 24.0 * n_d);
    }
    timer.next_iteration();
    recorded.push_back(result.iterations);
  }
  result.seconds = elapsed();

  // Attach the per-iteration times to the recorded iterations; with check_every > 1
  // the unrecorded iterations' times are folded into the next recorded one.
  const std::vector<PhaseArray> times = timer.per_iteration();
  std::size_t h = 1;
  PhaseArray pending{};
  for (std::size_t i = 0; i < times.size() && i < recorded.size(); ++i) {
    for (int ph = 0; ph < kNumPhases; ++ph) pending[ph] += times[i][ph];
    while (h < result.history.size() && result.history[h].iteration < recorded[i]) ++h;
    if (h < result.history.size() && result.history[h].iteration == recorded[i]) {
      result.history[h].seconds = pending;
      pending = PhaseArray{};
    }
  }
  result.unrecorded_seconds = pending;
  return result;
}

}  // namespace prism::solver
