#include <prism/errors.hpp>
#include <prism/generators.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace prism {
namespace {

/// The heights of nz cells growing geometrically from h0 (h_k = h0 r^k, r >= 1) that fill
/// [0, 1]: r by bisection on sum h_k = 1, which grows with r.
std::vector<double> geometric_heights(index_t nz, double h0) {
  const auto total = [&](double r) {
    double sum = 0.0, h = h0;
    for (index_t k = 0; k < nz; ++k, h *= r) sum += h;
    return sum;
  };
  double lo = 1.0, hi = 2.0;
  while (total(hi) < 1.0) hi *= 2.0;
  for (int i = 0; i < 200 && hi - lo > 1e-15 * hi; ++i) {
    const double mid = 0.5 * (lo + hi);
    (total(mid) < 1.0 ? lo : hi) = mid;
  }
  std::vector<double> h(static_cast<std::size_t>(nz));
  double v = h0;
  for (index_t k = 0; k < nz; ++k, v *= hi) h[k] = v;
  return h;
}

}  // namespace

CsrMatrix<double> stretched3d(index_t nx, index_t ny, index_t nz, double aspect) {
  if (nx < 1 || ny < 1 || nz < 1) {
    throw ConfigError("stretched3d: nx, ny and nz must be >= 1, got " + std::to_string(nx) + ", " +
                      std::to_string(ny) + ", " + std::to_string(nz));
  }
  const double hx = 1.0 / nx, hy = 1.0 / ny;
  // The wall cell is hx / aspect high; the cells must not shrink away from the wall.
  const double min_aspect = hx * nz;
  if (!(aspect >= min_aspect) || !std::isfinite(aspect)) {
    throw ConfigError("stretched3d: the aspect ratio at the wall must be finite and >= nz / nx = " +
                      std::to_string(min_aspect) + " (uniform cells), got " +
                      std::to_string(aspect));
  }
  const std::int64_t cells = static_cast<std::int64_t>(nx) * ny * nz;
  if (cells > std::numeric_limits<index_t>::max() / 7) {
    throw ConfigError("stretched3d: grid " + std::to_string(nx) + " x " + std::to_string(ny) +
                      " x " + std::to_string(nz) + " is too large for 32-bit indices");
  }
  const std::vector<double> h = geometric_heights(nz, hx / aspect);
  CsrMatrix<double> a;
  a.rows = a.cols = static_cast<index_t>(cells);
  a.row_ptr.assign(1, 0);
  a.row_ptr.reserve(static_cast<std::size_t>(cells) + 1);
  const auto add = [&](std::int64_t col, double v) {
    a.col_idx.push_back(static_cast<index_t>(col));
    a.values.push_back(v);
  };
  const std::int64_t sy = nx, sz = static_cast<std::int64_t>(nx) * ny;
  for (index_t z = 0; z < nz; ++z) {
    // Face coefficients (area / distance between the cell centres); a Dirichlet boundary
    // face counts as a face to a ghost cell of the same size.
    const double fx = hy * h[z] / hx, fy = hx * h[z] / hy;
    const double below = z > 0 ? hx * hy / (0.5 * (h[z - 1] + h[z])) : hx * hy / h[z];
    const double above = z + 1 < nz ? hx * hy / (0.5 * (h[z] + h[z + 1])) : hx * hy / h[z];
    for (index_t y = 0; y < ny; ++y) {
      for (index_t x = 0; x < nx; ++x) {
        const std::int64_t row = z * sz + y * sy + x;
        if (z > 0) add(row - sz, -below);
        if (y > 0) add(row - sy, -fy);
        if (x > 0) add(row - 1, -fx);
        add(row, 2.0 * fx + 2.0 * fy + below + above);
        if (x + 1 < nx) add(row + 1, -fx);
        if (y + 1 < ny) add(row + sy, -fy);
        if (z + 1 < nz) add(row + sz, -above);
        a.row_ptr.push_back(static_cast<index_t>(a.col_idx.size()));
      }
    }
  }
  return a;
}

}  // namespace prism
