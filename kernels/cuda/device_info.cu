#include "kernels/cuda/device_info.hpp"

#include <cuda_runtime.h>

namespace prism::kernels::cuda {

int device_count() noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no device" error
    return 0;
  }
  return count;
}

}  // namespace prism::kernels::cuda
