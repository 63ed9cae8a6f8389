// Bad partitions and bad rows: every rank throws the same exception with one message
// naming the rank at fault, and none is left waiting in a collective (a hang fails the
// ctest timeout).
#include "distributed_support.hpp"

#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

namespace prism::test {
namespace {

const CsrMatrix<double> kMatrix = poisson3d(5, 4, 3);

DistributedRows my_rows() {
  return rows_of(kMatrix, bounds_by_nonzeros(kMatrix, world_size()), world_rank());
}

SolverConfig ic0_config() {
  SolverConfig c;
  c.backend = BackendKind::cpu;
  c.preconditioner.type = "ic0";
  return c;
}

void set_up(const DistributedRows& rows) {
  DistributedSolver solver(MPI_COMM_WORLD, ic0_config());
  solver.setup(rows.view());
}

TEST(DistributedErrors, RangesWithAGapAreRejectedOnEveryRank) {
  DistributedRows rows = my_rows();
  const int last = world_size() - 1;
  // The last rank starts one row late: row bounds[last] belongs to nobody.
  if (world_rank() == last) {
    rows = rows_of(kMatrix, {0, rows.row_begin + 1, rows.row_end}, 1);
  }
  const std::string message = expect_same_error_everywhere<InvalidMatrixError>(
      [&] { set_up(rows); }, "rank " + std::to_string(last) + ": rows [");
  EXPECT_NE(message.find("tile"), std::string::npos) << message;
}

TEST(DistributedErrors, ADifferentSizeIsRejectedOnEveryRank) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";  // one rank's n is rank 0's
  DistributedRows rows = my_rows();
  if (world_rank() == world_size() - 1) rows.global_rows += 1;
  expect_same_error_everywhere<InvalidMatrixError>([&] { set_up(rows); },
                                                   "every rank must give the same n");
}

TEST(DistributedErrors, RanksOutOfOrderAreRejected) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  // Ranks 0 and 1 swap their blocks.
  const std::vector<std::int64_t> b = bounds_by_nonzeros(kMatrix, world_size());
  DistributedRows rows = my_rows();
  if (world_rank() == 0) rows = rows_of(kMatrix, {0, b[1], b[2]}, 1);
  if (world_rank() == 1) rows = rows_of(kMatrix, {0, b[1]}, 0);
  expect_same_error_everywhere<InvalidMatrixError>([&] { set_up(rows); }, "rank 0: rows [");
}

TEST(DistributedErrors, AColumnOutOfRangeNamesRankAndRow) {
  DistributedRows rows = my_rows();
  const int last = world_size() - 1;
  if (world_rank() == last) rows.col_idx.back() = rows.global_rows;
  expect_same_error_everywhere<InvalidMatrixError>(
      [&] { set_up(rows); }, "rank " + std::to_string(last) + ": row " +
                                 std::to_string(kMatrix.rows - 1) + ": column " +
                                 std::to_string(kMatrix.rows) + " outside [0, ");
}

TEST(DistributedErrors, UnsortedColumnsAreRejected) {
  DistributedRows rows = my_rows();
  if (world_rank() == 0) std::swap(rows.col_idx[0], rows.col_idx[1]);
  expect_same_error_everywhere<InvalidMatrixError>([&] { set_up(rows); }, "rank 0: row 0: column ");
}

TEST(DistributedErrors, ABadDiagonalBlockOnOneRankFailsEveryRank) {
  // The rank's own Solver rejects its block; the other ranks learn of it.
  DistributedRows rows = my_rows();
  const int last = world_size() - 1;
  if (world_rank() == last) {
    for (std::int64_t k = rows.row_ptr[0]; k < rows.row_ptr[1]; ++k) {
      if (rows.col_idx[k] == rows.row_begin) rows.values[k] = -1.0;
    }
  }
  expect_same_error_everywhere<InvalidMatrixError>([&] { set_up(rows); },
                                                   "rank " + std::to_string(last) + ": ");
}

TEST(DistributedErrors, AWrongVectorSizeIsRejectedOnEveryRank) {
  const DistributedRows rows = my_rows();
  DistributedSolver solver(MPI_COMM_WORLD, ic0_config());
  solver.setup(rows.view());
  std::vector<double> b(static_cast<std::size_t>(rows.row_end - rows.row_begin), 1.0);
  std::vector<double> x = b;
  if (world_rank() == 0) b.push_back(1.0);
  expect_same_error_everywhere<InvalidMatrixError>([&] { solver.solve(b, x); }, "rank 0: b has ");
}

TEST(DistributedErrors, TheCudaBackendWithoutAGpuIsABackendError) {
  SolverConfig probe = ic0_config();
  probe.backend = BackendKind::automatic;
  if (Solver(probe).backend_name() == "cuda")
    GTEST_SKIP() << "a GPU is here (test_distributed_gpu)";
  SolverConfig config = ic0_config();
  config.backend = BackendKind::cuda;
  expect_same_error_everywhere<BackendError>(
      [&] { DistributedSolver solver(MPI_COMM_WORLD, config); }, "rank 0: ");
}

TEST(DistributedErrors, TransportNcclOnCpuRanksIsAConfigError) {
  SolverConfig config = ic0_config();
  config.solver.transport = DistributedTransport::nccl;
  expect_same_error_everywhere<ConfigError>(
      [&] { DistributedSolver solver(MPI_COMM_WORLD, config); },
      "rank 0: solver.transport: nccl needs GPU ranks");
}

}  // namespace
}  // namespace prism::test
