#pragma once
// How the staged IC(0) kernel (kernels/cuda/ic0.hpp, Ic0Method::staged) takes a block of
// rows: how many rows a warp and how much shared memory, planned on the host from the
// pattern alone. Host code, so it is built and tested without CUDA.

#include "kernels/csr_view.hpp"

#include <cstddef>

namespace prism::kernels::cuda {

/// Ic0Method::staged runs one warp a block.
inline constexpr int kIc0StagedThreads = 32;

/// Ic0Method::staged's shared memory per warp, at most: a warp takes as many rows (up to
/// 32) as fit (ic0_staged_bytes: 30 bytes an entry, 38 scaling, 10 a pair). The walk is
/// latency-bound, so more warps of fewer rows keep an SM as busy: half of the 48 KiB a
/// block may take without an opt-in pays on bcsstk13's refactor (blocks of ~50 rows of up
/// to 78 entries, 8 shift retries) and costs 27-point grids nothing.
inline constexpr std::size_t kIc0StagedSharedBytes = 24 * 1024;

/// Ic0Method::staged's entries per lane, at most, where a warp takes more than one row:
/// fewer rows a warp give each row more lanes for its runs (and the SM more warps). Of 2,
/// 4 and 8, 2 does best on 27-point grids, bcsstk13 and elasticity3d, and any limit beats
/// none (kIc0StagedSharedBytes alone).
inline constexpr index_t kIc0StagedLaneEntries = 2;

/// How Ic0Method::staged takes a block of rows: `rows_per_warp` consecutive rows a warp
/// (a power of two up to 32), with room for `entries` entries of L and `pairs` matches
/// (the most any warp's rows have); rows_per_warp = 0: not even one row fits.
struct Ic0Staging {
  int rows_per_warp = 0;
  index_t entries = 0;
  index_t pairs = 0;
};

/// The shared memory Ic0Method::staged takes for `entries` entries and `pairs` matches,
/// with `scaling` (Ic0Source) 8 bytes more an entry.
std::size_t ic0_staged_bytes(index_t entries, index_t pairs, bool scaling = false);

/// The rows a warp ic0_staging weighs: 32 >> j for j < kIc0StagingChoices (32 down to 1).
inline constexpr int kIc0StagingChoices = 6;

/// ic0_staging from the extents of a block's groups of rows: extents[2 j] the most entries
/// and extents[2 j + 1] the most matches of a group of 32 >> j rows (the device finds them
/// for all blocks at once: kernels/cuda/ic0_analysis.hpp, ic0_staging_extents).
Ic0Staging ic0_staging_pick(const index_t* extents);

/// The most rows a warp (up to 32) for which rows [begin, end) fit kIc0StagedSharedBytes
/// (without the scaling's share) and, unless it is one row, hold at most 32 *
/// kIc0StagedLaneEntries entries, from host copies of L's row_ptr and of the match
/// table's ptr.
Ic0Staging ic0_staging(const index_t* row_ptr, const index_t* match_ptr, index_t begin,
                       index_t end);

}  // namespace prism::kernels::cuda
