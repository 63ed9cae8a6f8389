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
//
// The ordered greedy coloring is Jones-Plassmann with the priorities of a vertex order:
// a vertex is colored once all its neighbours earlier in the order are, with the smallest
// color none of them has, which is exactly what sequential first fit in that order gives
// it (Boost's sequential_vertex_coloring). A round colors the vertices whose earlier
// neighbours are all colored (they are not adjacent: of two neighbours one waits for the
// other), so the rounds number the longest chain of neighbours increasing in the order:
// nx + ny + nz - 2 on a natural-order 7-point grid, but thousands on irregular graphs.
// Past a round limit the vertices left take hash-priority rounds and the result, still a
// valid coloring, gets the recoloring passes.

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

/// Rounds of the ordered greedy coloring at most by default: in natural order G3_circuit
/// needs 2,594, a 1024^2 5-point grid 2,047, a 128^3 7-point grid 382.
inline constexpr int kGreedyRoundLimit = 4096;

/// What ordered_greedy_coloring did.
struct GreedyColoring {
  int colors = 0;     ///< colors used
  int rounds = 0;     ///< ordered rounds run (that colored a vertex)
  bool exact = true;  ///< every vertex colored in order: first fit in that order exactly
};

/// Whether u comes before v in the vertex order: rank[] its positions (a permutation of
/// 0 .. n-1), nullptr for the natural order.
PRISM_COLORING_HD inline bool earlier(index_t u, index_t v, const index_t* rank) {
  return rank != nullptr ? rank[u] < rank[v] : u < v;
}

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

/// colors[i] of every row i of `a` (as above): sequential first fit in the order `rank`
/// (see earlier()), by ordered rounds; when more than `round_limit` rounds would be
/// needed, the vertices left take Jones-Plassmann rounds, then the recoloring passes run
/// (exact = false).
GreedyColoring ordered_greedy_coloring(const CsrView<double>& a, const index_t* rank,
                                       int round_limit, int* colors);

}  // namespace prism::kernels::reference
