#include "analysis/level_sets.hpp"

#include <prism/analysis.hpp>

#include "common/parallel.hpp"

#include <algorithm>
#include <atomic>
#include <numeric>
#include <vector>

namespace prism {

LevelSets level_sets(const CsrMatrix<double>& a) {
  const index_t n = a.rows;
  LevelSets result;
  result.level.assign(static_cast<std::size_t>(n), 0);
  // Row i depends only on rows j < i, so one pass in index order sees every
  // dependency's level before it is needed. Levels are numbered from 0.
  int max_level = -1;
  for (index_t i = 0; i < n; ++i) {
    int level = 0;
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t j = a.col_idx[k];
      if (j < i) level = std::max(level, result.level[j] + 1);
    }
    result.level[i] = level;
    max_level = std::max(max_level, level);
  }
  result.num_levels = max_level + 1;

  result.level_ptr.assign(static_cast<std::size_t>(result.num_levels) + 1, 0);
  for (index_t i = 0; i < n; ++i) ++result.level_ptr[result.level[i] + 1];
  std::partial_sum(result.level_ptr.begin(), result.level_ptr.end(), result.level_ptr.begin());
  result.permutation.resize(static_cast<std::size_t>(n));
  std::vector<index_t> next(result.level_ptr.begin(), result.level_ptr.end() - 1);
  for (index_t i = 0; i < n; ++i) result.permutation[next[result.level[i]]++] = i;
  return result;
}

}  // namespace prism

namespace prism::analysis {
namespace {

/// level_sets' level_ptr from each row's level.
std::vector<index_t> level_ptr_of(const std::vector<int>& level) {
  int count = 0;
  for (const int l : level) count = std::max(count, l + 1);
  std::vector<index_t> ptr(static_cast<std::size_t>(count) + 1, 0);
  for (const int l : level) ++ptr[static_cast<std::size_t>(l) + 1];
  std::partial_sum(ptr.begin(), ptr.end(), ptr.begin());
  return ptr;
}

}  // namespace

std::vector<index_t> level_ptr(const CsrMatrix<double>& a,
                               const std::vector<index_t>& independent) {
  const bool covers = independent.size() >= 2 && independent.front() == 0 &&
                      independent.back() == a.rows &&
                      std::is_sorted(independent.begin(), independent.end());
  if (!covers) return level_sets(a).level_ptr;
  std::vector<int> level(static_cast<std::size_t>(a.rows), 0);
  std::atomic<bool> coupled{false};
  for (std::size_t r = 0; r + 1 < independent.size() && !coupled; ++r) {
    const index_t begin = independent[r];
    // A row reads only the levels of rows before its range, done in an earlier pass.
    common::parallel_for(static_cast<std::size_t>(independent[r + 1] - begin), common::kRowsPerPart,
                         [&](std::size_t first, std::size_t last) {
                           const auto end = begin + static_cast<index_t>(last);
                           for (index_t i = begin + static_cast<index_t>(first); i < end; ++i) {
                             int l = 0;
                             for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
                               const index_t j = a.col_idx[k];
                               if (j >= begin && j < i) coupled = true;
                               if (j < begin) l = std::max(l, level[j] + 1);
                             }
                             level[i] = l;
                           }
                         });
  }
  return coupled ? level_sets(a).level_ptr : level_ptr_of(level);
}

}  // namespace prism::analysis
