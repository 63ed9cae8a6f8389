#pragma once
// What `preconditioner.type: auto` becomes for one matrix, and why (SolveReport::plan).

#include <prism/blocks.hpp>
#include <prism/csr_matrix.hpp>
#include <prism/lines.hpp>
#include <prism/options.hpp>

#include <optional>
#include <string>

namespace prism::backend {
class SetupSession;
}

namespace prism::solver {

/// The preconditioner type that picks one of the registered ones per matrix.
inline constexpr const char* kAutoType = "auto";

/// block_ic's blocks before any reordering: block_size rows each, or the node blocks found
/// from the pattern (block_size 0).
/// With `session` (A's backend set-up session, past its check()) the node blocks are found
/// in the backend's memory where it can, with the host's result.
BlockPartition node_blocks(const CsrMatrix<double>& a, const BlockIcOptions& options,
                           backend::SetupSession* session = nullptr);

/// The registered type a set-up creates.
struct TypeChoice {
  std::string type;
  std::string reason;                    ///< "preconditioner: auto chose ..."; "" if explicit
  std::optional<BlockPartition> blocks;  ///< node_blocks(), where the choice needed them
  std::optional<Lines> lines;            ///< find_lines(), where auto chose line_ic
};

/// Whether auto takes line_ic on the lines find_lines() reported for a matrix of `rows`
/// rows, and why, with the numbers.
struct LineVerdict {
  bool take = false;
  std::string why;
};

/// line_ic where most rows lie in lines of 2 rows or more, those lines hold most of the
/// off-diagonal sum |a_ij| (LineReport::inside_weight), and they have 4 rows or more on
/// average (docs/how-it-works.md gives the reasons).
LineVerdict judge_lines(const LineReport& report, index_t rows);

/// `options.type`, or for auto: block_ic where A's node blocks have 2 rows or more on
/// average (or block_ic.block_size >= 2) and the other options let block_ic run (greedy,
/// unbalanced coloring; ordering color), else line_ic where judge_lines() takes A's lines
/// and options.ordering is automatic (the ordering as the caller gave it: line_ic orders by
/// its lines), else ic0: on blocks of 1 row block_ic is ic0 with extra passes
/// (docs/how-it-works.md gives the measured basis). A must be square. With `session` (A's
/// backend set-up session, past its check()), the scans over all of A (node blocks, the
/// diagonal, the rows choosing links, the lines' links) run in the backend's memory where
/// it can, with the host's results.
TypeChoice resolve_type(const PreconditionerOptions& options, const CsrMatrix<double>& a,
                        backend::SetupSession* session = nullptr);

}  // namespace prism::solver
