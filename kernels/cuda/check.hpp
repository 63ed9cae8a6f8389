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

/// Evaluates `call` once; when its status is not `success`, throws BackendError naming
/// `library`, the call as written (`text`), the file and line, and describe(status).
#define PRISM_DETAIL_CHECK_STATUS(library, status_type, success, describe, call, text) \
  do {                                                                                 \
    const status_type prism_status_ = (call);                                          \
    if (prism_status_ != (success)) {                                                  \
      ::prism::kernels::cuda::throw_backend_error(library, text, __FILE__, __LINE__,   \
                                                  describe(prism_status_));            \
    }                                                                                  \
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
