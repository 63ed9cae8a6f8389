#include "kernels/cuda/check.hpp"
#include "kernels/cuda/colorset.hpp"

#include <algorithm>

namespace prism::kernels::cuda {
namespace {

constexpr int kBlockThreads = 256;

/// Rows [begin, end) of one block; TPR consecutive lanes share a row, read its entries
/// with unit stride (coalesced) and reduce with shuffles inside their TPR-wide segment.
/// The factor's values are V (double, or float for precision: mixed); the sums and the
/// vectors are double either way.
template <int TPR, typename V>
__global__ void __launch_bounds__(kBlockThreads)
    colorset_rows(index_t begin, index_t end, const index_t* __restrict__ row_ptr,
                  const index_t* __restrict__ col_idx, const V* __restrict__ values,
                  const V* __restrict__ inverse_diagonal, const double* b, double* x) {
  const long long thread = static_cast<long long>(blockIdx.x) * kBlockThreads + threadIdx.x;
  const index_t row = begin + static_cast<index_t>(thread / TPR);
  const int lane = static_cast<int>(thread % TPR);
  double sum = 0.0;
  if (row < end) {
    const index_t stop = row_ptr[row + 1];
    for (index_t k = row_ptr[row] + lane; k < stop; k += TPR) {
      sum += static_cast<double>(values[k]) * x[col_idx[k]];
    }
  }
  if constexpr (TPR > 1) {
    for (int offset = TPR / 2; offset > 0; offset /= 2) {
      sum += __shfl_down_sync(0xffffffffu, sum, offset, TPR);
    }
  }
  // b is read only by the lane that writes x[row]: in-place solves are safe.
  if (row < end && lane == 0) x[row] = (b[row] - sum) * static_cast<double>(inverse_diagonal[row]);
}

template <int TPR, typename V>
void launch(const ColorsetStep& s, CsrView<V> m, const V* inv, const double* b, double* x,
            cudaStream_t stream) {
  const long long threads = static_cast<long long>(s.end - s.begin) * TPR;
  const int blocks = static_cast<int>((threads + kBlockThreads - 1) / kBlockThreads);
  colorset_rows<TPR, V><<<blocks, kBlockThreads, 0, stream>>>(s.begin, s.end, m.row_ptr, m.col_idx,
                                                              m.values, inv, b, x);
}

}  // namespace

std::vector<ColorsetStep> colorset_plan(const index_t* host_row_ptr,
                                        const std::vector<index_t>& block_ptr) {
  std::vector<ColorsetStep> plan;
  for (std::size_t c = 0; c + 1 < block_ptr.size(); ++c) {
    const index_t begin = block_ptr[c], end = block_ptr[c + 1];
    if (end <= begin) continue;
    const double mean =
        static_cast<double>(host_row_ptr[end] - host_row_ptr[begin]) / (end - begin);
    int tpr = 1;
    while (tpr < 32 && tpr < mean) tpr *= 2;
    plan.push_back({begin, end, tpr});
  }
  return plan;
}

namespace {

template <typename V>
void solve(CsrView<V> strict, const V* inverse_diagonal, const std::vector<ColorsetStep>& plan,
           bool lower, const double* b, double* x, cudaStream_t stream) {
  const std::size_t steps = plan.size();
  for (std::size_t i = 0; i < steps; ++i) {
    const ColorsetStep& s = plan[lower ? i : steps - 1 - i];
    switch (s.threads_per_row) {
      case 1:
        launch<1, V>(s, strict, inverse_diagonal, b, x, stream);
        break;
      case 2:
        launch<2, V>(s, strict, inverse_diagonal, b, x, stream);
        break;
      case 4:
        launch<4, V>(s, strict, inverse_diagonal, b, x, stream);
        break;
      case 8:
        launch<8, V>(s, strict, inverse_diagonal, b, x, stream);
        break;
      case 16:
        launch<16, V>(s, strict, inverse_diagonal, b, x, stream);
        break;
      default:
        launch<32, V>(s, strict, inverse_diagonal, b, x, stream);
        break;
    }
    PRISM_CUDA_CHECK_LAUNCH();
  }
}

}  // namespace

void colorset_solve(CsrView<double> strict, const double* inverse_diagonal,
                    const std::vector<ColorsetStep>& plan, bool lower, const double* b, double* x,
                    cudaStream_t stream) {
  solve(strict, inverse_diagonal, plan, lower, b, x, stream);
}

void colorset_solve(CsrView<float> strict, const float* inverse_diagonal,
                    const std::vector<ColorsetStep>& plan, bool lower, const double* b, double* x,
                    cudaStream_t stream) {
  solve(strict, inverse_diagonal, plan, lower, b, x, stream);
}

}  // namespace prism::kernels::cuda
