// libFuzzer target: a YAML problem file (load_problem_file), then, for a small problem, its
// assembly and a short solve on the CPU backend: what `prism solve` does with the file. A
// prism::Error is the expected answer to a bad file; anything else (a crash, another
// exception, a sanitizer report, a hang, a huge allocation) is a finding.
//
// Files the YAML names resolve next to it, in this process's scratch folder, which holds the
// tiny Matrix Market files below (kSeedFiles); files elsewhere are never read, so a run
// depends on the input bytes only.

#include <prism/errors.hpp>
#include <prism/problem.hpp>
#include <prism/solver.hpp>

#include "scratch_dir.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace {

// A solve of a few thousand rows under ASan takes milliseconds; larger ones slow the
// fuzzer without reaching new code.
constexpr double kMostRows = 5000;
constexpr int kMostIterations = 25;

struct SeedFile {
  const char* name;
  const char* text;
};
// Good files, and hostile ones issue 43 named (sizes that must fail before allocation).
constexpr SeedFile kSeedFiles[] = {
    {"matrix.mtx",  // 4 x 4 SPD
     "%%MatrixMarket matrix coordinate real symmetric\n4 4 7\n"
     "1 1 4\n2 1 -1\n2 2 4\n3 2 -1\n3 3 4\n4 3 -1\n4 4 4\n"},
    {"rhs.mtx", "%%MatrixMarket matrix array real general\n4 1\n1\n-2.5\n3e2\n0.1\n"},
    {"x0.mtx", "%%MatrixMarket matrix coordinate real general\n4 1 2\n1 1 0.5\n4 1 -1\n"},
    {"one.mtx", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 2\n"},
    {"empty.mtx", "%%MatrixMarket matrix coordinate real general\n0 0 0\n"},
    {"huge_rows.mtx", "%%MatrixMarket matrix coordinate real general\n2147483647 1 1\n1 1 1\n"},
    {"too_few.mtx",
     "%%MatrixMarket matrix coordinate real symmetric\n2000000000 2000000000 1\n1 1 1\n"},
};

void write_text(const std::string& path, const char* text) {
  prism::fuzz::write_file(path, reinterpret_cast<const std::uint8_t*>(text),
                          std::char_traits<char>::length(text));
}

/// The scratch folder, with the seed files written once.
const std::string& problem_dir() {
  const std::string& dir = prism::fuzz::scratch_dir();
  static const bool seeded = [&] {
    for (const SeedFile& file : kSeedFiles) write_text(dir + "/" + file.name, file.text);
    return true;
  }();
  (void)seeded;
  return dir;
}

/// Whether `path` names a file directly in `dir` (anything else is not read).
bool in_dir(const std::string& path, const std::string& dir) {
  namespace fs = std::filesystem;
  return fs::path(path).lexically_normal().parent_path() == fs::path(dir).lexically_normal();
}

/// Rows the generator would make, from its own formula (3 per node for elasticity3d); in
/// double, so that no product overflows. Negative sizes count as their magnitude.
double generated_rows(const prism::GeneratorSpec& g) {
  const double nx = std::abs(static_cast<double>(g.nx));
  const double ny = std::abs(static_cast<double>(g.ny));
  const double nz = std::abs(static_cast<double>(g.nz));
  if (g.name == "elasticity3d") return 3 * (nx + 1) * (ny + 1) * nz;
  return nx * ny * std::max(nz, 1.0);
}

bool small_and_local(const prism::ProblemSpec& spec, const std::string& dir) {
  if (spec.matrix.from_file()) {
    if (!in_dir(spec.matrix.file, dir)) return false;
  } else if (generated_rows(spec.matrix.generator) > kMostRows) {
    return false;
  }
  if (spec.rhs.kind == prism::RhsSpec::Kind::file && !in_dir(spec.rhs.file, dir)) return false;
  if (spec.initial_guess.kind == prism::InitialGuessSpec::Kind::file &&
      !in_dir(spec.initial_guess.file, dir)) {
    return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  prism::fuzz::use_one_host_thread();
  const std::string& dir = problem_dir();
  const std::string path = dir + "/problem.yaml";
  prism::fuzz::write_file(path, data, size);
  try {
    prism::ProblemSpec spec = prism::load_problem_file(path);
    if (!small_and_local(spec, dir)) return 0;
    // No GPU here, and a bounded solve: the set-up and the first iterations are what a
    // hostile file can reach.
    spec.config.backend = prism::BackendKind::cpu;
    spec.config.solver.max_iterations =
        std::min(spec.config.solver.max_iterations, kMostIterations);
    prism::Problem problem = prism::assemble_problem(spec);
    prism::Solver solver(spec.config);
    solver.setup(problem.a);
    std::vector<double> x = problem.x0;
    solver.solve(problem.b, x);
  } catch (const prism::Error&) {
  }
  return 0;
}
