// Problem assembly: the matrix from its generator or file, right-hand sides (ones,
// seeded random, manufactured b = A * 1, file) and initial guesses.

#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/problem.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

using prism::CsrMatrix;

prism::ProblemSpec poisson_spec(prism::index_t nx, prism::index_t ny) {
  prism::ProblemSpec spec;
  spec.matrix.generator.name = "poisson2d";
  spec.matrix.generator.nx = nx;
  spec.matrix.generator.ny = ny;
  return spec;
}

void expect_same(const CsrMatrix<double>& a, const CsrMatrix<double>& b) {
  EXPECT_EQ(a.rows, b.rows);
  EXPECT_EQ(a.cols, b.cols);
  EXPECT_EQ(a.row_ptr, b.row_ptr);
  EXPECT_EQ(a.col_idx, b.col_idx);
  EXPECT_EQ(a.values, b.values);
}

std::string yaml_path(const std::string& name) {
  return std::string(PRISM_TEST_DATA_DIR) + "/yaml/" + name;
}

TEST(Assemble, EveryGeneratorByName) {
  prism::MatrixSpec m;
  prism::GeneratorSpec& g = m.generator;
  g.nx = 3;
  g.ny = 4;
  g.nz = 5;

  g.name = "poisson2d";
  expect_same(prism::assemble_matrix(m), prism::poisson2d(3, 4));
  g.name = "poisson3d";
  expect_same(prism::assemble_matrix(m), prism::poisson3d(3, 4, 5));
  g.stencil = 27;
  expect_same(prism::assemble_matrix(m), prism::poisson3d(3, 4, 5, 27));
  g.name = "anisotropic2d";
  g.coefficients = {2.0, 0.5};
  expect_same(prism::assemble_matrix(m), prism::anisotropic2d(3, 4, 2.0, 0.5));
  g.name = "anisotropic3d";
  g.coefficients = {2.0, 0.5, 7.0};
  expect_same(prism::assemble_matrix(m), prism::anisotropic3d(3, 4, 5, 2.0, 0.5, 7.0));
  g.name = "layered2d";
  g.layers = 2;
  expect_same(prism::assemble_matrix(m), prism::layered(3, 4, 0, 2, {2.0, 0.5, 7.0}));
  g.name = "layered3d";
  expect_same(prism::assemble_matrix(m), prism::layered(3, 4, 5, 2, {2.0, 0.5, 7.0}));
  g.name = "elasticity3d";
  expect_same(prism::assemble_matrix(m), prism::elasticity3d(3, 4, 5, 2, {2.0, 0.5, 7.0}));
  g.name = "stretched3d";
  g.coefficients = {50.0};
  expect_same(prism::assemble_matrix(m), prism::stretched3d(3, 4, 5, 50.0));
  g.name = "rotated3d";
  g.coefficients = {2.0, 0.5, 7.0};
  expect_same(prism::assemble_matrix(m), prism::rotated3d(3, 4, 5, 2.0, 0.5, 7.0));
}

TEST(Assemble, RejectsBadGeneratorSpecs) {
  prism::MatrixSpec m;
  m.generator.nx = m.generator.ny = m.generator.nz = 3;
  m.generator.name = "poisson4d";
  EXPECT_THROW(prism::assemble_matrix(m), prism::ConfigError);
  m.generator.name = "anisotropic3d";
  m.generator.coefficients = {1.0, 2.0};
  EXPECT_THROW(prism::assemble_matrix(m), prism::ConfigError);
  m.generator.name = "layered3d";
  m.generator.nz = 0;
  EXPECT_THROW(prism::assemble_matrix(m), prism::ConfigError);
  m.generator.name = "poisson2d";
  m.generator.nx = 0;
  EXPECT_THROW(prism::assemble_matrix(m), prism::ConfigError);
}

TEST(Assemble, ManufacturedRhsIsATimesOnes) {
  prism::ProblemSpec spec = poisson_spec(4, 3);
  spec.matrix.generator.name = "layered2d";
  spec.matrix.generator.layers = 3;
  spec.matrix.generator.coefficients = {1.0, 50.0, 0.1};
  spec.rhs.kind = prism::RhsSpec::Kind::manufactured;
  const prism::Problem p = prism::assemble_problem(spec);
  ASSERT_EQ(p.b.size(), 12u);
  ASSERT_EQ(p.exact_solution, std::vector<double>(12, 1.0));
  for (prism::index_t i = 0; i < p.a.rows; ++i) {
    double sum = 0.0;
    for (prism::index_t k = p.a.row_ptr[i]; k < p.a.row_ptr[i + 1]; ++k) {
      sum += p.a.values[k] * p.exact_solution[p.a.col_idx[k]];
    }
    EXPECT_DOUBLE_EQ(p.b[i], sum);
  }
  EXPECT_EQ(p.x0, std::vector<double>(12, 0.0));
}

TEST(Assemble, OnesRhsHasNoExactSolution) {
  prism::ProblemSpec spec = poisson_spec(5, 2);
  spec.rhs.kind = prism::RhsSpec::Kind::ones;
  const prism::Problem p = prism::assemble_problem(spec);
  EXPECT_EQ(p.b, std::vector<double>(10, 1.0));
  EXPECT_TRUE(p.exact_solution.empty());
}

TEST(Assemble, RandomVectorsAreSeededAndInRange) {
  prism::ProblemSpec spec = poisson_spec(20, 20);
  spec.rhs.kind = prism::RhsSpec::Kind::random;
  spec.rhs.seed = 5;
  spec.initial_guess.kind = prism::InitialGuessSpec::Kind::random;
  spec.initial_guess.seed = 6;
  const prism::Problem p = prism::assemble_problem(spec);
  const prism::Problem q = prism::assemble_problem(spec);
  EXPECT_EQ(p.b, q.b);
  EXPECT_EQ(p.x0, q.x0);
  EXPECT_NE(p.b, p.x0);
  double mean = 0.0;
  for (double v : p.b) {
    EXPECT_GE(v, -1.0);
    EXPECT_LT(v, 1.0);
    mean += v / p.b.size();
  }
  EXPECT_LT(std::abs(mean), 0.15);
  spec.rhs.seed = 8;
  EXPECT_NE(prism::assemble_problem(spec).b, p.b);
}

TEST(Assemble, VectorsAndMatrixFromFiles) {
  const prism::ProblemSpec spec = prism::load_problem_file(yaml_path("valid_files.yaml"));
  const prism::Problem p = prism::assemble_problem(spec);
  ASSERT_EQ(p.a.rows, 3);
  EXPECT_EQ(p.a.nnz(), 7);
  EXPECT_EQ(p.a.values, (std::vector<double>{2, -1, -1, 2, -1, -1, 2}));
  EXPECT_EQ(p.b, (std::vector<double>{1.0, 0.0, 1.0}));
  EXPECT_EQ(p.x0, (std::vector<double>{0.25, 0.5, 0.75}));
  EXPECT_TRUE(p.exact_solution.empty());
}

TEST(Assemble, VectorFileOfWrongSizeNamesTheFile) {
  const prism::ProblemSpec spec = prism::load_problem_file(yaml_path("valid_wrong_size_rhs.yaml"));
  try {
    prism::assemble_problem(spec);
    FAIL() << "size mismatch accepted";
  } catch (const prism::InputError& e) {
    // Found at the size line, before the vector is allocated.
    const std::string message = e.what();
    EXPECT_NE(message.find("tiny_rhs.mtx:"), std::string::npos) << message;
    EXPECT_NE(message.find("declares 3 rows, expected 6"), std::string::npos) << message;
  }

  prism::ProblemSpec x0_spec = poisson_spec(2, 2);
  x0_spec.initial_guess.kind = prism::InitialGuessSpec::Kind::file;
  x0_spec.initial_guess.file = yaml_path("tiny_x0.mtx");
  EXPECT_THROW(prism::assemble_problem(x0_spec), prism::InputError);
}

// A vector file that declares 2^31 - 1 rows fails at its size line: nothing of that size
// is allocated (the vector would take 16 GiB).
TEST(Assemble, VectorSizeLineIsCheckedBeforeAllocating) {
  const fs::path file = fs::temp_directory_path() / "prism_test_huge_rhs.mtx";
  {
    std::ofstream out(file);
    out << "%%MatrixMarket matrix coordinate real general\n2147483647 1 1\n1 1 1.0\n";
  }
  prism::ProblemSpec spec = poisson_spec(2, 2);
  spec.rhs.kind = prism::RhsSpec::Kind::file;
  spec.rhs.file = file.string();
  try {
    prism::assemble_problem(spec);
    FAIL() << "accepted";
  } catch (const prism::InputError& e) {
    EXPECT_EQ(e.line(), 2);
    EXPECT_NE(std::string(e.what()).find("declares 2147483647 rows, expected 4"), std::string::npos)
        << e.what();
  }
  fs::remove(file);
}

TEST(Assemble, MissingMatrixFileThrows) {
  prism::MatrixSpec m;
  m.file = yaml_path("no_such_matrix.mtx");
  EXPECT_THROW(prism::assemble_matrix(m), prism::Error);
}

}  // namespace
