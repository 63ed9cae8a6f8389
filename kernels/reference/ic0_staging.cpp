#include "kernels/ic0_staging.hpp"

#include <algorithm>
#include <cstdint>

namespace prism::kernels::cuda {

std::size_t ic0_staged_bytes(index_t entries, index_t pairs, bool scaling) {
  const auto e = static_cast<std::size_t>(entries), q = static_cast<std::size_t>(pairs);
  return kIc0StagedThreads * sizeof(double) + (kIc0StagedThreads + 1) * sizeof(index_t) +
         e * ((scaling ? 3 : 2) * sizeof(double) + 3 * sizeof(index_t)) + q * sizeof(double) +
         (e / 2 + 2 + q / 2 + 2) * sizeof(std::uint32_t);
}

Ic0Staging ic0_staging_pick(const index_t* extents) {
  for (int j = 0; j < kIc0StagingChoices; ++j) {
    const Ic0Staging s{kIc0StagedThreads >> j, extents[2 * j], extents[2 * j + 1]};
    const bool few_entries =
        s.rows_per_warp == 1 || s.entries <= kIc0StagedThreads * kIc0StagedLaneEntries;
    if (few_entries && ic0_staged_bytes(s.entries, s.pairs) <= kIc0StagedSharedBytes) return s;
  }
  return {};
}

Ic0Staging ic0_staging(const index_t* row_ptr, const index_t* match_ptr, index_t begin,
                       index_t end) {
  index_t extents[2 * kIc0StagingChoices] = {};
  for (int j = 0; j < kIc0StagingChoices; ++j) {
    const index_t r = kIc0StagedThreads >> j;
    for (index_t i = begin; i < end; i += r) {
      const index_t i1 = end - i < r ? end : i + r;
      extents[2 * j] = std::max(extents[2 * j], row_ptr[i1] - row_ptr[i]);
      extents[2 * j + 1] =
          std::max(extents[2 * j + 1], match_ptr[row_ptr[i1]] - match_ptr[row_ptr[i]]);
    }
  }
  return ic0_staging_pick(extents);
}

}  // namespace prism::kernels::cuda
