#include <prism/analysis.hpp>

#include <algorithm>
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
