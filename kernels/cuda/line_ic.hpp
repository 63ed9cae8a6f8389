#pragma once
// Line IC's solves on the device (kernels/line_ic.hpp): one launch per color, a thread
// block per tile of the color's lines (LineIcTiles). The vectors stay in the solver's
// order, each line's rows contiguous, and are not copied into an interleaved layout: a
// block first reads its tile's rows coalesced, a thread per row forming the row's product
// with A's couplings to the other colors into shared memory, beside the row's entries of
// the line's Cholesky factor; then one thread per line runs the line's two sweeps there (a
// dependent chain, so one thread, and shared memory makes each step a few cycles instead of
// a dependent global load; a warp per line would idle 31 lanes); then the block writes the
// tile back coalesced. Shared memory keeps a line's rows one pad apart from the next
// line's, so that lines of a power-of-two length do not all fall in one bank. A line longer
// than a tile is a tile of its own, swept in global memory. Traffic per half: A's entries
// off the lines (12 B each, the gathered vector reads aside), 20 B a row of operators (the
// factor's two entries, a row pointer) and 16 B a row of vectors (24 B in the backward half,
// which reads w too).

#include "kernels/line_ic.hpp"

#include <cuda_runtime.h>

namespace prism::kernels::cuda {

/// Rows of a tile: 256 keeps 3 x 2 KiB of shared memory per block of kLineIcThreads, so
/// that many blocks share an SM while one thread per line sweeps (grid lines of 32 to 128
/// rows: 2 to 8 lines a tile).
inline constexpr index_t kLineIcTileRows = 256;
inline constexpr int kLineIcThreads = 128;

/// Dynamic shared memory of a launch (tiles planned with kLineIcTileRows).
std::size_t line_ic_shared_bytes();

/// The forward half (in = r, out = w) or the backward half (in = w, out = z) on the device: `f` and
/// `tile_line_ptr` (tiles.line_ptr) in device memory, `tiles` (its color_ptr) on the host. One
/// launch per color on `stream`, asynchronous, recordable. `out` must not alias `in`.
void line_ic_solve(const LineIcView& f, const index_t* tile_line_ptr, const LineIcTiles& tiles,
                   bool forward, const double* in, double* out, cudaStream_t stream);

}  // namespace prism::kernels::cuda
