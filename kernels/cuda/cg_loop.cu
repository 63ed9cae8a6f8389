#include "kernels/cuda/cg_loop.hpp"

#include "kernels/cg_scalars.hpp"
#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/dependent_launch.cuh"

namespace prism::kernels::cuda {
namespace {

constexpr int kThreads = 256;  // as blas1.cu's finish_sum, for the same summation order

__global__ void __launch_bounds__(kThreads)
    cg_loop_check_kernel(cudaGraphConditionalHandle handle, double* scalars,
                         const double* __restrict__ rr_partials, int rr_count, LoopState* state,
                         double* history, LoopWatch* watch, double target, int max_iterations) {
  wait_for_previous();
  if (rr_count > 0) {
    double sum = 0.0;
    for (int i = threadIdx.x; i < rr_count; i += kThreads) sum += rr_partials[i];
    sum = block_sum<kThreads>(sum);
    if (threadIdx.x == 0) scalars[kCgRr] = sum;
  }
  if (threadIdx.x != 0) return;
  const int k = state->iteration + 1;
  const double norm = sqrt(scalars[kCgRr]);  // IEEE square root, as std::sqrt on the host
  history[k] = norm;
  LoopStop stop = cg_stop(scalars[kCgRz], scalars[kCgPq], norm, target, k, max_iterations);
  if (watch != nullptr) {
    volatile LoopWatch* shared = watch;
    __threadfence_system();  // history[k] reaches the host before the count that names it
    shared->published = k;
    if (stop == LoopStop::running && shared->stop_request != 0) stop = LoopStop::requested;
  }
  state->iteration = k;
  state->stop = static_cast<int>(stop);
  cudaGraphSetConditional(handle, stop == LoopStop::running ? 1u : 0u);
}

}  // namespace

void cg_loop_check(cudaGraphConditionalHandle handle, double* scalars, const double* rr_partials,
                   int rr_count, LoopState* state, double* history, LoopWatch* watch, double target,
                   int max_iterations, cudaStream_t stream) {
  launch_after_previous(cg_loop_check_kernel, 1, kThreads, stream, handle, scalars, rr_partials,
                        rr_count, state, history, watch, target, max_iterations);
}

}  // namespace prism::kernels::cuda
