#include <prism/csr_matrix.hpp>
#include <prism/errors.hpp>

#include "common/parallel.hpp"
#include "matrix/csr_rows.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace prism {
namespace {

constexpr std::int64_t kMaxEntries = std::numeric_limits<index_t>::max();

// Insertion sort is linear on the already sorted rows that most inputs produce (Matrix Market
// files are column-major, which a counting sort by row turns into sorted rows) and beats
// std::stable_sort's setup cost on the handful of entries a typical row holds.
constexpr std::int64_t kInsertionSortLimit = 64;

std::string shape(index_t rows, index_t cols) {
  return std::to_string(rows) + " x " + std::to_string(cols);
}

void require_square(const CsrMatrix<double>& a, const char* operation) {
  if (a.rows != a.cols) {
    throw InvalidMatrixError(std::string(operation) + " needs a square matrix, got " +
                             shape(a.rows, a.cols));
  }
}

// Stable, so that duplicates are summed in the order they were given: the same triplets in
// the same order always give bit-identical values.
void sort_row(index_t* col, double* val, std::int64_t n) {
  if (n <= kInsertionSortLimit) {
    for (std::int64_t i = 1; i < n; ++i) {
      const index_t c = col[i];
      const double v = val[i];
      std::int64_t j = i;
      for (; j > 0 && col[j - 1] > c; --j) {
        col[j] = col[j - 1];
        val[j] = val[j - 1];
      }
      col[j] = c;
      val[j] = v;
    }
    return;
  }
  if (std::is_sorted(col, col + n)) return;
  std::vector<std::pair<index_t, double>> entries(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) entries[i] = {col[i], val[i]};
  std::stable_sort(entries.begin(), entries.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  for (std::int64_t i = 0; i < n; ++i) {
    col[i] = entries[i].first;
    val[i] = entries[i].second;
  }
}

// Sorts a row's n entries by column and sums each run of equal columns (in the order
// given) into its first entry; returns the number of distinct columns, now in front.
std::int64_t sort_and_sum_row(index_t* col, double* val, std::int64_t n) {
  sort_row(col, val, n);
  std::int64_t out = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    if (out > 0 && col[out - 1] == col[k]) {
      val[out - 1] += val[k];
    } else {
      col[out] = col[k];
      val[out] = val[k];
      ++out;
    }
  }
  return out;
}

}  // namespace

CsrMatrix<double> csr_from_triplets(index_t rows, index_t cols, std::vector<Triplet> triplets) {
  if (rows < 0 || cols < 0) {
    throw InvalidMatrixError("matrix dimensions must not be negative, got " + shape(rows, cols));
  }
  const std::size_t count = triplets.size();

  // Offsets stay 64-bit until duplicates are summed: more than 2^31 - 1 triplets may still
  // collapse into a matrix that fits.
  std::vector<std::int64_t> start(static_cast<std::size_t>(rows) + 1, 0);
  for (std::size_t k = 0; k < count; ++k) {
    const Triplet& t = triplets[k];
    if (t.row < 0 || t.row >= rows || t.col < 0 || t.col >= cols) {
      throw InvalidMatrixError("triplet " + std::to_string(k) + " at (" + std::to_string(t.row) +
                               ", " + std::to_string(t.col) + ") lies outside the " +
                               shape(rows, cols) + " matrix");
    }
    ++start[static_cast<std::size_t>(t.row) + 1];
  }
  for (index_t r = 0; r < rows; ++r) start[r + 1] += start[r];

  std::vector<index_t> col(count);
  std::vector<double> val(count);
  {
    std::vector<std::int64_t> next(start.begin(), start.end() - 1);
    for (const Triplet& t : triplets) {
      const std::int64_t pos = next[t.row]++;
      col[pos] = t.col;
      val[pos] = t.value;
    }
  }
  // The triplets are the largest array alive here; free them before the result grows.
  std::vector<Triplet>().swap(triplets);
  return csr_from_row_ranges(rows, cols, start, std::move(col), std::move(val));
}

CsrMatrix<double> csr_from_row_ranges(index_t rows, index_t cols,
                                      const std::vector<std::int64_t>& start,
                                      std::vector<index_t> col, std::vector<double> val) {
  CsrMatrix<double> a;
  a.rows = rows;
  a.cols = cols;
  a.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  // Each row is sorted and its duplicates summed within its own range, rows in parts on
  // host threads; then the rows move down to close the gaps the duplicates left (in
  // place: the write position never passes the read position).
  std::vector<std::int64_t> kept(static_cast<std::size_t>(rows));
  common::parallel_for(static_cast<std::size_t>(rows), common::kRowsPerPart,
                       [&](std::size_t first, std::size_t last) {
                         for (std::size_t r = first; r < last; ++r) {
                           kept[r] = sort_and_sum_row(col.data() + start[r], val.data() + start[r],
                                                      start[r + 1] - start[r]);
                         }
                       });
  std::int64_t out = 0;
  for (index_t r = 0; r < rows; ++r) {
    const std::int64_t begin = start[r];
    if (out != begin) {
      std::copy(col.begin() + begin, col.begin() + begin + kept[r], col.begin() + out);
      std::copy(val.begin() + begin, val.begin() + begin + kept[r], val.begin() + out);
    }
    out += kept[r];
    if (out > kMaxEntries) {
      throw InvalidMatrixError("matrix has more than 2^31 - 1 entries (limit of 32-bit indices)");
    }
    a.row_ptr[r + 1] = static_cast<index_t>(out);
  }
  col.resize(static_cast<std::size_t>(out));
  val.resize(static_cast<std::size_t>(out));
  col.shrink_to_fit();
  val.shrink_to_fit();
  a.col_idx = std::move(col);
  a.values = std::move(val);
  return a;
}

CsrMatrix<double> transpose(const CsrMatrix<double>& a) {
  CsrMatrix<double> t;
  t.rows = a.cols;
  t.cols = a.rows;
  t.row_ptr.assign(static_cast<std::size_t>(a.cols) + 1, 0);
  for (index_t c : a.col_idx) ++t.row_ptr[c + 1];
  for (index_t r = 0; r < t.rows; ++r) t.row_ptr[r + 1] += t.row_ptr[r];

  t.col_idx.resize(a.col_idx.size());
  t.values.resize(a.values.size());
  std::vector<index_t> next(t.row_ptr.begin(), t.row_ptr.end() - 1);
  // Visiting the rows of a in order leaves every row of the transpose sorted.
  for (index_t r = 0; r < a.rows; ++r) {
    for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1]; ++k) {
      const index_t pos = next[a.col_idx[k]]++;
      t.col_idx[pos] = r;
      t.values[pos] = a.values[k];
    }
  }
  return t;
}

CsrMatrix<double> lower_triangle(const CsrMatrix<double>& a) {
  require_square(a, "lower_triangle");
  CsrMatrix<double> l;
  l.rows = a.rows;
  l.cols = a.cols;
  l.row_ptr.assign(static_cast<std::size_t>(a.rows) + 1, 0);
  for (index_t r = 0; r < a.rows; ++r) {
    for (index_t k = a.row_ptr[r]; k < a.row_ptr[r + 1] && a.col_idx[k] <= r; ++k) {
      l.col_idx.push_back(a.col_idx[k]);
      l.values.push_back(a.values[k]);
    }
    l.row_ptr[r + 1] = l.nnz();
  }
  return l;
}

CsrMatrix<double> symmetric_from_triangle(const CsrMatrix<double>& triangle) {
  require_square(triangle, "symmetric_from_triangle");
  bool below = false, above = false;
  std::vector<Triplet> t;
  t.reserve(2 * triangle.values.size());
  for (index_t r = 0; r < triangle.rows; ++r) {
    for (index_t k = triangle.row_ptr[r]; k < triangle.row_ptr[r + 1]; ++k) {
      const index_t c = triangle.col_idx[k];
      below = below || c < r;
      above = above || c > r;
      if (below && above) {
        throw InvalidMatrixError(
            "symmetric_from_triangle: entries on both sides of the diagonal (row " +
            std::to_string(r) + ", column " + std::to_string(c) +
            ", 0-based): give one triangle, or the full matrix to the solver as it is");
      }
      t.push_back({r, c, triangle.values[k]});
      if (c != r) t.push_back({c, r, triangle.values[k]});
    }
  }
  return csr_from_triplets(triangle.rows, triangle.cols, std::move(t));
}

std::vector<double> diagonal(const CsrMatrix<double>& a) {
  require_square(a, "diagonal");
  std::vector<double> d(static_cast<std::size_t>(a.rows), 0.0);
  for (index_t r = 0; r < a.rows; ++r) {
    const auto first = a.col_idx.begin() + a.row_ptr[r];
    const auto last = a.col_idx.begin() + a.row_ptr[r + 1];
    const auto it = std::lower_bound(first, last, r);
    if (it != last && *it == r) d[r] = a.values[it - a.col_idx.begin()];
  }
  return d;
}

}  // namespace prism
