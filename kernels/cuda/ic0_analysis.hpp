#pragma once
// The symbolic analysis of IC(0) on the device, from the pattern of a symmetric matrix
// already there (sorted columns, every diagonal stored): the factor's pattern L = tril(A)
// and its map into A, the strict triangles the color-set solves read (L's, and that of
// U = L^T) with their maps into L, and each strict row's reach, from which the
// independent row blocks are found (kernels/cuda/independent_blocks.hpp); then per row
// block the summaries the host plans the factorization's launches from (longest rows,
// staging extents). The host reference is the host analysis itself (precond::Ic0Pattern,
// backend::SplitTriangle::pattern_only, kernels::cuda::ic0_staging): equal arrays entry
// for entry.

#include "kernels/csr_view.hpp"
#include "kernels/cuda/device_memory.hpp"

#include <cuda_runtime.h>

#include <vector>

namespace prism::kernels::cuda {

/// Indices in device memory that one of a DeviceIc0Pattern's arenas owns.
struct DeviceSpan {
  index_t* pointer = nullptr;
  std::size_t count = 0;
  index_t* data() const noexcept { return pointer; }
  std::size_t size() const noexcept { return count; }
};

/// The IC(0) pattern of A and its strict triangles, in device memory. What a factor keeps
/// (L's row pointers, columns, entry rows) is in buffers of its own; the rest, read once
/// by the set-up, lies in two arenas (two allocations and two frees, not nine).
struct DeviceIc0Pattern {
  index_t rows = 0;
  /// L = tril(A), diagonal last in each row: rows + 1 row pointers, its columns,
  /// entry_row[p] = p's row.
  DeviceBuffer<index_t> l_row_ptr, l_col_idx, entry_row;
  /// The arenas of the spans below: a number or two a row, and a number an entry.
  DeviceBuffer<index_t> row_arena, entry_arena;
  /// lower_source[p] = the entry of A that entry p of L holds.
  DeviceSpan lower_source;
  /// L's strict triangle (SplitTriangle::pattern_only(L, lower)): row pointers, columns and
  /// strict_lower_source[s] = the entry of L that strict entry s holds.
  DeviceSpan strict_lower_ptr, strict_lower_col, strict_lower_source;
  /// The strict triangle of U = L^T (SplitTriangle::pattern_only(U, upper)): row pointers,
  /// columns and strict_upper_source[s] = the entry of L that strict entry s holds
  /// (Ic0Pattern's upper_source composed with the split's strict_source).
  DeviceSpan strict_upper_ptr, strict_upper_col, strict_upper_source;
  /// Each strict row's reach: its largest column in the lower triangle (-1 for an empty
  /// row), its smallest in the upper one (rows for an empty row): a row starts a new
  /// independent block where it reaches the current one (kernels::independent_blocks).
  DeviceSpan lower_reach, upper_reach;

  index_t lower_nnz() const { return static_cast<index_t>(l_col_idx.size()); }
  index_t strict_nnz() const { return static_cast<index_t>(strict_lower_col.size()); }
};

/// The analysis of `a` (square, device arrays; values not read; `nnz` its entries), whose
/// columns are sorted, every row stores its diagonal and the pattern is symmetric (not
/// checked: the set-up checked them). Waits for the stream once (L's size).
DeviceIc0Pattern ic0_analysis(CsrView<double> a, index_t nnz, cudaStream_t stream);

/// out[0, n) = the exclusive sum of in[0, n) (in == out: in place), in stream order (no
/// host wait).
void exclusive_sum(const index_t* in, index_t* out, index_t n, cudaStream_t stream);

/// For each row block [block_ptr[b], block_ptr[b + 1]) (host), the most entries left of
/// the diagonal in a row of L (l_row_ptr on the device, diagonal last), read back.
std::vector<index_t> ic0_block_longest(const index_t* l_row_ptr,
                                       const std::vector<index_t>& block_ptr, cudaStream_t stream);

/// For each row block [block_ptr[b], block_ptr[b + 1]) (host) and each of ic0_staging's
/// choices j (32 >> j rows a warp), the most entries of L and the most matches of a
/// group of rows of the block (l_row_ptr, match_ptr: L's and the match table's row
/// pointers on the device), read back: extents[(b * kIc0StagingChoices + j) * 2 + {0, 1}],
/// what ic0_staging_pick plans from (ic0_staging from host copies of the pointers).
std::vector<index_t> ic0_staging_extents(const index_t* l_row_ptr, const index_t* match_ptr,
                                         const std::vector<index_t>& block_ptr,
                                         cudaStream_t stream);

/// out[k] = source[through[k]], -1 where through[k] is -1 (padding), k < n: a map
/// composed with the matrix's map to the caller's entries (backend::compose_source).
void compose_maps(std::size_t n, const index_t* through, const index_t* source, index_t* out,
                  cudaStream_t stream);

/// out[i] = map[row_ptr[i + 1] - 1], i < rows: the entry of each row's last (diagonal in
/// L) entry under `map`.
void row_last_entries(index_t rows, const index_t* row_ptr, const index_t* map, index_t* out,
                      cudaStream_t stream);

/// Where a factorization writes each factor entry in a layout: dest[factor[source[s]]] =
/// s for every stored entry s < stored with source[s] >= 0 (source null: the identity;
/// strict entry t is factor entry factor[t]), -1 for the factor_entries no stored entry
/// holds. Each factor entry is stored at most once.
void factor_destinations(std::size_t stored, const index_t* source, const index_t* factor,
                         std::size_t factor_entries, index_t* dest, cudaStream_t stream);

}  // namespace prism::kernels::cuda
