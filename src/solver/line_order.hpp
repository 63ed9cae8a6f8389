#pragma once
// The order of the unknowns for a preconditioner on lines (Registry Partition::lines): the
// lines of find_lines(), each line's rows consecutive in chain order, the lines by
// decreasing length so that the lines of one length are one batch of the tridiagonal
// solver.

#include <prism/blocks.hpp>
#include <prism/csr_matrix.hpp>
#include <prism/options.hpp>

#include <string>
#include <vector>

namespace prism::solver {

struct LineOrder {
  std::vector<index_t> permutation;  ///< rows: permutation[new] = old
  BlockPartition lines;              ///< in the new order
  /// The plan line: "lines: 9216 of 96 rows (96 to 96), 99.8% of the off-diagonal sum
  /// |a_ij| inside them".
  std::string description;
};

LineOrder order_by_lines(const CsrMatrix<double>& a, const LineOptions& options);

}  // namespace prism::solver
