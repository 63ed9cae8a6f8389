#pragma once
// The independent row blocks of a strict triangle (kernels::independent_blocks: a row
// starts a new block where it reads a row of the current one) found on the device from
// each row's reach (kernels/cuda/ic0_analysis.hpp: DeviceIc0Pattern's lower_reach and
// upper_reach), for both triangles at once: only the blocks' bounds come back to the host,
// not a number a row. The reference is kernels::independent_blocks (equal bounds).

#include "kernels/csr_view.hpp"

#include <cuda_runtime.h>

#include <optional>
#include <vector>

namespace prism::kernels::cuda {

/// Blocks a triangle may have for the device to find them: past this many the walk from
/// block to block (one dependent read each) costs more than the host's scan of the reaches.
inline constexpr index_t kDeviceBlocksLimit = 4096;

/// The block pointers of both strict triangles (rows + 1 bounds at most; nullopt for a
/// triangle with more than kDeviceBlocksLimit blocks).
struct DeviceBlocks {
  std::optional<std::vector<index_t>> lower, upper;
};

/// The blocks from the reaches in device memory: lower_reach[i] the largest column of
/// strict lower row i (-1 for an empty row), upper_reach[i] the smallest of strict upper
/// row i (rows for an empty one). A null reach asks nothing of its triangle (nullopt
/// back, but {0} for both where rows is 0): one triangle's blocks alone. Waits for the
/// stream once.
DeviceBlocks independent_blocks_device(const index_t* lower_reach, const index_t* upper_reach,
                                       index_t rows, cudaStream_t stream);

}  // namespace prism::kernels::cuda
