// The cuda backend's set-up from the matrix a set-up session keeps on the device
// (backend::cuda::DeviceOrdered, filled here by hand from a host permutation): the SpMV
// matrix it builds there (make_matrix_on_backend, SELL laid out on the device) against the
// one built from the host CsrMatrix (make_matrix): the same algorithm and auto choice
// (pick_spmv_on_backend), SpMV, spmv_dot and multi-column SpMV bit for bit for every
// algorithm (bsr: through the host's pattern, and its fallback), and again after new
// values through update_values(SourceValues); and the level report (level_ptr_on_backend)
// equal to analysis::level_ptr on colored and uncolored orders, with ranges and without
// (block- and line-colored orders: the device dataflow). Skipped without a GPU.

#include <prism/analysis.hpp>
#include <prism/generators.hpp>

#include "analysis/level_sets.hpp"
#include "backend/cuda/device_ordered.hpp"
#include "backend/cuda_test_support.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/level_report_cases.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace {

using prism::CsrMatrix;
using prism::index_t;
using prism::SpmvAlgorithm;
using prism::backend::cuda::DeviceOrdered;
using prism::test::CudaBackendTest;
using prism::test::DeviceValues;
using prism::test::random_vector;
namespace k = prism::kernels::cuda;

struct Ordered {
  CsrMatrix<double> b;  // P A P^T
  std::vector<index_t> source;
};

Ordered order(const CsrMatrix<double>& a, const std::vector<index_t>& perm) {
  Ordered o;
  o.b = prism::permute_symmetric(a, perm, &o.source);
  return o;
}

std::vector<index_t> identity(index_t n) {
  std::vector<index_t> p(static_cast<std::size_t>(n));
  std::iota(p.begin(), p.end(), 0);
  return p;
}

/// `o` kept on the device as the set-up session keeps it: the ordered pattern and values,
/// the source map and the caller's values `given`.
std::unique_ptr<DeviceOrdered> keep(const Ordered& o, const std::vector<double>& given) {
  auto d = std::make_unique<DeviceOrdered>();
  d->n = o.b.rows;
  d->row_ptr = k::upload_and_wait(o.b.row_ptr, nullptr);
  d->col_idx = k::upload_and_wait(o.b.col_idx, nullptr);
  d->values = k::upload_and_wait(o.b.values, nullptr);
  d->source = k::upload_and_wait(o.source, nullptr);
  d->caller_values = k::upload_and_wait(given, nullptr);
  return d;
}

struct Case {
  std::string name;
  CsrMatrix<double> a;
  std::vector<index_t> perm;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  const auto colored = [&](std::string name, CsrMatrix<double> a) {
    std::vector<index_t> perm = prism::color_matrix(a, prism::VertexOrder::natural).permutation;
    out.push_back({std::move(name), std::move(a), std::move(perm)});
  };
  colored("one row", prism::test::diagonal_only(1));
  colored("diagonal 33", prism::test::diagonal_only(33));
  colored("poisson3d 13x9x7, colored", prism::poisson3d(13, 9, 7));
  colored("grid and hubs, colored", prism::test::grid_and_hubs());  // SELL pads: cusparse
  colored("elasticity3d, colored", prism::elasticity3d(5, 4, 3, 2, {1.0, 20.0}));
  const CsrMatrix<double> e = prism::elasticity3d(5, 4, 3, 2, {1.0, 20.0});
  out.push_back({"elasticity3d, natural (bsr fits)", e, identity(e.rows)});
  CsrMatrix<double> r = prism::test::random_symmetric(1000, 3000, 7);
  std::vector<index_t> shuffled = identity(r.rows);
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937(3));
  out.push_back({"random 1000, shuffled", std::move(r), std::move(shuffled)});
  return out;
}

class CudaMatrixOnDevice : public CudaBackendTest {
 protected:
  /// y = A x for matrix `m` with spmv, its r = x . y through spmv_dot, and Y = A X for
  /// columns 0 and 2 of a 3-column block through spmm, all read back.
  struct Products {
    std::vector<double> y, y_dot, columns;
    double dot = 0.0;
  };
  Products products(const prism::backend::Matrix& m, index_t n) {
    Products p;
    auto x = gpu->make_vector(n), y = gpu->make_vector(n);
    gpu->copy_from_host(random_vector(n, 5), *x);
    gpu->spmv(m, *x, *y);
    p.y = host(*gpu, *y);
    gpu->spmv_dot(m, *x, *y, prism::backend::Scalar::pq);
    p.dot = gpu->read_scalars()[static_cast<int>(prism::backend::Scalar::pq)];
    p.y_dot = host(*gpu, *y);
    auto xs = gpu->make_vector(3 * n), ys = gpu->make_vector(3 * n);
    gpu->copy_from_host(random_vector(3 * n, 6), *xs);
    const auto set = gpu->make_column_set(n, {0, 2});
    gpu->spmm(m, *xs, *ys, *set);
    p.columns = host(*gpu, *ys);
    return p;
  }
  void expect_equal(const Products& got, const Products& want) {
    EXPECT_EQ(got.y, want.y);  // the same arrays and kernels: bit for bit
    EXPECT_EQ(got.y_dot, want.y_dot);
    EXPECT_EQ(got.dot, want.dot);
    EXPECT_EQ(got.columns, want.columns);
  }
};

TEST_F(CudaMatrixOnDevice, SpmvMatrixEqualsTheHostBuiltOne) {
  for (const Case& c : cases()) {
    const Ordered o = order(c.a, c.perm);
    const index_t n = o.b.rows;
    for (const SpmvAlgorithm algorithm :
         {SpmvAlgorithm::automatic, SpmvAlgorithm::sell, SpmvAlgorithm::cusparse,
          SpmvAlgorithm::csr_vector, SpmvAlgorithm::bsr}) {
      SCOPED_TRACE(c.name + ", spmv " + std::string(prism::to_string(algorithm)));
      std::unique_ptr<DeviceOrdered> kept = keep(o, c.a.values);
      EXPECT_EQ(gpu->pick_spmv_on_backend(*kept, algorithm), gpu->pick_spmv(o.b, algorithm));
      auto from_host = gpu->make_matrix(o.b, algorithm);
      auto from_device = gpu->make_matrix_on_backend(*kept, algorithm);
      EXPECT_EQ(from_device->algorithm(), from_host->algorithm());
      EXPECT_EQ(from_device->rows(), n);
      EXPECT_EQ(from_device->nnz(), o.b.nnz());
      EXPECT_EQ(gpu->fuses_spmv_dot(*from_device), gpu->fuses_spmv_dot(*from_host));
      expect_equal(products(*from_device, n), products(*from_host, n));

      // New values in the caller's order, in device memory: both gather them through
      // the source map (the device-built one holds it already), and equal a matrix built
      // from the new values in order on the host.
      std::vector<double> given = c.a.values;
      for (std::size_t q = 0; q < given.size(); ++q) given[q] = -1.5 * given[q] + 0.25 * (q % 3);
      const DeviceValues values(given);
      const prism::backend::SourceValues source{values.data(), &o.source};
      from_host->update_values(source);
      from_device->update_values(source);
      CsrMatrix<double> b2 = o.b;
      for (std::size_t q = 0; q < b2.values.size(); ++q) b2.values[q] = given[o.source[q]];
      auto fresh = gpu->make_matrix(b2, algorithm);
      const Products want = products(*fresh, n);
      expect_equal(products(*from_host, n), want);
      expect_equal(products(*from_device, n), want);
    }
  }
}

TEST_F(CudaMatrixOnDevice, BsrFitsOrFallsBackAsOnTheHost) {
  const Case e{"elasticity3d", prism::elasticity3d(5, 4, 3, 2, {1.0, 20.0}), {}};
  const Ordered natural = order(e.a, identity(e.a.rows));
  auto kept = keep(natural, e.a.values);
  EXPECT_EQ(gpu->make_matrix_on_backend(*kept, SpmvAlgorithm::bsr)->algorithm(), "bsr");
  const Ordered colored =
      order(e.a, prism::color_matrix(e.a, prism::VertexOrder::natural).permutation);
  kept = keep(colored, e.a.values);
  const std::string fallback = gpu->make_matrix_on_backend(*kept, SpmvAlgorithm::bsr)->algorithm();
  EXPECT_EQ(fallback, gpu->make_matrix(colored.b, SpmvAlgorithm::bsr)->algorithm());
  EXPECT_NE(fallback.find("(bsr: "), std::string::npos) << fallback;
}

TEST_F(CudaMatrixOnDevice, LevelReportEqualsTheHostOne) {
  for (const prism::test::LevelCase& c : prism::test::level_report_cases()) {
    SCOPED_TRACE(c.name);
    const Ordered o{c.a, identity(c.a.rows)};
    // Independent ranges on the device; coupled ones through the host's level sets.
    EXPECT_EQ(gpu->level_ptr_on_backend(*keep(o, c.a.values), c.ranges),
              prism::analysis::level_ptr(c.a, c.ranges));
  }
  // Ranges that do not cover the rows (none: a natural order): the host's level sets.
  const CsrMatrix<double> a = prism::poisson2d(33, 31);
  const Ordered o{a, identity(a.rows)};
  for (const std::vector<index_t>& ranges :
       std::vector<std::vector<index_t>>{{}, {0, 500}, {0, 700, 500, a.rows}}) {
    EXPECT_EQ(gpu->level_ptr_on_backend(*keep(o, a.values), ranges),
              prism::analysis::level_ptr(a, ranges));
  }
}

TEST_F(CudaMatrixOnDevice, LevelReportWithoutRangesEqualsTheHostOne) {
  // block_ic's and line_ic's orders, natural orders: the device dataflow; an entry without
  // its mirror: the host's level sets.
  for (const prism::test::DataflowCase& c : prism::test::dataflow_level_cases()) {
    SCOPED_TRACE(c.name);
    const Ordered o{c.a, identity(c.a.rows)};
    for (const std::vector<index_t>& ranges :
         std::vector<std::vector<index_t>>{{}, {0, c.a.rows}}) {
      EXPECT_EQ(gpu->level_ptr_on_backend(*keep(o, c.a.values), ranges),
                prism::analysis::level_ptr(c.a, ranges));
    }
  }
}

}  // namespace
