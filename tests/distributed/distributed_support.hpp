#pragma once
// Helpers of the distributed tests: a global matrix cut into this rank's rows, the
// communicator's rank and size, and a check that an error is the same on every rank.

#include <prism/csr_matrix.hpp>
#include <prism/distributed.hpp>

#include <gtest/gtest.h>
#include <mpi.h>

#include <functional>
#include <string>
#include <vector>

namespace prism::test {

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

inline int world_size() {
  int s = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

/// Row boundaries by nonzeros (what the CLI uses).
inline std::vector<std::int64_t> bounds_by_nonzeros(const CsrMatrix<double>& a, int parts) {
  const std::vector<std::int64_t> row_ptr(a.row_ptr.begin(), a.row_ptr.end());
  return partition_rows_by_nonzeros(row_ptr.data(), a.rows, parts);
}

/// Rows [bounds[rank], bounds[rank + 1]) of a, with global column numbers.
inline DistributedRows rows_of(const CsrMatrix<double>& a, const std::vector<std::int64_t>& bounds,
                               int rank) {
  DistributedRows out;
  out.global_rows = a.rows;
  out.row_begin = bounds[rank];
  out.row_end = bounds[rank + 1];
  const index_t first = a.row_ptr[out.row_begin];
  for (std::int64_t i = out.row_begin; i < out.row_end; ++i) {
    out.row_ptr.push_back(a.row_ptr[i + 1] - first);
  }
  out.col_idx.assign(a.col_idx.begin() + first, a.col_idx.begin() + a.row_ptr[out.row_end]);
  out.values.assign(a.values.begin() + first, a.values.begin() + a.row_ptr[out.row_end]);
  return out;
}

/// v's entries [begin, end).
inline std::vector<double> slice(const std::vector<double>& v, std::int64_t begin,
                                 std::int64_t end) {
  return std::vector<double>(v.begin() + begin, v.begin() + end);
}

/// Runs body() on every rank and expects it to throw E on every rank with one message,
/// the same everywhere, holding `expected`. Returns the message.
template <typename E>
std::string expect_same_error_everywhere(const std::function<void()>& body,
                                         const std::string& expected) {
  std::string message;
  bool threw_e = false;
  try {
    body();
  } catch (const E& e) {
    threw_e = true;
    message = e.what();
  } catch (const std::exception& e) {
    message = std::string("another exception: ") + e.what();
  }
  EXPECT_TRUE(threw_e) << "rank " << world_rank() << ": " << message;
  EXPECT_NE(message.find(expected), std::string::npos) << message;
  EXPECT_EQ(message.find('\n'), std::string::npos) << message;
  // Every rank compares its message with rank 0's.
  int length = static_cast<int>(message.size());
  MPI_Bcast(&length, 1, MPI_INT, 0, MPI_COMM_WORLD);
  std::string first =
      world_rank() == 0 ? message : std::string(static_cast<std::size_t>(length), ' ');
  MPI_Bcast(first.data(), length, MPI_CHAR, 0, MPI_COMM_WORLD);
  EXPECT_EQ(message, first) << "rank " << world_rank();
  return message;
}

}  // namespace prism::test
