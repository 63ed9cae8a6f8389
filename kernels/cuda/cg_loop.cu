#include "kernels/cuda/cg_loop.hpp"

#include "kernels/cuda/check.hpp"

namespace prism::kernels::cuda {
namespace {

__global__ void cg_loop_check_kernel(cudaGraphConditionalHandle handle, const double* scalars,
                                     LoopState* state, double* history, double target,
                                     int max_iterations) {
  const int k = state->iteration + 1;
  const double norm = sqrt(scalars[3]);  // IEEE square root, as std::sqrt on the host
  history[k] = norm;
  const LoopStop stop = cg_stop(scalars[0], scalars[2], norm, target, k, max_iterations);
  state->iteration = k;
  state->stop = static_cast<int>(stop);
  cudaGraphSetConditional(handle, stop == LoopStop::running ? 1u : 0u);
}

}  // namespace

void cg_loop_check(cudaGraphConditionalHandle handle, const double* scalars, LoopState* state,
                   double* history, double target, int max_iterations, cudaStream_t stream) {
  cg_loop_check_kernel<<<1, 1, 0, stream>>>(handle, scalars, state, history, target,
                                            max_iterations);
  PRISM_CUDA_CHECK(cudaGetLastError());
}

}  // namespace prism::kernels::cuda
