#include "backend/cuda/cuda_column_loop.hpp"

#include "backend/cuda/cuda_graphs.hpp"
#include "kernels/cuda/column_loop.hpp"
#include "kernels/cuda/columns.hpp"
#include "kernels/cuda/device_memory.hpp"

#include <algorithm>
#include <climits>

namespace prism::backend::cuda {
namespace {

namespace k = kernels::cuda;

/// The loop's history holds the norms of at most kRows check points per run(): run()
/// bounds its span so that no run passes more (a run may pass two more check points than
/// its span holds multiples of check_every: the one it ends on and max_iterations).
constexpr int kRows = 128;

class CudaColumnLoop final : public ColumnLoop {
 public:
  CudaColumnLoop(cudaStream_t stream, const std::function<void()>& body, const ColumnSet& set,
                 Vector& s, const std::vector<double>& targets, int check_every, int max_iterations)
      : stream_(stream),
        cols_(set.backend_columns()),
        s_(s.data()),
        count_(set.count()),
        check_every_(check_every),
        targets_(k::upload_and_wait(targets, stream)),
        history_(static_cast<std::size_t>(kRows) * static_cast<std::size_t>(set.count())) {
    exec_ = capture_while(stream, [&](cudaGraphConditionalHandle handle) {
      body();
      k::column_loop_check(handle, s.data(), set.backend_columns(), count_, targets_.data(),
                           state_.data(), history_.data(), check_every, max_iterations, stream);
    });
  }

  ColumnLoopOutcome run(int first, int chunk) override {
    const long long span = std::clamp<long long>(
        chunk, 1, static_cast<long long>(kRows - 3) * static_cast<long long>(check_every_));
    k::ColumnLoopState& state = host_state_.data()[0];
    state = {first, 0, static_cast<int>(std::min<long long>(first + span, INT_MAX))};
    PRISM_CUDA_CHECK(
        cudaMemcpyAsync(state_.data(), &state, sizeof(state), cudaMemcpyHostToDevice, stream_));
    k::owe_nothing_columns(cols_, count_, s_, stream_);  // the body's first direction adds none
    PRISM_CUDA_CHECK(cudaGraphLaunch(exec_.get(), stream_));
    PRISM_CUDA_CHECK(
        cudaMemcpyAsync(&state, state_.data(), sizeof(state), cudaMemcpyDeviceToHost, stream_));
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    ColumnLoopOutcome out;
    out.iteration = state.iteration;
    const std::size_t size = static_cast<std::size_t>(std::clamp(state.checks, 0, kRows)) *
                             static_cast<std::size_t>(count_);
    out.residual_norms.resize(size);
    if (size > 0) {
      PRISM_CUDA_CHECK(cudaMemcpyAsync(out.residual_norms.data(), history_.data(),
                                       size * sizeof(double), cudaMemcpyDeviceToHost, stream_));
      PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    return out;
  }

 private:
  cudaStream_t stream_;
  const index_t* cols_;  // the set's list (its masks read at each run)
  double* s_;
  int count_;
  int check_every_;
  k::DeviceBuffer<double> targets_;
  k::DeviceBuffer<double> history_;
  k::DeviceBuffer<k::ColumnLoopState> state_{1};
  k::PinnedBuffer<k::ColumnLoopState> host_state_{1};
  GraphExec exec_;
};

}  // namespace

std::unique_ptr<ColumnLoop> make_cuda_column_loop(cudaStream_t stream,
                                                  const std::function<void()>& body,
                                                  const ColumnSet& set, Vector& s,
                                                  const std::vector<double>& targets,
                                                  int check_every, int max_iterations) {
  return std::make_unique<CudaColumnLoop>(stream, body, set, s, targets, check_every,
                                          max_iterations);
}

}  // namespace prism::backend::cuda
