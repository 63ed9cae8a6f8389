#include "kernels/level_report.hpp"

#include <prism/errors.hpp>

#include <algorithm>
#include <numeric>

namespace prism::kernels {

bool ranges_cover(const std::vector<index_t>& ranges, index_t rows) {
  return ranges.size() >= 2 && ranges.front() == 0 && ranges.back() == rows &&
         std::is_sorted(ranges.begin(), ranges.end());
}

}  // namespace prism::kernels

namespace prism::kernels::reference {

namespace {

/// Whether row `row` stores column `col`: the device's binary search (columns sorted).
bool has_entry(const CsrView<double>& a, index_t row, index_t col) {
  index_t lo = a.row_ptr[row], hi = a.row_ptr[row + 1];
  while (lo < hi) {
    const index_t mid = lo + (hi - lo) / 2;
    const index_t c = a.col_idx[mid];
    if (c == col) return true;
    if (c < col) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return false;
}

/// level_ptr from each row's level (`count` levels): level_ptr[l + 1] - level_ptr[l] = the
/// rows of level l.
void level_ptr_of(const std::vector<int>& level, int count, std::vector<index_t>& level_ptr) {
  level_ptr.assign(static_cast<std::size_t>(count) + 1, 0);
  for (const int l : level) ++level_ptr[static_cast<std::size_t>(l) + 1];
  std::partial_sum(level_ptr.begin(), level_ptr.end(), level_ptr.begin());
}

}  // namespace

bool range_level_ptr(const CsrView<double>& a, const std::vector<index_t>& ranges,
                     std::vector<index_t>& level_ptr) {
  if (!ranges_cover(ranges, a.rows)) {
    throw ConfigError("range_level_ptr: the ranges must run from 0 to the rows in order");
  }
  std::vector<int> level(static_cast<std::size_t>(a.rows), 0);
  int count = 0;  // levels
  for (std::size_t r = 0; r + 1 < ranges.size(); ++r) {
    const index_t begin = ranges[r];
    for (index_t i = begin; i < ranges[r + 1]; ++i) {
      int l = 0;
      for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        const index_t j = a.col_idx[k];
        if (j >= begin && j < i) return false;  // coupled inside the range
        if (j < begin) l = std::max(l, level[j] + 1);
      }
      level[i] = l;
      count = std::max(count, l + 1);
    }
  }
  level_ptr_of(level, count, level_ptr);
  return true;
}

bool dataflow_level_ptr(const CsrView<double>& a, std::vector<index_t>& level_ptr) {
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t j = a.col_idx[k];
      if (j < i && !has_entry(a, j, i)) return false;
    }
  }
  // Row by row in order: every row's earlier entries are levelled before it.
  std::vector<int> level(static_cast<std::size_t>(a.rows), 0);
  int count = 0;  // levels
  for (index_t i = 0; i < a.rows; ++i) {
    int l = 0;
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t j = a.col_idx[k];
      if (j < i) l = std::max(l, level[j] + 1);
    }
    level[i] = l;
    count = std::max(count, l + 1);
  }
  level_ptr_of(level, count, level_ptr);
  return true;
}

}  // namespace prism::kernels::reference
