#pragma once
// How the iterations of pcg() run after the set-up of the recurrence: launched one by
// one, replayed as one recorded unit between host checks, or as a loop the backend runs
// by itself (solver/plan.hpp: RunMode); and how the timer's records become the history.

#include "backend/backend.hpp"
#include "solver/cg_steps.hpp"
#include "solver/pcg.hpp"

#include <functional>
#include <vector>

namespace prism::solver {

/// The state the iterations need besides the steps.
struct IterationContext {
  backend::Backend& backend;
  const SolverOptions& options;
  double target;  ///< stop when ||r_k|| <= target
  double scale;   ///< ||b||, for the relative residuals of the history
  /// Sees each record added to the history; false stops the solve (status stopped).
  const std::function<bool(const IterationRecord&)>* monitor = nullptr;
};

/// Runs iterations first + 1, first + 2, ... (the recurrence set up afresh before
/// first + 1) until the stopping rule (kernels::cg_stop) ends them, filling
/// result.iterations, status, residual_norm and history; returns the iteration numbers
/// whose times the timer recorded, in order.
std::vector<int> run_iterations(RunMode mode, CgSteps& steps, const IterationContext& context,
                                int first, PcgResult& result);

/// Attaches the timer's per-iteration times to the recorded iterations of the history;
/// with check_every > 1 the unchecked iterations' times are folded into the next checked
/// one, and the rest goes to result.unrecorded_seconds.
void attach_phase_times(const std::vector<PhaseArray>& times, const std::vector<int>& recorded,
                        PcgResult& result);

}  // namespace prism::solver
