#pragma once
// The matrices the set-up kernels (kernels/setup_checks.hpp, kernels/parallel_coloring.hpp)
// are tested on: awkward sizes and shapes for the coloring, and planted defects for the
// checks (each breaking one rule, besides a few that pass).

#include <prism/csr_matrix.hpp>
#include <prism/generators.hpp>

#include "common/test_matrices.hpp"

#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace prism::test {

struct NamedMatrix {
  std::string name;
  CsrMatrix<double> a;
};

/// A clique of `size` rows (size colors needed: first fit past one 64-color window) with a
/// path of 40 rows hanging off row 0, and a row without any entry.
inline CsrMatrix<double> clique_path_and_empty_row(index_t size) {
  std::vector<Triplet> t;
  const index_t n = size + 40 + 1;
  for (index_t i = 0; i < n - 1; ++i) t.push_back({i, i, 4.0 * size});
  for (index_t i = 0; i < size; ++i) {
    for (index_t j = i + 1; j < size; ++j) couple(t, i, j, -1.0);
  }
  couple(t, 0, size, -1.0);
  for (index_t i = size; i + 1 < size + 40; ++i) couple(t, i, i + 1, -1.0);
  return csr_from_triplets(n, n, std::move(t));  // row n - 1 stays empty
}

/// Graphs of awkward sizes: one row, one color, more than 64 colors, an empty row, grids
/// not a multiple of 32, irregular and hub-heavy patterns.
inline std::vector<NamedMatrix> coloring_cases() {
  return {{"one row", diagonal_only(1)},
          {"diagonal 33", diagonal_only(33)},
          {"clique 70 + path + empty row", clique_path_and_empty_row(70)},
          {"poisson2d 31x33", poisson2d(31, 33)},
          {"poisson3d 13x9x7", poisson3d(13, 9, 7)},
          {"poisson3d 27-point 10^3", poisson3d(10, 10, 10, 27)},
          {"random 1000", random_symmetric(1000, 3000, 7)},
          {"random 4099", random_symmetric(4099, 40000, 11)},
          {"grid and hubs", grid_and_hubs()},
          {"grid and clique", grid_and_clique()}};
}

/// A valid matrix, then copies of it with one defect each (the storage sizes stay
/// consistent: row_ptr has rows + 1 entries from 0 to the entries).
inline std::vector<NamedMatrix> defect_cases() {
  const CsrMatrix<double> good = random_symmetric(97, 300, 5);
  std::vector<NamedMatrix> cases{{"valid", good}, {"valid grid", poisson2d(33, 3)}};
  auto with = [&](std::string name, auto change) {
    CsrMatrix<double> a = good;
    change(a);
    cases.push_back({std::move(name), std::move(a)});
  };
  // Row 10's first two entries (an off-diagonal one among them) and their positions.
  const index_t k = good.row_ptr[10];
  with("unsorted columns",
       [&](CsrMatrix<double>& a) { std::swap(a.col_idx[k], a.col_idx[k + 1]); });
  with("duplicate column", [&](CsrMatrix<double>& a) { a.col_idx[k + 1] = a.col_idx[k]; });
  with("column out of range", [&](CsrMatrix<double>& a) { a.col_idx.back() = a.cols; });
  with("negative column", [&](CsrMatrix<double>& a) { a.col_idx[k] = -1; });
  with("row pointers decrease",
       [&](CsrMatrix<double>& a) { std::swap(a.row_ptr[20], a.row_ptr[21]); });
  with("row pointer past the entries", [&](CsrMatrix<double>& a) { a.row_ptr[50] = a.nnz() + 3; });
  with("entry without mirror", [&](CsrMatrix<double>& a) {
    // Row 0's last entry moves to column 96 (still sorted): its old column's row keeps
    // its entry (j, 0), which loses its mirror.
    a.col_idx[a.row_ptr[1] - 1] = 96;
  });
  with("missing diagonal", [&](CsrMatrix<double>& a) {
    a = csr_from_triplets(a.rows, a.cols, [&] {
      std::vector<Triplet> t;
      for (index_t i = 0; i < a.rows; ++i) {
        for (index_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
          if (!(i == 30 && a.col_idx[p] == 30)) t.push_back({i, a.col_idx[p], a.values[p]});
        }
      }
      return t;
    }());
  });
  with("non-finite value",
       [&](CsrMatrix<double>& a) { a.values[k] = std::numeric_limits<double>::quiet_NaN(); });
  with("infinite value",
       [&](CsrMatrix<double>& a) { a.values.back() = std::numeric_limits<double>::infinity(); });
  with("negative diagonal", [&](CsrMatrix<double>& a) {
    for (index_t p = a.row_ptr[40]; p < a.row_ptr[41]; ++p) {
      if (a.col_idx[p] == 40) a.values[p] = -1.0;
    }
  });
  with("zero diagonal", [&](CsrMatrix<double>& a) {
    for (index_t p = a.row_ptr[96]; p < a.row_ptr[97]; ++p) {
      if (a.col_idx[p] == 96) a.values[p] = 0.0;
    }
  });
  with("asymmetric values", [&](CsrMatrix<double>& a) {
    for (index_t p = a.row_ptr[60]; p < a.row_ptr[61]; ++p) {
      if (a.col_idx[p] != 60) {
        a.values[p] *= 1.001;
        break;
      }
    }
  });
  with("asymmetric within tolerance", [&](CsrMatrix<double>& a) {
    for (index_t p = a.row_ptr[60]; p < a.row_ptr[61]; ++p) {
      if (a.col_idx[p] != 60) {
        a.values[p] *= 1.0 + 1e-15;
        break;
      }
    }
  });
  return cases;
}

}  // namespace prism::test
