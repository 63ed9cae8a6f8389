// YAML problem files: valid files give the expected structs, invalid ones a
// ConfigError naming the file, the 1-based line:column and the offending key or value,
// and every problem shipped in inputs/ loads and assembles.

#include <prism/errors.hpp>
#include <prism/problem.hpp>
#include <prism/solver.hpp>

#include "common/param_names.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <ostream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::string yaml_path(const std::string& name) {
  return std::string(PRISM_TEST_DATA_DIR) + "/yaml/" + name;
}

std::string normal(const fs::path& p) {
  return p.lexically_normal().string();
}

TEST(ProblemFile, MinimalFileTakesEveryDefault) {
  const std::string path = yaml_path("valid_minimal.yaml");
  const prism::ProblemSpec spec = prism::load_problem_file(path);
  const prism::ProblemSpec defaults;

  EXPECT_EQ(spec.name, "valid_minimal");
  EXPECT_EQ(spec.source_path, path);
  EXPECT_FALSE(spec.matrix.from_file());
  EXPECT_EQ(spec.matrix.generator.name, "poisson2d");
  EXPECT_EQ(spec.matrix.generator.nx, 3);
  EXPECT_EQ(spec.matrix.generator.ny, 2);
  EXPECT_EQ(spec.rhs.kind, defaults.rhs.kind);
  EXPECT_EQ(spec.rhs.seed, defaults.rhs.seed);
  EXPECT_EQ(spec.initial_guess.kind, defaults.initial_guess.kind);
  EXPECT_EQ(spec.config.solver.tolerance, defaults.config.solver.tolerance);
  EXPECT_EQ(spec.config.solver.max_iterations, defaults.config.solver.max_iterations);
  EXPECT_EQ(spec.config.preconditioner.type, "auto");
  EXPECT_EQ(spec.config.preconditioner.ordering, prism::Ordering::automatic);
  EXPECT_EQ(prism::resolved_ordering(spec.config.preconditioner), prism::Ordering::color);
  EXPECT_EQ(spec.config.preconditioner.coloring.vertex_order, prism::VertexOrder::natural);
  EXPECT_FALSE(spec.config.preconditioner.coloring.balance);
  EXPECT_EQ(spec.config.preconditioner.ic0.initial_shift,
            defaults.config.preconditioner.ic0.initial_shift);
  EXPECT_EQ(spec.config.backend, prism::BackendKind::automatic);
  EXPECT_TRUE(spec.output.report.empty());
  EXPECT_TRUE(spec.output.history.empty());
  EXPECT_TRUE(spec.output.solution.empty());
  EXPECT_EQ(spec.logging.level, "info");
  EXPECT_EQ(spec.logging.print_every, 10);
}

TEST(ProblemFile, FullFileSetsEveryKey) {
  const prism::ProblemSpec spec = prism::load_problem_file(yaml_path("valid_full.yaml"));
  EXPECT_EQ(spec.name, "full example");
  const prism::GeneratorSpec& g = spec.matrix.generator;
  EXPECT_EQ(g.name, "layered3d");
  EXPECT_EQ(g.nx, 4);
  EXPECT_EQ(g.ny, 5);
  EXPECT_EQ(g.nz, 6);
  EXPECT_EQ(g.layers, 3);
  EXPECT_EQ(g.coefficients, (std::vector<double>{1.0, 1000.0, 0.5}));
  EXPECT_EQ(spec.rhs.kind, prism::RhsSpec::Kind::random);
  EXPECT_EQ(spec.rhs.seed, 123u);
  EXPECT_EQ(spec.initial_guess.kind, prism::InitialGuessSpec::Kind::random);
  EXPECT_EQ(spec.initial_guess.seed, 99u);
  EXPECT_DOUBLE_EQ(spec.config.solver.tolerance, 1e-6);
  EXPECT_EQ(spec.config.solver.max_iterations, 250);
  EXPECT_EQ(spec.config.solver.check_every, 5);
  EXPECT_EQ(spec.config.solver.timing, prism::TimingMode::total);
  EXPECT_EQ(spec.config.solver.graph, prism::GraphMode::off);
  const prism::PreconditionerOptions& p = spec.config.preconditioner;
  EXPECT_EQ(p.type, "ic0");
  EXPECT_EQ(p.ordering, prism::Ordering::natural);
  EXPECT_EQ(p.coloring.vertex_order, prism::VertexOrder::smallest_last);
  EXPECT_TRUE(p.coloring.balance);
  EXPECT_EQ(p.trisolve, prism::TrisolveAlgorithm::colorset);
  EXPECT_DOUBLE_EQ(p.ic0.initial_shift, 0.01);
  EXPECT_EQ(p.ic0.max_shift_retries, 5);
  EXPECT_EQ(p.ic0.factorization, prism::Ic0Factorization::backend);
  EXPECT_EQ(p.ic0.precision, prism::Precision::mixed);
  EXPECT_EQ(spec.config.backend, prism::BackendKind::cpu);
  // Output paths are relative to the current directory, not to the YAML file.
  EXPECT_EQ(spec.output.report, "out/full.json");
  EXPECT_EQ(spec.output.history, "out/full.csv");
  EXPECT_EQ(spec.output.solution, "out/full.mtx");
  EXPECT_EQ(spec.logging.level, "warn");
  EXPECT_EQ(spec.logging.print_every, 0);
}

TEST(ProblemFile, ScalarShorthands) {
  const prism::ProblemSpec spec = prism::load_problem_file(yaml_path("valid_shorthand.yaml"));
  EXPECT_EQ(spec.matrix.generator.name, "poisson3d");
  EXPECT_EQ(spec.matrix.generator.stencil, 27);
  EXPECT_EQ(spec.rhs.kind, prism::RhsSpec::Kind::ones);
  EXPECT_EQ(spec.initial_guess.kind, prism::InitialGuessSpec::Kind::random);
  EXPECT_EQ(spec.initial_guess.seed, prism::InitialGuessSpec{}.seed);
  EXPECT_EQ(spec.config.preconditioner.type, "jacobi");
  EXPECT_EQ(spec.config.backend, prism::BackendKind::automatic);
}

TEST(ProblemFile, LevelCyclicColoring) {
  const prism::ProblemSpec spec = prism::load_problem_file(yaml_path("valid_level_cyclic.yaml"));
  EXPECT_EQ(spec.config.preconditioner.coloring.method, prism::ColoringMethod::level_cyclic);
  EXPECT_EQ(spec.config.preconditioner.coloring.colors, 16);
}

// Coloring options ask for a coloring: jacobi with them runs in color order, as ic0 does.
TEST(ProblemFile, ColoringOptionsMakeTheOrderingColor) {
  const prism::ProblemSpec spec = prism::load_problem_file(yaml_path("valid_jacobi_colored.yaml"));
  EXPECT_EQ(spec.config.preconditioner.type, "jacobi");
  EXPECT_EQ(spec.config.preconditioner.ordering, prism::Ordering::color);
  EXPECT_EQ(spec.config.preconditioner.coloring.vertex_order, prism::VertexOrder::largest_first);
}

TEST(ProblemFile, AnisotropicCoefficients) {
  const prism::ProblemSpec spec = prism::load_problem_file(yaml_path("valid_anisotropic.yaml"));
  EXPECT_EQ(spec.matrix.generator.coefficients, (std::vector<double>{2.0, 0.5}));
  EXPECT_EQ(spec.config.preconditioner.type, "none");
}

TEST(ProblemFile, InputPathsAreRelativeToTheYamlFile) {
  const prism::ProblemSpec spec = prism::load_problem_file(yaml_path("valid_files.yaml"));
  const fs::path dir = fs::path(PRISM_TEST_DATA_DIR) / "yaml";
  ASSERT_TRUE(spec.matrix.from_file());
  EXPECT_EQ(spec.matrix.file, normal(dir / "tiny.mtx"));
  EXPECT_EQ(spec.rhs.kind, prism::RhsSpec::Kind::file);
  EXPECT_EQ(spec.rhs.file, normal(dir / "tiny_rhs.mtx"));
  EXPECT_EQ(spec.initial_guess.kind, prism::InitialGuessSpec::Kind::file);
  EXPECT_EQ(spec.initial_guess.file, normal(dir / "tiny_x0.mtx"));
}

TEST(ProblemFile, SubnormalNumberIsFinite) {
  const prism::ProblemSpec spec = prism::load_problem_file(yaml_path("valid_subnormal_shift.yaml"));
  EXPECT_EQ(spec.config.preconditioner.ic0.initial_shift, 1e-320);
}

TEST(ProblemFile, TrailingSeparatorOpensNoSecondDocument) {
  const prism::ProblemSpec spec =
      prism::load_problem_file(yaml_path("valid_trailing_separator.yaml"));
  EXPECT_EQ(spec.matrix.generator.name, "poisson2d");
}

// A problem file is read up to a bound: a huge file or an endless device is an error
// that names it, not an unbounded read.
TEST(ProblemFile, OversizedInputIsRejectedAfterABoundedRead) {
  const fs::path big = fs::temp_directory_path() / "prism_test_big_problem.yaml";
  {
    std::ofstream out(big, std::ios::binary);
    out << "# " << std::string((std::size_t{1} << 20), 'x') << "\n";
  }
  for (const std::string path : {big.string(), std::string("/dev/zero")}) {
    if (!fs::exists(path)) continue;
    try {
      prism::load_problem_file(path);
      FAIL() << path << " was accepted";
    } catch (const prism::IoError& e) {
      EXPECT_NE(std::string(e.what()).find(path + ": larger than 1 MiB"), std::string::npos)
          << e.what();
    }
  }
  fs::remove(big);
}

TEST(ProblemFile, UnreadableFileIsAnIoError) {
  EXPECT_THROW(prism::load_problem_file(yaml_path("no_such_file.yaml")), prism::IoError);
}

/// An invalid file, where its error must point and what the message must say.
struct InvalidCase {
  std::string file;
  int line;
  int column;
  std::vector<std::string> says;
};

std::ostream& operator<<(std::ostream& os, const InvalidCase& c) {
  return os << c.file;
}

class ProblemFileInvalid : public testing::TestWithParam<InvalidCase> {};

TEST_P(ProblemFileInvalid, ThrowsConfigErrorWithLocation) {
  const InvalidCase& c = GetParam();
  const std::string path = yaml_path(c.file);
  try {
    prism::load_problem_file(path);
    FAIL() << c.file << " was accepted";
  } catch (const prism::ConfigError& e) {
    const std::string message = e.what();
    const std::string where =
        path + ":" + std::to_string(c.line) + ":" + std::to_string(c.column) + ": ";
    EXPECT_EQ(message.rfind(where, 0), 0u) << message << "\n  expected to start with " << where;
    for (const auto& s : c.says) {
      EXPECT_NE(message.find(s), std::string::npos) << message << "\n  lacks: " << s;
    }
    EXPECT_EQ(message.find('\n'), std::string::npos) << "one line: " << message;
  }
}

const InvalidCase invalid_cases[] = {
    {"bad_unknown_key_solver.yaml",
     6,
     3,
     {"unknown key 'tolerence' in solver; allowed: tolerance, absolute_tolerance, "
      "max_iterations"}},
    {"bad_unknown_top_key.yaml",
     5,
     1,
     {"unknown key 'preconditoner'", "allowed:", "preconditioner"}},
    {"bad_int_type.yaml", 7, 19, {"solver.max_iterations: expected an integer, got 'ten'"}},
    {"bad_double_type.yaml", 6, 14, {"solver.tolerance", "expected a finite number", "'small'"}},
    {"bad_backend.yaml", 5, 10, {"backend: unknown value 'gpu'; allowed: auto | cpu | cuda"}},
    {"bad_ordering.yaml",
     7,
     13,
     {"preconditioner.ordering: unknown value 'rcm'; allowed: auto | natural | color"}},
    {"bad_preconditioner.yaml", 5, 17, {"preconditioner", "'ilu0'", "jacobi", "ic0"}},
    {"bad_missing_matrix.yaml", 1, 1, {"missing required key 'matrix'"}},
    {"bad_missing_nz.yaml", 2, 3, {"missing required key 'nz'", "poisson3d"}},
    {"bad_generator_extra_key.yaml",
     5,
     3,
     {"key 'nz' does not apply to generator poisson2d", "allowed: generator, nx, ny"}},
    {"bad_syntax.yaml", 4, 5, {"YAML syntax error", "end of sequence flow not found"}},
    {"bad_syntax_indent.yaml", 4, 6, {"YAML syntax error", "illegal map value"}},
    {"bad_section_empty.yaml", 5, 1, {"solver: expected a map, got nothing"}},
    {"bad_nx_float.yaml", 3, 7, {"matrix.nx: expected an integer, got '4.0'"}},
    {"bad_empty.yaml", 1, 1, {"empty problem file"}},
    {"bad_top_sequence.yaml", 1, 1, {"expected a map, got a sequence"}},
    {"bad_duplicate_key.yaml", 5, 3, {"duplicate key 'matrix.nx'", "line 3"}},
    {"bad_file_and_generator.yaml", 3, 3, {"either 'file' or 'generator'"}},
    {"bad_tolerance_range.yaml", 6, 14, {"solver.tolerance: must be > 0 and < 1, got 1.5"}},
    {"bad_rhs_type.yaml", 6, 9, {"rhs.type: unknown value 'zeros'", "manufactured"}},
    {"bad_nx_zero.yaml", 3, 7, {"matrix.nx: must be >= 1, got 0"}},
    {"bad_coefficient_count.yaml", 6, 17, {"matrix.coefficients", "takes 3", "got 2"}},
    {"bad_coefficient_negative.yaml",
     6,
     23,
     {"matrix.coefficients[1]: must be > 0 and <= 1e300, got -3.0"}},
    {"bad_coefficient_overflow.yaml",
     6,
     23,
     {"matrix.coefficients[1]: must be > 0 and <= 1e300, got 1e308"}},
    {"bad_layers_exceed_nz.yaml", 6, 11, {"matrix.layers: must not exceed nz (4), got 9"}},
    {"bad_section_scalar.yaml", 5, 9, {"solver: expected a map, got '5'"}},
    {"bad_rhs_file_missing.yaml", 6, 3, {"rhs: missing required key 'file'"}},
    {"bad_graph.yaml", 6, 10, {"solver.graph: unknown value 'always'", "auto | on | loop | off"}},
    {"bad_precision.yaml",
     7,
     16,
     {"preconditioner.ic0.precision: unknown value 'half'", "double | mixed"}},
    {"bad_vertex_order.yaml",
     7,
     19,
     {"preconditioner.coloring.vertex_order: unknown value 'random'",
      "natural | largest_first | smallest_last"}},
    {"bad_coloring_method.yaml",
     7,
     13,
     {"preconditioner.coloring.method: unknown value 'cyclic'", "greedy | level_cyclic"}},
    {"bad_coloring_balance.yaml",
     8,
     14,
     {"preconditioner.coloring.balance: expected true or false, got 'yes'"}},
    {"bad_log_level.yaml", 6, 10, {"logging.level: unknown value 'verbose'", "trace"}},
    {"bad_ic0_for_jacobi.yaml",
     7,
     3,
     {"key 'ic0' does not apply to preconditioner type jacobi", "allowed: type, ordering"}},
    {"bad_generator_name.yaml",
     2,
     14,
     {"matrix.generator: unknown value 'poisson4d'", "layered3d"}},
    {"bad_stencil.yaml", 6, 12, {"matrix.stencil: must be 7 or 27, got 19"}},
    {"bad_seed_for_ones.yaml", 7, 3, {"key 'seed' does not apply to rhs type ones"}},
    {"bad_unknown_ic0_key.yaml",
     8,
     5,
     {"unknown key 'shift' in preconditioner.ic0; allowed: initial_shift, max_shift_retries"}},
    {"bad_print_every.yaml", 6, 16, {"logging.print_every: must be >= 0, got -1"}},
    {"bad_two_documents.yaml", 6, 1, {"expected one YAML document, found more"}},
    // yaml-cpp's parser stops advancing on these; they must fail at once, not loop.
    {"bad_leading_comma.yaml", 1, 1, {"YAML syntax error", "cannot go on"}},
    {"bad_tag_comma.yaml", 1, 2, {"YAML syntax error", "cannot go on"}},
    {"bad_comma_after_separator.yaml", 2, 1, {"YAML syntax error", "cannot go on"}},
    {"bad_empty_first_document.yaml", 3, 1, {"expected one YAML document, found more"}},
};

std::string case_name(const testing::TestParamInfo<InvalidCase>& info) {
  return prism::test::file_stem_name(info.param.file);
}

INSTANTIATE_TEST_SUITE_P(ProblemFileErrors, ProblemFileInvalid, testing::ValuesIn(invalid_cases),
                         case_name);

TEST(ProblemFile, EveryInvalidFileIsTested) {
  std::vector<std::string> tested;
  for (const auto& c : invalid_cases) tested.push_back(c.file);
  for (const auto& entry : fs::directory_iterator(fs::path(PRISM_TEST_DATA_DIR) / "yaml")) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("bad_", 0) == 0) {
      EXPECT_NE(std::find(tested.begin(), tested.end(), name), tested.end()) << name;
    }
  }
  EXPECT_GE(tested.size(), 12u);
}

// Every shipped problem must run as it is: it loads, assembles, and stays small enough
// for the CPU backend (<= ~300k unknowns).
// rhs.columns: the columns one after another, column j the random vector of seed + j.
TEST(ProblemFile, RandomRhsColumnsAreSeedsInARow) {
  prism::ProblemSpec spec;
  spec.matrix.generator = {"poisson2d", 7, 5, 0, 7, {}, 1};
  spec.rhs.kind = prism::RhsSpec::Kind::random;
  spec.rhs.seed = 5;
  spec.rhs.columns = 3;
  const prism::Problem p = prism::assemble_problem(spec);
  ASSERT_EQ(p.columns, 3);
  ASSERT_EQ(p.b.size(), 3u * 35u);
  for (int j = 0; j < 3; ++j) {
    prism::ProblemSpec one = spec;
    one.rhs.seed = 5 + j;
    one.rhs.columns = 1;
    const prism::Problem q = prism::assemble_problem(one);
    EXPECT_EQ(q.columns, 1);
    EXPECT_EQ(std::vector<double>(p.b.begin() + 35 * j, p.b.begin() + 35 * (j + 1)), q.b);
  }
}

TEST(ProblemFile, EveryInputLoadsAndAssembles) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(PRISM_INPUTS_DIR)) {
    if (entry.path().extension() == ".yaml") files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 14u);
  for (const auto& file : files) {
    SCOPED_TRACE(file.string());
    prism::ProblemSpec spec;
    ASSERT_NO_THROW(spec = prism::load_problem_file(file.string()));
    EXPECT_FALSE(spec.name.empty());
    for (const std::string* out :
         {&spec.output.report, &spec.output.history, &spec.output.solution}) {
      if (!out->empty()) EXPECT_EQ(out->rfind("out/", 0), 0u) << *out;
    }
    prism::Problem p;
    ASSERT_NO_THROW(p = prism::assemble_problem(spec));
    EXPECT_GT(p.a.rows, 0);
    EXPECT_LE(p.a.rows, 300000);
    EXPECT_EQ(p.a.rows, p.a.cols);
    EXPECT_EQ(p.b.size(), static_cast<std::size_t>(p.a.rows) * p.columns);  // rhs.columns
    EXPECT_EQ(p.x0.size(), static_cast<std::size_t>(p.a.rows));
  }
}

// The default problem of the README.
TEST(ProblemFile, DefaultInputIsPoisson3d64) {
  const prism::ProblemSpec spec =
      prism::load_problem_file(std::string(PRISM_INPUTS_DIR) + "/poisson3d.yaml");
  EXPECT_EQ(spec.matrix.generator.name, "poisson3d");
  EXPECT_EQ(spec.matrix.generator.nx, 64);
  EXPECT_EQ(spec.matrix.generator.ny, 64);
  EXPECT_EQ(spec.matrix.generator.nz, 64);
  EXPECT_EQ(spec.matrix.generator.stencil, 7);
  EXPECT_EQ(spec.config.preconditioner.type, "ic0");
  EXPECT_EQ(spec.config.preconditioner.ordering, prism::Ordering::color);
  EXPECT_EQ(spec.rhs.kind, prism::RhsSpec::Kind::manufactured);
  EXPECT_DOUBLE_EQ(spec.config.solver.tolerance, 1e-8);
}

// A configuration from text: the problem file's keys and checks, no matrix.
TEST(SolverConfigText, ReadsTheSolverPreconditionerAndBackend) {
  const prism::SolverConfig c = prism::parse_solver_config(
      "solver: {tolerance: 1.0e-6, check_every: 4}\n"
      "preconditioner: {type: block_ic, block_ic: {block_size: 3}}\n"
      "backend: cpu\n");
  EXPECT_EQ(c.solver.tolerance, 1e-6);
  EXPECT_EQ(c.solver.check_every, 4);
  EXPECT_EQ(c.preconditioner.type, "block_ic");
  EXPECT_EQ(c.preconditioner.block_ic.block_size, 3);
  EXPECT_EQ(c.backend, prism::BackendKind::cpu);
  const prism::SolverConfig defaults = prism::parse_solver_config("");
  EXPECT_EQ(defaults.solver.tolerance, prism::SolverConfig{}.solver.tolerance);
  EXPECT_EQ(defaults.preconditioner.type, "auto");
}

// Type auto: the default, a name alone, and with the options of either type it may pick;
// the explicit types still take only their own.
// The device is a key (the stream, a pointer, only the API's); a cpu solve ignores it.
TEST(SolverConfigText, ReadsTheDeviceAndRejectsBelowMinusOne) {
  EXPECT_EQ(prism::SolverConfig{}.device, -1);
  EXPECT_EQ(prism::SolverConfig{}.stream, nullptr);
  EXPECT_EQ(prism::parse_solver_config("device: 3").device, 3);
  try {
    prism::parse_solver_config("backend: cpu\ndevice: -2");
    FAIL() << "device -2 accepted";
  } catch (const prism::ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("<config>:2:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("device"), std::string::npos) << e.what();
  }
  prism::SolverConfig c;
  c.backend = prism::BackendKind::cpu;
  c.device = -2;
  EXPECT_THROW(prism::Solver{c}, prism::ConfigError);
  c.device = 7;  // no GPU is asked for
  EXPECT_NO_THROW(prism::Solver{c});
}

TEST(SolverConfigText, AutoTakesTheOptionsOfIc0AndBlockIc) {
  EXPECT_EQ(prism::parse_solver_config("preconditioner: auto").preconditioner.type, "auto");
  const prism::SolverConfig given = prism::parse_solver_config(
      "preconditioner: {block_ic: {block_size: 6}, ic0: {initial_shift: 0.01}}");
  EXPECT_EQ(given.preconditioner.type, "auto");
  EXPECT_EQ(given.preconditioner.block_ic.block_size, 6);
  EXPECT_EQ(given.preconditioner.ic0.initial_shift, 0.01);
  const prism::SolverConfig typed = prism::parse_solver_config(
      "preconditioner: {type: auto, block_ic: {supernode: 24}, ic0: {precision: mixed}}");
  EXPECT_EQ(typed.preconditioner.block_ic.supernode, 24);
  EXPECT_EQ(typed.preconditioner.ic0.precision, prism::Precision::mixed);
  const auto message = [](const std::string& text) {
    try {
      prism::parse_solver_config(text);
    } catch (const prism::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string ic0 = message("preconditioner: {type: ic0, block_ic: {block_size: 3}}");
  EXPECT_NE(ic0.find("key 'block_ic' does not apply to preconditioner type ic0"), std::string::npos)
      << ic0;
  const std::string block_ic = message("preconditioner: {type: block_ic, ic0: {}}");
  EXPECT_NE(block_ic.find("key 'ic0' does not apply to preconditioner type block_ic"),
            std::string::npos)
      << block_ic;
  const std::string bad = message("preconditioner: automatic");
  EXPECT_NE(bad.find("allowed: auto | none | jacobi | ic0 | block_ic"), std::string::npos) << bad;
}

TEST(SolverConfigText, ErrorsNameTheLineAndTheKey) {
  const auto message = [](const std::string& text) {
    try {
      prism::parse_solver_config(text);
    } catch (const prism::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("solver: {tolerance: 2}"),
            "<config>:1:21: solver.tolerance: must be > 0 and < 1, got 2");
  EXPECT_NE(message("matrix: {generator: poisson2d, nx: 3, ny: 3}")
                .find("<config>:1:1: unknown key 'matrix' at the top level; allowed: "
                      "solver, preconditioner, backend"),
            std::string::npos)
      << message("matrix: {}");
  EXPECT_NE(message(",").find("<config>:1:1: YAML syntax error"), std::string::npos)
      << message(",");
  EXPECT_NE(message("solver: {graph: loop}").find("solver.graph: loop needs solver.timing"),
            std::string::npos)
      << message("solver: {graph: loop}");
}

// -o KEY=VALUE: keys replaced or added before the checks, in order; a section given as a
// name (preconditioner: jacobi) keeps its type; errors name the override.
TEST(ProblemFileOverrides, ReplaceAndAddKeys) {
  const std::string inputs = PRISM_INPUTS_DIR;
  const prism::ProblemSpec spec = prism::load_problem_file(
      inputs + "/jacobi.yaml",
      {"matrix.nx=32", "solver.tolerance=1e-6", "preconditioner.ordering=color",
       "solver.tolerance=1e-7", "backend=cpu", "rhs=ones"});
  EXPECT_EQ(spec.matrix.generator.nx, 32);
  EXPECT_EQ(spec.config.solver.tolerance, 1e-7);  // the later override wins
  EXPECT_EQ(spec.config.preconditioner.type, "jacobi");
  EXPECT_EQ(spec.config.preconditioner.ordering, prism::Ordering::color);
  EXPECT_EQ(spec.config.backend, prism::BackendKind::cpu);
  EXPECT_EQ(spec.rhs.kind, prism::RhsSpec::Kind::ones);
  const prism::ProblemSpec type =
      prism::load_problem_file(inputs + "/poisson3d.yaml", {"preconditioner=jacobi"});
  EXPECT_EQ(type.config.preconditioner.type, "jacobi");
}

TEST(ProblemFileOverrides, ErrorsNameTheOverride) {
  const std::string file = std::string(PRISM_INPUTS_DIR) + "/jacobi.yaml";
  const auto message = [&](const std::string& override_text) {
    try {
      prism::load_problem_file(file, {override_text});
    } catch (const prism::ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("solver.tolerance=2"),
            file + ": -o solver.tolerance=2: solver.tolerance: must be > 0 and < 1, got 2");
  EXPECT_EQ(message("solver.tolerence=2"),
            "-o solver.tolerence=2: unknown key 'solver.tolerence' (prism options lists the keys)");
  EXPECT_EQ(message("solver"), "-o solver: expected KEY=VALUE, e.g. -o solver.tolerance=1e-10");
  EXPECT_NE(message("matrix.coefficients=[1, -2]")
                .find("-o matrix.coefficients=[1, -2]: matrix.coefficients[1]: must be > 0"),
            std::string::npos)
      << message("matrix.coefficients=[1, -2]");
  EXPECT_NE(message("solver.graph=loop").find("-o solver.graph=loop: solver.graph: loop needs"),
            std::string::npos)
      << message("solver.graph=loop");
}

}  // namespace
