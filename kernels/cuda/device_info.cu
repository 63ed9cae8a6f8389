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

int resident_threads() noexcept {
  int device = 0, sms = 0, per_sm = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, device) !=
          cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return sms * per_sm;
}

bool set_current_device(int device) noexcept {
  if (cudaSetDevice(device) == cudaSuccess) return true;
  cudaGetLastError();
  return false;
}

}  // namespace prism::kernels::cuda
