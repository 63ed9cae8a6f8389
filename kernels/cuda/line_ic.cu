#include "kernels/cuda/check.hpp"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/cuda/line_ic.hpp"
#include "kernels/cuda/sell_sum.cuh"

namespace prism::kernels::cuda {
namespace {

constexpr int kWarps = kLineIcThreads / 32;
constexpr int kRows = kLineIcRowsPerThread;

/// One color's launch: its tiles [first_tile, first_tile + tiles), its lines part from row
/// lines_begin (SELL slice lines_slice on), its points part rows [points_begin, points_end)
/// (slice points_slice on).
struct ColorLaunch {
  index_t first_tile;
  index_t tiles;
  index_t lines_begin;
  index_t lines_slice;
  index_t points_begin;
  index_t points_end;
  index_t points_slice;
};

/// The map x -> a x + b of a row's step (or of several rows' steps composed).
struct Affine {
  double a;
  double b;
};

/// `second` after `first`.
__device__ __forceinline__ Affine then(Affine first, Affine second) {
  return {second.a * first.a, second.a * first.b + second.b};
}

/// Each lane's map composed with those of the lanes before it: lower lanes (Up) or higher
/// lanes (down the line), Hillis-Steele with shuffles.
template <bool Up>
__device__ __forceinline__ Affine warp_scan(Affine m) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
#pragma unroll
  for (int offset = 1; offset < 32; offset *= 2) {
    const double a =
        Up ? __shfl_up_sync(0xffffffffu, m.a, offset) : __shfl_down_sync(0xffffffffu, m.a, offset);
    const double b =
        Up ? __shfl_up_sync(0xffffffffu, m.b, offset) : __shfl_down_sync(0xffffffffu, m.b, offset);
    if (Up ? lane >= offset : lane + offset < 32) m = then({a, b}, m);
  }
  return m;
}

/// The value entering this thread's rows of a chunk whose rows before it (Up; else after
/// it) enter with `carry`: the maps of the warps before this one, then those of the lanes
/// before it in its warp, applied to carry. `mine` is the thread's rows composed; `next`
/// gets the whole chunk's maps applied to carry (what enters the next chunk). Every thread
/// of the block calls it (two barriers).
template <bool Up>
__device__ double carry_in(Affine mine, double carry, Affine* totals, double& next) {
  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
  const Affine inclusive = warp_scan<Up>(mine);
  double a = Up ? __shfl_up_sync(0xffffffffu, inclusive.a, 1)
                : __shfl_down_sync(0xffffffffu, inclusive.a, 1);
  double b = Up ? __shfl_up_sync(0xffffffffu, inclusive.b, 1)
                : __shfl_down_sync(0xffffffffu, inclusive.b, 1);
  if (lane == (Up ? 0 : 31)) {
    a = 1.0;
    b = 0.0;
  }
  if (lane == (Up ? 31 : 0)) totals[warp] = inclusive;
  __syncthreads();
  double x = carry, own = carry;
#pragma unroll
  for (int k = 0; k < kWarps; ++k) {
    const int w = Up ? k : kWarps - 1 - k;
    if (w == warp) own = x;
    x = totals[w].a * x + totals[w].b;
  }
  next = x;
  __syncthreads();  // totals are free for the next scan
  return a * own + b;
}

/// sum[j] = row first + j of `o` (SELL, its range's rows from row0 in slices from slice0
/// on) times x, for the thread's rows below end (0 for the others): sell_sum's sums (each
/// row's entries in order), their loads interleaved, two entries of every row and then
/// their gathers, so that a thread waits about two memory latencies a pair of entries
/// rather than two a row and entry.
__device__ __forceinline__ void rows_sums(const SellView<double>& o, index_t first, index_t end,
                                          index_t row0, index_t slice0, const double* x,
                                          double (&sum)[kRows]) {
  index_t k[kRows], stop[kRows];
#pragma unroll
  for (int j = 0; j < kRows; ++j) {
    const index_t row = first + j;
    sum[j] = 0.0;
    k[j] = stop[j] = 0;
    if (row < end) {
      const index_t t = row - row0;
      const index_t slice = slice0 + t / kSellSlice;
      k[j] = o.slice_ptr[slice] + t % kSellSlice;
      stop[j] = o.slice_ptr[slice + 1];
    }
  }
  for (;;) {
    index_t c0[kRows], c1[kRows];
    double v0[kRows], v1[kRows];
    bool any = false;
#pragma unroll
    for (int j = 0; j < kRows; ++j) {
      const bool has0 = k[j] < stop[j], has1 = k[j] + kSellSlice < stop[j];
      c0[j] = has0 ? o.col_idx[k[j]] : -1;
      v0[j] = has0 ? o.values[k[j]] : 0.0;
      c1[j] = has1 ? o.col_idx[k[j] + kSellSlice] : -1;
      v1[j] = has1 ? o.values[k[j] + kSellSlice] : 0.0;
      any = any || has0;
    }
    if (!any) break;
#pragma unroll
    for (int j = 0; j < kRows; ++j) {
      if (c0[j] >= 0) sum[j] += v0[j] * x[c0[j]];
      if (c1[j] >= 0) sum[j] += v1[j] * x[c1[j]];
      k[j] += 2 * kSellSlice;
    }
  }
}

/// One tile of whole lines, chunk by chunk (kernels/cuda/line_ic.hpp). A thread's rows are
/// kRows consecutive ones. Forward sweep y_i = (t_i - sub_i y_{i-1}) / l_ii, backward
/// w_i = (y_i - sub_{i+1} w_{i+1}) / l_ii (sub is 0 at a line's first row, so neither
/// crosses from one line into the next); t_i = in_i - (L w)_i forward, -(L^T z)_i backward,
/// where the result is added to in.
template <bool Forward>
__device__ void line_tile(const ColorLaunch& c, const LineIcDevice& f, const double* in,
                          double* out) {
  __shared__ Affine totals[kWarps];
  const index_t tile = c.first_tile + static_cast<index_t>(blockIdx.x);
  const index_t begin = f.tile_begin[tile], end = f.tile_end[tile];
  const SellView<double> o = Forward ? f.lower : f.upper;
  const bool single = end - begin <= kLineIcTileRows;  // y stays in registers
  wait_for_previous();
  double y[kRows], sub[kRows], inverse[kRows];
  double carry = 0.0;
  for (index_t base = begin; base < end; base += kLineIcTileRows) {
    const index_t first = base + static_cast<index_t>(threadIdx.x) * kRows;
    double sum[kRows];
    rows_sums(o, first, end, c.lines_begin, c.lines_slice, out, sum);
    Affine mine{1.0, 0.0};
#pragma unroll
    for (int j = 0; j < kRows; ++j) {
      const index_t row = first + j;
      sub[j] = inverse[j] = y[j] = 0.0;
      if (row < end) {
        sub[j] = f.sub[row];
        inverse[j] = f.inverse_diagonal[row];
        y[j] = (Forward ? in[row] : 0.0) - sum[j];
        mine = then(mine, {-sub[j] * inverse[j], y[j] * inverse[j]});
      }
    }
    double next = 0.0;
    double previous = carry_in<true>(mine, carry, totals, next);
    carry = next;
#pragma unroll
    for (int j = 0; j < kRows; ++j) {
      if (first + j < end) {
        y[j] = (y[j] - sub[j] * previous) * inverse[j];
        previous = y[j];
        if (!single) out[first + j] = y[j];
      }
    }
  }
  carry = 0.0;
  for (index_t base = begin + (end - begin - 1) / kLineIcTileRows * kLineIcTileRows; base >= begin;
       base -= kLineIcTileRows) {
    const index_t first = base + static_cast<index_t>(threadIdx.x) * kRows;
    if (!single) {
#pragma unroll
      for (int j = 0; j < kRows; ++j) {
        const index_t row = first + j;
        sub[j] = inverse[j] = y[j] = 0.0;
        if (row < end) {
          sub[j] = f.sub[row];
          inverse[j] = f.inverse_diagonal[row];
          y[j] = out[row];  // this thread's own write
        }
      }
    }
    double below[kRows];  // sub_{i+1}: 0 after the tile
#pragma unroll
    for (int j = 0; j + 1 < kRows; ++j) below[j] = sub[j + 1];
    below[kRows - 1] = first + kRows < end ? f.sub[first + kRows] : 0.0;
    Affine mine{1.0, 0.0};
#pragma unroll
    for (int j = kRows - 1; j >= 0; --j) {
      if (first + j < end) mine = then(mine, {-below[j] * inverse[j], y[j] * inverse[j]});
    }
    double next = 0.0;
    double following = carry_in<false>(mine, carry, totals, next);
    carry = next;
#pragma unroll
    for (int j = kRows - 1; j >= 0; --j) {
      const index_t row = first + j;
      if (row < end) {
        y[j] = (y[j] - below[j] * following) * inverse[j];
        following = y[j];
        out[row] = Forward ? y[j] : in[row] + y[j];
      }
    }
  }
}

/// A row of the points part (a line of one row): ic0's color-set row in SELL with the
/// line's two sweeps, a scaling by 1 / l_ii each. Reads the factor before it waits for the
/// kernel ahead (with `prefetch`, start_after_previous).
template <bool Forward>
__device__ void point_row(const ColorLaunch& c, const LineIcDevice& f, const double* in,
                          double* out) {
  const index_t block = static_cast<index_t>(blockIdx.x) - c.tiles;  // among the points'
  const index_t i = block * kLineIcThreads + static_cast<index_t>(threadIdx.x);
  const index_t row = c.points_begin + i;
  if (row >= c.points_end) {
    wait_for_previous();
    return;
  }
  const SellView<double> o = Forward ? f.lower : f.upper;
  const index_t slice = c.points_slice + i / kSellSlice;
  const double scale = f.inverse_diagonal[row];
  const double sum = sell_sum(
      o.col_idx, o.values, o.slice_ptr[slice] + i % kSellSlice, o.slice_ptr[slice + 1],
      [out](index_t j) { return out[j]; }, wait_for_previous);
  const double y = ((Forward ? in[row] : 0.0) - sum) * scale * scale;
  out[row] = Forward ? y : in[row] + y;
}

/// One color of a half: the first c.tiles blocks its tiles, the others its points part.
/// Colors with one part alone take the kernel of that part, so that a color of points
/// keeps the registers (and the blocks an SM holds) of a point row.
template <bool Forward, bool Tiles, bool Points>
__global__ void __launch_bounds__(kLineIcThreads)
    line_ic_color(ColorLaunch c, bool prefetch, LineIcDevice f, const double* in, double* out) {
  start_after_previous(prefetch);
  if (Tiles && (!Points || static_cast<index_t>(blockIdx.x) < c.tiles)) {  // uniform in a block
    line_tile<Forward>(c, f, in, out);
  } else {
    point_row<Forward>(c, f, in, out);
  }
}

template <bool Forward>
void launch_color(const ColorLaunch& c, index_t point_blocks, bool prefetch, const LineIcDevice& f,
                  const double* in, double* out, cudaStream_t stream) {
  const auto kernel = c.tiles == 0        ? line_ic_color<Forward, false, true>
                      : point_blocks == 0 ? line_ic_color<Forward, true, false>
                                          : line_ic_color<Forward, true, true>;
  launch_after_previous(kernel, static_cast<int>(c.tiles + point_blocks), kLineIcThreads, stream, c,
                        prefetch, f, in, out);
}

}  // namespace

void line_ic_solve(const LineIcDevice& f, const LineIcPlan& plan,
                   const std::vector<index_t>& range_slice, bool forward, const double* in,
                   double* out, cudaStream_t stream) {
  const int colors = static_cast<int>(plan.color_tile.size()) - 1;
  bool prefetch = false;  // only behind a launch of this loop
  for (int k = 0; k < colors; ++k) {
    const int col = forward ? k : colors - 1 - k;
    ColorLaunch c{};
    c.first_tile = plan.color_tile[col];
    c.tiles = plan.color_tile[col + 1] - c.first_tile;
    c.lines_begin = plan.range_ptr[2 * col];
    c.lines_slice = range_slice[2 * col];
    c.points_begin = plan.range_ptr[2 * col + 1];
    c.points_end = plan.range_ptr[2 * col + 2];
    c.points_slice = range_slice[2 * col + 1];
    const index_t point_blocks =
        (c.points_end - c.points_begin + kLineIcThreads - 1) / static_cast<index_t>(kLineIcThreads);
    if (c.tiles + point_blocks == 0) continue;
    if (forward) {
      launch_color<true>(c, point_blocks, prefetch, f, in, out, stream);
    } else {
      launch_color<false>(c, point_blocks, prefetch, f, in, out, stream);
    }
    prefetch = true;
  }
}

}  // namespace prism::kernels::cuda
