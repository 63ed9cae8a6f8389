#include <prism/errors.hpp>
#include <prism/generators.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

namespace prism {
namespace {

void require_positive(const char* name, double value) {
  if (!(value > 0.0) || !std::isfinite(value)) {
    throw ConfigError(std::string("rotated3d: ") + name + " must be positive and finite, got " +
                      std::to_string(value));
  }
}

}  // namespace

CsrMatrix<double> rotated3d(index_t nx, index_t ny, index_t nz, double c_diagonal,
                            double c_antidiagonal, double cz) {
  if (nx < 1 || ny < 1 || nz < 1) {
    throw ConfigError("rotated3d: nx, ny and nz must be >= 1, got " + std::to_string(nx) + ", " +
                      std::to_string(ny) + ", " + std::to_string(nz));
  }
  require_positive("the coefficient along (1, 1, 0)", c_diagonal);
  require_positive("the coefficient along (1, -1, 0)", c_antidiagonal);
  require_positive("the coefficient along z", cz);
  const std::int64_t cells = static_cast<std::int64_t>(nx) * ny * nz;
  if (cells > std::numeric_limits<index_t>::max() / 9) {
    throw ConfigError("rotated3d: grid " + std::to_string(nx) + " x " + std::to_string(ny) + " x " +
                      std::to_string(nz) + " is too large for 32-bit indices");
  }
  // K_xy = [[p, q], [q, p]] = axis I + |q| d d^T with d = (1, sign q): the axis part is the
  // 5-point stencil, the d d^T part the second difference along the lattice diagonal d
  // (exact on quadratics, as the axis differences are). Every coupling is negative and
  // every row sums to >= 0, so A is a weighted graph Laplacian plus the Dirichlet faces:
  // an M-matrix, SPD.
  const double q = 0.5 * (c_diagonal - c_antidiagonal);
  const double axis = std::min(c_diagonal, c_antidiagonal);
  const double along = std::abs(q);
  const int dx = q > 0.0 ? 1 : -1;  // the diagonal neighbour one row of y up is x + dx
  const double diagonal = 4.0 * axis + (q != 0.0 ? 2.0 * along : 0.0) + 2.0 * cz;

  CsrMatrix<double> a;
  a.rows = a.cols = static_cast<index_t>(cells);
  a.row_ptr.assign(1, 0);
  a.row_ptr.reserve(static_cast<std::size_t>(cells) + 1);
  const auto add = [&](std::int64_t col, double v) {
    a.col_idx.push_back(static_cast<index_t>(col));
    a.values.push_back(v);
  };
  const std::int64_t sy = nx, sz = static_cast<std::int64_t>(nx) * ny;
  const auto inside = [&](std::int64_t x) { return x >= 0 && x < nx; };
  for (index_t z = 0; z < nz; ++z) {
    for (index_t y = 0; y < ny; ++y) {
      for (index_t x = 0; x < nx; ++x) {
        const std::int64_t row = z * sz + y * sy + x;
        // Columns in increasing order: z-, y- (with its diagonal neighbour), x-, self, x+,
        // y+ (with its diagonal neighbour), z+.
        if (z > 0) add(row - sz, -cz);
        if (y > 0) {
          if (q != 0.0 && dx > 0 && inside(x - 1)) add(row - sy - 1, -along);
          add(row - sy, -axis);
          if (q != 0.0 && dx < 0 && inside(x + 1)) add(row - sy + 1, -along);
        }
        if (x > 0) add(row - 1, -axis);
        add(row, diagonal);
        if (x + 1 < nx) add(row + 1, -axis);
        if (y + 1 < ny) {
          if (q != 0.0 && dx < 0 && inside(x - 1)) add(row + sy - 1, -along);
          add(row + sy, -axis);
          if (q != 0.0 && dx > 0 && inside(x + 1)) add(row + sy + 1, -along);
        }
        if (z + 1 < nz) add(row + sz, -cz);
        a.row_ptr.push_back(static_cast<index_t>(a.col_idx.size()));
      }
    }
  }
  return a;
}

}  // namespace prism
