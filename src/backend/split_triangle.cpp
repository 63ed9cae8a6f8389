#include "backend/split_triangle.hpp"

#include <prism/errors.hpp>

#include "kernels/colorset.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace prism::backend {

SplitTriangle::SplitTriangle(const CsrMatrix<double>& t, Triangle triangle, Precision precision)
    : SplitTriangle(t, triangle, precision, PatternOnly{}) {
  update(t.values);
}

SplitTriangle SplitTriangle::unit_values(const CsrMatrix<double>& t, Triangle triangle,
                                         Precision precision) {
  SplitTriangle s(t, triangle, precision, PatternOnly{});
  std::fill(s.strict_.values.begin(), s.strict_.values.end(), 1.0);
  std::fill(s.inverse_diagonal_.begin(), s.inverse_diagonal_.end(), 1.0);
  return s;
}

SplitTriangle::SplitTriangle(const CsrMatrix<double>& t, Triangle triangle, Precision precision,
                             PatternOnly)
    : lower_(triangle == Triangle::lower), precision_(precision), nnz_(t.nnz()) {
  strict_.rows = t.rows;
  strict_.cols = t.cols;
  strict_.row_ptr.assign(static_cast<std::size_t>(t.rows) + 1, 0);
  diagonal_source_.resize(static_cast<std::size_t>(t.rows));
  // Every row stores its diagonal (checked below), so the strict triangle has nnz - rows
  // entries, and a row's strict entries are one range of t's: all but the last (lower) or
  // the first (upper).
  const auto strict_entries = static_cast<std::size_t>(std::max<index_t>(t.nnz() - t.rows, 0));
  strict_.col_idx.resize(strict_entries);
  strict_source_.resize(strict_entries);
  std::size_t next = 0;
  for (index_t i = 0; i < t.rows; ++i) {
    const index_t begin = t.row_ptr[i], end = t.row_ptr[i + 1];
    const index_t diag = lower_ ? end - 1 : begin;
    if (end == begin || t.col_idx[diag] != i) {
      throw InvalidMatrixError("triangular factor: row " + std::to_string(i + 1) +
                               " does not store its diagonal " + (lower_ ? "last" : "first"));
    }
    diagonal_source_[i] = diag;
    const index_t first = lower_ ? begin : begin + 1, count = end - begin - 1;
    std::copy(t.col_idx.begin() + first, t.col_idx.begin() + first + count,
              strict_.col_idx.begin() + static_cast<std::ptrdiff_t>(next));
    std::iota(strict_source_.begin() + static_cast<std::ptrdiff_t>(next),
              strict_source_.begin() + static_cast<std::ptrdiff_t>(next) + count, first);
    next += static_cast<std::size_t>(count);
    strict_.row_ptr[i + 1] = static_cast<index_t>(next);
  }
  strict_.values.resize(strict_entries);
  inverse_diagonal_.resize(static_cast<std::size_t>(t.rows));
  block_ptr_ = kernels::independent_blocks(view(), lower_);
}

void SplitTriangle::update(const std::vector<double>& values) {
  if (static_cast<index_t>(values.size()) != nnz_) {
    throw InvalidMatrixError("update_values: expected " + std::to_string(nnz_) + " values, got " +
                             std::to_string(values.size()));
  }
  for (std::size_t k = 0; k < strict_source_.size(); ++k) {
    strict_.values[k] = values[strict_source_[k]];
  }
  for (std::size_t i = 0; i < diagonal_source_.size(); ++i) {
    const double d = values[diagonal_source_[i]];
    if (d == 0.0 || !std::isfinite(d)) {
      throw InvalidMatrixError("triangular factor: diagonal of row " + std::to_string(i + 1) +
                               " is zero or not finite");
    }
    inverse_diagonal_[i] = 1.0 / d;
  }
  if (precision_ == Precision::mixed) {
    for (double& v : strict_.values) v = static_cast<float>(v);
    for (double& v : inverse_diagonal_) v = static_cast<float>(v);
    auto finite = [](double v) { return std::isfinite(v); };
    if (!std::all_of(strict_.values.begin(), strict_.values.end(), finite) ||
        !std::all_of(inverse_diagonal_.begin(), inverse_diagonal_.end(), finite)) {
      throw NumericalError(
          "precision mixed: the triangular factor has values outside the float range");
    }
  }
}

void throw_mixed_needs_colorset(TrisolveAlgorithm algorithm) {
  throw ConfigError("ic0 precision 'mixed' needs trisolve 'colorset' (or 'auto'), not '" +
                    std::string(to_string(algorithm)) + "'");
}

}  // namespace prism::backend
