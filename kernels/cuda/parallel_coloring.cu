#include "kernels/cuda/parallel_coloring.hpp"

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/parallel_coloring.hpp"

#include <cstdint>

namespace prism::kernels::cuda {
namespace {

constexpr int kThreads = 256;

int blocks_for(index_t n) {
  return static_cast<int>((static_cast<long long>(n) + kThreads - 1) / kThreads);
}

// The smallest color c >= 0 no neighbour u != v with color[u] >= 0 has, 64 colors a window
// (the same answer as the reference's first fit).
__device__ int first_free_color(const CsrView<double>& a, index_t v, const int* color) {
  const index_t begin = a.row_ptr[v], end = a.row_ptr[v + 1];
  for (int base = 0;; base += 64) {
    std::uint64_t taken = 0;
    for (index_t k = begin; k < end; ++k) {
      const index_t u = a.col_idx[k];
      const int c = color[u] - base;
      if (u != v && c >= 0 && c < 64) taken |= std::uint64_t{1} << c;
    }
    if (~taken != 0) return base + __ffsll(static_cast<long long>(~taken)) - 1;
  }
}

// Adds `count` over the warp to *total with one atomic.
__device__ void add_warp(int count, int* total) {
  for (int offset = 16; offset > 0; offset /= 2) {
    count += __shfl_down_sync(0xffffffffu, count, offset);
  }
  if (threadIdx.x % 32 == 0 && count > 0) atomicAdd(total, count);
}

// Max of `value` over the warp into *total with one atomic.
__device__ void max_warp(int value, int* total) {
  for (int offset = 16; offset > 0; offset /= 2) {
    value = max(value, __shfl_down_sync(0xffffffffu, value, offset));
  }
  if (threadIdx.x % 32 == 0) atomicMax(total, value);
}

// chosen[v] = 1 for an uncoloured v that outranks its uncoloured neighbours; counts the
// uncoloured vertices not chosen (those left for the next round).
__global__ void choose(CsrView<double> a, const int* __restrict__ color,
                       unsigned char* __restrict__ chosen, int* left) {
  const index_t v = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  int stays = 0;
  if (v < a.rows) {
    bool maximum = false;
    if (color[v] < 0) {
      maximum = true;
      for (index_t k = a.row_ptr[v]; k < a.row_ptr[v + 1] && maximum; ++k) {
        const index_t u = a.col_idx[k];
        maximum = u == v || color[u] >= 0 || outranks(v, u);
      }
      stays = maximum ? 0 : 1;
    }
    chosen[v] = maximum ? 1 : 0;
  }
  add_warp(stays, left);
}

// The chosen vertices take their colors: no two are adjacent, so none reads another's.
__global__ void color_chosen(CsrView<double> a, const unsigned char* __restrict__ chosen,
                             int* color) {
  const index_t v = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (v < a.rows && chosen[v]) color[v] = first_free_color(a, v, color);
}

// One class of a recoloring pass: its vertices (an independent set) take first fit among
// the neighbours recolored before; the largest new color goes to *largest.
__global__ void recolor_class(CsrView<double> a, const int* __restrict__ color, int c,
                              int* recolored, int* largest) {
  const index_t v = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  int mine = -1;
  if (v < a.rows && color[v] == c) {
    mine = first_free_color(a, v, recolored);
    recolored[v] = mine;
  }
  max_warp(mine, largest);
}

__global__ void largest_color(index_t n, const int* __restrict__ color, int* largest) {
  const index_t v = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  max_warp(v < n ? color[v] : -1, largest);
}

int read_counter(const int* device, cudaStream_t stream) {
  int host = 0;
  PRISM_CUDA_CHECK(cudaMemcpyAsync(&host, device, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

}  // namespace

int jones_plassmann_coloring(const CsrView<double>& a, int* colors, cudaStream_t stream) {
  const index_t n = a.rows;
  if (n == 0) return 0;
  const auto size = static_cast<std::size_t>(n);
  const int blocks = blocks_for(n);
  DeviceBuffer<unsigned char> chosen(size);
  DeviceBuffer<int> recolored(size);
  DeviceBuffer<int> counter(1);
  PRISM_CUDA_CHECK(cudaMemsetAsync(colors, 0xff, size * sizeof(int), stream));  // all -1

  for (int left = n; left > 0;) {
    PRISM_CUDA_CHECK(cudaMemsetAsync(counter.data(), 0, sizeof(int), stream));
    choose<<<blocks, kThreads, 0, stream>>>(a, colors, chosen.data(), counter.data());
    PRISM_CUDA_CHECK_LAUNCH();
    color_chosen<<<blocks, kThreads, 0, stream>>>(a, chosen.data(), colors);
    PRISM_CUDA_CHECK_LAUNCH();
    left = read_counter(counter.data(), stream);
  }
  PRISM_CUDA_CHECK(cudaMemsetAsync(counter.data(), 0xff, sizeof(int), stream));
  largest_color<<<blocks, kThreads, 0, stream>>>(n, colors, counter.data());
  PRISM_CUDA_CHECK_LAUNCH();
  int count = read_counter(counter.data(), stream) + 1;

  for (int pass = 0; pass < kRecolorPasses && count > 1; ++pass) {
    PRISM_CUDA_CHECK(cudaMemsetAsync(recolored.data(), 0xff, size * sizeof(int), stream));
    PRISM_CUDA_CHECK(cudaMemsetAsync(counter.data(), 0xff, sizeof(int), stream));
    for (int c = count - 1; c >= 0; --c) {
      recolor_class<<<blocks, kThreads, 0, stream>>>(a, colors, c, recolored.data(),
                                                     counter.data());
      PRISM_CUDA_CHECK_LAUNCH();
    }
    PRISM_CUDA_CHECK(cudaMemcpyAsync(colors, recolored.data(), size * sizeof(int),
                                     cudaMemcpyDeviceToDevice, stream));
    const int now = read_counter(counter.data(), stream) + 1;
    const bool saved = now < count;
    count = now;
    if (!saved) break;
  }
  return count;
}

}  // namespace prism::kernels::cuda
