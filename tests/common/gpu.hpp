#pragma once
// GPU tests skip cleanly where there is no CUDA device (CI, developer machines).

#include <gtest/gtest.h>

#include "kernels/cuda/device_info.hpp"

#define PRISM_SKIP_WITHOUT_GPU()                          \
  do {                                                    \
    if (prism::kernels::cuda::device_count() == 0) {      \
      GTEST_SKIP() << "no CUDA device: GPU test skipped"; \
    }                                                     \
  } while (0)
