// Linear elasticity on a brick of trilinear (Q1) hexahedra: the stiffness matrix of a
// finite element code, with the sparsity FEM users bring (3 unknowns a node, up to 81
// entries a row, 3 x 3 blocks that are not M-matrix-like).

#include <prism/errors.hpp>
#include <prism/generators.hpp>

#include "common/parallel.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace prism {
namespace {

constexpr double kPoissonRatio = 0.3;
constexpr int kNodes = 8;          // corners of a hexahedron, x fastest, then y, then z
constexpr int kDofs = 3 * kNodes;  // unknowns of an element
using ElementMatrix = std::array<std::array<double, kDofs>, kDofs>;

/// Stiffness of the unit cube for Young's modulus 1 (2 x 2 x 2 Gauss points, exact for
/// the trilinear element), symmetrised exactly so that the assembled matrix is symmetric
/// bit for bit. An element of edge h scales it by h; the grid spacing is scaled out.
ElementMatrix unit_element_stiffness() {
  const double nu = kPoissonRatio;
  const double lambda = nu / ((1 + nu) * (1 - 2 * nu));
  const double mu = 0.5 / (1 + nu);
  const double g = 0.5 / std::sqrt(3.0);
  ElementMatrix k{};
  for (int q = 0; q < 8; ++q) {
    const std::array<double, 3> xi{0.5 + (q & 1 ? g : -g), 0.5 + (q & 2 ? g : -g),
                                   0.5 + (q & 4 ? g : -g)};
    // Gradients of the shape functions N_a = prod_d (corner_d ? xi_d : 1 - xi_d).
    std::array<std::array<double, 3>, kNodes> grad{};
    for (int a = 0; a < kNodes; ++a) {
      std::array<double, 3> f{}, s{};
      for (int d = 0; d < 3; ++d) {
        const bool corner = (a >> d) & 1;
        f[d] = corner ? xi[d] : 1 - xi[d];
        s[d] = corner ? 1.0 : -1.0;
      }
      grad[a] = {s[0] * f[1] * f[2], f[0] * s[1] * f[2], f[0] * f[1] * s[2]};
    }
    // sigma : epsilon for unit displacements (a, i) and (b, j): weight 1/8 per point.
    for (int a = 0; a < kNodes; ++a) {
      for (int i = 0; i < 3; ++i) {
        for (int b = 0; b < kNodes; ++b) {
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
  for (int r = 0; r < kDofs; ++r) {
    for (int c = 0; c < r; ++c) k[r][c] = k[c][r] = 0.5 * (k[r][c] + k[c][r]);
  }
  return k;
}

/// The brick's node grid, (nx + 1) x (ny + 1) x nz free nodes (k = 1 ... nz; the plane
/// k = 0 is clamped), and what an entry of the matrix is summed from.
struct Brick {
  std::int64_t nx, ny, nz, px, py;
  std::vector<double> plane_modulus;  ///< Young's modulus of each element plane
  ElementMatrix ke;

  /// Free node number node = i + px (j + py (k - 1)) as its grid position (i, j, k).
  std::array<std::int64_t, 3> position(std::int64_t node) const {
    return {node % px, (node / px) % py, node / (px * py) + 1};
  }

  /// Free nodes at most one apart from `node` along every axis, itself included.
  std::int64_t neighbours(std::int64_t node) const {
    const auto [i, j, k] = position(node);
    const auto span = [](std::int64_t c, std::int64_t lo, std::int64_t hi) {
      return std::min(c + 1, hi) - std::max(c - 1, lo) + 1;
    };
    return span(i, 0, px - 1) * span(j, 0, py - 1) * span(k, 1, nz);
  }
};

/// Writes the 3 rows of free node `node` into a.col_idx and a.values from a.row_ptr on:
/// neighbour nodes in increasing index order (z, then y, then x), so columns are sorted;
/// each 3 x 3 coupling sums the elements holding both nodes, always in the same order, so
/// the matrix is the same bit for bit however the nodes are split between threads.
void fill_node_rows(const Brick& b, std::int64_t node, CsrMatrix<double>& a) {
  const auto [i, j, k] = b.position(node);
  std::array<std::size_t, 3> at{};
  for (int ci = 0; ci < 3; ++ci) {
    at[ci] = static_cast<std::size_t>(a.row_ptr[static_cast<std::size_t>(3 * node + ci)]);
  }
  for (std::int64_t qk = std::max<std::int64_t>(k - 1, 1); qk <= std::min(k + 1, b.nz); ++qk) {
    for (std::int64_t qj = std::max<std::int64_t>(j - 1, 0); qj <= std::min(j + 1, b.py - 1);
         ++qj) {
      for (std::int64_t qi = std::max<std::int64_t>(i - 1, 0); qi <= std::min(i + 1, b.px - 1);
           ++qi) {
        std::array<std::array<double, 3>, 3> v{};
        for (std::int64_t ek = std::max(k, qk) - 1; ek <= std::min(k, qk); ++ek) {
          if (ek < 0 || ek >= b.nz) continue;
          for (std::int64_t ej = std::max(j, qj) - 1; ej <= std::min(j, qj); ++ej) {
            if (ej < 0 || ej >= b.ny) continue;
            for (std::int64_t ei = std::max(i, qi) - 1; ei <= std::min(i, qi); ++ei) {
              if (ei < 0 || ei >= b.nx) continue;
              const auto corner = [&](std::int64_t ni, std::int64_t nj, std::int64_t nk) {
                return static_cast<int>((ni - ei) + 2 * (nj - ej) + 4 * (nk - ek));
              };
              const int lp = corner(i, j, k), lq = corner(qi, qj, qk);
              const double e = b.plane_modulus[static_cast<std::size_t>(ek)];
              for (int ci = 0; ci < 3; ++ci) {
                for (int cj = 0; cj < 3; ++cj) v[ci][cj] += e * b.ke[3 * lp + ci][3 * lq + cj];
              }
            }
          }
        }
        const std::int64_t column_node = qi + b.px * (qj + b.py * (qk - 1));
        for (int ci = 0; ci < 3; ++ci) {
          for (int cj = 0; cj < 3; ++cj, ++at[ci]) {
            a.col_idx[at[ci]] = static_cast<index_t>(3 * column_node + cj);
            a.values[at[ci]] = v[ci][cj];
          }
        }
      }
    }
  }
}

}  // namespace

CsrMatrix<double> elasticity3d(index_t nx, index_t ny, index_t nz, int layers,
                               const std::vector<double>& youngs_moduli) {
  const char* name = "elasticity3d";
  for (const auto& [parameter, value] : {std::pair{"nx", nx}, {"ny", ny}, {"nz", nz}}) {
    if (value < 1) {
      throw ConfigError(std::string(name) + ": " + parameter + " must be >= 1, got " +
                        std::to_string(value));
    }
  }
  if (layers < 1 || layers > nz) {
    throw ConfigError(std::string(name) + ": layers must be in 1 ... nz (" + std::to_string(nz) +
                      "), got " + std::to_string(layers));
  }
  if (youngs_moduli.empty()) {
    throw ConfigError(std::string(name) + ": coefficients must not be empty");
  }
  for (std::size_t i = 0; i < youngs_moduli.size(); ++i) {
    if (!(youngs_moduli[i] > 0.0) || !std::isfinite(youngs_moduli[i])) {
      throw ConfigError(std::string(name) + ": coefficients[" + std::to_string(i) +
                        "] must be positive and finite, got " + std::to_string(youngs_moduli[i]));
    }
  }
  // Nodes (nx + 1) x (ny + 1) x (nz + 1); the plane z = 0 is clamped, so the unknowns are
  // the 3 displacements of the nodes with k >= 1. Two nodes couple when they are at most one
  // apart along every axis (3 L - 2 pairs along an axis of L nodes), with 9 entries a pair.
  // Counted in double first: exact up to 2^53, so the comparison with 2^31 - 1 is exact and
  // nothing overflows before the check.
  const std::int64_t px = std::int64_t{nx} + 1, py = std::int64_t{ny} + 1;
  const auto dx = static_cast<double>(px), dy = static_cast<double>(py),
             dz = static_cast<double>(nz);
  const double max_index = std::numeric_limits<index_t>::max();
  if (3 * dx * dy * dz > max_index || 9 * (3 * dx - 2) * (3 * dy - 2) * (3 * dz - 2) > max_index) {
    throw ConfigError(std::string(name) + ": " + std::to_string(nx) + " x " + std::to_string(ny) +
                      " x " + std::to_string(nz) +
                      " elements give more than 2^31 - 1 unknowns or stored entries");
  }
  const std::int64_t rows = 3 * px * py * nz;
  const std::int64_t nnz = 9 * (3 * px - 2) * (3 * py - 2) * (3 * std::int64_t{nz} - 2);
  // Element plane e (0 <= e < nz) lies in slab floor(e * layers / nz), as in layered().
  std::vector<double> plane_modulus(static_cast<std::size_t>(nz));
  for (std::int64_t e = 0; e < nz; ++e) {
    const std::int64_t slab = e * layers / nz;
    plane_modulus[static_cast<std::size_t>(e)] =
        youngs_moduli[static_cast<std::size_t>(slab) % youngs_moduli.size()];
  }
  const Brick brick{nx, ny, nz, px, py, std::move(plane_modulus), unit_element_stiffness()};
  const std::int64_t nodes = px * py * nz;

  CsrMatrix<double> a;
  a.rows = a.cols = static_cast<index_t>(rows);
  a.row_ptr.resize(static_cast<std::size_t>(rows) + 1);
  for (std::int64_t node = 0; node < nodes; ++node) {
    const std::int64_t length = 3 * brick.neighbours(node);
    for (std::int64_t ci = 0; ci < 3; ++ci) {
      const auto row = static_cast<std::size_t>(3 * node + ci);
      a.row_ptr[row + 1] = static_cast<index_t>(a.row_ptr[row] + length);
    }
  }
  // std::vector zeroes these on this thread; the threads then write every entry once.
  a.col_idx.resize(static_cast<std::size_t>(nnz));
  a.values.resize(static_cast<std::size_t>(nnz));
  common::parallel_for(static_cast<std::size_t>(nodes), common::kRowsPerPart / 3,
                       [&](std::size_t begin, std::size_t end) {
                         for (std::size_t node = begin; node < end; ++node) {
                           fill_node_rows(brick, static_cast<std::int64_t>(node), a);
                         }
                       });
  return a;
}

}  // namespace prism
