#pragma once
// Color-set triangular solves on the device (see kernels/colorset.hpp): one launch per
// independent block of rows, TPR threads per row, TPR chosen per block from its mean
// number of strict-triangle entries per row (Suchoski used a fixed 4 and named the
// adaptive choice as future work).

#include "kernels/colorset_schedule.hpp"
#include "kernels/csr_view.hpp"
#include "kernels/cuda/device_memory.hpp"

#include <cuda_runtime.h>

#include <vector>

namespace prism::kernels::cuda {

/// A schedule with its steps on the device.
struct ColorsetPlan : ColorsetSchedule {
  DeviceBuffer<ColorsetStep> device_steps;  ///< steps on the device (fused runs read them)
  DeviceBuffer<index_t> device_long_rows;   ///< long_rows on the device
};

/// colorset_schedule with the steps and long rows uploaded on `stream` (waits for the
/// upload).
ColorsetPlan colorset_plan(const index_t* host_row_ptr, const std::vector<index_t>& block_ptr,
                           cudaStream_t stream);

/// Solves (D + S) x = b on the device; `strict` and the vectors are device arrays.
/// Lower: steps first to last; upper: last to first. x may alias b. Asynchronous on
/// `stream`; every launch is a dependent launch (kernels/cuda/dependent_launch.cuh), all
/// but the first reading their first factor entries before they wait for the one ahead.
/// The float overload keeps the factor in float (precision: mixed) and still sums and
/// stores x in double.
void colorset_solve(CsrView<double> strict, const double* inverse_diagonal,
                    const ColorsetPlan& plan, bool lower, const double* b, double* x,
                    cudaStream_t stream);
void colorset_solve(CsrView<float> strict, const float* inverse_diagonal, const ColorsetPlan& plan,
                    bool lower, const double* b, double* x, cudaStream_t stream);

}  // namespace prism::kernels::cuda
