#pragma once
// The order of the unknowns for a preconditioner on lines (Registry Partition::lines): the
// lines of find_lines(), each line's rows consecutive in chain order, the lines by
// decreasing length so that the lines of one length are one batch of the tridiagonal
// solver.

#include <prism/blocks.hpp>
#include <prism/csr_matrix.hpp>
#include <prism/lines.hpp>
#include <prism/options.hpp>

#include "backend/setup.hpp"

#include <string>
#include <vector>

namespace prism::solver {

struct LineOrder {
  std::vector<index_t> permutation;  ///< rows: permutation[new] = old
  BlockPartition lines;              ///< in the new order
  /// The plan line: "lines: 9216 of 96 rows (96 to 96), 99.8% of the off-diagonal sum
  /// |a_ij| inside them".
  std::string description;
  /// After color_lines(): color c is lines [color_ptr[c], color_ptr[c + 1]) and rows
  /// [color_rows[c], color_rows[c + 1]); empty before.
  std::vector<index_t> color_ptr, color_rows;
};

/// find_lines(a, options), by the set-up session (`device`, past its check()) where given
/// and able (SetupSession::find_lines: the same lines), else on the host.
Lines find_lines_with(const CsrMatrix<double>& a, const LineOptions& options,
                      backend::SetupSession* device);

/// With a set-up session (`device`) the session finds the lines where it can
/// (SetupSession::find_lines, the same lines), else the host does.
LineOrder order_by_lines(const CsrMatrix<double>& a, const LineOptions& options,
                         backend::SetupSession* device = nullptr);

/// The same order from lines find_lines() has already found (auto's choice keeps them).
LineOrder order_lines(const Lines& found);

/// Colors the lines of `order` (a in the caller's order) greedily on their quotient graph
/// (color_blocks in `vertex_order`), so that no two lines of one color are coupled: the
/// rows color by color, a line's rows still consecutive and in chain order, a color's lines
/// still by decreasing length. Appends the colors to the description ("; 2 colors of
/// lines, 4608 to 4608 lines each").
/// With a set-up session (`device`) the session colors them where it can give the same
/// coloring (SetupSession::color_blocks), else the host does.
void color_lines(const CsrMatrix<double>& a, LineOrder& order, VertexOrder vertex_order,
                 backend::SetupSession* device = nullptr);

}  // namespace prism::solver
