#pragma once
// Color-set triangular solves on the device (see kernels/colorset.hpp): one launch per
// independent block of rows, TPR threads per row, TPR chosen per block from its mean
// number of strict-triangle entries per row (Suchoski used a fixed 4 and named the
// adaptive choice as future work).

#include "kernels/csr_view.hpp"
#include "kernels/cuda/device_memory.hpp"

#include <cuda_runtime.h>

#include <vector>

namespace prism::kernels::cuda {

/// One launch of a color-set solve: rows [begin, end), threads_per_row in {1,...,32}.
struct ColorsetStep {
  index_t begin;
  index_t end;
  int threads_per_row;
};

/// Steps [first, first + count) of a plan: one launch per step, or (fused) one launch of
/// a single block that runs them all, with a block barrier between steps.
struct ColorsetRun {
  int first;
  int count;
  bool fused;
};

/// Rows of a step that a fused run takes: one pass of a block of this many threads (the
/// hardware's largest block), threads per row lowered to fit.
inline constexpr index_t kFusedStepRows = 1024;

/// The launches of a color-set solve. Steps are in block order; every maximal sequence of
/// at least two consecutive steps with at most kFusedStepRows rows each is a fused run.
/// A launch costs a few microseconds however little it does, and a step of so few rows
/// is done by one block in one pass: on matrices with many small colors (bcsstk13: 41
/// colors of about 50 rows) the solve was launch-bound (H200: 133 us per solve with one
/// launch per color, 64 / 83 us lower / upper fused).
struct ColorsetPlan {
  std::vector<ColorsetStep> steps;
  std::vector<ColorsetRun> runs;
  DeviceBuffer<ColorsetStep> device_steps;  ///< steps on the device (fused runs read them)
};

/// Entries of its row a lane reads before its launch waits for the one ahead
/// (colorset_solve): with this many per lane, a row's entries need no load after the wait
/// but the gather of x.
inline constexpr int kColorsetLaneEntries = 2;

/// The plan for a strict triangle (host row pointers) and its block pointers.
/// threads_per_row is the smallest power of two whose lanes hold the block's mean entries
/// per row at kColorsetLaneEntries each, at most 32 (one warp per row); in a fused run at
/// most kFusedStepRows / rows. Uploads the steps on `stream` and waits.
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
