#include "distributed/local_rows.hpp"

#include <prism/errors.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

namespace prism::distributed {
namespace {

constexpr std::int64_t kMaxLocal = std::numeric_limits<index_t>::max();

std::string row_text(std::int64_t row) {
  return "row " + std::to_string(row);
}

}  // namespace

void check_local_rows(const DistributedRowsView& v) {
  const std::int64_t rows = v.row_end - v.row_begin;
  if (rows > kMaxLocal) {
    throw InvalidMatrixError(std::to_string(rows) +
                             " rows on one rank: at most 2^31 - 1 (use more ranks)");
  }
  if (v.row_ptr == nullptr) throw InvalidMatrixError("row_ptr is null");
  if (v.row_ptr[0] != 0) {
    throw InvalidMatrixError("row_ptr[0] = " + std::to_string(v.row_ptr[0]) + ": must be 0");
  }
  if (v.row_ptr[rows] > kMaxLocal) {
    throw InvalidMatrixError(std::to_string(v.row_ptr[rows]) +
                             " nonzeros on one rank: at most 2^31 - 1 (use more ranks)");
  }
  if (v.row_ptr[rows] > 0 && (v.col_idx == nullptr || v.values == nullptr)) {
    throw InvalidMatrixError("col_idx or values is null with " + std::to_string(v.row_ptr[rows]) +
                             " nonzeros");
  }
  for (std::int64_t i = 0; i < rows; ++i) {
    const std::int64_t row = v.row_begin + i;
    if (v.row_ptr[i + 1] < v.row_ptr[i]) {
      throw InvalidMatrixError(row_text(row) + ": row_ptr decreases (" +
                               std::to_string(v.row_ptr[i]) + " then " +
                               std::to_string(v.row_ptr[i + 1]) + ")");
    }
    for (std::int64_t k = v.row_ptr[i]; k < v.row_ptr[i + 1]; ++k) {
      const std::int64_t col = v.col_idx[k];
      if (col < 0 || col >= v.global_rows) {
        throw InvalidMatrixError(row_text(row) + ": column " + std::to_string(col) +
                                 " outside [0, " + std::to_string(v.global_rows) + ")");
      }
      if (k > v.row_ptr[i] && col <= v.col_idx[k - 1]) {
        throw InvalidMatrixError(row_text(row) + ": column " + std::to_string(col) +
                                 " after column " + std::to_string(v.col_idx[k - 1]) +
                                 ": the columns of a row must increase "
                                 "(sort_and_merge_duplicates() sorts them)");
      }
      if (!std::isfinite(v.values[k])) {
        throw InvalidMatrixError(row_text(row) + ", column " + std::to_string(col) +
                                 ": value is not finite");
      }
    }
  }
}

LocalSystem split_local_rows(const DistributedRowsView& v) {
  LocalSystem s;
  s.rows = static_cast<index_t>(v.row_end - v.row_begin);
  const auto owned = [&](std::int64_t col) { return col >= v.row_begin && col < v.row_end; };
  std::vector<char> is_boundary(static_cast<std::size_t>(s.rows), 0);
  for (index_t i = 0; i < s.rows; ++i) {
    for (std::int64_t k = v.row_ptr[i]; k < v.row_ptr[i + 1]; ++k) {
      if (!owned(v.col_idx[k])) {
        is_boundary[i] = 1;
        s.ghosts.push_back(v.col_idx[k]);
      }
    }
  }
  std::sort(s.ghosts.begin(), s.ghosts.end());
  s.ghosts.erase(std::unique(s.ghosts.begin(), s.ghosts.end()), s.ghosts.end());
  if (static_cast<std::int64_t>(s.rows) + static_cast<std::int64_t>(s.ghosts.size()) > kMaxLocal) {
    throw InvalidMatrixError("owned rows and ghosts exceed 2^31 - 1 on one rank (use more ranks)");
  }

  // The rank's order: interior rows, then boundary rows.
  s.order.reserve(static_cast<std::size_t>(s.rows));
  for (index_t i = 0; i < s.rows; ++i) {
    if (!is_boundary[i]) s.order.push_back(i);
  }
  s.interior_rows = static_cast<index_t>(s.order.size());
  for (index_t i = 0; i < s.rows; ++i) {
    if (is_boundary[i]) s.order.push_back(i);
  }
  std::vector<index_t> position(static_cast<std::size_t>(s.rows));
  for (index_t k = 0; k < s.rows; ++k) position[s.order[k]] = k;
  const auto column = [&](std::int64_t col) -> index_t {
    if (owned(col)) return position[col - v.row_begin];
    const auto it = std::lower_bound(s.ghosts.begin(), s.ghosts.end(), col);
    return s.rows + static_cast<index_t>(it - s.ghosts.begin());
  };

  s.interior.rows = s.interior_rows;
  s.interior.cols = s.rows;
  s.boundary.rows = s.rows - s.interior_rows;
  s.boundary.cols = s.rows + static_cast<index_t>(s.ghosts.size());
  CsrMatrix<double>& d = s.diagonal_block;
  d.rows = d.cols = s.rows;
  std::vector<std::pair<index_t, double>> block_row;
  for (index_t k = 0; k < s.rows; ++k) {
    LocalCsr& part = k < s.interior_rows ? s.interior : s.boundary;
    const index_t i = s.order[k];
    block_row.clear();
    for (std::int64_t e = v.row_ptr[i]; e < v.row_ptr[i + 1]; ++e) {
      const index_t c = column(v.col_idx[e]);
      part.col_idx.push_back(c);
      part.values.push_back(v.values[e]);
      if (c < s.rows) block_row.emplace_back(c, v.values[e]);
    }
    part.row_ptr.push_back(static_cast<index_t>(part.col_idx.size()));
    // The block's rows sorted in the rank's order, as CsrMatrix keeps them.
    std::sort(block_row.begin(), block_row.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& [c, value] : block_row) {
      d.col_idx.push_back(c);
      d.values.push_back(value);
    }
    d.row_ptr.push_back(static_cast<index_t>(d.col_idx.size()));
  }
  return s;
}

}  // namespace prism::distributed
