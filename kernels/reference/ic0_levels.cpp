#include "kernels/ic0_levels.hpp"

#include <algorithm>

namespace prism::kernels {

Ic0LevelPlan ic0_level_plan(CsrView<double> lower, const index_t* match_ptr,
                            const std::uint16_t* own, const index_t* other,
                            const std::vector<index_t>& blocks) {
  const index_t rows = lower.rows;
  const index_t* row_ptr = lower.row_ptr;
  const index_t nnz = rows > 0 ? row_ptr[rows] : 0;
  std::vector<index_t> level(static_cast<std::size_t>(nnz), 0);
  std::vector<index_t> step(static_cast<std::size_t>(nnz), 0);  // within the row
  std::vector<index_t> row_steps(static_cast<std::size_t>(rows), 0);
  index_t levels = 0;
  // Storage order is a topological order: an entry reads entries left of it in its row
  // and entries of earlier rows.
  for (index_t i = 0; i < rows; ++i) {
    const index_t first = row_ptr[i], diag = row_ptr[i + 1] - 1;
    index_t diagonal_level = 0, diagonal_step = 0;
    for (index_t p = first; p < diag; ++p) {
      index_t reads = level[row_ptr[lower.col_idx[p] + 1] - 1], within = 0;  // l_kk
      for (index_t q = match_ptr[p]; q < match_ptr[p + 1]; ++q) {
        const index_t a = first + own[q];
        reads = std::max({reads, level[a], level[other[q]]});
        within = std::max(within, step[a] + 1);
      }
      level[p] = reads + 1;
      step[p] = within;
      diagonal_level = std::max(diagonal_level, level[p] + 1);
      diagonal_step = std::max(diagonal_step, within + 1);
    }
    level[diag] = diagonal_level;
    row_steps[i] = diagonal_step + 1;
    levels = std::max(levels, diagonal_level + 1);
  }

  Ic0LevelPlan plan;
  plan.level_ptr.assign(static_cast<std::size_t>(levels) + 1, 0);
  for (index_t p = 0; p < nnz; ++p) ++plan.level_ptr[level[p] + 1];
  for (index_t l = 0; l < levels; ++l) {
    plan.widest = std::max(plan.widest, plan.level_ptr[l + 1]);
    plan.level_ptr[l + 1] += plan.level_ptr[l];
  }
  const auto slots = static_cast<std::size_t>(nnz);
  plan.entry.resize(slots);
  plan.row.resize(slots);
  plan.pivot.resize(slots);
  std::vector<index_t> next(plan.level_ptr.begin(), plan.level_ptr.end() - 1);
  std::vector<index_t> products(slots);  // of each entry
  for (index_t i = 0; i < rows; ++i) {
    const index_t diag = row_ptr[i + 1] - 1;
    for (index_t p = row_ptr[i]; p <= diag; ++p) {
      const index_t s = next[level[p]]++;
      plan.entry[s] = p;
      plan.row[s] = i;
      plan.pivot[s] = p == diag ? p : row_ptr[lower.col_idx[p] + 1] - 1;
      products[p] = p == diag ? diag - row_ptr[i] : match_ptr[p + 1] - match_ptr[p];
    }
  }
  plan.product_ptr.assign(slots + 1, 0);
  plan.chain.assign(static_cast<std::size_t>(levels), 0);
  for (index_t l = 0; l < levels; ++l) {
    for (index_t s = plan.level_ptr[l]; s < plan.level_ptr[l + 1]; ++s) {
      const index_t n = products[plan.entry[s]];
      plan.chain[l] = std::max(plan.chain[l], n);
      plan.product_ptr[s + 1] = plan.product_ptr[s] + n;
    }
  }
  plan.product_x.resize(static_cast<std::size_t>(plan.product_ptr[slots]));
  plan.product_y.resize(plan.product_x.size());
  for (std::size_t s = 0; s < slots; ++s) {
    const index_t p = plan.entry[s], first = row_ptr[plan.row[s]];
    index_t t = plan.product_ptr[s];
    if (plan.pivot[s] == p) {  // the squares of the row
      for (index_t e = first; e < p; ++e, ++t) plan.product_x[t] = plan.product_y[t] = e;
    } else {
      for (index_t q = match_ptr[p]; q < match_ptr[p + 1]; ++q, ++t) {
        plan.product_x[t] = first + own[q];
        plan.product_y[t] = other[q];
      }
    }
  }
  for (std::size_t b = 0; b + 1 < blocks.size(); ++b) {
    index_t longest = 0;
    for (index_t i = blocks[b]; i < blocks[b + 1]; ++i) longest = std::max(longest, row_steps[i]);
    plan.steps += longest;
  }
  return plan;
}

}  // namespace prism::kernels
