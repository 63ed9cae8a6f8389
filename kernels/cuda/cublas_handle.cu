// One cuBLAS handle per host thread and device; see cublas_handle.hpp.

#include "kernels/cuda/cublas_handle.hpp"

#include <utility>
#include <vector>

#include "kernels/cuda/check.hpp"

namespace prism::kernels::cuda {
namespace {

struct HandleCache {
  std::vector<std::pair<int, cublasHandle_t>> handles;  // (device, handle)
  HandleCache() = default;
  HandleCache(const HandleCache&) = delete;
  HandleCache& operator=(const HandleCache&) = delete;
  // Thread-local objects are destroyed before static ones and the CUDA runtime's exit
  // handlers, so the contexts are still alive here. A failure cannot be reported any more.
  ~HandleCache() {
    for (auto& entry : handles) cublasDestroy(entry.second);
  }
};

}  // namespace

cublasHandle_t thread_cublas_handle() {
  thread_local HandleCache cache;
  int device = 0;
  PRISM_CUDA_CHECK(cudaGetDevice(&device));
  for (const auto& entry : cache.handles) {
    if (entry.first == device) return entry.second;
  }
  cublasHandle_t handle{};
  PRISM_CUBLAS_CHECK(cublasCreate(&handle));
  cache.handles.emplace_back(device, handle);
  return handle;
}

}  // namespace prism::kernels::cuda
