#pragma once
/// @file
/// Problem descriptions: the plain configuration tree a YAML problem file is read
/// into, and assembly of the matrix, right-hand side and initial guess from it.
/// Only src/io/problem_file.cpp sees YAML; everything else sees these structs.

#include <prism/csr_matrix.hpp>
#include <prism/options.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace prism {

/// Parameters of a matrix generator (see generators.hpp).
struct GeneratorSpec {
  /// poisson2d | poisson3d | anisotropic2d | anisotropic3d | layered2d | layered3d |
  /// elasticity3d
  std::string name;
  index_t nx = 0, ny = 0, nz = 0;
  int stencil = 7;  ///< poisson3d: 7 or 27
  /// anisotropic: one per direction; layered: per layer; elasticity3d: Young's modulus
  /// per layer
  std::vector<double> coefficients;
  int layers = 1;  ///< layered, elasticity3d: number of slabs
};

/// Where the matrix comes from: a Matrix Market file or a generator.
struct MatrixSpec {
  std::string file;  ///< resolved path (relative paths in YAML are relative to the YAML file)
  GeneratorSpec generator;
  bool from_file() const { return !file.empty(); }
};

/// Right-hand side b.
struct RhsSpec {
  enum class Kind { ones, random, manufactured, file };
  Kind kind = Kind::manufactured;  ///< manufactured: b = A * 1, exact solution all ones
  std::uint64_t seed = 42;         ///< random: uniform in [-1, 1)
  std::string file;                ///< file: Matrix Market vector
  /// random: this many right-hand sides, column j from seed + j, solved together
  /// (Solver::solve with columns).
  int columns = 1;
};

/// Initial guess x0.
struct InitialGuessSpec {
  enum class Kind { zero, random, file };
  Kind kind = Kind::zero;
  std::uint64_t seed = 7;
  std::string file;
};

/// What the CLI writes. Empty paths write nothing. Output paths are relative to the
/// current directory.
struct OutputSpec {
  std::string report;    ///< JSON report
  std::string history;   ///< CSV residual history
  std::string solution;  ///< Matrix Market vector
};

/// Console logging of the CLI.
struct LoggingSpec {
  std::string level = "info";  ///< trace | debug | info | warn | error | off
  int print_every = 10;        ///< iteration table row every k iterations (0: none)
};

/// A whole problem file.
struct ProblemSpec {
  std::string name;         ///< defaults to the file's stem
  std::string source_path;  ///< the YAML file it came from (empty when built in code)
  MatrixSpec matrix;
  RhsSpec rhs;
  InitialGuessSpec initial_guess;
  SolverConfig config;
  OutputSpec output;
  LoggingSpec logging;
};

/// Reads and validates a YAML problem file. Throws ConfigError with
/// "FILE:LINE:COL: message" naming the key (unknown keys list the allowed ones),
/// wrong types, bad values and missing required keys; IoError if unreadable.
/// `overrides` ("KEY=VALUE", e.g. "preconditioner.type=jacobi", the value in YAML) replace
/// or add keys of the file before it is checked, in order; an error about such a key
/// names the override ("FILE: -o KEY=VALUE: message").
ProblemSpec load_problem_file(const std::string& path,
                              const std::vector<std::string>& overrides = {});

/// The solver, preconditioner, backend and cpu_kernels of a YAML text, as a problem file
/// gives them (the same keys, checks and messages, at "<config>:LINE:COL"), with no
/// matrix: for an application that configures prism from its own input or the C API. An
/// empty text gives the defaults. Throws ConfigError.
SolverConfig parse_solver_config(const std::string& text);

/// The assembled problem.
struct Problem {
  CsrMatrix<double> a;
  /// The right-hand sides: `columns` columns of a.rows entries, column-major.
  std::vector<double> b;
  int columns = 1;
  std::vector<double> x0;              ///< one column: the initial guess of every column
  std::vector<double> exact_solution;  ///< known for manufactured right-hand sides
};

/// Builds the matrix (reading or generating it), b and x0. Throws InputError,
/// ConfigError (bad generator parameters, size mismatch) or IoError.
Problem assemble_problem(const ProblemSpec& spec);

/// Builds only the matrix of a spec.
CsrMatrix<double> assemble_matrix(const MatrixSpec& spec);

}  // namespace prism
