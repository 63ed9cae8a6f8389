#include "backend/cuda/cuda_timer.hpp"

namespace prism::backend::cuda {

cudaEvent_t CudaTimer::next_event() {
  if (used_ == pool_.size()) pool_.push_back(make_event());
  return pool_[used_++].get();
}

void CudaTimer::begin(Phase phase) {
  if (!enabled_) return;
  cudaEvent_t e = next_event();
  PRISM_CUDA_CHECK(cudaEventRecord(e, stream_));
  open_[static_cast<int>(phase)] = e;
}

void CudaTimer::end(Phase phase) {
  if (!enabled_) return;
  cudaEvent_t e = next_event();
  PRISM_CUDA_CHECK(cudaEventRecord(e, stream_));
  const int p = static_cast<int>(phase);
  marks_.push_back({p, iteration_, open_[p], e});
}

std::vector<PhaseArray> CudaTimer::per_iteration() {
  std::vector<PhaseArray> records(static_cast<std::size_t>(iteration_), PhaseArray{});
  if (!marks_.empty()) PRISM_CUDA_CHECK(cudaEventSynchronize(marks_.back().stop));
  for (const Mark& m : marks_) {
    if (m.iteration >= iteration_) continue;  // an iteration that was never closed
    float ms = 0.0f;
    PRISM_CUDA_CHECK(cudaEventElapsedTime(&ms, m.start, m.stop));
    records[m.iteration][m.phase] += 1e-3 * ms;
  }
  marks_.clear();
  used_ = 0;
  iteration_ = 0;
  return records;
}

}  // namespace prism::backend::cuda
