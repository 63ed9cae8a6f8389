#include "kernels/cuda/check.hpp"
#include "kernels/cuda/line_ic.hpp"

namespace prism::kernels::cuda {
namespace {

/// The line of a tile that holds local row i: the last start <= i (starts[0] = 0).
__device__ index_t line_of(const index_t* starts, index_t lines, index_t i) {
  index_t lo = 0, hi = lines;  // starts[lo] <= i < starts[hi]
  while (hi - lo > 1) {
    const index_t mid = (lo + hi) / 2;
    if (starts[mid] <= i) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// One tile of a color: phase 1 a thread per row, t_i = in_i - sum_j o_ij out_j (forward:
/// o = L; backward: in = 0 and o = L^T), with sub_i and 1 / l_ii staged beside it; phase 2
/// a thread per line, the line's two sweeps on t (kernels/line_ic.hpp); phase 3 the tile
/// back, plus w for the backward half.
template <bool Forward>
__global__ void __launch_bounds__(kLineIcThreads)
    line_ic_tile(LineIcView f, const index_t* __restrict__ tile_line_ptr, index_t first_tile,
                 index_t shared_rows, const double* __restrict__ in, double* __restrict__ out) {
  extern __shared__ double shared[];
  const index_t tile = first_tile + static_cast<index_t>(blockIdx.x);
  const index_t l0 = tile_line_ptr[tile], lines = tile_line_ptr[tile + 1] - l0;
  const index_t row0 = f.line_ptr[l0], rows = f.line_ptr[l0 + lines] - row0;
  const bool staged = rows <= shared_rows;
  const index_t span = shared_rows + shared_rows;  // rows + one pad per line, at most
  double* t = staged ? shared : out + row0;
  double* sub = shared + span;
  double* inverse = shared + 2 * span;
  auto* starts = reinterpret_cast<index_t*>(shared + 3 * span);
  if (staged) {
    for (index_t l = threadIdx.x; l <= lines; l += blockDim.x) {
      starts[l] = f.line_ptr[l0 + l] - row0;
    }
    __syncthreads();
  }
  const CsrView<double> o = Forward ? f.lower : f.upper;
  for (index_t i = threadIdx.x; i < rows; i += blockDim.x) {
    const index_t row = row0 + i;
    double s = Forward ? in[row] : 0.0;
    for (index_t k = o.row_ptr[row]; k < o.row_ptr[row + 1]; ++k) {
      s -= o.values[k] * out[o.col_idx[k]];
    }
    const index_t p = staged ? i + line_of(starts, lines, i) : i;
    t[p] = s;
    if (staged) {
      sub[p] = f.sub[row];
      inverse[p] = f.inverse_diagonal[row];
    }
  }
  __syncthreads();
  const double* line_sub = staged ? sub : f.sub + row0;
  const double* line_inverse = staged ? inverse : f.inverse_diagonal + row0;
  for (index_t l = threadIdx.x; l < lines; l += blockDim.x) {
    const index_t pad = staged ? l : 0;
    const index_t a = f.line_ptr[l0 + l] - row0 + pad, b = f.line_ptr[l0 + l + 1] - row0 + pad;
    double previous = 0.0;
    for (index_t k = a; k < b; ++k) {  // t_i = (t_i - sub_i t_{i-1}) / l_ii
      double s = t[k];
      if (k > a) s -= line_sub[k] * previous;
      previous = s * line_inverse[k];
      t[k] = previous;
    }
    previous = previous * line_inverse[b - 1];
    t[b - 1] = previous;
    for (index_t k = b - 2; k >= a; --k) {  // t_i = (t_i - sub_{i+1} t_{i+1}) / l_ii
      previous = (t[k] - line_sub[k + 1] * previous) * line_inverse[k];
      t[k] = previous;
    }
  }
  if (Forward && !staged) return;  // t is out already
  __syncthreads();
  for (index_t i = threadIdx.x; i < rows; i += blockDim.x) {
    const double value = t[staged ? i + line_of(starts, lines, i) : i];
    out[row0 + i] = Forward ? value : in[row0 + i] + value;
  }
}

}  // namespace

std::size_t line_ic_shared_bytes() {
  // Three arrays of rows plus a pad per line (at most 2 * kLineIcTileRows: a line is a
  // row at least), and the tile's line starts.
  return 3 * 2 * static_cast<std::size_t>(kLineIcTileRows) * sizeof(double) +
         (static_cast<std::size_t>(kLineIcTileRows) + 1) * sizeof(index_t);
}

void line_ic_solve(const LineIcView& f, const index_t* tile_line_ptr, const LineIcTiles& tiles,
                   bool forward, const double* in, double* out, cudaStream_t stream) {
  const int colors = static_cast<int>(tiles.color_ptr.size()) - 1;
  const std::size_t shared = line_ic_shared_bytes();
  for (int k = 0; k < colors; ++k) {
    const int c = forward ? k : colors - 1 - k;
    const index_t first = tiles.color_ptr[c], count = tiles.color_ptr[c + 1] - first;
    if (count == 0) continue;
    if (forward) {
      line_ic_tile<true><<<count, kLineIcThreads, shared, stream>>>(f, tile_line_ptr, first,
                                                                    kLineIcTileRows, in, out);
    } else {
      line_ic_tile<false><<<count, kLineIcThreads, shared, stream>>>(f, tile_line_ptr, first,
                                                                     kLineIcTileRows, in, out);
    }
    PRISM_CUDA_CHECK_LAUNCH();
  }
}

}  // namespace prism::kernels::cuda
