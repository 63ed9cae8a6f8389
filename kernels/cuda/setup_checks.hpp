#pragma once
// Device twin of kernels/setup_checks.hpp.

#include "kernels/csr_view.hpp"

#include <cuda_runtime.h>

namespace prism::kernels::cuda {

/// *defects = reference::pattern_defects(a, nnz, structure, mirror) on device arrays: one
/// thread per row; the mirror pass runs only where the storage pass found nothing (the
/// kernel reads the flags itself, so nothing waits on the host). `defects`: one device int,
/// set by the call; the caller copies it back.
void pattern_defects(const CsrView<double>& a, index_t nnz, bool structure, index_t* mirror,
                     int* defects, cudaStream_t stream);

}  // namespace prism::kernels::cuda
