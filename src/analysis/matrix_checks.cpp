#include <prism/analysis.hpp>
#include <prism/errors.hpp>

#include "common/parallel.hpp"
#include "kernels/matrix_values.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

// Messages number rows and columns as the caller's Numbering says (from 0 as the API
// indexes them, or from 1 as Matrix Market files do); MatrixProperties::first_bad_row
// stays a 0-based index like every index_t.

namespace prism {
namespace {

// Shortest text that reads back to the same double, so two values that differ only in
// the last bits do not print alike.
std::string number(double value) {
  std::array<char, 32> buffer{};
  const auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

/// Row or column i (0-based) as `numbering` names it.
std::string numbered(index_t i, Numbering numbering) {
  return std::to_string(static_cast<long long>(i) + (numbering == Numbering::from_one ? 1 : 0));
}

// Problems in the order check_spd_candidate reports them: the first category found
// wins, and within a category the first row.
enum Problem { storage, non_finite, no_mirror, asymmetric, missing_diagonal, bad_diagonal, count };

struct Scan {
  Numbering numbering = Numbering::from_zero;  // of the messages
  MatrixProperties properties;
  std::array<std::string, Problem::count> message;

  std::string at(index_t i) const { return numbered(i, numbering); }

  void report(Problem problem, index_t row, std::string text) {
    if (properties.first_bad_row < 0 || row < properties.first_bad_row) {
      properties.first_bad_row = row;
    }
    if (message[problem].empty()) message[problem] = std::move(text);
  }
};

// The rows [0, rows) in parts on host threads: body(first, last, result) fills one
// Result per part; returns them in row order.
template <typename Result, typename Body>
std::vector<Result> in_row_parts(index_t rows, const Body& body) {
  const auto n = static_cast<std::size_t>(rows);
  const std::size_t parts = std::max<std::size_t>(1, n / common::kRowsPerPart);
  std::vector<Result> found(parts);
  common::parallel_for(parts, 1, [&](std::size_t first, std::size_t last) {
    for (std::size_t part = first; part < last; ++part) {
      body(static_cast<index_t>(n * part / parts), static_cast<index_t>(n * (part + 1) / parts),
           found[part]);
    }
  });
  return found;
}

// Adds a later part's reports to `scan`: the smallest bad row, and of each problem the
// first message in row order.
void merge_reports(Scan& scan, Scan& part) {
  const index_t row = part.properties.first_bad_row;
  if (row >= 0 && (scan.properties.first_bad_row < 0 || row < scan.properties.first_bad_row)) {
    scan.properties.first_bad_row = row;
  }
  for (int problem = 0; problem < Problem::count; ++problem) {
    if (scan.message[problem].empty()) scan.message[problem] = std::move(part.message[problem]);
  }
}

// The storage invariants the symmetry search relies on; a matrix built outside prism's
// builders may break them, and a binary search over unsorted columns would then lie.
// The row pointers come first (a row is only read where they are in order and within
// the entries), then the columns of the rows before the first bad pointer; the first
// bad row is reported.
bool scan_storage(const CsrMatrix<double>& a, Scan& scan) {
  const auto n = static_cast<std::size_t>(a.rows);
  if (a.rows < 0 || a.row_ptr.size() != n + 1 || a.row_ptr.front() != 0 ||
      a.row_ptr.back() != a.nnz() || a.values.size() != a.col_idx.size()) {
    scan.message[storage] = "matrix storage is inconsistent: " + std::to_string(a.rows) +
                            " rows, " + std::to_string(a.row_ptr.size()) + " row pointers, " +
                            std::to_string(a.col_idx.size()) + " column indices, " +
                            std::to_string(a.values.size()) + " values";
    return false;
  }
  index_t pointers_ok = a.rows;  // rows before the first bad row pointer
  for (index_t i = 0; i < a.rows; ++i) {
    if (a.row_ptr[i + 1] < a.row_ptr[i] || a.row_ptr[i + 1] > a.nnz()) {
      pointers_ok = i;
      break;
    }
  }
  std::vector<Scan> parts =
      in_row_parts<Scan>(pointers_ok, [&](index_t first, index_t last, Scan& part) {
        for (index_t i = first; i < last; ++i) {
          for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const index_t j = a.col_idx[k];
            if (j < 0 || j >= a.cols) {
              part.report(storage, i,
                          "column index " + scan.at(j) + " of row " + scan.at(i) + " is outside [" +
                              scan.at(0) + ", " + scan.at(a.cols - 1) + "]");
              return;
            }
            if (k > a.row_ptr[i] && a.col_idx[k - 1] >= j) {
              part.report(storage, i,
                          "column indices of row " + scan.at(i) + " are not sorted and unique");
              return;
            }
          }
        }
      });
  Scan columns;
  for (Scan& part : parts) merge_reports(columns, part);
  if (!columns.message[storage].empty()) {
    scan.report(storage, columns.properties.first_bad_row, columns.message[storage]);
    return false;
  }
  if (pointers_ok < a.rows) {
    const index_t i = pointers_ok;
    scan.report(storage, i,
                "matrix storage is inconsistent: row pointers " +
                    std::string(a.row_ptr[i + 1] < a.row_ptr[i] ? "decrease" : "pass the entries") +
                    " at row " + scan.at(i));
    return false;
  }
  return true;
}

/// The checks; with `values` false only the pattern's (storage, mirrors, stored diagonal).
Scan scan_matrix(const CsrMatrix<double>& a, double relative_tolerance, bool values,
                 Numbering numbering) {
  Scan scan;
  scan.numbering = numbering;
  MatrixProperties& p = scan.properties;
  p.square = a.rows == a.cols;
  if (!p.square || !scan_storage(a, scan)) return scan;

  double max_abs = 0.0;
  for (const double v : a.values) {
    if (std::isfinite(v)) max_abs = std::max(max_abs, std::abs(v));
  }
  const double tolerance = relative_tolerance * max_abs;

  std::vector<Scan> parts =
      in_row_parts<Scan>(a.rows, [&](index_t first, index_t last, Scan& part) {
        MatrixProperties& q = part.properties;
        q.structurally_symmetric = true;
        q.numerically_symmetric = true;
        q.full_diagonal = true;
        q.positive_diagonal = true;
        for (index_t i = first; i < last; ++i) {
          bool has_diagonal = false;
          for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const index_t j = a.col_idx[k];
            const double v = a.values[k];
            if (values && !std::isfinite(v)) {
              part.report(non_finite, i,
                          "matrix has a non-finite entry: a(" + scan.at(i) + "," + scan.at(j) +
                              ") = " + number(v));
            }
            if (j == i) {
              has_diagonal = true;
              if (values && !(v > 0.0)) {
                q.positive_diagonal = false;
                part.report(
                    bad_diagonal, i,
                    "diagonal entry of row " + scan.at(i) + " is not positive (" + number(v) + ")");
              }
              continue;
            }
            const index_t* mirror_begin = a.col_idx.data() + a.row_ptr[j];
            const index_t* mirror_end = a.col_idx.data() + a.row_ptr[j + 1];
            const index_t* mirror = std::lower_bound(mirror_begin, mirror_end, i);
            if (mirror == mirror_end || *mirror != i) {
              q.structurally_symmetric = false;
              q.numerically_symmetric = false;
              part.report(no_mirror, i,
                          "matrix is not symmetric: entry (" + scan.at(i) + ", " + scan.at(j) +
                              ") has no mirror (" + scan.at(j) + ", " + scan.at(i) + ")");
              continue;
            }
            // Each pair is compared once, from its upper entry.
            if (j < i || !values) continue;
            const double w = a.values[mirror - a.col_idx.data()];
            const double difference = std::abs(v - w);
            if (!(difference <= q.max_asymmetry)) {
              q.max_asymmetry =
                  std::isnan(difference) ? std::numeric_limits<double>::infinity() : difference;
            }
            if (!(difference <= tolerance)) {
              q.numerically_symmetric = false;
              part.report(asymmetric, i,
                          "matrix is not symmetric: a(" + scan.at(i) + "," + scan.at(j) +
                              ") = " + number(v) + " but a(" + scan.at(j) + "," + scan.at(i) +
                              ") = " + number(w));
            }
          }
          if (!has_diagonal) {
            q.full_diagonal = false;
            q.positive_diagonal = false;
            part.report(missing_diagonal, i, "diagonal entry of row " + scan.at(i) + " is missing");
          }
        }
      });
  p.structurally_symmetric = true;
  p.numerically_symmetric = true;
  p.full_diagonal = true;
  p.positive_diagonal = true;
  for (Scan& part : parts) {
    merge_reports(scan, part);
    const MatrixProperties& q = part.properties;
    p.structurally_symmetric = p.structurally_symmetric && q.structurally_symmetric;
    p.numerically_symmetric = p.numerically_symmetric && q.numerically_symmetric;
    p.full_diagonal = p.full_diagonal && q.full_diagonal;
    p.positive_diagonal = p.positive_diagonal && q.positive_diagonal;
    p.max_asymmetry = std::max(p.max_asymmetry, q.max_asymmetry);
  }
  return scan;
}

void throw_first(const CsrMatrix<double>& a, const Scan& scan) {
  if (a.rows != a.cols) {
    throw InvalidMatrixError("matrix is not square (" + std::to_string(a.rows) + " x " +
                             std::to_string(a.cols) + ")");
  }
  for (const std::string& message : scan.message) {
    if (!message.empty()) throw InvalidMatrixError(message);
  }
}

}  // namespace

MatrixProperties inspect_matrix(const CsrMatrix<double>& a) {
  return scan_matrix(a, kernels::kSymmetryTolerance, true, Numbering::from_zero).properties;
}

void check_spd_candidate(const CsrMatrix<double>& a, double symmetry_tolerance,
                         Numbering numbering) {
  throw_first(a, a.rows == a.cols ? scan_matrix(a, symmetry_tolerance, true, numbering) : Scan{});
}

void check_pattern(const CsrMatrix<double>& a, Numbering numbering) {
  throw_first(a, a.rows == a.cols ? scan_matrix(a, 0.0, false, numbering) : Scan{});
}

void check_storage(const CsrMatrix<double>& a, Numbering numbering) {
  Scan scan;
  scan.numbering = numbering;
  if (a.rows == a.cols) scan_storage(a, scan);
  throw_first(a, scan);
}

}  // namespace prism

namespace prism {

std::vector<index_t> mirror_entries(const CsrMatrix<double>& a, Numbering numbering) {
  // Each mirror by a binary search in its row (columns are sorted), rows in parts on host
  // threads; the first entry without a mirror in row order is reported.
  std::vector<index_t> mirror(a.col_idx.size());
  common::parallel_for(
      static_cast<std::size_t>(a.rows), common::kRowsPerPart,
      [&](std::size_t first, std::size_t last) {
        for (auto i = static_cast<index_t>(first); i < static_cast<index_t>(last); ++i) {
          for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
            const index_t j = a.col_idx[k];
            const index_t* begin = a.col_idx.data() + a.row_ptr[j];
            const index_t* end = a.col_idx.data() + a.row_ptr[j + 1];
            const index_t* m = std::lower_bound(begin, end, i);
            if (m == end || *m != i) {
              throw InvalidMatrixError("matrix is not symmetric: entry (" + numbered(i, numbering) +
                                       ", " + numbered(j, numbering) + ") has no mirror (" +
                                       numbered(j, numbering) + ", " + numbered(i, numbering) +
                                       ")");
            }
            mirror[k] = static_cast<index_t>(m - a.col_idx.data());
          }
        }
      });
  return mirror;
}

void check_spd_candidate_values(const CsrMatrix<double>& a, const std::vector<index_t>& mirror,
                                double symmetry_tolerance, Numbering numbering) {
  // Two passes in row parts on host threads: the largest |a| (and whether every value is
  // finite), then each entry against its mirror and each diagonal against 0.
  struct Part {
    double largest = 0.0;
    bool good = true;
  };
  bool ok =
      mirror.size() == a.values.size() && a.row_ptr.size() == static_cast<std::size_t>(a.rows) + 1;
  if (ok) {
    const std::vector<Part> values =
        in_row_parts<Part>(a.rows, [&](index_t begin, index_t end, Part& part) {
          for (index_t k = a.row_ptr[begin]; k < a.row_ptr[end]; ++k) {
            part.good = part.good && std::isfinite(a.values[k]);
            part.largest = std::max(part.largest, std::abs(a.values[k]));
          }
        });
    double largest = 0.0;
    for (const Part& part : values) {
      ok = ok && part.good;
      largest = std::max(largest, part.largest);
    }
    const double tolerance = symmetry_tolerance * largest;
    for (const Part& part : in_row_parts<Part>(a.rows, [&](index_t begin, index_t end, Part&part) {
           for (index_t i = begin; ok && part.good && i < end; ++i) {
             for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
               if (a.col_idx[k] == i ? !(a.values[k] > 0.0)
                                     : std::abs(a.values[k] - a.values[mirror[k]]) > tolerance) {
                 part.good = false;
                 break;
               }
             }
           }
         })) {
      ok = ok && part.good;
    }
  }
  // The full check names the problem (and its row) exactly as at set-up.
  if (!ok) check_spd_candidate(a, symmetry_tolerance, numbering);
}

}  // namespace prism
