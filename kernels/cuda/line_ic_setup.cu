#include "kernels/cuda/check.hpp"
#include "kernels/cuda/ic0_analysis.hpp"
#include "kernels/cuda/line_ic_setup.hpp"

#include <prism/errors.hpp>

#include <climits>
#include <string>

namespace prism::kernels::cuda {
namespace {

constexpr int kThreads = 256;
// An attempt's launch: a thread a line, lines of very different lengths side by side.
constexpr int kLineThreads = 64;
constexpr unsigned long long kNoDefect = ~0ULL;

int blocks_for(long long n, int threads = kThreads) {
  return static_cast<int>((n + threads - 1) / threads);
}

/// The last position p in [0, count) with ptr[p] <= x (ptr nondecreasing, ptr[0] <= x).
__device__ index_t last_at_most(const index_t* __restrict__ ptr, index_t count, index_t x) {
  index_t lo = 0, hi = count;  // the answer is in [lo, hi)
  while (hi - lo > 1) {
    const index_t mid = lo + (hi - lo) / 2;
    if (ptr[mid] <= x) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

/// line_of[i] for i < rows: the last line starting at or before i (empty lines skipped).
__global__ void rows_to_lines(index_t rows, const index_t* __restrict__ line_ptr, index_t lines,
                              index_t* __restrict__ line_of) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i < rows) line_of[i] = last_at_most(line_ptr, lines, i);
}

/// color_of[l] for l < lines.
__global__ void lines_to_colors(index_t lines, const index_t* __restrict__ color_ptr,
                                index_t colors, index_t* __restrict__ color_of) {
  const index_t l = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (l < lines) color_of[l] = last_at_most(color_ptr, colors, l);
}

struct SplitArgs {
  index_t rows;
  const index_t* row_ptr;
  const index_t* col_idx;
  const index_t* line_of;
  const index_t* color_of;
};

/// Row i's entries sorted as the reference sorts them: its L and U counts (scanned after),
/// its diagonal and sub-diagonal sources, and the first coupling inside a color (the
/// smallest (row, column) key over all rows).
__global__ void classify_rows(SplitArgs s, index_t* __restrict__ lower_count,
                              index_t* __restrict__ upper_count, index_t* __restrict__ diagonal,
                              index_t* __restrict__ sub, unsigned long long* __restrict__ defect) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= s.rows) return;
  const index_t li = s.line_of[i], ci = s.color_of[li];
  index_t lower = 0, upper = 0, d = -1, b = -1;
  for (index_t k = s.row_ptr[i]; k < s.row_ptr[i + 1]; ++k) {
    const index_t j = s.col_idx[k];
    const index_t lj = s.line_of[j], cj = s.color_of[lj];
    if (lj == li) {
      if (j == i) d = k;
      if (j == i - 1) b = k;
    } else if (cj < ci) {
      ++lower;
    } else if (cj > ci) {
      ++upper;
    } else {
      atomicMin(defect, (static_cast<unsigned long long>(i) << 32) | static_cast<unsigned>(j));
      break;
    }
  }
  lower_count[i] = lower;
  upper_count[i] = upper;
  diagonal[i] = d;
  sub[i] = b;
}

/// Row i's L and U entries (columns and sources) at their scanned offsets.
__global__ void fill_rows(SplitArgs s, const index_t* __restrict__ lower_ptr,
                          index_t* __restrict__ lower_col, index_t* __restrict__ lower_source,
                          const index_t* __restrict__ upper_ptr, index_t* __restrict__ upper_col,
                          index_t* __restrict__ upper_source) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= s.rows) return;
  const index_t ci = s.color_of[s.line_of[i]];
  index_t lower = lower_ptr[i], upper = upper_ptr[i];
  for (index_t k = s.row_ptr[i]; k < s.row_ptr[i + 1]; ++k) {
    const index_t j = s.col_idx[k];
    const index_t cj = s.color_of[s.line_of[j]];
    if (cj < ci) {
      lower_col[lower] = j;
      lower_source[lower++] = k;
    } else if (cj > ci) {
      upper_col[upper] = j;
      upper_source[upper++] = k;
    }
  }
}

/// (L Sigma L^T)(i, m), the reference's sum in its order, rounded step by step.
__device__ double schur(const LineIcAttemptView& f, index_t i, index_t m) {
  const CsrView<double>& l = f.lower;
  double sum = 0.0;
  for (index_t p = l.row_ptr[i]; p < l.row_ptr[i + 1]; ++p) {
    const index_t j = l.col_idx[p];
    const double lp = l.values[p];
    for (index_t q = l.row_ptr[m]; q < l.row_ptr[m + 1]; ++q) {
      const index_t k = l.col_idx[q];
      if (k == j) {
        sum = __dadd_rn(sum, __dmul_rn(__dmul_rn(lp, f.band_diagonal[j]), l.values[q]));
      } else if ((k == j + 1 || k == j - 1) && f.line_of[k] == f.line_of[j]) {
        sum = __dadd_rn(sum, __dmul_rn(__dmul_rn(lp, f.band_off[min(j, k)]), l.values[q]));
      }
    }
  }
  return sum;
}

/// reference::line_ic_attempt_lines for line first + thread.
__global__ void attempt_lines(LineIcAttemptView f, index_t first, index_t last, double shift,
                              int* __restrict__ failed) {
  const index_t line = first + static_cast<index_t>(blockIdx.x) * kLineThreads + threadIdx.x;
  // Only a failure in an earlier color stops a line: one of this color (a later row) may
  // come from a line after this one, whose failure must not hide this line's.
  if (line >= last || *failed < f.line_ptr[first]) return;
  const index_t begin = f.line_ptr[line], end = f.line_ptr[line + 1];
  if (begin == end) return;  // an empty line has no band
  for (index_t i = begin; i < end; ++i) {
    const double d = f.diagonal[i];
    double pivot = __dsub_rn(__dadd_rn(d, __dmul_rn(shift, fabs(d))), schur(f, i, i));
    if (i > begin) {
      const double sub =
          __dmul_rn(__dsub_rn(f.below[i], schur(f, i, i - 1)), f.inverse_diagonal[i - 1]);
      f.sub[i] = sub;
      pivot = __dsub_rn(pivot, __dmul_rn(sub, sub));
    }
    if (!(pivot > 0.0) || !isfinite(pivot)) {
      f.inverse_diagonal[i] = pivot;
      atomicMin(failed, static_cast<int>(i));
      return;
    }
    f.inverse_diagonal[i] = __ddiv_rn(1.0, __dsqrt_rn(pivot));
  }
  const double last_inverse = f.inverse_diagonal[end - 1];
  f.band_diagonal[end - 1] = __dmul_rn(last_inverse, last_inverse);
  for (index_t i = end - 2; i >= begin; --i) {
    const double inverse = f.inverse_diagonal[i];
    const double ratio = __dmul_rn(f.sub[i + 1], inverse);
    const double off = __dmul_rn(-ratio, f.band_diagonal[i + 1]);
    f.band_off[i] = off;
    f.band_diagonal[i] = __dsub_rn(__dmul_rn(inverse, inverse), __dmul_rn(ratio, off));
  }
}

__global__ void failure(const int* __restrict__ failed, const double* __restrict__ inverse_diagonal,
                        const double* __restrict__ diagonal, double* __restrict__ out) {
  const int row = *failed;
  if (row == kLineIcNoFailure) return;
  out[0] = inverse_diagonal[row];
  out[1] = diagonal[row];
}

}  // namespace

DeviceLineIcSplit line_ic_split_device(CsrView<double> a, const std::vector<index_t>& line_ptr,
                                       const std::vector<index_t>& color_ptr, cudaStream_t stream) {
  const index_t n = a.rows;
  const auto lines = static_cast<index_t>(line_ptr.size()) - 1;
  const auto colors = static_cast<index_t>(color_ptr.size()) - 1;
  if (lines < 0 || colors < 0 || line_ptr.back() != n || color_ptr.back() != lines) {
    throw Error("line_ic_split_device: " + std::to_string(lines) + " lines and " +
                std::to_string(colors) + " colors do not partition " + std::to_string(n) + " rows");
  }
  DeviceLineIcSplit s;
  s.rows = n;
  s.line_ptr = upload_and_wait(line_ptr, stream);
  s.line_of = DeviceBuffer<index_t>(static_cast<std::size_t>(n));
  if (n == 0) {
    s.lower_ptr = upload_and_wait(std::vector<index_t>{0}, stream);
    s.upper_ptr = upload_and_wait(std::vector<index_t>{0}, stream);
    return s;
  }
  const DeviceBuffer<index_t> color_start = upload_and_wait(color_ptr, stream);
  DeviceBuffer<index_t> color_of(static_cast<std::size_t>(lines));
  rows_to_lines<<<blocks_for(n), kThreads, 0, stream>>>(n, s.line_ptr.data(), lines,
                                                        s.line_of.data());
  PRISM_CUDA_CHECK_LAUNCH();
  lines_to_colors<<<blocks_for(lines), kThreads, 0, stream>>>(lines, color_start.data(), colors,
                                                              color_of.data());
  PRISM_CUDA_CHECK_LAUNCH();
  const SplitArgs args{n, a.row_ptr, a.col_idx, s.line_of.data(), color_of.data()};
  const auto pointers = static_cast<std::size_t>(n) + 1;
  s.lower_ptr = DeviceBuffer<index_t>(pointers);
  s.upper_ptr = DeviceBuffer<index_t>(pointers);
  s.diagonal_source = DeviceBuffer<index_t>(static_cast<std::size_t>(n));
  s.sub_source = DeviceBuffer<index_t>(static_cast<std::size_t>(n));
  DeviceBuffer<unsigned long long> defect(1);
  PRISM_CUDA_CHECK(cudaMemsetAsync(defect.data(), 0xff, sizeof(unsigned long long), stream));
  PRISM_CUDA_CHECK(cudaMemsetAsync(s.lower_ptr.data() + n, 0, sizeof(index_t), stream));
  PRISM_CUDA_CHECK(cudaMemsetAsync(s.upper_ptr.data() + n, 0, sizeof(index_t), stream));
  classify_rows<<<blocks_for(n), kThreads, 0, stream>>>(
      args, s.lower_ptr.data(), s.upper_ptr.data(), s.diagonal_source.data(), s.sub_source.data(),
      defect.data());
  PRISM_CUDA_CHECK_LAUNCH();
  exclusive_sum(s.lower_ptr.data(), s.lower_ptr.data(), n + 1, stream);
  exclusive_sum(s.upper_ptr.data(), s.upper_ptr.data(), n + 1, stream);
  PinnedBuffer<index_t> sizes(2);
  PinnedBuffer<unsigned long long> found(1);
  PRISM_CUDA_CHECK(cudaMemcpyAsync(sizes.data(), s.lower_ptr.data() + n, sizeof(index_t),
                                   cudaMemcpyDeviceToHost, stream));
  PRISM_CUDA_CHECK(cudaMemcpyAsync(sizes.data() + 1, s.upper_ptr.data() + n, sizeof(index_t),
                                   cudaMemcpyDeviceToHost, stream));
  PRISM_CUDA_CHECK(cudaMemcpyAsync(found.data(), defect.data(), sizeof(unsigned long long),
                                   cudaMemcpyDeviceToHost, stream));
  PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (found.data()[0] != kNoDefect) {
    DeviceLineIcSplit bad;
    bad.rows = n;
    bad.line_ptr = std::move(s.line_ptr);
    bad.line_of = std::move(s.line_of);
    bad.coupled_row = static_cast<index_t>(found.data()[0] >> 32);
    bad.coupled_col = static_cast<index_t>(found.data()[0] & 0xffffffffULL);
    return bad;
  }
  s.lower_col = DeviceBuffer<index_t>(static_cast<std::size_t>(sizes.data()[0]));
  s.lower_source = DeviceBuffer<index_t>(static_cast<std::size_t>(sizes.data()[0]));
  s.upper_col = DeviceBuffer<index_t>(static_cast<std::size_t>(sizes.data()[1]));
  s.upper_source = DeviceBuffer<index_t>(static_cast<std::size_t>(sizes.data()[1]));
  fill_rows<<<blocks_for(n), kThreads, 0, stream>>>(args, s.lower_ptr.data(), s.lower_col.data(),
                                                    s.lower_source.data(), s.upper_ptr.data(),
                                                    s.upper_col.data(), s.upper_source.data());
  PRISM_CUDA_CHECK_LAUNCH();
  // color_start and color_of are freed on return; fill_rows must have read them.
  PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return s;
}

void line_ic_attempt_lines(const LineIcAttemptView& f, index_t first, index_t last, double shift,
                           int* failed, cudaStream_t stream) {
  if (last <= first) return;
  attempt_lines<<<blocks_for(last - first, kLineThreads), kLineThreads, 0, stream>>>(f, first, last,
                                                                                     shift, failed);
  PRISM_CUDA_CHECK_LAUNCH();
}

void line_ic_failure(const int* failed, const double* inverse_diagonal, const double* diagonal,
                     double* out, cudaStream_t stream) {
  failure<<<1, 1, 0, stream>>>(failed, inverse_diagonal, diagonal, out);
  PRISM_CUDA_CHECK_LAUNCH();
}

}  // namespace prism::kernels::cuda
