#include "backend/cuda/cuda_level_report.hpp"

#include <prism/analysis.hpp>

#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/level_report.hpp"
#include "kernels/level_report.hpp"

namespace prism::backend::cuda {

std::vector<index_t> level_ptr_on_device(const DeviceOrdered& a,
                                         const std::vector<index_t>& independent,
                                         cudaStream_t stream) {
  std::vector<index_t> level_ptr;
  if (kernels::ranges_cover(independent, a.n) &&
      kernels::cuda::range_level_ptr(a.view(), independent, level_ptr, stream)) {
    return level_ptr;
  }
  // No independent ranges (analysis::level_ptr's case too): the row-by-row level sets,
  // on the host.
  CsrMatrix<double> pattern;
  pattern.rows = pattern.cols = a.n;
  pattern.row_ptr = kernels::cuda::download_and_wait(a.row_ptr, stream);
  pattern.col_idx = kernels::cuda::download_and_wait(a.col_idx, stream);
  return level_sets(pattern).level_ptr;
}

}  // namespace prism::backend::cuda
