#pragma once
// Device twin of kernels/parallel_coloring.hpp.

#include "kernels/csr_view.hpp"

#include <cuda_runtime.h>

namespace prism::kernels::cuda {

/// colors = reference::jones_plassmann_coloring(a, colors) on device arrays (`colors`: a.rows
/// ints in device memory); returns the number of colors. One thread per vertex; a
/// Jones-Plassmann round is two launches (who is a local maximum, then its color) and a
/// readback of the vertices left, a recoloring pass one launch per class and a readback of
/// the colors it needs. Synchronizes `stream`.
int jones_plassmann_coloring(const CsrView<double>& a, int* colors, cudaStream_t stream);

}  // namespace prism::kernels::cuda
