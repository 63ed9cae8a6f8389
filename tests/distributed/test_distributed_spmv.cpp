// The distributed SpMV against the one-process reference SpMV: the same bits, since each
// row is summed in its column order on whichever rank owns it; and the row partition.
#include "distributed_support.hpp"

#include <prism/errors.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "kernels/spmv.hpp"

#include <algorithm>
#include <random>

namespace prism::test {
namespace {

std::vector<double> random_vector(std::size_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> v(n);
  for (double& x : v) x = dist(gen);
  return v;
}

/// Counts the entries of this rank's product that differ in any bit from the reference's.
int mismatches(const CsrMatrix<double>& a, const std::vector<std::int64_t>& bounds,
               CpuKernels kernels) {
  const int rank = world_rank();
  const std::vector<double> x = random_vector(static_cast<std::size_t>(a.rows), 11);
  std::vector<double> y_serial(x.size());
  kernels::reference::spmv({a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(), a.values.data()},
                           x.data(), y_serial.data());
  SolverConfig config;
  config.backend = BackendKind::cpu;  // the host SpMV's bits (GPU ranks: test_distributed_gpu)
  config.cpu_kernels = kernels;
  config.preconditioner.type = "none";
  DistributedSolver solver(MPI_COMM_WORLD, config);
  const DistributedRows rows = rows_of(a, bounds, rank);
  solver.setup(rows.view());
  std::vector<double> y;
  solver.multiply(slice(x, rows.row_begin, rows.row_end), y);
  int bad = 0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    if (y[i] != y_serial[rows.row_begin + i]) ++bad;
  }
  return bad;
}

TEST(DistributedSpmv, EqualsTheSerialSpmvBitForBit) {
  const int size = world_size();
  const std::vector<CsrMatrix<double>> matrices{poisson3d(7, 6, 5), poisson3d(5, 4, 3, 27),
                                                elasticity3d(3, 2, 3, 2, {1.0, 50.0}),
                                                anisotropic2d(13, 9, 1.0, 0.01)};
  for (const CsrMatrix<double>& a : matrices) {
    // By nonzeros, and a lopsided cut (rank r gets a share growing with r).
    std::vector<std::int64_t> lopsided(static_cast<std::size_t>(size) + 1, 0);
    const std::int64_t weights = static_cast<std::int64_t>(size) * (size + 1) / 2;
    for (int r = 1; r <= size; ++r) lopsided[r] = a.rows * (r * (r + 1) / 2) / weights;
    for (const auto& bounds : {bounds_by_nonzeros(a, size), lopsided}) {
      for (const CpuKernels kernels : {CpuKernels::threaded, CpuKernels::reference}) {
        EXPECT_EQ(mismatches(a, bounds, kernels), 0)
            << a.rows << " rows, rank " << world_rank() << ", kernels " << to_string(kernels);
      }
    }
  }
}

TEST(DistributedSpmv, TakesEmptyRanks) {
  // Every row on the last rank; the others own none.
  const CsrMatrix<double> a = poisson3d(4, 4, 3);
  std::vector<std::int64_t> bounds(static_cast<std::size_t>(world_size()) + 1, 0);
  bounds.back() = a.rows;
  EXPECT_EQ(mismatches(a, bounds, CpuKernels::threaded), 0);
}

TEST(RowPartition, BalancesNonzerosAndGivesEveryPartARow) {
  // Rows of 1, 1, 1, 1, 10, 10 nonzeros: three parts put each long row apart.
  const std::vector<std::int64_t> row_ptr{0, 1, 2, 3, 4, 14, 24};
  EXPECT_EQ(partition_rows_by_nonzeros(row_ptr.data(), 6, 3),
            (std::vector<std::int64_t>{0, 4, 5, 6}));
  EXPECT_EQ(partition_rows_by_nonzeros(row_ptr.data(), 6, 1), (std::vector<std::int64_t>{0, 6}));
  // Uniform rows split evenly.
  std::vector<std::int64_t> uniform{0};
  for (int i = 0; i < 12; ++i) uniform.push_back(uniform.back() + 5);
  EXPECT_EQ(partition_rows_by_nonzeros(uniform.data(), 12, 4),
            (std::vector<std::int64_t>{0, 3, 6, 9, 12}));
  // One heavy first row still leaves a row to every later part.
  const std::vector<std::int64_t> heavy{0, 100, 101, 102};
  EXPECT_EQ(partition_rows_by_nonzeros(heavy.data(), 3, 3),
            (std::vector<std::int64_t>{0, 1, 2, 3}));
  // Fewer rows than parts: the last parts are empty.
  const std::vector<std::int64_t> two{0, 1, 2};
  const std::vector<std::int64_t> cut = partition_rows_by_nonzeros(two.data(), 2, 4);
  EXPECT_EQ(cut.front(), 0);
  EXPECT_EQ(cut.back(), 2);
  EXPECT_TRUE(std::is_sorted(cut.begin(), cut.end()));
  EXPECT_THROW(partition_rows_by_nonzeros(two.data(), 2, 0), ConfigError);
}

}  // namespace
}  // namespace prism::test
