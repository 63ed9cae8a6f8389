#include <prism/analysis.hpp>
#include <prism/errors.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

// Messages name rows and columns 1-based, as Matrix Market files and most users count
// them; MatrixProperties::first_bad_row stays a 0-based index like every index_t.

namespace prism {
namespace {

// Shortest text that reads back to the same double, so two values that differ only in
// the last bits do not print alike.
std::string number(double value) {
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

std::string one_based(index_t i) {
  return std::to_string(static_cast<long long>(i) + 1);
}

// Problems in the order check_spd_candidate reports them: the first category found
// wins, and within a category the first row.
enum Problem { storage, non_finite, no_mirror, asymmetric, missing_diagonal, bad_diagonal, count };

struct Scan {
  MatrixProperties properties;
  std::array<std::string, Problem::count> message;

  void report(Problem problem, index_t row, std::string text) {
    if (properties.first_bad_row < 0 || row < properties.first_bad_row) {
      properties.first_bad_row = row;
    }
    if (message[problem].empty()) message[problem] = std::move(text);
  }
};

// The storage invariants the symmetry search relies on; a matrix built outside prism's
// builders may break them, and a binary search over unsorted columns would then lie.
bool check_storage(const CsrMatrix<double>& a, Scan& scan) {
  const auto n = static_cast<std::size_t>(a.rows);
  if (a.rows < 0 || a.row_ptr.size() != n + 1 || a.row_ptr.front() != 0 ||
      a.row_ptr.back() != a.nnz() || a.values.size() != a.col_idx.size()) {
    scan.message[storage] = "matrix storage is inconsistent: " + std::to_string(a.rows) +
                            " rows, " + std::to_string(a.row_ptr.size()) + " row pointers, " +
                            std::to_string(a.col_idx.size()) + " column indices, " +
                            std::to_string(a.values.size()) + " values";
    return false;
  }
  for (index_t i = 0; i < a.rows; ++i) {
    if (a.row_ptr[i + 1] < a.row_ptr[i]) {
      scan.report(storage, i,
                  "matrix storage is inconsistent: row pointers decrease at row " + one_based(i));
      return false;
    }
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t j = a.col_idx[k];
      if (j < 0 || j >= a.cols) {
        scan.report(storage, i,
                    "column index " + one_based(j) + " of row " + one_based(i) +
                        " is outside [1, " + std::to_string(a.cols) + "]");
        return false;
      }
      if (k > a.row_ptr[i] && a.col_idx[k - 1] >= j) {
        scan.report(storage, i,
                    "column indices of row " + one_based(i) + " are not sorted and unique");
        return false;
      }
    }
  }
  return true;
}

Scan scan_matrix(const CsrMatrix<double>& a) {
  Scan scan;
  MatrixProperties& p = scan.properties;
  p.square = a.rows == a.cols;
  if (!p.square || !check_storage(a, scan)) return scan;

  double max_abs = 0.0;
  for (const double v : a.values) {
    if (std::isfinite(v)) max_abs = std::max(max_abs, std::abs(v));
  }
  const double tolerance = 1e-12 * max_abs;

  p.structurally_symmetric = true;
  p.numerically_symmetric = true;
  p.full_diagonal = true;
  p.positive_diagonal = true;
  // Mirrors are found with one cursor per row while every mirror so far sat where the
  // cursor pointed (rows in order meet the entries (j, i) of each row j in increasing i,
  // as in mirror_entries), then by binary search: the same answers, in one pass for the
  // symmetric matrices that pass.
  std::vector<index_t> next(a.row_ptr.begin(), a.row_ptr.end() - 1);
  bool cursors = true;
  for (index_t i = 0; i < a.rows; ++i) {
    bool has_diagonal = false;
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t j = a.col_idx[k];
      const double v = a.values[k];
      if (!std::isfinite(v)) {
        scan.report(non_finite, i,
                    "matrix has a non-finite entry: a(" + one_based(i) + "," + one_based(j) +
                        ") = " + number(v));
      }
      if (j == i) {
        has_diagonal = true;
        if (cursors && next[i] == k) {
          ++next[i];
        } else {
          cursors = false;
        }
        if (!(v > 0.0)) {
          p.positive_diagonal = false;
          scan.report(
              bad_diagonal, i,
              "diagonal entry of row " + one_based(i) + " is not positive (" + number(v) + ")");
        }
        continue;
      }
      const index_t* mirror_begin = a.col_idx.data() + a.row_ptr[j];
      const index_t* mirror_end = a.col_idx.data() + a.row_ptr[j + 1];
      const index_t* mirror = a.col_idx.data() + next[j];
      if (cursors && mirror < mirror_end && *mirror == i) {
        ++next[j];
      } else {
        cursors = false;
        mirror = std::lower_bound(mirror_begin, mirror_end, i);
      }
      if (mirror == mirror_end || *mirror != i) {
        p.structurally_symmetric = false;
        p.numerically_symmetric = false;
        scan.report(no_mirror, i,
                    "matrix is not symmetric: entry (" + one_based(i) + ", " + one_based(j) +
                        ") has no mirror (" + one_based(j) + ", " + one_based(i) + ")");
        continue;
      }
      // Each pair is compared once, from its upper entry.
      if (j < i) continue;
      const double w = a.values[mirror - a.col_idx.data()];
      const double difference = std::abs(v - w);
      if (!(difference <= p.max_asymmetry)) {
        p.max_asymmetry =
            std::isnan(difference) ? std::numeric_limits<double>::infinity() : difference;
      }
      if (!(difference <= tolerance)) {
        p.numerically_symmetric = false;
        scan.report(asymmetric, i,
                    "matrix is not symmetric: a(" + one_based(i) + "," + one_based(j) +
                        ") = " + number(v) + " but a(" + one_based(j) + "," + one_based(i) +
                        ") = " + number(w));
      }
    }
    if (!has_diagonal) {
      p.full_diagonal = false;
      p.positive_diagonal = false;
      scan.report(missing_diagonal, i, "diagonal entry of row " + one_based(i) + " is missing");
    }
  }
  return scan;
}

}  // namespace

MatrixProperties inspect_matrix(const CsrMatrix<double>& a) {
  return scan_matrix(a).properties;
}

void check_spd_candidate(const CsrMatrix<double>& a) {
  if (a.rows != a.cols) {
    throw InvalidMatrixError("matrix is not square (" + std::to_string(a.rows) + " x " +
                             std::to_string(a.cols) + ")");
  }
  const Scan scan = scan_matrix(a);
  for (const std::string& message : scan.message) {
    if (!message.empty()) throw InvalidMatrixError(message);
  }
}

}  // namespace prism

namespace prism {

std::vector<index_t> mirror_entries(const CsrMatrix<double>& a) {
  // Scanning rows in order meets the entries (j, i) of each row j in increasing i, so
  // one cursor per row finds every mirror in a single pass.
  std::vector<index_t> next(a.row_ptr.begin(), a.row_ptr.end() - 1);
  std::vector<index_t> mirror(a.col_idx.size());
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t j = a.col_idx[k];
      const index_t m = next[j];
      if (m >= a.row_ptr[j + 1] || a.col_idx[m] != i) {
        throw InvalidMatrixError("matrix is not symmetric: entry (" + one_based(i) + ", " +
                                 one_based(j) + ") has no mirror (" + one_based(j) + ", " +
                                 one_based(i) + ")");
      }
      mirror[k] = m;
      ++next[j];
    }
  }
  return mirror;
}

void check_spd_candidate_values(const CsrMatrix<double>& a, const std::vector<index_t>& mirror) {
  double largest = 0.0;
  bool finite = true;
  for (double v : a.values) {
    finite = finite && std::isfinite(v);
    largest = std::max(largest, std::abs(v));
  }
  bool ok = finite && mirror.size() == a.values.size();
  const double tolerance = 1e-12 * largest;
  for (index_t i = 0; ok && i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      if (a.col_idx[k] == i ? !(a.values[k] > 0.0)
                            : std::abs(a.values[k] - a.values[mirror[k]]) > tolerance) {
        ok = false;
        break;
      }
    }
  }
  // The full check names the problem (and its row) exactly as at set-up.
  if (!ok) check_spd_candidate(a);
}

}  // namespace prism
