#include "kernels/cuda/check.hpp"
#include "kernels/cuda/spmv.hpp"
#include "kernels/cuda/threads_per_row.hpp"

namespace prism::kernels::cuda {
namespace {

constexpr int kBlockThreads = 256;

template <int TPR>
__global__ void __launch_bounds__(kBlockThreads)
    csr_vector(index_t rows, const index_t* __restrict__ row_ptr,
               const index_t* __restrict__ col_idx, const double* __restrict__ values,
               const double* __restrict__ x, double* __restrict__ y) {
  const long long thread = static_cast<long long>(blockIdx.x) * kBlockThreads + threadIdx.x;
  const index_t row = static_cast<index_t>(thread / TPR);
  const int lane = static_cast<int>(thread % TPR);
  double sum = 0.0;
  if (row < rows) {
    const index_t stop = row_ptr[row + 1];
    for (index_t k = row_ptr[row] + lane; k < stop; k += TPR) sum += values[k] * x[col_idx[k]];
  }
  if constexpr (TPR > 1) {
    for (int offset = TPR / 2; offset > 0; offset /= 2) {
      sum += __shfl_down_sync(0xffffffffu, sum, offset, TPR);
    }
  }
  if (row < rows && lane == 0) y[row] = sum;
}

template <int TPR>
void launch(CsrView<double> a, const double* x, double* y, cudaStream_t stream) {
  const long long threads = static_cast<long long>(a.rows) * TPR;
  const int blocks = static_cast<int>((threads + kBlockThreads - 1) / kBlockThreads);
  csr_vector<TPR>
      <<<blocks, kBlockThreads, 0, stream>>>(a.rows, a.row_ptr, a.col_idx, a.values, x, y);
}

}  // namespace

int spmv_threads_per_row(double mean_row_length) {
  int tpr = 1;
  while (tpr < 32 && tpr < mean_row_length) tpr *= 2;
  return tpr;
}

void spmv(CsrView<double> a, int threads_per_row, const double* x, double* y, cudaStream_t stream) {
  if (a.rows == 0) return;
  with_threads_per_row(threads_per_row,
                       [&](auto tpr) { launch<decltype(tpr)::value>(a, x, y, stream); });
  PRISM_CUDA_CHECK_LAUNCH();
}

}  // namespace prism::kernels::cuda
