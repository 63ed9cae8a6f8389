#include "distributed/local_rows.hpp"

#include <prism/errors.hpp>

#include "common/parallel.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

// Both run over row parts on host threads (a rank may own tens of millions of rows); the
// results do not depend on the number of threads.

namespace prism::distributed {
namespace {

constexpr std::int64_t kMaxLocal = std::numeric_limits<index_t>::max();

std::string row_text(std::int64_t row) {
  return "row " + std::to_string(row);
}

// Parts of about kRowsPerPart items that in_parts splits [0, n) into (one at least).
std::size_t part_count(std::int64_t n) {
  return std::max<std::size_t>(1, static_cast<std::size_t>(n) / common::kRowsPerPart);
}

// [0, n) in part_count(n) contiguous parts on host threads: body(part, begin, end) runs
// once per part, so callers can keep one result per part.
template <typename Body>
void in_parts(std::int64_t n, const Body& body) {
  const auto items = static_cast<std::size_t>(n);
  const std::size_t parts = part_count(n);
  common::parallel_for(parts, 1, [&](std::size_t first, std::size_t last) {
    for (std::size_t part = first; part < last; ++part) {
      body(part, static_cast<std::int64_t>(items * part / parts),
           static_cast<std::int64_t>(items * (part + 1) / parts));
    }
  });
}

// The lowest i in [0, n) with bad(i), or n when there is none.
template <typename Bad>
std::int64_t first_bad(std::int64_t n, const Bad& bad) {
  std::vector<std::int64_t> found(part_count(n), n);
  in_parts(n, [&](std::size_t part, std::int64_t begin, std::int64_t end) {
    for (std::int64_t i = begin; i < end; ++i) {
      if (bad(i)) {
        found[part] = i;
        return;
      }
    }
  });
  return *std::min_element(found.begin(), found.end());
}

// What is wrong with the entries of local row i (empty when nothing), the first defect in
// entry order. Reads only the row's entries, which row_ptr must bound.
std::string entry_defect(const DistributedRowsView& v, std::int64_t i) {
  const std::int64_t row = v.row_begin + i;
  for (std::int64_t k = v.row_ptr[i]; k < v.row_ptr[i + 1]; ++k) {
    const std::int64_t col = v.col_idx[k];
    if (col < 0 || col >= v.global_rows) {
      return row_text(row) + ": column " + std::to_string(col) + " outside [0, " +
             std::to_string(v.global_rows) + ")";
    }
    if (k > v.row_ptr[i] && col <= v.col_idx[k - 1]) {
      return row_text(row) + ": column " + std::to_string(col) + " after column " +
             std::to_string(v.col_idx[k - 1]) +
             ": the columns of a row must increase (sort_and_merge_duplicates() sorts them)";
    }
    if (!std::isfinite(v.values[k])) {
      return row_text(row) + ", column " + std::to_string(col) + ": value is not finite";
    }
  }
  return {};
}

void check_sizes(const DistributedRowsView& v, std::int64_t rows) {
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
}

}  // namespace

void check_local_rows(const DistributedRowsView& v) {
  const std::int64_t rows = v.row_end - v.row_begin;
  check_sizes(v, rows);
  const std::int64_t* row_ptr = v.row_ptr;
  // The first row whose row_ptr decreases; the rows before it start at 0 and increase, so
  // their entries can be read where they end within the arrays (a prefix of them).
  const std::int64_t decrease =
      first_bad(rows, [&](std::int64_t i) { return row_ptr[i + 1] < row_ptr[i]; });
  const std::int64_t readable =
      std::upper_bound(row_ptr + 1, row_ptr + 1 + decrease, row_ptr[rows]) - (row_ptr + 1);
  // A row's own defects come before those of later rows, the decrease last.
  const std::int64_t bad =
      first_bad(readable, [&](std::int64_t i) { return !entry_defect(v, i).empty(); });
  if (bad < readable) throw InvalidMatrixError(entry_defect(v, bad));
  if (decrease < rows) {
    throw InvalidMatrixError(row_text(v.row_begin + decrease) + ": row_ptr decreases (" +
                             std::to_string(row_ptr[decrease]) + " then " +
                             std::to_string(row_ptr[decrease + 1]) + ")");
  }
}

namespace {

// Marks the rows with a column another rank owns; returns those columns, increasing and
// without repeats. Each part sorts its own first, so the merge sorts fewer.
std::vector<std::int64_t> find_boundary(const DistributedRowsView& v,
                                        std::vector<char>& is_boundary) {
  const std::int64_t rows = v.row_end - v.row_begin;
  is_boundary.assign(static_cast<std::size_t>(rows), 0);
  std::vector<std::vector<std::int64_t>> found(part_count(rows));
  in_parts(rows, [&](std::size_t part, std::int64_t begin, std::int64_t end) {
    std::vector<std::int64_t>& ghosts = found[part];
    for (std::int64_t i = begin; i < end; ++i) {
      for (std::int64_t k = v.row_ptr[i]; k < v.row_ptr[i + 1]; ++k) {
        if (v.col_idx[k] < v.row_begin || v.col_idx[k] >= v.row_end) {
          is_boundary[i] = 1;
          ghosts.push_back(v.col_idx[k]);
        }
      }
    }
    std::sort(ghosts.begin(), ghosts.end());
    ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
  });
  std::vector<std::int64_t> ghosts;
  for (const std::vector<std::int64_t>& part : found) {
    ghosts.insert(ghosts.end(), part.begin(), part.end());
  }
  std::sort(ghosts.begin(), ghosts.end());
  ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
  return ghosts;
}

// The rank's order: the interior rows, then the boundary rows, each increasing.
void order_rows(const std::vector<char>& is_boundary, LocalSystem& s) {
  s.order.reserve(static_cast<std::size_t>(s.rows));
  for (index_t i = 0; i < s.rows; ++i) {
    if (!is_boundary[i]) s.order.push_back(i);
  }
  s.interior_rows = static_cast<index_t>(s.order.size());
  for (index_t i = 0; i < s.rows; ++i) {
    if (is_boundary[i]) s.order.push_back(i);
  }
}

// Row k of the rank's order: its part (interior or boundary) and its row there.
std::pair<LocalCsr*, index_t> part_row(LocalSystem& s, index_t k) {
  if (k < s.interior_rows) return {&s.interior, k};
  return {&s.boundary, k - s.interior_rows};
}

// Sizes the parts and the diagonal block: row_ptr from each row's length, then col_idx and
// values once, so the rows can be filled in parallel, each at its offset.
void size_rows(const DistributedRowsView& v, LocalSystem& s) {
  CsrMatrix<double>& d = s.diagonal_block;
  s.interior.row_ptr.assign(static_cast<std::size_t>(s.interior.rows) + 1, 0);
  s.boundary.row_ptr.assign(static_cast<std::size_t>(s.boundary.rows) + 1, 0);
  d.row_ptr.assign(static_cast<std::size_t>(s.rows) + 1, 0);
  in_parts(s.rows, [&](std::size_t, std::int64_t begin, std::int64_t end) {
    for (auto k = static_cast<index_t>(begin); k < end; ++k) {
      const index_t i = s.order[k];
      const auto [part, r] = part_row(s, k);
      part->row_ptr[r + 1] = static_cast<index_t>(v.row_ptr[i + 1] - v.row_ptr[i]);
      d.row_ptr[k + 1] = static_cast<index_t>(
          std::count_if(v.col_idx + v.row_ptr[i], v.col_idx + v.row_ptr[i + 1],
                        [&](std::int64_t col) { return col >= v.row_begin && col < v.row_end; }));
    }
  });
  for (auto* row_ptr : {&s.interior.row_ptr, &s.boundary.row_ptr, &d.row_ptr}) {
    std::partial_sum(row_ptr->begin(), row_ptr->end(), row_ptr->begin());
  }
  for (LocalCsr* part : {&s.interior, &s.boundary}) {
    part->col_idx.resize(static_cast<std::size_t>(part->row_ptr.back()));
    part->values.resize(static_cast<std::size_t>(part->row_ptr.back()));
  }
  d.col_idx.resize(static_cast<std::size_t>(d.row_ptr.back()));
  d.values.resize(static_cast<std::size_t>(d.row_ptr.back()));
}

// Copies the rows in local columns: the parts keep each row's given entry order (so a row's
// sum is the one-process SpMV's), the block sorts them as CsrMatrix keeps them.
void fill_rows(const DistributedRowsView& v, LocalSystem& s) {
  std::vector<index_t> position(static_cast<std::size_t>(s.rows));
  in_parts(s.rows, [&](std::size_t, std::int64_t begin, std::int64_t end) {
    for (auto k = static_cast<index_t>(begin); k < end; ++k) position[s.order[k]] = k;
  });
  const auto column = [&](std::int64_t col) -> index_t {
    if (col >= v.row_begin && col < v.row_end) return position[col - v.row_begin];
    const auto it = std::lower_bound(s.ghosts.begin(), s.ghosts.end(), col);
    return s.rows + static_cast<index_t>(it - s.ghosts.begin());
  };
  CsrMatrix<double>& d = s.diagonal_block;
  in_parts(s.rows, [&](std::size_t, std::int64_t begin, std::int64_t end) {
    std::vector<std::pair<index_t, double>> block_row;
    for (auto k = static_cast<index_t>(begin); k < end; ++k) {
      const index_t i = s.order[k];
      const auto [part, r] = part_row(s, k);
      index_t out = part->row_ptr[r];
      block_row.clear();
      for (std::int64_t e = v.row_ptr[i]; e < v.row_ptr[i + 1]; ++e) {
        const index_t c = column(v.col_idx[e]);
        part->col_idx[out] = c;
        part->values[out++] = v.values[e];
        if (c < s.rows) block_row.emplace_back(c, v.values[e]);
      }
      // Columns within a row are distinct, so any sort gives the same row.
      std::sort(block_row.begin(), block_row.end(),
                [](const auto& a, const auto& b) { return a.first < b.first; });
      index_t block_out = d.row_ptr[k];
      for (const auto& [c, value] : block_row) {
        d.col_idx[block_out] = c;
        d.values[block_out++] = value;
      }
    }
  });
}

}  // namespace

LocalSystem split_local_rows(const DistributedRowsView& v) {
  LocalSystem s;
  s.rows = static_cast<index_t>(v.row_end - v.row_begin);
  std::vector<char> is_boundary;
  s.ghosts = find_boundary(v, is_boundary);
  if (static_cast<std::int64_t>(s.rows) + static_cast<std::int64_t>(s.ghosts.size()) > kMaxLocal) {
    throw InvalidMatrixError("owned rows and ghosts exceed 2^31 - 1 on one rank (use more ranks)");
  }
  order_rows(is_boundary, s);
  s.interior.rows = s.interior_rows;
  s.interior.cols = s.rows;
  s.boundary.rows = s.rows - s.interior_rows;
  s.boundary.cols = s.rows + static_cast<index_t>(s.ghosts.size());
  s.diagonal_block.rows = s.diagonal_block.cols = s.rows;
  size_rows(v, s);
  fill_rows(v, s);
  return s;
}

}  // namespace prism::distributed
