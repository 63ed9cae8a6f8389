#pragma once
// Sliced ELLPACK (SELL-C; Kreutzer et al., SIAM J. Sci. Comput. 36(5), 2014) layout of
// a CSR matrix: rows are cut into slices of C consecutive rows (no sorting: sigma = 1),
// each slice padded to its longest row and stored column-major, so C lanes read one
// slice's k-th entries with one contiguous load and no row pointers. The GPU kernels
// take C = 32 (a warp, one coalesced load); the cpu backend's threaded SpMV C = 8 (one
// AVX-512 register of doubles, two AVX2 ones; kernels/host/threaded.hpp). Slices never cross the
// boundaries of the given row ranges (the colors of a color-set solve), so each range is solved by
// its own slices.
//
// Padding entries have column -1 (skipped by the kernels) and value 0. sell_padding()
// reports stored / nonzero entries: about 1.00-1.13 on Poisson and G3_circuit, large on
// matrices with a few very long rows, where CSR is the better layout.

#include "kernels/csr_view.hpp"

#include <cstdint>
#include <vector>

namespace prism::kernels {

inline constexpr int kSellSlice = 32;

/// The slice of the cpu backend's SELL SpMV: a slice's k-th entries are 64 contiguous
/// bytes of values (one cache line, one AVX-512 or two AVX2 vectors of doubles), and
/// slices of 8 rows pad less than the GPU's of 32.
inline constexpr int kHostSellSlice = 8;

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
  index_t slice = kSellSlice;  ///< C, rows per slice
  /// Slice s holds entries [slice_ptr[s], slice_ptr[s + 1]): width = size / C, entry k of
  /// its lane l at slice_ptr[s] + C k + l. Row of lane l: its range's first row +
  /// C (s - first slice of the range) + l.
  std::vector<index_t> slice_ptr;
  std::vector<index_t> col_idx;  ///< -1 for padding
  std::vector<index_t> source;   ///< CSR entry each stored entry comes from; -1 for padding

  index_t stored() const { return static_cast<index_t>(col_idx.size()); }
};

/// The SELL-C layout of `a` (values ignored), C = `slice`, with slices inside each row
/// range of range_ptr (first 0, last a.rows; {0, rows} for one range).
SellLayout sell_layout(CsrView<double> a, const std::vector<index_t>& range_ptr,
                       index_t slice = kSellSlice);

/// Stored entries / nonzeros (1 for an empty matrix).
double sell_padding(const SellLayout& layout, index_t nnz);

/// The entries the SELL-C layout of `a` with these ranges would store (not built).
std::int64_t sell_stored(CsrView<double> a, const std::vector<index_t>& range_ptr, index_t slice);

/// A SELL-C layout of one range ({0, rows}) with its values, as the host kernels read it:
/// slice s holds rows [C s, min(C s + C, rows)).
struct SellView {
  index_t rows = 0;
  index_t cols = 0;
  const index_t* slice_ptr = nullptr;  ///< ceil(rows / C) + 1 entries
  const index_t* col_idx = nullptr;    ///< -1 for padding
  const double* values = nullptr;      ///< 0 for padding

  index_t slices(index_t slice) const { return (rows + slice - 1) / slice; }
};

/// A SELL-C layout of several row ranges (SellLayout's arrays) with its values: range r
/// holds rows [range_ptr[r], range_ptr[r + 1]) and slices [range_slice[r],
/// range_slice[r + 1]), slice s of it rows from range_ptr[r] + C (s - range_slice[r]) on.
struct SellRangesView {
  index_t rows = 0;
  int ranges = 0;
  const index_t* range_ptr = nullptr;
  const index_t* range_slice = nullptr;
  const index_t* slice_ptr = nullptr;
  const index_t* col_idx = nullptr;  ///< -1 for padding
  const double* values = nullptr;    ///< 0 for padding
};

/// out[k] = values[source[k]], 0 for padding: the SELL values from CSR values.
template <typename T>
void sell_gather(const SellLayout& layout, const double* values, std::vector<T>& out);

}  // namespace prism::kernels
