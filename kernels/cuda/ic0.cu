#include "kernels/cuda/async_copy.cuh"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/ic0.hpp"
#include "kernels/cuda/ic0_analysis.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

namespace prism::kernels::cuda {
namespace {

constexpr int kThreads = 128;
constexpr int kStagedThreads = kIc0StagedThreads;

int blocks_for(long long n) {
  return static_cast<int>((n + kThreads - 1) / kThreads);
}

/// The inverse diagonal of row k as the first row block's launch wrote it (emit_pivot):
/// what an entry in column k < out.scaled_end is scaled by in the lower copy.
__device__ __forceinline__ double written_inverse(const Ic0Output& out, index_t k) {
  return out.lower != nullptr ? out.lower_inverse[k] : static_cast<double>(out.lower_inverse32[k]);
}

/// An unscaled entry v = l_ik of L into the solves' copies, at dl of the lower one and du
/// of the upper one (-1: not stored there); in column k < out.scaled_end the lower copy
/// takes v * dl_k, `inverse_k` being dl_k (Ic0Output; not read otherwise).
__device__ __forceinline__ void store_entry(const Ic0Output& out, index_t dl, index_t du, double v,
                                            index_t k, double inverse_k) {
  const bool scaled = k < out.scaled_end;
  if (out.lower != nullptr) {
    if (dl >= 0) out.lower[dl] = scaled ? __dmul_rn(v, inverse_k) : v;
    if (du >= 0) out.upper[du] = v;
  } else {
    const auto f = static_cast<float>(v);
    if (dl >= 0) {
      out.lower32[dl] =
          scaled ? static_cast<float>(__dmul_rn(static_cast<double>(f),
                                                static_cast<double>(static_cast<float>(inverse_k))))
                 : f;
    }
    if (du >= 0) out.upper32[du] = f;
  }
}

/// written_inverse where entry (i, k) is scaled by it, else 0; read before the entry is
/// computed, so that the load overlaps that work (it cannot pass the store of the entry).
__device__ __forceinline__ double scale_of_column(const Ic0Output& out, index_t k) {
  return out.lower_dest != nullptr && k < out.scaled_end ? written_inverse(out, k) : 0.0;
}

/// Entry p (column k, inverse_k = scale_of_column(out, k)) of a row of L_s whose
/// row_scale is `scale` is final: its unscaled value into the solves' copies.
__device__ __forceinline__ void emit_entry(const Ic0Output& out, index_t p, index_t k,
                                           double inverse_k, double ls, double scale) {
  if (out.lower_dest == nullptr) return;
  store_entry(out, out.lower_dest[p], out.upper_dest[p], __dmul_rn(ls, scale), k, inverse_k);
}

/// 1 / l_ii of L = S^{-1} L_s from l_s(ii) and row_scale[i].
__device__ __forceinline__ double inverse_pivot(double ls, double scale) {
  return 1.0 / __dmul_rn(ls, scale);
}

/// Row i's pivot l_s(ii) is final: 1 / l_ii into both inverse diagonals (`scale`:
/// row_scale[i]).
__device__ __forceinline__ void emit_pivot(const Ic0Output& out, index_t i, double ls,
                                           double scale) {
  const double v = inverse_pivot(ls, scale);
  if (out.lower_inverse != nullptr) {
    out.lower_inverse[i] = v;
    out.upper_inverse[i] = v;
  } else {
    out.lower_inverse32[i] = static_cast<float>(v);
    out.upper_inverse32[i] = static_cast<float>(v);
  }
}

/// Row i's shifted pivot a_ii + shift - sum l_ij^2 is known: l_ii = sqrt(pivot), or a
/// failure (the pivot left in the diagonal slot, the row min-reduced into *failed_row).
/// Returns what it stored in the diagonal slot. `scale`: where row_scale[i] is, by
/// default in out.
__device__ __forceinline__ double finish_pivot(const Ic0Output& out, index_t i, index_t diag,
                                               double pivot, double* values, int* failed_row,
                                               const double* scale = nullptr) {
  if (!(pivot > 0.0) || !isfinite(pivot)) {
    values[diag] = pivot;
    atomicMin(failed_row, static_cast<int>(i));
    return pivot;
  }
  const double l = sqrt(pivot);
  values[diag] = l;
  if (out.lower_dest != nullptr) {
    emit_pivot(out, i, l, scale != nullptr ? *scale : out.row_scale[i]);
  }
  return l;
}

/// Attempt blockIdx.y of a ladder (Ic0Attempts): its shift, values and failure flag.
__device__ __forceinline__ void take_attempt(const Ic0Attempts& ladder, double*& values,
                                             double& shift, int*& failed_row) {
  if (ladder.shifts == nullptr) return;
  shift = ladder.shifts[blockIdx.y];
  values += static_cast<std::size_t>(blockIdx.y) * ladder.stride;
  failed_row += blockIdx.y;
}

/// Whether an earlier block of rows (a launch before this one, rows below `begin`) has
/// failed: then this attempt is lost and its remaining blocks return at once. A failure of
/// this block itself (a row >= begin, recorded while the launch runs) does not stop it, so
/// every row of the failing block runs and *failed_row ends as the reference's first
/// failed row. The answer is the same in every thread (a value below begin was stored
/// before the launch), so warps leave whole.
__device__ __forceinline__ bool failed_earlier(const int* failed_row, index_t begin) {
  return *reinterpret_cast<const volatile int*>(failed_row) < static_cast<int>(begin);
}

/// Row i's entries left of the diagonal are final: its pivot l_ii = sqrt(a_ii + shift -
/// sum_{j<i} l_ij^2), the squares subtracted in order (`scale`: where row_scale[i] is).
__device__ __forceinline__ void finish_row(const Ic0Output& out, index_t i, index_t first,
                                           index_t diag, double shift, double* values,
                                           int* failed_row, const double* scale) {
  double pivot = values[diag] + shift;
  for (index_t p = first; p < diag; ++p) pivot = __dsub_rn(pivot, __dmul_rn(values[p], values[p]));
  finish_pivot(out, i, diag, pivot, values, failed_row, scale);
}

/// Ic0Source: row i's scale from d = a_ii, sqrt(a_ii) into `scale` and row_scale[i] and
/// 1 / sqrt(a_ii) into `inverse` and inverse_scale[i] (as ic0_row_scale); or false where
/// a_ii is not positive or not finite (its index min-reduced into *bad_diagonal and
/// *failed_row). `stores`: whether this thread writes (one lane of a warp that takes the
/// row).
__device__ __forceinline__ bool scale_from_diagonal(const Ic0Source& source, index_t i, double d,
                                                    int* failed_row, bool stores, double& scale,
                                                    double& inverse) {
  if (!(d > 0.0) || !isfinite(d)) {
    if (stores) {
      atomicMin(source.bad_diagonal, static_cast<int>(i));
      atomicMin(failed_row, static_cast<int>(i));
    }
    return false;
  }
  scale = sqrt(d);
  inverse = 1.0 / scale;
  if (stores) {
    source.row_scale[i] = scale;
    source.inverse_scale[i] = inverse;
  }
  return true;
}

/// scale_from_diagonal with a_ii read from the caller's values (`diag`: its position in L).
__device__ __forceinline__ bool scale_row(const Ic0Source& source, index_t i, index_t diag,
                                          int* failed_row, bool stores, double& scale,
                                          double& inverse) {
  return scale_from_diagonal(source, i, source.a[source.source[diag]], failed_row, stores, scale,
                             inverse);
}

/// Ic0Source: entry p of row i, in column k, into values[p], scaled as ic0_scale_entries
/// scales it (s_i = inverse_i; s_k from inverse_scale, which an earlier launch wrote for
/// k < i).
__device__ __forceinline__ void scale_entry(const Ic0Source& source, double* values, index_t p,
                                            index_t k, index_t i, double inverse_i) {
  const double inverse_k = k == i ? inverse_i : source.inverse_scale[k];
  values[p] = __dmul_rn(__dmul_rn(source.a[source.source[p]], inverse_i), inverse_k);
}

/// Ic0Source, for the rows of a warp (the lanes in `lanes`, a prefix of the warp, lane r
/// holding row i0 + r: its `first` and `diag` entries and s_i = `inverse_i`): their
/// entries into values, as many consecutive ones at a time as there are lanes, so that
/// the loads are coalesced as in ic0_scale_entries (a row walking its own entries would
/// touch a sector per row at each step), each entry finding its lane by a binary search
/// over the lanes' `first`. The entries are visible to every lane of `lanes` on return.
__device__ __forceinline__ void scale_warp_rows(const Ic0Source& source,
                                                const index_t* __restrict__ col_idx, double* values,
                                                unsigned lanes, index_t i, index_t first,
                                                index_t diag, double inverse_i) {
  const int lane = static_cast<int>(threadIdx.x % 32);
  const int rows = __popc(lanes);
  const index_t i0 = __shfl_sync(lanes, i, 0);
  const index_t e0 = __shfl_sync(lanes, first, 0);
  const index_t e1 = __shfl_sync(lanes, diag, rows - 1) + 1;
  for (index_t base = e0; base < e1; base += rows) {
    const index_t p = base + lane;
    int r = 0;  // the last lane whose row starts at or before p
    for (int step = 16; step > 0; step /= 2) {
      const int c = r + step;
      const index_t start = __shfl_sync(lanes, first, c < rows ? c : rows - 1);
      if (c < rows && start <= p) r = c;
    }
    const double inverse_r = __shfl_sync(lanes, inverse_i, r);
    if (p < e1) scale_entry(source, values, p, col_idx[p], i0 + r, inverse_r);
  }
  __syncwarp(lanes);
}

/// The merge of entry p of row i (entries from `first`) with row k (entries from b up to
/// its diagonal k_diag): found(a, b) for each pair of entries a < p of row i and b of row
/// k in one column, in column order.
template <typename Found>
__device__ __forceinline__ void for_each_match(const index_t* __restrict__ col_idx, index_t first,
                                               index_t p, index_t b, index_t k_diag, Found found) {
  index_t a = first;
  while (a < p && b < k_diag) {
    const index_t ca = col_idx[a], cb = col_idx[b];
    if (ca == cb) {
      found(a, b);
      ++a;
      ++b;
    } else if (ca < cb) {
      ++a;
    } else {
      ++b;
    }
  }
}

__global__ void ic0_rows(index_t begin, index_t end, const index_t* __restrict__ row_ptr,
                         const index_t* __restrict__ col_idx, double* values, double shift,
                         int* failed_row, Ic0Output out, Ic0Attempts ladder, Ic0Source source) {
  take_attempt(ladder, values, shift, failed_row);
  const index_t i = begin + static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  const unsigned lanes = __ballot_sync(0xffffffffu, i < end);  // blocks are whole warps
  if (i >= end) return;
  const index_t first = row_ptr[i], diag = row_ptr[i + 1] - 1;
  const bool scales = source.a != nullptr;
  double scale = 0.0, inverse_i = 0.0;
  bool good_diagonal = true;
  if (scales) {
    good_diagonal = scale_row(source, i, diag, failed_row, true, scale, inverse_i);
  } else if (out.lower_dest != nullptr) {
    scale = out.row_scale[i];
  }
  if (failed_earlier(failed_row, begin)) return;  // the whole warp
  if (scales) {
    scale_warp_rows(source, col_idx, values, lanes, i, first, diag, inverse_i);
    if (!good_diagonal) return;
  }
  // l_ik = (a_ik - sum_{j<k} l_ij l_kj) / l_kk over the common pattern of rows i and k,
  // in the reference kernel's order and without fused multiply-adds (__dmul_rn,
  // __dsub_rn), so the device factor is the reference factor bit for bit.
  for (index_t p = first; p < diag; ++p) {
    const index_t k = col_idx[p];
    const index_t k_diag = row_ptr[k + 1] - 1;
    const double inverse_k = scale_of_column(out, k);
    double sum = values[p];
    for_each_match(col_idx, first, p, row_ptr[k], k_diag, [&](index_t a, index_t b) {
      sum = __dsub_rn(sum, __dmul_rn(values[a], values[b]));
    });
    values[p] = sum / values[k_diag];
    emit_entry(out, p, k, inverse_k, values[p], scale);
  }
  finish_row(out, i, first, diag, shift, values, failed_row, &scale);
}

/// Ic0Method::staged: one warp (the whole block) takes `rows_per_warp` consecutive rows.
/// Their entries, and their pairs' entries of rows k, are contiguous in L and in the
/// match table, so the warp first copies everything the rows read into shared memory
/// with asynchronous copies, many in flight at once: a_ij, l_kk of each entry, each
/// entry's end of pairs and of its run, each pair's own offset and l_kb. Then the
/// 32 / rows_per_warp lanes of a row compute it from shared memory run by run (the
/// entries of a run are independent: Ic0Matches), each entry's products subtracted in
/// the reference's order, and the row's first lane its pivot; the warp writes the rows
/// back. With Ic0Source the warp copies the caller's a_ij and s_k instead (the positions
/// of both first), and each row's lanes scale its entries before the walk.
__global__ void __launch_bounds__(kStagedThreads)
    ic0_rows_staged(index_t begin, index_t end, const index_t* __restrict__ row_ptr,
                    const index_t* __restrict__ col_idx, Ic0Matches matches, Ic0Staging staging,
                    double* values, double shift, int* failed_row, Ic0Output out,
                    Ic0Attempts ladder, Ic0Source source) {
  take_attempt(ladder, values, shift, failed_row);
  const bool scales = source.a != nullptr;
  // The layout ic0_staged_bytes counts: 8-byte slots, then 4-byte ones.
  extern __shared__ double staged[];
  double* scale = staged;                        // row_scale of the warp's rows
  double* value = scale + kStagedThreads;        // a_ij, then l_ij
  double* pivot_of = value + staging.entries;    // l_kk of entry (i, k)
  double* other = pivot_of + staging.entries;    // l_kb of each pair
  double* column_scale = other + staging.pairs;  // Ic0Source: s_k of entry (i, k)
  auto* row_start = reinterpret_cast<index_t*>(column_scale + (scales ? staging.entries : 0));
  index_t* pairs_end = row_start + kStagedThreads + 1;  // match ptr[p + 1]
  index_t* lower_at = pairs_end + staging.entries;      // out.lower_dest[p]
  index_t* upper_at = lower_at + staging.entries;       // out.upper_dest[p]
  auto* run_words = reinterpret_cast<std::uint32_t*>(upper_at + staging.entries);  // run_end
  std::uint32_t* own_words = run_words + staging.entries / 2 + 2;
  const int lanes_per_row = kStagedThreads / staging.rows_per_warp;
  const int lane = static_cast<int>(threadIdx.x);
  const index_t i0 = begin + static_cast<index_t>(blockIdx.x) * staging.rows_per_warp;
  const index_t rows = end - i0 < staging.rows_per_warp ? end - i0 : staging.rows_per_warp;
  const index_t e0 = row_ptr[i0], entries = row_ptr[i0 + rows] - e0;
  const index_t q0 = matches.ptr[e0], pairs = matches.ptr[e0 + entries] - q0;
  if (failed_earlier(failed_row, begin)) {  // the whole warp
    if (scales && lane < rows) {            // a bad diagonal is still reported, as ic0_scale would
      double unused_scale = 0.0, unused_inverse = 0.0;
      scale_row(source, i0 + lane, row_ptr[i0 + lane + 1] - 1, failed_row, true, unused_scale,
                unused_inverse);
    }
    return;
  }
  // own[] and run_end[] in 4-byte words (their storage is padded to whole words past the
  // end).
  const index_t w0 = q0 / 2, words = (q0 + pairs + 1) / 2 - w0;
  const auto* own_source = reinterpret_cast<const std::uint32_t*>(matches.own);
  const index_t r0 = e0 / 2, run_word_count = (e0 + entries + 1) / 2 - r0;
  const auto* run_source = reinterpret_cast<const std::uint32_t*>(matches.run_end);
  const bool emits = out.lower_dest != nullptr;

  // First the direct copies, and the positions of the gathered factors into their own
  // slots (an 8-byte slot holds a 4-byte position until its factor replaces it) ...
  auto* other_at = reinterpret_cast<index_t*>(other);
  auto* pivot_at = reinterpret_cast<index_t*>(pivot_of);
  auto* value_at = reinterpret_cast<index_t*>(value);          // Ic0Source: a_ij's position
  auto* column_at = reinterpret_cast<index_t*>(column_scale);  // Ic0Source: k
  for (index_t t = lane; t < entries; t += kStagedThreads) {
    if (scales) {
      cp_async(value_at + 2 * t, source.source + e0 + t, true);
      cp_async(column_at + 2 * t, col_idx + e0 + t, true);
    } else {
      cp_async(value + t, values + e0 + t, true);
    }
    cp_async(pairs_end + t, matches.ptr + e0 + t + 1, true);
    cp_async(pivot_at + 2 * t, matches.pivot + e0 + t, true);
    if (emits) {
      cp_async(lower_at + t, out.lower_dest + e0 + t, true);
      cp_async(upper_at + t, out.upper_dest + e0 + t, true);
    }
  }
  for (index_t t = lane; t < words; t += kStagedThreads) {
    cp_async(own_words + t, own_source + w0 + t, true);
  }
  for (index_t t = lane; t < run_word_count; t += kStagedThreads) {
    cp_async(run_words + t, run_source + r0 + t, true);
  }
  for (index_t t = lane; t < pairs; t += kStagedThreads) {
    cp_async(other_at + 2 * t, matches.other + q0 + t, true);
  }
  if (lane < rows) cp_async(row_start + lane, row_ptr + i0 + lane, true);
  if (lane == 0) cp_async(row_start + rows, row_ptr + i0 + rows, true);
  if (emits && !scales && lane < rows) cp_async(scale + lane, out.row_scale + i0 + lane, true);
  cp_async_commit();
  cp_async_wait<0>();
  // ... then the factors l_kk and l_kb (a lane gathers into the slots it filled itself),
  // and with Ic0Source a_ij and s_k (none for a diagonal entry, its own pivot position).
  for (index_t t = lane; t < entries; t += kStagedThreads) {
    const index_t pivot_position = pivot_at[2 * t];
    cp_async(pivot_of + t, values + pivot_position, true);
    if (scales) {
      const index_t a_position = value_at[2 * t], k = column_at[2 * t];
      cp_async(value + t, source.a + a_position, true);
      if (pivot_position != e0 + t) cp_async(column_scale + t, source.inverse_scale + k, true);
    }
  }
  for (index_t t = lane; t < pairs; t += kStagedThreads) {
    cp_async(other + t, values + other_at[2 * t], true);
  }
  cp_async_commit();
  cp_async_wait<0>();
  __syncwarp();

  const int row = lane / lanes_per_row, sub = lane % lanes_per_row;
  if (row < rows) {
    const index_t i = i0 + row;
    const index_t first = row_start[row] - e0, diag = row_start[row + 1] - 1 - e0;
    const auto* own = reinterpret_cast<const std::uint16_t*>(own_words) + (q0 - 2 * w0);
    const auto* run_end = reinterpret_cast<const std::uint16_t*>(run_words) + (e0 - 2 * r0);
    const unsigned row_lanes =
        lanes_per_row == 32 ? 0xffffffffu : ((1u << lanes_per_row) - 1u) << (row * lanes_per_row);
    bool good_diagonal = true;
    if (scales) {  // the row's scale from its a_ii, then its entries scaled as ic0_scale does
      const double a_ii = value[diag];
      __syncwarp(row_lanes);  // read by every lane of the row before one scales it
      double row_scale = 0.0, inverse = 0.0;
      good_diagonal =
          scale_from_diagonal(source, i, a_ii, failed_row, sub == 0, row_scale, inverse);
      if (sub == 0) scale[row] = row_scale;
      for (index_t p = first + sub; p <= diag; p += lanes_per_row) {
        if (good_diagonal) {
          value[p] = __dmul_rn(__dmul_rn(value[p], inverse), p == diag ? inverse : column_scale[p]);
        } else {
          pivot_at[2 * p] = -1;  // nothing of the row is emitted
        }
      }
      __syncwarp(row_lanes);
    }
    for (index_t run = first; good_diagonal && run < diag;) {
      const index_t stop_run = first + run_end[run];
      for (index_t p = run + sub; p < stop_run; p += lanes_per_row) {
        double sum = value[p];
        for (index_t q = p == 0 ? 0 : pairs_end[p - 1] - q0, stop = pairs_end[p] - q0; q < stop;
             ++q) {
          sum = __dsub_rn(sum, __dmul_rn(value[first + own[q]], other[q]));
        }
        value[p] = sum / pivot_of[p];
        pivot_at[2 * p] = row;  // l_kk is used: the slot now says whose entry p is
      }
      __syncwarp(row_lanes);  // the run is final before the next one reads it
      run = stop_run;
    }
    if (good_diagonal && sub == 0) {
      double pivot = value[diag] + shift;  // the squares in order, as finish_row
      for (index_t p = first; p < diag; ++p)
        pivot = __dsub_rn(pivot, __dmul_rn(value[p], value[p]));
      value[diag] = finish_pivot(out, i, e0 + diag, pivot, values, failed_row, scale + row);
      pivot_at[2 * diag] = -1;  // stored by finish_pivot
    }
  }
  __syncwarp();
  // The rows back into L, and their entries into the solves' copies.
  for (index_t t = lane; t < entries; t += kStagedThreads) {
    values[e0 + t] = value[t];
    const int row = pivot_at[2 * t];
    if (emits && row >= 0) {
      const index_t k = out.scaled_end > 0 ? col_idx[e0 + t] : 0;
      store_entry(out, lower_at[t], upper_at[t], __dmul_rn(value[t], scale[row]), k,
                  scale_of_column(out, k));
    }
  }
}

/// The runs of each row (Ic0Matches::run_end), one thread per row: a run ends before the
/// first entry that subtracts a product of an entry of the run.
__global__ void ic0_find_runs(index_t rows, const index_t* __restrict__ row_ptr,
                              const index_t* __restrict__ ptr,
                              const std::uint16_t* __restrict__ own,
                              std::uint16_t* __restrict__ run_end) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= rows) return;
  const index_t first = row_ptr[i], diag = row_ptr[i + 1] - 1;
  const auto offset = [&](index_t p) { return static_cast<std::uint16_t>(p - first); };
  index_t run = first;
  for (index_t p = first; p < diag; ++p) {
    bool needs_run = false;
    for (index_t q = ptr[p]; q < ptr[p + 1]; ++q) needs_run |= first + own[q] >= run;
    if (!needs_run) continue;
    for (index_t t = run; t < p; ++t) run_end[t] = offset(p);
    run = p;
  }
  for (index_t t = run; t < diag; ++t) run_end[t] = offset(diag);
  run_end[diag] = offset(diag);
}

/// A finished factor L_s into the solves' storage, one thread per entry, with the values
/// the factorization kernels emit as they go (emit_entry, and emit_pivot for a diagonal).
/// (The inverse diagonal an entry in a column below out.scaled_end is scaled by is formed
/// here from l_s(kk), as emit_pivot forms it in the same launch.)
__global__ void ic0_emit_entries(index_t nnz, const index_t* __restrict__ row_ptr,
                                 const index_t* __restrict__ col_idx,
                                 const index_t* __restrict__ entry_row,
                                 const double* __restrict__ values, Ic0Output out, Ic0Kept kept) {
  const long long p = static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x;
  if (p >= nnz) return;
  const auto entry = static_cast<index_t>(p);
  if (kept.failed_row != nullptr) {  // the first attempt that did not fail, if any
    int a = 0;
    while (a < kept.count && kept.failed_row[a] != kNoFailedRow) ++a;
    if (a == kept.count) return;
    values += static_cast<std::size_t>(a) * kept.stride;
    kept.values[entry] = values[entry];
  }
  if (out.lower_dest == nullptr) return;
  const index_t i = entry_row[p];
  if (entry == row_ptr[i + 1] - 1) {
    emit_pivot(out, i, values[entry], out.row_scale[i]);
    return;
  }
  const index_t k = col_idx[entry], dl = out.lower_dest[entry];
  const double inverse_k = dl >= 0 && k < out.scaled_end
                               ? inverse_pivot(values[row_ptr[k + 1] - 1], out.row_scale[k])
                               : 0.0;
  store_entry(out, dl, out.upper_dest[entry], __dmul_rn(values[entry], out.row_scale[i]), k,
              inverse_k);
}

/// Counts the matches of each entry p of L into count[p] (0 for a diagonal) and adds them
/// all up into *total in 64 bits (a table longer than index_t is not built): one
/// reduction a launch block, then one atomic.
__global__ void ic0_count_matches(index_t nnz, const index_t* __restrict__ row_ptr,
                                  const index_t* __restrict__ col_idx,
                                  const index_t* __restrict__ entry_row,
                                  index_t* __restrict__ count,
                                  unsigned long long* __restrict__ total) {
  __shared__ unsigned long long block_total;
  if (threadIdx.x == 0) block_total = 0;
  __syncthreads();
  const index_t p = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  index_t n = 0;
  if (p < nnz) {
    const index_t i = entry_row[p];
    const index_t first = row_ptr[i], diag = row_ptr[i + 1] - 1;
    if (p < diag) {
      const index_t k = col_idx[p];
      for_each_match(col_idx, first, p, row_ptr[k], row_ptr[k + 1] - 1,
                     [&](index_t, index_t) { ++n; });
    }
    count[p] = n;
  }
  // A row's matches are at most its length (kIc0MatchRowLimit): a warp's sum fits 32 bits.
  const unsigned warp_sum = __reduce_add_sync(0xffffffffu, static_cast<unsigned>(n));
  if ((threadIdx.x & 31) == 0 && warp_sum != 0) atomicAdd(&block_total, warp_sum);
  __syncthreads();
  if (threadIdx.x == 0 && block_total != 0) atomicAdd(total, block_total);
}

/// Stores the matches of each entry p of L (Ic0Matches) from their offsets ptr, and the
/// position of the pivot it is divided by (its own for a diagonal).
__global__ void ic0_find_matches(index_t nnz, const index_t* __restrict__ row_ptr,
                                 const index_t* __restrict__ col_idx,
                                 const index_t* __restrict__ entry_row,
                                 const index_t* __restrict__ ptr, std::uint16_t* __restrict__ own,
                                 index_t* __restrict__ other, index_t* __restrict__ pivot) {
  const index_t p = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (p >= nnz) return;
  const index_t i = entry_row[p];
  const index_t first = row_ptr[i], diag = row_ptr[i + 1] - 1;
  if (p >= diag) {
    pivot[p] = p;
    return;
  }
  const index_t k = col_idx[p];
  pivot[p] = row_ptr[k + 1] - 1;
  index_t q = ptr[p];
  for_each_match(col_idx, first, p, row_ptr[k], row_ptr[k + 1] - 1, [&](index_t a, index_t b) {
    own[q] = static_cast<std::uint16_t>(a - first);
    other[q] = b;
    ++q;
  });
}

/// One warp per row, for long rows: the entries p of row i in order, as ic0_rows; for
/// each, the lanes take 32 of row i's entries before p at a time and look their columns
/// up in row k (binary search), and every lane subtracts the products of the matches in
/// column order from its copy of the sum, as the reference does, so the factor is the
/// same bit for bit. Lane 0 stores; __syncwarp makes the store visible to the warp.
__global__ void __launch_bounds__(kThreads)
    ic0_rows_warp(index_t begin, index_t end, const index_t* __restrict__ row_ptr,
                  const index_t* __restrict__ col_idx, double* values, double shift,
                  int* failed_row, Ic0Output out, Ic0Attempts ladder, Ic0Source source) {
  take_attempt(ladder, values, shift, failed_row);
  constexpr unsigned kAll = 0xffffffffu;
  const int lane = static_cast<int>(threadIdx.x % 32);
  const index_t i = begin + static_cast<index_t>(
                                (static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x) / 32);
  if (i >= end) return;  // the whole warp
  const index_t first = row_ptr[i], diag = row_ptr[i + 1] - 1;
  const bool scales = source.a != nullptr;
  double scale = 0.0, inverse_i = 0.0;
  bool good_diagonal = true;
  if (scales) {  // every lane reads a_ii, lane 0 stores
    good_diagonal = scale_row(source, i, diag, failed_row, lane == 0, scale, inverse_i);
  } else if (out.lower_dest != nullptr) {
    scale = out.row_scale[i];
  }
  if (failed_earlier(failed_row, begin)) return;  // the whole warp
  if (scales) {                                   // the row's entries, 32 at a time
    for (index_t p = first + lane; p <= diag; p += 32) {
      scale_entry(source, values, p, col_idx[p], i, inverse_i);
    }
    __syncwarp();
    if (!good_diagonal) return;  // the whole warp
  }
  for (index_t p = first; p < diag; ++p) {
    const index_t k = col_idx[p];
    const index_t k_first = row_ptr[k], k_diag = row_ptr[k + 1] - 1;
    const double inverse_k = lane == 0 ? scale_of_column(out, k) : 0.0;
    double sum = values[p];
    for (index_t a0 = first; a0 < p; a0 += 32) {
      const index_t a = a0 + lane;
      double product = 0.0;
      bool match = false;
      if (a < p) {
        const index_t c = col_idx[a];
        index_t lo = k_first, hi = k_diag;
        while (lo < hi) {
          const index_t mid = lo + (hi - lo) / 2;
          if (col_idx[mid] < c) {
            lo = mid + 1;
          } else {
            hi = mid;
          }
        }
        if (lo < k_diag && col_idx[lo] == c) {
          match = true;
          product = __dmul_rn(values[a], values[lo]);
        }
      }
      for (unsigned m = __ballot_sync(kAll, match); m != 0; m &= m - 1) {
        sum = __dsub_rn(sum, __shfl_sync(kAll, product, __ffs(m) - 1));
      }
    }
    const double l = sum / values[k_diag];
    if (lane == 0) {
      values[p] = l;
      emit_entry(out, p, k, inverse_k, l, scale);
    }
    __syncwarp();
  }
  // l_ii = sqrt(a_ii + shift - sum_{j<i} l_ij^2), the squares subtracted in order
  double pivot = values[diag] + shift;
  for (index_t a0 = first; a0 < diag; a0 += 32) {
    const index_t a = a0 + lane;
    const double square = a < diag ? __dmul_rn(values[a], values[a]) : 0.0;
    for (unsigned m = __ballot_sync(kAll, a < diag); m != 0; m &= m - 1) {
      pivot = __dsub_rn(pivot, __shfl_sync(kAll, square, __ffs(m) - 1));
    }
  }
  if (lane != 0) return;
  finish_pivot(out, i, diag, pivot, values, failed_row, &scale);
}

__global__ void ic0_row_scale(index_t rows, const index_t* __restrict__ diagonal_source,
                              const double* __restrict__ a, double* __restrict__ row_scale,
                              double* __restrict__ inverse_scale, int* failed_row) {
  const index_t i = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (i >= rows) return;
  const double d = a[diagonal_source[i]];
  if (!(d > 0.0) || !isfinite(d)) {
    atomicMin(failed_row, static_cast<int>(i));
    return;
  }
  const double r = sqrt(d);
  row_scale[i] = r;
  inverse_scale[i] = 1.0 / r;
}

__global__ void ic0_scale_entries(index_t nnz, const index_t* __restrict__ entry_row,
                                  const index_t* __restrict__ col_idx,
                                  const index_t* __restrict__ source, const double* __restrict__ a,
                                  const double* __restrict__ inverse_scale,
                                  double* __restrict__ scaled) {
  const index_t k = static_cast<index_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (k >= nnz) return;
  scaled[k] =
      __dmul_rn(__dmul_rn(a[source[k]], inverse_scale[entry_row[k]]), inverse_scale[col_idx[k]]);
}

__global__ void ic0_replicate_values(const double* __restrict__ values, std::size_t n, int count,
                                     std::size_t stride, double* __restrict__ copies) {
  const std::size_t k = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (k >= n) return;
  const double v = values[k];
  for (int a = 0; a < count; ++a) copies[a * stride + k] = v;
}

__global__ void ic0_gather_failed_pivots(const int* __restrict__ failed_row, int count,
                                         const double* __restrict__ values, std::size_t stride,
                                         const index_t* __restrict__ row_ptr,
                                         double* __restrict__ pivots) {
  const int a = static_cast<int>(threadIdx.x);
  if (a >= count) return;
  const int row = failed_row[a];
  pivots[a] = row == kNoFailedRow ? 0.0 : values[a * stride + row_ptr[row + 1] - 1];
}

}  // namespace

Ic0MatchTable ic0_match_table(CsrView<double> lower, index_t nnz, const index_t* entry_row,
                              index_t longest_row, cudaStream_t stream) {
  Ic0MatchTable table;
  // No entries: nothing to subtract, and the merges find nothing either.
  if (longest_row > kIc0MatchRowLimit || nnz <= 0) return table;
  const auto entries = static_cast<std::size_t>(nnz);
  // The counts (and a 0 after them) as scratch in stream order: most patterns of few
  // colors have no pairs, and their set-up then frees it with no wait for the device.
  StreamScratch<index_t> counts(entries + 1, stream);
  StreamScratch<unsigned long long> total(1, stream);
  PRISM_CUDA_CHECK(cudaMemsetAsync(counts.data() + nnz, 0, sizeof(index_t), stream));
  PRISM_CUDA_CHECK(cudaMemsetAsync(total.data(), 0, sizeof(unsigned long long), stream));
  ic0_count_matches<<<blocks_for(nnz), kThreads, 0, stream>>>(
      nnz, lower.row_ptr, lower.col_idx, entry_row, counts.data(), total.data());
  PRISM_CUDA_CHECK_LAUNCH();
  // The one number the host needs: the pairs' count (the table's size).
  unsigned long long pairs = 0;
  PRISM_CUDA_CHECK(
      cudaMemcpyAsync(&pairs, total.data(), sizeof(pairs), cudaMemcpyDeviceToHost, stream));
  PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
  // Nothing to subtract: the merges find nothing either.
  if (pairs == 0) return table;
  if (pairs > static_cast<unsigned long long>(std::numeric_limits<index_t>::max())) return table;
  // A table that would crowd the device out is not worth it: merging needs none.
  std::size_t free_bytes = 0, total_bytes = 0;
  PRISM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const auto count = static_cast<std::size_t>(pairs);
  const std::size_t table_bytes = (entries + 1) * sizeof(index_t) +
                                  (count + 2) * sizeof(std::uint16_t) + count * sizeof(index_t) +
                                  (entries + 2) * sizeof(std::uint16_t);
  // (With the pivots' positions, allocated with the table, taken as though already.)
  const std::size_t pivot_bytes = std::min(free_bytes, entries * sizeof(index_t));
  if (table_bytes > (free_bytes - pivot_bytes) / 2) return table;
  table.ptr = DeviceBuffer<index_t>(entries + 1);
  exclusive_sum(counts.data(), table.ptr.data(), nnz + 1, stream);  // ptr[nnz] = pairs
  table.pivot = DeviceBuffer<index_t>(entries);
  // own[] padded to whole 4-byte words past the last pair: ic0_rows_staged copies words.
  table.own = DeviceBuffer<std::uint16_t>(count + 2);
  table.other = DeviceBuffer<index_t>(count);
  ic0_find_matches<<<blocks_for(nnz), kThreads, 0, stream>>>(
      nnz, lower.row_ptr, lower.col_idx, entry_row, table.ptr.data(), table.own.data(),
      table.other.data(), table.pivot.data());
  PRISM_CUDA_CHECK_LAUNCH();
  // run_end[] padded to whole 4-byte words as well.
  table.run_end = DeviceBuffer<std::uint16_t>(entries + 2);
  if (lower.rows > 0) {
    ic0_find_runs<<<blocks_for(lower.rows), kThreads, 0, stream>>>(
        lower.rows, lower.row_ptr, table.ptr.data(), table.own.data(), table.run_end.data());
    PRISM_CUDA_CHECK_LAUNCH();
  }
  return table;
}

void ic0_factor_rows(const Ic0Rows& rows, CsrView<double> lower, double* values, double shift,
                     int* failed_row, cudaStream_t stream, const Ic0Matches* matches,
                     const Ic0Output* output, const Ic0Attempts* attempts,
                     const Ic0Source* source) {
  const index_t begin = rows.begin, end = rows.end;
  if (end <= begin) return;
  const Ic0Output out = output != nullptr ? *output : Ic0Output{};
  const Ic0Attempts ladder = attempts != nullptr ? *attempts : Ic0Attempts{};
  const Ic0Source from = source != nullptr ? *source : Ic0Source{};
  if (ladder.shifts != nullptr && (ladder.count < 1 || out.lower_dest != nullptr)) {
    throw ConfigError("ic0_factor_rows: a ladder of attempts needs count >= 1 and no output");
  }
  if (from.a != nullptr && ladder.shifts != nullptr) {
    throw ConfigError("ic0_factor_rows: values from a source with a ladder of attempts");
  }
  const auto count = static_cast<unsigned>(ladder.shifts != nullptr ? ladder.count : 1);
  switch (rows.method) {
    case Ic0Method::warp_merge:
      ic0_rows_warp<<<dim3(blocks_for(32LL * (end - begin)), count), kThreads, 0, stream>>>(
          begin, end, lower.row_ptr, lower.col_idx, values, shift, failed_row, out, ladder, from);
      break;
    case Ic0Method::staged: {
      const Ic0Staging& staging = rows.staging;
      const std::size_t bytes = ic0_staged_bytes(staging.entries, staging.pairs, from.a != nullptr);
      if (matches == nullptr || matches->ptr == nullptr || staging.rows_per_warp < 1 ||
          bytes > kIc0StagedSharedBytes) {
        throw ConfigError("ic0_factor_rows: Ic0Method::staged without matches or staging");
      }
      const index_t warps = (end - begin + staging.rows_per_warp - 1) / staging.rows_per_warp;
      ic0_rows_staged<<<dim3(static_cast<unsigned>(warps), count), kStagedThreads, bytes, stream>>>(
          begin, end, lower.row_ptr, lower.col_idx, *matches, staging, values, shift, failed_row,
          out, ladder, from);
      break;
    }
    case Ic0Method::merge:
      ic0_rows<<<dim3(blocks_for(end - begin), count), kThreads, 0, stream>>>(
          begin, end, lower.row_ptr, lower.col_idx, values, shift, failed_row, out, ladder, from);
      break;
  }
  PRISM_CUDA_CHECK_LAUNCH();
}

void ic0_replicate(const double* values, std::size_t n, int count, std::size_t stride,
                   double* copies, cudaStream_t stream) {
  if (n == 0 || count < 1) return;
  ic0_replicate_values<<<blocks_for(static_cast<long long>(n)), kThreads, 0, stream>>>(
      values, n, count, stride, copies);
  PRISM_CUDA_CHECK_LAUNCH();
}

void ic0_failed_pivots(const int* failed_row, int count, const double* values, std::size_t stride,
                       const index_t* row_ptr, double* pivots, cudaStream_t stream) {
  if (count < 1) return;
  if (count > 1024) throw ConfigError("ic0_failed_pivots: more than 1024 attempts");
  ic0_gather_failed_pivots<<<1, count, 0, stream>>>(failed_row, count, values, stride, row_ptr,
                                                    pivots);
  PRISM_CUDA_CHECK_LAUNCH();
}

void ic0_emit(CsrView<double> lower, index_t nnz, const index_t* entry_row, const double* values,
              const Ic0Output& output, cudaStream_t stream, const Ic0Kept* kept) {
  const Ic0Kept choose = kept != nullptr ? *kept : Ic0Kept{};
  if (nnz == 0 || (output.lower_dest == nullptr && choose.failed_row == nullptr)) return;
  ic0_emit_entries<<<blocks_for(nnz), kThreads, 0, stream>>>(nnz, lower.row_ptr, lower.col_idx,
                                                             entry_row, values, output, choose);
  PRISM_CUDA_CHECK_LAUNCH();
}

void ic0_scale(CsrView<double> lower, index_t nnz, const index_t* entry_row, const index_t* source,
               const index_t* diagonal_source, const double* a, double* scaled, double* row_scale,
               double* inverse_scale, int* failed_row, cudaStream_t stream) {
  PRISM_CUDA_CHECK(cudaMemsetAsync(failed_row, kNoFailedRowByte, sizeof(int), stream));
  if (lower.rows == 0) return;
  ic0_row_scale<<<blocks_for(lower.rows), kThreads, 0, stream>>>(
      lower.rows, diagonal_source, a, row_scale, inverse_scale, failed_row);
  PRISM_CUDA_CHECK_LAUNCH();
  // A bad row leaves its scale unset: the caller reads failed_row and stops first.
  if (nnz == 0) return;
  ic0_scale_entries<<<blocks_for(nnz), kThreads, 0, stream>>>(nnz, entry_row, lower.col_idx, source,
                                                              a, inverse_scale, scaled);
  PRISM_CUDA_CHECK_LAUNCH();
}

}  // namespace prism::kernels::cuda
