#include "kernels/cuda/choice_scans.hpp"

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/matrix_values.hpp"

#include <algorithm>

#include <cub/device/device_scan.cuh>

namespace prism::kernels::cuda {
namespace {

constexpr int kThreads = 256;

int blocks_for(index_t n) {
  return static_cast<int>((static_cast<long long>(n) + kThreads - 1) / kThreads);
}

__device__ index_t row_of_thread() {
  return static_cast<index_t>(blockIdx.x) * kThreads + static_cast<index_t>(threadIdx.x);
}

struct Maximum {
  __device__ index_t operator()(index_t a, index_t b) const { return b > a ? b : a; }
};

__device__ bool same_pattern(const CsrView<double>& a, index_t i, index_t j) {
  const index_t length = a.row_ptr[i + 1] - a.row_ptr[i];
  if (a.row_ptr[j + 1] - a.row_ptr[j] != length) return false;
  const index_t* ci = a.col_idx + a.row_ptr[i];
  const index_t* cj = a.col_idx + a.row_ptr[j];
  for (index_t t = 0; t < length; ++t) {
    if (ci[t] != cj[t]) return false;
  }
  return true;
}

/// first[i] = i where row i starts a run of rows with one pattern, else 0: the max-scan's
/// input, whose result is the first row of each row's run.
__global__ void run_heads(CsrView<double> a, index_t* __restrict__ first) {
  const index_t i = row_of_thread();
  if (i >= a.rows) return;
  first[i] = (i == 0 || !same_pattern(a, i - 1, i)) ? i : 0;
}

/// start[i] = 1 where row i starts a block: its run's first row, or max_size rows after a
/// block start of the same run (find_node_blocks' cut, which runs from each run's start).
__global__ void block_starts(index_t n, const index_t* __restrict__ first, index_t max_size,
                             index_t* __restrict__ start) {
  const index_t i = row_of_thread();
  if (i >= n) return;
  start[i] = (i - first[i]) % max_size == 0 ? 1 : 0;
}

/// ptr[slot[i]] = i at the block starts (slot: the exclusive sum of start), then
/// ptr[count] = n and *count.
__global__ void scatter_starts(index_t n, const index_t* __restrict__ start,
                               const index_t* __restrict__ slot, index_t* __restrict__ ptr,
                               index_t* __restrict__ count) {
  const index_t i = row_of_thread();
  if (i >= n) return;
  if (start[i] != 0) ptr[slot[i]] = i;
  if (i == n - 1) {
    const index_t blocks = slot[i] + start[i];
    ptr[blocks] = n;
    *count = blocks;
  }
}

/// The diagonal by a binary search in the row's sorted columns (0 where not stored).
__global__ void invert_diagonal(CsrView<double> a, double* __restrict__ r, int* first_bad) {
  const index_t i = row_of_thread();
  if (i >= a.rows) return;
  index_t lo = a.row_ptr[i], hi = a.row_ptr[i + 1];  // the first column >= i in [lo, hi)
  while (lo < hi) {
    const index_t mid = lo + (hi - lo) / 2;
    if (a.col_idx[mid] < i) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  const double d = lo < a.row_ptr[i + 1] && a.col_idx[lo] == i ? a.values[lo] : 0.0;
  if (!(d > 0.0) || !isfinite(d)) {
    atomicMin(first_bad, static_cast<int>(i));
    return;
  }
  r[i] = __ddiv_rn(1.0, __dsqrt_rn(d));  // 1.0 / std::sqrt(d), both correctly rounded
}

/// choose() of src/analysis/lines.cpp: the number k of couplings row i chooses and their
/// columns col[0 .. k), decided on the values of the three strongest alone, with the same
/// comparisons in the same order, every product rounded on its own as on the host.
__device__ int choose_row(const CsrView<double>& a, const double* __restrict__ r, index_t i,
                          double dominance, double min_strength, index_t col[2]) {
  double top[3] = {0.0, 0.0, 0.0};
  col[0] = col[1] = -1;
  const double ri = r[i];
  for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
    const index_t j = a.col_idx[k];
    if (j == i) continue;
    const double s = __dmul_rn(fabs(a.values[k]), __dmul_rn(ri, r[j]));
    if (s > top[0]) {
      top[2] = top[1];
      top[1] = top[0];
      col[1] = col[0];
      top[0] = s;
      col[0] = j;
    } else if (s > top[1]) {
      top[2] = top[1];
      top[1] = s;
      col[1] = j;
    } else if (s > top[2]) {
      top[2] = s;
    }
  }
  const auto dominant = [&](double chosen, double next) {
    return chosen > 0.0 && chosen >= min_strength && chosen >= __dmul_rn(dominance, next);
  };
  return dominant(top[1], top[2]) ? 2 : (dominant(top[0], top[1]) ? 1 : 0);
}

/// One thread a row; a warp adds its rows with one atomic.
__global__ void count_choosing(CsrView<double> a, const double* __restrict__ r, double dominance,
                               double min_strength, index_t* count) {
  const index_t i = row_of_thread();
  index_t col[2];
  const bool chooses = i < a.rows && choose_row(a, r, i, dominance, min_strength, col) > 0;
  const unsigned votes = __ballot_sync(0xffffffffu, chooses);
  if (threadIdx.x % 32 == 0 && votes != 0) atomicAdd(count, static_cast<index_t>(__popc(votes)));
}

/// chosen[2 i], chosen[2 i + 1]: row i's choice, -1 after the last.
__global__ void choose_links(CsrView<double> a, const double* __restrict__ r, double dominance,
                             double min_strength, index_t* __restrict__ chosen) {
  const index_t i = row_of_thread();
  if (i >= a.rows) return;
  index_t col[2];
  const int k = choose_row(a, r, i, dominance, min_strength, col);
  chosen[2 * i] = k > 0 ? col[0] : -1;
  chosen[2 * i + 1] = k > 1 ? col[1] : -1;
}

/// links[2 i], links[2 i + 1]: the rows of row i's choice that chose i back, in its order.
__global__ void keep_mutual(index_t n, const index_t* __restrict__ chosen,
                            index_t* __restrict__ links) {
  const index_t i = row_of_thread();
  if (i >= n) return;
  index_t out[2] = {-1, -1};
  int kept = 0;
  for (int c = 0; c < 2; ++c) {
    const index_t j = chosen[2 * i + c];
    if (j >= 0 && (chosen[2 * j] == i || chosen[2 * j + 1] == i)) out[kept++] = j;
  }
  links[2 * i] = out[0];
  links[2 * i + 1] = out[1];
}

}  // namespace

index_t node_block_ptr(const CsrView<double>& a, index_t max_size, index_t* ptr,
                       cudaStream_t stream) {
  const index_t n = a.rows;
  if (n <= 0) {
    PRISM_CUDA_CHECK(cudaMemsetAsync(ptr, 0, sizeof(index_t), stream));
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
    return 0;
  }
  const auto size = static_cast<std::size_t>(n);
  StreamScratch<index_t> first(size, stream), start(size, stream), count(1, stream);
  run_heads<<<blocks_for(n), kThreads, 0, stream>>>(a, first.data());
  PRISM_CUDA_CHECK_LAUNCH();
  std::size_t max_bytes = 0, sum_bytes = 0;
  PRISM_CUDA_CHECK(cub::DeviceScan::InclusiveScan(nullptr, max_bytes, first.data(), first.data(),
                                                  Maximum{}, n, stream));
  PRISM_CUDA_CHECK(
      cub::DeviceScan::ExclusiveSum(nullptr, sum_bytes, start.data(), first.data(), n, stream));
  StreamScratch<unsigned char> scratch(std::max<std::size_t>({max_bytes, sum_bytes, 1}), stream);
  PRISM_CUDA_CHECK(cub::DeviceScan::InclusiveScan(scratch.data(), max_bytes, first.data(),
                                                  first.data(), Maximum{}, n, stream));
  block_starts<<<blocks_for(n), kThreads, 0, stream>>>(n, first.data(), max_size, start.data());
  PRISM_CUDA_CHECK_LAUNCH();
  // The run starts are read: `first` takes the slots.
  PRISM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scratch.data(), sum_bytes, start.data(),
                                                 first.data(), n, stream));
  scatter_starts<<<blocks_for(n), kThreads, 0, stream>>>(n, start.data(), first.data(), ptr,
                                                         count.data());
  PRISM_CUDA_CHECK_LAUNCH();
  return download_and_wait(count.data(), 1, stream)[0];
}

void inverse_sqrt_diagonal(const CsrView<double>& a, double* r, int* first_bad,
                           cudaStream_t stream) {
  static_assert(kNoBadEntry == 0x7f7f7f7f, "set byte by byte");
  PRISM_CUDA_CHECK(cudaMemsetAsync(first_bad, 0x7f, sizeof(int), stream));
  if (a.rows <= 0) return;
  invert_diagonal<<<blocks_for(a.rows), kThreads, 0, stream>>>(a, r, first_bad);
  PRISM_CUDA_CHECK_LAUNCH();
}

void rows_choosing_links(const CsrView<double>& a, const double* r, double dominance,
                         double min_strength, index_t* count, cudaStream_t stream) {
  PRISM_CUDA_CHECK(cudaMemsetAsync(count, 0, sizeof(index_t), stream));
  if (a.rows <= 0) return;
  count_choosing<<<blocks_for(a.rows), kThreads, 0, stream>>>(a, r, dominance, min_strength, count);
  PRISM_CUDA_CHECK_LAUNCH();
}

void chosen_links(const CsrView<double>& a, const double* r, double dominance, double min_strength,
                  index_t* chosen, cudaStream_t stream) {
  if (a.rows <= 0) return;
  choose_links<<<blocks_for(a.rows), kThreads, 0, stream>>>(a, r, dominance, min_strength, chosen);
  PRISM_CUDA_CHECK_LAUNCH();
}

void mutual_links(index_t rows, const index_t* chosen, index_t* links, cudaStream_t stream) {
  if (rows <= 0) return;
  keep_mutual<<<blocks_for(rows), kThreads, 0, stream>>>(rows, chosen, links);
  PRISM_CUDA_CHECK_LAUNCH();
}

}  // namespace prism::kernels::cuda
