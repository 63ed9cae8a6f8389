#pragma once
// CUDA graphs of the backend: recorded sequences replayed as one launch, and the
// device-side PCG loop (a while node) with the host watching it when asked.

#include "backend/cuda/cuda_handles.hpp"
#include "backend/execution.hpp"
#include "kernels/cuda/cg_loop.hpp"

#include <functional>
#include <memory>

namespace prism::backend::cuda {

/// A CUDA graph captured from the backend's stream, launched on it.
class CudaRecording final : public Recording {
 public:
  CudaRecording(GraphExec exec, cudaStream_t stream) : exec_(std::move(exec)), stream_(stream) {}
  void replay() override { PRISM_CUDA_CHECK(cudaGraphLaunch(exec_.get(), stream_)); }

 private:
  GraphExec exec_;
  cudaStream_t stream_;
};

/// Captures what `body` queues on `stream` into an instantiated graph. A failed capture
/// is ended (the stream stays usable) before the error propagates.
GraphExec capture(cudaStream_t stream, const std::function<void()>& body);

/// A graph of one while node whose body is what `body` queues on `stream`, given the
/// node's handle; the condition starts at 1 on every launch.
GraphExec capture_while(cudaStream_t stream,
                        const std::function<void(cudaGraphConditionalHandle)>& body);

/// Queues the convergence test (kernels/cuda/cg_loop.hpp) after a loop's body, given the
/// while node's handle, the loop's state, its residual history and (watched) the watch.
using LoopCheck = std::function<void(cudaGraphConditionalHandle, kernels::LoopState*, double*,
                                     kernels::cuda::LoopWatch*)>;

/// The device-side loop of `body` then `check`, at most max_iterations passes; `watched`:
/// the residuals go to mapped host memory, which Loop::run() watches with a LoopProgress.
std::unique_ptr<Loop> make_cuda_loop(cudaStream_t stream, const std::function<void()>& body,
                                     const LoopCheck& check, int max_iterations, bool watched);

/// Graph while nodes (conditional nodes) need a CUDA 12.4 driver.
bool driver_runs_while_nodes();

}  // namespace prism::backend::cuda
