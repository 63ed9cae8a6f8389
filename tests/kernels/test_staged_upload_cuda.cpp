// The staged upload (kernels/cuda/staged_upload.hpp) against its source: every byte
// arrives, none past the end is written, on sizes around the chunk (0, 1, chunk - 1, chunk,
// chunk + 1, several chunks wrapping the lanes' buffers) through small staging buffers that
// split elements, on the default plan around its threshold, with the source overwritten
// right after the call, and from two threads at once. Skips without a device.

#include "common/gpu.hpp"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/staged_upload.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace k = prism::kernels::cuda;

constexpr unsigned char kSentinel = 0xa5;
constexpr std::size_t kMargin = 13;  // bytes before and after the target, left alone

std::vector<unsigned char> random_bytes(std::size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<unsigned char> bytes(n);
  for (unsigned char& b : bytes) b = static_cast<unsigned char>(rng());
  return bytes;
}

/// Uploads `bytes` random bytes through `plan` to a device buffer kMargin bytes into one
/// filled with kSentinel, scribbles over the source at once, and returns what the buffer
/// holds against what it should ("" when equal).
std::string upload_and_compare(std::size_t bytes, const k::StagingPlan& plan, cudaStream_t stream,
                               unsigned seed) {
  const std::vector<unsigned char> want = random_bytes(bytes, seed);
  std::vector<unsigned char> source = want;
  k::DeviceBuffer<unsigned char> device(bytes + 2 * kMargin);
  PRISM_CUDA_CHECK(cudaMemsetAsync(device.data(), kSentinel, device.size(), stream));
  k::staged_upload_bytes(device.data() + kMargin, source.data(), bytes, stream, plan);
  std::fill(source.begin(), source.end(), static_cast<unsigned char>(~kSentinel));
  const std::vector<unsigned char> got = k::download_and_wait(device, stream);
  for (std::size_t i = 0; i < got.size(); ++i) {
    const bool inside = i >= kMargin && i < kMargin + bytes;
    const unsigned char expected = inside ? want[i - kMargin] : kSentinel;
    if (got[i] != expected) {
      return "byte " + std::to_string(i) + " of " + std::to_string(got.size()) + " is " +
             std::to_string(got[i]) + ", not " + std::to_string(expected);
    }
  }
  return "";
}

TEST(StagedUploadCuda, AwkwardSizesArriveBitEqual) {
  PRISM_SKIP_WITHOUT_GPU();
  constexpr std::size_t chunk = 1000;  // not a multiple of 8: chunks split doubles
  cudaStream_t stream = nullptr;
  PRISM_CUDA_CHECK(cudaStreamCreate(&stream));
  for (const int lanes : {1, 3}) {
    const k::StagingPlan plan{chunk, lanes, 0};
    // 7 * chunk + 1 with 3 lanes: 8 chunks, the first lanes wrap their two buffers.
    for (const std::size_t bytes : {std::size_t{0}, std::size_t{1}, chunk - 1, chunk, chunk + 1,
                                    2 * chunk, 3 * chunk - 1, 7 * chunk + 1, 50 * chunk + 999}) {
      SCOPED_TRACE("lanes " + std::to_string(lanes) + ", bytes " + std::to_string(bytes));
      EXPECT_EQ(upload_and_compare(bytes, plan, stream, static_cast<unsigned>(bytes)), "");
    }
  }
  PRISM_CUDA_CHECK(cudaStreamDestroy(stream));
}

TEST(StagedUploadCuda, DefaultPlanCopiesDoublesBitEqual) {
  PRISM_SKIP_WITHOUT_GPU();
  // Below the threshold (straight), at it, and several default chunks and a bit (staged).
  for (const std::size_t bytes :
       {k::kStagedMinBytes - 8, k::kStagedMinBytes, 9 * k::kStagingChunkBytes + 8 * 1001}) {
    SCOPED_TRACE("bytes " + std::to_string(bytes));
    const std::size_t count = bytes / sizeof(double);
    std::vector<double> values(count);
    std::mt19937_64 rng(count);
    for (double& v : values) {  // any bit pattern, NaNs included
      const std::uint64_t bits = rng();
      std::memcpy(&v, &bits, sizeof v);
    }
    k::DeviceBuffer<double> device(count);
    k::staged_upload(device.data(), values.data(), count, nullptr);
    const std::vector<double> got = k::download_and_wait(device, nullptr);
    ASSERT_EQ(got.size(), count);
    EXPECT_EQ(std::memcmp(got.data(), values.data(), bytes), 0);
  }
}

TEST(StagedUploadCuda, TwoThreadsAtOnceBothArrive) {
  PRISM_SKIP_WITHOUT_GPU();
  const k::StagingPlan plan{4096, 2, 0};
  std::string failures[2];
  auto body = [&](int t) {
    try {
      PRISM_CUDA_CHECK(cudaSetDevice(0));
      cudaStream_t stream = nullptr;
      PRISM_CUDA_CHECK(cudaStreamCreate(&stream));
      for (int round = 0; round < 20 && failures[t].empty(); ++round) {
        failures[t] = upload_and_compare(200000 + 77 * round, plan, stream,
                                         static_cast<unsigned>(100 * t + round));
      }
      PRISM_CUDA_CHECK(cudaStreamDestroy(stream));
    } catch (const std::exception& e) {
      failures[t] = e.what();
    }
  };
  std::thread other(body, 1);
  body(0);
  other.join();
  EXPECT_EQ(failures[0], "");
  EXPECT_EQ(failures[1], "");
}

}  // namespace
