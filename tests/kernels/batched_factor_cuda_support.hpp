#pragma once
// What the CUDA batched factorization tests share: batches on the host and the device
// (strided or by pointer array, padded with kSentinel), host work on all cores, and
// per-matrix verdicts reported as one failure.

#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "kernels/batched_factor_test_matrices.hpp"
#include "kernels/cuda/batched_factor.hpp"
#include "kernels/cuda/device_memory.hpp"

namespace prism::test::batched {

namespace ref = prism::kernels::reference;
namespace gpu = prism::kernels::cuda;
using gpu::DeviceBuffer;
using gpu::DeviceMatrixBatch;

inline void device_sync() {
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
}

template <typename T>
void upload(DeviceBuffer<T>& d, const std::vector<T>& h) {
  ASSERT_EQ(h.size(), d.size());
  d.upload(h.data(), nullptr);
  device_sync();
}

// f(0), ..., f(count - 1) on all cores; f must be thread-safe (no gtest assertions).
template <typename F>
void parallel_for(index_t count, F f) {
  const index_t threads =
      std::min<index_t>(count, std::max(1u, std::thread::hardware_concurrency()));
  if (threads <= 1) {
    for (index_t b = 0; b < count; ++b) f(b);
    return;
  }
  std::atomic<index_t> next{0};
  std::vector<std::thread> pool;
  for (index_t t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      for (index_t b = next++; b < count; b = next++) f(b);
    });
  }
  for (auto& th : pool) th.join();
}

// A host batch (strided, padded with kSentinel) and its device copy, optionally with a
// pointer array.
template <typename T>
struct Batch {
  index_t n = 0, lda = 0, count = 0;
  std::int64_t stride = 0;
  std::vector<T> host;
  DeviceBuffer<T> dev;
  DeviceBuffer<T*> ptrs;
  bool pointer_array = false;

  Batch(Kind kind, index_t n_, index_t lda_, index_t count_, bool use_pointers, std::uint64_t seed)
      : n(n_), lda(lda_), count(count_), pointer_array(use_pointers) {
    stride = static_cast<std::int64_t>(lda) * n + 5;  // not a multiple of lda on purpose
    host.assign(static_cast<std::size_t>(stride) * count, kSentinel<T>);
    parallel_for(count, [&](index_t b) {
      const Mat<T> m = make_matrix<T>(kind, n, b, seed);
      for (index_t j = 0; j < n; ++j) {
        for (index_t i = 0; i < n; ++i)
          host[b * stride + i + static_cast<std::int64_t>(j) * lda] = m(i, j);
      }
    });
    dev = DeviceBuffer<T>(host.size());
    reset();
    if (pointer_array) {
      std::vector<T*> p(count);
      for (index_t b = 0; b < count; ++b) p[b] = dev.data() + b * stride;
      ptrs = DeviceBuffer<T*>(count);
      upload(ptrs, p);
    }
  }
  // Device copy back to the original matrices.
  void reset() { upload(dev, host); }
  DeviceMatrixBatch<T> view() {
    return pointer_array ? DeviceMatrixBatch<T>::pointer_array(ptrs.data(), lda)
                         : DeviceMatrixBatch<T>::strided(dev.data(), lda, stride);
  }
  Mat<T> matrix(const std::vector<T>& data, index_t b) const {
    Mat<T> m(n, n);
    for (index_t j = 0; j < n; ++j) {
      for (index_t i = 0; i < n; ++i)
        m(i, j) = data[b * stride + i + static_cast<std::int64_t>(j) * lda];
    }
    return m;
  }
  // The first entry of matrix b's padding or trailing gap that is not the sentinel, or -1.
  std::int64_t touched_padding(const std::vector<T>& data, index_t b) const {
    for (std::int64_t e = 0; e < stride; ++e) {
      const std::int64_t i = e % lda, j = e / lda;
      if ((i >= n || j >= n) && data[b * stride + e] != kSentinel<T>) return e;
    }
    return -1;
  }
};

template <typename T>
double relative_difference(const Mat<T>& x, const Mat<T>& y) {
  const double ny = y.template cast<double>().norm();
  const double d = (x.template cast<double>() - y.template cast<double>()).norm();
  return ny > 0 ? d / ny : d;
}

// Matrices whose O(n^3) backward error is checked even where the factors match the
// reference's: all for n <= 32, else the first 8 and the last (first and last for n > 128).
inline bool in_sample(index_t n, index_t b, index_t count) {
  if (n <= 32) return true;
  return b == count - 1 || b < (n > 128 ? 1 : 8);
}

// Per-matrix outcome, computed on worker threads and asserted on the test thread.
struct Verdict {
  std::string failure;  // empty: the matrix passed
};

// Reports the first few failures of a batch (each with its matrix index) as one failure.
inline void report(const std::vector<Verdict>& verdicts) {
  std::ostringstream msg;
  int failed = 0;
  for (std::size_t b = 0; b < verdicts.size(); ++b) {
    if (verdicts[b].failure.empty()) continue;
    if (failed < 5) msg << "\n  matrix " << b << ": " << verdicts[b].failure;
    ++failed;
  }
  EXPECT_EQ(failed, 0) << failed << " of " << verdicts.size() << " matrices failed:" << msg.str();
}

}  // namespace prism::test::batched
