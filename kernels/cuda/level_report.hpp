#pragma once
// Device twin of kernels/level_report.hpp.

#include "kernels/csr_view.hpp"
#include "kernels/level_report.hpp"

#include <cuda_runtime.h>

#include <vector>

namespace prism::kernels::cuda {

/// reference::range_level_ptr on a pattern in device memory (a.row_ptr, a.col_idx; values
/// not read): a launch per non-empty range, a thread a row, in order on `stream` (a range
/// reads the levels the launches before it wrote); then the largest level (CUB reduce) and
/// the rows per level (CUB histogram) come back, and level_ptr is their running sum on the
/// host. Waits for the result. ConfigError where the ranges do not cover the rows.
bool range_level_ptr(const CsrView<double>& a, const std::vector<index_t>& ranges,
                     std::vector<index_t>& level_ptr, cudaStream_t stream);

/// reference::dataflow_level_ptr on a pattern in device memory (values not read), for rows
/// that come in no independent ranges: one launch counts for each row the earlier rows that
/// hold it and checks the mirrors, a second levels every row as a dataflow in row order
/// (8-lane tiles level ready rows from a worklist, each going on with a row it made ready:
/// no barrier or host between levels, whatever their number); then level_ptr as
/// range_level_ptr makes it. Never waits forever, whatever the pattern. Waits for the
/// result.
bool dataflow_level_ptr(const CsrView<double>& a, std::vector<index_t>& level_ptr,
                        cudaStream_t stream);

}  // namespace prism::kernels::cuda
