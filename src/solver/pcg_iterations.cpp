#include "solver/pcg_iterations.hpp"

#include "kernels/cg_loop.hpp"

#include <cmath>
#include <memory>

namespace prism::solver {
namespace {

double scalar(const backend::ScalarValues& s, backend::Scalar which) {
  return s[static_cast<int>(which)];
}

/// Reads the scalars after iteration k, records the residual and applies the stopping
/// rule (the one the device-side loop applies too); true where it stops.
bool check(int k, const IterationContext& c, PcgResult& result) {
  const backend::ScalarValues s = c.backend.read_scalars();
  result.residual_norm = std::sqrt(scalar(s, backend::Scalar::rr));
  result.history.push_back({k, result.residual_norm, result.residual_norm / c.scale, {}});
  const kernels::LoopStop stop =
      kernels::cg_stop(scalar(s, backend::Scalar::rz), scalar(s, backend::Scalar::pq),
                       result.residual_norm, c.target, k, c.options.max_iterations);
  const bool go_on = c.monitor == nullptr || (*c.monitor)(result.history.back());
  if (stop == kernels::LoopStop::breakdown) result.status = SolveStatus::breakdown;
  if (stop == kernels::LoopStop::converged) result.status = SolveStatus::converged;
  if (stop == kernels::LoopStop::breakdown || stop == kernels::LoopStop::converged) return true;
  if (!go_on) result.status = SolveStatus::stopped;
  return !go_on;
}

/// Iteration first + 1 as launches, then the rest as one backend-run loop that tests
/// every iteration itself. A monitor watches it run: it is told every check_every
/// iterations as the backend publishes them, and the last; its stop takes effect at the
/// loop's next check (on a GPU, a few iterations after the one it was told).
void run_loop(CgSteps& steps, const IterationContext& c, int first, PcgResult& result) {
  steps.first_half();
  result.iterations = first + 1;
  if (check(first + 1, c, result) || c.options.max_iterations <= first + 1) return;
  const bool watched = c.monitor != nullptr;
  const std::unique_ptr<backend::Loop> loop = c.backend.record_loop(
      [&] {
        steps.second_half();
        steps.first_half();
      },
      c.target, c.options.max_iterations, watched);
  int last_told = first + 1;
  const backend::LoopProgress progress = [&](int k, double norm) {
    if (k % c.options.check_every != 0) return true;
    last_told = k;
    return (*c.monitor)(IterationRecord{k, norm, norm / c.scale, {}});
  };
  const backend::LoopOutcome out = loop->run(first + 1, watched ? &progress : nullptr);
  for (std::size_t i = 0; i < out.residual_norms.size(); ++i) {
    const double norm = out.residual_norms[i];
    result.history.push_back({first + 2 + static_cast<int>(i), norm, norm / c.scale, {}});
  }
  result.iterations = out.iteration;
  if (!out.residual_norms.empty()) result.residual_norm = out.residual_norms.back();
  if (out.stop == kernels::LoopStop::converged) result.status = SolveStatus::converged;
  if (out.stop == kernels::LoopStop::breakdown) result.status = SolveStatus::breakdown;
  if (out.stop == kernels::LoopStop::requested) {
    result.status = SolveStatus::stopped;
  } else if (watched && out.iteration != last_told) {
    (*c.monitor)(result.history.back());  // the last iteration, as the host checks tell it
  }
}

}  // namespace

std::vector<int> run_iterations(RunMode mode, CgSteps& steps, const IterationContext& c, int first,
                                PcgResult& result) {
  std::vector<int> recorded;
  if (mode == RunMode::loop) {
    if (c.options.max_iterations > first) run_loop(steps, c, first, result);
    return recorded;
  }
  // With a replay, the work between two checks (second half of k - 1, first half of k)
  // is recorded once, at k = first + 2, and replayed from then on.
  std::unique_ptr<backend::Recording> recording;
  backend::PhaseTimer& timer = c.backend.timer();
  for (int k = first + 1; k <= c.options.max_iterations; ++k) {
    if (k > first + 1) {
      if (mode == RunMode::replay && !recording) {
        recording = c.backend.record([&] {
          steps.second_half();
          steps.first_half();
        });
      }
      if (recording) {
        recording->replay();
      } else {
        steps.second_half();
      }
      timer.next_iteration();
      recorded.push_back(k - 1);
    }
    if (!recording) steps.first_half();
    result.iterations = k;
    if (k % c.options.check_every == 0 || k == c.options.max_iterations) {
      if (check(k, c, result)) break;
    }
  }
  return recorded;
}

void attach_phase_times(const std::vector<PhaseArray>& times, const std::vector<int>& recorded,
                        PcgResult& result) {
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
}

}  // namespace prism::solver
