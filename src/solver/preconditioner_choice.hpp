#pragma once
// What `preconditioner.type: auto` becomes for one matrix, and why (SolveReport::plan).

#include <prism/blocks.hpp>
#include <prism/csr_matrix.hpp>
#include <prism/options.hpp>

#include <optional>
#include <string>

namespace prism::solver {

/// The preconditioner type that picks one of the registered ones per matrix.
inline constexpr const char* kAutoType = "auto";

/// block_ic's blocks before any reordering: block_size rows each, or the node blocks found
/// from the pattern (block_size 0).
BlockPartition node_blocks(const CsrMatrix<double>& a, const BlockIcOptions& options);

/// The registered type a set-up creates.
struct TypeChoice {
  std::string type;
  std::string reason;                    ///< "preconditioner: auto chose ..."; "" if explicit
  std::optional<BlockPartition> blocks;  ///< node_blocks(), where the choice needed them
};

/// `options.type`, or for auto: block_ic where A's node blocks have 2 rows or more on
/// average (or block_ic.block_size >= 2) and the other options let block_ic run (greedy,
/// unbalanced coloring; ordering color), else ic0: on blocks of 1 row block_ic is ic0 with
/// extra passes (docs/how-it-works.md gives the measured basis). A must be square.
TypeChoice resolve_type(const PreconditionerOptions& options, const CsrMatrix<double>& a);

}  // namespace prism::solver
