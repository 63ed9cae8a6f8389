#pragma once
// The rows each rank owns: the ranges gathered from every rank and checked to tile
// [0, n) in rank order.

#include <prism/distributed.hpp>

#include <mpi.h>

#include <cstdint>
#include <vector>

namespace prism::distributed {

/// Row ranges of all ranks: rank r owns [starts[r], starts[r + 1]); starts.back() = n.
struct RowRanges {
  std::vector<std::int64_t> starts;

  int owner(std::int64_t row) const;  ///< the rank owning a row in [0, n)
  std::int64_t rows_of(int rank) const { return starts[rank + 1] - starts[rank]; }
};

/// Collective: gathers every rank's range and n; throws (agreed, on every rank)
/// InvalidMatrixError naming the lowest rank whose range or n breaks the tiling.
RowRanges gather_row_ranges(MPI_Comm comm, const DistributedRowsView& rows);

}  // namespace prism::distributed
