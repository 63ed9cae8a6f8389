// The cuda backend's SpMV matrix and color-set triangular solve made from CSR patterns in
// device memory (backend/cuda/device_operators.hpp) against those the backend makes from
// the host copy (CudaMatrix's host constructor, make_colorset_trisolve on a SplitTriangle:
// what make_matrix and make_triangular_solver with colorset build): the same algorithm and
// layout, and bit for bit the same products and solves, one column or several, after the
// same values (device or host). The device split (kernels/cuda/triangle_split.hpp) against
// its host reference SplitTriangle::pattern_only, and the row blocks found on the device
// against the split's. Awkward sizes: 1 row, 33 rows, rows of no strict entry, a block
// diagonal pattern, the operators of block IC on elasticity node blocks in block-colored
// order, random unit triangles, more blocks than the device walks. Skipped without a GPU.

#include <prism/analysis.hpp>
#include <prism/blocks.hpp>
#include <prism/errors.hpp>
#include <prism/generators.hpp>

#include "backend/columns.hpp"
#include "backend/cuda/colorset_trisolve.hpp"
#include "backend/cuda/cuda_handles.hpp"
#include "backend/cuda/cuda_matrix.hpp"
#include "backend/cuda/cuda_vector.hpp"
#include "backend/cuda/device_operators.hpp"
#include "backend/split_triangle.hpp"
#include "common/gpu.hpp"
#include "common/test_matrices.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/independent_blocks.hpp"
#include "kernels/cuda/triangle_split.hpp"
#include "precond/block_ic/block_factor.hpp"
#include "precond/block_ic/block_sweeps.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace {

using prism::ColorsetLayout;
using prism::CsrMatrix;
using prism::index_t;
using prism::Precision;
using prism::SpmvAlgorithm;
using prism::backend::Triangle;
namespace bc = prism::backend::cuda;
namespace k = prism::kernels::cuda;

template <typename Array>
std::vector<index_t> plain(const Array& a) {
  return std::vector<index_t>(a.begin(), a.end());
}

std::vector<index_t> down(const k::DeviceBuffer<index_t>& d) {
  return k::download_and_wait(d, nullptr);
}

std::vector<double> down(const bc::CudaVector& v) {
  return k::download_and_wait(v.data(), static_cast<std::size_t>(v.size()), nullptr);
}

/// A column set on the device (the backend's make_column_set without a backend).
class Columns final : public prism::backend::ColumnSet {
 public:
  Columns(index_t rows, std::vector<index_t> columns)
      : rows_(rows), columns_(std::move(columns)), device_(k::upload_and_wait(columns_, nullptr)) {}
  index_t rows() const override { return rows_; }
  const std::vector<index_t>& columns() const override { return columns_; }
  const index_t* backend_columns() const override { return device_.data(); }

 private:
  index_t rows_;
  std::vector<index_t> columns_;
  k::DeviceBuffer<index_t> device_;
};

/// A device vector holding `v`.
std::unique_ptr<bc::CudaVector> vector_of(const std::vector<double>& v) {
  auto out = std::make_unique<bc::CudaVector>(static_cast<index_t>(v.size()));
  k::DeviceBuffer<double> up = k::upload_and_wait(v, nullptr);
  if (!v.empty()) {
    EXPECT_EQ(cudaMemcpy(out->data(), up.data(), v.size() * sizeof(double), cudaMemcpyDefault),
              cudaSuccess);
  }
  return out;
}

/// Random values for a triangle's pattern: off the diagonal in [-1, 1) over the row's
/// length (solves stay bounded), on it in [1, 2) (the diagonal where `tri` puts it).
std::vector<double> triangle_values(const CsrMatrix<double>& t, Triangle tri, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::vector<double> v(t.col_idx.size());
  for (index_t i = 0; i < t.rows; ++i) {
    const index_t begin = t.row_ptr[i], end = t.row_ptr[i + 1];
    const index_t diagonal = tri == Triangle::lower ? end - 1 : begin;
    for (index_t p = begin; p < end; ++p) {
      v[p] = p == diagonal ? 1.5 + 0.5 * dist(gen) : dist(gen) / static_cast<double>(end - begin);
    }
  }
  return v;
}

/// A random lower triangle with its diagonal: each row i reads about `per_row` of the rows
/// before it (fewer near the top), some rows none.
CsrMatrix<double> random_lower(index_t n, int per_row, unsigned seed) {
  std::mt19937 gen(seed);
  std::vector<prism::Triplet> entries;
  for (index_t i = 0; i < n; ++i) {
    entries.push_back({i, i, 1.0});
    if (i == 0 || i % 5 == 3) continue;  // rows of no strict entry
    std::uniform_int_distribution<index_t> pick(0, i - 1);
    for (int e = 0; e < per_row; ++e) entries.push_back({i, pick(gen), 1.0});
  }
  return prism::csr_from_triplets(n, n, std::move(entries));
}

/// The lower triangle (with its diagonal) of a matrix.
CsrMatrix<double> lower_of(const CsrMatrix<double>& a) {
  std::vector<prism::Triplet> entries;
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p) {
      if (a.col_idx[p] <= i) entries.push_back({i, a.col_idx[p], 1.0});
    }
  }
  return prism::csr_from_triplets(a.rows, a.rows, std::move(entries));
}

/// Blocks of block_rows rows, dense inside, nothing outside: a lower triangle.
CsrMatrix<double> block_diagonal_lower(index_t blocks, index_t block_rows) {
  std::vector<prism::Triplet> entries;
  for (index_t b = 0; b < blocks; ++b) {
    for (index_t r = 0; r < block_rows; ++r) {
      for (index_t c = 0; c <= r; ++c)
        entries.push_back({b * block_rows + r, b * block_rows + c, 1.0});
    }
  }
  const index_t n = blocks * block_rows;
  return prism::csr_from_triplets(n, n, std::move(entries));
}

/// Rows i % 4 == 1 store nothing; the others a few entries.
CsrMatrix<double> with_empty_rows(index_t n) {
  std::vector<prism::Triplet> entries;
  for (index_t i = 0; i < n; ++i) {
    if (i % 4 == 1) continue;
    for (index_t j : {i, (7 * i + 3) % n, (i * i) % n}) entries.push_back({i, j, 1.0});
  }
  return prism::csr_from_triplets(n, n, std::move(entries));
}

/// elasticity3d in the block-colored order of its node blocks, and those blocks.
std::pair<CsrMatrix<double>, prism::BlockPartition> colored_nodes(index_t nx, index_t ny,
                                                                  index_t nz) {
  const CsrMatrix<double> e = prism::elasticity3d(nx, ny, nz, 2, {1.0, 50.0});
  const prism::BlockColoring c =
      prism::color_blocks(e, prism::find_node_blocks(e), prism::VertexOrder::natural);
  return {prism::permute_symmetric(e, c.permutation), c.blocks};
}

CsrMatrix<double> colored_elasticity(index_t nx, index_t ny, index_t nz) {
  return colored_nodes(nx, ny, nz).first;
}

/// Block IC's four operators (their patterns) on elasticity3d's node blocks in
/// block-colored order, as the preconditioner builds them.
prism::precond::BlockSweeps elasticity_sweeps(index_t nx, index_t ny, index_t nz) {
  const auto [a, blocks] = colored_nodes(nx, ny, nz);
  return prism::precond::block_sweeps_pattern(prism::precond::analyze_block_factor(a, blocks));
}

struct TriangleCase {
  std::string name;
  CsrMatrix<double> t;
  Triangle triangle;
};

std::vector<TriangleCase> triangle_cases() {
  std::vector<TriangleCase> out;
  const auto both = [&](const std::string& name, const CsrMatrix<double>& lower) {
    out.push_back({name + ", lower", lower, Triangle::lower});
    out.push_back({name + ", upper", prism::transpose(lower), Triangle::upper});
  };
  both("1 row", prism::test::diagonal_only(1));
  both("33 rows, random", random_lower(33, 3, 5));
  both("diagonal only: no strict entry", prism::test::diagonal_only(40));
  both("block diagonal, blocks of 3", block_diagonal_lower(70, 3));
  both("random, 3000 rows", random_lower(3000, 4, 9));
  const CsrMatrix<double> grid = prism::poisson2d(40, 30);
  both("colored grid",
       lower_of(prism::permute_symmetric(
           grid, prism::color_matrix(grid, prism::VertexOrder::largest_first).permutation)));
  for (const auto& [nx, ny, nz] : {std::tuple{3, 2, 3}, std::tuple{8, 7, 6}}) {
    const prism::precond::BlockSweeps s = elasticity_sweeps(nx, ny, nz);
    const std::string name = "elasticity " + std::to_string(nx * ny * nz) + " nodes, ";
    out.push_back({name + "I + W", s.forward, Triangle::lower});
    out.push_back({name + "I + V", s.backward, Triangle::upper});
  }
  return out;
}

/// The triangle's pattern in device memory.
std::unique_ptr<prism::backend::TriangularSolver> from_device(
    const CsrMatrix<double>& t, Triangle triangle, const prism::backend::TrisolveSpec& s) {
  return bc::make_cuda_colorset_from_device(t.rows, k::upload_and_wait(t.row_ptr, nullptr),
                                            k::upload_and_wait(t.col_idx, nullptr), triangle, s,
                                            nullptr);
}

// The split on the device equals SplitTriangle's entry for entry, the reaches the ones its
// block scan reads, and the blocks found from them its blocks.
TEST(CudaDeviceOperators, TriangleSplitIsHostSplit) {
  PRISM_SKIP_WITHOUT_GPU();
  std::vector<TriangleCase> cases = triangle_cases();
  // More blocks than the device walks (kDeviceBlocksLimit): the host scans the reaches.
  const index_t chain = k::kDeviceBlocksLimit + 100;
  {
    std::vector<prism::Triplet> entries{{0, 0, 1.0}};
    for (index_t i = 1; i < chain; ++i)
      entries.insert(entries.end(), {{i, i - 1, 1.0}, {i, i, 1.0}});
    const CsrMatrix<double> lower = prism::csr_from_triplets(chain, chain, std::move(entries));
    cases.push_back({"a chain, lower", lower, Triangle::lower});
    cases.push_back({"a chain, upper", prism::transpose(lower), Triangle::upper});
  }
  for (const TriangleCase& c : cases) {
    SCOPED_TRACE(c.name);
    const bool lower = c.triangle == Triangle::lower;
    const prism::backend::SplitTriangle host =
        prism::backend::SplitTriangle::pattern_only(c.t, c.triangle);
    const auto row_ptr = k::upload_and_wait(c.t.row_ptr, nullptr);
    const auto col_idx = k::upload_and_wait(c.t.col_idx, nullptr);
    const k::DeviceTriangleSplit s =
        k::triangle_split(c.t.rows, row_ptr.data(), col_idx.data(), c.t.nnz(), lower, nullptr);
    ASSERT_EQ(s.bad_row, -1);
    EXPECT_EQ(down(s.row_ptr), plain(host.strict().row_ptr));
    EXPECT_EQ(down(s.col_idx), plain(host.strict().col_idx));
    EXPECT_EQ(down(s.source), host.strict_source());
    EXPECT_EQ(down(s.diagonal), host.diagonal_source());
    const prism::backend::StrictTriangle& strict = host.strict();
    std::vector<index_t> reach(static_cast<std::size_t>(c.t.rows));
    for (index_t i = 0; i < c.t.rows; ++i) {
      const auto begin = strict.col_idx.begin() + strict.row_ptr[i];
      const auto end = strict.col_idx.begin() + strict.row_ptr[i + 1];
      reach[i] = begin == end
                     ? (lower ? -1 : c.t.rows)
                     : (lower ? *std::max_element(begin, end) : *std::min_element(begin, end));
    }
    EXPECT_EQ(down(s.reach), reach);
    const bc::RowBlocks blocks = bc::independent_blocks_on_device(
        lower ? s.reach.data() : nullptr, lower ? nullptr : s.reach.data(), c.t.rows, nullptr);
    EXPECT_EQ(lower ? blocks.lower : blocks.upper, host.block_ptr());
    EXPECT_TRUE((lower ? blocks.upper : blocks.lower).empty());
  }
}

// A row whose diagonal is not where the triangle puts it: the host split's message.
TEST(CudaDeviceOperators, MisplacedDiagonalIsNamedAsOnTheHost) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> lower = random_lower(33, 3, 5);
  for (const auto& [t, triangle] :
       {std::pair{lower, Triangle::upper}, std::pair{prism::transpose(lower), Triangle::lower}}) {
    std::string host, device;
    try {
      prism::backend::SplitTriangle::pattern_only(t, triangle);
    } catch (const prism::InvalidMatrixError& e) {
      host = e.what();
    }
    try {
      from_device(t, triangle,
                  {prism::TrisolveAlgorithm::colorset, Precision::fp64, ColorsetLayout::automatic});
    } catch (const prism::InvalidMatrixError& e) {
      device = e.what();
    }
    EXPECT_FALSE(host.empty());
    EXPECT_EQ(device, host);
  }
  EXPECT_THROW(
      from_device(lower, Triangle::lower,
                  {prism::TrisolveAlgorithm::cusparse, Precision::fp64, ColorsetLayout::automatic}),
      prism::ConfigError);
}

/// x = T^{-1} b with both solves, one column and columns {0, 2} of three, bit for bit.
void expect_same_solves(prism::backend::TriangularSolver& host,
                        prism::backend::TriangularSolver& device, index_t n, unsigned seed) {
  const std::vector<double> b = prism::test::random_vector(n, seed);
  auto bh = vector_of(b), xh = vector_of(std::vector<double>(b.size(), 0.0));
  auto bd = vector_of(b), xd = vector_of(std::vector<double>(b.size(), 0.0));
  host.solve(*bh, *xh);
  device.solve(*bd, *xd);
  const std::vector<double> x = down(*xh);
  EXPECT_EQ(down(*xd), x);
  EXPECT_NE(x, b);

  const std::vector<double> b3 = prism::test::random_vector(3 * n, seed + 1);
  const Columns set(n, {0, 2});
  ASSERT_TRUE(device.solves_columns());
  auto bh3 = vector_of(b3), xh3 = vector_of(b3), bd3 = vector_of(b3), xd3 = vector_of(b3);
  host.solve_columns(*bh3, *xh3, set);
  device.solve_columns(*bd3, *xd3, set);
  EXPECT_EQ(down(*xd3), down(*xh3));
}

// The solve from the device pattern equals the host-made one bit for bit: the same
// layout, after the same values from device memory and from the host, in both layouts
// and precisions; before any values it is the identity.
TEST(CudaDeviceOperators, ColorsetFromDeviceSolvesAsHostMade) {
  PRISM_SKIP_WITHOUT_GPU();
  for (const TriangleCase& c : triangle_cases()) {
    for (const Precision precision : {Precision::fp64, Precision::mixed}) {
      for (const ColorsetLayout layout :
           {ColorsetLayout::csr, ColorsetLayout::sell, ColorsetLayout::automatic}) {
        SCOPED_TRACE(c.name + ", " + std::string(prism::to_string(precision)) + ", " +
                     std::string(prism::to_string(layout)));
        const prism::backend::TrisolveSpec spec{prism::TrisolveAlgorithm::colorset, precision,
                                                layout};
        auto device = from_device(c.t, c.triangle, spec);
        // Before any values: zero strict entries, a unit diagonal.
        const std::vector<double> b = prism::test::random_vector(c.t.rows, 3);
        auto bd = vector_of(b), xd = vector_of(std::vector<double>(b.size(), 0.0));
        device->solve(*bd, *xd);
        EXPECT_EQ(down(*xd), b);

        auto host = bc::make_colorset_trisolve(
            prism::backend::SplitTriangle(c.t, c.triangle, precision), layout, nullptr);
        EXPECT_EQ(device->layout(), host->layout());
        EXPECT_EQ(device->algorithm(), host->algorithm());
        EXPECT_EQ(device->rows(), host->rows());
        EXPECT_EQ(device->nnz(), host->nnz());
        // Values from device memory (update_values_on_backend, both).
        const std::vector<double> v = triangle_values(c.t, c.triangle, 11);
        const k::DeviceBuffer<double> dv = k::upload_and_wait(v, nullptr);
        host->update_values_on_backend(dv.data());
        device->update_values_on_backend(dv.data());
        expect_same_solves(*host, *device, c.t.rows, 21);
        // From the host (update_values, both).
        const std::vector<double> w = triangle_values(c.t, c.triangle, 12);
        host->update_values(w);
        device->update_values(w);
        expect_same_solves(*host, *device, c.t.rows, 31);
      }
    }
  }
}

// Host values the host-made solve refuses, the device-made one refuses with its message.
TEST(CudaDeviceOperators, ColorsetFromDeviceChecksHostValuesAsHostMade) {
  PRISM_SKIP_WITHOUT_GPU();
  const CsrMatrix<double> lower = random_lower(33, 3, 5);
  for (const Precision precision : {Precision::fp64, Precision::mixed}) {
    const prism::backend::TrisolveSpec spec{prism::TrisolveAlgorithm::colorset, precision,
                                            ColorsetLayout::automatic};
    auto host = bc::make_colorset_trisolve(
        prism::backend::SplitTriangle(lower, Triangle::lower, precision), spec.layout, nullptr);
    auto device = from_device(lower, Triangle::lower, spec);
    std::vector<double> zero_diagonal = triangle_values(lower, Triangle::lower, 4);
    zero_diagonal[lower.row_ptr[8] - 1] = 0.0;  // the diagonal of row 8 (1-based)
    std::vector<double> huge = triangle_values(lower, Triangle::lower, 4);
    huge[lower.row_ptr[20]] = 1e300;  // a strict entry of row 21 (1-based), beyond a float
    const auto message = [](auto& solver, const std::vector<double>& values) -> std::string {
      try {
        solver.update_values(values);
      } catch (const prism::Error& e) {
        return e.what();
      }
      return "no error";
    };
    for (const std::vector<double>& values :
         {zero_diagonal, huge, std::vector<double>(lower.col_idx.size() - 1, 1.0)}) {
      EXPECT_EQ(message(*device, values), message(*host, values));
    }
  }
}

/// The host-made SpMV matrix (make_matrix) and the one from the device pattern.
struct MatrixPair {
  std::unique_ptr<bc::CudaMatrix> host;
  std::unique_ptr<prism::backend::Matrix> device;
};

void expect_same_products(const MatrixPair& m, index_t rows, index_t cols, unsigned seed) {
  const auto& device = dynamic_cast<const bc::CudaMatrix&>(*m.device);
  const std::vector<double> x = prism::test::random_vector(cols, seed);
  auto xh = vector_of(x), yh = vector_of(std::vector<double>(rows, 0.0));
  auto xd = vector_of(x), yd = vector_of(std::vector<double>(rows, 0.0));
  m.host->multiply(*xh, *yh);
  device.multiply(*xd, *yd);
  EXPECT_EQ(down(*yd), down(*yh));
  if (rows != cols) return;  // the column operations take square matrices (blocks of rows)
  const std::vector<double> x3 = prism::test::random_vector(3 * rows, seed + 1);
  const Columns set(rows, {0, 2});
  auto xh3 = vector_of(x3), yh3 = vector_of(x3), xd3 = vector_of(x3), yd3 = vector_of(x3);
  m.host->multiply_columns(*xh3, *yh3, set);
  device.multiply_columns(*xd3, *yd3, set);
  EXPECT_EQ(down(*yd3), down(*yh3));
}

// The SpMV matrix from the device pattern picks what make_matrix picks and multiplies as
// it does bit for bit, after the same values: device values in CSR order (no map), device
// values through a map, host values; zero before any.
TEST(CudaDeviceOperators, MatrixFromDeviceMultipliesAsHostMade) {
  PRISM_SKIP_WITHOUT_GPU();
  std::vector<std::pair<std::string, CsrMatrix<double>>> cases{
      {"1 row", prism::test::diagonal_only(1)},
      {"33 rows, random", prism::test::random_symmetric(33, 60, 2)},
      {"empty rows", with_empty_rows(50)},
      {"block diagonal, blocks of 3", block_diagonal_lower(70, 3)},
      {"rectangular", prism::csr_from_triplets(5, 9, {{0, 8, 1.0}, {2, 0, 1.0}, {4, 4, 1.0}})},
      {"elasticity nodes, colored", colored_elasticity(5, 4, 3)}};
  for (const auto& [nx, ny, nz] : {std::tuple{3, 2, 3}, std::tuple{8, 7, 6}}) {
    const prism::precond::BlockSweeps s = elasticity_sweeps(nx, ny, nz);
    const std::string name = "elasticity " + std::to_string(nx * ny * nz) + " nodes, ";
    cases.push_back({name + "F", s.forward_diagonal});
    cases.push_back({name + "B", s.backward_diagonal});
  }
  const bc::SparseHandle handle = bc::make_sparse_handle(nullptr);
  for (const auto& [name, a] : cases) {
    for (const SpmvAlgorithm algorithm :
         {SpmvAlgorithm::automatic, SpmvAlgorithm::csr_vector, SpmvAlgorithm::sell,
          SpmvAlgorithm::cusparse, SpmvAlgorithm::bsr}) {
      SCOPED_TRACE(name + ", " + std::string(prism::to_string(algorithm)));
      MatrixPair m{std::make_unique<bc::CudaMatrix>(a, algorithm, handle.get(), nullptr),
                   bc::make_cuda_matrix_from_device(
                       a.rows, a.cols, k::upload_and_wait(a.row_ptr, nullptr),
                       k::upload_and_wait(a.col_idx, nullptr), algorithm, handle.get(), nullptr)};
      EXPECT_EQ(m.device->algorithm(), m.host->algorithm());
      EXPECT_EQ(m.device->rows(), m.host->rows());
      EXPECT_EQ(m.device->nnz(), m.host->nnz());
      {  // zero before any values
        auto x = vector_of(prism::test::random_vector(a.cols, 1));
        auto y = vector_of(std::vector<double>(a.rows, 1.0));
        dynamic_cast<const bc::CudaMatrix&>(*m.device).multiply(*x, *y);
        EXPECT_EQ(down(*y), std::vector<double>(a.rows, 0.0));
      }
      const std::vector<double> v = prism::test::random_vector(a.nnz(), 5);
      const k::DeviceBuffer<double> dv = k::upload_and_wait(v, nullptr);
      m.host->update_values(v);
      m.device->update_values(prism::backend::SourceValues{dv.data(), nullptr});
      expect_same_products(m, a.rows, a.cols, 7);
      // Through a map: entry k of the CSR order is given at nnz - 1 - k.
      const std::vector<double> w = prism::test::random_vector(a.nnz(), 6);
      std::vector<double> reversed(w.rbegin(), w.rend());
      std::vector<index_t> map(w.size());
      for (std::size_t p = 0; p < map.size(); ++p)
        map[p] = static_cast<index_t>(map.size() - 1 - p);
      const k::DeviceBuffer<double> dr = k::upload_and_wait(reversed, nullptr);
      m.host->update_values(w);
      m.device->update_values(prism::backend::SourceValues{dr.data(), &map});
      expect_same_products(m, a.rows, a.cols, 8);
      // Host values, then device values without the map again.
      m.host->update_values(v);
      m.device->update_values(v);
      expect_same_products(m, a.rows, a.cols, 9);
      m.host->update_values(w);
      const k::DeviceBuffer<double> dw = k::upload_and_wait(w, nullptr);
      m.device->update_values(prism::backend::SourceValues{dw.data(), nullptr});
      expect_same_products(m, a.rows, a.cols, 10);
    }
  }
}

}  // namespace
