#pragma once
// The cpu backend's SELL-8 copies (kernels/sell.hpp): of a matrix for the threaded SELL
// SpMV, of a split factor's strict triangle for the threaded SELL color-set solve, and the
// rule by which auto takes them.

#include <prism/csr_matrix.hpp>

#include "backend/host_kernels.hpp"
#include "backend/split_triangle.hpp"
#include "common/host_array.hpp"
#include "kernels/sell.hpp"

namespace prism::backend {

/// Whether spmv: auto takes SELL-8 on the threaded cpu kernels: where it moves no more
/// bytes than CSR (12 B a stored entry and 4 B a slice, against 12 B a nonzero and 4 B a
/// row). The SpMV is bound by memory bandwidth on every core, so the layout that moves
/// fewer bytes wins unless its loop is the limit; SELL's lanes run in SIMD registers with
/// no per-row loop, so at equal bytes it is the faster one. That holds where few rows of
/// a slice are shorter than its longest (grids, away from their boundaries); rows of
/// mixed lengths (circuits, graphs with hubs) pad past the row pointers SELL saves.
bool host_sell_pays(const CsrMatrix<double>& a);

/// A's SELL-8 layout and values in new storage, first written by `placement`'s threads
/// in the parts of its SELL SpMV.
class HostSellMatrix {
 public:
  HostSellMatrix(const CsrMatrix<double>& a, const HostKernels& placement);
  /// New values, in the order of a's CSR entries.
  void update_values(const double* csr_values);
  kernels::SellView view() const {
    return {rows_, cols_, slice_ptr_.data(), col_idx_.data(), values_.data()};
  }
  std::size_t host_bytes() const;

 private:
  const HostKernels& k_;
  index_t rows_ = 0, cols_ = 0;
  common::HostArray<index_t> slice_ptr_, col_idx_;
  common::HostArray<index_t> source_;  // the CSR entry of each stored one; -1 for padding
  common::HostArray<double> values_;
};

/// Whether colorset_layout: auto takes SELL-8 for a split factor on the threaded cpu
/// kernels: the rule of host_sell_pays on its strict triangle, the slices inside its
/// blocks (a natural order's one-row blocks pad each row to 8 lanes and keep CSR).
bool host_sell_colorset_pays(const SplitTriangle& split);

/// A split factor's strict triangle in SELL-8, the slices inside its blocks, first
/// written by `placement`'s threads in the parts of its color-set solve. The inverted
/// diagonal stays the split's.
class HostSellColorset {
 public:
  HostSellColorset(const SplitTriangle& split, const HostKernels& placement);
  /// The split's strict values (after its update()).
  void update(const SplitTriangle& split);
  /// Solves with the split's inverted diagonal (colorset_solve_sell).
  void solve(const SplitTriangle& split, const double* b, double* x) const;
  std::size_t host_bytes() const;

 private:
  kernels::SellRangesView view() const;

  const HostKernels& k_;
  index_t rows_ = 0;
  std::vector<index_t> range_ptr_, range_slice_;
  common::HostArray<index_t> slice_ptr_, col_idx_;
  common::HostArray<index_t> source_;  // the strict entry of each stored one; -1 for padding
  common::HostArray<double> values_;
};

}  // namespace prism::backend
