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
  // No independent ranges (block_ic's and line_ic's orders couple rows inside a color):
  // row by row as a dataflow, exact where each entry below the diagonal has its mirror
  // (the checked set-up's symmetric pattern); else the host's level sets.
  if (kernels::cuda::dataflow_level_ptr(a.view(), level_ptr, stream)) return level_ptr;
  CsrMatrix<double> pattern;
  pattern.rows = pattern.cols = a.n;
  pattern.row_ptr = kernels::cuda::download_and_wait(a.row_ptr, stream);
  pattern.col_idx = kernels::cuda::download_and_wait(a.col_idx, stream);
  return level_sets(pattern).level_ptr;
}

}  // namespace prism::backend::cuda
