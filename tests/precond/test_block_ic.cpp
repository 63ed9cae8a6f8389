// The host block IC(0) against its definition and against independent answers: the
// product L L^T equals the scaled A on every coupled block pair (no fill elsewhere);
// blocks of one row give ic0's factor; one block gives the exact Cholesky factor; the
// solve inverts L L^T; a block that is not positive definite is reported, and a shift
// cures it. On awkward partitions: blocks of 1, 2, 3, 6, 7, mixed sizes, a size that
// does not divide n, one color, many colors.

#include <prism/analysis.hpp>
#include <prism/blocks.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>

#include "common/test_matrices.hpp"
#include "kernels/block_ic.hpp"
#include "precond/block_ic/block_factor.hpp"
#include "precond/block_ic/block_plan.hpp"
#include "precond/block_ic/block_sweeps.hpp"
#include "precond/ic0_pattern.hpp"

#include <gtest/gtest.h>
#include <Eigen/Dense>

#include <string>
#include <vector>

namespace {

using prism::BlockPartition;
using prism::CsrMatrix;
using prism::index_t;
using prism::precond::BlockFactor;

Eigen::MatrixXd dense(const CsrMatrix<double>& a) {
  return Eigen::MatrixXd(prism::test::to_eigen(a));
}

/// L_s as a dense lower triangular matrix.
Eigen::MatrixXd dense_factor(const BlockFactor& f) {
  const index_t n = f.blocks.rows();
  Eigen::MatrixXd l = Eigen::MatrixXd::Zero(n, n);
  for (index_t bi = 0; bi < f.blocks.count(); ++bi) {
    const index_t r0 = f.blocks.ptr[bi], rows = f.size(bi);
    for (index_t e = f.row_ptr[bi]; e < f.row_ptr[bi + 1]; ++e) {
      const index_t bj = f.col[e], c0 = f.blocks.ptr[bj], cols = f.size(bj);
      for (index_t r = 0; r < rows; ++r) {
        for (index_t c = 0; c < cols; ++c) l(r0 + r, c0 + c) = f.values[f.offset[e] + r * cols + c];
      }
    }
    for (index_t r = 0; r < rows; ++r) {
      for (index_t c = 0; c <= r; ++c) l(r0 + r, r0 + c) = f.values[f.diagonal[bi] + r * rows + c];
    }
  }
  return l;
}

/// S A S + shift I, S = diag(a_ii)^{-1/2}.
Eigen::MatrixXd scaled(const CsrMatrix<double>& a, double shift) {
  Eigen::MatrixXd d = dense(a);
  const Eigen::VectorXd s = d.diagonal().cwiseSqrt().cwiseInverse();
  return s.asDiagonal() * d * s.asDiagonal() + shift * Eigen::MatrixXd::Identity(a.rows, a.rows);
}

BlockPartition mixed(index_t rows, const std::vector<index_t>& sizes) {
  BlockPartition p;
  for (std::size_t k = 0; p.rows() < rows; ++k) {
    p.ptr.push_back(std::min(rows, p.rows() + sizes[k % sizes.size()]));
  }
  return p;
}

struct Case {
  std::string name;
  CsrMatrix<double> a;
  BlockPartition blocks;
};

/// Matrices in block-colored order (as the preconditioner will see them) with their blocks.
std::vector<Case> cases() {
  std::vector<Case> out;
  const auto colored = [&](const std::string& name, const CsrMatrix<double>& a,
                           const BlockPartition& blocks) {
    const prism::BlockColoring c = prism::color_blocks(a, blocks, prism::VertexOrder::natural);
    out.push_back({name, prism::permute_symmetric(a, c.permutation), c.blocks});
  };
  const CsrMatrix<double> e = prism::elasticity3d(3, 2, 3, 2, {1.0, 50.0});
  colored("elasticity nodes", e, prism::find_node_blocks(e));
  colored("elasticity blocks of 1", e, prism::uniform_blocks(e.rows, 1));
  colored("elasticity blocks of 2", e, prism::uniform_blocks(e.rows, 2));
  colored("elasticity blocks of 7", e, prism::uniform_blocks(e.rows, 7));
  colored("elasticity blocks of 6", e, prism::uniform_blocks(e.rows, 6));
  const CsrMatrix<double> r = prism::test::random_symmetric(53, 120, 3);
  colored("random mixed 1 2 3 6 7", r, mixed(r.rows, {1, 2, 3, 6, 7}));
  colored("random one block", r, prism::uniform_blocks(r.rows, r.rows));
  colored("poisson blocks of 3", prism::poisson2d(7, 6), prism::uniform_blocks(42, 3));
  out.push_back({"natural order, many colors", prism::poisson2d(6, 5), mixed(30, {2, 3})});
  colored("diagonal: one color", prism::test::diagonal_only(9), prism::uniform_blocks(9, 2));
  return out;
}

/// The first shift of 0, 1e-3, 2e-3, 4e-3, ... that factors (BIC(0) of an SPD matrix
/// that is not an M-matrix, such as elasticity, can break down as IC(0) can).
double factor_with_shift(const CsrMatrix<double>& a, BlockFactor& f) {
  for (double shift = 0.0; shift < 10.0; shift = shift == 0.0 ? 1e-3 : 2.0 * shift) {
    if (prism::precond::factor_block_ic0(a, shift, f) < 0) return shift;
  }
  ADD_FAILURE() << "no shift below 10 factors";
  return 0.0;
}

TEST(BlockIc0, ProductEqualsTheScaledMatrixOnEveryCoupledBlockPair) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    BlockFactor f = prism::precond::analyze_block_factor(c.a, c.blocks);
    const double shift = factor_with_shift(c.a, f);
    const Eigen::MatrixXd l = dense_factor(f);
    const Eigen::MatrixXd product = l * l.transpose();
    const Eigen::MatrixXd target = scaled(c.a, shift);
    const CsrMatrix<double> q = prism::quotient_matrix(c.a, c.blocks);
    const std::vector<index_t> of = c.blocks.block_of();
    Eigen::MatrixXd coupled = Eigen::MatrixXd::Zero(q.rows, q.rows);
    for (index_t i = 0; i < q.rows; ++i) {
      for (index_t k = q.row_ptr[i]; k < q.row_ptr[i + 1]; ++k) coupled(i, q.col_idx[k]) = 1.0;
    }
    double worst = 0.0;
    for (index_t i = 0; i < c.a.rows; ++i) {
      for (index_t j = 0; j < c.a.rows; ++j) {
        if (coupled(of[i], of[j]) != 0.0) {
          worst = std::max(worst, std::abs(product(i, j) - target(i, j)));
        }
      }
    }
    EXPECT_LE(worst, 1e-13) << "shift " << shift;
  }
}

TEST(BlockIc0, BlocksOfOneRowGiveIc0) {
  for (const CsrMatrix<double>& a :
       {prism::poisson3d(5, 4, 3), prism::test::random_symmetric(40, 90, 5),
        prism::layered(6, 5, 0, 2, {1.0, 1000.0})}) {
    prism::precond::Ic0Pattern ic0(a);
    const prism::FactorizationReport report = ic0.factorize(a, prism::Ic0Options{});
    ASSERT_EQ(report.shift, 0.0);
    BlockFactor f = prism::precond::analyze_block_factor(a, prism::uniform_blocks(a.rows, 1));
    ASSERT_EQ(prism::precond::factor_block_ic0(a, 0.0, f), -1);
    // L = S^{-1} L_s
    Eigen::MatrixXd l = dense_factor(f);
    for (index_t i = 0; i < a.rows; ++i) l.row(i) /= f.scale[i];
    const Eigen::MatrixXd expected = dense(ic0.lower());
    EXPECT_LE((l - expected).norm(), 1e-13 * expected.norm()) << "n=" << a.rows;
  }
}

TEST(BlockIc0, OneBlockIsTheExactCholeskyFactor) {
  const CsrMatrix<double> a = prism::elasticity3d(2, 2, 2, 1, {1.0});
  BlockFactor f = prism::precond::analyze_block_factor(a, prism::uniform_blocks(a.rows, a.rows));
  ASSERT_EQ(prism::precond::factor_block_ic0(a, 0.0, f), -1);
  const std::vector<double> r = prism::test::random_vector(a.rows, 9);
  std::vector<double> z(r.size());
  prism::precond::solve_block_ic0(f, r.data(), z.data());
  const Eigen::VectorXd exact = dense(a).llt().solve(prism::test::to_eigen(r));
  EXPECT_LE((prism::test::to_eigen(z) - exact).norm(), 1e-10 * exact.norm());
}

// z = M^{-1} r with M = S^{-1} L_s L_s^T S^{-1}: M z must give r back; also in place.
TEST(BlockIc0, SolveInvertsTheFactor) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    BlockFactor f = prism::precond::analyze_block_factor(c.a, c.blocks);
    ASSERT_EQ(prism::precond::factor_block_ic0(c.a, 0.1, f), -1);
    const Eigen::MatrixXd l = dense_factor(f);
    const Eigen::VectorXd s = Eigen::Map<const Eigen::VectorXd>(f.scale.data(), c.a.rows);
    const Eigen::MatrixXd m =
        s.cwiseInverse().asDiagonal() * (l * l.transpose()) * s.cwiseInverse().asDiagonal();
    std::vector<double> r = prism::test::random_vector(c.a.rows, 4);
    std::vector<double> z(r.size());
    prism::precond::solve_block_ic0(f, r.data(), z.data());
    const Eigen::VectorXd back = m * prism::test::to_eigen(z);
    EXPECT_LE((back - prism::test::to_eigen(r)).norm(), 1e-12 * prism::test::to_eigen(r).norm());
    prism::precond::solve_block_ic0(f, r.data(), r.data());
    EXPECT_EQ(r, z);
  }
}

/// A CSR matrix as a dense one.
Eigen::MatrixXd dense_of(const CsrMatrix<double>& m) {
  Eigen::MatrixXd d = Eigen::MatrixXd::Zero(m.rows, m.cols);
  for (index_t i = 0; i < m.rows; ++i) {
    for (index_t k = m.row_ptr[i]; k < m.row_ptr[i + 1]; ++k) d(i, m.col_idx[k]) = m.values[k];
  }
  return d;
}

// The four operators the backends apply give the block solve: t = F r, (I + W) y = t,
// s = B y, (I + V) z = s, done here with dense arithmetic. Their triangles have the
// unit diagonal where the color-set solves want it (last in a lower row, first in an
// upper one), no entry inside a diagonal block, and a pattern that does not depend on
// the values.
TEST(BlockSweeps, ApplyTheBlockSolve) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    BlockFactor f = prism::precond::analyze_block_factor(c.a, c.blocks);
    ASSERT_EQ(prism::precond::factor_block_ic0(c.a, 0.1, f), -1);
    const prism::precond::BlockSweeps s = prism::precond::block_sweeps(f);
    const std::vector<double> r = prism::test::random_vector(c.a.rows, 8);
    std::vector<double> want(r.size());
    prism::precond::solve_block_ic0(f, r.data(), want.data());

    const Eigen::VectorXd t = dense_of(s.forward_diagonal) * prism::test::to_eigen(r);
    const Eigen::VectorXd y = dense_of(s.forward).triangularView<Eigen::Lower>().solve(t);
    const Eigen::VectorXd u = dense_of(s.backward_diagonal) * y;
    const Eigen::VectorXd z = dense_of(s.backward).triangularView<Eigen::Upper>().solve(u);
    const Eigen::VectorXd expected = prism::test::to_eigen(want);
    EXPECT_LE((z - expected).norm(), 1e-12 * expected.norm());

    const std::vector<index_t> of = c.blocks.block_of();
    for (index_t i = 0; i < c.a.rows; ++i) {
      const auto& fw = s.forward;
      const auto& bw = s.backward;
      ASSERT_EQ(fw.col_idx[fw.row_ptr[i + 1] - 1], i);
      EXPECT_EQ(fw.values[fw.row_ptr[i + 1] - 1], 1.0);
      ASSERT_EQ(bw.col_idx[bw.row_ptr[i]], i);
      EXPECT_EQ(bw.values[bw.row_ptr[i]], 1.0);
      for (index_t k = fw.row_ptr[i]; k + 1 < fw.row_ptr[i + 1]; ++k) {
        EXPECT_LT(of[fw.col_idx[k]], of[i]);
      }
      for (index_t k = bw.row_ptr[i] + 1; k < bw.row_ptr[i + 1]; ++k) {
        EXPECT_GT(of[bw.col_idx[k]], of[i]);
      }
    }
    ASSERT_EQ(prism::precond::factor_block_ic0(c.a, 0.3, f), -1);
    const prism::precond::BlockSweeps again = prism::precond::block_sweeps(f);
    EXPECT_EQ(again.forward.col_idx, s.forward.col_idx);
    EXPECT_EQ(again.backward.col_idx, s.backward.col_idx);
    EXPECT_EQ(again.forward_diagonal.col_idx, s.forward_diagonal.col_idx);
    EXPECT_EQ(again.backward_diagonal.row_ptr, s.backward_diagonal.row_ptr);
  }
}

/// The block IC(0) kernels' reference on the plan: scale, load with `shift`, factor,
/// operators.
struct KernelRun {
  prism::kernels::BlockIcStatus status;
  prism::precond::BlockSweeps out;
};
KernelRun run_kernels(const CsrMatrix<double>& a, const BlockFactor& f, double shift) {
  namespace ref = prism::kernels::reference;
  KernelRun run{{}, prism::precond::block_sweeps_pattern(f)};
  const prism::kernels::BlockIcPlan plan = prism::precond::block_ic_plan(a, f, run.out);
  const prism::kernels::BlockIcView view = plan.view();
  std::vector<double> scale(a.rows), values(plan.value_count), inverse(plan.inverse_count);
  EXPECT_EQ(ref::block_ic_scale(view, a.values.data(), nullptr, scale.data()), -1);
  ref::block_ic_load(view, a.values.data(), nullptr, scale.data(), shift, plan.value_count,
                     values.data());
  run.status = ref::block_ic_factor(view, plan.level_ptr, values.data(), inverse.data());
  if (!run.status.ok()) return run;
  ref::block_ic_operators(view, values.data(), inverse.data(), scale.data(),
                          run.out.forward_diagonal.values.data(), run.out.forward.values.data(),
                          run.out.backward_diagonal.values.data(), run.out.backward.values.data());
  return run;
}

double max_relative_difference(const std::vector<double>& got, const std::vector<double>& want) {
  double worst = 0.0, largest = 0.0;
  for (std::size_t k = 0; k < want.size(); ++k) {
    worst = std::max(worst, std::abs(got[k] - want[k]));
    largest = std::max(largest, std::abs(want[k]));
  }
  return largest > 0.0 ? worst / largest : worst;
}

// The kernels' reference (level by level, the device's order of operations) gives the
// operators of the host factor on every awkward case, and their patterns are those of
// block_sweeps_pattern.
TEST(BlockIcKernels, ReferenceEqualsTheHostFactorsOperators) {
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    BlockFactor f = prism::precond::analyze_block_factor(c.a, c.blocks);
    ASSERT_EQ(prism::precond::factor_block_ic0(c.a, 0.1, f), -1);
    const prism::precond::BlockSweeps want = prism::precond::block_sweeps(f);
    const KernelRun got = run_kernels(c.a, f, 0.1);
    ASSERT_TRUE(got.status.ok());
    EXPECT_EQ(got.out.forward.col_idx, want.forward.col_idx);
    EXPECT_EQ(got.out.backward.col_idx, want.backward.col_idx);
    EXPECT_LE(max_relative_difference(got.out.forward.values, want.forward.values), 1e-12);
    EXPECT_LE(max_relative_difference(got.out.backward.values, want.backward.values), 1e-12);
    EXPECT_LE(
        max_relative_difference(got.out.forward_diagonal.values, want.forward_diagonal.values),
        1e-12);
    EXPECT_LE(
        max_relative_difference(got.out.backward_diagonal.values, want.backward_diagonal.values),
        1e-12);
  }
}

// A block that is not positive definite fails in the kernels as on the host; the level
// order reports a block of the first level with a failure.
TEST(BlockIcKernels, ReferenceReportsTheBlockThatIsNotPositiveDefinite) {
  const CsrMatrix<double> a = prism::csr_from_triplets(4, 4,
                                                       {{0, 0, 4.0},
                                                        {1, 1, 4.0},
                                                        {2, 2, 1.0},
                                                        {2, 3, 2.0},
                                                        {3, 2, 2.0},
                                                        {3, 3, 1.0},
                                                        {0, 2, 0.5},
                                                        {2, 0, 0.5}});
  const BlockFactor f = prism::precond::analyze_block_factor(a, prism::uniform_blocks(4, 2));
  EXPECT_EQ(run_kernels(a, f, 0.0).status.failed_block, 1);
  EXPECT_TRUE(run_kernels(a, f, 2.0).status.ok());
}

// A 2 x 2 diagonal block [[1, 2], [2, 1]] (positive diagonal, indefinite) breaks down;
// shifted by 2 on the scaled diagonal it is [[3, 2], [2, 3]], positive definite.
TEST(BlockIc0, BlockThatIsNotPositiveDefiniteIsReportedAndAShiftCuresIt) {
  const CsrMatrix<double> a = prism::csr_from_triplets(4, 4,
                                                       {{0, 0, 4.0},
                                                        {1, 1, 4.0},
                                                        {2, 2, 1.0},
                                                        {2, 3, 2.0},
                                                        {3, 2, 2.0},
                                                        {3, 3, 1.0},
                                                        {0, 2, 0.5},
                                                        {2, 0, 0.5}});
  const BlockPartition blocks = prism::uniform_blocks(4, 2);
  BlockFactor f = prism::precond::analyze_block_factor(a, blocks);
  EXPECT_EQ(prism::precond::factor_block_ic0(a, 0.0, f), 1);
  EXPECT_EQ(prism::precond::factor_block_ic0(a, 2.0, f), -1);
}

TEST(BlockIc0, ValuesOfAnotherPatternAreRejected) {
  const CsrMatrix<double> a = prism::poisson2d(4, 4);
  BlockFactor f = prism::precond::analyze_block_factor(a, prism::uniform_blocks(16, 4));
  EXPECT_THROW(prism::precond::factor_block_ic0(prism::poisson2d(4, 5), 0.0, f),
               prism::InvalidMatrixError);
  EXPECT_THROW(prism::precond::analyze_block_factor(a, prism::uniform_blocks(15, 4)),
               prism::InvalidMatrixError);
}

}  // namespace
