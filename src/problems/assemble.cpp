#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/matrix_market.hpp>
#include <prism/problem.hpp>

#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace prism {
namespace {

/// Uniform in [-1, 1) from the top 53 bits of mt19937_64, so a seed gives the same
/// vector with every standard library (std::uniform_real_distribution does not).
std::vector<double> random_vector(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<double> v(n);
  for (auto& x : v) x = 2.0 * static_cast<double>(rng() >> 11) * 0x1.0p-53 - 1.0;
  return v;
}

/// A * 1: the row sums.
std::vector<double> times_ones(const CsrMatrix<double>& a) {
  std::vector<double> y(static_cast<std::size_t>(a.rows), 0.0);
  for (index_t i = 0; i < a.rows; ++i) {
    double sum = 0.0;
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) sum += a.values[k];
    y[static_cast<std::size_t>(i)] = sum;
  }
  return y;
}

/// A vector file for a matrix of `rows` rows: its size line is checked before anything is
/// allocated.
std::vector<double> read_sized_vector(const std::string& file, index_t rows) {
  return read_vector_market(file, rows);
}

const std::vector<double>& coefficients_of(const GeneratorSpec& g, std::size_t count) {
  if (g.coefficients.size() != count) {
    throw ConfigError(g.name + ": coefficients must have " + std::to_string(count) +
                      (count == 1 ? " entry, got " : " entries (one per direction), got ") +
                      std::to_string(g.coefficients.size()));
  }
  return g.coefficients;
}

}  // namespace

CsrMatrix<double> assemble_matrix(const MatrixSpec& spec) {
  if (spec.from_file()) return read_matrix_market_to_solve(spec.file);
  const GeneratorSpec& g = spec.generator;
  if (g.name == "poisson2d") return poisson2d(g.nx, g.ny);
  if (g.name == "poisson3d") return poisson3d(g.nx, g.ny, g.nz, g.stencil);
  if (g.name == "anisotropic2d") {
    const auto& c = coefficients_of(g, 2);
    return anisotropic2d(g.nx, g.ny, c[0], c[1]);
  }
  if (g.name == "anisotropic3d") {
    const auto& c = coefficients_of(g, 3);
    return anisotropic3d(g.nx, g.ny, g.nz, c[0], c[1], c[2]);
  }
  if (g.name == "layered2d") return layered(g.nx, g.ny, 0, g.layers, g.coefficients);
  if (g.name == "layered3d") {
    // layered() reads nz == 0 as 2D; a 3D spec must say how many planes it has.
    if (g.nz < 1) throw ConfigError("layered3d: nz must be >= 1, got " + std::to_string(g.nz));
    return layered(g.nx, g.ny, g.nz, g.layers, g.coefficients);
  }
  if (g.name == "elasticity3d") return elasticity3d(g.nx, g.ny, g.nz, g.layers, g.coefficients);
  if (g.name == "stretched3d") return stretched3d(g.nx, g.ny, g.nz, coefficients_of(g, 1)[0]);
  if (g.name == "rotated3d") {
    const auto& c = coefficients_of(g, 3);
    return rotated3d(g.nx, g.ny, g.nz, c[0], c[1], c[2]);
  }
  throw ConfigError("unknown matrix generator '" + g.name +
                    "'; allowed: poisson2d | poisson3d | anisotropic2d | anisotropic3d | "
                    "layered2d | layered3d | elasticity3d | stretched3d | rotated3d");
}

Problem assemble_problem(const ProblemSpec& spec) {
  Problem p;
  p.a = assemble_matrix(spec.matrix);
  const auto n = static_cast<std::size_t>(p.a.rows);

  switch (spec.rhs.kind) {
    case RhsSpec::Kind::ones:
      p.b.assign(n, 1.0);
      break;
    case RhsSpec::Kind::random:
      p.columns = spec.rhs.columns;
      for (int j = 0; j < p.columns; ++j) {
        const std::vector<double> column = random_vector(n, spec.rhs.seed + j);
        p.b.insert(p.b.end(), column.begin(), column.end());
      }
      break;
    case RhsSpec::Kind::manufactured:
      p.b = times_ones(p.a);
      p.exact_solution.assign(n, 1.0);
      break;
    case RhsSpec::Kind::file:
      p.b = read_sized_vector(spec.rhs.file, p.a.rows);
      break;
  }

  switch (spec.initial_guess.kind) {
    case InitialGuessSpec::Kind::zero:
      p.x0.assign(n, 0.0);
      break;
    case InitialGuessSpec::Kind::random:
      p.x0 = random_vector(n, spec.initial_guess.seed);
      break;
    case InitialGuessSpec::Kind::file:
      p.x0 = read_sized_vector(spec.initial_guess.file, p.a.rows);
      break;
  }
  return p;
}

}  // namespace prism
