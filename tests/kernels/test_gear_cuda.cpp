// The Chronopoulos-Gear kernels (kernels/cuda/gear.hpp) against their reference twins
// (kernels/blas1.hpp) on awkward lengths: one entry, a part of a block, whole blocks and
// one more, and more entries than the fixed reduction grid covers in one sweep. The
// vectors agree to the rounding of a contracted multiply-add, the sums to that of another
// summation order. Skips without a device.

#include "common/gpu.hpp"
#include "common/test_matrices.hpp"
#include "kernels/blas1.hpp"
#include "kernels/cuda/blas1.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/gear.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace {

using prism::index_t;
using prism::kernels::cuda::DeviceBuffer;
using prism::kernels::cuda::download_and_wait;
using prism::kernels::cuda::upload_and_wait;
namespace ref = prism::kernels::reference;
namespace k = prism::kernels::cuda;

constexpr index_t kLengths[] = {1, 5, 255, 256, 257, 4099, 262144 + 3, 700001};

void expect_close(const std::vector<double>& got, const std::vector<double>& expected,
                  const std::string& what) {
  ASSERT_EQ(got.size(), expected.size()) << what;
  double scale = 0.0;
  for (const double v : expected) scale = std::max(scale, std::abs(v));
  for (std::size_t i = 0; i < got.size(); ++i) {
    ASSERT_NEAR(got[i], expected[i], 4e-16 * scale) << what << " [" << i << "]";
  }
}

double sum_tolerance(index_t n, const std::vector<double>& a, const std::vector<double>& b) {
  double bound = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) bound += std::abs(a[i] * b[i]);
  return 1e-14 * bound + 1e-300 * static_cast<double>(n);
}

TEST(GearCuda, UpdateEqualsTheReference) {
  PRISM_SKIP_WITHOUT_GPU();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  for (const index_t n : kLengths) {
    for (const bool first : {false, true}) {
      SCOPED_TRACE("n " + std::to_string(n) + (first ? ", first" : ""));
      const std::vector<double> u = prism::test::random_vector(n, 1),
                                w = prism::test::random_vector(n, 2);
      std::vector<double> p = prism::test::random_vector(n, 3),
                          s = prism::test::random_vector(n, 4),
                          x = prism::test::random_vector(n, 5),
                          r = prism::test::random_vector(n, 6);
      const double alpha = 0.37, beta = -1.25;
      DeviceBuffer<double> du = upload_and_wait(u, stream), dw = upload_and_wait(w, stream),
                           dp = upload_and_wait(p, stream), ds = upload_and_wait(s, stream),
                           dx = upload_and_wait(x, stream), dr = upload_and_wait(r, stream);
      DeviceBuffer<double> partials(k::kReductionBlocks), sums(4);
      ASSERT_EQ(cudaMemsetAsync(sums.data(), 0, 4 * sizeof(double), stream), cudaSuccess);
      k::gear_update(n, alpha, beta, first, du.data(), dw.data(), dp.data(), ds.data(), dx.data(),
                     dr.data(), partials.data(), sums.data(), 2, stream);
      const double rr = ref::gear_update(n, alpha, beta, first, u.data(), w.data(), p.data(),
                                         s.data(), x.data(), r.data());
      expect_close(download_and_wait(dp, stream), p, "p");
      expect_close(download_and_wait(ds, stream), s, "s");
      expect_close(download_and_wait(dx, stream), x, "x");
      expect_close(download_and_wait(dr, stream), r, "r");
      const std::vector<double> got = download_and_wait(sums, stream);
      EXPECT_NEAR(got[2], rr, sum_tolerance(n, r, r));
      EXPECT_EQ(got[0], 0.0);  // the other slots stay
      EXPECT_EQ(got[3], 0.0);
    }
  }
  cudaStreamDestroy(stream);
}

TEST(GearCuda, DotsEqualTheReference) {
  PRISM_SKIP_WITHOUT_GPU();
  cudaStream_t stream = nullptr;
  ASSERT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  for (const index_t n : kLengths) {
    SCOPED_TRACE("n " + std::to_string(n));
    const std::vector<double> r = prism::test::random_vector(n, 7),
                              u = prism::test::random_vector(n, 8),
                              w = prism::test::random_vector(n, 9);
    DeviceBuffer<double> dr = upload_and_wait(r, stream), du = upload_and_wait(u, stream),
                         dw = upload_and_wait(w, stream);
    DeviceBuffer<double> partials(2 * k::kReductionBlocks), sums(4);
    ASSERT_EQ(cudaMemsetAsync(sums.data(), 0, 4 * sizeof(double), stream), cudaSuccess);
    k::gear_dots(n, dr.data(), du.data(), dw.data(), partials.data(), sums.data(), 1, stream);
    double expected[2];
    ref::gear_dots(n, r.data(), u.data(), w.data(), expected);
    const std::vector<double> got = download_and_wait(sums, stream);
    EXPECT_NEAR(got[1], expected[0], sum_tolerance(n, r, u));
    EXPECT_NEAR(got[2], expected[1], sum_tolerance(n, w, u));
    EXPECT_EQ(got[0], 0.0);
    EXPECT_EQ(got[3], 0.0);
    // The device sums equal the one-vector dot's (the same grid and order), bit for bit.
    DeviceBuffer<double> single(1);
    k::dot(n, dr.data(), du.data(), partials.data(), single.data(), 0, stream);
    EXPECT_EQ(download_and_wait(single, stream)[0], got[1]);
  }
  cudaStreamDestroy(stream);
}

}  // namespace
