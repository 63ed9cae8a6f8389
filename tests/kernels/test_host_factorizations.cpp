// The threaded factorizations (kernels/host: IC(0) color by color, block IC(0) level by
// level) against the reference kernels on 1 to 7 threads: the same scaling, factor,
// inverses and operators bit for bit, and the same verdict when the factorization fails
// (a negative shift, bad pivots planted in several parts of one wide block, in two
// levels, a NaN): the smallest failing row (block) of the first block (level) that has
// one. A natural order's chains of one-row blocks and many levels, a colored order's
// wide blocks, one block, n = 1.

#include <prism/analysis.hpp>
#include <prism/blocks.hpp>
#include <prism/generators.hpp>

#include "backend/split_triangle.hpp"
#include "common/test_matrices.hpp"
#include "kernels/block_ic.hpp"
#include "kernels/host/threaded.hpp"
#include "kernels/ic0.hpp"
#include "kernels/spmv.hpp"
#include "precond/block_ic/block_factor.hpp"
#include "precond/block_ic/block_plan.hpp"
#include "precond/block_ic/block_sweeps.hpp"
#include "precond/ic0_pattern.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace {

namespace ref = prism::kernels::reference;
namespace host = prism::kernels::host;
using prism::BlockPartition;
using prism::CsrMatrix;
using prism::index_t;
using prism::backend::SplitTriangle;
using prism::backend::Triangle;
using prism::kernels::BlockIcStatus;
using prism::kernels::Ic0Status;

constexpr int kThreads[] = {1, 2, 3, 4, 7};

prism::kernels::CsrView<double> pattern(const CsrMatrix<double>& a) {
  return {a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(), nullptr};
}

bool same_bits(double x, double y) {
  return x == y || (std::isnan(x) && std::isnan(y));
}

void expect_same_status(const Ic0Status& got, const Ic0Status& want) {
  EXPECT_EQ(got.failed_row, want.failed_row);
  EXPECT_TRUE(same_bits(got.pivot, want.pivot)) << got.pivot << " vs " << want.pivot;
  EXPECT_EQ(got.bad_input, want.bad_input);
}

// ---------------------------------------------------------------------------------------
// IC(0)

struct Ordered {
  std::string name;
  CsrMatrix<double> a;
};

std::vector<Ordered> ic0_matrices() {
  std::vector<Ordered> out;
  auto both = [&](const std::string& name, const CsrMatrix<double>& a) {
    const auto c = prism::color_matrix(a, prism::VertexOrder::natural);
    out.push_back({name + "_color", prism::permute_symmetric(a, c.permutation)});
    out.push_back({name + "_natural", a});
  };
  both("n1", prism::poisson2d(1, 1));
  both("poisson2d_31x17", prism::poisson2d(31, 17));
  both("poisson3d_24", prism::poisson3d(24, 24, 24));
  both("poisson3d27_16x15x14", prism::poisson3d(16, 15, 14, 27));
  both("elasticity3d", prism::elasticity3d(8, 8, 8, 1, {1.0}));
  out.push_back({"diagonal_one_block", prism::test::diagonal_only(3001)});
  return out;
}

/// An IC(0) problem: the scaled lower triangle and the lower solve's blocks.
struct Ic0Problem {
  CsrMatrix<double> lower;
  std::vector<index_t> source, block_ptr;
  std::vector<double> scaled, row_scale;
};

Ic0Problem ic0_problem(const CsrMatrix<double>& a) {
  const prism::precond::Ic0Pattern p(a);
  Ic0Problem out{p.lower(), p.lower_source(), {}, {}, {}};
  out.block_ptr = SplitTriangle::unit_values(p.lower(), Triangle::lower).block_ptr();
  out.scaled.resize(out.lower.values.size());
  out.row_scale.resize(static_cast<std::size_t>(a.rows));
  EXPECT_TRUE(ref::ic0_scale(pattern(out.lower), out.source.data(), a.values.data(),
                             out.scaled.data(), out.row_scale.data())
                  .ok());
  return out;
}

/// Factors `values` with the reference and on every thread count; the same verdict, the
/// same factor (on failure: the rows before the failing one, all final in both).
void expect_ic0_factorize_like_the_reference(const Ic0Problem& p, const std::vector<double>& values,
                                             double shift) {
  std::vector<double> want = values;
  const Ic0Status verdict = ref::ic0_factorize(pattern(p.lower), want.data(), shift);
  const int blocks = static_cast<int>(p.block_ptr.size()) - 1;
  for (int t : kThreads) {
    SCOPED_TRACE(std::to_string(t) + " threads");
    std::vector<double> got = values;
    expect_same_status(
        host::ic0_factorize(t, pattern(p.lower), p.block_ptr.data(), blocks, got.data(), shift),
        verdict);
    if (verdict.ok()) {
      EXPECT_EQ(got, want);
    } else {
      const auto final_entries = static_cast<std::size_t>(p.lower.row_ptr[verdict.failed_row]);
      for (std::size_t k = 0; k < final_entries; ++k) ASSERT_EQ(got[k], want[k]) << k;
    }
  }
}

TEST(HostFactorizations, Ic0ScaleIsTheReferenceBits) {
  for (const Ordered& o : ic0_matrices()) {
    SCOPED_TRACE(o.name);
    const Ic0Problem p = ic0_problem(o.a);
    for (int t : kThreads) {
      std::vector<double> scaled(p.scaled.size()), row_scale(p.row_scale.size());
      EXPECT_TRUE(host::ic0_scale(t, pattern(p.lower), p.source.data(), o.a.values.data(),
                                  scaled.data(), row_scale.data())
                      .ok());
      EXPECT_EQ(scaled, p.scaled) << t << " threads";
      EXPECT_EQ(row_scale, p.row_scale) << t << " threads";
    }
  }
}

TEST(HostFactorizations, Ic0ScaleReportsTheFirstBadDiagonal) {
  CsrMatrix<double> a = prism::poisson3d(24, 24, 24);
  const Ic0Problem p = ic0_problem(a);
  for (index_t row : {index_t{5000}, index_t{9000}, a.rows - 1}) {
    a.values[p.source[p.lower.row_ptr[row + 1] - 1]] = row == 9000 ? std::nan("") : -2.0;
  }
  std::vector<double> scaled(p.scaled.size()), row_scale(p.row_scale.size());
  const Ic0Status want = ref::ic0_scale(pattern(p.lower), p.source.data(), a.values.data(),
                                        scaled.data(), row_scale.data());
  ASSERT_EQ(want.failed_row, 5000);
  for (int t : kThreads) {
    expect_same_status(host::ic0_scale(t, pattern(p.lower), p.source.data(), a.values.data(),
                                       scaled.data(), row_scale.data()),
                       want);
  }
}

TEST(HostFactorizations, Ic0FactorizeIsTheReferenceBitsAndVerdict) {
  for (const Ordered& o : ic0_matrices()) {
    SCOPED_TRACE(o.name);
    const Ic0Problem p = ic0_problem(o.a);
    for (double shift : {0.0, 1e-3, -0.3, -0.7, -1.5}) {
      SCOPED_TRACE("shift " + std::to_string(shift));
      expect_ic0_factorize_like_the_reference(p, p.scaled, shift);
    }
  }
}

// Bad pivots planted in a wide color: in the parts of three and of seven threads, and in a
// later color; the reference's verdict is the first of the wide color's.
TEST(HostFactorizations, Ic0FactorizeReportsTheSmallestFailingRowOfTheFirstFailingBlock) {
  const CsrMatrix<double> a = prism::poisson3d(24, 24, 24, 27);
  const auto c = prism::color_matrix(a, prism::VertexOrder::natural);
  const Ic0Problem p = ic0_problem(prism::permute_symmetric(a, c.permutation));
  ASSERT_GE(p.block_ptr.size(), 4u);
  const index_t first = p.block_ptr[1], rows = p.block_ptr[2] - first;  // the second color
  ASSERT_GE(rows, 7 * 128);
  const auto diagonal = [&](index_t row) { return p.lower.row_ptr[row + 1] - 1; };
  for (double bad : {-1.0, 0.0, std::nan("")}) {
    SCOPED_TRACE("planted " + std::to_string(bad));
    std::vector<double> values = p.scaled;
    const index_t planted[] = {first + rows * 6 / 7 + 1, first + rows / 2 + 3, first + rows / 3 + 5,
                               p.block_ptr[2] + 17};
    for (index_t row : planted) values[diagonal(row)] = bad;
    std::vector<double> want = values;
    ASSERT_EQ(ref::ic0_factorize(pattern(p.lower), want.data(), 0.0).failed_row, planted[2]);
    expect_ic0_factorize_like_the_reference(p, values, 0.0);
  }
}

// ---------------------------------------------------------------------------------------
// Block IC(0)

struct BlockCase {
  std::string name;
  CsrMatrix<double> a;
  BlockPartition blocks;
};

BlockPartition mixed(index_t rows, const std::vector<index_t>& sizes) {
  BlockPartition p;
  for (std::size_t k = 0; p.rows() < rows; ++k) {
    p.ptr.push_back(std::min(rows, p.rows() + sizes[k % sizes.size()]));
  }
  return p;
}

/// In block-colored order (wide levels) and in natural order (many narrow levels).
std::vector<BlockCase> block_cases() {
  std::vector<BlockCase> out;
  const auto colored = [&](const std::string& name, const CsrMatrix<double>& a,
                           const BlockPartition& blocks) {
    const prism::BlockColoring c = prism::color_blocks(a, blocks, prism::VertexOrder::natural);
    out.push_back({name, prism::permute_symmetric(a, c.permutation), c.blocks});
  };
  const CsrMatrix<double> e = prism::elasticity3d(9, 9, 9, 2, {1.0, 50.0});
  colored("elasticity nodes", e, prism::find_node_blocks(e));
  colored("elasticity blocks of 1", e, prism::uniform_blocks(e.rows, 1));
  colored("elasticity blocks of 7", e, prism::uniform_blocks(e.rows, 7));
  const CsrMatrix<double> r = prism::test::random_symmetric(3001, 9000, 3);
  colored("random mixed 1 2 3 6 7", r, mixed(r.rows, {1, 2, 3, 6, 7}));
  colored("random one block", prism::test::random_symmetric(40, 60, 4),
          prism::uniform_blocks(40, 40));
  out.push_back({"natural order, many levels", prism::poisson2d(40, 30), mixed(1200, {2, 3})});
  colored("diagonal: one level", prism::test::diagonal_only(999), prism::uniform_blocks(999, 2));
  colored("n1", prism::poisson2d(1, 1), prism::uniform_blocks(1, 1));
  return out;
}

struct BlockProblem {
  prism::precond::BlockSweeps sweeps;
  prism::kernels::BlockIcPlan plan;
  std::vector<double> scale, loaded;
};

BlockProblem block_problem(const BlockCase& c, double shift) {
  const prism::precond::BlockFactor f = prism::precond::analyze_block_factor(c.a, c.blocks);
  BlockProblem p{prism::precond::block_sweeps_pattern(f), {}, {}, {}};
  p.plan = prism::precond::block_ic_plan(c.a, f, p.sweeps);
  p.scale.resize(static_cast<std::size_t>(c.a.rows));
  p.loaded.resize(static_cast<std::size_t>(p.plan.value_count));
  const prism::kernels::BlockIcView v = p.plan.view();
  EXPECT_EQ(ref::block_ic_scale(v, c.a.values.data(), nullptr, p.scale.data()), -1);
  ref::block_ic_load(v, c.a.values.data(), nullptr, p.scale.data(), shift, p.plan.value_count,
                     p.loaded.data());
  return p;
}

/// The factor, the inverses and the verdict of `loaded`, with the reference or on `threads`.
struct BlockRun {
  BlockIcStatus status;
  std::vector<double> values, inverse;
};

BlockRun factor(const BlockProblem& p, const std::vector<double>& loaded, int threads) {
  BlockRun run{{}, loaded, std::vector<double>(static_cast<std::size_t>(p.plan.inverse_count))};
  const prism::kernels::BlockIcView v = p.plan.view();
  run.status = threads == 0 ? ref::block_ic_factor(v, p.plan.level_ptr, run.values.data(),
                                                   run.inverse.data())
                            : host::block_ic_factor(threads, v, p.plan.level_ptr, run.values.data(),
                                                    run.inverse.data());
  return run;
}

/// Every block of the failed level is factored by both: all values the same bits.
void expect_block_factor_like_the_reference(const BlockProblem& p,
                                            const std::vector<double>& loaded) {
  const BlockRun want = factor(p, loaded, 0);
  for (int t : kThreads) {
    SCOPED_TRACE(std::to_string(t) + " threads");
    const BlockRun got = factor(p, loaded, t);
    EXPECT_EQ(got.status.failed_block, want.status.failed_block);
    EXPECT_EQ(got.status.bad_input, want.status.bad_input);
    EXPECT_EQ(got.values, want.values);
    EXPECT_EQ(got.inverse, want.inverse);
  }
}

prism::precond::BlockSweeps operators(const BlockProblem& p, const BlockRun& run, int threads) {
  prism::precond::BlockSweeps out = p.sweeps;
  const prism::kernels::BlockIcView v = p.plan.view();
  double* fd = out.forward_diagonal.values.data();
  double* fw = out.forward.values.data();
  double* bd = out.backward_diagonal.values.data();
  double* bw = out.backward.values.data();
  if (threads == 0) {
    ref::block_ic_operators(v, run.values.data(), run.inverse.data(), p.scale.data(), fd, fw, bd,
                            bw);
  } else {
    host::block_ic_operators(threads, v, run.values.data(), run.inverse.data(), p.scale.data(), fd,
                             fw, bd, bw);
  }
  return out;
}

TEST(HostFactorizations, BlockIcScaleAndLoadAreTheReferenceBits) {
  for (const BlockCase& c : block_cases()) {
    SCOPED_TRACE(c.name);
    const BlockProblem p = block_problem(c, 0.25);
    const prism::kernels::BlockIcView v = p.plan.view();
    for (int t : kThreads) {
      std::vector<double> scale(p.scale.size()), loaded(p.loaded.size(), 7.0);
      EXPECT_EQ(host::block_ic_scale(t, v, c.a.values.data(), nullptr, scale.data()), -1);
      EXPECT_EQ(scale, p.scale) << t << " threads";
      host::block_ic_load(t, v, c.a.values.data(), nullptr, scale.data(), 0.25, p.plan.value_count,
                          loaded.data());
      EXPECT_EQ(loaded, p.loaded) << t << " threads";
    }
  }
}

TEST(HostFactorizations, BlockIcScaleReportsTheFirstBadDiagonal) {
  const BlockCase c = block_cases().front();
  const BlockProblem p = block_problem(c, 0.0);
  std::vector<double> a = c.a.values;
  const index_t n = c.a.rows;
  for (index_t row : {n / 2, n / 4 + 1, n - 1}) {
    a[p.plan.a_diagonal[row]] = row == n / 2 ? std::nan("") : 0.0;
  }
  std::vector<double> scale(p.scale.size());
  ASSERT_EQ(ref::block_ic_scale(p.plan.view(), a.data(), nullptr, scale.data()), n / 4 + 1);
  for (int t : kThreads) {
    EXPECT_EQ(host::block_ic_scale(t, p.plan.view(), a.data(), nullptr, scale.data()), n / 4 + 1);
  }
}

TEST(HostFactorizations, BlockIcFactorAndOperatorsAreTheReferenceBits) {
  for (const BlockCase& c : block_cases()) {
    SCOPED_TRACE(c.name);
    const BlockProblem p = block_problem(c, 0.1);
    expect_block_factor_like_the_reference(p, p.loaded);
    const BlockRun run = factor(p, p.loaded, 0);
    ASSERT_TRUE(run.status.ok());
    const prism::precond::BlockSweeps want = operators(p, run, 0);
    for (int t : kThreads) {
      const prism::precond::BlockSweeps got = operators(p, run, t);
      EXPECT_EQ(got.forward_diagonal.values, want.forward_diagonal.values) << t << " threads";
      EXPECT_EQ(got.forward.values, want.forward.values) << t << " threads";
      EXPECT_EQ(got.backward_diagonal.values, want.backward_diagonal.values) << t << " threads";
      EXPECT_EQ(got.backward.values, want.backward.values) << t << " threads";
    }
  }
}

prism::kernels::CsrView<double> view_of(const CsrMatrix<double>& m) {
  return {m.rows, m.cols, m.row_ptr.data(), m.col_idx.data(), m.values.data()};
}

/// z = the operators' apply (block_sweeps.hpp) of r, by plain substitution on their CSR.
std::vector<double> apply_operators(const prism::precond::BlockSweeps& op,
                                    const std::vector<double>& r) {
  const index_t n = op.forward.rows;
  std::vector<double> t(r.size()), y(r.size()), z(r.size());
  prism::kernels::reference::spmv(view_of(op.forward_diagonal), r.data(), t.data());
  for (index_t i = 0; i < n; ++i) {  // (I + W) y = t, the unit diagonal last
    double s = t[i];
    for (index_t k = op.forward.row_ptr[i]; k + 1 < op.forward.row_ptr[i + 1]; ++k) {
      s -= op.forward.values[k] * y[op.forward.col_idx[k]];
    }
    y[i] = s;
  }
  prism::kernels::reference::spmv(view_of(op.backward_diagonal), y.data(), t.data());
  for (index_t i = n - 1; i >= 0; --i) {  // (I + V) z = t, the unit diagonal first
    double s = t[i];
    for (index_t k = op.backward.row_ptr[i] + 1; k < op.backward.row_ptr[i + 1]; ++k) {
      s -= op.backward.values[k] * z[op.backward.col_idx[k]];
    }
    z[i] = s;
  }
  return z;
}

/// z of the factor's own solves (block_ic.solve: trsv; the off-diagonal blocks from
/// `values`): the reference, or by levels on `threads`.
template <typename T>
std::vector<double> trsv_solve(const BlockProblem& p, const std::vector<double>& exact,
                               const std::vector<T>& values, const std::vector<double>& r,
                               int threads) {
  const prism::kernels::BlockIcView v = p.plan.view();
  std::vector<double> u(r.size()), w(r.size()), z(r.size());
  if (threads == 0) {
    ref::block_ic_solve(v, exact.data(), values.data(), p.scale.data(), r.data(), u.data(),
                        w.data(), z.data());
  } else {
    host::block_ic_forward(threads, v, p.plan.level_ptr, exact.data(), values.data(),
                           p.scale.data(), r.data(), u.data());
    host::block_ic_backward(threads, v, p.plan.level_ptr, exact.data(), values.data(),
                            p.scale.data(), u.data(), w.data(), z.data());
  }
  return z;
}

double relative_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double diff = 0.0, norm = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    norm = std::max(norm, std::abs(b[i]));
  }
  return norm > 0.0 ? diff / norm : diff;
}

// The two ways of applying one factor are the same M^{-1} (to rounding), on blocks of 1 to
// 40 rows in colored and natural orders; the threaded levels give the reference's bits,
// and the float factor its values to float rounding.
TEST(HostFactorizations, BlockIcTrsvSolveEqualsTheInvertedOperators) {
  for (const BlockCase& c : block_cases()) {
    SCOPED_TRACE(c.name);
    const BlockProblem p = block_problem(c, 0.1);
    const BlockRun run = factor(p, p.loaded, 0);
    ASSERT_TRUE(run.status.ok());
    const std::vector<double> r = prism::test::random_vector(c.a.rows, 11);
    const std::vector<double> want = apply_operators(operators(p, run, 0), r);
    const std::vector<double> got = trsv_solve(p, run.values, run.values, r, 0);
    EXPECT_LE(relative_difference(got, want), 1e-10);
    for (int t : kThreads) {
      EXPECT_EQ(trsv_solve(p, run.values, run.values, r, t), got) << t << " threads";
    }
    const std::vector<float> narrow(run.values.begin(), run.values.end());
    const std::vector<double> low = trsv_solve(p, run.values, narrow, r, 0);
    EXPECT_LE(relative_difference(low, got), 1e-3);
    if (p.plan.entries() > 0) EXPECT_GT(relative_difference(low, got), 0.0);  // float read
    for (int t : kThreads) {
      EXPECT_EQ(trsv_solve(p, run.values, narrow, r, t), low) << t << " threads";
    }
  }
}

TEST(HostFactorizations, BlockIcFactorFailsAsTheReferenceWithANegativeShift) {
  int failures = 0;
  for (const BlockCase& c : block_cases()) {
    SCOPED_TRACE(c.name);
    for (double shift : {-0.5, -0.9, -1.5}) {
      SCOPED_TRACE("shift " + std::to_string(shift));
      const BlockProblem p = block_problem(c, shift);
      failures += factor(p, p.loaded, 0).status.ok() ? 0 : 1;
      expect_block_factor_like_the_reference(p, p.loaded);
    }
  }
  EXPECT_GE(failures, 10);  // the verdicts compared are mostly failures
}

// Blocks made indefinite in a wide level, in every thread's part, and in a later level;
// the reference's verdict is the smallest of the first level's.
TEST(HostFactorizations, BlockIcFactorReportsTheSmallestFailedBlockOfTheFirstFailingLevel) {
  const BlockCase c = block_cases().front();
  const BlockProblem p = block_problem(c, 0.1);
  const std::vector<index_t>& level = p.plan.level_ptr;
  ASSERT_GE(level.size(), 4u);
  const index_t first = level[1], count = level[2] - first;
  ASSERT_GE(count, 7 * 8);
  std::vector<index_t> planted;
  for (index_t k = count - 1; k > 0; k -= count / 9)
    planted.push_back(p.plan.level_blocks[first + k]);
  planted.push_back(p.plan.level_blocks[level[2] + 1]);
  std::vector<double> loaded = p.loaded;
  for (index_t b : planted) loaded[p.plan.diagonal[b]] = -1.0;
  EXPECT_EQ(factor(p, loaded, 0).status.failed_block, planted[planted.size() - 2]);
  expect_block_factor_like_the_reference(p, loaded);
}

}  // namespace
