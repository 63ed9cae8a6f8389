#include "backend/host_sell.hpp"

#include "common/memory.hpp"

#include <utility>

namespace prism::backend {
namespace {

kernels::CsrView<double> view_of(const CsrMatrix<double>& a) {
  return {a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(), a.values.data()};
}

/// SELL-8's bytes (12 a stored entry, 4 a slice) against CSR's (12 a nonzero, 4 a row).
bool sell_moves_no_more(kernels::CsrView<double> a, const std::vector<index_t>& ranges) {
  if (a.rows == 0) return false;
  constexpr index_t slice = kernels::kHostSellSlice;
  std::int64_t slices = 0;
  for (std::size_t r = 0; r + 1 < ranges.size(); ++r) {
    slices += (ranges[r + 1] - ranges[r] + slice - 1) / slice;
  }
  const std::int64_t nnz = a.row_ptr[a.rows] - a.row_ptr[0];
  const std::int64_t sell = 12 * kernels::sell_stored(a, ranges, slice) + 4 * (slices + 1);
  return sell <= 12 * nnz + 4 * (static_cast<std::int64_t>(a.rows) + 1);
}

}  // namespace

bool host_sell_pays(const CsrMatrix<double>& a) {
  return sell_moves_no_more(view_of(a), {0, a.rows});
}

bool host_sell_colorset_pays(const SplitTriangle& split) {
  return sell_moves_no_more(split.view(), split.block_ptr());
}

HostSellMatrix::HostSellMatrix(const CsrMatrix<double>& a, const HostKernels& placement)
    : k_(placement), rows_(a.rows), cols_(a.cols) {
  const kernels::SellLayout layout =
      kernels::sell_layout(view_of(a), {0, a.rows}, kernels::kHostSellSlice);
  slice_ptr_.resize(layout.slice_ptr.size());
  col_idx_.resize(layout.col_idx.size());
  source_.resize(layout.source.size());
  values_.resize(layout.source.size());
  k_.sell_place(layout, slice_ptr_.data(), col_idx_.data(), source_.data());
  update_values(a.values.data());
}

void HostSellMatrix::update_values(const double* csr_values) {
  k_.sell_values(view(), source_.data(), csr_values, values_.data());
}

std::size_t HostSellMatrix::host_bytes() const {
  return common::bytes_of(slice_ptr_) + common::bytes_of(col_idx_) + common::bytes_of(source_) +
         common::bytes_of(values_);
}

HostSellColorset::HostSellColorset(const SplitTriangle& split, const HostKernels& placement)
    : k_(placement), rows_(split.strict().rows) {
  kernels::SellLayout layout =
      kernels::sell_layout(split.view(), split.block_ptr(), kernels::kHostSellSlice);
  slice_ptr_.resize(layout.slice_ptr.size());
  col_idx_.resize(layout.col_idx.size());
  source_.resize(layout.source.size());
  values_.resize(layout.source.size());
  k_.colorset_sell_place(layout, slice_ptr_.data(), col_idx_.data(), source_.data());
  range_ptr_ = std::move(layout.range_ptr);
  range_slice_ = std::move(layout.range_slice);
  update(split);
}

kernels::SellRangesView HostSellColorset::view() const {
  return {rows_,
          static_cast<int>(range_ptr_.size()) - 1,
          range_ptr_.data(),
          range_slice_.data(),
          slice_ptr_.data(),
          col_idx_.data(),
          values_.data()};
}

void HostSellColorset::update(const SplitTriangle& split) {
  k_.colorset_sell_values(view(), source_.data(), split.strict().values.data(), values_.data());
}

void HostSellColorset::solve(const SplitTriangle& split, const double* b, double* x) const {
  k_.colorset_solve_sell(view(), split.inverse_diagonal().data(), split.lower(), b, x);
}

std::size_t HostSellColorset::host_bytes() const {
  return common::bytes_of(range_ptr_) + common::bytes_of(range_slice_) +
         common::bytes_of(slice_ptr_) + common::bytes_of(col_idx_) + common::bytes_of(source_) +
         common::bytes_of(values_);
}

}  // namespace prism::backend
