#pragma once
// Phase timing with CUDA events recorded in the stream: nothing waits while the
// iterations run; the times are resolved once, in per_iteration().

#include "backend/backend.hpp"
#include "backend/cuda/cuda_handles.hpp"

#include <vector>

namespace prism::backend::cuda {

class CudaTimer final : public PhaseTimer {
 public:
  explicit CudaTimer(cudaStream_t stream) : stream_(stream) {}
  void set_enabled(bool enabled) override { enabled_ = enabled; }
  void begin(Phase phase) override;
  void end(Phase phase) override;
  void next_iteration() override { ++iteration_; }
  std::vector<PhaseArray> per_iteration() override;

 private:
  cudaEvent_t next_event();
  struct Mark {
    int phase;
    int iteration;
    cudaEvent_t start;
    cudaEvent_t stop;
  };
  cudaStream_t stream_;
  bool enabled_ = true;
  int iteration_ = 0;
  std::vector<Event> pool_;  // reused across solves
  std::size_t used_ = 0;
  cudaEvent_t open_[kNumPhases] = {};
  std::vector<Mark> marks_;
};

}  // namespace prism::backend::cuda
