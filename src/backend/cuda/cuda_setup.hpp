#pragma once
// The cuda backend's set-up session (backend/setup.hpp): the checks and the parallel
// coloring on the GPU.

#include <prism/csr_view.hpp>

#include "backend/setup.hpp"

#include <cuda_runtime.h>

#include <memory>

namespace prism::backend::cuda {

/// A session on `a` (kept by reference: it must outlive the session), working on `stream`;
/// with `resident` (a's arrays in memory the device reads, as long-lived) its arrays are
/// copied from there instead of uploaded.
std::unique_ptr<SetupSession> make_cuda_setup_session(const CsrMatrix<double>& a,
                                                      cudaStream_t stream,
                                                      const CsrView32* resident = nullptr);

}  // namespace prism::backend::cuda
