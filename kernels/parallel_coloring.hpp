#pragma once
// A parallel graph coloring: Jones-Plassmann (Jones & Plassmann 1993) with hash
// priorities, then iterated greedy recoloring (Culberson 1992). In a round, every
// uncoloured vertex that outranks all its uncoloured neighbours takes the smallest color
// no coloured neighbour has (no two of them are adjacent, so a round is one parallel step).
// A recoloring pass then visits the color classes from the last to the first and gives
// every vertex of a class the smallest color none of its already recolored neighbours has:
// a class is an independent set, so it recolors in one parallel step, and the pass is
// sequential greedy in that vertex order, which never needs more colors than it started
// with. The priorities are a fixed hash of the index, so the reference below and the CUDA
// twin (kernels/cuda/parallel_coloring.hpp) give the same coloring.

#include "kernels/csr_view.hpp"

#include <prism/types.hpp>

#include <cstdint>

#if defined(__CUDACC__)
#define PRISM_COLORING_HD __host__ __device__
#else
#define PRISM_COLORING_HD
#endif

namespace prism::kernels {

/// Recoloring passes at most; they stop early when a pass saves no color.
inline constexpr int kRecolorPasses = 3;

/// A vertex's priority: a 32-bit integer mix of its index (lowbias32, C. Wellons), so
/// neighbours in a mesh numbering get unrelated priorities.
PRISM_COLORING_HD inline std::uint32_t coloring_priority(index_t v) {
  auto x = static_cast<std::uint32_t>(v);
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

/// Whether u is coloured before its neighbour v in a Jones-Plassmann round: the higher
/// priority, and of equal priorities the larger index.
PRISM_COLORING_HD inline bool outranks(index_t u, index_t v) {
  const std::uint32_t pu = coloring_priority(u), pv = coloring_priority(v);
  return pu > pv || (pu == pv && u > v);
}

}  // namespace prism::kernels

namespace prism::kernels::reference {

/// colors[i] of every row i of `a` (a structurally symmetric pattern; the diagonal and the
/// values are not read): Jones-Plassmann rounds, then up to kRecolorPasses recoloring
/// passes. Returns the number of colors (0 for no rows).
int jones_plassmann_coloring(const CsrView<double>& a, int* colors);

}  // namespace prism::kernels::reference
