#include "backend/split_triangle.hpp"

#include <prism/errors.hpp>

#include "backend/host_kernels.hpp"
#include "common/host_array.hpp"
#include "common/parallel.hpp"
#include "kernels/colorset.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace prism::backend {
namespace {

/// kernels::independent_blocks on host threads. A row's test against the current block
/// needs only its largest strict column (lower: does it reach the block?) or its smallest
/// (upper): those are found for all rows in parts, then one sequential scan reads one
/// number a row (independent_blocks_from_reach). The blocks are the kernel's.
std::vector<index_t> threaded_independent_blocks(const kernels::CsrView<double>& strict,
                                                 bool lower) {
  const auto n = static_cast<std::size_t>(strict.rows);
  common::HostArray<index_t> reach(n);  // an empty row reaches no block: -1 (lower), n (upper)
  common::parallel_for(n, common::kRowsPerPart, [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) {
      const index_t* begin = strict.col_idx + strict.row_ptr[i];
      const index_t* end = strict.col_idx + strict.row_ptr[i + 1];
      if (begin == end) {
        reach[i] = lower ? -1 : strict.rows;
      } else {
        reach[i] = lower ? *std::max_element(begin, end) : *std::min_element(begin, end);
      }
    }
  });
  return independent_blocks_from_reach(reach.data(), strict.rows, lower);
}

}  // namespace

std::vector<index_t> independent_blocks_from_reach(const index_t* reach, index_t rows, bool lower) {
  std::vector<index_t> ptr{lower ? 0 : rows};
  index_t edge = lower ? 0 : rows;  // the current block's first row (lower), end
  for (index_t step = 0; step < rows; ++step) {
    const index_t i = lower ? step : rows - 1 - step;
    if (lower ? reach[i] >= edge : reach[i] < edge) {
      edge = lower ? i : i + 1;
      ptr.push_back(edge);
    }
  }
  if (rows > 0) ptr.push_back(lower ? rows : 0);
  if (!lower) std::reverse(ptr.begin(), ptr.end());
  return ptr;
}

SplitTriangle::SplitTriangle(const CsrMatrix<double>& t, Triangle triangle, Precision precision,
                             const HostKernels* placement)
    : SplitTriangle(t, triangle, precision, PatternOnly{}, 0.0, placement) {
  update(t.values);
}

SplitTriangle SplitTriangle::unit_values(const CsrMatrix<double>& t, Triangle triangle,
                                         Precision precision, const HostKernels* placement) {
  return SplitTriangle(t, triangle, precision, PatternOnly{}, 1.0, placement);
}

SplitTriangle SplitTriangle::pattern_only(const CsrMatrix<double>& t, Triangle triangle) {
  return SplitTriangle(t, triangle, Precision::fp64, PatternOnly{}, 0.0, nullptr, false);
}

SplitTriangle::SplitTriangle(const CsrMatrix<double>& t, Triangle triangle, Precision precision,
                             PatternOnly, double fill, const HostKernels* placement,
                             bool with_values)
    : lower_(triangle == Triangle::lower), precision_(precision), nnz_(t.nnz()) {
  const auto n = static_cast<std::size_t>(t.rows);
  // Every row must store its diagonal, checked for all rows before any is copied: then the
  // strict triangle has nnz - rows entries, row i's start at t.row_ptr[i] - i, and a
  // row's strict entries are one range of t's (all but the last in a lower factor, all
  // but the first in an upper one). Rows in parts on host threads.
  diagonal_source_.resize(n);
  common::parallel_for(n, common::kRowsPerPart, [&](std::size_t first, std::size_t last) {
    for (auto i = static_cast<index_t>(first); i < static_cast<index_t>(last); ++i) {
      const index_t begin = t.row_ptr[i], end = t.row_ptr[i + 1];
      const index_t diag = lower_ ? end - 1 : begin;
      if (end == begin || t.col_idx[diag] != i) {
        throw InvalidMatrixError("triangular factor: row " + std::to_string(i + 1) +
                                 " does not store its diagonal " + (lower_ ? "last" : "first"));
      }
      diagonal_source_[i] = diag;
    }
  });
  // The strict pattern first (its row pointers, and the columns in a temporary: the
  // blocks are found from them), then the solves' storage, written in their parts.
  // Both unwritten until the threads fill them: the pages are faulted in on all threads.
  common::HostArray<index_t> row_ptr(n + 1);
  common::parallel_for(n + 1, common::kRowsPerPart, [&](std::size_t first, std::size_t last) {
    for (std::size_t i = first; i < last; ++i) row_ptr[i] = t.row_ptr[i] - static_cast<index_t>(i);
  });
  const auto strict_entries = static_cast<std::size_t>(std::max<index_t>(t.nnz() - t.rows, 0));
  common::HostArray<index_t> col_idx(strict_entries);
  strict_source_.resize(strict_entries);
  const auto first_source = [&](index_t i) { return lower_ ? t.row_ptr[i] : t.row_ptr[i] + 1; };
  common::parallel_for(n, common::kRowsPerPart, [&](std::size_t first, std::size_t last) {
    for (auto i = static_cast<index_t>(first); i < static_cast<index_t>(last); ++i) {
      const index_t source = first_source(i);
      for (index_t k = row_ptr[i]; k < row_ptr[i + 1]; ++k) {
        col_idx[k] = t.col_idx[source + (k - row_ptr[i])];
        strict_source_[k] = source + (k - row_ptr[i]);
      }
    }
  });
  block_ptr_ = threaded_independent_blocks(
      {t.rows, t.cols, row_ptr.data(), col_idx.data(), nullptr}, lower_);

  strict_.rows = t.rows;
  strict_.cols = t.cols;
  strict_.row_ptr.resize(n + 1);
  strict_.col_idx.resize(strict_entries);
  if (with_values) {
    strict_.values.resize(strict_entries);
    inverse_diagonal_.resize(n);
  }
  strict_.row_ptr[n] = row_ptr[n];
  const auto write_rows = [&](index_t begin, index_t end) {
    std::copy(row_ptr.begin() + begin, row_ptr.begin() + end, strict_.row_ptr.begin() + begin);
    const index_t k0 = row_ptr[begin], k1 = row_ptr[end];
    std::copy(col_idx.begin() + k0, col_idx.begin() + k1, strict_.col_idx.begin() + k0);
    if (!with_values) return;
    std::fill(strict_.values.begin() + k0, strict_.values.begin() + k1, fill);
    std::fill(inverse_diagonal_.begin() + begin, inverse_diagonal_.begin() + end, fill);
  };
  if (placement != nullptr) {
    placement->colorset_touch(t.rows, block_ptr_.data(), num_blocks(), write_rows);
  } else {
    common::parallel_for(n, common::kRowsPerPart, [&](std::size_t first, std::size_t last) {
      write_rows(static_cast<index_t>(first), static_cast<index_t>(last));
    });
  }
}

void SplitTriangle::update(const std::vector<double>& values) {
  if (inverse_diagonal_.size() != diagonal_source_.size()) {
    throw Error("triangular factor: a split of the pattern alone takes no values");
  }
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
