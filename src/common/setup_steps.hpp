#pragma once
// The fine-grained steps of Solver::setup() (SetupReport::steps), recorded from wherever
// they run (the preconditioner's analysis, a backend's layouts) without passing a recorder
// through every interface: setup() opens a StepRecording on its thread, and each
// StepTimer on that thread adds its step to it. Outside a recording a StepTimer records
// nothing (a refactor, a preconditioner used on its own). Steps do not nest: a step is
// timed where its work is, never around a call that times steps of its own.

#include <prism/report.hpp>

#include <chrono>
#include <utility>
#include <vector>

namespace prism::common {

namespace detail {
inline std::vector<SetupStep>*& current_steps() {
  thread_local std::vector<SetupStep>* steps = nullptr;
  return steps;
}
}  // namespace detail

/// Steps of this thread go to `steps` while it lives (nested: the outer one again after).
class StepRecording {
 public:
  explicit StepRecording(std::vector<SetupStep>& steps)
      : previous_(std::exchange(detail::current_steps(), &steps)) {}
  ~StepRecording() { detail::current_steps() = previous_; }
  StepRecording(const StepRecording&) = delete;
  StepRecording& operator=(const StepRecording&) = delete;

 private:
  std::vector<SetupStep>* previous_;
};

/// Times the scope it lives in as one step (stop() ends it early); `name` must outlive it.
class StepTimer {
 public:
  explicit StepTimer(const char* name, bool device = false)
      : name_(name), device_(device), start_(std::chrono::steady_clock::now()) {}
  ~StepTimer() { stop(); }
  StepTimer(const StepTimer&) = delete;
  StepTimer& operator=(const StepTimer&) = delete;

  /// Ends the step unrecorded (its work went elsewhere).
  void cancel() { name_ = nullptr; }
  void stop() {
    std::vector<SetupStep>* steps = detail::current_steps();
    if (name_ == nullptr || steps == nullptr) return;
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start_;
    const char* name = std::exchange(name_, nullptr);
    try {
      steps->push_back({name, took.count(), device_});
    } catch (...) {  // out of memory: the report goes without the step, setup() goes on
    }
  }

 private:
  const char* name_;
  bool device_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace prism::common
