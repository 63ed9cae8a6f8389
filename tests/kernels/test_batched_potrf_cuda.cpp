// CUDA batched potrf (every configuration, SPD and not) and potrs against the reference.
// The checks and their bounds: test_batched_factor_cuda.cpp and
// batched_factor_cuda_checks.hpp. Skips without a device.

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cstdint>
#include <vector>

#include "common/device_copy.hpp"
#include "common/gpu.hpp"
#include "kernels/batched_factor_cuda_checks.hpp"

namespace {

using namespace prism::test::batched;
using prism::test::download;

TEST(BatchedFactorCuda, PotrfSpdIsEquivalentToReferenceDouble) {
  PRISM_SKIP_WITHOUT_GPU();
  run_potrf<double>(Kind::spd);
}
TEST(BatchedFactorCuda, PotrfSpdIsEquivalentToReferenceFloat) {
  PRISM_SKIP_WITHOUT_GPU();
  run_potrf<float>(Kind::spd);
}
TEST(BatchedFactorCuda, PotrfNotSpdReportsInfoDouble) {
  PRISM_SKIP_WITHOUT_GPU();
  run_potrf<double>(Kind::not_spd);
}
TEST(BatchedFactorCuda, PotrfNotSpdReportsInfoFloat) {
  PRISM_SKIP_WITHOUT_GPU();
  run_potrf<float>(Kind::not_spd);
}

template <typename T>
void check_potrs(index_t n, index_t nrhs, index_t count) {
  SCOPED_TRACE(::testing::Message() << "potrs n=" << n << " nrhs=" << nrhs << " batch=" << count
                                    << " " << sizeof(T) * 8 << "-bit");
  Batch<T> bt(Kind::spd, n, n, count, false, 29);
  DeviceBuffer<index_t> d_info(count);
  gpu::potrf_batched(n, bt.view(), d_info.data(), count, nullptr);
  const std::int64_t stride_b = static_cast<std::int64_t>(n) * nrhs;
  const std::vector<T> rhs = random_rhs<T>(static_cast<std::size_t>(stride_b) * count, 7);
  DeviceBuffer<T> d_b(rhs.size());
  upload(d_b, rhs);
  gpu::potrs_batched(n, nrhs, bt.view(), DeviceMatrixBatch<T>::strided(d_b.data(), n, stride_b),
                     count, nullptr);
  device_sync();
  const auto x = download(d_b);
  for (index_t b = 0; b < count; ++b) {
    const Eigen::Map<const Mat<T>> bm(rhs.data() + b * stride_b, n, nrhs);
    const Eigen::Map<const Mat<T>> xm(x.data() + b * stride_b, n, nrhs);
    const Mat<double> a = bt.matrix(bt.host, b).template cast<double>();
    const Mat<double> xd = xm.template cast<double>();
    EXPECT_LE((a * xd - bm.template cast<double>()).norm() / (a.norm() * xd.norm()),
              8.0 * n * unit_roundoff<T>())
        << "matrix " << b;
  }
}

TEST(BatchedFactorCuda, PotrsSolves) {
  PRISM_SKIP_WITHOUT_GPU();
  for (index_t n : {1, 7, 32, 33, 64, 100, 255, 512}) {
    for (index_t nrhs : {1, 3, 17}) {
      check_potrs<double>(n, nrhs, 3);
      check_potrs<float>(n, nrhs, 3);
    }
  }
}

}  // namespace
