// Block IC(0)'s analysis on the device (kernels/cuda/block_ic_analysis.hpp) against its host
// reference, the host analysis itself (analyze_block_factor, block_sweeps_pattern,
// block_ic_plan, block_ic_solve_plan): every plan array and the operators' patterns entry
// for entry, on node blocks, uniform blocks with a short last block, mixed sizes, one block,
// one row, many levels (the host finishes them) and both solve modes; the share of sum
// |a_ij| inside the blocks; the host's errors. Then the engine and BlockIc built from a
// matrix kept in device memory (Backend::make_block_ic_on_backend, BlockIc::
// analyze_on_backend) against those built from the host plan: the same verdicts, operators
// and solves bit for bit, over several shifts and a breakdown, and refactors through the
// kept matrix's map. Skipped without a GPU.

#include <prism/analysis.hpp>
#include <prism/blocks.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>

#include "backend/backend.hpp"
#include "backend/cuda/device_ordered.hpp"
#include "backend/setup.hpp"
#include "common/gpu.hpp"
#include "common/test_matrices.hpp"
#include "kernels/cuda/block_ic_analysis.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "precond/block_ic/block_factor.hpp"
#include "precond/block_ic/block_plan.hpp"
#include "precond/block_ic/block_sweeps.hpp"
#include "precond/preconditioner.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

namespace {

using prism::BlockPartition;
using prism::CsrMatrix;
using prism::index_t;
namespace k = prism::kernels::cuda;
namespace pre = prism::precond;

struct Case {
  std::string name;
  CsrMatrix<double> a;        // the caller's matrix
  std::vector<index_t> perm;  // the ordered matrix is P A P^T (empty: A)
  BlockPartition blocks;      // of the ordered matrix
};

CsrMatrix<double> ordered_of(const Case& c, std::vector<index_t>* source = nullptr) {
  std::vector<index_t> perm = c.perm;
  if (perm.empty()) {
    perm.resize(static_cast<std::size_t>(c.a.rows));
    std::iota(perm.begin(), perm.end(), index_t{0});
  }
  return prism::permute_symmetric(c.a, perm, source);
}

BlockPartition mixed_blocks(index_t rows) {
  BlockPartition mixed;
  const std::vector<index_t> sizes{1, 2, 3, 6, 7};
  for (std::size_t s = 0; mixed.rows() < rows; ++s) {
    mixed.ptr.push_back(std::min(rows, mixed.rows() + sizes[s % sizes.size()]));
  }
  return mixed;
}

std::vector<Case> cases() {
  std::vector<Case> out;
  const auto colored = [&](const std::string& name, const CsrMatrix<double>& a,
                           const BlockPartition& blocks) {
    const prism::BlockColoring c = prism::color_blocks(a, blocks, prism::VertexOrder::natural);
    out.push_back({name, a, c.permutation, c.blocks});
  };
  const CsrMatrix<double> e = prism::elasticity3d(4, 3, 3, 2, {1.0, 50.0});
  colored("elasticity node blocks", e, prism::find_node_blocks(e));
  colored("elasticity blocks of 7, the last shorter", e, prism::uniform_blocks(e.rows, 7));
  colored("elasticity blocks of 1", e, prism::uniform_blocks(e.rows, 1));
  colored("random mixed sizes", prism::test::random_symmetric(61, 150, 3), mixed_blocks(61));
  colored("diagonal matrix, blocks of 3", prism::test::diagonal_only(11),
          prism::uniform_blocks(11, 3));
  out.push_back({"one block", prism::poisson2d(4, 3), {}, prism::uniform_blocks(12, 12)});
  out.push_back({"one row", prism::test::diagonal_only(1), {}, prism::uniform_blocks(1, 1)});
  out.push_back({"natural order, node blocks", e, {}, prism::find_node_blocks(e)});
  // A chain of 150 blocks: more levels than the device's passes, finished on the host.
  out.push_back(
      {"chain, host levels", prism::poisson2d(300, 1), {}, prism::uniform_blocks(300, 2)});
  return out;
}

template <typename T>
std::vector<T> down(const k::DeviceBuffer<T>& d) {
  return k::download_and_wait(d, nullptr);
}

/// The ordered matrix in device memory, as the set-up session keeps it (DeviceOrdered):
/// its pattern and values, the map to the caller's entries and the caller's values.
std::unique_ptr<prism::backend::cuda::DeviceOrdered> keep(const Case& c) {
  std::vector<index_t> source;
  const CsrMatrix<double> b = ordered_of(c, &source);
  auto d = std::make_unique<prism::backend::cuda::DeviceOrdered>();
  d->n = b.rows;
  d->row_ptr = k::upload_and_wait(b.row_ptr, nullptr);
  d->col_idx = k::upload_and_wait(b.col_idx, nullptr);
  d->values = k::upload_and_wait(b.values, nullptr);
  d->source = k::upload_and_wait(source, nullptr);
  d->caller_values = k::upload_and_wait(c.a.values, nullptr);
  return d;
}

void expect_plan_is_host(const Case& c, bool operators, bool float_solves) {
  SCOPED_TRACE(c.name + (operators ? ", inverted" : ", trsv") + (float_solves ? ", float" : ""));
  const CsrMatrix<double> a = ordered_of(c);
  const pre::BlockFactor f = pre::analyze_block_factor(a, c.blocks);
  pre::BlockSweeps sweeps;
  prism::kernels::BlockIcPlan want;
  if (operators) {
    sweeps = pre::block_sweeps_pattern(f);
    want = pre::block_ic_plan(a, f, sweeps);
  } else {
    want = pre::block_ic_solve_plan(a, f, float_solves);
  }
  const auto kept = keep(c);
  const k::DeviceBlockIcPlan got = k::block_ic_analysis(kept->view(), kept->nnz(), c.blocks.ptr,
                                                        operators, float_solves, nullptr);
  ASSERT_EQ(got.missing_diagonal, -1);
  EXPECT_EQ(got.rows, want.rows);
  EXPECT_EQ(got.blocks, want.blocks());
  EXPECT_EQ(got.entries, want.entries());
  EXPECT_EQ(got.host_block_ptr, want.block_ptr);
  EXPECT_EQ(down(got.block_ptr), want.block_ptr);
  EXPECT_EQ(down(got.row_ptr), want.row_ptr);
  EXPECT_EQ(down(got.col), want.col);
  EXPECT_EQ(down(got.entry_row), want.entry_row);
  EXPECT_EQ(down(got.transpose_prefix), want.transpose_prefix);
  EXPECT_EQ(down(got.offset), want.offset);
  EXPECT_EQ(down(got.diagonal), want.diagonal);
  EXPECT_EQ(down(got.inverse), want.inverse);
  EXPECT_EQ(down(got.scatter), want.scatter);
  EXPECT_EQ(down(got.a_row_ptr), want.a_row_ptr);
  EXPECT_EQ(down(got.a_col), want.a_col);
  EXPECT_EQ(down(got.a_diagonal), want.a_diagonal);
  EXPECT_EQ(got.level_ptr, want.level_ptr);
  EXPECT_EQ(down(got.level_blocks), want.level_blocks);
  EXPECT_EQ(down(got.transpose_ptr), want.transpose_ptr);
  EXPECT_EQ(down(got.transpose_entry), want.transpose_entry);
  EXPECT_EQ(down(got.forward.row_ptr), want.forward_ptr);
  EXPECT_EQ(down(got.backward.row_ptr), want.backward_ptr);
  EXPECT_EQ(down(got.forward_diagonal.row_ptr), want.forward_diagonal_ptr);
  EXPECT_EQ(down(got.backward_diagonal.row_ptr), want.backward_diagonal_ptr);
  EXPECT_EQ(got.operators, want.operators);
  EXPECT_EQ(got.float_solves, want.float_solves);
  EXPECT_EQ(got.value_count, want.value_count);
  EXPECT_EQ(got.inverse_count, want.inverse_count);
  EXPECT_EQ(got.largest_block, want.largest_block);
  EXPECT_EQ(got.uniform_block, want.uniform_block);
  if (operators) {
    EXPECT_EQ(down(got.forward_diagonal.col_idx), sweeps.forward_diagonal.col_idx);
    EXPECT_EQ(down(got.forward.col_idx), sweeps.forward.col_idx);
    EXPECT_EQ(down(got.backward_diagonal.col_idx), sweeps.backward_diagonal.col_idx);
    EXPECT_EQ(down(got.backward.col_idx), sweeps.backward.col_idx);
    EXPECT_EQ(got.operator_nnz[0], sweeps.forward_diagonal.nnz());
    EXPECT_EQ(got.operator_nnz[1], sweeps.forward.nnz());
    EXPECT_EQ(got.operator_nnz[2], sweeps.backward_diagonal.nnz());
    EXPECT_EQ(got.operator_nnz[3], sweeps.backward.nnz());
  } else {
    EXPECT_EQ(got.forward.col_idx.size(), 0u);
  }
  const double weight = prism::diagonal_block_weight(a, c.blocks);
  EXPECT_NEAR(got.block_weight, weight, 1e-13 * weight);
  EXPECT_NEAR(k::diagonal_block_weight(kept->view(), c.blocks.ptr, nullptr), weight,
              1e-13 * weight);
}

TEST(BlockIcAnalysisCuda, IsEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  for (const Case& c : cases()) {
    expect_plan_is_host(c, true, false);
    expect_plan_is_host(c, false, false);
    expect_plan_is_host(c, false, true);
  }
}

/// A row without its diagonal: the device finds the first one, where the host plan
/// throws naming it.
TEST(BlockIcAnalysisCuda, FindsTheFirstRowWithoutItsDiagonal) {
  PRISM_SKIP_WITHOUT_GPU();
  CsrMatrix<double> a = prism::poisson2d(4, 3);
  std::vector<prism::Triplet> t;
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      if (a.col_idx[p] != i || (i != 7 && i != 9)) t.push_back({i, a.col_idx[p], a.values[p]});
    }
  }
  const Case c{"no diagonal in rows 7 and 9",
               prism::csr_from_triplets(12, 12, t),
               {},
               prism::uniform_blocks(12, 2)};
  const auto kept = keep(c);
  const k::DeviceBlockIcPlan got =
      k::block_ic_analysis(kept->view(), kept->nnz(), c.blocks.ptr, true, false, nullptr);
  EXPECT_EQ(got.missing_diagonal, 7);
  const pre::BlockFactor f = pre::analyze_block_factor(c.a, c.blocks);
  EXPECT_THROW(pre::block_ic_solve_plan(c.a, f, false), prism::InvalidMatrixError);
}

// ---------------------------------------------------------------------------------------
// The engine and BlockIc from the kept matrix against those from the host plan.

std::unique_ptr<prism::backend::Backend> cuda_backend() {
  std::string choice;
  return prism::backend::make_backend(prism::BackendKind::cuda, &choice);
}

std::vector<double> on_host(prism::backend::Backend& backend, const double* device,
                            std::size_t count) {
  std::vector<double> out;
  backend.copy_to_host(device, count, out);
  return out;
}

/// An indefinite matrix: poisson2d with a unit diagonal. Its blocks of two coupled rows are
/// singular, so the unshifted factorization breaks down at once; a shift of 4 on the
/// (already unit) diagonal makes it diagonally dominant and mends it.
CsrMatrix<double> needs_shift() {
  CsrMatrix<double> a = prism::poisson2d(8, 7);
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      if (a.col_idx[p] == i) a.values[p] = 1.0;
    }
  }
  return a;
}

std::vector<Case> engine_cases() {
  std::vector<Case> out;
  for (const Case& c : cases()) {
    if (c.name != "one row") out.push_back(c);
  }
  const CsrMatrix<double> s = needs_shift();
  const prism::BlockColoring c =
      prism::color_blocks(s, prism::uniform_blocks(s.rows, 2), prism::VertexOrder::natural);
  out.push_back({"indefinite, blocks of 2", s, c.permutation, c.blocks});
  return out;
}

void expect_engine_is_host(prism::backend::Backend& backend, const Case& c, bool operators) {
  SCOPED_TRACE(c.name + (operators ? ", inverted" : ", trsv"));
  const CsrMatrix<double> a = ordered_of(c);
  const pre::BlockFactor f = pre::analyze_block_factor(a, c.blocks);
  const pre::BlockSweeps sweeps = pre::block_sweeps_pattern(f);
  const prism::kernels::BlockIcPlan plan =
      operators ? pre::block_ic_plan(a, f, sweeps) : pre::block_ic_solve_plan(a, f, false);
  const auto host = backend.make_block_ic_factor(plan);
  const auto kept = keep(c);
  prism::backend::BlockIcStorage storage =
      backend.make_block_ic_on_backend(*kept, c.blocks, {}, operators, false);
  ASSERT_TRUE(storage.engine);
  EXPECT_EQ(storage.value_count, plan.value_count);
  EXPECT_EQ(storage.entries, plan.entries());
  EXPECT_EQ(static_cast<bool>(storage.forward), operators);
  // The host plan's engine reads the ordered values as they are, the kept one the
  // caller's through the kept matrix's map.
  host->load(prism::backend::SourceValues{kept->values.data(), nullptr});
  storage.engine->load(prism::backend::SourceValues{kept->given_values(), nullptr});
  const auto r = backend.make_vector(a.rows);
  backend.copy_from_host(prism::test::random_vector(a.rows, 5), *r);
  int failures = 0;
  for (const double shift : {0.0, 1e-3, 1.0, 4.0}) {
    SCOPED_TRACE("shift " + std::to_string(shift));
    const prism::kernels::BlockIcStatus want = host->attempt(shift);
    const prism::kernels::BlockIcStatus got = storage.engine->attempt(shift);
    EXPECT_EQ(got.failed_block, want.failed_block);
    EXPECT_EQ(got.bad_input, want.bad_input);
    if (!want.ok()) {
      ++failures;
      continue;
    }
    if (operators) {
      const prism::backend::BlockIcOperators w = host->operators(), g = storage.engine->operators();
      const auto same = [&](const double* x, const double* y, std::size_t n) {
        EXPECT_EQ(on_host(backend, y, n), on_host(backend, x, n));
      };
      same(w.forward_diagonal, g.forward_diagonal, sweeps.forward_diagonal.nnz());
      same(w.forward, g.forward, sweeps.forward.nnz());
      same(w.backward_diagonal, g.backward_diagonal, sweeps.backward_diagonal.nnz());
      same(w.backward, g.backward, sweeps.backward.nnz());
    } else {
      const auto u = backend.make_vector(a.rows), v = backend.make_vector(a.rows);
      const auto z = backend.make_vector(a.rows), u2 = backend.make_vector(a.rows);
      const auto v2 = backend.make_vector(a.rows), z2 = backend.make_vector(a.rows);
      host->forward(*r, *u);
      host->backward(*u, *v, *z);
      storage.engine->forward(*r, *u2);
      storage.engine->backward(*u2, *v2, *z2);
      std::vector<double> want_z, got_z;
      backend.copy_to_host(*z, want_z);
      backend.copy_to_host(*z2, got_z);
      EXPECT_EQ(got_z, want_z);
    }
  }
  EXPECT_LT(failures, 4) << "no factor to compare";
  if (c.name.rfind("indefinite", 0) == 0) EXPECT_GT(failures, 0) << "no breakdown to compare";
}

TEST(BlockIcAnalysisCuda, EngineFromTheKeptMatrixIsTheHostPlans) {
  PRISM_SKIP_WITHOUT_GPU();
  const auto backend = cuda_backend();
  for (const Case& c : engine_cases()) {
    expect_engine_is_host(*backend, c, true);
    expect_engine_is_host(*backend, c, false);
  }
}

prism::PreconditionerOptions block_ic_options(prism::BlockIcSolve solve) {
  prism::PreconditionerOptions o;
  o.type = "block_ic";
  o.block_ic.solve = solve;
  o.block_ic.factorization = prism::Ic0Factorization::backend;
  o.trisolve = prism::TrisolveAlgorithm::colorset;
  return o;
}

/// z = M^{-1} r, to the host.
std::vector<double> applied(prism::backend::Backend& backend, pre::Preconditioner& p,
                            const std::vector<double>& r) {
  const auto rv = backend.make_vector(static_cast<index_t>(r.size()));
  const auto zv = backend.make_vector(static_cast<index_t>(r.size()));
  backend.copy_from_host(r, *rv);
  p.apply(*rv, *zv, nullptr, std::nullopt);
  std::vector<double> z;
  backend.copy_to_host(*zv, z);
  return z;
}

/// The message of what `call` throws as prism::Error, or "no error".
template <typename Call>
std::string error_of(const Call& call) {
  try {
    call();
  } catch (const prism::Error& e) {
    return e.what();
  }
  return "no error";
}

void expect_block_ic_is_host(prism::backend::Backend& backend, const Case& c,
                             prism::BlockIcSolve solve) {
  SCOPED_TRACE(c.name + (solve == prism::BlockIcSolve::trsv ? ", trsv" : ", inverted"));
  const CsrMatrix<double> a = ordered_of(c);
  const auto host = pre::make_block_ic(backend, block_ic_options(solve));
  const auto device = pre::make_block_ic(backend, block_ic_options(solve));
  host->set_blocks(c.blocks);
  device->set_blocks(c.blocks);
  host->analyze(a);
  const auto kept = keep(c);
  ASSERT_TRUE(device->analyze_on_backend(*kept));
  ASSERT_NE(device->backend_factorization(), nullptr);
  const std::string host_error = error_of([&] { host->factorize(a); });
  const std::string device_error = error_of([&] {
    device->backend_factorization()->factorize(
        prism::backend::SourceValues{kept->given_values(), nullptr});
  });
  EXPECT_EQ(device_error, host_error);
  if (host_error != "no error") return;
  EXPECT_EQ(device->info().factorization.shift, host->info().factorization.shift);
  EXPECT_EQ(device->info().trisolve, host->info().trisolve);
  EXPECT_EQ(device->traffic(), host->traffic());
  const std::vector<double> r = prism::test::random_vector(a.rows, 11);
  EXPECT_EQ(applied(backend, *device, r), applied(backend, *host, r));
  // A refactor: new caller values through the kept map, against the host's in order.
  Case next = c;
  for (double& v : next.a.values) v *= 3.0;
  const prism::kernels::cuda::DeviceBuffer<double> values =
      k::upload_and_wait(next.a.values, nullptr);
  host->factorize(ordered_of(next));
  device->backend_factorization()->factorize(prism::backend::SourceValues{values.data(), nullptr});
  EXPECT_EQ(applied(backend, *device, r), applied(backend, *host, r));
}

TEST(BlockIcAnalysisCuda, BlockIcFromTheKeptMatrixIsTheHostBuilt) {
  PRISM_SKIP_WITHOUT_GPU();
  const auto backend = cuda_backend();
  std::vector<Case> all = engine_cases();
  // The ladder fails at its last shift: both name the same block's rows.
  Case hopeless = all.back();
  for (double& v : hopeless.a.values) v = -std::abs(v);
  hopeless.name = "negative diagonal";
  all.push_back(hopeless);
  for (const Case& c : all) {
    expect_block_ic_is_host(*backend, c, prism::BlockIcSolve::inverted);
    expect_block_ic_is_host(*backend, c, prism::BlockIcSolve::trsv);
  }
}

/// The kept matrix as the set-up session makes it (check, then permute_kept with a block
/// coloring's permutation): BlockIc from it solves as the host-built one.
TEST(BlockIcAnalysisCuda, BlockIcFromTheSessionsKeptMatrix) {
  PRISM_SKIP_WITHOUT_GPU();
  const auto backend = cuda_backend();
  const CsrMatrix<double> a = prism::elasticity3d(4, 3, 3, 2, {1.0, 50.0});
  const prism::BlockColoring c =
      prism::color_blocks(a, prism::find_node_blocks(a), prism::VertexOrder::natural);
  const std::vector<double> r = prism::test::random_vector(a.rows, 17);
  for (const auto solve : {prism::BlockIcSolve::inverted, prism::BlockIcSolve::trsv}) {
    const auto session = backend->begin_setup(a);
    ASSERT_TRUE(session);
    ASSERT_TRUE(
        session->check(prism::MatrixCheck::full, prism::SolverOptions{}.symmetry_tolerance));
    const std::unique_ptr<prism::backend::OrderedMatrix> kept =
        session->permute_kept(c.permutation);
    ASSERT_TRUE(kept);
    const auto host = pre::make_block_ic(*backend, block_ic_options(solve));
    const auto device = pre::make_block_ic(*backend, block_ic_options(solve));
    host->set_blocks(c.blocks);
    device->set_blocks(c.blocks);
    const CsrMatrix<double> ordered = prism::permute_symmetric(a, c.permutation);
    host->analyze(ordered);
    host->factorize(ordered);
    ASSERT_TRUE(device->analyze_on_backend(*kept));
    device->backend_factorization()->factorize(
        prism::backend::SourceValues{kept->given_values(), nullptr});
    EXPECT_EQ(applied(*backend, *device, r), applied(*backend, *host, r));
  }
}

TEST(BlockIcAnalysisCuda, KeptMatrixErrorsAreTheHosts) {
  PRISM_SKIP_WITHOUT_GPU();
  const auto backend = cuda_backend();
  const Case c{"poisson", prism::poisson2d(4, 3), {}, prism::uniform_blocks(12, 2)};
  const auto kept = keep(c);
  // Blocks that do not fit: quotient_matrix's message.
  BlockPartition gap;
  gap.ptr = {0, 4, 4, 12};
  const std::string want =
      error_of([&] { static_cast<void>(pre::analyze_block_factor(c.a, gap)); });
  EXPECT_NE(want, "no error");
  EXPECT_EQ(error_of([&] {
              static_cast<void>(backend->make_block_ic_on_backend(*kept, gap, {}, true, false));
            }),
            want);
  // Blocks of another matrix: BlockIc's own message, as analyze() gives it.
  const auto host = pre::make_block_ic(*backend, block_ic_options(prism::BlockIcSolve::inverted));
  const auto device = pre::make_block_ic(*backend, block_ic_options(prism::BlockIcSolve::inverted));
  host->set_blocks(prism::uniform_blocks(10, 2));
  device->set_blocks(prism::uniform_blocks(10, 2));
  const std::string wrong_size = error_of([&] { host->analyze(c.a); });
  EXPECT_NE(wrong_size, "no error");
  EXPECT_EQ(
      error_of([&] { device->analyze_on_backend(*kept); }),
      std::string(wrong_size).replace(wrong_size.find("analyze()"), 9, "analyze_on_backend()"));
  // A row without its diagonal: the host plan's message.
  std::vector<prism::Triplet> t;
  for (index_t i = 0; i < c.a.rows; ++i) {
    for (index_t p = c.a.row_ptr[i]; p < c.a.row_ptr[i + 1]; ++p) {
      if (c.a.col_idx[p] != i || i != 5) t.push_back({i, c.a.col_idx[p], c.a.values[p]});
    }
  }
  const Case holed{"no diagonal in row 5", prism::csr_from_triplets(12, 12, t), {}, c.blocks};
  const auto holed_kept = keep(holed);
  for (const auto solve : {prism::BlockIcSolve::inverted, prism::BlockIcSolve::trsv}) {
    const auto h = pre::make_block_ic(*backend, block_ic_options(solve));
    const auto d = pre::make_block_ic(*backend, block_ic_options(solve));
    h->set_blocks(c.blocks);
    d->set_blocks(c.blocks);
    const std::string missing = error_of([&] { h->analyze(holed.a); });
    EXPECT_NE(missing.find("row 5"), std::string::npos) << missing;
    EXPECT_EQ(error_of([&] { d->analyze_on_backend(*holed_kept); }), missing);
  }
  // The host factorization is not the kept matrix's.
  prism::PreconditionerOptions on_host = block_ic_options(prism::BlockIcSolve::inverted);
  on_host.block_ic.factorization = prism::Ic0Factorization::host;
  const auto declines = pre::make_block_ic(*backend, on_host);
  declines->set_blocks(c.blocks);
  EXPECT_FALSE(declines->analyze_on_backend(*kept));
}

}  // namespace
