#pragma once
// The storage the color-set solves read: a triangular factor (diagonal last in each
// lower row, first in each upper row) split into its strict triangle and its inverted
// diagonal, with the independent row blocks of the strict triangle. Built once from the
// pattern; update() refills the values on refactor. With Precision::mixed the strict
// values and the inverse diagonal are rounded to float (kept in double here, so the
// host twin computes exactly what the device's float storage holds). Given the cpu
// backend's kernels, the arrays the solves stream (the strict triangle, the inverse
// diagonal) are first written by the threads that solve each row (first touch).

#include <prism/csr_matrix.hpp>
#include <prism/options.hpp>

#include "backend/backend.hpp"
#include "common/host_array.hpp"
#include "common/memory.hpp"
#include "kernels/csr_view.hpp"

#include <vector>

namespace prism::backend {

class HostKernels;

/// A strict triangle in CSR, in storage its first writer places (common::HostArray).
struct StrictTriangle {
  index_t rows = 0;
  index_t cols = 0;
  common::HostArray<index_t> row_ptr;
  common::HostArray<index_t> col_idx;
  common::HostArray<double> values;
  index_t nnz() const { return static_cast<index_t>(col_idx.size()); }
};

class SplitTriangle {
 public:
  /// Throws InvalidMatrixError when a row's diagonal is not where `triangle` puts it.
  /// With `placement` (the cpu backend's kernels) the solves' arrays are first written in
  /// the parts of its color-set solve (HostKernels::colorset_touch); without, on set-up
  /// threads.
  SplitTriangle(const CsrMatrix<double>& t, Triangle triangle,
                Precision precision = Precision::fp64, const HostKernels* placement = nullptr);

  /// The split of t's pattern with every value 1 (strict values and inverse diagonal), for
  /// a factor whose values come later (update(), or a backend factorization writing the
  /// solves' storage itself); t's values are not read.
  static SplitTriangle unit_values(const CsrMatrix<double>& t, Triangle triangle,
                                   Precision precision = Precision::fp64,
                                   const HostKernels* placement = nullptr);

  /// The split of t's pattern alone: strict().values and inverse_diagonal() stay empty,
  /// for a factor whose solves keep their values elsewhere (a device factor); update()
  /// throws. t's values are not read.
  static SplitTriangle pattern_only(const CsrMatrix<double>& t, Triangle triangle);

  /// New values of the factor on the same pattern. Throws InvalidMatrixError on a zero
  /// diagonal or a wrong number of values.
  void update(const std::vector<double>& values);

  bool lower() const { return lower_; }
  Precision precision() const { return precision_; }
  const StrictTriangle& strict() const { return strict_; }
  const common::HostArray<double>& inverse_diagonal() const { return inverse_diagonal_; }
  const std::vector<index_t>& block_ptr() const { return block_ptr_; }
  int num_blocks() const { return static_cast<int>(block_ptr_.size()) - 1; }
  /// strict().values[k] = values[strict_source()[k]] for the factor's `values`.
  const std::vector<index_t>& strict_source() const { return strict_source_; }
  /// The factor's entry holding row i's diagonal.
  const std::vector<index_t>& diagonal_source() const { return diagonal_source_; }
  /// Host memory the split keeps.
  std::size_t host_bytes() const {
    return common::bytes_of(strict_.row_ptr) + common::bytes_of(strict_.col_idx) +
           common::bytes_of(strict_.values) + common::bytes_of(inverse_diagonal_) +
           common::bytes_of(strict_source_) + common::bytes_of(diagonal_source_) +
           common::bytes_of(block_ptr_);
  }
  kernels::CsrView<double> view() const {
    return {strict_.rows, strict_.cols, strict_.row_ptr.data(), strict_.col_idx.data(),
            strict_.values.data()};
  }

 private:
  struct PatternOnly {};
  // The pattern, with every strict value and inverse diagonal set to `fill` (with_values),
  // or without those arrays.
  SplitTriangle(const CsrMatrix<double>& t, Triangle triangle, Precision precision, PatternOnly,
                double fill, const HostKernels* placement, bool with_values = true);

  bool lower_;
  Precision precision_;
  index_t nnz_ = 0;
  StrictTriangle strict_;
  common::HostArray<double> inverse_diagonal_;
  std::vector<index_t> strict_source_;  // strict_.values[k] = values[strict_source_[k]]
  std::vector<index_t> diagonal_source_;
  std::vector<index_t> block_ptr_;
};

/// The independent row blocks of a strict triangle of `rows` rows (kernels::
/// independent_blocks), from each row's reach: its largest column in a lower triangle
/// (-1 for an empty row), its smallest in an upper one (`rows` for an empty row). One
/// sequential scan, shared by the host split and the device analysis
/// (kernels/cuda/ic0_analysis.hpp).
std::vector<index_t> independent_blocks_from_reach(const index_t* reach, index_t rows, bool lower);

/// Precision::mixed lives in SplitTriangle, so only the color-set solves have it: the
/// ConfigError for any other algorithm, shared by the backends.
[[noreturn]] void throw_mixed_needs_colorset(TrisolveAlgorithm algorithm);

}  // namespace prism::backend
