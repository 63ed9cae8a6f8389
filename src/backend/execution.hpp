#pragma once
// How a backend runs queued work besides launching it: per-phase timing, recorded
// sequences replayed as one unit, and loops the backend repeats by itself.

#include <prism/report.hpp>

#include "kernels/cg_loop.hpp"

#include <functional>
#include <memory>
#include <vector>

namespace prism::backend {

/// Times the phases of each iteration. A backend may record asynchronously (events)
/// and resolve the times only in per_iteration(), so timing adds no host round trip.
class PhaseTimer {
 public:
  virtual ~PhaseTimer() = default;
  /// Off: begin/end record nothing (timing: total), iterations are still counted.
  virtual void set_enabled(bool enabled) = 0;
  virtual void begin(Phase phase) = 0;
  virtual void end(Phase phase) = 0;
  /// Closes the current iteration's record.
  virtual void next_iteration() = 0;
  /// Times of every closed iteration (zeros when disabled); also resets the timer.
  virtual std::vector<PhaseArray> per_iteration() = 0;
};

/// A sequence of queued operations recorded once and replayed as one unit (cuda: a
/// CUDA graph), on the same vectors, matrices and factors it was recorded on.
class Recording {
 public:
  virtual ~Recording() = default;
  /// Queues the recorded operations again.
  virtual void replay() = 0;
};

/// Where a device-side loop stopped.
struct LoopOutcome {
  int iteration = 0;  ///< the last iteration completed
  kernels::LoopStop stop = kernels::LoopStop::running;
  /// Residual norms of the iterations the loop ran (first + 1 .. iteration).
  std::vector<double> residual_norms;
};

/// Told of each iteration a loop completes, in order, on the calling thread, while the loop
/// runs; returns false to ask the loop to stop (it stops with LoopStop::requested: on the
/// cpu after that iteration, on cuda at the first check after the device sees the request).
using LoopProgress = std::function<bool(int iteration, double residual_norm)>;

/// Operations recorded once as the body of a loop that the backend repeats by itself,
/// applying the stopping rule of kernels/cg_loop.hpp to its scalars after each pass
/// (cuda: a CUDA graph with a while node; no host round trip between iterations).
class Loop {
 public:
  virtual ~Loop() = default;
  /// Runs the body as iterations first + 1, first + 2, ... until the rule stops it
  /// (at the latest after max_iterations); returns once it has stopped. `progress` only
  /// for a loop recorded as watched (Recorder::record_loop).
  virtual LoopOutcome run(int first, const LoopProgress* progress = nullptr) = 0;
};

}  // namespace prism::backend
