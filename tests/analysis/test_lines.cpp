// Lines of strong couplings found from the matrix: the grid lines of the strong axis of
// anisotropic problems, layered and stretched grids, a strong direction off the grid
// axes; none on isotropic Laplacians; the same lines under any numbering; valid
// permutations whose lines are tridiagonal blocks; the report on a hand-made case; cycles,
// cuts at max_length, degenerate sizes and bad options.

#include <prism/analysis.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/lines.hpp>

#include <gtest/gtest.h>

#include "common/host_threads.hpp"
#include "common/test_matrices.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace prism {
namespace {

using LineSet = std::vector<std::vector<index_t>>;

/// The lines as rows of the matrix they were found on, mapped through `to_original`
/// (identity when empty), each read from its smaller end, sorted: comparable across
/// numberings.
LineSet line_set(const Lines& l, const std::vector<index_t>& to_original = {}) {
  LineSet out;
  for (index_t b = 0; b < l.lines.count(); ++b) {
    std::vector<index_t> line;
    for (index_t t = l.lines.ptr[b]; t < l.lines.ptr[b + 1]; ++t) {
      const index_t row = l.permutation[t];
      line.push_back(to_original.empty() ? row : to_original[row]);
    }
    if (line.back() < line.front()) std::reverse(line.begin(), line.end());
    out.push_back(line);
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// The grid lines along `axis` of an nx x ny x nz grid numbered x fastest.
LineSet grid_lines(index_t nx, index_t ny, index_t nz, int axis) {
  const index_t n[3] = {nx, ny, nz}, stride[3] = {1, nx, nx * ny};
  const int u = (axis + 1) % 3, v = (axis + 2) % 3;
  LineSet out;
  for (index_t i = 0; i < n[u]; ++i) {
    for (index_t j = 0; j < n[v]; ++j) {
      std::vector<index_t> line;
      for (index_t k = 0; k < n[axis]; ++k)
        line.push_back(i * stride[u] + j * stride[v] + k * stride[axis]);
      out.push_back(line);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// A valid result: a bijection, lines that partition the rows, consecutive rows of a
/// line coupled both ways in the new order, and with `strict` nothing else inside a
/// line's diagonal block (so it is tridiagonal).
void expect_valid(const CsrMatrix<double>& a, const Lines& l, bool strict) {
  ASSERT_EQ(l.permutation.size(), static_cast<std::size_t>(a.rows));
  std::vector<index_t> sorted = l.permutation;
  std::sort(sorted.begin(), sorted.end());
  for (index_t i = 0; i < a.rows; ++i) ASSERT_EQ(sorted[i], i);
  ASSERT_EQ(l.lines.ptr.front(), 0);
  ASSERT_EQ(l.lines.rows(), a.rows);
  const CsrMatrix<double> p = permute_symmetric(a, l.permutation);
  const std::vector<index_t> of = l.lines.block_of();
  const auto entry = [&](index_t i, index_t j) {
    for (index_t k = p.row_ptr[i]; k < p.row_ptr[i + 1]; ++k) {
      if (p.col_idx[k] == j) return p.values[k];
    }
    return 0.0;
  };
  for (index_t b = 0; b < l.lines.count(); ++b) {
    ASSERT_LT(l.lines.ptr[b], l.lines.ptr[b + 1]);
    for (index_t i = l.lines.ptr[b]; i + 1 < l.lines.ptr[b + 1]; ++i) {
      EXPECT_NE(entry(i, i + 1), 0.0) << "line " << b << ", row " << i;
      EXPECT_NE(entry(i + 1, i), 0.0) << "line " << b << ", row " << i;
    }
  }
  if (!strict) return;
  for (index_t i = 0; i < p.rows; ++i) {
    for (index_t k = p.row_ptr[i]; k < p.row_ptr[i + 1]; ++k) {
      const index_t j = p.col_idx[k];
      if (of[j] == of[i]) {
        EXPECT_LE(std::abs(j - i), 1) << "entry " << i << ", " << j;
      }
    }
  }
  EXPECT_NEAR(line_weight(p, l.lines), l.report.inside_weight, 1e-14);
}

/// A random permutation, reproducible from the seed.
std::vector<index_t> shuffled(index_t n, unsigned seed) {
  std::vector<index_t> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  std::shuffle(p.begin(), p.end(), std::mt19937(seed));
  return p;
}

/// The same lines (as rows, in chain order up to reversal) under three random
/// symmetric permutations of A.
void expect_numbering_independent(const CsrMatrix<double>& a, const LineOptions& o = {}) {
  const LineSet expected = line_set(find_lines(a, o));
  for (const unsigned seed : {1u, 2u, 3u}) {
    SCOPED_TRACE(seed);
    const std::vector<index_t> perm = shuffled(a.rows, seed);
    const CsrMatrix<double> b = permute_symmetric(a, perm);
    const Lines l = find_lines(b, o);
    expect_valid(b, l, false);
    EXPECT_EQ(line_set(l, perm), expected);
  }
}

/// Share of the off-diagonal |A| of anisotropic3d on the faces of one axis.
double axis_share(index_t nx, index_t ny, index_t nz, const double c[3], int axis) {
  const double n[3] = {double(nx), double(ny), double(nz)};
  double total = 0.0, mine = 0.0;
  for (int d = 0; d < 3; ++d) {
    const double faces = 2.0 * (n[d] - 1) * n[(d + 1) % 3] * n[(d + 2) % 3] * c[d];
    total += faces;
    if (d == axis) mine = faces;
  }
  return mine / total;
}

// Strong x and strong z, at ratios 1e-2 and 1e-6: the grid lines of the strong axis,
// all the strong couplings inside them, the structure tridiagonal.
TEST(FindLines, RecoversTheStrongAxisOfAnisotropic3d) {
  const index_t nx = 7, ny = 5, nz = 6;
  for (const double ratio : {1e-2, 1e-6}) {
    for (const int axis : {0, 2}) {
      SCOPED_TRACE(testing::Message() << "ratio " << ratio << ", axis " << axis);
      double c[3] = {ratio, ratio, ratio};
      c[axis] = 1.0;
      const CsrMatrix<double> a = anisotropic3d(nx, ny, nz, c[0], c[1], c[2]);
      const Lines l = find_lines(a);
      expect_valid(a, l, true);
      EXPECT_EQ(line_set(l), grid_lines(nx, ny, nz, axis));
      const index_t length = axis == 0 ? nx : nz;
      EXPECT_EQ(l.report.lengths.count, a.rows / length);
      EXPECT_EQ(l.report.lengths.min_size, length);
      EXPECT_EQ(l.report.lengths.max_size, length);
      EXPECT_EQ(l.report.linked_rows, a.rows);
      EXPECT_NEAR(l.report.inside_weight, axis_share(nx, ny, nz, c, axis), 1e-12);
    }
  }
}

// Isotropic Laplacians: every row has at least three equal couplings, so none dominates
// and every line is a single row. Two equally strong axes (planes) likewise. A 1D grid is
// one line.
TEST(FindLines, IsotropicLaplaciansHaveLinesOfOne) {
  for (const CsrMatrix<double>& a : {poisson3d(6, 5, 4), poisson3d(4, 4, 4, 27), poisson2d(7, 6),
                                     anisotropic3d(6, 5, 4, 1.0, 1.0, 1e-3)}) {
    const Lines l = find_lines(a);
    expect_valid(a, l, true);
    EXPECT_EQ(l.report.lengths.count, a.rows);
    EXPECT_EQ(l.report.lengths.max_size, 1);
    EXPECT_EQ(l.report.linked_rows, 0);
    EXPECT_EQ(l.report.inside_weight, 0.0);
    std::vector<index_t> identity(static_cast<std::size_t>(a.rows));
    std::iota(identity.begin(), identity.end(), 0);
    EXPECT_EQ(l.permutation, identity);
  }
  const Lines one_d = find_lines(poisson3d(9, 1, 1));
  EXPECT_EQ(one_d.report.lengths.count, 1);
  EXPECT_DOUBLE_EQ(one_d.report.inside_weight, 1.0);
}

// Layers one cell thick with contrast 1e6: in 2D the couplings along the layers dominate
// in every row (across a layer the normalised coupling is ~1e-3), so the lines are the
// x grid lines; in 3D the layers are planes with two equal axes, so there are none.
TEST(FindLines, LayeredGridsLineUpAlongTheLayers) {
  const CsrMatrix<double> a = layered(9, 8, 0, 8, {1.0, 1e6});
  const Lines l = find_lines(a);
  expect_valid(a, l, true);
  EXPECT_EQ(line_set(l), grid_lines(9, 8, 1, 0));
  EXPECT_GT(l.report.inside_weight, 0.99);
  const Lines planes = find_lines(layered(6, 5, 8, 8, {1.0, 1e6}));
  EXPECT_EQ(planes.report.linked_rows, 0);
}

/// Finite volumes for -div(grad u) on nx x ny x nz cells of width 1 in x and y and
/// height h_k = h0 growth^k in z (a boundary layer at z = 0; cell aspect ratio 1 / h0
/// at the wall), Dirichlet boundaries.
CsrMatrix<double> stretched3d(index_t nx, index_t ny, index_t nz, double h0, double growth) {
  std::vector<double> h(static_cast<std::size_t>(nz));
  for (index_t k = 0; k < nz; ++k) h[k] = h0 * std::pow(growth, k);
  std::vector<Triplet> t;
  const auto id = [&](index_t x, index_t y, index_t z) { return x + nx * (y + ny * z); };
  for (index_t z = 0; z < nz; ++z) {
    for (index_t y = 0; y < ny; ++y) {
      for (index_t x = 0; x < nx; ++x) {
        const index_t i = id(x, y, z);
        double diag = 0.0;
        const auto face = [&](bool inside, index_t j, double c) {
          diag += c;
          if (inside) t.push_back({i, j, -c});
        };
        face(x > 0, x > 0 ? id(x - 1, y, z) : 0, h[z]);
        face(x + 1 < nx, x + 1 < nx ? id(x + 1, y, z) : 0, h[z]);
        face(y > 0, y > 0 ? id(x, y - 1, z) : 0, h[z]);
        face(y + 1 < ny, y + 1 < ny ? id(x, y + 1, z) : 0, h[z]);
        face(z > 0, z > 0 ? id(x, y, z - 1) : 0, z > 0 ? 2.0 / (h[z - 1] + h[z]) : 1.0 / h[z]);
        face(z + 1 < nz, z + 1 < nz ? id(x, y, z + 1) : 0,
             z + 1 < nz ? 2.0 / (h[z] + h[z + 1]) : 1.0 / h[z]);
        t.push_back({i, i, diag});
      }
    }
  }
  return csr_from_triplets(nx * ny * nz, nx * ny * nz, std::move(t));
}

// A boundary layer: cells 1000 times flatter at the wall, growing by 1.5 per layer. Every
// column of cells has one line from the wall up along z, in z order, as far as the cells
// stay flat enough for the z couplings to dominate (16 cells at the defaults, up to
// h = 0.44; asserted: at least the 10 with aspect ratio >= 26); the cells with h >= 1 at
// the top, coupled as strongly in x as in y, are lines of their own.
TEST(FindLines, StretchedGridLinesRunFromTheWall) {
  const index_t nx = 4, ny = 3, nz = 20;
  const CsrMatrix<double> a = stretched3d(nx, ny, nz, 1e-3, 1.5);
  const Lines l = find_lines(a);
  expect_valid(a, l, true);
  for (const std::vector<index_t>& line : line_set(l)) {
    const index_t z0 = line.front() / (nx * ny);
    for (std::size_t t = 0; t < line.size(); ++t) {
      EXPECT_EQ(line[t], line.front() + static_cast<index_t>(t) * nx * ny);  // a z column
    }
    if (z0 == 0) {
      EXPECT_GE(line.size(), 10u);
    } else {
      EXPECT_GE(z0, 10);
    }
    if (z0 >= 18) {
      EXPECT_EQ(line.size(), 1u);
    }
  }
  expect_numbering_independent(a);
}

// A strong direction along the grid's diagonal (9-point stencil, the x = y neighbours
// coupled 100 times more strongly): the lines are the diagonals of the grid.
TEST(FindLines, FollowsAStrongDirectionOffTheGridAxes) {
  const index_t n = 6;
  std::vector<Triplet> t;
  for (index_t y = 0; y < n; ++y) {
    for (index_t x = 0; x < n; ++x) {
      double diag = 0.1;
      for (index_t dy = -1; dy <= 1; ++dy) {
        for (index_t dx = -1; dx <= 1; ++dx) {
          if ((dx == 0 && dy == 0) || x + dx < 0 || x + dx >= n || y + dy < 0 || y + dy >= n) {
            continue;
          }
          const double c = dx == dy ? 1.0 : 0.01;
          t.push_back({x + n * y, x + dx + n * (y + dy), -c});
          diag += c;
        }
      }
      t.push_back({x + n * y, x + n * y, diag});
    }
  }
  const CsrMatrix<double> a = csr_from_triplets(n * n, n * n, std::move(t));
  const Lines l = find_lines(a);
  expect_valid(a, l, true);
  LineSet diagonals;
  for (index_t d = -(n - 1); d < n; ++d) {
    std::vector<index_t> line;
    for (index_t x = std::max<index_t>(0, d); x < n && x - d < n; ++x)
      line.push_back(x + n * (x - d));
    diagonals.push_back(line);
  }
  std::sort(diagonals.begin(), diagonals.end());
  EXPECT_EQ(line_set(l), diagonals);
  expect_numbering_independent(a);
}

// rotated3d, anisotropic diffusion strong along a diagonal of the x-y plane: its lines are
// the grid's diagonals along that direction in every z plane (2 nx - 1 of them a plane on a
// square grid), whichever of the two diagonals is the strong one.
TEST(FindLines, FollowsTheDiagonalsOfRotated3d) {
  const index_t n = 7, nz = 3;
  for (const bool up_right : {true, false}) {
    SCOPED_TRACE(up_right ? "along (1, 1)" : "along (1, -1)");
    const CsrMatrix<double> a =
        up_right ? rotated3d(n, n, nz, 1.0, 1e-3, 1e-3) : rotated3d(n, n, nz, 1e-3, 1.0, 1e-3);
    const Lines l = find_lines(a);
    expect_valid(a, l, true);
    LineSet diagonals;
    for (index_t z = 0; z < nz; ++z) {
      for (index_t d = -(n - 1); d < n; ++d) {  // x - y = d, or x + y = d + n - 1
        std::vector<index_t> line;
        for (index_t y = 0; y < n; ++y) {
          const index_t x = up_right ? y + d : d + n - 1 - y;
          if (x >= 0 && x < n) line.push_back(x + n * y + n * n * z);
        }
        if (line.back() < line.front()) std::reverse(line.begin(), line.end());
        diagonals.push_back(line);
      }
    }
    std::sort(diagonals.begin(), diagonals.end());
    EXPECT_EQ(line_set(l), diagonals);
    EXPECT_EQ(l.report.lengths.max_size, n);
    EXPECT_GT(l.report.inside_weight, 0.95);
    expect_numbering_independent(a);
  }
}

// The same lines under random symmetric permutations: anisotropic grids, the layered
// grid, and random band matrices with random weights (chains of every shape), with
// permissive thresholds and cut at a small max_length.
TEST(FindLines, DoesNotDependOnTheNumbering) {
  expect_numbering_independent(anisotropic3d(7, 5, 6, 1.0, 1e-2, 1e-2));
  expect_numbering_independent(anisotropic3d(5, 4, 9, 1e-6, 1e-6, 1.0));
  expect_numbering_independent(layered(9, 8, 0, 8, {1.0, 1e6}));
  const CsrMatrix<double> r = test::random_band(300, 2, 1.0, 5);
  LineOptions permissive;
  permissive.dominance = 1.5;
  permissive.min_strength = 0.0;
  EXPECT_GT(find_lines(r, permissive).report.linked_rows, 150);
  EXPECT_GT(find_lines(r, permissive).report.lengths.max_size, 6);
  expect_numbering_independent(r, permissive);
  permissive.max_length = 3;
  expect_numbering_independent(r, permissive);
  expect_numbering_independent(r);
}

// Rows 0, 2, 4 form a chain (|a| = 1 against a diagonal of 4: strength 0.25); rows 1
// and 5 hang on its ends by 0.1 (strength 0.025, below min_strength); row 3 is alone.
TEST(FindLines, ReportsOnAHandMadeCase) {
  std::vector<Triplet> t;
  const auto couple = [&](index_t i, index_t j, double v) {
    t.push_back({i, j, v});
    t.push_back({j, i, v});
  };
  for (index_t i = 0; i < 6; ++i) t.push_back({i, i, 4.0});
  couple(0, 2, -1.0);
  couple(2, 4, -1.0);
  couple(0, 1, -0.1);
  couple(4, 5, -0.1);
  const CsrMatrix<double> a = csr_from_triplets(6, 6, t);
  const Lines l = find_lines(a);
  EXPECT_EQ(l.permutation, (std::vector<index_t>{0, 2, 4, 1, 3, 5}));
  EXPECT_EQ(l.lines.ptr, (std::vector<index_t>{0, 3, 4, 5, 6}));
  EXPECT_EQ(l.report.lengths.count, 4);
  EXPECT_EQ(l.report.lengths.min_size, 1);
  EXPECT_EQ(l.report.lengths.max_size, 3);
  EXPECT_DOUBLE_EQ(l.report.lengths.mean_size, 1.5);
  EXPECT_EQ(l.report.linked_rows, 3);
  EXPECT_NEAR(l.report.inside_weight, 4.0 / 4.4, 1e-15);
  expect_valid(a, l, true);
  // Without the floor the weak ends dominate nothing and join: 1-0-2-4-5.
  LineOptions no_floor;
  no_floor.min_strength = 0.0;
  const Lines all = find_lines(a, no_floor);
  EXPECT_EQ(all.permutation, (std::vector<index_t>{1, 0, 2, 4, 5, 3}));
  EXPECT_NEAR(all.report.inside_weight, 1.0, 1e-15);
}

/// A ring of n rows, coupling weights w[i] between i and i + 1 (mod n), diagonal 2.5.
CsrMatrix<double> ring(const std::vector<double>& w) {
  const auto n = static_cast<index_t>(w.size());
  std::vector<Triplet> t;
  for (index_t i = 0; i < n; ++i) {
    t.push_back({i, i, 2.5});
    t.push_back({i, (i + 1) % n, -w[i]});
    t.push_back({(i + 1) % n, i, -w[i]});
  }
  return csr_from_triplets(n, n, std::move(t));
}

// A cycle of links is cut at its weakest link; under exact ties at the tied link with
// the smallest rows.
TEST(FindLines, CutsCyclesAtTheWeakestLink) {
  const CsrMatrix<double> a = ring({1.0, 1.0, 1.0, 0.8, 1.0, 1.0, 1.0});
  const Lines l = find_lines(a);
  EXPECT_EQ(l.permutation, (std::vector<index_t>{3, 2, 1, 0, 6, 5, 4}));
  expect_numbering_independent(a);
  const Lines tied = find_lines(ring(std::vector<double>(7, 1.0)));
  EXPECT_EQ(tied.permutation, (std::vector<index_t>{0, 6, 5, 4, 3, 2, 1}));
}

// A chain longer than max_length is cut into nearly equal pieces, placed symmetrically
// (10 rows, at most 4: 3 + 4 + 3), so the cut does not depend on the numbering.
TEST(FindLines, CutsLongChainsIntoPieces) {
  const CsrMatrix<double> a = anisotropic3d(10, 3, 2, 1.0, 1e-2, 1e-2);
  LineOptions o;
  o.max_length = 4;
  const Lines l = find_lines(a, o);
  expect_valid(a, l, true);
  EXPECT_EQ(l.report.lengths.count, 3 * 6);
  EXPECT_EQ(l.report.lengths.min_size, 3);
  EXPECT_EQ(l.report.lengths.max_size, 4);
  EXPECT_EQ(line_set(l)[0], (std::vector<index_t>{0, 1, 2}));
  expect_numbering_independent(a, o);
  o.max_length = 1;
  EXPECT_EQ(find_lines(a, o).report.linked_rows, 0);
}

TEST(FindLines, DegenerateSizes) {
  const Lines diag = find_lines(test::diagonal_only(5));
  EXPECT_EQ(diag.report.lengths.count, 5);
  EXPECT_EQ(diag.report.inside_weight, 0.0);
  EXPECT_EQ(diag.permutation, (std::vector<index_t>{0, 1, 2, 3, 4}));
  const Lines one = find_lines(test::diagonal_only(1));
  EXPECT_EQ(one.lines.ptr, (std::vector<index_t>{0, 1}));
  EXPECT_EQ(one.permutation, (std::vector<index_t>{0}));
  const Lines none = find_lines(CsrMatrix<double>{});
  EXPECT_EQ(none.lines.count(), 0);
  EXPECT_TRUE(none.permutation.empty());
  EXPECT_EQ(none.report.lengths.count, 0);
}

/// A with a_ii replaced by `value` for each row i in `rows`.
CsrMatrix<double> with_diagonal(CsrMatrix<double> a, const std::vector<index_t>& rows,
                                double value) {
  for (const index_t i : rows) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      if (a.col_idx[k] == i) a.values[k] = value;
    }
  }
  return a;
}

TEST(FindLines, ThreadedMatchesOneThread) {
  // Over 4 parts of common::kRowsPerPart rows: rows that choose links and rows that do not
  // (stretched grid), and lines along a diagonal of the grid (rotated).
  const CsrMatrix<double> stretched = prism::stretched3d(42, 42, 40, 200.0);  // 70560 rows
  const CsrMatrix<double> rotated = rotated3d(60, 60, 20, 30.0, 1.0, 1.0);    // 72000 rows
  for (const CsrMatrix<double>* a : {&stretched, &rotated}) {
    index_t choosing_alone = 0;
    Lines alone;
    {
      const test::ScopedHostThreads one(1);
      choosing_alone = rows_choosing_links(*a);
      alone = find_lines(*a);
    }
    ASSERT_GT(choosing_alone, 0);
    ASSERT_LT(choosing_alone, a->rows);
    for (const int threads : {2, 4}) {
      const test::ScopedHostThreads scoped(threads);
      EXPECT_EQ(rows_choosing_links(*a), choosing_alone) << threads << " threads";
      const Lines lines = find_lines(*a);
      EXPECT_EQ(lines.permutation, alone.permutation) << threads << " threads";
      EXPECT_EQ(lines.lines.ptr, alone.lines.ptr) << threads << " threads";
      EXPECT_EQ(lines.report.linked_rows, alone.report.linked_rows);
      EXPECT_EQ(lines.report.inside_weight, alone.report.inside_weight);  // bit for bit
    }
  }
}

// Chains whose two ends lie in different parts of common::kRowsPerPart rows (z lines of
// 1600-row stride, cut by max_length 7 into pieces of 7 and 6), and one cycle through every
// part: the grid lines, the same with any threads, field by field.
TEST(FindLines, ChainsAndCyclesAcrossPartsWithAnyThreads) {
  const index_t nx = 40, ny = 40, nz = 48;  // 76800 rows
  const CsrMatrix<double> a = anisotropic3d(nx, ny, nz, 1e-3, 1e-3, 1.0);
  CsrMatrix<double> cycle = poisson2d(70000, 1);  // a chain, closed below into a ring
  {
    std::vector<Triplet> t;
    for (index_t i = 0; i < cycle.rows; ++i) {
      for (index_t k = cycle.row_ptr[i]; k < cycle.row_ptr[i + 1]; ++k) {
        const index_t j = cycle.col_idx[k];
        t.push_back({i, j, cycle.values[k] * (i == j ? 1.0 : 1.0 + 1e-3 * (std::min(i, j) % 5))});
      }
    }
    t.push_back({0, cycle.rows - 1, -1.0});
    t.push_back({cycle.rows - 1, 0, -1.0});
    cycle = csr_from_triplets(cycle.rows, cycle.rows, std::move(t));
  }
  LineOptions cut;
  cut.max_length = 7;
  for (const CsrMatrix<double>* m : {&a, static_cast<const CsrMatrix<double>*>(&cycle)}) {
    for (const LineOptions& o : {LineOptions{}, cut}) {
      Lines alone;
      {
        const test::ScopedHostThreads one(1);
        alone = find_lines(*m, o);
      }
      expect_valid(*m, alone, false);
      EXPECT_GT(alone.report.linked_rows, m->rows / 2);
      if (m == &a && o.max_length == LineOptions{}.max_length) {
        EXPECT_EQ(line_set(alone), grid_lines(nx, ny, nz, 2));
      }
      for (const int threads : {2, 4}) {
        const test::ScopedHostThreads scoped(threads);
        const Lines lines = find_lines(*m, o);
        EXPECT_EQ(lines.permutation, alone.permutation) << threads << " threads";
        EXPECT_EQ(lines.lines.ptr, alone.lines.ptr) << threads << " threads";
        EXPECT_EQ(lines.report.linked_rows, alone.report.linked_rows);
        EXPECT_EQ(lines.report.lengths.mean_size, alone.report.lengths.mean_size);
        EXPECT_EQ(lines.report.inside_weight, alone.report.inside_weight);  // bit for bit
      }
    }
  }
}

TEST(FindLines, NamesTheFirstBadDiagonalWithAnyThreads) {
  const CsrMatrix<double> a = poisson2d(300, 240);  // 72000 rows: 4 parts
  const index_t last = a.rows - 1, middle = a.rows / 2;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const std::vector<std::pair<std::vector<index_t>, double>> cases = {
      {{0}, 0.0},
      {{last}, -1.0},
      {{middle}, nan},
      {{middle - 1}, inf},
      {{last, middle + 7}, 0.0},
      {{last, 3 * a.rows / 4, 1}, -2.0}};
  for (const int threads : {1, 2, 4}) {
    const test::ScopedHostThreads scoped(threads);
    for (const auto& [rows, value] : cases) {
      const CsrMatrix<double> bad = with_diagonal(a, rows, value);
      const index_t first = *std::min_element(rows.begin(), rows.end());
      const std::string expected = "find_lines: row " + std::to_string(first) + " has diagonal " +
                                   std::to_string(value) + "; lines need a positive diagonal";
      for (const bool count_only : {false, true}) {
        try {
          if (count_only) {
            rows_choosing_links(bad);
          } else {
            find_lines(bad);
          }
          ADD_FAILURE() << "no error for row " << first << ", " << threads << " threads";
        } catch (const InvalidMatrixError& e) {
          EXPECT_EQ(std::string(e.what()), expected) << threads << " threads";
        }
      }
    }
  }
}

TEST(FindLines, RejectsBadOptionsAndMatrices) {
  const CsrMatrix<double> a = poisson2d(3, 3);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (const double d : {1.0, 0.5, -2.0, nan, inf}) {
    LineOptions o;
    o.dominance = d;
    EXPECT_THROW(find_lines(a, o), ConfigError) << d;
  }
  for (const double s : {-0.1, 1.0, 2.0, nan}) {
    LineOptions o;
    o.min_strength = s;
    EXPECT_THROW(find_lines(a, o), ConfigError) << s;
  }
  LineOptions o;
  o.max_length = 0;
  EXPECT_THROW(find_lines(a, o), ConfigError);
  EXPECT_THROW(find_lines(csr_from_triplets(2, 3, {{0, 0, 1.0}, {1, 1, 1.0}})), InvalidMatrixError);
  EXPECT_THROW(find_lines(csr_from_triplets(2, 2, {{0, 0, 1.0}, {0, 1, -1.0}, {1, 0, -1.0}})),
               InvalidMatrixError);  // row 1 has no diagonal
  EXPECT_THROW(find_lines(csr_from_triplets(2, 2, {{0, 0, 1.0}, {1, 1, -1.0}})),
               InvalidMatrixError);
  EXPECT_THROW(line_weight(a, uniform_blocks(8, 2)), InvalidMatrixError);
}

}  // namespace
}  // namespace prism
