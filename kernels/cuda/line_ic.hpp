#pragma once
// Line IC's solves on the device (kernels/line_ic.hpp): one launch per color and half, the
// vectors in the solver's order (each line's rows contiguous, no interleaved copy). L and
// L^T are stored in SELL-32 over the plan's ranges (LineIcPlan: per color a lines part and
// a points part). In a launch the first blocks take the color's tiles of lines, the others
// its points part:
// - a tile (whole consecutive lines, at most kLineIcTileRows rows a chunk): a thread takes
//   kLineIcRowsPerThread consecutive rows and forms their right-hand sides (the product
//   with the other colors' rows, the loads of its rows interleaved); the block runs the two
//   bidiagonal sweeps of the lines' Cholesky factors as parallel scans of affine maps (a
//   row's step is y_i = a_i y_{i-1} + b_i; the factor's sub-diagonal is 0 at a line's first
//   row, so the maps of a tile's many lines chain into one scan that restarts at every
//   line): a thread composes its rows, the warps scan with shuffles, the block combines the
//   warps' totals, and each thread then runs its rows' steps with the reference's formula
//   from its carry-in. A line longer than a chunk runs chunk after chunk, its forward
//   result kept in the output vector between the sweeps. ptxas (CUDA 13, sm_90) gives the
//   tile kernels 60 to 64 registers: 4 blocks of 256 threads an SM.
// - the points part (lines of one row, where the sweeps are a scaling): a thread a row,
//   ic0's SELL color-set row (sell_sum), w_i = ((r_i - sum) / l_ii) / l_ii.
// Each launch is a dependent launch (kernels/cuda/dependent_launch.cuh).

#include "kernels/cuda/sell.hpp"
#include "kernels/line_ic.hpp"

#include <cuda_runtime.h>

namespace prism::kernels::cuda {

inline constexpr int kLineIcThreads = 256;
inline constexpr int kLineIcRowsPerThread = 4;
/// Rows of a tile's chunk: a thread block's rows, kLineIcRowsPerThread a thread (grid lines
/// of 96 rows: 10 lines a tile).
inline constexpr index_t kLineIcTileRows = kLineIcThreads * kLineIcRowsPerThread;

/// Line IC's operators on the device.
struct LineIcDevice {
  SellView<double> lower;  ///< L in SELL-32 over the plan's range_ptr
  SellView<double> upper;  ///< L^T likewise
  const double* sub = nullptr;
  const double* inverse_diagonal = nullptr;
  const index_t* tile_begin = nullptr;  ///< the plan's tiles
  const index_t* tile_end = nullptr;
};

/// The forward half (in = r, out = w) or the backward half (in = w, out = z) on the device;
/// `plan` (with `range_slice`, the SELL layouts' first slice of each range) on the host.
/// One launch per color on `stream`, asynchronous, recordable. `out` must not alias `in`.
void line_ic_solve(const LineIcDevice& f, const LineIcPlan& plan,
                   const std::vector<index_t>& range_slice, bool forward, const double* in,
                   double* out, cudaStream_t stream);

}  // namespace prism::kernels::cuda
