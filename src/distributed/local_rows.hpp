#pragma once
// One rank's rows, checked and renumbered for the distributed SpMV and the rank's block
// of the preconditioner.
//
// The rank works in an order of its own: first the interior rows (every column owned by
// the rank), then the boundary rows (some column owned by another rank), each group in
// the given order. The SpMV's input vector holds the owned values in that order followed
// by the ghosts (the other ranks' values it reads, by increasing global column, so those
// of one rank are contiguous). Each row keeps its entries in the given order, so a row's
// sum is the one-process SpMV's, term by term.

#include <prism/csr_matrix.hpp>
#include <prism/distributed.hpp>

#include "kernels/csr_view.hpp"

#include <cstdint>
#include <vector>

namespace prism::distributed {

/// CSR arrays with local indices, entries in any column order (CsrMatrix keeps them sorted).
struct LocalCsr {
  index_t rows = 0;
  index_t cols = 0;
  std::vector<index_t> row_ptr{0};
  std::vector<index_t> col_idx;
  std::vector<double> values;

  kernels::CsrView<double> view() const {
    return {rows, cols, row_ptr.data(), col_idx.data(), values.data()};
  }
};

struct LocalSystem {
  index_t rows = 0;                  ///< rows the rank owns
  index_t interior_rows = 0;         ///< the first interior_rows of the rank's order
  std::vector<index_t> order;        ///< rank's order -> given local row (row - row_begin)
  std::vector<std::int64_t> ghosts;  ///< global columns of the ghosts, increasing
  LocalCsr interior;                 ///< interior rows x owned columns
  LocalCsr boundary;                 ///< boundary rows x (owned columns, then ghosts)
  CsrMatrix<double> diagonal_block;  ///< owned rows x owned columns, the rank's order
};

/// Checks the rank's arrays alone: sizes that fit 32-bit local indices, row_ptr from 0 and
/// non-decreasing, columns in [0, global_rows) and increasing within a row, finite values.
/// Throws InvalidMatrixError naming the global row (agree() adds the rank).
void check_local_rows(const DistributedRowsView& rows);

/// Splits checked rows into the interior and boundary parts and the diagonal block.
LocalSystem split_local_rows(const DistributedRowsView& rows);

}  // namespace prism::distributed
