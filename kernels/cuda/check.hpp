#pragma once
// Checked CUDA, cuSPARSE and cuBLAS calls: a failure throws prism::BackendError naming
// the call, the source file and line, and the library's error string.

#include <prism/errors.hpp>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <string>

namespace prism::kernels::cuda {

/// Whether a status says an allocation failed (the device is out of memory).
inline bool out_of_memory(cudaError_t s) {
  return s == cudaErrorMemoryAllocation;
}
inline bool out_of_memory(cusparseStatus_t s) {
  return s == CUSPARSE_STATUS_ALLOC_FAILED || s == CUSPARSE_STATUS_INSUFFICIENT_RESOURCES;
}
inline bool out_of_memory(cublasStatus_t s) {
  return s == CUBLAS_STATUS_ALLOC_FAILED;
}

[[noreturn]] inline void throw_backend_error(const char* library, const char* call,
                                             const char* file, int line, const std::string& what) {
  throw BackendError(std::string(library) + " call '" + call + "' failed at " + file + ":" +
                     std::to_string(line) + ": " + what);
}

/// DeviceMemoryError with the device memory free and in all. The failed allocation's
/// error is cleared first: it is not sticky, and a later launch check must not see it.
[[noreturn]] inline void throw_out_of_memory(const char* library, const char* call,
                                             const char* file, int line) {
  (void)cudaGetLastError();
  std::size_t free_bytes = 0, total_bytes = 0;
  std::string memory;
  if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) {
    memory = " (" + std::to_string(free_bytes >> 20) + " MiB free of " +
             std::to_string(total_bytes >> 20) + " MiB)";
  }
  (void)cudaGetLastError();
  throw DeviceMemoryError("out of device memory" + memory +
                          ": the problem is too large for "
                          "the GPU (" +
                          library + " call '" + call + "' at " + file + ":" + std::to_string(line) +
                          ")");
}

}  // namespace prism::kernels::cuda

/// Evaluates `call` once; when its status is not `success`, throws BackendError naming
/// `library`, the call as written (`text`), the file and line, and describe(status).
#define PRISM_DETAIL_CHECK_STATUS(library, status_type, success, describe, call, text)  \
  do {                                                                                  \
    const status_type prism_status_ = (call);                                           \
    if (prism_status_ != (success)) {                                                   \
      if (::prism::kernels::cuda::out_of_memory(prism_status_)) {                       \
        ::prism::kernels::cuda::throw_out_of_memory(library, text, __FILE__, __LINE__); \
      }                                                                                 \
      ::prism::kernels::cuda::throw_backend_error(library, text, __FILE__, __LINE__,    \
                                                  describe(prism_status_));             \
    }                                                                                   \
  } while (0)

#define PRISM_CUDA_CHECK(call) \
  PRISM_DETAIL_CHECK_STATUS("CUDA", cudaError_t, cudaSuccess, cudaGetErrorString, call, #call)

/// After a kernel launch: launch-configuration errors surface here, not later.
#define PRISM_CUDA_CHECK_LAUNCH() PRISM_CUDA_CHECK(cudaGetLastError())

#define PRISM_CUSPARSE_CHECK(call)                                                 \
  PRISM_DETAIL_CHECK_STATUS("cuSPARSE", cusparseStatus_t, CUSPARSE_STATUS_SUCCESS, \
                            cusparseGetErrorString, call, #call)

#define PRISM_CUBLAS_CHECK(call)                                             \
  PRISM_DETAIL_CHECK_STATUS("cuBLAS", cublasStatus_t, CUBLAS_STATUS_SUCCESS, \
                            cublasGetStatusString, call, #call)
