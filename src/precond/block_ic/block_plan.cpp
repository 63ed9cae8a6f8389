#include "precond/block_ic/block_plan.hpp"

#include "precond/row_error.hpp"

#include <prism/errors.hpp>

#include <algorithm>

namespace prism::precond {
namespace {

/// Per entry e (block row I, column J): the rows of the block rows I' < I that couple to
/// J, which come before I's columns in V's row.
std::vector<index_t> transpose_prefix(const BlockFactor& f) {
  const index_t count = f.blocks.count();
  std::vector<index_t> before(static_cast<std::size_t>(count), 0);  // per column J so far
  std::vector<index_t> prefix(f.col.size());
  for (index_t i = 0; i < count; ++i) {  // block rows in ascending order
    for (index_t e = f.row_ptr[i]; e < f.row_ptr[i + 1]; ++e) {
      prefix[e] = before[f.col[e]];
      before[f.col[e]] += f.size(i);
    }
  }
  return prefix;
}

/// Block J's entries of the transpose, by ascending block row (a counting sort).
void set_transpose(const BlockFactor& f, kernels::BlockIcPlan& plan) {
  const index_t count = f.blocks.count();
  plan.transpose_ptr.assign(static_cast<std::size_t>(count) + 1, 0);
  for (const index_t j : f.col) ++plan.transpose_ptr[j + 1];
  for (index_t b = 0; b < count; ++b) plan.transpose_ptr[b + 1] += plan.transpose_ptr[b];
  plan.transpose_entry.resize(f.col.size());
  std::vector<index_t> next(plan.transpose_ptr.begin(), plan.transpose_ptr.end() - 1);
  for (index_t e = 0; e < static_cast<index_t>(f.col.size()); ++e) {
    plan.transpose_entry[next[f.col[e]]++] = e;
  }
}

void set_levels(const BlockFactor& f, kernels::BlockIcPlan& plan) {
  const index_t count = f.blocks.count();
  std::vector<index_t> level(static_cast<std::size_t>(count), 0);
  index_t levels = count > 0 ? 1 : 0;
  for (index_t i = 0; i < count; ++i) {
    for (index_t e = f.row_ptr[i]; e < f.row_ptr[i + 1]; ++e) {
      level[i] = std::max(level[i], level[f.col[e]] + 1);
    }
    levels = std::max(levels, level[i] + 1);
  }
  plan.level_ptr.assign(static_cast<std::size_t>(levels) + 1, 0);
  for (const index_t l : level) ++plan.level_ptr[l + 1];
  for (index_t l = 0; l < levels; ++l) plan.level_ptr[l + 1] += plan.level_ptr[l];
  plan.level_blocks.resize(static_cast<std::size_t>(count));
  std::vector<index_t> next(plan.level_ptr.begin(), plan.level_ptr.end() - 1);
  for (index_t i = 0; i < count; ++i) plan.level_blocks[next[level[i]]++] = i;
}

}  // namespace

kernels::BlockIcPlan block_ic_plan(const CsrMatrix<double>& a, const BlockFactor& f,
                                   const BlockSweeps& sweeps) {
  kernels::BlockIcPlan plan = block_ic_solve_plan(a, f, false);
  plan.operators = true;
  plan.forward_ptr = sweeps.forward.row_ptr;
  plan.backward_ptr = sweeps.backward.row_ptr;
  plan.forward_diagonal_ptr = sweeps.forward_diagonal.row_ptr;
  plan.backward_diagonal_ptr = sweeps.backward_diagonal.row_ptr;
  return plan;
}

kernels::BlockIcPlan block_ic_solve_plan(const CsrMatrix<double>& a, const BlockFactor& f,
                                         bool float_solves) {
  kernels::BlockIcPlan plan;
  plan.operators = false;
  plan.float_solves = float_solves;
  plan.rows = a.rows;
  plan.block_ptr = f.blocks.ptr;
  plan.row_ptr = f.row_ptr;
  plan.col = f.col;
  plan.offset = f.offset;
  plan.diagonal = f.diagonal;
  plan.scatter = f.scatter;
  plan.entry_row.resize(f.col.size());
  const index_t count = f.blocks.count();
  plan.inverse.resize(static_cast<std::size_t>(count));
  for (index_t b = 0; b < count; ++b) {
    for (index_t e = f.row_ptr[b]; e < f.row_ptr[b + 1]; ++e) plan.entry_row[e] = b;
    plan.inverse[b] = plan.inverse_count;
    plan.inverse_count += static_cast<std::int64_t>(f.size(b)) * f.size(b);
    plan.largest_block = std::max(plan.largest_block, f.size(b));
  }
  bool uniform = true;
  for (index_t b = 0; b < count; ++b) uniform = uniform && f.size(b) == plan.largest_block;
  plan.uniform_block = uniform ? plan.largest_block : 0;
  plan.value_count = static_cast<std::int64_t>(f.values.size());
  plan.transpose_prefix = transpose_prefix(f);
  plan.a_row_ptr = a.row_ptr;
  plan.a_col = a.col_idx;
  plan.a_diagonal.assign(static_cast<std::size_t>(a.rows), -1);
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      if (a.col_idx[k] == i) plan.a_diagonal[i] = k;
    }
    if (plan.a_diagonal[i] < 0) {
      throw RowError<InvalidMatrixError>(RowText()
                                         << "block_ic: row " << Row{i} << " has no diagonal entry");
    }
  }
  set_levels(f, plan);
  set_transpose(f, plan);
  return plan;
}

}  // namespace prism::precond
