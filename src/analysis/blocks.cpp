#include <prism/blocks.hpp>
#include <prism/errors.hpp>

#include "common/parallel.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace prism {
namespace {

void require_square(const CsrMatrix<double>& a, const char* who) {
  if (a.rows != a.cols) {
    throw InvalidMatrixError(std::string(who) + ": the matrix is " + std::to_string(a.rows) +
                             " x " + std::to_string(a.cols) + ", not square");
  }
}

void require_fit(const CsrMatrix<double>& a, const BlockPartition& blocks, const char* who) {
  require_square(a, who);
  bool valid = !blocks.ptr.empty() && blocks.ptr.front() == 0 && blocks.rows() == a.rows;
  for (std::size_t b = 1; valid && b < blocks.ptr.size(); ++b) {
    valid = blocks.ptr[b] > blocks.ptr[b - 1];
  }
  if (!valid) {
    throw InvalidMatrixError(std::string(who) +
                             ": the blocks do not partition the matrix's rows into consecutive, "
                             "non-empty runs");
  }
}

bool same_pattern(const CsrMatrix<double>& a, index_t i, index_t j) {
  const index_t length = a.row_ptr[i + 1] - a.row_ptr[i];
  if (a.row_ptr[j + 1] - a.row_ptr[j] != length) return false;
  return std::equal(a.col_idx.begin() + a.row_ptr[i], a.col_idx.begin() + a.row_ptr[i + 1],
                    a.col_idx.begin() + a.row_ptr[j]);
}

}  // namespace

std::vector<index_t> BlockPartition::block_of() const {
  std::vector<index_t> out(static_cast<std::size_t>(rows()));
  for (index_t b = 0; b < count(); ++b) {
    std::fill(out.begin() + ptr[b], out.begin() + ptr[b + 1], b);
  }
  return out;
}

BlockPartition find_node_blocks(const CsrMatrix<double>& a, index_t max_size) {
  require_square(a, "find_node_blocks");
  if (max_size < 1) {
    throw ConfigError("find_node_blocks: max_size must be >= 1, got " + std::to_string(max_size));
  }
  // Equality is transitive: a run of rows all share its first row's pattern iff each
  // shares the next one's, so the comparisons (the pass over all entries) run in parallel
  // and only the cheap cut into blocks of at most max_size rows is sequential.
  const std::size_t pairs = a.rows > 1 ? static_cast<std::size_t>(a.rows) - 1 : 0;
  std::vector<char> same_as_next(pairs);
  common::parallel_for(pairs, common::kRowsPerPart, [&](std::size_t b, std::size_t e) {
    for (std::size_t i = b; i < e; ++i) {
      const auto row = static_cast<index_t>(i);
      same_as_next[i] = same_pattern(a, row, row + 1) ? 1 : 0;
    }
  });
  BlockPartition blocks;
  blocks.ptr.reserve(static_cast<std::size_t>(a.rows) + 1);
  for (index_t i = 0; i < a.rows;) {
    index_t end = i + 1;
    while (end < a.rows && end - i < max_size && same_as_next[end - 1]) ++end;
    blocks.ptr.push_back(end);
    i = end;
  }
  return blocks;
}

BlockPartition uniform_blocks(index_t rows, index_t size) {
  if (size < 1) throw ConfigError("uniform_blocks: size must be >= 1, got " + std::to_string(size));
  BlockPartition blocks;
  for (index_t start = 0; start < rows; start += std::min(size, rows - start)) {
    blocks.ptr.push_back(start + std::min(size, rows - start));
  }
  return blocks;
}

CsrMatrix<double> quotient_matrix(const CsrMatrix<double>& a, const BlockPartition& blocks) {
  require_fit(a, blocks, "quotient_matrix");
  const std::vector<index_t> block_of = blocks.block_of();
  const index_t n = blocks.count();
  CsrMatrix<double> q;
  q.rows = q.cols = n;
  q.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  // slot[J]: where block J sits in the current block row, -1 where it is not yet there.
  std::vector<index_t> slot(static_cast<std::size_t>(n), -1);
  for (index_t block = 0; block < n; ++block) {
    const auto first = static_cast<index_t>(q.col_idx.size());
    for (index_t i = blocks.ptr[block]; i < blocks.ptr[block + 1]; ++i) {
      for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        const index_t other = block_of[a.col_idx[k]];
        if (slot[other] < 0) {
          slot[other] = static_cast<index_t>(q.col_idx.size());
          q.col_idx.push_back(other);
          q.values.push_back(0.0);
        }
        q.values[slot[other]] += std::abs(a.values[k]);
      }
    }
    // Columns in order: sort the row's (column, value) pairs.
    std::vector<std::pair<index_t, double>> row;
    for (auto k = static_cast<std::size_t>(first); k < q.col_idx.size(); ++k) {
      row.emplace_back(q.col_idx[k], q.values[k]);
      slot[q.col_idx[k]] = -1;
    }
    std::sort(row.begin(), row.end());
    for (std::size_t k = 0; k < row.size(); ++k) {
      q.col_idx[first + k] = row[k].first;
      q.values[first + k] = row[k].second;
    }
    q.row_ptr[block + 1] = static_cast<index_t>(q.col_idx.size());
  }
  return q;
}

BlockColoring color_blocks(const CsrMatrix<double>& a, const BlockPartition& blocks,
                           VertexOrder order) {
  const Coloring by_block = color_matrix(quotient_matrix(a, blocks), order);
  BlockColoring out;
  out.num_colors = by_block.num_colors;
  out.color_ptr = by_block.color_ptr;
  out.permutation.reserve(static_cast<std::size_t>(a.rows));
  for (const index_t block : by_block.permutation) {
    for (index_t i = blocks.ptr[block]; i < blocks.ptr[block + 1]; ++i) {
      out.permutation.push_back(i);
    }
    out.blocks.ptr.push_back(static_cast<index_t>(out.permutation.size()));
  }
  for (const index_t first : out.color_ptr) out.color_rows.push_back(out.blocks.ptr[first]);
  return out;
}

Aggregation aggregate_blocks(const CsrMatrix<double>& a, const BlockPartition& blocks,
                             index_t max_rows) {
  if (max_rows < 1) {
    throw ConfigError("aggregate_blocks: max_rows must be >= 1, got " + std::to_string(max_rows));
  }
  const CsrMatrix<double> q = quotient_matrix(a, blocks);
  const index_t n = blocks.count();
  std::vector<double> self(static_cast<std::size_t>(n), 0.0);
  for (index_t b = 0; b < n; ++b) {
    for (index_t k = q.row_ptr[b]; k < q.row_ptr[b + 1]; ++k) {
      if (q.col_idx[k] == b) self[b] = q.values[k];
    }
  }
  const auto size = [&](index_t b) { return blocks.ptr[b + 1] - blocks.ptr[b]; };
  std::vector<char> taken(static_cast<std::size_t>(n), 0);
  Aggregation out;
  out.permutation.reserve(static_cast<std::size_t>(a.rows));
  std::vector<index_t> members;
  for (index_t start = 0; start < n; ++start) {
    if (taken[start]) continue;
    members.assign(1, start);
    taken[start] = 1;
    index_t rows = size(start);
    for (;;) {
      index_t best = -1;
      double strongest = 0.0;
      for (const index_t m : members) {
        for (index_t k = q.row_ptr[m]; k < q.row_ptr[m + 1]; ++k) {
          const index_t j = q.col_idx[k];
          if (taken[j] || rows + size(j) > max_rows) continue;
          const double strength = q.values[k] / std::sqrt(self[m] * self[j]);
          if (strength > strongest || (strength == strongest && best >= 0 && j < best)) {
            strongest = strength;
            best = j;
          }
        }
      }
      if (best < 0) break;
      taken[best] = 1;
      members.push_back(best);
      rows += size(best);
    }
    for (const index_t m : members) {
      for (index_t i = blocks.ptr[m]; i < blocks.ptr[m + 1]; ++i) out.permutation.push_back(i);
    }
    out.blocks.ptr.push_back(static_cast<index_t>(out.permutation.size()));
  }
  return out;
}

double diagonal_block_weight(const CsrMatrix<double>& a, const BlockPartition& blocks) {
  require_fit(a, blocks, "diagonal_block_weight");
  const std::vector<index_t> block_of = blocks.block_of();
  double inside = 0.0, total = 0.0;
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const double weight = std::abs(a.values[k]);
      total += weight;
      if (block_of[a.col_idx[k]] == block_of[i]) inside += weight;
    }
  }
  return total > 0.0 ? inside / total : 1.0;
}

}  // namespace prism
