// The IC(0) factor whose analysis runs on the device, from P A P^T kept there
// (Backend::make_ic0_factor_on_backend, a DeviceOrdered), against the factor made from
// the host analysis (precond::Ic0Pattern, Backend::make_ic0_factor): the same layout, the
// same factorization of the caller's values in device memory (through the map of the
// ordered entries to the caller's, as the Solver passes it) and the same solves, halves
// and (r, z), bit for bit, for every layout and precision. Skipped without a GPU.

#include "backend/cuda_test_support.hpp"
#include "backend/ic0_analysis_cases.hpp"
#include "precond/ic0_pattern.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace {

using prism::index_t;
using prism::backend::Ic0Factor;
using prism::backend::Scalar;
using prism::backend::Triangle;
using prism::test::CudaBackendTest;
using prism::test::DeviceValues;
using prism::test::random_vector;

class DeviceIc0FactorTest : public CudaBackendTest {
 protected:
  /// Loads the caller's values through `source` and factors them without a shift.
  void factor(Ic0Factor& engine, const DeviceValues& values, const std::vector<index_t>& source) {
    engine.load(prism::backend::SourceValues{values.data(), &source});
    const prism::kernels::Ic0Status status = engine.attempt(0.0);
    ASSERT_TRUE(status.ok()) << "row " << status.failed_row << ", pivot " << status.pivot;
    engine.finish();
  }
  /// The engine's outputs on one right-hand side: both solves, the halves, and the halves
  /// with the dot (r, z) where it forms one, the dot last.
  std::vector<std::vector<double>> outputs(Ic0Factor& engine, index_t rows) {
    const std::vector<double> nan(static_cast<std::size_t>(rows), std::nan(""));
    auto r = both(random_vector(rows, 41));
    auto y = both(nan), z = both(nan), work = both(nan), halves = both(nan);
    engine.solve(Triangle::lower, *r.g, *y.g);
    engine.solve(Triangle::upper, *y.g, *z.g);
    engine.forward(*r.g, *work.g, *halves.g, std::nullopt);
    engine.backward(*r.g, *work.g, *halves.g, std::nullopt);
    std::vector<std::vector<double>> out{host(*gpu, *y.g), host(*gpu, *z.g), host(*gpu, *halves.g)};
    if (engine.forms_dot()) {
      auto dotted = both(nan);
      engine.forward(*r.g, *work.g, *dotted.g, Scalar::rz_new);
      engine.backward(*r.g, *work.g, *dotted.g, Scalar::rz_new);
      out.push_back(host(*gpu, *dotted.g));
      out.push_back({gpu->read_scalars()[static_cast<int>(Scalar::rz_new)]});
    }
    return out;
  }
};

TEST_F(DeviceIc0FactorTest, SolvesAsTheHostAnalysisFactor) {
  for (const prism::test::OrderedCase& c : prism::test::ordered_cases()) {
    const prism::backend::cuda::DeviceOrdered kept = prism::test::upload_ordered(c);
    const DeviceValues values(c.original.values);
    for (auto layout : {prism::ColorsetLayout::csr, prism::ColorsetLayout::sell,
                        prism::ColorsetLayout::automatic}) {
      for (auto precision : {prism::Precision::fp64, prism::Precision::mixed}) {
        SCOPED_TRACE(c.name + ", " + std::string(prism::to_string(layout)) + ", " +
                     std::string(prism::to_string(precision)));
        const prism::backend::TrisolveSpec spec{prism::TrisolveAlgorithm::automatic, precision,
                                                layout};
        prism::precond::Ic0Pattern pattern(c.ordered);
        auto from_host = gpu->make_ic0_factor(pattern.lower(), pattern.upper(),
                                              pattern.upper_source(), pattern.lower_source(), spec);
        auto from_device = gpu->make_ic0_factor_on_backend(kept, spec);
        EXPECT_EQ(from_device->layout(), from_host->layout());
        if (layout != prism::ColorsetLayout::automatic) {
          EXPECT_EQ(from_device->layout(), prism::to_string(layout));
        }
        EXPECT_EQ(from_device->forms_dot(), from_host->forms_dot());
        EXPECT_EQ(from_device->apply_bytes_saved(), from_host->apply_bytes_saved());
        factor(*from_host, values, c.source);
        factor(*from_device, values, c.source);
        // Copied and computed alike: equal bit for bit (NaN nowhere: every row is written).
        EXPECT_EQ(outputs(*from_device, c.ordered.rows), outputs(*from_host, c.ordered.rows));
      }
    }
  }
}

// A factor refactored with new values (the refactor's load of the caller's values again)
// and the host copy of the maps it composed on the device: the same as the host
// analysis's factor refactored alike.
TEST_F(DeviceIc0FactorTest, RefactorsAsTheHostAnalysisFactor) {
  const std::vector<prism::test::OrderedCase> cases = prism::test::ordered_cases();
  const auto found = std::find_if(cases.begin(), cases.end(), [](const auto& c) {
    return c.name == "poisson3d 27-point 10^3, color";
  });
  ASSERT_NE(found, cases.end());
  const prism::test::OrderedCase& c = *found;
  const prism::backend::cuda::DeviceOrdered kept = prism::test::upload_ordered(c);
  const prism::backend::TrisolveSpec spec{prism::TrisolveAlgorithm::automatic,
                                          prism::Precision::fp64, prism::ColorsetLayout::sell};
  prism::precond::Ic0Pattern pattern(c.ordered);
  auto from_host = gpu->make_ic0_factor(pattern.lower(), pattern.upper(), pattern.upper_source(),
                                        pattern.lower_source(), spec);
  auto from_device = gpu->make_ic0_factor_on_backend(kept, spec);
  DeviceValues values(c.original.values);
  factor(*from_host, values, c.source);
  factor(*from_device, values, c.source);
  std::vector<double> doubled = c.original.values;
  for (double& v : doubled) v *= 2.0;
  values.write(doubled);
  factor(*from_host, values, c.source);
  factor(*from_device, values, c.source);
  EXPECT_EQ(outputs(*from_device, c.ordered.rows), outputs(*from_host, c.ordered.rows));
}

}  // namespace
