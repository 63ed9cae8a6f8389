#pragma once
// Color-set triangular solves on the device (see kernels/colorset.hpp): one launch per
// independent block of rows, TPR threads per row, TPR chosen per block from its mean
// number of strict-triangle entries per row (Suchoski used a fixed 4 and named the
// adaptive choice as future work).

#include "kernels/csr_view.hpp"

#include <cuda_runtime.h>

#include <vector>

namespace prism::kernels::cuda {

/// One launch of a color-set solve: rows [begin, end), threads_per_row in {1,...,32}.
struct ColorsetStep {
  index_t begin;
  index_t end;
  int threads_per_row;
};

/// The launches for a strict triangle (host row pointers) and its block pointers, in
/// block order. threads_per_row is the power of two nearest above the block's mean
/// entries per row, at most 32 (one warp per row).
std::vector<ColorsetStep> colorset_plan(const index_t* host_row_ptr,
                                        const std::vector<index_t>& block_ptr);

/// Solves (D + S) x = b on the device; `strict` and the vectors are device arrays,
/// `plan` lives on the host. Lower: steps first to last; upper: last to first.
/// x may alias b. Asynchronous on `stream`. The float overload keeps the factor in
/// float (precision: mixed) and still sums and stores x in double.
void colorset_solve(CsrView<double> strict, const double* inverse_diagonal,
                    const std::vector<ColorsetStep>& plan, bool lower, const double* b, double* x,
                    cudaStream_t stream);
void colorset_solve(CsrView<float> strict, const float* inverse_diagonal,
                    const std::vector<ColorsetStep>& plan, bool lower, const double* b, double* x,
                    cudaStream_t stream);

}  // namespace prism::kernels::cuda
