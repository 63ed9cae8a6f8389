#pragma once
// The awkward cases of the BSR tests (reference and CUDA): block sizes 1 to 9, rows and
// columns not multiples of b, empty block rows, blocks with missing entries, a rectangular
// random pattern, one row, no rows.

#include <prism/csr_matrix.hpp>
#include <prism/generators.hpp>

#include "kernels/bsr.hpp"

#include <random>
#include <string>
#include <vector>

namespace prism::test {

struct BsrCase {
  std::string name;
  CsrMatrix<double> a;
  int block_size = 1;
};

inline kernels::CsrView<double> csr_view(const CsrMatrix<double>& a) {
  return {a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(), a.values.data()};
}

/// A rows x cols random pattern (each entry present with probability `density`), values
/// in (-1, 1), and the rows in [empty_begin, empty_end) left empty.
inline CsrMatrix<double> random_pattern(index_t rows, index_t cols, double density,
                                        index_t empty_begin, index_t empty_end, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::bernoulli_distribution keep(density);
  std::vector<Triplet> t;
  for (index_t i = 0; i < rows; ++i) {
    if (i >= empty_begin && i < empty_end) continue;
    for (index_t j = 0; j < cols; ++j) {
      if (keep(gen)) t.push_back({i, j, u(gen)});
    }
  }
  return csr_from_triplets(rows, cols, std::move(t));
}

inline std::vector<BsrCase> bsr_cases() {
  const CsrMatrix<double> grid = poisson2d(7, 5);  // 35 rows: 2x2 .. 7x7 blocks half filled
  const CsrMatrix<double> elastic = elasticity3d(2, 2, 2, 1, {1.0});  // 54 rows, 3x3 nodes
  // 53 x 47, rows 12..29 empty: empty block rows for every b up to 9.
  const CsrMatrix<double> random = random_pattern(53, 47, 0.15, 12, 30, 5);
  std::vector<BsrCase> cases;
  for (int b : {1, 2, 3, 6, 7}) cases.push_back({"poisson2d 7x5", grid, b});
  for (int b : {3, 6, 2}) cases.push_back({"elasticity3d 2x2x2", elastic, b});
  for (int b = 1; b <= 9; ++b) cases.push_back({"random 53x47", random, b});
  cases.push_back({"one row", poisson2d(1, 1), 3});
  cases.push_back({"no rows", CsrMatrix<double>{}, 2});
  return cases;
}

}  // namespace prism::test
