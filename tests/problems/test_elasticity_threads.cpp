// elasticity3d assembles on the host threads: the matrix must equal, bit for bit, the one
// a plain serial assembly (row after row, push_back) builds, whatever the number of
// threads and however the nodes split between them.

#include <prism/generators.hpp>

#include "common/host_threads.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <tuple>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;

using ElementMatrix = std::array<std::array<double, 24>, 24>;

/// The unit Q1 element stiffness for Young's modulus 1 and Poisson ratio 0.3, as in
/// src/problems/elasticity.cpp.
ElementMatrix unit_element_stiffness() {
  const double nu = 0.3;
  const double lambda = nu / ((1 + nu) * (1 - 2 * nu));
  const double mu = 0.5 / (1 + nu);
  const double g = 0.5 / std::sqrt(3.0);
  ElementMatrix k{};
  for (int q = 0; q < 8; ++q) {
    const std::array<double, 3> xi{0.5 + (q & 1 ? g : -g), 0.5 + (q & 2 ? g : -g),
                                   0.5 + (q & 4 ? g : -g)};
    std::array<std::array<double, 3>, 8> grad{};
    for (int a = 0; a < 8; ++a) {
      std::array<double, 3> f{}, s{};
      for (int d = 0; d < 3; ++d) {
        const bool corner = (a >> d) & 1;
        f[d] = corner ? xi[d] : 1 - xi[d];
        s[d] = corner ? 1.0 : -1.0;
      }
      grad[a] = {s[0] * f[1] * f[2], f[0] * s[1] * f[2], f[0] * f[1] * s[2]};
    }
    for (int a = 0; a < 8; ++a) {
      for (int i = 0; i < 3; ++i) {
        for (int b = 0; b < 8; ++b) {
          for (int j = 0; j < 3; ++j) {
            double v = lambda * grad[a][i] * grad[b][j] + mu * grad[a][j] * grad[b][i];
            if (i == j) {
              for (int d = 0; d < 3; ++d) v += mu * grad[a][d] * grad[b][d];
            }
            k[3 * a + i][3 * b + j] += v / 8;
          }
        }
      }
    }
  }
  for (int r = 0; r < 24; ++r) {
    for (int c = 0; c < r; ++c) k[r][c] = k[c][r] = 0.5 * (k[r][c] + k[c][r]);
  }
  return k;
}

/// The serial assembly, row after row with push_back (arguments assumed valid).
CsrMatrix<double> serial_elasticity(std::int64_t nx, std::int64_t ny, std::int64_t nz, int layers,
                                    const std::vector<double>& moduli) {
  const std::int64_t px = nx + 1, py = ny + 1;
  const ElementMatrix ke = unit_element_stiffness();
  auto modulus = [&](std::int64_t plane) {
    return moduli[static_cast<std::size_t>(plane * layers / nz) % moduli.size()];
  };
  CsrMatrix<double> a;
  a.rows = a.cols = static_cast<index_t>(3 * px * py * nz);
  for (std::int64_t k = 1; k <= nz; ++k) {
    for (std::int64_t j = 0; j < py; ++j) {
      for (std::int64_t i = 0; i < px; ++i) {
        for (int ci = 0; ci < 3; ++ci) {
          for (std::int64_t dk = -1; dk <= 1; ++dk) {
            const std::int64_t qk = k + dk;
            if (qk < 1 || qk > nz) continue;
            for (std::int64_t dj = -1; dj <= 1; ++dj) {
              const std::int64_t qj = j + dj;
              if (qj < 0 || qj >= py) continue;
              for (std::int64_t di = -1; di <= 1; ++di) {
                const std::int64_t qi = i + di;
                if (qi < 0 || qi >= px) continue;
                std::array<double, 3> v{};
                for (std::int64_t ek = std::max(k, qk) - 1; ek <= std::min(k, qk); ++ek) {
                  if (ek < 0 || ek >= nz) continue;
                  for (std::int64_t ej = std::max(j, qj) - 1; ej <= std::min(j, qj); ++ej) {
                    if (ej < 0 || ej >= ny) continue;
                    for (std::int64_t ei = std::max(i, qi) - 1; ei <= std::min(i, qi); ++ei) {
                      if (ei < 0 || ei >= nx) continue;
                      const auto corner = [&](std::int64_t ni, std::int64_t nj, std::int64_t nk) {
                        return static_cast<int>((ni - ei) + 2 * (nj - ej) + 4 * (nk - ek));
                      };
                      const int lp = corner(i, j, k), lq = corner(qi, qj, qk);
                      const double e = modulus(ek);
                      for (int cj = 0; cj < 3; ++cj) v[cj] += e * ke[3 * lp + ci][3 * lq + cj];
                    }
                  }
                }
                const std::int64_t node = qi + px * (qj + py * (qk - 1));
                for (int cj = 0; cj < 3; ++cj) {
                  a.col_idx.push_back(static_cast<index_t>(3 * node + cj));
                  a.values.push_back(v[cj]);
                }
              }
            }
          }
          a.row_ptr.push_back(static_cast<index_t>(a.col_idx.size()));
        }
      }
    }
  }
  return a;
}

/// Equal bit for bit: the same doubles compare equal as values, and no entry is NaN.
void expect_identical(const CsrMatrix<double>& got, const CsrMatrix<double>& want) {
  EXPECT_EQ(got.rows, want.rows);
  EXPECT_EQ(got.cols, want.cols);
  EXPECT_EQ(got.row_ptr, want.row_ptr);
  EXPECT_EQ(got.col_idx, want.col_idx);
  ASSERT_EQ(got.values.size(), want.values.size());
  std::size_t differing = 0;
  for (std::size_t e = 0; e < got.values.size(); ++e) {
    if (std::signbit(got.values[e]) != std::signbit(want.values[e]) ||
        !(got.values[e] == want.values[e])) {
      ++differing;
    }
  }
  EXPECT_EQ(differing, 0u) << "of " << got.values.size() << " values";
}

// Grids from one element to ones of more than 4 x 5461 nodes (the generator's grain is
// kRowsPerPart / 3 nodes), so that 2, 3 and 4 threads split them mid-plane.
TEST(ElasticityThreads, EqualsTheSerialAssemblyBitForBit) {
  const std::vector<std::tuple<index_t, index_t, index_t, int, std::vector<double>>> cases{
      {1, 1, 1, 1, {1.0}},         {2, 3, 1, 1, {2.5}},    {5, 4, 7, 3, {1.0, 1e4, 1e-3}},
      {9, 6, 1, 1, {3.0}},         {150, 80, 1, 1, {1.0}}, {37, 23, 29, 3, {1.0, 50.0, 0.02}},
      {30, 30, 30, 2, {7.0, 1.0}},
  };
  for (const auto& [nx, ny, nz, layers, moduli] : cases) {
    const CsrMatrix<double> want = serial_elasticity(nx, ny, nz, layers, moduli);
    ASSERT_EQ(want.row_ptr.size(), static_cast<std::size_t>(want.rows) + 1);
    for (int threads : {1, 2, 3, 4}) {
      SCOPED_TRACE(testing::Message() << nx << " x " << ny << " x " << nz << ", layers " << layers
                                      << ", " << threads << " threads");
      const prism::test::ScopedHostThreads scoped(threads);
      expect_identical(prism::elasticity3d(nx, ny, nz, layers, moduli), want);
    }
  }
}

}  // namespace
