#include "kernels/colorset_schedule.hpp"

namespace prism::kernels::cuda {

ColorsetSchedule colorset_schedule(const index_t* host_row_ptr,
                                   const std::vector<index_t>& block_ptr) {
  ColorsetSchedule plan;
  for (std::size_t c = 0; c + 1 < block_ptr.size(); ++c) {
    const index_t begin = block_ptr[c], end = block_ptr[c + 1];
    if (end <= begin) continue;
    const double mean =
        static_cast<double>(host_row_ptr[end] - host_row_ptr[begin]) / (end - begin);
    int tpr = 1;
    while (tpr < 32 && tpr * kColorsetLaneEntries < mean) tpr *= 2;
    const index_t long_row_entries = static_cast<index_t>(kLongRowLaneEntries) * tpr;
    const auto long_begin = static_cast<index_t>(plan.long_rows.size());
    for (index_t row = begin; row < end; ++row) {
      if (host_row_ptr[row + 1] - host_row_ptr[row] > long_row_entries) {
        plan.long_rows.push_back(row);
      }
    }
    plan.steps.push_back({begin, end, tpr, long_row_entries, long_begin,
                          static_cast<index_t>(plan.long_rows.size())});
  }
  // Threads per row of a step in a fused run: lowered until the step fits one pass.
  const auto fused_threads = [](const ColorsetStep& s) {
    int tpr = s.threads_per_row;
    while (tpr > 1 && static_cast<index_t>(tpr) * (s.end - s.begin) > kFusedStepRows) tpr /= 2;
    return tpr;
  };
  const auto small = [&](const ColorsetStep& s) {
    const index_t rows = s.end - s.begin;
    if (rows > kFusedStepRows || s.long_end > s.long_begin) return false;
    const double entries = static_cast<double>(host_row_ptr[s.end] - host_row_ptr[s.begin]);
    return entries <= static_cast<double>(kFusedLaneEntries) * fused_threads(s) * rows;
  };
  const int steps = static_cast<int>(plan.steps.size());
  for (int i = 0; i < steps;) {
    int j = i + 1;
    if (small(plan.steps[i])) {
      while (j < steps && small(plan.steps[j])) ++j;
    }
    const bool fused = j - i >= 2;
    plan.runs.push_back({i, j - i, fused});
    if (fused) {
      for (int k = i; k < j; ++k) plan.steps[k].threads_per_row = fused_threads(plan.steps[k]);
    }
    i = j;
  }
  return plan;
}

}  // namespace prism::kernels::cuda
