#pragma once
// Reading device buffers back in GPU tests: a failed copy is a test failure (EXPECT), not
// an exception, so the test goes on to report what else differs.

#include "kernels/cuda/device_memory.hpp"

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <vector>

namespace prism::test {

/// A host copy of `d` (cudaMemcpy: after the work queued on the default stream).
template <typename T>
std::vector<T> download(const kernels::cuda::DeviceBuffer<T>& d) {
  std::vector<T> h(d.size());
  if (!h.empty()) {
    EXPECT_EQ(cudaMemcpy(h.data(), d.data(), h.size() * sizeof(T), cudaMemcpyDeviceToHost),
              cudaSuccess);
  }
  return h;
}

}  // namespace prism::test
