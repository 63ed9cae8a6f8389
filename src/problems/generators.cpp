#include <prism/errors.hpp>
#include <prism/generators.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace prism {
namespace {

constexpr std::int64_t max_index = std::numeric_limits<index_t>::max();

void require_size(const char* generator, const char* parameter, index_t value) {
  if (value < 1) {
    throw ConfigError(std::string(generator) + ": " + parameter + " must be >= 1, got " +
                      std::to_string(value));
  }
}

void require_coefficient(const char* generator, const std::string& parameter, double value) {
  if (!(value > 0.0) || !std::isfinite(value)) {
    throw ConfigError(std::string(generator) + ": " + parameter +
                      " must be positive and finite, got " + std::to_string(value));
  }
}

/// A regular grid of dim (2 or 3) axes; a 2D grid has n[2] == 1 and no z faces.
struct Grid {
  int dim = 3;
  std::array<std::int64_t, 3> n{1, 1, 1};
  std::int64_t cells() const { return n[0] * n[1] * n[2]; }
};

/// Checks that the grid's unknowns and the matrix's stored entries fit index_t.
void require_fits(const char* generator, const Grid& grid, std::int64_t nnz) {
  // Each factor is < 2^31, so every partial product is checked before it can overflow.
  std::int64_t cells = grid.n[0];
  for (int d = 1; d < 3; ++d) {
    if (cells > max_index) break;
    cells *= grid.n[d];
  }
  if (cells > max_index) {
    throw ConfigError(std::string(generator) + ": grid " + std::to_string(grid.n[0]) + " x " +
                      std::to_string(grid.n[1]) + " x " + std::to_string(grid.n[2]) +
                      " has more than 2^31 - 1 unknowns");
  }
  if (nnz > max_index) {
    throw ConfigError(std::string(generator) + ": the matrix would have " + std::to_string(nnz) +
                      " stored entries, more than 2^31 - 1");
  }
}

/// Stored entries of the (2 dim + 1)-point stencil: the diagonal plus both directions
/// of every interior face.
std::int64_t face_stencil_nnz(const Grid& grid) {
  const std::int64_t cells = grid.cells();
  std::int64_t nnz = cells;
  for (int d = 0; d < grid.dim; ++d) nnz += 2 * (grid.n[d] - 1) * (cells / grid.n[d]);
  return nnz;
}

/// Coefficient of the face between cells with coefficients kp and kq: the harmonic
/// mean, which keeps the flux continuous across a jump (exactly kp when equal).
double face_coefficient(double kp, double kq) {
  if (kp == kq) return kp;
  return 2.0 * kp * kq / (kp + kq);
}

/// Cell-centred finite volumes for -div(K grad u) with K = diag(scale) * k(cell) and
/// homogeneous Dirichlet boundaries: each interior face couples its two cells with
/// -scale[d] * harmonic(k_p, k_q); a boundary face adds scale[d] * k_p to the diagonal
/// (grid spacing scaled out, so constant k gives the classical 4/-1 and 6/-1 stencils).
/// Rows are generated in order and the neighbours in increasing column order (z-, y-,
/// x-, self, x+, y+, z+), so the CSR arrays are written once, without sorting.
/// cell_coefficient(z) gives k for the cells of plane z (last axis).
template <typename PlaneCoefficient>
CsrMatrix<double> assemble_finite_volume(const char* generator, const Grid& grid,
                                         const std::array<double, 3>& scale,
                                         PlaneCoefficient plane_coefficient) {
  const std::int64_t nnz = face_stencil_nnz(grid);
  require_fits(generator, grid, nnz);

  const std::int64_t nx = grid.n[0], ny = grid.n[1], nz = grid.n[2];
  const std::int64_t stride[3] = {1, nx, nx * ny};
  const bool has_z = grid.dim == 3;

  CsrMatrix<double> a;
  a.rows = a.cols = static_cast<index_t>(grid.cells());
  a.row_ptr.resize(static_cast<std::size_t>(a.rows) + 1);
  a.col_idx.resize(static_cast<std::size_t>(nnz));
  a.values.resize(static_cast<std::size_t>(nnz));
  a.row_ptr[0] = 0;

  // In 2D the "plane" coefficient runs along y, the last axis.
  const int last = grid.dim - 1;
  std::int64_t pos = 0;
  std::int64_t row = 0;
  for (std::int64_t z = 0; z < nz; ++z) {
    for (std::int64_t y = 0; y < ny; ++y) {
      const std::int64_t plane = last == 2 ? z : y;
      const double k = plane_coefficient(plane);
      const double k_prev = plane > 0 ? plane_coefficient(plane - 1) : k;
      const double k_next = plane + 1 < grid.n[last] ? plane_coefficient(plane + 1) : k;
      // Face coefficients towards the lower and upper neighbour along each axis.
      std::array<double, 3> lower{}, upper{};
      for (int d = 0; d < grid.dim; ++d) {
        lower[d] = scale[d] * (d == last ? face_coefficient(k, k_prev) : k);
        upper[d] = scale[d] * (d == last ? face_coefficient(k, k_next) : k);
      }
      for (std::int64_t x = 0; x < nx; ++x, ++row) {
        const std::int64_t coord[3] = {x, y, z};
        // Boundary faces use the cell's own coefficient, so the diagonal is the sum
        // of both face coefficients of every axis.
        double diag = 0.0;
        for (int d = 0; d < grid.dim; ++d) {
          diag += (coord[d] > 0 ? lower[d] : scale[d] * k);
          diag += (coord[d] + 1 < grid.n[d] ? upper[d] : scale[d] * k);
        }
        auto put = [&](std::int64_t col, double value) {
          a.col_idx[static_cast<std::size_t>(pos)] = static_cast<index_t>(col);
          a.values[static_cast<std::size_t>(pos)] = value;
          ++pos;
        };
        if (has_z && z > 0) put(row - stride[2], -lower[2]);
        if (y > 0) put(row - stride[1], -lower[1]);
        if (x > 0) put(row - stride[0], -lower[0]);
        put(row, diag);
        if (x + 1 < nx) put(row + stride[0], -upper[0]);
        if (y + 1 < ny) put(row + stride[1], -upper[1]);
        if (has_z && z + 1 < nz) put(row + stride[2], -upper[2]);
        a.row_ptr[static_cast<std::size_t>(row) + 1] = static_cast<index_t>(pos);
      }
    }
  }
  return a;
}

/// The 27-point stencil: 26 on the diagonal, -1 to every one of the (up to) 26
/// neighbours sharing a face, an edge or a corner.
CsrMatrix<double> assemble_27_point(const Grid& grid) {
  std::int64_t nnz = 1;
  for (int d = 0; d < 3; ++d) nnz *= 3 * grid.n[d] - 2;
  require_fits("poisson3d", grid, nnz);

  const std::int64_t nx = grid.n[0], ny = grid.n[1], nz = grid.n[2];
  CsrMatrix<double> a;
  a.rows = a.cols = static_cast<index_t>(grid.cells());
  a.row_ptr.resize(static_cast<std::size_t>(a.rows) + 1);
  a.col_idx.resize(static_cast<std::size_t>(nnz));
  a.values.resize(static_cast<std::size_t>(nnz));
  a.row_ptr[0] = 0;

  std::int64_t pos = 0;
  std::int64_t row = 0;
  for (std::int64_t z = 0; z < nz; ++z) {
    for (std::int64_t y = 0; y < ny; ++y) {
      for (std::int64_t x = 0; x < nx; ++x, ++row) {
        // dz, dy, dx in lexicographic order visit the columns in increasing order.
        for (std::int64_t dz = -1; dz <= 1; ++dz) {
          if (z + dz < 0 || z + dz >= nz) continue;
          for (std::int64_t dy = -1; dy <= 1; ++dy) {
            if (y + dy < 0 || y + dy >= ny) continue;
            for (std::int64_t dx = -1; dx <= 1; ++dx) {
              if (x + dx < 0 || x + dx >= nx) continue;
              const bool self = dx == 0 && dy == 0 && dz == 0;
              a.col_idx[static_cast<std::size_t>(pos)] =
                  static_cast<index_t>(row + dx + nx * (dy + ny * dz));
              a.values[static_cast<std::size_t>(pos)] = self ? 26.0 : -1.0;
              ++pos;
            }
          }
        }
        a.row_ptr[static_cast<std::size_t>(row) + 1] = static_cast<index_t>(pos);
      }
    }
  }
  return a;
}

Grid make_grid(const char* generator, index_t nx, index_t ny, index_t nz, int dim) {
  require_size(generator, "nx", nx);
  require_size(generator, "ny", ny);
  if (dim == 3) require_size(generator, "nz", nz);
  Grid grid;
  grid.dim = dim;
  grid.n = {nx, ny, dim == 3 ? nz : 1};
  return grid;
}

}  // namespace

CsrMatrix<double> poisson2d(index_t nx, index_t ny) {
  const Grid grid = make_grid("poisson2d", nx, ny, 1, 2);
  return assemble_finite_volume("poisson2d", grid, {1.0, 1.0, 1.0},
                                [](std::int64_t) { return 1.0; });
}

CsrMatrix<double> poisson3d(index_t nx, index_t ny, index_t nz, int stencil) {
  if (stencil != 7 && stencil != 27) {
    throw ConfigError("poisson3d: stencil must be 7 or 27, got " + std::to_string(stencil));
  }
  const Grid grid = make_grid("poisson3d", nx, ny, nz, 3);
  if (stencil == 27) return assemble_27_point(grid);
  return assemble_finite_volume("poisson3d", grid, {1.0, 1.0, 1.0},
                                [](std::int64_t) { return 1.0; });
}

CsrMatrix<double> anisotropic2d(index_t nx, index_t ny, double cx, double cy) {
  const Grid grid = make_grid("anisotropic2d", nx, ny, 1, 2);
  require_coefficient("anisotropic2d", "cx", cx);
  require_coefficient("anisotropic2d", "cy", cy);
  return assemble_finite_volume("anisotropic2d", grid, {cx, cy, 1.0},
                                [](std::int64_t) { return 1.0; });
}

CsrMatrix<double> anisotropic3d(index_t nx, index_t ny, index_t nz, double cx, double cy,
                                double cz) {
  const Grid grid = make_grid("anisotropic3d", nx, ny, nz, 3);
  require_coefficient("anisotropic3d", "cx", cx);
  require_coefficient("anisotropic3d", "cy", cy);
  require_coefficient("anisotropic3d", "cz", cz);
  return assemble_finite_volume("anisotropic3d", grid, {cx, cy, cz},
                                [](std::int64_t) { return 1.0; });
}

CsrMatrix<double> layered(index_t nx, index_t ny, index_t nz, int layers,
                          const std::vector<double>& coefficients) {
  const int dim = nz == 0 ? 2 : 3;
  const char* generator = dim == 2 ? "layered2d" : "layered3d";
  const Grid grid = make_grid(generator, nx, ny, nz, dim);
  if (layers < 1) {
    throw ConfigError(std::string(generator) + ": layers must be >= 1, got " +
                      std::to_string(layers));
  }
  const std::int64_t planes = grid.n[dim - 1];
  if (layers > planes) {
    throw ConfigError(std::string(generator) + ": layers (" + std::to_string(layers) +
                      ") must not exceed " + (dim == 2 ? "ny" : "nz") + " (" +
                      std::to_string(planes) + ")");
  }
  if (coefficients.empty()) {
    throw ConfigError(std::string(generator) + ": coefficients must not be empty");
  }
  for (std::size_t i = 0; i < coefficients.size(); ++i) {
    require_coefficient(generator, "coefficients[" + std::to_string(i) + "]", coefficients[i]);
  }
  // Plane p lies in slab floor(p * layers / planes): equal slabs, the remainder spread.
  auto plane_coefficient = [&](std::int64_t plane) {
    const std::int64_t slab = plane * layers / planes;
    return coefficients[static_cast<std::size_t>(slab) % coefficients.size()];
  };
  return assemble_finite_volume(generator, grid, {1.0, 1.0, 1.0}, plane_coefficient);
}

}  // namespace prism
