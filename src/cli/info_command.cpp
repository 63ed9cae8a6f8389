#include <prism/analysis.hpp>
#include <prism/blocks.hpp>
#include <prism/errors.hpp>
#include <prism/matrix_market.hpp>
#include <prism/problem.hpp>

#include "cli/commands.hpp"
#include "cli/console_report.hpp"
#include "solver/preconditioner_choice.hpp"

#include <spdlog/spdlog.h>

#include <chrono>

namespace prism::cli {
namespace {

bool has_suffix(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

const char* diagonal_description(const CsrMatrix<double>& a) {
  bool missing = false, zero = false, negative = false;
  for (index_t i = 0; i < a.rows; ++i) {
    bool found = false;
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      if (a.col_idx[k] != i) continue;
      found = true;
      if (a.values[k] == 0.0) zero = true;
      if (a.values[k] < 0.0) negative = true;
    }
    if (!found) missing = true;
  }
  if (negative) return "has negative entries";
  if (missing) return "has missing entries";
  if (zero) return "has zero entries";
  return "all positive";
}

}  // namespace

int info_command(const std::vector<std::string>& args) {
  if (args.size() != 1 || args[0].empty() || args[0][0] == '-') {
    throw UsageError{"info needs exactly one FILE.mtx, FILE.mtx.gz or FILE.yaml"};
  }
  const std::string& path = args[0];
  CsrMatrix<double> a;
  MatrixMarketInfo mm;
  bool pattern = false;
  // The solve's preconditioner options: a matrix file alone gets the defaults (auto).
  PreconditionerOptions solve_options;
  if (has_suffix(path, ".yaml") || has_suffix(path, ".yml")) {
    const ProblemSpec spec = load_problem_file(path);
    solve_options = spec.config.preconditioner;
    a = assemble_matrix(spec.matrix);
  } else {
    a = read_matrix_market_to_solve(path, &mm, /*allow_pattern=*/true);
    pattern = mm.field == MatrixMarketInfo::Field::pattern;
  }

  const MatrixProperties props = inspect_matrix(a);
  spdlog::info("file           {}", path);
  spdlog::info("size           {} x {}, {} stored nonzeros (both triangles), {:.2f} per row",
               a.rows, a.cols, a.nnz(), a.rows > 0 ? static_cast<double>(a.nnz()) / a.rows : 0.0);
  if (pattern) spdlog::info("values         pattern only (no values): not solvable");
  spdlog::info("symmetry       {}", !props.square                   ? "not square"
                                    : !props.structurally_symmetric ? "not symmetric in structure"
                                    : pattern                       ? "structurally symmetric"
                                    : props.numerically_symmetric   ? "symmetric"
                                                                    : "symmetric structure, "
                                                                      "unsymmetric values");
  if (!pattern) spdlog::info("diagonal       {}", diagonal_description(a));
  if (!props.square) return 0;
  // What the solve would set up: auto resolved on this matrix.
  const solver::TypeChoice choice = solver::resolve_type(solve_options, a);
  spdlog::info("{}", choice.reason.empty() ? "preconditioner: " + choice.type : choice.reason);
  solve_options.type = choice.type;

  spdlog::info("");
  spdlog::info("{:<34} {:>7} {:>9} {:>11} {:>9} {:>11} {:>10}", "ordering", "sets", "min", "mean",
               "max", "phi", "time");
  const auto row = [](const std::string& name, const SetStats& s, double seconds) {
    spdlog::info("{:<34} {:>7} {:>9} {:>11.1f} {:>9} {:>11.1f} {:>10}", name, s.count, s.min_size,
                 s.mean_size, s.max_size, s.phi, format_seconds(seconds));
  };
  auto t = std::chrono::steady_clock::now();
  const LevelSets natural_levels = level_sets(a);
  row("levels (natural)", set_stats(natural_levels.level_ptr),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
  for (const bool balance : {false, true}) {
    for (const auto& [order, name] : enum_names<VertexOrder>()) {
      t = std::chrono::steady_clock::now();
      Coloring coloring = color_matrix(a, order);
      if (balance) balance_coloring(a, coloring);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
      const std::string label = "colors (" + std::string(name) + (balance ? ", balanced)" : ")");
      const ColoringOptions& c = solve_options.coloring;
      const bool chosen =
          resolved_ordering(solve_options) == Ordering::color && solve_options.type != "block_ic" &&
          (greedy_coloring(c.method) || c.method == ColoringMethod::parallel_greedy) &&
          order == c.vertex_order && balance == c.balance;
      row(label + (chosen ? " *" : ""), set_stats(coloring.color_ptr), seconds);
    }
  }
  // block_ic's blocks: the node blocks found from the pattern, and their coloring.
  t = std::chrono::steady_clock::now();
  const BlockPartition blocks = find_node_blocks(a);
  row("node blocks", set_stats(blocks.ptr),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
  const VertexOrder order = solve_options.coloring.vertex_order;
  t = std::chrono::steady_clock::now();
  const BlockColoring by_block = color_blocks(a, blocks, order);
  const bool chosen = solve_options.type == "block_ic" && solve_options.block_ic.block_size == 0 &&
                      resolved_ordering(solve_options) == Ordering::color;
  row("block colors (" + std::string(to_string(order)) + ")" + (chosen ? " *" : ""),
      set_stats(by_block.color_rows),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count());
  spdlog::info(
      "phi = N / number of sets, the average parallel workload (color-set paper, "
      "Table 4.1); balanced: greedy coloring then balance_coloring, time of both; "
      "* = the coloring the solve would use (a greedy one, with ordering color); block colors: "
      "rows per color of block_ic's node blocks");
  return 0;
}

}  // namespace prism::cli
