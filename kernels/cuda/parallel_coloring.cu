#include "kernels/cuda/parallel_coloring.hpp"

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/parallel_coloring.hpp"

#include <algorithm>
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

// waiting[v] = v's neighbours earlier in the order `rank`; v joins the first front
// (front, *front_size) when it has none.
__global__ void count_earlier(CsrView<double> a, const index_t* __restrict__ rank,
                              index_t* __restrict__ waiting, index_t* __restrict__ front,
                              int* front_size) {
  const index_t v = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (v >= a.rows) return;
  index_t count = 0;
  for (index_t k = a.row_ptr[v]; k < a.row_ptr[v + 1]; ++k) {
    const index_t u = a.col_idx[k];
    if (u != v && earlier(u, v, rank)) ++count;
  }
  waiting[v] = count;
  if (count == 0) front[atomicAdd(front_size, 1)] = v;
}

// Ordered round r: the front takes first fit (its earlier neighbours are all colored, its
// later ones none, and no two of it are adjacent), and each later neighbour it was the
// last one waited for joins the next front. sizes[r % 3] is the front's size, sizes[(r +
// 1) % 3] the next's; sizes[(r + 2) % 3], last read in round r - 1, is cleared for round
// r + 1. So rounds run back to back without the host; *rounds counts those with a front.
__global__ void ordered_round(CsrView<double> a, const index_t* __restrict__ rank,
                              const index_t* __restrict__ front, index_t* __restrict__ next,
                              int* sizes, int r, index_t* waiting, int* color, int* rounds) {
  const int size = sizes[r % 3];
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    sizes[(r + 2) % 3] = 0;
    if (size > 0) ++*rounds;
  }
  const index_t stride = static_cast<index_t>(gridDim.x) * kThreads;
  for (index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x; i < size;
       i += stride) {
    const index_t v = front[i];
    color[v] = first_free_color(a, v, color);
    for (index_t k = a.row_ptr[v]; k < a.row_ptr[v + 1]; ++k) {
      const index_t u = a.col_idx[k];
      if (u != v && earlier(v, u, rank) && atomicSub(&waiting[u], 1) == 1) {
        next[atomicAdd(&sizes[(r + 1) % 3], 1)] = u;
      }
    }
  }
}

int read_counter(const int* device, cudaStream_t stream) {
  int host = 0;
  PRISM_CUDA_CHECK(cudaMemcpyAsync(&host, device, sizeof(int), cudaMemcpyDeviceToHost, stream));
  PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

// Jones-Plassmann rounds over the uncoloured vertices (colors < 0) until none is left.
void hash_rounds(const CsrView<double>& a, int* colors, unsigned char* chosen, int* counter,
                 cudaStream_t stream) {
  const int blocks = blocks_for(a.rows);
  for (int left = a.rows; left > 0;) {
    PRISM_CUDA_CHECK(cudaMemsetAsync(counter, 0, sizeof(int), stream));
    choose<<<blocks, kThreads, 0, stream>>>(a, colors, chosen, counter);
    PRISM_CUDA_CHECK_LAUNCH();
    color_chosen<<<blocks, kThreads, 0, stream>>>(a, chosen, colors);
    PRISM_CUDA_CHECK_LAUNCH();
    left = read_counter(counter, stream);
  }
}

// The number of colors of a complete coloring.
int color_count(index_t n, const int* colors, int* counter, cudaStream_t stream) {
  PRISM_CUDA_CHECK(cudaMemsetAsync(counter, 0xff, sizeof(int), stream));
  largest_color<<<blocks_for(n), kThreads, 0, stream>>>(n, colors, counter);
  PRISM_CUDA_CHECK_LAUNCH();
  return read_counter(counter, stream) + 1;
}

// The recoloring passes; returns the number of colors after them.
int recolor(const CsrView<double>& a, int* colors, int count, int* counter, cudaStream_t stream) {
  const index_t n = a.rows;
  const auto size = static_cast<std::size_t>(n);
  DeviceBuffer<int> recolored(size);
  for (int pass = 0; pass < kRecolorPasses && count > 1; ++pass) {
    PRISM_CUDA_CHECK(cudaMemsetAsync(recolored.data(), 0xff, size * sizeof(int), stream));
    PRISM_CUDA_CHECK(cudaMemsetAsync(counter, 0xff, sizeof(int), stream));
    for (int c = count - 1; c >= 0; --c) {
      recolor_class<<<blocks_for(n), kThreads, 0, stream>>>(a, colors, c, recolored.data(),
                                                            counter);
      PRISM_CUDA_CHECK_LAUNCH();
    }
    PRISM_CUDA_CHECK(cudaMemcpyAsync(colors, recolored.data(), size * sizeof(int),
                                     cudaMemcpyDeviceToDevice, stream));
    const int now = read_counter(counter, stream) + 1;
    const bool saved = now < count;
    count = now;
    if (!saved) break;
  }
  return count;
}

// Ordered rounds launched between two looks at the next front's size.
constexpr int kRoundBatch = 32;

// Blocks of an ordered round: enough to fill the device; the rounds loop over the front.
int round_blocks(index_t n) {
  int device = 0, sms = 0;
  PRISM_CUDA_CHECK(cudaGetDevice(&device));
  PRISM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return std::max(1, std::min(blocks_for(n), 8 * sms));
}

}  // namespace

int jones_plassmann_coloring(const CsrView<double>& a, int* colors, cudaStream_t stream) {
  const index_t n = a.rows;
  if (n == 0) return 0;
  DeviceBuffer<unsigned char> chosen(static_cast<std::size_t>(n));
  DeviceBuffer<int> counter(1);
  PRISM_CUDA_CHECK(cudaMemsetAsync(colors, 0xff, n * sizeof(int), stream));  // all -1
  hash_rounds(a, colors, chosen.data(), counter.data(), stream);
  return recolor(a, colors, color_count(n, colors, counter.data(), stream), counter.data(), stream);
}

GreedyColoring ordered_greedy_coloring(const CsrView<double>& a, const index_t* rank,
                                       int round_limit, int* colors, cudaStream_t stream) {
  GreedyColoring result;
  const index_t n = a.rows;
  if (n == 0) return result;
  const auto size = static_cast<std::size_t>(n);
  DeviceBuffer<index_t> waiting(size), front(size), next(size);
  DeviceBuffer<int> counters(4);  // the three front sizes, the rounds
  int* sizes = counters.data();
  PRISM_CUDA_CHECK(cudaMemsetAsync(colors, 0xff, size * sizeof(int), stream));  // all -1
  PRISM_CUDA_CHECK(cudaMemsetAsync(sizes, 0, 4 * sizeof(int), stream));
  count_earlier<<<blocks_for(n), kThreads, 0, stream>>>(a, rank, waiting.data(), front.data(),
                                                        sizes);
  PRISM_CUDA_CHECK_LAUNCH();
  index_t* fronts[2] = {front.data(), next.data()};
  const int blocks = round_blocks(n);
  int r = 0, left = 0;
  for (;;) {
    for (const int last = std::min(r + kRoundBatch, round_limit); r < last; ++r) {
      ordered_round<<<blocks, kThreads, 0, stream>>>(a, rank, fronts[r % 2], fronts[(r + 1) % 2],
                                                     sizes, r, waiting.data(), colors, sizes + 3);
      PRISM_CUDA_CHECK_LAUNCH();
    }
    left = read_counter(sizes + r % 3, stream);
    if (left == 0 || r >= round_limit) break;
  }
  result.rounds = read_counter(sizes + 3, stream);
  result.exact = left == 0;
  if (result.exact) {
    result.colors = color_count(n, colors, sizes, stream);
    return result;
  }
  DeviceBuffer<unsigned char> chosen(size);
  hash_rounds(a, colors, chosen.data(), sizes, stream);
  result.colors = recolor(a, colors, color_count(n, colors, sizes, stream), sizes, stream);
  return result;
}

}  // namespace prism::kernels::cuda
