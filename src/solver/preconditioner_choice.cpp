#include "solver/preconditioner_choice.hpp"

#include <cstdio>
#include <utility>

namespace prism::solver {
namespace {

// Mean rows a node block needs for auto to take block_ic.
constexpr double kAutoBlockRows = 2.0;

/// Why block_ic cannot run with these options; "" where it can.
std::string block_ic_excluded(const PreconditionerOptions& p) {
  if (p.coloring.method != ColoringMethod::greedy) {
    return "coloring.method " + std::string(to_string(p.coloring.method)) +
           ": block_ic colors its blocks greedily";
  }
  if (p.coloring.balance) return "coloring.balance: block_ic does not balance its block colors";
  // block_ic runs in the natural order too, but its measured gain is in its block coloring.
  const Ordering ordering = resolved_ordering(p);
  if (ordering != Ordering::color) {
    return "ordering " + std::string(to_string(ordering)) +
           ": block_ic is measured faster only in its block coloring";
  }
  return "";
}

TypeChoice chose(const char* type, const std::string& why,
                 std::optional<BlockPartition> blocks = std::nullopt) {
  return {type, "preconditioner: auto chose " + std::string(type) + " (" + why + ")",
          std::move(blocks)};
}

std::string mean_rows(const char* format, double rows) {
  char text[160];
  std::snprintf(text, sizeof text, format, rows);
  return text;
}

}  // namespace

BlockPartition node_blocks(const CsrMatrix<double>& a, const BlockIcOptions& options) {
  return options.block_size > 0 ? uniform_blocks(a.rows, options.block_size) : find_node_blocks(a);
}

TypeChoice resolve_type(const PreconditionerOptions& options, const CsrMatrix<double>& a) {
  if (options.type != kAutoType) return {options.type, "", std::nullopt};
  const std::string excluded = block_ic_excluded(options);
  if (!excluded.empty()) return chose("ic0", excluded);
  const int size = options.block_ic.block_size;
  if (size == 1) return chose("ic0", "block_size 1: every row its own block");
  BlockPartition blocks = node_blocks(a, options.block_ic);
  if (size >= 2) {
    return chose("block_ic", "block_size " + std::to_string(size) + " given", std::move(blocks));
  }
  const index_t count = blocks.count();
  const double mean = count > 0 ? static_cast<double>(a.rows) / static_cast<double>(count) : 0.0;
  if (mean >= kAutoBlockRows) {
    return chose("block_ic",
                 mean_rows("node blocks of %.1f rows on average, found from the pattern", mean),
                 std::move(blocks));
  }
  if (count == a.rows) return chose("ic0", "no node blocks: every row its own");
  return chose("ic0", mean_rows("node blocks of %.2f rows on average, found from the pattern; "
                                "block_ic needs 2",
                                mean));
}

}  // namespace prism::solver
