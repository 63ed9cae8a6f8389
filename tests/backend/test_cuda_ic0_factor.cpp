// The device IC(0) factorization engine (Ic0Factor) against the host factorization: the
// same factor and shift retries from host and device values, its halves against its two
// solves, mixed precision against the CPU twin, rows too long for a match table, and bad
// diagonals in device values. Skipped without a GPU.

#include <prism/analysis.hpp>
#include <prism/generators.hpp>

#include "backend/cuda_test_support.hpp"
#include "kernels/cuda/device_info.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/ic0.hpp"
#include "precond/ic0_pattern.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
using prism::test::CudaBackendTest;
using prism::test::DeviceValues;
using prism::test::grid_and_clique;
using prism::test::grid_and_hubs;
using prism::test::invalid_matrix_message;
using prism::test::max_abs_diff;
using prism::test::random_vector;

TEST_F(CudaBackendTest, DeviceIc0FactorIsEquivalentToReference) {
  std::vector<prism::Triplet> diagonal;
  for (index_t i = 0; i < 37; ++i) diagonal.push_back({i, i, 1.0 + i});
  std::vector<std::pair<std::string, CsrMatrix<double>>> matrices{
      {"n1", prism::poisson2d(1, 1)},
      {"diagonal", prism::csr_from_triplets(37, 37, diagonal)},
      {"poisson2d", prism::poisson2d(31, 33)},
      {"poisson3d_natural", prism::poisson3d(11, 9, 7)},
      {"poisson3d27", prism::poisson3d(19, 17, 15, 27)},
      {"bcsstk08", prism::read_matrix_market(std::string(PRISM_TEST_DATA_DIR) + "/bcsstk08.mtx")},
      {"grid_and_clique", grid_and_clique()},
      {"grid_and_hubs", grid_and_hubs()}};
  const std::string bcsstk13 = prism::test::shared_matrix("bcsstk13.mtx.gz");
  if (!bcsstk13.empty()) matrices.push_back({"bcsstk13", prism::read_matrix_market(bcsstk13)});
  for (const auto& [name, original] : matrices) {
    for (bool colored : {false, true}) {
      SCOPED_TRACE(name + (colored ? " color" : " natural"));
      const CsrMatrix<double> a =
          colored ? prism::permute_symmetric(
                        original,
                        prism::color_matrix(original, prism::VertexOrder::natural).permutation)
                  : original;
      prism::precond::Ic0Pattern host_factor(a);
      const prism::FactorizationReport rh = host_factor.factorize(a, {});
      for (auto layout : {prism::ColorsetLayout::csr, prism::ColorsetLayout::sell}) {
        SCOPED_TRACE(prism::to_string(layout));
        prism::precond::Ic0Pattern pattern(a);
        auto engine = gpu->make_ic0_factor(
            pattern.lower(), pattern.upper(), pattern.upper_source(), pattern.lower_source(),
            {prism::TrisolveAlgorithm::automatic, prism::Precision::fp64, layout});
        EXPECT_EQ(engine->layout(), prism::to_string(layout));
        const prism::FactorizationReport rg = pattern.factorize(a, {}, *engine);
        // Same breakdowns (bcsstk13 needs the shift), same shift.
        EXPECT_EQ(rg.retries, rh.retries);
        EXPECT_EQ(rg.shift, rh.shift);
        // A's values scaled on the device (refactor_on_backend): the same factor, bit
        // for bit, as scaled on the host.
        auto from_device = gpu->make_ic0_factor(
            pattern.lower(), pattern.upper(), pattern.upper_source(), pattern.lower_source(),
            {prism::TrisolveAlgorithm::automatic, prism::Precision::fp64, layout});
        const DeviceValues a_values(a.values);
        std::vector<index_t> identity(a.values.size());
        std::iota(identity.begin(), identity.end(), 0);
        const prism::FactorizationReport rd =
            pattern.factorize({a_values.data(), &identity}, {}, *from_device);
        EXPECT_EQ(rd.retries, rh.retries);
        EXPECT_EQ(rd.shift, rh.shift);
        // Natural order: the upper solve's row blocks differ from the lower one's.
        expect_halves_equal_solves(*engine, a.rows, 34);
        for (auto tri : {prism::backend::Triangle::lower, prism::backend::Triangle::upper}) {
          auto reference = cpu->make_triangular_solver(
              tri == prism::backend::Triangle::lower ? host_factor.lower() : host_factor.upper(),
              tri, {prism::TrisolveAlgorithm::reference, prism::Precision::fp64});
          auto b = both(random_vector(a.rows, 31)), x = both(std::vector<double>(a.rows, 0.0));
          auto xd = both(std::vector<double>(a.rows, 0.0));
          from_device->solve(tri, *b.g, *xd.g);
          engine->solve(tri, *b.g, *x.g);
          EXPECT_EQ(host(*gpu, *xd.g), host(*gpu, *x.g));
          reference->solve(*b.c, *x.c);
          const auto xc = host(*cpu, *x.c);
          double scale = 1.0;
          for (double v : xc) scale = std::max(scale, std::abs(v));
          EXPECT_LE(max_abs_diff(host(*gpu, *x.g), xc), 1e-12 * scale);
        }
      }
    }
  }
}

// The SELL halves loop over their rows with at most the resident blocks (a grid-stride
// loop): on colors of more rows than the device keeps threads resident, threads take
// several rows. The halves still equal the two plain solves (one thread a row) bit for
// bit and form r.z to rounding, and the plain solves equal the CPU reference's to
// rounding.
TEST_F(CudaBackendTest, SellHalvesOnColorsLongerThanTheResidentThreads) {
  const index_t resident = prism::kernels::cuda::resident_threads();
  ASSERT_GT(resident, 0);
  // Two colors of about 1.3 resident threads' rows each: the red-black 2D grid.
  const index_t nx = 1000, ny = (13 * resident / 5 + nx - 1) / nx;
  const CsrMatrix<double> grid = prism::poisson2d(nx, ny);
  const prism::Coloring coloring = prism::color_matrix(grid, prism::VertexOrder::natural);
  const CsrMatrix<double> a = prism::permute_symmetric(grid, coloring.permutation);
  ASSERT_EQ(coloring.num_colors, 2);
  prism::precond::Ic0Pattern pattern(a);
  auto engine = gpu->make_ic0_factor(
      pattern.lower(), pattern.upper(), pattern.upper_source(), pattern.lower_source(),
      {prism::TrisolveAlgorithm::automatic, prism::Precision::fp64, prism::ColorsetLayout::sell});
  pattern.factorize(a, {}, *engine);
  ASSERT_EQ(engine->layout(), "sell");
  expect_halves_equal_solves(*engine, a.rows, 36);
  // The plain solves against the CPU reference's.
  prism::precond::Ic0Pattern cpu_pattern(a);
  auto reference =
      cpu->make_ic0_factor(cpu_pattern.lower(), cpu_pattern.upper(), cpu_pattern.upper_source(),
                           cpu_pattern.lower_source(), {prism::TrisolveAlgorithm::automatic});
  cpu_pattern.factorize(a, {}, *reference);
  for (auto tri : {prism::backend::Triangle::lower, prism::backend::Triangle::upper}) {
    auto b = both(random_vector(a.rows, 37)), x = both(std::vector<double>(a.rows, 0.0));
    engine->solve(tri, *b.g, *x.g);
    reference->solve(tri, *b.c, *x.c);
    const std::vector<double> xg = host(*gpu, *x.g), xc = host(*cpu, *x.c);
    double scale = 1.0, error = 0.0;
    for (std::size_t i = 0; i < xc.size(); ++i) {
      scale = std::max(scale, std::abs(xc[i]));
      error = std::max(error, std::abs(xg[i] - xc[i]));
    }
    EXPECT_LE(error, 1e-12 * scale);
  }
}

// A row longer than a match's 16-bit offsets (an arrow: the last row couples to every
// other) leaves no match table, and the engine factors by merging rows instead.
TEST_F(CudaBackendTest, DeviceIc0FactorMergesRowsBeyondTheMatchOffsets) {
  namespace kc = prism::kernels::cuda;
  const index_t n = kc::kIc0MatchRowLimit + 5;
  std::vector<prism::Triplet> t;
  for (index_t i = 0; i + 1 < n; ++i) {
    t.push_back({i, i, 1.0});
    t.push_back({n - 1, i, -0.5});
    t.push_back({i, n - 1, -0.5});
  }
  t.push_back({n - 1, n - 1, static_cast<double>(n)});
  const CsrMatrix<double> a = prism::csr_from_triplets(n, n, std::move(t));
  prism::precond::Ic0Pattern host_factor(a), pattern(a);
  host_factor.factorize(a, {});
  const CsrMatrix<double>& lower = pattern.lower();
  std::vector<index_t> entry_row;
  for (index_t i = 0; i < n; ++i) {
    entry_row.insert(entry_row.end(), lower.row_ptr[i + 1] - lower.row_ptr[i], i);
  }
  auto row_ptr = kc::upload_and_wait(lower.row_ptr, nullptr);
  auto col_idx = kc::upload_and_wait(lower.col_idx, nullptr);
  const auto device_entry_row = kc::upload_and_wait(entry_row, nullptr);
  EXPECT_FALSE(kc::ic0_match_table({n, n, row_ptr.data(), col_idx.data(), nullptr},
                                   static_cast<index_t>(entry_row.size()), device_entry_row.data(),
                                   n, nullptr)
                   .valid());
  auto engine = gpu->make_ic0_factor(pattern.lower(), pattern.upper(), pattern.upper_source(),
                                     pattern.lower_source(),
                                     {prism::TrisolveAlgorithm::automatic, prism::Precision::fp64});
  EXPECT_EQ(pattern.factorize(a, {}, *engine).retries, 0);
  for (auto tri : {prism::backend::Triangle::lower, prism::backend::Triangle::upper}) {
    auto reference = cpu->make_triangular_solver(
        tri == prism::backend::Triangle::lower ? host_factor.lower() : host_factor.upper(), tri,
        {prism::TrisolveAlgorithm::reference, prism::Precision::fp64});
    auto b = both(random_vector(n, 36)), x = both(std::vector<double>(n, 0.0));
    engine->solve(tri, *b.g, *x.g);
    reference->solve(*b.c, *x.c);
    const auto xc = host(*cpu, *x.c);
    double scale = 1.0;
    for (double v : xc) scale = std::max(scale, std::abs(v));
    EXPECT_LE(max_abs_diff(host(*gpu, *x.g), xc), 1e-12 * scale);
  }
}

// In CSR the device's float solves read the CPU twin's float values; in SELL the lower
// copy's first-color entries hold float(l_ik * dl_k) instead (Ic0Output::scaled_end), so
// the two differ by float rounding there.
TEST_F(CudaBackendTest, DeviceIc0FactorInMixedPrecisionMatchesItsCpuTwin) {
  const CsrMatrix<double> original = prism::poisson3d(19, 17, 15, 27);
  const CsrMatrix<double> a = prism::permute_symmetric(
      original, prism::color_matrix(original, prism::VertexOrder::natural).permutation);
  prism::precond::Ic0Pattern pc(a);
  auto ec = cpu->make_ic0_factor(pc.lower(), pc.upper(), pc.upper_source(), pc.lower_source(),
                                 {prism::TrisolveAlgorithm::automatic, prism::Precision::mixed});
  pc.factorize(a, {}, *ec);
  for (auto layout : {prism::ColorsetLayout::csr, prism::ColorsetLayout::sell}) {
    SCOPED_TRACE(prism::to_string(layout));
    prism::precond::Ic0Pattern pg(a);
    auto eg = gpu->make_ic0_factor(
        pg.lower(), pg.upper(), pg.upper_source(), pg.lower_source(),
        {prism::TrisolveAlgorithm::automatic, prism::Precision::mixed, layout});
    EXPECT_EQ(eg->layout(), prism::to_string(layout));
    pg.factorize(a, {}, *eg);
    // The halves form r.z as |L^{-1} r|^2, which is (r, z) where the lower copy is the
    // transpose of the upper one; in SELL its first-color entries hold float(l_ik dl_k)
    // where the upper copy holds float(l_ik) and float(dl_k): a float rounding apart.
    expect_halves_equal_solves(*eg, a.rows, 35,
                               layout == prism::ColorsetLayout::sell ? 1e-8 : 1e-12);
    for (auto tri : {prism::backend::Triangle::lower, prism::backend::Triangle::upper}) {
      auto b = both(random_vector(a.rows, 32)), x = both(std::vector<double>(a.rows, 0.0));
      eg->solve(tri, *b.g, *x.g);
      ec->solve(tri, *b.c, *x.c);
      const auto xc = host(*cpu, *x.c);
      double scale = 1.0;
      for (double v : xc) scale = std::max(scale, std::abs(v));
      // CSR: the same float values on both sides (the factorization is bit-identical in
      // double); only the summation order of the double sums differs. SELL's lower
      // triangle: a float rounding (2^-24) of each first-color product, through the
      // solve's few colors.
      const bool rounded =
          layout == prism::ColorsetLayout::sell && tri == prism::backend::Triangle::lower;
      EXPECT_LE(max_abs_diff(host(*gpu, *x.g), xc), (rounded ? 1e-6 : 1e-12) * scale);
      if (rounded) EXPECT_GT(max_abs_diff(host(*gpu, *x.g), xc), 0.0);
    }
  }
}

// Values from device memory with a bad diagonal: the device engine's first attempt
// reports it and the retry loop stops with the host path's message; the engine then
// still factors good values (a retry after a breakdown reloads them too). bcsstk08 is
// factored staged, the 5-point grids by merging rows (both scaled as the factorization
// reads them, Ic0Source; the retries that run together scaled by ic0_scale first); the
// second grid, its off-diagonal entries made larger, breaks down and takes shift retries.
TEST_F(CudaBackendTest, DeviceIc0FactorFromDeviceValuesReportsBadDiagonalsAndRetries) {
  CsrMatrix<double> strong = prism::poisson2d(37, 29);
  for (index_t i = 0; i < strong.rows; ++i) {
    for (index_t k = strong.row_ptr[i]; k < strong.row_ptr[i + 1]; ++k) {
      if (strong.col_idx[k] != i) strong.values[k] *= 1.6;
    }
  }
  const std::vector<std::pair<CsrMatrix<double>, index_t>> cases{
      {prism::read_matrix_market(std::string(PRISM_TEST_DATA_DIR) + "/bcsstk08.mtx"), 700},
      {prism::poisson2d(37, 29), 1000},
      {strong, 500}};
  for (const auto& [good, bad_row] : cases) {
    SCOPED_TRACE(std::to_string(good.rows) + " rows, bad diagonal in row " +
                 std::to_string(bad_row));
    CsrMatrix<double> bad = good;
    index_t diag = bad.row_ptr[bad_row];
    while (bad.col_idx[diag] != bad_row) ++diag;
    bad.values[diag] = 0.0;
    prism::precond::Ic0Pattern on_host(good), pattern(good);
    auto engine = gpu->make_ic0_factor(
        pattern.lower(), pattern.upper(), pattern.upper_source(), pattern.lower_source(),
        {prism::TrisolveAlgorithm::automatic, prism::Precision::fp64});
    std::vector<index_t> identity(good.values.size());
    std::iota(identity.begin(), identity.end(), 0);
    const DeviceValues bad_values(bad.values), good_values(good.values);
    const std::string expected = invalid_matrix_message([&] { on_host.factorize(bad, {}); });
    // The preconditioner alone counts rows from 0 in its own order (Solver renames them).
    EXPECT_NE(expected.find("row " + std::to_string(bad_row) + " "), std::string::npos) << expected;
    EXPECT_EQ(invalid_matrix_message([&] {
                pattern.factorize({bad_values.data(), &identity}, {}, *engine);
              }),
              expected);
    const prism::FactorizationReport rh = on_host.factorize(good, {});
    const prism::FactorizationReport rd =
        pattern.factorize({good_values.data(), &identity}, {}, *engine);
    EXPECT_EQ(rd.retries, rh.retries);
    EXPECT_EQ(rd.shift, rh.shift);
    if (&good == &cases.back().first) EXPECT_GT(rh.retries, 0);
    auto b = both(random_vector(good.rows, 33)), x = both(std::vector<double>(good.rows, 0.0));
    auto reference =
        cpu->make_triangular_solver(on_host.lower(), prism::backend::Triangle::lower,
                                    {prism::TrisolveAlgorithm::reference, prism::Precision::fp64});
    engine->solve(prism::backend::Triangle::lower, *b.g, *x.g);
    reference->solve(*b.c, *x.c);
    const auto xc = host(*cpu, *x.c);
    double scale = 1.0;
    for (double v : xc) scale = std::max(scale, std::abs(v));
    EXPECT_LE(max_abs_diff(host(*gpu, *x.g), xc), 1e-12 * scale);
  }
}

}  // namespace
