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
/// in device memory or nullptr, `colors` a.rows ints). One launch colors the whole order as
/// a dataflow: a vertex is ready once its earlier neighbours have counted it off, and
/// 8-lane tiles color ready vertices from a worklist, each going on with a later neighbour
/// it made ready (no barrier or host between rounds); a second launch writes the colors
/// and their count, the rounds and whether the limit was reached, read back once. A pattern
/// that is not structurally symmetric gives a wrong coloring, never a hang. Synchronizes
/// `stream`.
GreedyColoring ordered_greedy_coloring(const CsrView<double>& a, const index_t* rank,
                                       int round_limit, int* colors, cudaStream_t stream);

}  // namespace prism::kernels::cuda
