#pragma once
// What the CUDA backend tests share: the CudaBackendTest fixture (the CUDA backend and
// the CPU reference backend side by side), values in device memory as a GPU assembly
// hands them over, and small checks.

#include <prism/errors.hpp>
#include <prism/solver.hpp>

#include "backend/backend.hpp"
#include "backend/cpu_backend.hpp"
#include "common/gpu.hpp"
#include "common/test_matrices.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <vector>

// A named namespace, not an anonymous one: every file's TEST_F(CudaBackendTest, ...) must
// see the same fixture class, or GoogleTest rejects the suite.
namespace prism::test {

using prism::backend::Backend;
using prism::backend::Scalar;

/// What `call` throws as InvalidMatrixError, or "no error".
template <typename Call>
std::string invalid_matrix_message(const Call& call) {
  try {
    call();
  } catch (const prism::InvalidMatrixError& e) {
    return e.what();
  }
  return "no error";
}

/// Values in device memory, as a GPU assembly would hand them over.
class DeviceValues {
 public:
  explicit DeviceValues(const std::vector<double>& v) : size_(v.size()) {
    EXPECT_EQ(cudaMalloc(reinterpret_cast<void**>(&data_),
                         std::max<std::size_t>(size_, 1) * sizeof(double)),
              cudaSuccess);
    EXPECT_EQ(cudaMemcpy(data_, v.data(), size_ * sizeof(double), cudaMemcpyHostToDevice),
              cudaSuccess);
    // From pageable memory cudaMemcpy may return before the copy lands, and the solver's
    // stream does not wait for the default stream: the caller's duty, as for any writer.
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  ~DeviceValues() { cudaFree(data_); }
  DeviceValues(const DeviceValues&) = delete;
  DeviceValues& operator=(const DeviceValues&) = delete;
  const double* data() const { return data_; }
  std::size_t size() const { return size_; }
  /// New contents, as a GPU assembly reusing its buffer would write them.
  void write(const std::vector<double>& v) {
    ASSERT_EQ(v.size(), size_);
    EXPECT_EQ(cudaMemcpy(data_, v.data(), size_ * sizeof(double), cudaMemcpyHostToDevice),
              cudaSuccess);
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }

 private:
  double* data_ = nullptr;
  std::size_t size_;
};

inline double max_abs_diff(const std::vector<double>& a, const std::vector<double>& b) {
  EXPECT_EQ(a.size(), b.size());
  double d = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

class CudaBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    PRISM_SKIP_WITHOUT_GPU();
    std::string choice;
    gpu = prism::backend::make_backend(prism::BackendKind::cuda, &choice);
    cpu = prism::backend::make_cpu_backend();
  }
  /// Uploads the same host vector to both backends.
  struct Pair {
    std::unique_ptr<prism::backend::Vector> g, c;
  };
  Pair both(const std::vector<double>& v) {
    Pair p{gpu->make_vector(static_cast<index_t>(v.size())),
           cpu->make_vector(static_cast<index_t>(v.size()))};
    gpu->copy_from_host(v, *p.g);
    cpu->copy_from_host(v, *p.c);
    return p;
  }
  std::vector<double> host(Backend& b, const prism::backend::Vector& v) {
    std::vector<double> out;
    b.copy_to_host(v, out);
    return out;
  }
  /// The GPU solve with `algorithm` equals the CPU reference solve on the factor t, and
  /// still does after new values arrive through update_values (the refactor path). With
  /// Precision::mixed the reference is the CPU color-set twin on the same float values.
  void expect_trisolve_matches_reference(
      const CsrMatrix<double>& t, prism::backend::Triangle tri, prism::TrisolveAlgorithm algorithm,
      unsigned seed, prism::Precision precision = prism::Precision::fp64,
      prism::ColorsetLayout layout = prism::ColorsetLayout::automatic) {
    auto sg = gpu->make_triangular_solver(t, tri, {algorithm, precision, layout});
    if (layout != prism::ColorsetLayout::automatic) {
      EXPECT_EQ(sg->layout(), prism::to_string(layout));
    }
    auto sc = cpu->make_triangular_solver(
        t, tri,
        {precision == prism::Precision::mixed ? prism::TrisolveAlgorithm::colorset
                                              : prism::TrisolveAlgorithm::reference,
         precision});
    EXPECT_EQ(sg->algorithm(), prism::to_string(algorithm));
    auto b = both(random_vector(t.rows, seed)), x = both(std::vector<double>(t.rows, 0.0));
    sg->solve(*b.g, *x.g);
    sc->solve(*b.c, *x.c);
    const auto xc = host(*cpu, *x.c);
    double scale = 1.0;
    for (double v : xc) scale = std::max(scale, std::abs(v));
    EXPECT_LE(max_abs_diff(host(*gpu, *x.g), xc), 1e-12 * scale);

    // Twice the factor: the solution halves, with the analysis reused.
    std::vector<double> doubled = t.values;
    for (double& v : doubled) v *= 2.0;
    sg->update_values(doubled);
    sg->solve(*b.g, *x.g);
    auto xg = host(*gpu, *x.g);
    for (double& v : xg) v *= 2.0;
    EXPECT_LE(max_abs_diff(xg, xc), 1e-12 * scale);
  }

  /// The engine's two halves of (L L^T)^{-1} r (folded passes with SELL) equal the two
  /// solves bit for bit; the traffic model saves bytes exactly when passes are folded;
  /// the r.z they form is within dot_tolerance * sum |r_i z_i| of the one summed here.
  void expect_halves_equal_solves(prism::backend::Ic0Factor& engine, index_t rows, unsigned seed,
                                  double dot_tolerance = 1e-12) {
    using prism::backend::Triangle;
    const std::vector<double> nan(static_cast<std::size_t>(rows), std::nan(""));
    auto r = both(random_vector(rows, seed)), work = both(nan), z = both(nan);
    auto y = both(nan), z_solves = both(nan);
    engine.forward(*r.g, *work.g, *z.g, std::nullopt);
    engine.backward(*r.g, *work.g, *z.g, std::nullopt);
    engine.solve(Triangle::lower, *r.g, *y.g);
    engine.solve(Triangle::upper, *y.g, *z_solves.g);
    const std::vector<double> zh = host(*gpu, *z_solves.g);
    EXPECT_EQ(host(*gpu, *z.g), zh);
    // The lower solve in place too (with SELL it folds the first color's inverse diagonal
    // into L and so runs that color last, when nothing reads its b any more).
    auto in_place = both(host(*gpu, *r.g));
    engine.solve(Triangle::lower, *in_place.g, *in_place.g);
    EXPECT_EQ(host(*gpu, *in_place.g), host(*gpu, *y.g));
    EXPECT_EQ(engine.apply_bytes_saved() > 0.0, engine.layout() == "sell");
    // With SELL the halves also form (r, z) as |L^{-1} r|^2 (every row's y once over the
    // two halves): the same z, and the dot to rounding.
    EXPECT_EQ(engine.forms_dot(), engine.layout() == "sell");
    if (!engine.forms_dot()) return;
    auto z_dot = both(nan);
    engine.forward(*r.g, *work.g, *z_dot.g, Scalar::rz_new);
    engine.backward(*r.g, *work.g, *z_dot.g, Scalar::rz_new);
    EXPECT_EQ(host(*gpu, *z_dot.g), zh);
    const std::vector<double> rh = host(*gpu, *r.g);
    double rz = 0.0, scale = 0.0;
    for (std::size_t i = 0; i < rh.size(); ++i) {
      rz += rh[i] * zh[i];
      scale += std::abs(rh[i] * zh[i]);
    }
    const double formed = gpu->read_scalars()[static_cast<int>(Scalar::rz_new)];
    EXPECT_GT(formed, 0.0);
    EXPECT_NEAR(formed, rz, dot_tolerance * scale);
  }

  std::unique_ptr<Backend> gpu, cpu;
};

}  // namespace prism::test
