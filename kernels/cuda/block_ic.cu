#include "kernels/cuda/block_ic.hpp"

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/matrix_values.hpp"

namespace prism::kernels::cuda {
namespace {

constexpr int kThreads = 128;
constexpr int kWarp = 32;
constexpr int kWarpsPerBlock = kThreads / kWarp;

int grid_for(long long items, int per_block) {
  return static_cast<int>((items + per_block - 1) / per_block);
}

__device__ double entry(const double* a, const index_t* source, index_t k) {
  return a[source != nullptr ? source[k] : k];
}

__device__ index_t size_of(const BlockIcView& p, index_t b) {
  return p.block_ptr[b + 1] - p.block_ptr[b];
}

__global__ void scale_rows(BlockIcView p, const double* a, const index_t* source, double* scale,
                           int* bad_row) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= p.rows) return;
  const double d = entry(a, source, p.a_diagonal[i]);
  if (!(d > 0.0) || !isfinite(d)) {
    atomicMin(bad_row, static_cast<int>(i));
    return;
  }
  scale[i] = 1.0 / sqrt(d);
}

__global__ void load_rows(BlockIcView p, const double* a, const index_t* source,
                          const double* scale, double shift, double* values) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= p.rows) return;
  for (index_t k = p.a_row_ptr[i]; k < p.a_row_ptr[i + 1]; ++k) {
    const std::int64_t at = p.scatter[k];
    if (at < 0) continue;
    const index_t j = p.a_col[k];
    values[at] = entry(a, source, k) * scale[i] * scale[j] + (i == j ? shift : 0.0);
  }
}

/// The Schur updates of L_IJ from the entries of row I left of it (lane: rows of I).
__device__ void update_entry(const BlockIcView& p, index_t block, index_t bi, index_t e,
                             double* values, int lane) {
  const index_t j = p.col[e], bj = size_of(p, j);
  double* lij = values + p.offset[e];
  index_t ei = p.row_ptr[block], ej = p.row_ptr[j];
  while (ei < e && ej < p.row_ptr[j + 1]) {
    const index_t ki = p.col[ei], kj = p.col[ej];
    if (ki < kj) {
      ++ei;
    } else if (kj < ki) {
      ++ej;
    } else {
      const index_t bk = size_of(p, ki);
      const double* lik = values + p.offset[ei];
      const double* ljk = values + p.offset[ej];
      for (index_t r = lane; r < bi; r += kWarp) {
        for (index_t c = 0; c < bj; ++c) {
          double s = 0.0;
          for (index_t m = 0; m < bk; ++m) s += lik[r * bk + m] * ljk[c * bk + m];
          lij[r * bj + c] -= s;
        }
      }
      ++ei;
      ++ej;
    }
  }
}

/// One block row per warp, as reference::factor_block_row.
__global__ void factor_level(BlockIcView p, index_t first, index_t count, double* values,
                             double* inverse, const int* failed_before, int* failed) {
  const index_t w = (static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (w >= count) return;
  if (failed_before != nullptr) {
    const int before = *failed_before;
    if (before != kNoBadEntry) {
      if (lane == 0) atomicMin(failed, before);
      return;
    }
  }
  const index_t block = p.level_blocks[first + w];
  const index_t bi = size_of(p, block);
  for (index_t e = p.row_ptr[block]; e < p.row_ptr[block + 1]; ++e) {
    update_entry(p, block, bi, e, values, lane);
    // L_IJ = X L_JJ^{-T}: each lane its own rows, columns last to first.
    const index_t j = p.col[e], bj = size_of(p, j);
    double* lij = values + p.offset[e];
    const double* inv = inverse + p.inverse[j];
    for (index_t r = lane; r < bi; r += kWarp) {
      for (index_t c = bj - 1; c >= 0; --c) {
        double s = 0.0;
        for (index_t m = 0; m <= c; ++m) s += lij[r * bj + m] * inv[c * bj + m];
        lij[r * bj + c] = s;
      }
    }
  }
  __syncwarp();
  double* d = values + p.diagonal[block];
  for (index_t e = p.row_ptr[block]; e < p.row_ptr[block + 1]; ++e) {
    const index_t bj = size_of(p, p.col[e]);
    const double* lij = values + p.offset[e];
    for (index_t r = lane; r < bi; r += kWarp) {
      for (index_t c = 0; c <= r; ++c) {
        double s = 0.0;
        for (index_t m = 0; m < bj; ++m) s += lij[r * bj + m] * lij[c * bj + m];
        d[r * bi + c] -= s;
      }
    }
  }
  for (index_t j = 0; j < bi; ++j) {
    __syncwarp();
    const double pivot = d[j * bi + j];
    if (!(pivot > 0.0) || !isfinite(pivot)) {  // the same verdict in every lane
      if (lane == 0) atomicMin(failed, static_cast<int>(block));
      return;
    }
    const double l = sqrt(pivot);
    __syncwarp();
    for (index_t r = lane; r < bi; r += kWarp) {
      if (r == j) {
        d[j * bi + j] = l;
      } else if (r > j) {
        d[r * bi + j] /= l;
      }
    }
    __syncwarp();
    for (index_t r = lane; r < bi; r += kWarp) {
      for (index_t c = j + 1; c <= r; ++c) d[r * bi + c] -= d[r * bi + j] * d[c * bi + j];
    }
  }
  __syncwarp();
  double* inv = inverse + p.inverse[block];
  for (index_t c = lane; c < bi; c += kWarp) {  // a lane per column of L_II^{-1}
    for (index_t i = 0; i < bi; ++i) {
      if (i < c) {
        inv[i * bi + c] = 0.0;
        continue;
      }
      double s = i == c ? 1.0 : 0.0;
      for (index_t m = c; m < i; ++m) s -= d[i * bi + m] * inv[m * bi + c];
      inv[i * bi + c] = s / d[i * bi + i];
    }
  }
}

/// F, B and the unit diagonals of block b (a warp, lanes over its rows).
__global__ void diagonal_operators(BlockIcView p, const double* inverse, const double* scale,
                                   double* forward_diagonal, double* forward,
                                   double* backward_diagonal, double* backward) {
  const index_t b = (static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (b >= p.blocks) return;
  const index_t bi = size_of(p, b), first = p.block_ptr[b];
  const double* inv = inverse + p.inverse[b];
  for (index_t r = lane; r < bi; r += kWarp) {
    const index_t row = first + r;
    for (index_t c = 0; c <= r; ++c) {
      forward_diagonal[p.forward_diagonal_ptr[row] + c] = inv[r * bi + c] * scale[first + c];
    }
    for (index_t c = r; c < bi; ++c) {
      backward_diagonal[p.backward_diagonal_ptr[row] + c - r] = scale[row] * inv[c * bi + r];
    }
    forward[p.forward_ptr[row + 1] - 1] = 1.0;
    backward[p.backward_ptr[row]] = 1.0;
  }
}

/// W_IJ and V_JI of entry e (a warp, lanes over the block's elements).
__global__ void entry_operators(BlockIcView p, const double* values, const double* inverse,
                                const double* scale, double* forward, double* backward) {
  const index_t e = (static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x) / kWarp;
  const int lane = threadIdx.x % kWarp;
  if (e >= p.entries) return;
  const index_t i = p.entry_row[e], j = p.col[e];
  const index_t bi = size_of(p, i), bj = size_of(p, j), pi = p.block_ptr[i], pj = p.block_ptr[j];
  const double* l = values + p.offset[e];
  const double* inv_i = inverse + p.inverse[i];
  const double* inv_j = inverse + p.inverse[j];
  const std::int64_t before = (p.offset[e] - p.offset[p.row_ptr[i]]) / bi;
  const std::int64_t elements = static_cast<std::int64_t>(bi) * bj;
  for (std::int64_t k = lane; k < elements; k += kWarp) {
    const index_t r = static_cast<index_t>(k / bj), c = static_cast<index_t>(k % bj);
    double w = 0.0;
    for (index_t m = 0; m <= r; ++m) w += inv_i[r * bi + m] * l[m * bj + c];
    forward[p.forward_ptr[pi + r] + before + c] = w;
    double v = 0.0;
    for (index_t m = c; m < bj; ++m) v += inv_j[m * bj + c] * l[r * bj + m];
    backward[p.backward_ptr[pj + c] + 1 + p.transpose_prefix[e] + r] =
        scale[pj + c] * v / scale[pi + r];
  }
}

}  // namespace

void block_ic_scale(const BlockIcView& p, const double* a, const index_t* source, double* scale,
                    int* bad_row, cudaStream_t stream) {
  PRISM_CUDA_CHECK(cudaMemsetAsync(bad_row, 0x7f, sizeof(int), stream));
  if (p.rows == 0) return;
  scale_rows<<<grid_for(p.rows, kThreads), kThreads, 0, stream>>>(p, a, source, scale, bad_row);
  PRISM_CUDA_CHECK(cudaGetLastError());
}

void block_ic_load(const BlockIcView& p, const double* a, const index_t* source,
                   const double* scale, double shift, std::int64_t value_count, double* values,
                   cudaStream_t stream) {
  PRISM_CUDA_CHECK(cudaMemsetAsync(values, 0, value_count * sizeof(double), stream));
  if (p.rows == 0) return;
  load_rows<<<grid_for(p.rows, kThreads), kThreads, 0, stream>>>(p, a, source, scale, shift,
                                                                 values);
  PRISM_CUDA_CHECK(cudaGetLastError());
}

void block_ic_factor(const BlockIcView& p, const std::vector<index_t>& level_ptr, double* values,
                     double* inverse, int* failed, cudaStream_t stream) {
  const std::size_t levels = level_ptr.empty() ? 0 : level_ptr.size() - 1;
  if (levels == 0) return;
  PRISM_CUDA_CHECK(cudaMemsetAsync(failed, 0x7f, levels * sizeof(int), stream));
  for (std::size_t l = 0; l < levels; ++l) {
    const index_t count = level_ptr[l + 1] - level_ptr[l];
    if (count == 0) continue;
    factor_level<<<grid_for(count, kWarpsPerBlock), kThreads, 0, stream>>>(
        p, level_ptr[l], count, values, inverse, l > 0 ? failed + l - 1 : nullptr, failed + l);
    PRISM_CUDA_CHECK(cudaGetLastError());
  }
}

void block_ic_operators(const BlockIcView& p, const double* values, const double* inverse,
                        const double* scale, double* forward_diagonal, double* forward,
                        double* backward_diagonal, double* backward, cudaStream_t stream) {
  if (p.blocks > 0) {
    diagonal_operators<<<grid_for(p.blocks, kWarpsPerBlock), kThreads, 0, stream>>>(
        p, inverse, scale, forward_diagonal, forward, backward_diagonal, backward);
    PRISM_CUDA_CHECK(cudaGetLastError());
  }
  if (p.entries > 0) {
    entry_operators<<<grid_for(p.entries, kWarpsPerBlock), kThreads, 0, stream>>>(
        p, values, inverse, scale, forward, backward);
    PRISM_CUDA_CHECK(cudaGetLastError());
  }
}

}  // namespace prism::kernels::cuda
