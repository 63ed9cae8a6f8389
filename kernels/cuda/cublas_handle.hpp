#pragma once
/// @file
/// The cuBLAS handle prism's own kernels use where they call a vendor routine (the GEMM
/// updates of the blocked trsm). cuBLAS asks for one handle per host thread and device,
/// and creating one costs far more than a small call, so it is made on first use and kept
/// until the thread exits. Callers set the stream on it before every use.

#include <cublas_v2.h>

namespace prism::kernels::cuda {

/// The calling thread's handle for the current device (pointer mode host). Throws
/// BackendError when cuBLAS cannot create it.
cublasHandle_t thread_cublas_handle();

}  // namespace prism::kernels::cuda
