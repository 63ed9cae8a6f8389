#include "kernels/block_coloring.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace prism::kernels::reference {

void largest_first_rank(index_t n, const index_t* row_ptr, const index_t* col_idx, index_t* rank) {
  std::vector<index_t> degree(static_cast<std::size_t>(n), 0);
  for (index_t v = 0; v < n; ++v) {
    for (index_t k = row_ptr[v]; k < row_ptr[v + 1]; ++k) degree[v] += col_idx[k] != v ? 1 : 0;
  }
  std::vector<index_t> visit(static_cast<std::size_t>(n));
  std::iota(visit.begin(), visit.end(), index_t{0});
  std::stable_sort(visit.begin(), visit.end(),
                   [&](index_t u, index_t v) { return degree[u] > degree[v]; });
  for (index_t p = 0; p < n; ++p) rank[visit[p]] = p;
}

void rows_in_block_order(index_t blocks, const index_t* block_ptr, const index_t* grouping,
                         const index_t* order, index_t* new_ptr, index_t* perm) {
  new_ptr[0] = 0;
  for (index_t q = 0; q < blocks; ++q) {
    const index_t b = order[q];
    index_t row = new_ptr[q];
    for (index_t i = block_ptr[b]; i < block_ptr[b + 1]; ++i) {
      perm[row++] = grouping != nullptr ? grouping[i] : i;
    }
    new_ptr[q + 1] = row;
  }
}

}  // namespace prism::kernels::reference
