#pragma once
// Checked CUDA, cuSPARSE and cuBLAS calls: a failure throws prism::BackendError naming
// the call, the source file and line, and the library's error string.

#include <prism/errors.hpp>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <string>

namespace prism::kernels::cuda {

[[noreturn]] inline void throw_backend_error(const char* library, const char* call,
                                             const char* file, int line, const std::string& what) {
  throw BackendError(std::string(library) + " call '" + call + "' failed at " + file + ":" +
                     std::to_string(line) + ": " + what);
}

}  // namespace prism::kernels::cuda

#define PRISM_CUDA_CHECK(call)                                                        \
  do {                                                                                \
    const cudaError_t prism_status_ = (call);                                         \
    if (prism_status_ != cudaSuccess) {                                               \
      ::prism::kernels::cuda::throw_backend_error("CUDA", #call, __FILE__, __LINE__,  \
                                                  cudaGetErrorString(prism_status_)); \
    }                                                                                 \
  } while (0)

/// After a kernel launch: launch-configuration errors surface here, not later.
#define PRISM_CUDA_CHECK_LAUNCH() PRISM_CUDA_CHECK(cudaGetLastError())

#define PRISM_CUSPARSE_CHECK(call)                                                        \
  do {                                                                                    \
    const cusparseStatus_t prism_status_ = (call);                                        \
    if (prism_status_ != CUSPARSE_STATUS_SUCCESS) {                                       \
      ::prism::kernels::cuda::throw_backend_error("cuSPARSE", #call, __FILE__, __LINE__,  \
                                                  cusparseGetErrorString(prism_status_)); \
    }                                                                                     \
  } while (0)

#define PRISM_CUBLAS_CHECK(call)                                                         \
  do {                                                                                   \
    const cublasStatus_t prism_status_ = (call);                                         \
    if (prism_status_ != CUBLAS_STATUS_SUCCESS) {                                        \
      ::prism::kernels::cuda::throw_backend_error("cuBLAS", #call, __FILE__, __LINE__,   \
                                                  cublasGetStatusString(prism_status_)); \
    }                                                                                    \
  } while (0)
