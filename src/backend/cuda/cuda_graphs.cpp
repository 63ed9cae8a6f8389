#include "backend/cuda/cuda_graphs.hpp"

#include <prism/errors.hpp>

#include "kernels/cuda/device_memory.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <thread>

namespace prism::backend::cuda {
namespace {

using kernels::cuda::DeviceBuffer;
using kernels::cuda::PinnedBuffer;
namespace k = kernels::cuda;

/// Captures what `body` queues on `stream`: into `into` when given (a graph that its
/// owner keeps, such as a while node's body), else into a new graph that the caller
/// owns; returns the graph captured into. A failed capture is ended (the stream stays
/// usable) before the error propagates.
cudaGraph_t capture_into(cudaStream_t stream, cudaGraph_t into, const std::function<void()>& body) {
  if (into != nullptr) {
    PRISM_CUDA_CHECK(cudaStreamBeginCaptureToGraph(stream, into, nullptr, nullptr, 0,
                                                   cudaStreamCaptureModeThreadLocal));
  } else {
    PRISM_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  }
  try {
    body();
  } catch (...) {
    cudaGraph_t partial = nullptr;
    cudaStreamEndCapture(stream, &partial);
    if (partial != nullptr && into == nullptr) cudaGraphDestroy(partial);
    cudaGetLastError();  // clear the capture's sticky-free error state
    throw;
  }
  cudaGraph_t raw = nullptr;
  PRISM_CUDA_CHECK(cudaStreamEndCapture(stream, &raw));
  return raw;
}

GraphExec instantiate(const Graph& graph) {
  cudaGraphExec_t exec = nullptr;
  PRISM_CUDA_CHECK(cudaGraphInstantiate(&exec, graph.get(), 0));
  return GraphExec(exec);
}

/// A graph of one while node whose body is the recorded iteration followed by the
/// convergence test (kernels/cuda/cg_loop.hpp), which keeps or ends the loop. The
/// count, the verdict and the residual norms stay in device memory until run() reads
/// them back after the loop: two copies per solve instead of one per iteration (watched:
/// the norms go to mapped host memory as they are made).
class CudaLoop final : public Loop {
 public:
  /// `watched`: the residuals go to mapped host memory, which run() watches.
  CudaLoop(cudaStream_t stream, const std::function<void()>& body, const LoopCheck& check,
           int max_iterations, bool watched)
      : stream_(stream), done_(make_event()) {
    const auto slots = static_cast<std::size_t>(max_iterations) + 1;
    if (watched) {
      host_history_ = PinnedBuffer<double>(slots);
      watch_ = PinnedBuffer<k::LoopWatch>(1);
    } else {
      history_ = DeviceBuffer<double>(slots);
    }
    LoopState* state = state_.data();
    double* history = watched ? mapped(host_history_.data()) : history_.data();
    k::LoopWatch* watch = watched ? mapped(watch_.data()) : nullptr;
    // The condition starts at 1 on every launch: run() is only called to go on.
    exec_ = capture_while(stream, [&](cudaGraphConditionalHandle handle) {
      body();
      check(handle, state, history, watch);
    });
  }

  LoopOutcome run(int first, const LoopProgress* progress) override {
    if (progress != nullptr && watch_.data() == nullptr) {
      throw Error("Loop::run: a progress callback needs a loop recorded as watched");
    }
    host_state_.data()[0] = LoopState{first, 0};
    PRISM_CUDA_CHECK(cudaMemcpyAsync(state_.data(), host_state_.data(), sizeof(LoopState),
                                     cudaMemcpyHostToDevice, stream_));
    if (watch_.data() != nullptr) watch_.data()[0] = k::LoopWatch{first, 0};
    PRISM_CUDA_CHECK(cudaGraphLaunch(exec_.get(), stream_));
    PRISM_CUDA_CHECK(cudaMemcpyAsync(host_state_.data(), state_.data(), sizeof(LoopState),
                                     cudaMemcpyDeviceToHost, stream_));
    if (progress != nullptr) watch(first, *progress);
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    LoopOutcome out;
    out.iteration = host_state_.data()[0].iteration;
    out.stop = static_cast<kernels::LoopStop>(host_state_.data()[0].stop);
    const int count = out.iteration - first;
    out.residual_norms.resize(static_cast<std::size_t>(std::max(count, 0)));
    if (count > 0 && watch_.data() != nullptr) {
      std::copy_n(host_history_.data() + first + 1, count, out.residual_norms.data());
    } else if (count > 0) {
      PRISM_CUDA_CHECK(cudaMemcpyAsync(out.residual_norms.data(), history_.data() + first + 1,
                                       count * sizeof(double), cudaMemcpyDeviceToHost, stream_));
      PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    }
    return out;
  }

 private:
  using LoopState = kernels::LoopState;
  /// How often the host looks at a watched loop: often enough for a live monitor and a
  /// prompt stop, rarely enough to leave the core mostly idle.
  static constexpr std::chrono::microseconds kPollInterval{100};

  template <typename T>
  static T* mapped(T* host) {
    void* device = nullptr;
    PRISM_CUDA_CHECK(cudaHostGetDevicePointer(&device, host, 0));
    return static_cast<T*>(device);
  }

  /// Calls `progress` with each iteration the device publishes, in order, until the loop
  /// is done; a false answer (or an exception) sets the stop request.
  void watch(int first, const LoopProgress& progress) {
    PRISM_CUDA_CHECK(cudaEventRecord(done_.get(), stream_));
    volatile k::LoopWatch* shared = watch_.data();
    const volatile double* history = host_history_.data();
    int seen = first;
    bool asked = false;
    try {
      for (;;) {
        const cudaError_t state = cudaEventQuery(done_.get());
        if (state != cudaSuccess && state != cudaErrorNotReady) PRISM_CUDA_CHECK(state);
        const int published = shared->published;
        std::atomic_thread_fence(std::memory_order_acquire);  // then the norms it names
        while (seen < published) {
          ++seen;
          if (!asked && !progress(seen, history[seen])) {
            shared->stop_request = 1;
            asked = true;
          }
        }
        if (state == cudaSuccess) return;
        std::this_thread::sleep_for(kPollInterval);
      }
    } catch (...) {
      shared->stop_request = 1;
      cudaStreamSynchronize(stream_);
      throw;
    }
  }

  cudaStream_t stream_;
  DeviceBuffer<LoopState> state_{1};
  PinnedBuffer<LoopState> host_state_{1};
  DeviceBuffer<double> history_;       // unwatched: the residual norms, read after the loop
  PinnedBuffer<double> host_history_;  // watched: the same, in mapped host memory
  PinnedBuffer<k::LoopWatch> watch_;   // watched: the count published and the stop request
  Event done_;
  GraphExec exec_;
};

}  // namespace

GraphExec capture(cudaStream_t stream, const std::function<void()>& body) {
  return instantiate(Graph(capture_into(stream, nullptr, body)));
}

GraphExec capture_while(cudaStream_t stream,
                        const std::function<void(cudaGraphConditionalHandle)>& body) {
  cudaGraph_t raw = nullptr;
  PRISM_CUDA_CHECK(cudaGraphCreate(&raw, 0));
  const Graph graph(raw);
  cudaGraphConditionalHandle handle{};
  PRISM_CUDA_CHECK(
      cudaGraphConditionalHandleCreate(&handle, graph.get(), 1, cudaGraphCondAssignDefault));
  cudaGraphNodeParams params{};
  params.type = cudaGraphNodeTypeConditional;
  params.conditional.handle = handle;
  params.conditional.type = cudaGraphCondTypeWhile;
  params.conditional.size = 1;
  cudaGraphNode_t node = nullptr;
  PRISM_CUDA_CHECK(cudaGraphAddNode(&node, graph.get(), nullptr, nullptr, 0, &params));
  capture_into(stream, params.conditional.phGraph_out[0], [&] { body(handle); });
  return instantiate(graph);
}

std::unique_ptr<Loop> make_cuda_loop(cudaStream_t stream, const std::function<void()>& body,
                                     const LoopCheck& check, int max_iterations, bool watched) {
  return std::make_unique<CudaLoop>(stream, body, check, max_iterations, watched);
}

/// Graph while nodes (conditional nodes) need a CUDA 12.4 driver.
bool driver_runs_while_nodes() {
  int version = 0;
  return cudaDriverGetVersion(&version) == cudaSuccess && version >= 12040;
}

}  // namespace prism::backend::cuda
