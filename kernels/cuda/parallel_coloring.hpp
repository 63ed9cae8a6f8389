#pragma once
// Device twin of kernels/parallel_coloring.hpp.

#include "kernels/csr_view.hpp"
#include "kernels/parallel_coloring.hpp"

#include <cuda_runtime.h>

namespace prism::kernels::cuda {

/// colors = reference::jones_plassmann_coloring(a, colors) on device arrays (`colors`: a.rows
/// ints in device memory); returns the number of colors. One thread per vertex; a
/// Jones-Plassmann round is two launches (who is a local maximum, then its color) and a
/// readback of the vertices left, a recoloring pass one launch per class and a readback of
/// the colors it needs. Synchronizes `stream`.
int jones_plassmann_coloring(const CsrView<double>& a, int* colors, cudaStream_t stream);

/// reference::ordered_greedy_coloring(a, rank, round_limit, colors) on device arrays (`rank`
/// in device memory or nullptr, `colors` a.rows ints). One thread per vertex counts its
/// earlier neighbours; an ordered round is one launch over the front (a worklist), rounds
/// go in batches of 32 between readbacks of the next front's size. Synchronizes `stream`.
GreedyColoring ordered_greedy_coloring(const CsrView<double>& a, const index_t* rank,
                                       int round_limit, int* colors, cudaStream_t stream);

}  // namespace prism::kernels::cuda
