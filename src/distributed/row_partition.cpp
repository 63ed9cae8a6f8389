#include "distributed/row_partition.hpp"

#include "distributed/mpi_support.hpp"

#include <prism/errors.hpp>

#include <algorithm>
#include <string>

namespace prism {

std::vector<std::int64_t> partition_rows_by_nonzeros(const std::int64_t* row_ptr, std::int64_t rows,
                                                     int parts) {
  if (parts < 1)
    throw ConfigError("partition_rows_by_nonzeros: parts = " + std::to_string(parts) +
                      " (at least 1)");
  std::vector<std::int64_t> bounds(static_cast<std::size_t>(parts) + 1, 0);
  bounds[parts] = rows;
  const std::int64_t first = row_ptr[0];
  const std::int64_t nnz = row_ptr[rows] - first;
  const bool every_part_a_row = rows >= parts;
  for (int k = 1; k < parts; ++k) {
    // The first row at which part k's share of the nonzeros begins ...
    const std::int64_t target =
        first + static_cast<std::int64_t>(static_cast<double>(nnz) * k / parts);
    std::int64_t row = std::lower_bound(row_ptr, row_ptr + rows, target) - row_ptr;
    // ... kept inside the rows left, one row at least per part where there are enough.
    const std::int64_t least = bounds[k - 1] + (every_part_a_row ? 1 : 0);
    const std::int64_t most = every_part_a_row ? rows - (parts - k) : rows;
    bounds[k] = std::min(std::max(row, least), most);
  }
  return bounds;
}

namespace distributed {

int RowRanges::owner(std::int64_t row) const {
  // The last rank starting at or before the row; empty ranges share a start, and the
  // last of them is the one whose range holds the row.
  const auto it = std::upper_bound(starts.begin(), starts.end() - 1, row);
  return static_cast<int>(it - starts.begin()) - 1;
}

namespace {

std::string range_text(std::int64_t begin, std::int64_t end) {
  return "[" + std::to_string(begin) + ", " + std::to_string(end) + ")";
}

}  // namespace

RowRanges gather_row_ranges(MPI_Comm comm, const DistributedRowsView& rows) {
  const std::vector<std::int64_t> begins = allgather(comm, rows.row_begin);
  const std::vector<std::int64_t> ends = allgather(comm, rows.row_end);
  const std::vector<std::int64_t> sizes = allgather(comm, rows.global_rows);
  const int size = static_cast<int>(begins.size());
  const int rank = comm_rank(comm);
  // Each rank checks its own range against the gathered ones: the lowest rank at fault
  // names the cause, and agree() gives its message to every rank.
  agreed(comm, [&] {
    const std::int64_t n = sizes[0];
    const std::string mine = "rows " + range_text(rows.row_begin, rows.row_end);
    if (rows.global_rows != n) {
      throw InvalidMatrixError("global_rows = " + std::to_string(rows.global_rows) +
                               " but rank 0 gives " + std::to_string(n) +
                               ": every rank must give the same n");
    }
    if (n < 0) throw InvalidMatrixError("global_rows = " + std::to_string(n) + " < 0");
    if (rows.row_end < rows.row_begin) {
      throw InvalidMatrixError(mine + ": row_end < row_begin");
    }
    if (rank == 0 && rows.row_begin != 0) {
      throw InvalidMatrixError(mine + ": rank 0's rows must begin at 0 (the ranges tile [0, " +
                               std::to_string(n) + ") in rank order)");
    }
    if (rank > 0 && rows.row_begin != ends[rank - 1]) {
      throw InvalidMatrixError(mine + " do not begin where rank " + std::to_string(rank - 1) +
                               "'s rows " + range_text(begins[rank - 1], ends[rank - 1]) +
                               " end (the ranges tile [0, " + std::to_string(n) +
                               ") in rank order)");
    }
    if (rank == size - 1 && rows.row_end != n) {
      throw InvalidMatrixError(mine + " of the last rank must end at global_rows = " +
                               std::to_string(n) + " (the ranges tile [0, n) in rank order)");
    }
  });
  RowRanges out;
  out.starts.assign(begins.begin(), begins.end());
  out.starts.push_back(sizes[0]);
  return out;
}

}  // namespace distributed
}  // namespace prism
