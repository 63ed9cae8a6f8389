#pragma once
// Line IC's set-up on the device (kernels/line_ic_setup.hpp): the split of A's pattern
// kept in device memory, and the attempts of BIC(0), a launch per color (the lines of a
// color never read each other: a line reads only the band Sigma of earlier colors' lines),
// a thread a line running its rows in sequence as the reference does. The file is built
// with -fmad=false and spells its products and sums (__dmul_rn, __dadd_rn), so the factor
// equals the reference's bit for bit.

#include "kernels/cuda/device_memory.hpp"
#include "kernels/line_ic_setup.hpp"

#include <cuda_runtime.h>

#include <vector>

namespace prism::kernels::cuda {

/// kernels::LineIcSplit in device memory, with the lines and each row's line.
struct DeviceLineIcSplit {
  index_t rows = 0;
  DeviceBuffer<index_t> line_ptr, line_of;
  DeviceBuffer<index_t> lower_ptr, lower_col, lower_source;
  DeviceBuffer<index_t> upper_ptr, upper_col, upper_source;
  DeviceBuffer<index_t> diagonal_source, sub_source;
  /// As the reference's: the first entry coupling two lines of one color (-1: none); then
  /// only line_ptr and line_of are filled.
  index_t coupled_row = -1, coupled_col = -1;

  index_t lower_nnz() const { return static_cast<index_t>(lower_col.size()); }
  index_t upper_nnz() const { return static_cast<index_t>(upper_col.size()); }
};

/// reference::line_ic_split of the device pattern `a` (sorted columns; values not read),
/// the lines and colors from the host: a thread a row counts and classifies its entries, a
/// scan places them, a second pass writes them. Waits once (the operators' sizes and the
/// defect).
DeviceLineIcSplit line_ic_split_device(CsrView<double> a, const std::vector<index_t>& line_ptr,
                                       const std::vector<index_t>& color_ptr, cudaStream_t stream);

/// *failed before an attempt (memset bytes) and while no row has failed.
inline constexpr int kLineIcNoFailureByte = 0x7f;
inline constexpr int kLineIcNoFailure = 0x7f7f7f7f;

/// reference::line_ic_attempt_lines on lines [first, last) (one color, after the earlier
/// colors' launches), a thread a line, queued on `stream`. Does nothing when *failed names
/// a row of an earlier color; a line whose row i fails stops there, leaves its pivot in
/// inverse_diagonal[i] and lowers *failed to i (atomicMin), so after the colors *failed is
/// the reference's first failed row and inverse_diagonal[*failed] its pivot.
void line_ic_attempt_lines(const LineIcAttemptView& f, index_t first, index_t last, double shift,
                           int* failed, cudaStream_t stream);

/// After the colors of an attempt: out[0] = the failed row's pivot (inverse_diagonal[row])
/// and out[1] its diagonal entry, where *failed names a row; untouched otherwise.
void line_ic_failure(const int* failed, const double* inverse_diagonal, const double* diagonal,
                     double* out, cudaStream_t stream);

}  // namespace prism::kernels::cuda
