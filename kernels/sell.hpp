#pragma once
// Sliced ELLPACK (SELL-C, C = 32; Kreutzer et al., SIAM J. Sci. Comput. 36(5), 2014)
// layout of a CSR matrix for the GPU kernels: rows are cut into slices of 32
// consecutive rows, each slice padded to its longest row and stored column-major, so
// the 32 threads of a warp read one slice's k-th entries with one coalesced load and no
// row pointers. Slices never cross the boundaries of the given row ranges (the colors of
// a color-set solve), so each range is solved by its own slices.
//
// Padding entries have column -1 (skipped by the kernels) and value 0. sell_padding()
// reports stored / nonzero entries: about 1.00-1.13 on Poisson and G3_circuit, large on
// matrices with a few very long rows, where CSR is the better layout.

#include "kernels/csr_view.hpp"

#include <vector>

namespace prism::kernels {

inline constexpr int kSellSlice = 32;

/// The automatic choices (SpMV, color-set layout) take SELL-32 up to this padding
/// (stored / nonzero entries). SELL moves padding x the CSR value and column bytes but
/// reads them coalesced with one thread per row, at about twice the bandwidth cuSPARSE's
/// CSR SpMV reaches on the same matrices, so it still wins with half again as many bytes;
/// beyond that, CSR (docs/performance.md).
inline constexpr double kSellAutoMaxPadding = 1.5;

/// The automatic color-set layout also needs large blocks: SELL runs one thread per row,
/// so a block of fewer rows than this fraction of the GPU's resident threads leaves the
/// launch latency-bound, where the CSR kernel's several threads per row keep more loads
/// in flight: with colors of a few tens of thousands of rows CSR is ahead, with colors
/// of a few hundred thousand SELL is, on every problem of the benchmark.
inline constexpr double kSellAutoMinBlockFraction = 0.25;

/// The layout only (pattern and where each value comes from), built once per pattern.
struct SellLayout {
  index_t rows = 0;
  /// Range r holds rows [range_ptr[r], range_ptr[r + 1]) and slices
  /// [range_slice[r], range_slice[r + 1]).
  std::vector<index_t> range_ptr;
  std::vector<index_t> range_slice;
  /// Slice s holds entries [slice_ptr[s], slice_ptr[s + 1]): width = size / 32, entry k of
  /// its lane l at slice_ptr[s] + 32 k + l. Row of lane l: its range's first row +
  /// 32 (s - first slice of the range) + l.
  std::vector<index_t> slice_ptr;
  std::vector<index_t> col_idx;  ///< -1 for padding
  std::vector<index_t> source;   ///< CSR entry each stored entry comes from; -1 for padding

  index_t stored() const { return static_cast<index_t>(col_idx.size()); }
};

/// The SELL-32 layout of `a` (values ignored) with slices inside each row range of
/// range_ptr (first 0, last a.rows; {0, rows} for one range).
SellLayout sell_layout(CsrView<double> a, const std::vector<index_t>& range_ptr);

/// Stored entries / nonzeros (1 for an empty matrix).
double sell_padding(const SellLayout& layout, index_t nnz);

/// out[k] = values[source[k]], 0 for padding: the SELL values from CSR values.
template <typename T>
void sell_gather(const SellLayout& layout, const double* values, std::vector<T>& out);

}  // namespace prism::kernels
