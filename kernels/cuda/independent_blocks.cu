#include "kernels/cuda/independent_blocks.hpp"

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/device_memory.hpp"

#include <algorithm>

#include <cub/device/device_scan.cuh>

namespace prism::kernels::cuda {
namespace {

// The upper triangle is taken as a lower one of the rows in reverse order (row t is row
// rows - 1 - t, a reach r becomes rows - 1 - r): a row starts a block where its reach is
// at least the current block's first row, so the block after the one starting at e
// starts at next(e) = min { t : reach[t] >= e }. first[w] holds the least row whose
// reach is rows - 1 - w; its running minimum is next(rows - 1 - w).

constexpr int kThreads = 256;

int blocks_for(long long n) {
  return static_cast<int>((n + kThreads - 1) / kThreads);
}

struct Minimum {
  __device__ index_t operator()(index_t a, index_t b) const { return b < a ? b : a; }
};

/// first[tri * rows + w] = rows (no row) for both triangles.
__global__ void fill_none(long long size, index_t rows, index_t* __restrict__ first) {
  const long long k = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (k < size) first[k] = rows;
}

/// blockIdx.y: the triangle (0 lower, 1 upper, rows reversed).
__global__ void scatter_reach(index_t rows, const index_t* __restrict__ lower_reach,
                              const index_t* __restrict__ upper_reach,
                              index_t* __restrict__ first) {
  const index_t t = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (t >= rows) return;
  const bool upper = blockIdx.y == 1;
  if ((upper ? upper_reach : lower_reach) == nullptr) return;  // a triangle not asked for
  index_t r = 0;
  if (upper) {
    const index_t u = upper_reach[rows - 1 - t];
    r = u >= rows ? -1 : rows - 1 - u;
  } else {
    r = lower_reach[t];
  }
  if (r < 0) return;  // an empty row starts no block
  atomicMin(first + static_cast<std::size_t>(upper) * rows + (rows - 1 - r), t);
}

/// One thread a triangle walks from block to block: chain[0] the count of starts (-1 past
/// kDeviceBlocksLimit), chain[1, ...] the starts, 0 first.
__global__ void walk_blocks(index_t rows, const index_t* __restrict__ next,
                            index_t* __restrict__ chains) {
  const int tri = static_cast<int>(threadIdx.x);
  if (tri > 1) return;
  const index_t* least = next + static_cast<std::size_t>(tri) * rows;
  index_t* chain = chains + static_cast<std::size_t>(tri) * (kDeviceBlocksLimit + 1);
  index_t count = 0, s = 0;
  chain[1 + count++] = 0;
  while (true) {
    const index_t following = least[rows - 1 - s];
    if (following >= rows) break;
    if (count == kDeviceBlocksLimit) {
      count = -1;
      break;
    }
    chain[1 + count++] = following;
    s = following;
  }
  chain[0] = count;
}

}  // namespace

DeviceBlocks independent_blocks_device(const index_t* lower_reach, const index_t* upper_reach,
                                       index_t rows, cudaStream_t stream) {
  if (rows <= 0) return {std::vector<index_t>{0}, std::vector<index_t>{0}};
  const auto n = static_cast<std::size_t>(rows);
  StreamScratch<index_t> first(2 * n, stream);
  fill_none<<<blocks_for(2 * static_cast<long long>(rows)), kThreads, 0, stream>>>(
      2 * static_cast<long long>(rows), rows, first.data());
  PRISM_CUDA_CHECK_LAUNCH();
  scatter_reach<<<dim3(blocks_for(rows), 2), kThreads, 0, stream>>>(rows, lower_reach, upper_reach,
                                                                    first.data());
  PRISM_CUDA_CHECK_LAUNCH();
  std::size_t bytes = 0;
  PRISM_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, bytes, first.data(), first.data(),
                                                  Minimum{}, rows, stream));
  StreamScratch<unsigned char> scratch(std::max<std::size_t>(bytes, 1), stream);
  for (std::size_t tri = 0; tri < 2; ++tri) {
    index_t* part = first.data() + tri * n;
    PRISM_CUDA_CHECK(
        cub::DeviceScan::InclusiveScan(scratch.data(), bytes, part, part, Minimum{}, rows, stream));
  }
  const std::size_t chain_size = kDeviceBlocksLimit + 1;
  StreamScratch<index_t> chains(2 * chain_size, stream);
  walk_blocks<<<1, 32, 0, stream>>>(rows, first.data(), chains.data());
  PRISM_CUDA_CHECK_LAUNCH();
  std::vector<index_t> host(2 * chain_size);
  PRISM_CUDA_CHECK(cudaMemcpyAsync(host.data(), chains.data(), host.size() * sizeof(index_t),
                                   cudaMemcpyDeviceToHost, stream));
  PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
  DeviceBlocks out;
  for (int tri = 0; tri < 2; ++tri) {
    const index_t* chain = host.data() + tri * chain_size;
    if (chain[0] < 0 || (tri == 0 ? lower_reach : upper_reach) == nullptr) continue;
    std::vector<index_t> ptr(chain + 1, chain + 1 + chain[0]);
    ptr.push_back(rows);
    if (tri == 1) {  // the starts of the reversed rows: rows - start are the upper bounds
      for (index_t& bound : ptr) bound = rows - bound;
      std::reverse(ptr.begin(), ptr.end());
      out.upper = std::move(ptr);
    } else {
      out.lower = std::move(ptr);
    }
  }
  return out;
}

}  // namespace prism::kernels::cuda
