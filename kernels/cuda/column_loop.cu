#include "kernels/cuda/column_loop.hpp"

#include "kernels/cg_scalars.hpp"
#include "kernels/cuda/check.hpp"

namespace prism::kernels::cuda {
namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    column_loop_check_kernel(cudaGraphConditionalHandle handle, const double* __restrict__ s,
                             const index_t* __restrict__ cols, int count,
                             const double* __restrict__ targets, ColumnLoopState* state,
                             double* __restrict__ history, int check_every, int max_iterations) {
  __shared__ int stops;
  const int k = state->iteration + 1;
  const bool check = k % check_every == 0 || k >= max_iterations;
  if (threadIdx.x == 0) stops = 0;
  __syncthreads();
  if (check) {
    double* row = history + static_cast<std::ptrdiff_t>(state->checks) * count;
    bool stop = false;
    for (int c = threadIdx.x; c < count; c += kThreads) {
      const index_t j = cols[c];
      if (j < 0) continue;  // masked (kernels/cuda/columns.hpp): its row entry is not written
      const double* sc = s + static_cast<std::ptrdiff_t>(j) * kCgScalarCount;
      const double norm = sqrt(sc[kCgRr]);  // IEEE square root, as std::sqrt on the host
      row[c] = norm;
      stop = stop || cg_stop(sc[kCgRz], sc[kCgPq], norm, targets[j], k, max_iterations) !=
                         LoopStop::running;
    }
    if (stop) atomicOr(&stops, 1);
  }
  __syncthreads();
  if (threadIdx.x != 0) return;
  state->iteration = k;
  if (check) ++state->checks;
  const bool ends = check && (stops != 0 || k >= state->last);
  cudaGraphSetConditional(handle, ends ? 0u : 1u);
}

}  // namespace

void column_loop_check(cudaGraphConditionalHandle handle, const double* s, const index_t* cols,
                       int count, const double* targets, ColumnLoopState* state, double* history,
                       int check_every, int max_iterations, cudaStream_t stream) {
  column_loop_check_kernel<<<1, kThreads, 0, stream>>>(handle, s, cols, count, targets, state,
                                                       history, check_every, max_iterations);
  PRISM_CUDA_CHECK_LAUNCH();
}

}  // namespace prism::kernels::cuda
