#include <prism/csr_view.hpp>
#include <prism/errors.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

// Messages count rows and entries from 0, as the arrays a view points to do.

namespace prism {
namespace {

constexpr std::int64_t kMaxIndex = std::numeric_limits<index_t>::max();

std::string str(std::int64_t v) {
  return std::to_string(v);
}

[[noreturn]] void fail(const std::string& what) {
  throw InvalidMatrixError("CSR view: " + what);
}

const char* storage_name(Storage s) {
  return s == Storage::lower ? "lower" : s == Storage::upper ? "upper" : "full";
}

// The sizes and row offsets, before any entry is read: row_ptr[rows] is only trusted as
// the entry count once the offsets start at 0 and never decrease.
template <typename Index>
void check_offsets(const CsrView<Index>& v) {
  if (v.rows < 0 || v.cols < 0) fail("negative size " + str(v.rows) + " x " + str(v.cols));
  if (v.rows != v.cols)
    fail("the matrix is not square (" + str(v.rows) + " x " + str(v.cols) + ")");
  if (v.rows == 0) fail("the matrix is empty (0 x 0)");
  if (v.rows > kMaxIndex) {
    fail(str(v.rows) + " rows do not fit prism's 32-bit indices (at most 2^31 - 1 = " +
         str(kMaxIndex) + " rows)");
  }
  if (v.row_ptr == nullptr) fail("row_ptr is null");
  if (v.row_ptr[0] != 0) {
    fail("row_ptr[0] is " + str(v.row_ptr[0]) +
         ", not 0: prism takes 0-based CSR (subtract 1 from the row pointers and column "
         "indices of a 1-based matrix)");
  }
  for (Index i = 0; i < v.rows; ++i) {
    if (v.row_ptr[i + 1] < v.row_ptr[i]) {
      fail("row_ptr[" + str(i + 1) + "] = " + str(v.row_ptr[i + 1]) + " is less than row_ptr[" +
           str(i) + "] = " + str(v.row_ptr[i]) + ": row pointers must not decrease");
    }
  }
  if (v.nnz() > kMaxIndex) {
    fail(str(v.nnz()) + " entries do not fit prism's 32-bit indices (at most 2^31 - 1 = " +
         str(kMaxIndex) + " entries)");
  }
  if (v.nnz() > 0 && (v.col_idx == nullptr || v.values == nullptr)) {
    fail(std::string(v.col_idx == nullptr ? "col_idx" : "values") + " is null for " + str(v.nnz()) +
         " entries");
  }
}

// Every entry in range, sorted and unique within its row, on the stored side; returns the
// number of diagonal entries.
template <typename Index>
std::int64_t check_entries(const CsrView<Index>& v) {
  std::int64_t diagonal = 0;
  for (Index i = 0; i < v.rows; ++i) {
    for (Index k = v.row_ptr[i]; k < v.row_ptr[i + 1]; ++k) {
      const Index j = v.col_idx[k];
      const auto where = [&] {
        return "entry " + str(k) + " (row " + str(i) + ", column " + str(j) + ")";
      };
      if (j < 0 || j >= v.cols) {
        fail(where() + " is outside columns [0, " + str(v.cols - 1) + "]" +
             (j == v.cols ? ": 1-based column indices? prism takes 0-based CSR" : ""));
      }
      if (k > v.row_ptr[i] && v.col_idx[k - 1] >= j) {
        fail("the columns of row " + str(i) + " are not sorted and unique (col_idx[" + str(k - 1) +
             "] = " + str(v.col_idx[k - 1]) + ", col_idx[" + str(k) + "] = " + str(j) +
             "): call prism::sort_and_merge_duplicates on the arrays first");
      }
      if ((v.storage == Storage::lower && j > i) || (v.storage == Storage::upper && j < i)) {
        fail(where() + " lies " + (j > i ? "above" : "below") + " the diagonal in a view with " +
             storage_name(v.storage) + " storage: give only that triangle, or storage full");
      }
      diagonal += j == i ? 1 : 0;
    }
  }
  return diagonal;
}

template <typename Index>
CsrMatrix<double> copy_full(const CsrView<Index>& v) {
  CsrMatrix<double> a;
  a.rows = a.cols = static_cast<index_t>(v.rows);
  a.row_ptr.assign(v.row_ptr, v.row_ptr + v.rows + 1);  // narrowing: checked to fit
  a.col_idx.assign(v.col_idx, v.col_idx + v.nnz());
  a.values.assign(v.values, v.values + v.nnz());
  return a;
}

// L + L^T (or U^T + U): row i is its own entries and the mirrored ones of the other
// rows; with lower storage the mirrored ones (columns > i) follow the row's own, with upper
// storage they (columns < i) precede them. Rows are swept in order, so each part stays
// sorted.
template <typename Index>
CsrMatrix<double> expand(const CsrView<Index>& v, std::int64_t full_nnz) {
  const auto n = static_cast<std::size_t>(v.rows);
  const bool lower = v.storage == Storage::lower;
  std::vector<index_t> mirrored(n, 0);  // mirrored entries of each row
  for (Index i = 0; i < v.rows; ++i) {
    for (Index k = v.row_ptr[i]; k < v.row_ptr[i + 1]; ++k) {
      if (v.col_idx[k] != i) ++mirrored[static_cast<std::size_t>(v.col_idx[k])];
    }
  }
  CsrMatrix<double> a;
  a.rows = a.cols = static_cast<index_t>(v.rows);
  a.row_ptr.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const auto own = static_cast<index_t>(v.row_ptr[i + 1] - v.row_ptr[i]);
    a.row_ptr[i + 1] = a.row_ptr[i] + own + mirrored[i];
  }
  a.col_idx.resize(static_cast<std::size_t>(full_nnz));
  a.values.resize(static_cast<std::size_t>(full_nnz));
  std::vector<index_t> next(n);  // where row i's next mirrored entry goes
  for (std::size_t i = 0; i < n; ++i) {
    const index_t own = static_cast<index_t>(v.row_ptr[i + 1] - v.row_ptr[i]);
    const index_t own_start = lower ? a.row_ptr[i] : a.row_ptr[i] + mirrored[i];
    next[i] = lower ? a.row_ptr[i] + own : a.row_ptr[i];
    for (index_t e = 0; e < own; ++e) {
      a.col_idx[own_start + e] = static_cast<index_t>(v.col_idx[v.row_ptr[i] + e]);
      a.values[own_start + e] = v.values[v.row_ptr[i] + e];
    }
  }
  for (Index i = 0; i < v.rows; ++i) {
    for (Index k = v.row_ptr[i]; k < v.row_ptr[i + 1]; ++k) {
      const Index j = v.col_idx[k];
      if (j == i) continue;
      const index_t pos = next[static_cast<std::size_t>(j)]++;
      a.col_idx[pos] = static_cast<index_t>(i);
      a.values[pos] = v.values[k];
    }
  }
  return a;
}

}  // namespace

template <typename Index>
CsrMatrix<double> to_csr_matrix(const CsrView<Index>& view) {
  check_offsets(view);
  const std::int64_t diagonal = check_entries(view);
  const std::int64_t stored = view.nnz();
  const std::int64_t full_nnz = view.storage == Storage::full ? stored : 2 * stored - diagonal;
  if (full_nnz > kMaxIndex) {
    fail(str(full_nnz) + " entries" +
         (view.storage == Storage::full ? "" : " (the triangle's " + str(stored) + " mirrored)") +
         " do not fit prism's 32-bit indices (at most 2^31 - 1 = " + str(kMaxIndex) + " entries)");
  }
  return view.storage == Storage::full ? copy_full(view) : expand(view, full_nnz);
}

template <typename Index>
CsrMatrix<double> expand_triangle(const CsrView<Index>& triangle) {
  if (triangle.storage == Storage::full) {
    fail("expand_triangle takes a view with lower or upper storage, not full");
  }
  return to_csr_matrix(triangle);
}

template <typename Index>
void sort_and_merge_duplicates(std::vector<Index>& row_ptr, std::vector<Index>& col_idx,
                               std::vector<double>& values) {
  const auto count = static_cast<std::int64_t>(col_idx.size());
  if (row_ptr.empty() || row_ptr.front() != 0 || row_ptr.back() != count ||
      values.size() != col_idx.size()) {
    throw InvalidMatrixError("sort_and_merge_duplicates: inconsistent CSR arrays (" +
                             str(row_ptr.size()) + " row pointers from " +
                             (row_ptr.empty() ? std::string("-") : str(row_ptr.front())) + " to " +
                             (row_ptr.empty() ? std::string("-") : str(row_ptr.back())) + ", " +
                             str(count) + " column indices, " + str(values.size()) + " values)");
  }
  std::vector<std::pair<Index, double>> row;
  Index out = 0;
  for (std::size_t i = 0; i + 1 < row_ptr.size(); ++i) {
    const Index begin = row_ptr[i];
    const Index end = row_ptr[i + 1];
    if (end < begin) {
      throw InvalidMatrixError("sort_and_merge_duplicates: row_ptr[" + str(i + 1) +
                               "] is less than row_ptr[" + str(i) + "]");
    }
    row.clear();
    for (Index k = begin; k < end; ++k) row.emplace_back(col_idx[k], values[k]);
    // Stable: duplicates are summed in the order given.
    std::stable_sort(row.begin(), row.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    row_ptr[i] = out;
    for (std::size_t e = 0; e < row.size(); ++e) {
      if (e > 0 && row[e].first == col_idx[out - 1]) {
        values[out - 1] += row[e].second;
      } else {
        col_idx[out] = row[e].first;
        values[out] = row[e].second;
        ++out;
      }
    }
  }
  row_ptr.back() = out;
  col_idx.resize(static_cast<std::size_t>(out));
  values.resize(static_cast<std::size_t>(out));
}

template CsrMatrix<double> to_csr_matrix(const CsrView<std::int32_t>&);
template CsrMatrix<double> to_csr_matrix(const CsrView<std::int64_t>&);
template CsrMatrix<double> expand_triangle(const CsrView<std::int32_t>&);
template CsrMatrix<double> expand_triangle(const CsrView<std::int64_t>&);
template void sort_and_merge_duplicates(std::vector<std::int32_t>&, std::vector<std::int32_t>&,
                                        std::vector<double>&);
template void sort_and_merge_duplicates(std::vector<std::int64_t>&, std::vector<std::int64_t>&,
                                        std::vector<double>&);

}  // namespace prism
