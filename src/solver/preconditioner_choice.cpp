#include "solver/preconditioner_choice.hpp"

#include "backend/setup.hpp"
#include "common/parallel.hpp"
#include "common/setup_steps.hpp"
#include "solver/line_order.hpp"

#include <atomic>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

namespace prism::solver {
namespace {

// Mean rows a node block needs for auto to take block_ic.
constexpr double kAutoBlockRows = 2.0;
// Share of the off-diagonal weight that lines must hold for auto to take line_ic: most of
// it. The weight alone would not do: a diagonal scaling changes it, not the rows in lines.
constexpr double kAutoLineShare = 0.5;
// Share of the rows that must lie in lines (of 2 rows or more). Every row pays for line_ic's
// dearer iteration (about 1.7-2x an ic0 iteration), but only rows in lines converge faster:
// the rest keep point IC's rate, which bounds the iterations. A grid stretched toward one
// wall, with lines through 69% of its rows, saved too few iterations to pay for them on
// either backend; lines through every row save most (docs/how-it-works.md, "Choosing the
// type").
constexpr double kAutoLineRowShare = 0.9;
// Mean rows of the lines (of 2 rows or more) for auto to take line_ic. A line of L rows
// coupled at strength s = 1/2 (a row's whole off-diagonal weight in its line) has a
// diagonally scaled block of condition number (1 + cos(pi / (L + 1))) / (1 - cos(pi /
// (L + 1))): 3 for pairs, 5.8 for L = 3 and 9.5 for L = 4, about 4 (L + 1)^2 / pi^2 after;
// a point IC(0) in a multicolor order, which cuts every line into rows of alternating
// colors, leaves much of it to CG (iterations ~ its square root), so from L = 4 on solving
// the lines exactly is worth their dearer iterations.
constexpr double kAutoLineRows = 4.0;
// find_node_blocks' default max_size, which node_blocks() takes.
constexpr index_t kNodeBlockMaxRows = 64;

/// Why block_ic cannot run with these options; "" where it can.
std::string block_ic_excluded(const PreconditionerOptions& p) {
  if (!greedy_coloring(p.coloring.method)) {
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
          std::move(blocks), std::nullopt};
}

std::string mean_rows(const char* format, double rows) {
  char text[160];
  std::snprintf(text, sizeof text, format, rows);
  return text;
}

/// The first row whose diagonal entry is not positive and finite, a.rows when none.
index_t first_bad_diagonal(const CsrMatrix<double>& a) {
  // Each part finds its first bad row, and the lowest of them is the one a scan in row
  // order names; a part stops once a lower row is known bad.
  std::atomic<index_t> first_bad{a.rows};
  const auto scan = [&](std::size_t begin, std::size_t end) {
    for (auto i = static_cast<index_t>(begin); i < static_cast<index_t>(end); ++i) {
      if (first_bad.load(std::memory_order_relaxed) < i) return;
      double d = 0.0;
      for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        if (a.col_idx[k] == i) d = a.values[k];
      }
      if (!(d > 0.0) || !std::isfinite(d)) {
        index_t seen = first_bad.load();
        while (i < seen && !first_bad.compare_exchange_weak(seen, i)) {
        }
        return;
      }
    }
  };
  common::parallel_for(static_cast<std::size_t>(a.rows), common::kRowsPerPart, scan);
  return first_bad.load();
}

/// "" where every diagonal entry is positive and finite (find_lines' precondition; `prism
/// info` resolves auto on matrices a solve would refuse), else why not.
std::string diagonal_excludes_lines(const CsrMatrix<double>& a, backend::SetupSession* session) {
  index_t bad = -1;
  bool scanned = false;
  if (session != nullptr) {
    common::StepTimer step("preconditioner auto: diagonal (device)", true);
    scanned = session->first_bad_diagonal(bad);
    if (!scanned) step.cancel();
    if (bad < 0) bad = a.rows;
  }
  if (!scanned) bad = first_bad_diagonal(a);
  if (bad == a.rows) return "";
  return "no lines: row " + std::to_string(bad) + " has no positive diagonal entry";
}

}  // namespace

LineVerdict judge_lines(const LineReport& report, index_t rows) {
  const index_t singles = rows - report.linked_rows;  // lines of one row
  const index_t linked_lines = report.lengths.count - singles;
  if (rows <= 0 || report.linked_rows <= 0 || linked_lines <= 0) {
    return {false, "no lines: every line is one row"};
  }
  const double row_share = static_cast<double>(report.linked_rows) / static_cast<double>(rows);
  const double length = static_cast<double>(report.linked_rows) / static_cast<double>(linked_lines);
  char text[200];
  std::snprintf(text, sizeof text,
                "lines of %.1f rows on average hold %.1f%% of the rows and %.1f%% of the "
                "off-diagonal sum |a_ij|",
                length, 100.0 * row_share, 100.0 * report.inside_weight);
  const bool take = row_share >= kAutoLineRowShare && report.inside_weight >= kAutoLineShare &&
                    length >= kAutoLineRows;
  std::string why = text;
  if (!take) {
    std::snprintf(text, sizeof text,
                  "; line_ic needs %.0f%% of the rows and %.0f%% of the weight in lines of %.0f "
                  "rows or more",
                  100.0 * kAutoLineRowShare, 100.0 * kAutoLineShare, kAutoLineRows);
    why += text;
  }
  return {take, why};
}

BlockPartition node_blocks(const CsrMatrix<double>& a, const BlockIcOptions& options,
                           backend::SetupSession* session) {
  if (options.block_size > 0) return uniform_blocks(a.rows, options.block_size);
  if (session != nullptr) {
    common::StepTimer step("node blocks (device)", true);
    BlockPartition blocks;
    if (session->find_node_blocks(kNodeBlockMaxRows, blocks)) return blocks;
    step.cancel();
  }
  return find_node_blocks(a);
}

/// rows_choosing_links(a, options), by the session where it can.
index_t rows_choosing_links(const CsrMatrix<double>& a, const LineOptions& options,
                            backend::SetupSession* session) {
  if (session != nullptr) {
    common::StepTimer step("preconditioner auto: rows choosing links (device)", true);
    const index_t choosing = session->rows_choosing_links(options);
    if (choosing >= 0) return choosing;
    step.cancel();
  }
  return prism::rows_choosing_links(a, options);
}

TypeChoice resolve_type(const PreconditionerOptions& options, const CsrMatrix<double>& a,
                        backend::SetupSession* session) {
  if (options.type != kAutoType) return {options.type, "", std::nullopt, std::nullopt};
  const std::string excluded = block_ic_excluded(options);
  if (!excluded.empty()) return chose("ic0", excluded);
  const int size = options.block_ic.block_size;
  if (size == 1) return chose("ic0", "block_size 1: every row its own block");
  BlockPartition blocks = node_blocks(a, options.block_ic, session);
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
  std::string why = count == a.rows ? "no node blocks: every row its own"
                                    : mean_rows(
                                          "node blocks of %.2f rows on average, found "
                                          "from the pattern; block_ic needs 2",
                                          mean);
  // Lines only where the caller left the ordering to the preconditioner: line_ic orders
  // the unknowns by its lines.
  if (options.ordering != Ordering::automatic) {
    return chose("ic0", why + "; ordering " + std::string(to_string(options.ordering)) +
                            ": line_ic orders the unknowns by its lines");
  }
  std::string no_lines = diagonal_excludes_lines(a, session);
  if (!no_lines.empty()) return chose("ic0", why + "; " + no_lines);
  // Linked rows choose a coupling: where too few do, no need to build the lines.
  const index_t choosing = rows_choosing_links(a, options.lines, session);
  if (choosing == 0) return chose("ic0", why + "; no lines: every line is one row");
  if (static_cast<double>(choosing) < kAutoLineRowShare * static_cast<double>(a.rows)) {
    char text[160];
    std::snprintf(text, sizeof text,
                  "; no lines: %.1f%% of the rows have one or two dominant couplings; line_ic "
                  "needs %.0f%% of the rows in lines",
                  100.0 * static_cast<double>(choosing) / static_cast<double>(a.rows),
                  100.0 * kAutoLineRowShare);
    return chose("ic0", why + text);
  }
  Lines lines = find_lines_with(a, options.lines, session);
  const LineVerdict verdict = judge_lines(lines.report, a.rows);
  if (!verdict.take) return chose("ic0", why + "; " + verdict.why);
  TypeChoice choice = chose("line_ic", verdict.why);
  choice.lines = std::move(lines);
  return choice;
}

}  // namespace prism::solver
