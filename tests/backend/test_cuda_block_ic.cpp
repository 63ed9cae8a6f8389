// The block IC(0) kernels on the GPU against their reference (kernels/block_ic.hpp) on
// awkward partitions: blocks of 1, 2, 3, 7, mixed sizes, supernodes, a block wider than a
// warp, one color, many levels (natural order); a block that needs the shift; a diagonal
// that is not positive. Then whole solves with the factorization on the device. Skipped
// without a GPU.

#include <prism/analysis.hpp>
#include <prism/blocks.hpp>
#include <prism/generators.hpp>
#include <prism/solver.hpp>

#include "backend/cuda_test_support.hpp"
#include "kernels/block_ic.hpp"
#include "kernels/cuda/block_ic.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/matrix_values.hpp"
#include "precond/block_ic/block_factor.hpp"
#include "precond/block_ic/block_plan.hpp"
#include "precond/block_ic/block_sweeps.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using prism::BlockPartition;
using prism::CsrMatrix;
using prism::index_t;
using prism::kernels::cuda::DeviceBuffer;
using prism::kernels::cuda::upload_and_wait;

struct Case {
  std::string name;
  CsrMatrix<double> a;
  BlockPartition blocks;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  const auto colored = [&](const std::string& name, const CsrMatrix<double>& a,
                           const BlockPartition& blocks) {
    const prism::BlockColoring c = prism::color_blocks(a, blocks, prism::VertexOrder::natural);
    out.push_back({name, prism::permute_symmetric(a, c.permutation), c.blocks});
  };
  const CsrMatrix<double> e = prism::elasticity3d(5, 4, 3, 2, {1.0, 50.0});
  colored("elasticity nodes", e, prism::find_node_blocks(e));
  colored("elasticity blocks of 1", e, prism::uniform_blocks(e.rows, 1));
  colored("elasticity blocks of 2", e, prism::uniform_blocks(e.rows, 2));
  colored("elasticity blocks of 7", e, prism::uniform_blocks(e.rows, 7));
  const prism::Aggregation g = prism::aggregate_blocks(e, prism::find_node_blocks(e), 24);
  colored("elasticity supernodes", prism::permute_symmetric(e, g.permutation), g.blocks);
  colored("elasticity blocks of 45 (wider than a warp)", e, prism::uniform_blocks(e.rows, 45));
  const CsrMatrix<double> r = prism::test::random_symmetric(61, 150, 3);
  BlockPartition mixed;
  const std::vector<index_t> sizes{1, 2, 3, 6, 7};
  for (std::size_t k = 0; mixed.rows() < r.rows; ++k) {
    mixed.ptr.push_back(std::min(r.rows, mixed.rows() + sizes[k % sizes.size()]));
  }
  colored("random mixed sizes", r, mixed);
  out.push_back(
      {"natural order, many levels", prism::poisson2d(9, 7), prism::uniform_blocks(63, 2)});
  colored("diagonal: one color", prism::test::diagonal_only(11), prism::uniform_blocks(11, 3));
  // Uniform blocks wider than the lanes given to a block row (few blocks per row).
  colored("random blocks of 6", prism::test::random_symmetric(120, 150, 5),
          prism::uniform_blocks(120, 6));
  colored("poisson blocks of 3", prism::poisson2d(9, 6), prism::uniform_blocks(54, 3));
  return out;
}

struct Operators {
  prism::kernels::BlockIcStatus status;
  std::vector<double> forward_diagonal, forward, backward_diagonal, backward;
};

Operators on_host(const prism::kernels::BlockIcPlan& plan, const std::vector<double>& a,
                  double shift) {
  namespace ref = prism::kernels::reference;
  const prism::kernels::BlockIcView v = plan.view();
  Operators o;
  std::vector<double> scale(plan.rows), values(plan.value_count), inverse(plan.inverse_count);
  if (ref::block_ic_scale(v, a.data(), nullptr, scale.data()) >= 0) {
    o.status.bad_input = true;
    return o;
  }
  ref::block_ic_load(v, a.data(), nullptr, scale.data(), shift, plan.value_count, values.data());
  o.status = ref::block_ic_factor(v, plan.level_ptr, values.data(), inverse.data());
  if (!o.status.ok()) return o;
  o.forward_diagonal.resize(plan.forward_diagonal_ptr.back());
  o.forward.resize(plan.forward_ptr.back());
  o.backward_diagonal.resize(plan.backward_diagonal_ptr.back());
  o.backward.resize(plan.backward_ptr.back());
  ref::block_ic_operators(v, values.data(), inverse.data(), scale.data(), o.forward_diagonal.data(),
                          o.forward.data(), o.backward_diagonal.data(), o.backward.data());
  return o;
}

std::unique_ptr<prism::backend::Backend> cuda_backend() {
  std::string choice;
  return prism::backend::make_backend(prism::BackendKind::cuda, &choice);
}

Operators on_device(prism::backend::Backend& backend, const prism::kernels::BlockIcPlan& plan,
                    const std::vector<double>& a, double shift) {
  std::unique_ptr<prism::backend::BlockIcFactor> f = backend.make_block_ic_factor(plan);
  const prism::test::DeviceValues values(a);
  f->load(prism::backend::SourceValues{values.data(), nullptr});
  Operators o;
  o.status = f->attempt(shift);
  if (!o.status.ok()) return o;
  const prism::backend::BlockIcOperators op = f->operators();
  backend.copy_to_host(op.forward_diagonal, plan.forward_diagonal_ptr.back(), o.forward_diagonal);
  backend.copy_to_host(op.forward, plan.forward_ptr.back(), o.forward);
  backend.copy_to_host(op.backward_diagonal, plan.backward_diagonal_ptr.back(),
                       o.backward_diagonal);
  backend.copy_to_host(op.backward, plan.backward_ptr.back(), o.backward);
  return o;
}

double relative_difference(const std::vector<double>& got, const std::vector<double>& want) {
  EXPECT_EQ(got.size(), want.size());
  double worst = 0.0, largest = 0.0;
  for (std::size_t k = 0; k < want.size() && k < got.size(); ++k) {
    worst = std::max(worst, std::abs(got[k] - want[k]));
    largest = std::max(largest, std::abs(want[k]));
  }
  return largest > 0.0 ? worst / largest : worst;
}

prism::kernels::BlockIcPlan plan_of(const Case& c) {
  const prism::precond::BlockFactor f = prism::precond::analyze_block_factor(c.a, c.blocks);
  return prism::precond::block_ic_plan(c.a, f, prism::precond::block_sweeps_pattern(f));
}

TEST(CudaBlockIcKernels, OperatorsAreEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  const auto backend = cuda_backend();
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const prism::kernels::BlockIcPlan plan = plan_of(c);
    const Operators want = on_host(plan, c.a.values, 0.1);
    const Operators got = on_device(*backend, plan, c.a.values, 0.1);
    ASSERT_TRUE(want.status.ok());
    ASSERT_TRUE(got.status.ok()) << got.status.failed_block;
    EXPECT_LE(relative_difference(got.forward_diagonal, want.forward_diagonal), 1e-12);
    EXPECT_LE(relative_difference(got.forward, want.forward), 1e-12);
    EXPECT_LE(relative_difference(got.backward_diagonal, want.backward_diagonal), 1e-12);
    EXPECT_LE(relative_difference(got.backward, want.backward), 1e-12);
  }
}

// Unshifted elasticity blocks of 7 and supernodes may break down; the device reports the
// same block as the reference, and a bad diagonal as bad input.
TEST(CudaBlockIcKernels, VerdictsAreThoseOfTheReference) {
  PRISM_SKIP_WITHOUT_GPU();
  const auto backend = cuda_backend();
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const prism::kernels::BlockIcPlan plan = plan_of(c);
    for (const double shift : {-0.5, 0.0}) {
      const Operators want = on_host(plan, c.a.values, shift);
      const Operators got = on_device(*backend, plan, c.a.values, shift);
      EXPECT_EQ(got.status.failed_block, want.status.failed_block) << "shift " << shift;
    }
    std::vector<double> bad = c.a.values;
    bad[plan.a_diagonal[c.a.rows / 2]] = -1.0;
    const Operators got = on_device(*backend, plan, bad, 0.0);
    EXPECT_TRUE(got.status.bad_input);
    const index_t row = c.a.rows / 2, b = got.status.failed_block;
    ASSERT_GE(b, 0);
    EXPECT_TRUE(plan.block_ptr[b] <= row && row < plan.block_ptr[b + 1]) << b;
  }
}

/// The factor's solves (block_ic.solve: trsv) of r: on the host by the reference, or on
/// the device, each factoring `a` itself + shift 0.1 (the same factor up to rounding).
std::vector<double> trsv_on_host(const prism::kernels::BlockIcPlan& plan,
                                 const std::vector<double>& a, const std::vector<double>& r) {
  namespace ref = prism::kernels::reference;
  const prism::kernels::BlockIcView v = plan.view();
  std::vector<double> scale(plan.rows), values(plan.value_count), inverse(plan.inverse_count);
  EXPECT_LT(ref::block_ic_scale(v, a.data(), nullptr, scale.data()), 0);
  ref::block_ic_load(v, a.data(), nullptr, scale.data(), 0.1, plan.value_count, values.data());
  EXPECT_TRUE(ref::block_ic_factor(v, plan.level_ptr, values.data(), inverse.data()).ok());
  std::vector<double> u(r.size()), w(r.size()), z(r.size());
  if (plan.float_solves) {
    const std::vector<float> narrow(values.begin(), values.end());
    ref::block_ic_solve(v, values.data(), narrow.data(), scale.data(), r.data(), u.data(), w.data(),
                        z.data());
  } else {
    ref::block_ic_solve(v, values.data(), values.data(), scale.data(), r.data(), u.data(), w.data(),
                        z.data());
  }
  return z;
}

std::vector<double> trsv_on_device(prism::backend::Backend& backend,
                                   const prism::kernels::BlockIcPlan& plan,
                                   const std::vector<double>& a, const std::vector<double>& r) {
  std::unique_ptr<prism::backend::BlockIcFactor> f = backend.make_block_ic_factor(plan);
  const prism::test::DeviceValues values(a);
  f->load(prism::backend::SourceValues{values.data(), nullptr});
  EXPECT_TRUE(f->attempt(0.1).ok());
  const auto n = static_cast<index_t>(r.size());
  std::unique_ptr<prism::backend::Vector> rd = backend.make_vector(n), u = backend.make_vector(n),
                                          w = backend.make_vector(n), z = backend.make_vector(n);
  backend.copy_from_host(r, *rd);
  f->forward(*rd, *u);
  f->backward(*u, *w, *z);
  std::vector<double> out;
  backend.copy_to_host(*z, out);
  return out;
}

// The solves of block_ic.solve trsv, a warp per block row, against the reference's rows,
// in double and with the off-diagonal blocks in float.
TEST(CudaBlockIcKernels, TrsvSolvesAreTheReference) {
  PRISM_SKIP_WITHOUT_GPU();
  const std::unique_ptr<prism::backend::Backend> backend = cuda_backend();
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const prism::precond::BlockFactor f = prism::precond::analyze_block_factor(c.a, c.blocks);
    const std::vector<double> r = prism::test::random_vector(c.a.rows, 7);
    for (const bool narrow : {false, true}) {
      const prism::kernels::BlockIcPlan plan = prism::precond::block_ic_solve_plan(c.a, f, narrow);
      const std::vector<double> want = trsv_on_host(plan, c.a.values, r);
      EXPECT_LE(relative_difference(trsv_on_device(*backend, plan, c.a.values, r), want), 1e-12)
          << (narrow ? "float" : "double");
    }
  }
}

// Whole solves: the factorization on the device iterates as the host's, with and without
// supernodes and mixed precision, with either solve, and refactor_on_backend equals
// refactor.
TEST(CudaBlockIcSolve, DeviceFactorizationIteratesAsTheHosts) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> a = prism::elasticity3d(12, 10, 9, 3, {1.0, 100.0});
  const std::vector<double> b = prism::test::random_vector(a.rows, 4);
  for (const prism::BlockIcSolve solve :
       {prism::BlockIcSolve::inverted, prism::BlockIcSolve::trsv}) {
    for (const int supernode : {0, 24}) {
      for (const prism::Precision precision : {prism::Precision::fp64, prism::Precision::mixed}) {
        SCOPED_TRACE(std::string(prism::to_string(solve)) + " " + std::to_string(supernode) + " " +
                     std::string(prism::to_string(precision)));
        prism::SolverConfig c;
        c.backend = prism::BackendKind::cuda;
        c.preconditioner.type = "block_ic";
        c.preconditioner.block_ic.supernode = supernode;
        c.preconditioner.block_ic.precision = precision;
        c.preconditioner.block_ic.solve = solve;
        c.solver.tolerance = 1e-10;
        c.preconditioner.block_ic.factorization = prism::Ic0Factorization::host;
        prism::Solver host(c);
        c.preconditioner.block_ic.factorization = prism::Ic0Factorization::automatic;
        prism::Solver device(c);
        host.setup(a);
        device.setup(a);
        std::vector<double> xh, xd;
        const prism::SolveReport rh = host.solve(b, xh);
        const prism::SolveReport rd = device.solve(b, xd);
        ASSERT_TRUE(rd.converged()) << rd.diagnosis;
        EXPECT_LE(std::abs(rd.iterations - rh.iterations), 2);
        EXPECT_LE(prism::test::relative_residual(a, xd, b), 1e-9);
        const std::string why = solve == prism::BlockIcSolve::trsv
                                    ? "block_ic.factorization: backend (a GPU)"
                                    : "block_ic.factorization: backend (color-set solves, a GPU)";
        EXPECT_NE(std::find(rd.plan.begin(), rd.plan.end(), why), rd.plan.end());

        const CsrMatrix<double> scaled = prism::test::scaled_and_shifted(a, 2.0, 0.25);
        const prism::test::DeviceValues values(scaled.values);
        device.refactor_on_backend(values.data(), values.size());
        prism::Solver again(c);
        again.setup(a);
        again.refactor(scaled);
        std::vector<double> x1, x2;
        EXPECT_EQ(device.solve(b, x1).iterations, again.solve(b, x2).iterations);
        EXPECT_EQ(x1, x2);
      }
    }
  }
}

}  // namespace
