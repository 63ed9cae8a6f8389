// Model problem generators: exact stencils on tiny grids, CSR invariants, symmetry,
// row sums, nonzero counts, positive definiteness (Eigen LLT), the harmonic mean at a
// layer interface, the elasticity matrix's rigid translations, and argument checking.

#include <prism/errors.hpp>
#include <prism/generators.hpp>

#include <gtest/gtest.h>
#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;

Eigen::MatrixXd dense(const CsrMatrix<double>& a) {
  Eigen::MatrixXd d = Eigen::MatrixXd::Zero(a.rows, a.cols);
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) d(i, a.col_idx[k]) += a.values[k];
  }
  return d;
}

/// row_ptr well formed, columns in range, sorted and unique in every row.
void expect_valid_csr(const CsrMatrix<double>& a) {
  ASSERT_EQ(a.row_ptr.size(), static_cast<std::size_t>(a.rows) + 1);
  EXPECT_EQ(a.row_ptr.front(), 0);
  EXPECT_EQ(a.row_ptr.back(), a.nnz());
  EXPECT_EQ(a.values.size(), a.col_idx.size());
  for (index_t i = 0; i < a.rows; ++i) {
    ASSERT_LE(a.row_ptr[i], a.row_ptr[i + 1]);
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      ASSERT_GE(a.col_idx[k], 0);
      ASSERT_LT(a.col_idx[k], a.cols);
      if (k > a.row_ptr[i]) ASSERT_LT(a.col_idx[k - 1], a.col_idx[k]) << "row " << i;
    }
  }
}

/// Exactly symmetric and positive definite.
void expect_spd(const CsrMatrix<double>& a) {
  const Eigen::MatrixXd d = dense(a);
  EXPECT_EQ(d, d.transpose());
  Eigen::LLT<Eigen::MatrixXd> llt(d);
  EXPECT_EQ(llt.info(), Eigen::Success);
}

std::vector<double> row_sums(const CsrMatrix<double>& a) {
  std::vector<double> s(a.rows, 0.0);
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) s[i] += a.values[k];
  }
  return s;
}

TEST(Generators, Poisson2dStencilOn3x3) {
  const CsrMatrix<double> a = prism::poisson2d(3, 3);
  expect_valid_csr(a);
  ASSERT_EQ(a.rows, 9);
  Eigen::MatrixXd expected = Eigen::MatrixXd::Zero(9, 9);
  for (int y = 0; y < 3; ++y) {
    for (int x = 0; x < 3; ++x) {
      const int i = x + 3 * y;
      expected(i, i) = 4.0;
      if (x > 0) expected(i, i - 1) = -1.0;
      if (x < 2) expected(i, i + 1) = -1.0;
      if (y > 0) expected(i, i - 3) = -1.0;
      if (y < 2) expected(i, i + 3) = -1.0;
    }
  }
  EXPECT_EQ(dense(a), expected);
  // The centre row, entry by entry, in CSR order.
  const index_t c = 4;
  const std::vector<index_t> cols(a.col_idx.begin() + a.row_ptr[c],
                                  a.col_idx.begin() + a.row_ptr[c + 1]);
  const std::vector<double> vals(a.values.begin() + a.row_ptr[c],
                                 a.values.begin() + a.row_ptr[c + 1]);
  EXPECT_EQ(cols, (std::vector<index_t>{1, 3, 4, 5, 7}));
  EXPECT_EQ(vals, (std::vector<double>{-1, -1, 4, -1, -1}));
}

TEST(Generators, SingleCellGrids) {
  EXPECT_EQ(dense(prism::poisson2d(1, 1)), Eigen::MatrixXd::Constant(1, 1, 4.0));
  EXPECT_EQ(dense(prism::poisson3d(1, 1, 1)), Eigen::MatrixXd::Constant(1, 1, 6.0));
  EXPECT_EQ(dense(prism::poisson3d(1, 1, 1, 27)), Eigen::MatrixXd::Constant(1, 1, 26.0));
}

TEST(Generators, Poisson3dSevenPointStencil) {
  const CsrMatrix<double> a = prism::poisson3d(3, 4, 5);
  expect_valid_csr(a);
  const Eigen::MatrixXd d = dense(a);
  const int nx = 3, ny = 4, nz = 5;
  for (int z = 0; z < nz; ++z) {
    for (int y = 0; y < ny; ++y) {
      for (int x = 0; x < nx; ++x) {
        const int i = x + nx * (y + ny * z);
        EXPECT_EQ(d(i, i), 6.0);
        if (x > 0) EXPECT_EQ(d(i, i - 1), -1.0);
        if (y > 0) EXPECT_EQ(d(i, i - nx), -1.0);
        if (z > 0) EXPECT_EQ(d(i, i - nx * ny), -1.0);
        const int neighbours =
            (x > 0) + (x < nx - 1) + (y > 0) + (y < ny - 1) + (z > 0) + (z < nz - 1);
        EXPECT_EQ(a.row_ptr[i + 1] - a.row_ptr[i], neighbours + 1);
      }
    }
  }
  expect_spd(a);
}

TEST(Generators, Poisson3dTwentySevenPointStencil) {
  const int nx = 4, ny = 3, nz = 3;
  const CsrMatrix<double> a = prism::poisson3d(nx, ny, nz, 27);
  expect_valid_csr(a);
  const Eigen::MatrixXd d = dense(a);
  for (int i = 0; i < a.rows; ++i) {
    const int x = i % nx, y = (i / nx) % ny, z = i / (nx * ny);
    for (int j = 0; j < a.rows; ++j) {
      const int xj = j % nx, yj = (j / nx) % ny, zj = j / (nx * ny);
      const bool touching = std::abs(x - xj) <= 1 && std::abs(y - yj) <= 1 && std::abs(z - zj) <= 1;
      const double expected = i == j ? 26.0 : touching ? -1.0 : 0.0;
      ASSERT_EQ(d(i, j), expected) << i << ", " << j;
    }
  }
  // The centre cell of a 3x3x3 block touches all 26 neighbours.
  const CsrMatrix<double> b = prism::poisson3d(3, 3, 3, 27);
  EXPECT_EQ(b.row_ptr[14] - b.row_ptr[13], 27);
  EXPECT_EQ(row_sums(b)[13], 0.0);
  expect_spd(a);
}

TEST(Generators, NonzeroCounts) {
  for (index_t nx : {1, 2, 5}) {
    for (index_t ny : {1, 3, 4}) {
      const std::int64_t n2 = nx * ny;
      EXPECT_EQ(prism::poisson2d(nx, ny).nnz(), 5 * n2 - 2 * nx - 2 * ny);
      for (index_t nz : {1, 2, 6}) {
        const std::int64_t n = nx * ny * nz;
        EXPECT_EQ(prism::poisson3d(nx, ny, nz).nnz(), 7 * n - 2 * (nx * ny + ny * nz + nx * nz));
        EXPECT_EQ(prism::poisson3d(nx, ny, nz, 27).nnz(),
                  (3 * nx - 2) * (3 * ny - 2) * (3 * nz - 2));
      }
    }
  }
}

TEST(Generators, RowSumsCountBoundaryFaces) {
  // A boundary face adds its coefficient to the diagonal and no off-diagonal entry, so
  // a row sums to the number of its boundary faces (interior rows sum to zero).
  const index_t nx = 5, ny = 4, nz = 3;
  const std::vector<double> s2 = row_sums(prism::poisson2d(nx, ny));
  const std::vector<double> s3 = row_sums(prism::poisson3d(nx, ny, nz));
  for (index_t y = 0; y < ny; ++y) {
    for (index_t x = 0; x < nx; ++x) {
      const int faces = (x == 0) + (x == nx - 1) + (y == 0) + (y == ny - 1);
      EXPECT_EQ(s2[x + nx * y], faces);
      for (index_t z = 0; z < nz; ++z) {
        EXPECT_EQ(s3[x + nx * (y + ny * z)], faces + (z == 0) + (z == nz - 1));
      }
    }
  }
}

TEST(Generators, AnisotropicScalesEachDirection) {
  const CsrMatrix<double> a = prism::anisotropic2d(3, 3, 2.0, 0.5);
  expect_valid_csr(a);
  const Eigen::MatrixXd d = dense(a);
  EXPECT_EQ(d(4, 4), 2 * 2.0 + 2 * 0.5);
  EXPECT_EQ(d(4, 3), -2.0);
  EXPECT_EQ(d(4, 5), -2.0);
  EXPECT_EQ(d(4, 1), -0.5);
  EXPECT_EQ(d(4, 7), -0.5);
  EXPECT_EQ(d(0, 0), 5.0);  // boundary faces keep the direction's coefficient
  expect_spd(a);

  const CsrMatrix<double> b = prism::anisotropic3d(3, 3, 3, 1.0, 10.0, 0.01);
  expect_valid_csr(b);
  const Eigen::MatrixXd e = dense(b);
  EXPECT_DOUBLE_EQ(e(13, 13), 2 * (1.0 + 10.0 + 0.01));
  EXPECT_EQ(e(13, 12), -1.0);
  EXPECT_EQ(e(13, 10), -10.0);
  EXPECT_EQ(e(13, 4), -0.01);
  expect_spd(b);

  EXPECT_EQ(dense(prism::anisotropic2d(4, 3, 1, 1)), dense(prism::poisson2d(4, 3)));
  EXPECT_EQ(dense(prism::anisotropic3d(2, 3, 4, 1, 1, 1)), dense(prism::poisson3d(2, 3, 4)));
}

TEST(Generators, LayeredUsesHarmonicMeanAtInterface) {
  // Two cells stacked in y: k = 1 below, k = 3 above; the face between them has
  // 2 * 1 * 3 / (1 + 3) = 1.5, boundary faces the cell's own k.
  const CsrMatrix<double> a = prism::layered(1, 2, 0, 2, {1.0, 3.0});
  expect_valid_csr(a);
  Eigen::MatrixXd expected(2, 2);
  expected << 1 + 1 + 1 + 1.5, -1.5, -1.5, 3 + 3 + 3 + 1.5;
  EXPECT_EQ(dense(a), expected);

  // 3D: planes 0-1 have k = 1, planes 2-3 k = 10; the z coupling across the interface
  // is the harmonic mean, within a layer the layer's k.
  const CsrMatrix<double> b = prism::layered(2, 2, 4, 2, {1.0, 10.0});
  expect_valid_csr(b);
  const Eigen::MatrixXd d = dense(b);
  const int plane = 4;
  EXPECT_EQ(d(0, plane), -1.0);
  EXPECT_DOUBLE_EQ(d(plane, 2 * plane), -2.0 * 10.0 / 11.0);
  EXPECT_EQ(d(2 * plane, 3 * plane), -10.0);
  EXPECT_EQ(d(2 * plane, 2 * plane + 1), -10.0);
  EXPECT_EQ(d(plane, plane + 1), -1.0);
  expect_spd(b);
}

TEST(Generators, LayeredCyclesCoefficientsOverEqualSlabs) {
  // 8 rows of cells, 4 slabs of 2 rows; coefficients cycle 1, 2, 1, 2.
  const CsrMatrix<double> a = prism::layered(1, 8, 0, 4, {1.0, 2.0});
  const Eigen::MatrixXd d = dense(a);
  const double k[8] = {1, 1, 2, 2, 1, 1, 2, 2};
  for (int i = 0; i + 1 < 8; ++i) {
    const double face = k[i] == k[i + 1] ? k[i] : 2 * k[i] * k[i + 1] / (k[i] + k[i + 1]);
    EXPECT_DOUBLE_EQ(d(i, i + 1), -face) << i;
  }
  expect_spd(a);
  expect_spd(prism::layered(3, 7, 5, 3, {1.0, 1e4, 1e-3}));
  // One coefficient is a scaled Poisson problem.
  EXPECT_EQ(dense(prism::layered(3, 4, 0, 2, {1.0})), dense(prism::poisson2d(3, 4)));
  EXPECT_EQ(dense(prism::layered(3, 4, 2, 2, {1.0})), dense(prism::poisson3d(3, 4, 2)));
}

TEST(Generators, SmallGridsArePositiveDefinite) {
  for (index_t n : {1, 2, 5}) {
    expect_spd(prism::poisson2d(n, n + 1));
    expect_spd(prism::poisson3d(n, n + 1, 2));
    expect_spd(prism::poisson3d(n, 2, n + 1, 27));
    expect_spd(prism::anisotropic2d(n, n + 2, 1.0, 1e-3));
    expect_spd(prism::anisotropic3d(n, 2, n, 1e2, 1.0, 1e-2));
  }
}

// Q1 elasticity: 3 unknowns a node, 9 entries per coupled node pair, sorted rows, exactly
// symmetric and positive definite (clamped at z = 0).
TEST(Generators, ElasticityIsSymmetricPositiveDefinite) {
  for (const auto& [nx, ny, nz] :
       {std::tuple<index_t, index_t, index_t>{1, 1, 1}, {2, 3, 2}, {3, 2, 4}, {1, 4, 3}}) {
    SCOPED_TRACE(testing::Message() << nx << " x " << ny << " x " << nz);
    const CsrMatrix<double> a = prism::elasticity3d(nx, ny, nz, 1, {1.0});
    expect_valid_csr(a);
    const index_t px = nx + 1, py = ny + 1;
    EXPECT_EQ(a.rows, 3 * px * py * nz);
    // Node pairs at most one apart along every axis: 3 L - 2 along an axis of L nodes.
    EXPECT_EQ(a.nnz(), 9 * (3 * px - 2) * (3 * py - 2) * (3 * nz - 2));
    expect_spd(a);
    for (index_t i = 0; i < a.rows; ++i) {
      bool has_diagonal = false;
      for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        if (a.col_idx[k] == i) has_diagonal = a.values[k] > 0;
      }
      EXPECT_TRUE(has_diagonal) << "row " << i;
    }
  }
  expect_spd(prism::elasticity3d(2, 2, 4, 4, {1.0, 1e4, 1e-3}));
}

// A rigid translation strains nothing: rows of nodes away from the clamped plane (k >= 2),
// restricted to one displacement component, sum to zero; the plane k = 1 feels the clamp.
TEST(Generators, ElasticityRowsAnnihilateRigidTranslations) {
  const index_t nx = 3, ny = 2, nz = 4;
  const CsrMatrix<double> a = prism::elasticity3d(nx, ny, nz, 2, {1.0, 50.0});
  const index_t per_plane = 3 * (nx + 1) * (ny + 1);
  for (index_t i = 0; i < a.rows; ++i) {
    for (int c = 0; c < 3; ++c) {
      double sum = 0, diagonal = 0;
      for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        if (a.col_idx[k] % 3 == c) sum += a.values[k];
        if (a.col_idx[k] == i) diagonal = a.values[k];
      }
      if (i >= per_plane) {
        EXPECT_NEAR(sum, 0.0, 1e-12 * diagonal) << "row " << i << ", component " << c;
      } else if (i % 3 == c) {
        EXPECT_GT(sum, 1e-3 * diagonal) << "row " << i;  // the clamp holds it
      }
    }
  }
}

// Young's modulus per slab of elements along z: one modulus scales the whole matrix, and
// slabs are equal (the remainder spread), coefficients cycled.
TEST(Generators, ElasticityScalesWithYoungsModulusPerLayer) {
  const CsrMatrix<double> one = prism::elasticity3d(2, 3, 4, 1, {1.0});
  const CsrMatrix<double> two = prism::elasticity3d(2, 3, 4, 3, {2.0});
  ASSERT_EQ(one.col_idx, two.col_idx);
  for (std::size_t k = 0; k < one.values.size(); ++k) EXPECT_EQ(two.values[k], 2 * one.values[k]);
  // 2 layers of 2 element planes: moduli 1 below z = 2, 100 above. Rows of the top plane
  // (k = 4) touch only elements of the upper slab; rows of plane k = 1 only the lower.
  const CsrMatrix<double> layered = prism::elasticity3d(2, 3, 4, 2, {1.0, 100.0});
  const index_t per_plane = 3 * 3 * 4;
  for (index_t i = 0; i < layered.rows; ++i) {
    const index_t plane = i / per_plane + 1;
    if (plane == 2 || plane == 3) continue;
    const double factor = plane == 4 ? 100.0 : 1.0;
    double largest = 0;  // the element sums round differently once scaled by 100
    for (index_t k = one.row_ptr[i]; k < one.row_ptr[i + 1]; ++k) {
      largest = std::max(largest, std::abs(one.values[k]));
    }
    for (index_t k = layered.row_ptr[i]; k < layered.row_ptr[i + 1]; ++k) {
      EXPECT_NEAR(layered.values[k], factor * one.values[k], 1e-14 * factor * largest)
          << "row " << i;
    }
  }
}

TEST(Generators, LargeGridHasExpectedSize) {
  const index_t n = 100;
  const CsrMatrix<double> a = prism::poisson3d(n, n, n);
  EXPECT_EQ(a.rows, n * n * n);
  EXPECT_EQ(a.nnz(), 7 * n * n * n - 6 * n * n);
  EXPECT_EQ(a.row_ptr.back(), a.nnz());
}

TEST(Generators, RejectsBadArguments) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  auto throws_naming = [](auto make, const std::string& name) {
    try {
      make();
      ADD_FAILURE() << "no error for " << name;
    } catch (const prism::ConfigError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
  };
  throws_naming([] { prism::poisson2d(0, 3); }, "nx");
  throws_naming([] { prism::poisson2d(3, -1); }, "ny");
  throws_naming([] { prism::poisson3d(3, 3, 0); }, "nz");
  throws_naming([] { prism::poisson3d(3, 3, 3, 19); }, "stencil");
  throws_naming([] { prism::anisotropic2d(3, 3, 0.0, 1.0); }, "cx");
  throws_naming([&] { prism::anisotropic2d(3, 3, 1.0, nan); }, "cy");
  throws_naming([&] { prism::anisotropic3d(3, 3, 3, 1.0, 1.0, inf); }, "cz");
  throws_naming([] { prism::anisotropic3d(3, 3, 3, 1.0, -1.0, 1.0); }, "cy");
  throws_naming([] { prism::layered(3, 3, 0, 0, {1.0}); }, "layers");
  throws_naming([] { prism::layered(3, 3, 3, 4, {1.0}); }, "layers");
  throws_naming([] { prism::layered(3, 3, 0, 2, {}); }, "coefficients");
  throws_naming([] { prism::layered(3, 3, 3, 2, {1.0, 0.0}); }, "coefficients[1]");
  throws_naming([] { prism::layered(0, 3, 3, 1, {1.0}); }, "nx");
  throws_naming([] { prism::elasticity3d(0, 3, 3, 1, {1.0}); }, "nx");
  throws_naming([] { prism::elasticity3d(3, 3, 0, 1, {1.0}); }, "nz");
  throws_naming([] { prism::elasticity3d(3, 3, 3, 0, {1.0}); }, "layers");
  throws_naming([] { prism::elasticity3d(3, 3, 3, 4, {1.0}); }, "layers");
  throws_naming([] { prism::elasticity3d(3, 3, 3, 1, {}); }, "coefficients");
  throws_naming([&] { prism::elasticity3d(3, 3, 3, 2, {1.0, nan}); }, "coefficients[1]");
}

TEST(Generators, RejectsSizesBeyond32BitIndices) {
  // Too many unknowns, and (27-point) too many stored entries: rejected before any
  // memory is allocated.
  EXPECT_THROW(prism::poisson2d(46341, 46341), prism::ConfigError);
  EXPECT_THROW(prism::poisson3d(2000, 2000, 2000), prism::ConfigError);
  EXPECT_THROW(prism::poisson3d(std::numeric_limits<index_t>::max(), 2, 1), prism::ConfigError);
  EXPECT_THROW(prism::poisson3d(1000, 1000, 300, 27), prism::ConfigError);
  EXPECT_THROW(prism::poisson3d(1290, 1290, 1290), prism::ConfigError);
  EXPECT_THROW(prism::elasticity3d(300, 300, 300, 1, {1.0}), prism::ConfigError);  // entries
  constexpr index_t big = std::numeric_limits<index_t>::max();
  EXPECT_THROW(prism::elasticity3d(big, 2, 1, 1, {1.0}), prism::ConfigError);
  EXPECT_THROW(prism::elasticity3d(big, big, big, 1, {1.0}), prism::ConfigError);
}

// The stretched grid: valid, SPD, the wall cells' z couplings aspect^2 times their x
// couplings, the heights growing away from the wall, and uniform cells at the smallest
// aspect ratio (nz / nx), where it is the 7-point Poisson stencil scaled by the cell size.
TEST(Generators, StretchedGridCouplesAlongZNearTheWall) {
  const CsrMatrix<double> a = prism::stretched3d(4, 3, 6, 100.0);
  expect_valid_csr(a);
  expect_spd(a);
  const Eigen::MatrixXd d = dense(a);
  const index_t layer = 4 * 3;
  const auto ratio = [&](index_t z) {  // z coupling over x coupling of cell (1, 1, z)
    const index_t i = z * layer + 4 + 1;
    return d(i, i + layer) / d(i, i + 1);
  };
  // At the wall the z face is half a cell from the next centre on average: within the
  // growth factor of aspect^2.
  EXPECT_GT(ratio(0), 100.0 * 100.0 / 4.0);
  for (index_t z = 1; z + 1 < 6; ++z) EXPECT_LT(ratio(z), ratio(z - 1)) << z;

  const CsrMatrix<double> uniform = prism::stretched3d(5, 5, 5, 1.0);
  const CsrMatrix<double> poisson = prism::poisson3d(5, 5, 5);
  ASSERT_EQ(uniform.col_idx, poisson.col_idx);
  for (std::size_t k = 0; k < uniform.values.size(); ++k) {
    EXPECT_NEAR(uniform.values[k], poisson.values[k] / 5.0, 1e-12) << k;
  }
  EXPECT_THROW(prism::stretched3d(4, 4, 8, 1.0), prism::ConfigError);  // below nz / nx
  EXPECT_THROW(prism::stretched3d(4, 4, 0, 10.0), prism::ConfigError);
  EXPECT_THROW(prism::stretched3d(4, 4, 4, std::nan("")), prism::ConfigError);
}

// rotated3d: anisotropic3d turned 45 degrees about z. A valid 9-point M-matrix, SPD; its
// strong couplings go to the diagonal neighbours along the stronger of (1, 1) and (1, -1)
// only; on u = x y (second differences are exact on quadratics) interior rows give
// -div(K grad u) = -2 K_xy = -(c_diagonal - c_antidiagonal), the sign of the rotation; with
// equal coefficients it is anisotropic3d.
TEST(Generators, RotatedCouplesAlongADiagonal) {
  const index_t nx = 5, ny = 4, nz = 3;
  for (const auto& [c_diagonal, c_antidiagonal] :
       {std::pair<double, double>{1.0, 1e-3}, {1e-3, 1.0}, {2.0, 0.5}}) {
    SCOPED_TRACE(testing::Message() << c_diagonal << ", " << c_antidiagonal);
    const CsrMatrix<double> a = prism::rotated3d(nx, ny, nz, c_diagonal, c_antidiagonal, 1e-2);
    expect_valid_csr(a);
    expect_spd(a);
    const Eigen::MatrixXd d = dense(a);
    const index_t row = 2 + nx * 1 + nx * ny * 1;  // cell (2, 1, 1)
    const double strong = std::abs(c_diagonal - c_antidiagonal) / 2.0;
    const bool up_right = c_diagonal > c_antidiagonal;
    EXPECT_DOUBLE_EQ(d(row, row + nx + 1), up_right ? -strong : 0.0);
    EXPECT_DOUBLE_EQ(d(row, row - nx - 1), up_right ? -strong : 0.0);
    EXPECT_DOUBLE_EQ(d(row, row + nx - 1), up_right ? 0.0 : -strong);
    EXPECT_DOUBLE_EQ(d(row, row - nx + 1), up_right ? 0.0 : -strong);
    EXPECT_DOUBLE_EQ(d(row, row + 1), -std::min(c_diagonal, c_antidiagonal));
    EXPECT_DOUBLE_EQ(d(row, row + nx * ny), -1e-2);
    EXPECT_EQ(a.row_ptr[row + 1] - a.row_ptr[row], 9);
    Eigen::VectorXd u(a.rows);
    for (index_t z = 0; z < nz; ++z) {
      for (index_t y = 0; y < ny; ++y) {
        for (index_t x = 0; x < nx; ++x) u(x + nx * (y + ny * z)) = double(x) * double(y);
      }
    }
    const Eigen::VectorXd au = d * u;
    for (index_t z = 1; z + 1 < nz; ++z) {
      for (index_t y = 1; y + 1 < ny; ++y) {
        for (index_t x = 1; x + 1 < nx; ++x) {
          EXPECT_NEAR(au(x + nx * (y + ny * z)), -(c_diagonal - c_antidiagonal), 1e-12)
              << x << ", " << y << ", " << z;
        }
      }
    }
    for (index_t i = 0; i < a.rows; ++i) {
      EXPECT_GE(d.row(i).sum(), -1e-14) << "row " << i;
      for (index_t j = 0; j < a.rows; ++j) {
        if (j != i) EXPECT_LE(d(i, j), 0.0);
      }
    }
  }
  for (index_t n : {1, 2, 6}) expect_spd(prism::rotated3d(n, n + 1, 2, 1.0, 1e-6, 1e-6));
  const Eigen::MatrixXd equal = dense(prism::rotated3d(4, 3, 2, 0.5, 0.5, 2.0));
  EXPECT_LT((equal - dense(prism::anisotropic3d(4, 3, 2, 0.5, 0.5, 2.0))).cwiseAbs().maxCoeff(),
            1e-15);
  EXPECT_THROW(prism::rotated3d(4, 4, 0, 1.0, 1.0, 1.0), prism::ConfigError);
  EXPECT_THROW(prism::rotated3d(4, 4, 4, 1.0, 0.0, 1.0), prism::ConfigError);
  EXPECT_THROW(prism::rotated3d(4, 4, 4, 1.0, 1.0, std::nan("")), prism::ConfigError);
  constexpr index_t big = std::numeric_limits<index_t>::max();
  EXPECT_THROW(prism::rotated3d(big, 2, 2, 1.0, 1.0, 1.0), prism::ConfigError);
}

}  // namespace
