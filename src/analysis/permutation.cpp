#include <prism/analysis.hpp>
#include <prism/errors.hpp>

#include "common/parallel.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace prism {

std::vector<index_t> inverse_permutation(const std::vector<index_t>& perm) {
  const auto n = static_cast<index_t>(perm.size());
  std::vector<index_t> inverse(perm.size(), -1);
  for (index_t i = 0; i < n; ++i) {
    const index_t p = perm[i];
    if (p < 0 || p >= n) {
      throw InvalidMatrixError("not a permutation: entry " + std::to_string(i) + " is " +
                               std::to_string(p) + ", outside [0, " + std::to_string(n) + ")");
    }
    if (inverse[p] >= 0) {
      throw InvalidMatrixError("not a permutation: value " + std::to_string(p) +
                               " appears at entries " + std::to_string(inverse[p]) + " and " +
                               std::to_string(i));
    }
    inverse[p] = i;
  }
  return inverse;
}

CsrMatrix<double> permute_symmetric(const CsrMatrix<double>& a, const std::vector<index_t>& perm,
                                    std::vector<index_t>* source) {
  if (a.rows != a.cols) {
    throw InvalidMatrixError("cannot permute a matrix that is not square (" +
                             std::to_string(a.rows) + " x " + std::to_string(a.cols) + ")");
  }
  if (perm.size() != static_cast<std::size_t>(a.rows)) {
    throw InvalidMatrixError("permutation has " + std::to_string(perm.size()) +
                             " entries for a matrix with " + std::to_string(a.rows) + " rows");
  }
  const std::vector<index_t> inverse = inverse_permutation(perm);
  const index_t n = a.rows;

  CsrMatrix<double> b;
  b.rows = n;
  b.cols = n;
  b.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  for (index_t i = 0; i < n; ++i) {
    b.row_ptr[i + 1] = b.row_ptr[i] + (a.row_ptr[perm[i] + 1] - a.row_ptr[perm[i]]);
  }
  b.col_idx.resize(a.col_idx.size());
  b.values.resize(a.values.size());

  if (source) source->resize(a.values.size());

  // Rows are independent: parts of them are permuted on host threads.
  common::parallel_for(
      static_cast<std::size_t>(n), common::kRowsPerPart, [&](std::size_t first, std::size_t last) {
        std::vector<std::pair<index_t, index_t>> row;  // (new column, entry of a)
        for (auto i = static_cast<index_t>(first); i < static_cast<index_t>(last); ++i) {
          const index_t old = perm[i];
          row.clear();
          for (index_t k = a.row_ptr[old]; k < a.row_ptr[old + 1]; ++k) {
            row.emplace_back(inverse[a.col_idx[k]], k);
          }
          // Columns are unique within a row, so sorting by column alone is deterministic.
          std::sort(row.begin(), row.end(),
                    [](const auto& x, const auto& y) { return x.first < y.first; });
          index_t out = b.row_ptr[i];
          for (const auto& [col, k] : row) {
            b.col_idx[out] = col;
            b.values[out] = a.values[k];
            if (source) (*source)[out] = k;
            ++out;
          }
        }
      });
  return b;
}

SetStats set_stats(const std::vector<index_t>& ptr) {
  SetStats stats;
  if (ptr.size() < 2) return stats;
  stats.count = static_cast<int>(ptr.size() - 1);
  stats.min_size = ptr[1] - ptr[0];
  stats.max_size = stats.min_size;
  for (std::size_t s = 1; s + 1 < ptr.size(); ++s) {
    const index_t size = ptr[s + 1] - ptr[s];
    stats.min_size = std::min(stats.min_size, size);
    stats.max_size = std::max(stats.max_size, size);
  }
  const double total = static_cast<double>(ptr.back() - ptr.front());
  stats.mean_size = total / stats.count;
  // Suchoski 2012, eq. before (3.1): phi(A, x) = N / delta(A, x), delta the number of
  // colors or levels; numerically the mean set size, kept apart because reports quote it.
  stats.phi = total / stats.count;
  return stats;
}

}  // namespace prism
