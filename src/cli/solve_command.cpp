#include <prism/errors.hpp>
#include <prism/matrix_market.hpp>
#include <prism/problem.hpp>
#include <prism/report_io.hpp>
#include <prism/solver.hpp>

#include "cli/commands.hpp"
#include "cli/console_report.hpp"
#include "cli/progress_line.hpp"
#include "cli/solve_steps.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <future>

namespace prism::cli {
namespace {

struct SolveArgs {
  std::string problem_file;
  std::string backend, report, history, solution, log_level;
  int print_every = -1;
  std::vector<std::string> overrides;  ///< -o KEY=VALUE, in order
};

/// A Matrix Market file given where a problem file belongs: by its name, or by its
/// first line.
bool looks_like_matrix_market(const std::string& path) {
  const auto ends_with = [&](const std::string& suffix) {
    return path.size() >= suffix.size() &&
           path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  if (ends_with(".mtx") || ends_with(".mtx.gz")) return true;
  std::ifstream in(path, std::ios::binary);
  char head[14] = {};
  in.read(head, sizeof head);
  return in.gcount() == sizeof head && std::string(head, sizeof head) == "%%MatrixMarket";
}

SolveArgs parse_solve_args(const std::vector<std::string>& args) {
  SolveArgs out;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const char* name) -> std::string {
      if (i + 1 >= args.size()) throw UsageError{std::string(name) + " needs a value"};
      return args[++i];
    };
    if (a == "-o" || a == "--set") {
      out.overrides.push_back(value("-o"));
    } else if (a == "--backend") {
      out.backend = value("--backend");
    } else if (a == "--report") {
      out.report = value("--report");
    } else if (a == "--history") {
      out.history = value("--history");
    } else if (a == "--solution") {
      out.solution = value("--solution");
    } else if (a == "--log-level") {
      out.log_level = value("--log-level");
    } else if (a == "--print-every") {
      const std::string v = value("--print-every");
      try {
        std::size_t used = 0;
        out.print_every = std::stoi(v, &used);
        if (used != v.size() || out.print_every < 0) throw std::invalid_argument(v);
      } catch (const std::exception&) {
        throw UsageError{"--print-every expects a non-negative integer, got '" + v + "'"};
      }
    } else if (!a.empty() && a[0] == '-') {
      throw UsageError{"unknown option '" + a + "'"};
    } else if (out.problem_file.empty()) {
      out.problem_file = a;
    } else {
      throw UsageError{"more than one problem file given ('" + out.problem_file + "', '" + a +
                       "')"};
    }
  }
  if (out.problem_file.empty()) throw UsageError{"solve needs a problem file (FILE.yaml)"};
  if (looks_like_matrix_market(out.problem_file)) {
    throw UsageError{"'" + out.problem_file +
                     "' is a Matrix Market file; prism solve takes a YAML problem file that "
                     "names it (matrix: {file: ...}); prism info shows the matrix"};
  }
  return out;
}

spdlog::level::level_enum parse_level(const std::string& name) {
  const spdlog::level::level_enum level = spdlog::level::from_str(name);
  // from_str maps unknown names to off; only "off" itself may mean off.
  if (level == spdlog::level::off && name != "off") {
    throw UsageError{"unknown log level '" + name + "' (trace|debug|info|warn|error|off)"};
  }
  return level;
}

/// Output folders are created on demand, so `output: {report: out/r.json}` just works.
void make_parent_directory(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (parent.empty()) return;
  std::error_code ec;
  std::filesystem::create_directories(parent, ec);
  if (ec) throw IoError("cannot create directory " + parent.string() + ": " + ec.message());
}

/// The file a path names, absolute, with links followed even where they dangle (a file
/// not written yet): weakly_canonical leaves a relative path with no existing part
/// relative, and a dangling link unresolved.
std::filesystem::path resolved(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path p = fs::absolute(path, ec);
  for (int hops = 0; hops < 40 && fs::is_symlink(fs::symlink_status(p, ec)); ++hops) {
    const fs::path target = fs::read_symlink(p, ec);
    if (ec) break;
    p = target.is_absolute() ? target : p.parent_path() / target;
  }
  const fs::path canonical = fs::weakly_canonical(p, ec);
  return (ec ? p : canonical).lexically_normal();
}

/// Whether two paths name one regular file (through links or different spellings); a
/// device such as /dev/null may take several outputs.
bool same_file(const std::string& a, const std::string& b) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(a, ec) && !fs::is_regular_file(a, ec)) return false;
  if (fs::equivalent(a, b, ec)) return true;
  return resolved(a) == resolved(b);
}

/// Before anything is solved: every output names a file of its own and none of the
/// problem's inputs, and its folder exists (created on demand), so that a bad output path
/// fails at once and an input is never overwritten.
void check_outputs(const ProblemSpec& spec, const std::string& problem_file) {
  const std::vector<std::pair<const char*, std::string>> outputs{
      {"report", spec.output.report},
      {"history", spec.output.history},
      {"solution", spec.output.solution}};
  std::vector<std::pair<const char*, std::string>> inputs{{"the problem file", problem_file}};
  if (spec.matrix.from_file()) inputs.emplace_back("the matrix file", spec.matrix.file);
  if (spec.rhs.kind == RhsSpec::Kind::file) inputs.emplace_back("the rhs file", spec.rhs.file);
  if (spec.initial_guess.kind == InitialGuessSpec::Kind::file) {
    inputs.emplace_back("the initial guess file", spec.initial_guess.file);
  }
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const auto& [what, path] = outputs[o];
    if (path.empty()) continue;
    for (std::size_t p = o + 1; p < outputs.size(); ++p) {
      if (!outputs[p].second.empty() && same_file(path, outputs[p].second)) {
        throw ConfigError(std::string("the ") + what + " and the " + outputs[p].first +
                          " outputs are both " + path + "; give each its own file");
      }
    }
    for (const auto& [input, input_path] : inputs) {
      if (same_file(path, input_path)) {
        throw ConfigError(std::string("the ") + what + " output " + path + " is " + input +
                          "; it would be overwritten");
      }
    }
    make_parent_directory(path);
  }
}

std::string describe_matrix_source(const MatrixSpec& m) {
  if (m.from_file()) return m.file;
  const GeneratorSpec& g = m.generator;
  std::string s = g.name + " " + std::to_string(g.nx) + "x" + std::to_string(g.ny);
  if (g.nz > 0) s += "x" + std::to_string(g.nz);
  return s;
}

}  // namespace

/// --log-level debug: each set-up step as it is reported.
void log_setup(const SetupReport& setup) {
  spdlog::debug(
      "setup: check {}, coloring {}, permutation {}, analysis {}, factorization {}, "
      "upload {}, total {}",
      format_seconds(setup.check_seconds), format_seconds(setup.coloring_seconds),
      format_seconds(setup.permutation_seconds), format_seconds(setup.analysis_seconds),
      format_seconds(setup.factorization_seconds), format_seconds(setup.upload_seconds),
      format_seconds(setup.total_seconds));
  for (const SetupStep& step : setup.steps) {
    spdlog::debug("setup step: {} {}{}", step.name, format_seconds(step.seconds),
                  step.device ? " (device)" : "");
  }
}

/// --log-level debug: every `auto` choice the solver resolved, with its reason, and the
/// factorization's diagonal shift retries.
void log_plan(const SolveReport& report) {
  for (const std::string& choice : report.plan) spdlog::debug("plan: {}", choice);
  if (report.factorization.performed) {
    spdlog::debug("factorization: diagonal shift {} after {} retries", report.factorization.shift,
                  report.factorization.retries);
  }
}

SolveInput read_solve_input(const std::vector<std::string>& args) {
  const SolveArgs cli = parse_solve_args(args);
  SolveInput input;
  input.problem_file = cli.problem_file;
  ProblemSpec& spec = input.spec;
  spec = load_problem_file(cli.problem_file, cli.overrides);
  // The command line numbers rows and columns from 1, as its Matrix Market files do (the
  // library, as its arrays, from 0): every message of the set-up and the solves.
  spec.config.numbering = Numbering::from_one;

  if (!cli.backend.empty() && !from_string(cli.backend, spec.config.backend)) {
    throw UsageError{"unknown backend '" + cli.backend + "' (" + allowed_names<BackendKind>() +
                     ")"};
  }
  if (!cli.report.empty()) spec.output.report = cli.report;
  if (!cli.history.empty()) spec.output.history = cli.history;
  if (!cli.solution.empty()) spec.output.solution = cli.solution;
  if (!cli.log_level.empty()) spec.logging.level = cli.log_level;
  if (cli.print_every >= 0) spec.logging.print_every = cli.print_every;
  spdlog::set_level(parse_level(spec.logging.level));
  return input;
}

void prepare_outputs(const SolveInput& input) {
  check_outputs(input.spec, input.problem_file);
}

std::string matrix_source(const MatrixSpec& m) {
  return describe_matrix_source(m);
}

void print_solve_results(const SolveInput& input, const SolveReport& report,
                         const std::vector<double>& exact_solution, const std::vector<double>& x) {
  log_plan(report);
  print_iteration_table(report, input.spec.logging.print_every);
  print_summary(report, input.spec.name);
  if (!exact_solution.empty()) {
    double err = 0.0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      err = std::max(err, std::abs(x[i] - exact_solution[i]));
    }
    spdlog::info("error          max |x - x_exact| = {:.3e} (manufactured solution x = 1)", err);
  }
}

int write_solve_outputs(const SolveInput& input, const SolveReport& report,
                        const std::vector<double>& x, const DistributedFigures& distributed) {
  const ProblemSpec& spec = input.spec;
  ReportContext context;
  context.distributed = distributed;
  context.problem_name = spec.name;
  context.problem_file = input.problem_file;
  context.matrix_source = describe_matrix_source(spec.matrix);
  if (!spec.output.report.empty()) {
    write_report_json(spec.output.report, report, context);
    spdlog::info("wrote report   {}", spec.output.report);
  }
  if (!spec.output.history.empty()) {
    write_history_csv(spec.output.history, report);
    spdlog::info("wrote history  {}", spec.output.history);
  }
  if (!spec.output.solution.empty()) {
    write_vector_market(spec.output.solution, x);
    spdlog::info("wrote solution {}", spec.output.solution);
  }
  if (!report.converged()) {
    spdlog::warn("prism: not converged ({}): {}", status_name(report.status), report.diagnosis);
    return 2;
  }
  return 0;
}

int solve_command(const std::vector<std::string>& args) {
#ifdef PRISM_HAVE_MPI
  // Under mpirun with several ranks (src/cli/solve_distributed.cpp); one rank solves here.
  if (launched_with_several_ranks()) return distributed_solve_command(args);
#endif
  const SolveInput input = read_solve_input(args);
  const ProblemSpec& spec = input.spec;
  prepare_outputs(input);
  spdlog::info("prism: solving {} ({})", spec.name, input.problem_file);
  // The solver (for cuda: the device context, a noticeable part of a second) starts
  // while the matrix is read or generated. A matrix that fails is still reported first.
  std::future<Solver> starting =
      std::async(std::launch::async, [config = spec.config] { return Solver(config); });
  auto t0 = std::chrono::steady_clock::now();
  Problem problem = assemble_problem(spec);
  const double assemble_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  spdlog::info("matrix         {} ({} rows, {} nonzeros) assembled in {}",
               describe_matrix_source(spec.matrix), problem.a.rows, problem.a.nnz(),
               format_seconds(assemble_seconds));

  Solver solver = starting.get();
  solver.setup(problem.a);
  const std::string& choice = solver.setup_report().backend_choice;
  if (choice.find("fell back") != std::string::npos) {
    spdlog::warn("{}", choice);
  } else if (!choice.empty()) {
    spdlog::info("{}", choice);
  }

  log_setup(solver.setup_report());
  if (problem.columns > 1) return solve_columns_command(input, solver, problem);

  std::vector<double> x = problem.x0;
  ProgressLine progress(spec.config.solver);
  solver.set_monitor(progress.monitor());
  const SolveReport report = solver.solve(problem.b, x);
  progress.finish();
  print_solve_results(input, report, problem.exact_solution, x);
  return write_solve_outputs(input, report, x);
}

}  // namespace prism::cli
