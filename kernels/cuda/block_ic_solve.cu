#include "kernels/cuda/block_ic.hpp"

#include "kernels/cuda/check.hpp"

namespace prism::kernels::cuda {
namespace {

constexpr int kThreads = 128;
constexpr int kWarp = 32;
constexpr int kWarpsPerBlock = kThreads / kWarp;

int grid_for(long long items, int per_block) {
  return static_cast<int>((items + per_block - 1) / per_block);
}

/// reference::block_ic_forward_row, a warp per block row of the level (any block sizes):
/// lane k takes rows k, k + 32, ... of the block, so the off-diagonal sums need no
/// reduction and the warp reads each block L_IJ row by row, contiguously. Then the
/// substitution through L_II, column by column: by shuffles of the lanes' partial sums when
/// the block fits a warp, else through u (the sums stored there, __syncwarp ordering each
/// column's write before the next reads).
template <typename T>
__global__ void forward_level(BlockIcView p, index_t first, index_t count, const double* values,
                              const T* blocks, const double* scale, const double* r, double* u) {
  const index_t w = (static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (w >= count) return;  // whole warps: count is in warps
  const index_t block = p.level_blocks[first + w];
  const index_t pi = p.block_ptr[block], bi = p.block_ptr[block + 1] - pi;
  const index_t begin = p.row_ptr[block], end = p.row_ptr[block + 1];
  const double* d = values + p.diagonal[block];
  double t = 0.0;  // row `lane` (blocks of up to a warp)
  for (index_t row = lane; row < bi; row += kWarp) {
    double s = scale[pi + row] * r[pi + row];
    for (index_t e = begin; e < end; ++e) {
      const index_t pj = p.block_ptr[p.col[e]], bj = p.block_ptr[p.col[e] + 1] - pj;
      const T* l = blocks + p.offset[e] + static_cast<std::int64_t>(row) * bj;
      for (index_t c = 0; c < bj; ++c) s -= static_cast<double>(l[c]) * u[pj + c];
    }
    if (bi <= kWarp) {
      t = s;
    } else {
      u[pi + row] = s;
    }
  }
  if (bi <= kWarp) {
    for (index_t m = 0; m < bi; ++m) {
      const double y = __shfl_sync(0xffffffffu, t, static_cast<int>(m)) / d[m * bi + m];
      if (lane == m) u[pi + m] = y;
      if (lane > m && lane < bi) t -= d[lane * bi + m] * y;
    }
    return;
  }
  for (index_t m = 0; m < bi; ++m) {
    __syncwarp();
    const double y = u[pi + m] / d[m * bi + m];
    __syncwarp();
    if (lane == 0) u[pi + m] = y;
    for (index_t row = m + 1 + lane; row < bi; row += kWarp) u[pi + row] -= d[row * bi + m] * y;
  }
}

/// reference::block_ic_backward_row, a warp per block row of the level: lane k takes
/// columns k, k + 32, ... of the block, summing over the block rows coupling to it (the
/// warp reads each L_IJ row by row), then the substitution through L_JJ^T, last column
/// first, as forward_level's.
template <typename T>
__global__ void backward_level(BlockIcView p, index_t first, index_t count, const double* values,
                               const T* blocks, const double* scale, const double* u, double* x,
                               double* z) {
  const index_t w = (static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (w >= count) return;
  const index_t block = p.level_blocks[first + w];
  const index_t pj = p.block_ptr[block], bj = p.block_ptr[block + 1] - pj;
  const index_t begin = p.transpose_ptr[block], end = p.transpose_ptr[block + 1];
  const double* d = values + p.diagonal[block];
  double t = 0.0;
  for (index_t c = lane; c < bj; c += kWarp) {
    double s = u[pj + c];
    for (index_t k = begin; k < end; ++k) {
      const index_t e = p.transpose_entry[k], i = p.entry_row[e];
      const index_t pi = p.block_ptr[i], bi = p.block_ptr[i + 1] - pi;
      const T* l = blocks + p.offset[e] + c;
      for (index_t row = 0; row < bi; ++row) {
        s -= static_cast<double>(l[static_cast<std::int64_t>(row) * bj]) * x[pi + row];
      }
    }
    if (bj <= kWarp) {
      t = s;
    } else {
      x[pj + c] = s;
    }
  }
  if (bj <= kWarp) {
    for (index_t c = bj - 1; c >= 0; --c) {
      const double y = __shfl_sync(0xffffffffu, t, static_cast<int>(c)) / d[c * bj + c];
      if (lane == c) {
        x[pj + c] = y;
        z[pj + c] = scale[pj + c] * y;
      }
      if (lane < c) t -= d[c * bj + lane] * y;
    }
    return;
  }
  for (index_t c = bj - 1; c >= 0; --c) {
    __syncwarp();
    const double y = x[pj + c] / d[c * bj + c];
    __syncwarp();
    if (lane == 0) {
      x[pj + c] = y;
      z[pj + c] = scale[pj + c] * y;
    }
    for (index_t m = lane; m < c; m += kWarp) x[pj + m] -= d[c * bj + m] * y;
  }
}

/// Sum over the G lanes of a group (G a power of two dividing the warp).
template <int G>
__device__ double group_sum(double s) {
  for (int offset = G / 2; offset > 0; offset /= 2) s += __shfl_xor_sync(0xffffffffu, s, offset, G);
  return s;
}

/// The same forward row for blocks all of B rows, a group of G lanes per block row: each
/// lane takes whole blocks L_IJ (B x B, contiguous) with their B values of u, so one pass
/// reads the block row and B sums leave it; then every lane of the group substitutes
/// through L_II (registers) and lane r % G writes row r. Groups past `count` idle through the
/// shuffles (the whole warp takes part in them).
template <typename T, int B, int G>
__global__ void forward_uniform(BlockIcView p, index_t first, index_t count, const double* values,
                                const T* blocks, const double* scale, const double* r, double* u) {
  const index_t g = (static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x) / G;
  const int lane = threadIdx.x % G;
  const bool active = g < count;
  const index_t block = active ? p.level_blocks[first + g] : 0;
  double acc[B] = {};
  const index_t end = active ? p.row_ptr[block + 1] : 0;
  for (index_t e = (active ? p.row_ptr[block] : 0) + lane; e < end; e += G) {
    const index_t pj = p.block_ptr[p.col[e]];
    const T* l = blocks + p.offset[e];
    double x[B];
#pragma unroll
    for (int c = 0; c < B; ++c) x[c] = u[pj + c];
#pragma unroll
    for (int row = 0; row < B; ++row) {
#pragma unroll
      for (int c = 0; c < B; ++c) acc[row] += static_cast<double>(l[row * B + c]) * x[c];
    }
  }
#pragma unroll
  for (int row = 0; row < B; ++row) acc[row] = group_sum<G>(acc[row]);
  if (!active) return;
  const index_t pi = p.block_ptr[block];
  const double* d = values + p.diagonal[block];
  double y[B];
#pragma unroll
  for (int row = 0; row < B; ++row) {
    double t = scale[pi + row] * r[pi + row] - acc[row];
#pragma unroll
    for (int m = 0; m < row; ++m) t -= d[row * B + m] * y[m];
    y[row] = t / d[row * B + row];
    if (lane == row % G) u[pi + row] = y[row];  // G may be fewer than B
  }
}

/// The backward row for blocks all of B rows, as forward_uniform: each lane takes whole
/// blocks L_IJ of the block rows I coupling to J with their B values of w.
template <typename T, int B, int G>
__global__ void backward_uniform(BlockIcView p, index_t first, index_t count, const double* values,
                                 const T* blocks, const double* scale, const double* u, double* x,
                                 double* z) {
  const index_t g = (static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x) / G;
  const int lane = threadIdx.x % G;
  const bool active = g < count;
  const index_t block = active ? p.level_blocks[first + g] : 0;
  double acc[B] = {};
  const index_t end = active ? p.transpose_ptr[block + 1] : 0;
  for (index_t t = (active ? p.transpose_ptr[block] : 0) + lane; t < end; t += G) {
    const index_t e = p.transpose_entry[t];
    const index_t pi = p.block_ptr[p.entry_row[e]];
    const T* l = blocks + p.offset[e];
    double v[B];
#pragma unroll
    for (int row = 0; row < B; ++row) v[row] = x[pi + row];
#pragma unroll
    for (int row = 0; row < B; ++row) {
#pragma unroll
      for (int c = 0; c < B; ++c) acc[c] += static_cast<double>(l[row * B + c]) * v[row];
    }
  }
#pragma unroll
  for (int c = 0; c < B; ++c) acc[c] = group_sum<G>(acc[c]);
  if (!active) return;
  const index_t pj = p.block_ptr[block];
  const double* d = values + p.diagonal[block];
  double y[B];
#pragma unroll
  for (int c = B - 1; c >= 0; --c) {
    double t = u[pj + c] - acc[c];
#pragma unroll
    for (int m = c + 1; m < B; ++m) t -= d[m * B + c] * y[m];
    y[c] = t / d[c * B + c];
    if (lane == c % G) {
      x[pj + c] = y[c];
      z[pj + c] = scale[pj + c] * y[c];
    }
  }
}

/// Lanes per block row: the mean off-diagonal blocks of a block row, rounded up to a
/// power of two in [4, 32] (fewer lanes than blocks loop; more would idle).
int group_size(const BlockIcView& p) {
  const double mean = p.blocks > 0 ? static_cast<double>(p.entries) / p.blocks : 0.0;
  int g = 4;
  while (g < 32 && g < mean) g *= 2;
  return g;
}

template <typename T>
using ForwardKernel = void (*)(BlockIcView, index_t, index_t, const double*, const T*,
                               const double*, const double*, double*);
template <typename T>
using BackwardKernel = void (*)(BlockIcView, index_t, index_t, const double*, const T*,
                                const double*, const double*, double*, double*);

template <typename T, int B>
ForwardKernel<T> forward_for(int g) {
  switch (g) {
    case 4:
      return forward_uniform<T, B, 4>;
    case 8:
      return forward_uniform<T, B, 8>;
    case 16:
      return forward_uniform<T, B, 16>;
    default:
      return forward_uniform<T, B, 32>;
  }
}

template <typename T, int B>
BackwardKernel<T> backward_for(int g) {
  switch (g) {
    case 4:
      return backward_uniform<T, B, 4>;
    case 8:
      return backward_uniform<T, B, 8>;
    case 16:
      return backward_uniform<T, B, 16>;
    default:
      return backward_uniform<T, B, 32>;
  }
}

/// The uniform-block kernels for the common node sizes (scalar, 2D and 3D solids,
/// shells); nullptr for other or mixed sizes, which the warp kernels take.
template <typename T>
ForwardKernel<T> forward_for(const BlockIcView& p, int g) {
  switch (p.uniform_block) {
    case 1:
      return forward_for<T, 1>(g);
    case 2:
      return forward_for<T, 2>(g);
    case 3:
      return forward_for<T, 3>(g);
    case 6:
      return forward_for<T, 6>(g);
    default:
      return nullptr;
  }
}

template <typename T>
BackwardKernel<T> backward_for(const BlockIcView& p, int g) {
  switch (p.uniform_block) {
    case 1:
      return backward_for<T, 1>(g);
    case 2:
      return backward_for<T, 2>(g);
    case 3:
      return backward_for<T, 3>(g);
    case 6:
      return backward_for<T, 6>(g);
    default:
      return nullptr;
  }
}

__global__ void narrow(std::int64_t n, const double* in, float* out) {
  const std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (k < n) out[k] = static_cast<float>(in[k]);
}

}  // namespace

template <typename T>
void block_ic_forward(const BlockIcView& p, const std::vector<index_t>& level_ptr,
                      const double* values, const T* blocks, const double* scale, const double* r,
                      double* u, cudaStream_t stream) {
  const int g = group_size(p);
  const ForwardKernel<T> uniform = forward_for<T>(p, g);
  for (std::size_t l = 0; l + 1 < level_ptr.size(); ++l) {
    const index_t count = level_ptr[l + 1] - level_ptr[l];
    if (count == 0) continue;
    if (uniform != nullptr) {
      uniform<<<grid_for(count, kThreads / g), kThreads, 0, stream>>>(p, level_ptr[l], count,
                                                                      values, blocks, scale, r, u);
    } else {
      forward_level<<<grid_for(count, kWarpsPerBlock), kThreads, 0, stream>>>(
          p, level_ptr[l], count, values, blocks, scale, r, u);
    }
    PRISM_CUDA_CHECK(cudaGetLastError());
  }
}

template <typename T>
void block_ic_backward(const BlockIcView& p, const std::vector<index_t>& level_ptr,
                       const double* values, const T* blocks, const double* scale, const double* u,
                       double* w, double* z, cudaStream_t stream) {
  const int g = group_size(p);
  const BackwardKernel<T> uniform = backward_for<T>(p, g);
  for (std::size_t l = level_ptr.size(); l-- > 1;) {
    const index_t count = level_ptr[l] - level_ptr[l - 1];
    if (count == 0) continue;
    if (uniform != nullptr) {
      uniform<<<grid_for(count, kThreads / g), kThreads, 0, stream>>>(
          p, level_ptr[l - 1], count, values, blocks, scale, u, w, z);
    } else {
      backward_level<<<grid_for(count, kWarpsPerBlock), kThreads, 0, stream>>>(
          p, level_ptr[l - 1], count, values, blocks, scale, u, w, z);
    }
    PRISM_CUDA_CHECK(cudaGetLastError());
  }
}

void narrow_values(std::int64_t n, const double* in, float* out, cudaStream_t stream) {
  if (n == 0) return;
  narrow<<<static_cast<unsigned>((n + kThreads - 1) / kThreads), kThreads, 0, stream>>>(n, in, out);
  PRISM_CUDA_CHECK(cudaGetLastError());
}

#define PRISM_BLOCK_IC_SOLVE(T)                                                             \
  template void block_ic_forward<T>(const BlockIcView&, const std::vector<index_t>&,        \
                                    const double*, const T*, const double*, const double*,  \
                                    double*, cudaStream_t);                                 \
  template void block_ic_backward<T>(const BlockIcView&, const std::vector<index_t>&,       \
                                     const double*, const T*, const double*, const double*, \
                                     double*, double*, cudaStream_t);
PRISM_BLOCK_IC_SOLVE(double)
PRISM_BLOCK_IC_SOLVE(float)
#undef PRISM_BLOCK_IC_SOLVE

}  // namespace prism::kernels::cuda
