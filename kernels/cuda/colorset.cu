#include "kernels/cuda/block_reduce.cuh"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/colorset.hpp"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/cuda/threads_per_row.hpp"

#include <algorithm>

namespace prism::kernels::cuda {
namespace {

constexpr int kBlockThreads = 256;
static_assert(kColorsetLaneEntries == 2, "colorset_rows and fetch_row read two entries a lane");

/// A long row of a step (ColorsetStep): the whole block strides over its entries and sums
/// them with block_sum. Called by every thread of the block after start_after_previous.
template <typename V>
__device__ void colorset_long_row(index_t row, const index_t* __restrict__ row_ptr,
                                  const index_t* __restrict__ col_idx, const V* __restrict__ values,
                                  const V* __restrict__ inverse_diagonal, const double* b,
                                  double* x) {
  const index_t first = row_ptr[row] + static_cast<index_t>(threadIdx.x), stop = row_ptr[row + 1];
  wait_for_previous();
  double sum = 0.0;
  for (index_t k = first; k < stop; k += kBlockThreads) {
    sum += static_cast<double>(values[k]) * x[col_idx[k]];
  }
  sum = block_sum<kBlockThreads>(sum);
  if (threadIdx.x == 0) x[row] = (b[row] - sum) * static_cast<double>(inverse_diagonal[row]);
}

/// Rows [begin, end) of one step; TPR consecutive lanes share a row, read its entries
/// with unit stride (coalesced) and reduce with shuffles inside their TPR-wide segment.
/// With Long (a step with long rows) the first long_count blocks take the step's long rows,
/// one each (colorset_long_row), and the others skip them (rows of more than
/// long_row_entries entries); steps without long rows keep the plain kernel (ptxas spills
/// a register of the float kernels with the test).
/// The factor's values are V (double, or float for precision: mixed); the sums and the
/// vectors are double either way. Launched after the previous kernel; with `prefetch`
/// (every launch of a solve but its first) a lane's first two entries and the inverse
/// diagonal are read before the wait (start_after_previous), so only the gather of x
/// and the later entries follow it.
template <int TPR, typename V, bool Long>
__global__ void __launch_bounds__(kBlockThreads)
    colorset_rows(index_t begin, index_t end, const index_t* __restrict__ long_rows, int long_count,
                  index_t long_row_entries, bool prefetch, const index_t* __restrict__ row_ptr,
                  const index_t* __restrict__ col_idx, const V* __restrict__ values,
                  const V* __restrict__ inverse_diagonal, const double* b, double* x) {
  start_after_previous(prefetch);
  if constexpr (Long) {
    if (static_cast<int>(blockIdx.x) < long_count) {  // uniform in the block
      colorset_long_row(long_rows[blockIdx.x], row_ptr, col_idx, values, inverse_diagonal, b, x);
      return;
    }
  }
  const long long thread =
      static_cast<long long>(blockIdx.x - (Long ? long_count : 0)) * kBlockThreads + threadIdx.x;
  const index_t row = begin + static_cast<index_t>(thread / TPR);
  const int lane = static_cast<int>(thread % TPR);
  index_t k = 0, stop = 0, col0 = 0, col1 = 0;
  if (row < end) {
    k = row_ptr[row] + lane;
    stop = row_ptr[row + 1];
  }
  // Past the step, and a long row (it has a block of its own), sum nothing: stop - k + lane
  // is the row's length.
  const bool valid = row < end && (!Long || stop - k <= long_row_entries - lane);
  V val0 = 0, val1 = 0;
  double scale = 0.0;
  if (valid) {
    if (k < stop) {
      col0 = col_idx[k];
      val0 = values[k];
    }
    if (k + TPR < stop) {
      col1 = col_idx[k + TPR];
      val1 = values[k + TPR];
    }
    if (lane == 0) scale = static_cast<double>(inverse_diagonal[row]);
  }
  wait_for_previous();
  double sum = 0.0;
  if (valid) {
    if (k < stop) sum += static_cast<double>(val0) * x[col0];
    if (k + TPR < stop) sum += static_cast<double>(val1) * x[col1];
    for (k += 2 * TPR; k < stop; k += TPR) {
      sum += static_cast<double>(values[k]) * x[col_idx[k]];
    }
  }
  if constexpr (TPR > 1) {
    for (int offset = TPR / 2; offset > 0; offset /= 2) {
      sum += __shfl_down_sync(0xffffffffu, sum, offset, TPR);
    }
  }
  // b is read only by the lane that writes x[row]: in-place solves are safe.
  if (valid && lane == 0) x[row] = (b[row] - sum) * scale;
}

// A thread's row of a step of a fused run and the row's entry range (row pointers only).
struct FusedRange {
  index_t row = 0;
  index_t begin = 0;  // the lane's first entry
  index_t stop = 0;
  int tpr = 1;
  int lane = 0;
  bool valid = false;
};

__device__ FusedRange fetch_range(const ColorsetStep& s, const index_t* __restrict__ row_ptr) {
  FusedRange r;
  r.tpr = s.threads_per_row;  // a power of two: a shift, not a division
  r.row = s.begin + static_cast<index_t>(threadIdx.x >> (__ffs(r.tpr) - 1));
  r.lane = static_cast<int>(threadIdx.x) & (r.tpr - 1);
  r.valid = r.row < s.end;
  if (r.valid) {
    r.begin = row_ptr[r.row] + r.lane;
    r.stop = row_ptr[r.row + 1];
  }
  return r;
}

// What a thread of a fused run reads of its row before the step may start: the range, its
// first two entries (lane and lane + tpr) and the inverse diagonal, none of which depends
// on x.
template <typename V>
struct FusedRow {
  FusedRange range;
  index_t col0 = 0, col1 = 0;
  V val0 = 0, val1 = 0;
  V scale = 0;
};

template <typename V>
__device__ FusedRow<V> fetch_row(const FusedRange& r, const index_t* __restrict__ col_idx,
                                 const V* __restrict__ values,
                                 const V* __restrict__ inverse_diagonal) {
  FusedRow<V> f;
  f.range = r;
  if (r.valid) {
    if (r.begin < r.stop) {
      f.col0 = col_idx[r.begin];
      f.val0 = values[r.begin];
    }
    if (r.begin + r.tpr < r.stop) {
      f.col1 = col_idx[r.begin + r.tpr];
      f.val1 = values[r.begin + r.tpr];
    }
    if (r.lane == 0) f.scale = inverse_diagonal[r.row];
  }
  return f;
}

// One fused run: a single block of kFusedStepRows threads does the steps one after another
// (first to last for lower, last to first for upper), a barrier between steps making each
// step's x visible to the next. Every step fits one pass: rows * threads_per_row <=
// blockDim.x (colorset_plan). A step's row data does not depend on x, so it is fetched
// ahead, in two stages: the row pointers two steps ahead, the first entries and the
// inverse diagonal one step ahead; a step's own loads (the gathers of x and its
// right-hand side) are issued first. After a barrier only the gather of x waits. Per row
// the same arithmetic as colorset_rows with the step's threads per row (each lane sums
// its entries in the same order, then the shuffle reduction). Launched after the previous
// kernel, as colorset_rows: with `prefetch` the first steps' rows are fetched before the
// wait.
template <typename V>
__global__ void __launch_bounds__(kFusedStepRows)
    colorset_fused(const ColorsetStep* __restrict__ steps, int count, bool lower, bool prefetch,
                   const index_t* __restrict__ row_ptr, const index_t* __restrict__ col_idx,
                   const V* __restrict__ values, const V* __restrict__ inverse_diagonal,
                   const double* b, double* x) {
  start_after_previous(prefetch);
  const auto step = [&](int i) { return steps[lower ? i : count - 1 - i]; };
  FusedRow<V> f = fetch_row(fetch_range(step(0), row_ptr), col_idx, values, inverse_diagonal);
  FusedRange ahead = count > 1 ? fetch_range(step(1), row_ptr) : FusedRange{};
  wait_for_previous();
  for (int i = 0; i < count; ++i) {
    const FusedRow<V> cur = f;
    const FusedRange& r = cur.range;
    const bool has0 = r.valid && r.begin < r.stop;
    const bool has1 = r.valid && r.begin + r.tpr < r.stop;
    const double x0 = has0 ? x[cur.col0] : 0.0, x1 = has1 ? x[cur.col1] : 0.0;
    // b is read only by the lane that writes x[row]: in-place solves are safe.
    const double rhs = r.valid && r.lane == 0 ? b[r.row] : 0.0;
    if (i + 1 < count) f = fetch_row(ahead, col_idx, values, inverse_diagonal);
    if (i + 2 < count) ahead = fetch_range(step(i + 2), row_ptr);
    double sum = 0.0;
    if (has0) sum += static_cast<double>(cur.val0) * x0;
    if (has1) sum += static_cast<double>(cur.val1) * x1;
    if (r.valid) {
      for (index_t k = r.begin + 2 * r.tpr; k < r.stop; k += r.tpr) {
        sum += static_cast<double>(values[k]) * x[col_idx[k]];
      }
    }
    // Offsets tpr / 2, ..., 1 as in colorset_rows, unrolled (tpr is the same in the whole
    // block, so the tests do not diverge).
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
      if (offset < r.tpr) sum += __shfl_down_sync(0xffffffffu, sum, offset, r.tpr);
    }
    if (r.valid && r.lane == 0) x[r.row] = (rhs - sum) * static_cast<double>(cur.scale);
    __syncthreads();
  }
}

template <int TPR, typename V>
void launch(const ColorsetStep& s, const index_t* long_rows, bool prefetch, CsrView<V> m,
            const V* inv, const double* b, double* x, cudaStream_t stream) {
  const long long threads = static_cast<long long>(s.end - s.begin) * TPR;
  const int long_count = static_cast<int>(s.long_end - s.long_begin);
  const int blocks = static_cast<int>((threads + kBlockThreads - 1) / kBlockThreads) + long_count;
  launch_after_previous(long_count > 0 ? colorset_rows<TPR, V, true> : colorset_rows<TPR, V, false>,
                        blocks, kBlockThreads, stream, s.begin, s.end, long_rows + s.long_begin,
                        long_count, s.long_row_entries, prefetch, m.row_ptr, m.col_idx, m.values,
                        inv, b, x);
}

}  // namespace

ColorsetPlan colorset_plan(const index_t* host_row_ptr, const std::vector<index_t>& block_ptr,
                           cudaStream_t stream) {
  ColorsetPlan plan;
  static_cast<ColorsetSchedule&>(plan) = colorset_schedule(host_row_ptr, block_ptr);
  plan.device_steps = upload_and_wait(plan.steps, stream);
  if (!plan.long_rows.empty()) plan.device_long_rows = upload_and_wait(plan.long_rows, stream);
  return plan;
}

namespace {

template <typename V>
void launch_step(const ColorsetStep& s, const index_t* long_rows, bool prefetch, CsrView<V> strict,
                 const V* inverse_diagonal, const double* b, double* x, cudaStream_t stream) {
  with_threads_per_row(s.threads_per_row, [&](auto tpr) {
    launch<decltype(tpr)::value, V>(s, long_rows, prefetch, strict, inverse_diagonal, b, x, stream);
  });
}

template <typename V>
void solve(CsrView<V> strict, const V* inverse_diagonal, const ColorsetPlan& plan, bool lower,
           const double* b, double* x, cudaStream_t stream) {
  const std::size_t runs = plan.runs.size();
  bool prefetch = false;  // only behind a launch of this loop
  for (std::size_t i = 0; i < runs; ++i) {
    const ColorsetRun& r = plan.runs[lower ? i : runs - 1 - i];
    if (r.fused) {
      launch_after_previous(colorset_fused<V>, 1, kFusedStepRows, stream,
                            plan.device_steps.data() + r.first, r.count, lower, prefetch,
                            strict.row_ptr, strict.col_idx, strict.values, inverse_diagonal, b, x);
    } else {
      launch_step(plan.steps[r.first], plan.device_long_rows.data(), prefetch, strict,
                  inverse_diagonal, b, x, stream);
    }
    prefetch = true;
  }
}

}  // namespace

void colorset_solve(CsrView<double> strict, const double* inverse_diagonal,
                    const ColorsetPlan& plan, bool lower, const double* b, double* x,
                    cudaStream_t stream) {
  solve(strict, inverse_diagonal, plan, lower, b, x, stream);
}

void colorset_solve(CsrView<float> strict, const float* inverse_diagonal, const ColorsetPlan& plan,
                    bool lower, const double* b, double* x, cudaStream_t stream) {
  solve(strict, inverse_diagonal, plan, lower, b, x, stream);
}

}  // namespace prism::kernels::cuda
