#pragma once
// The symbolic analysis of block IC(0) on the device, from the pattern of a symmetric
// matrix already there (sorted columns, every diagonal stored) and its blocks of
// consecutive rows: every array of kernels::BlockIcPlan (the factor's block pattern, its
// layout, A's scatter into it, the levels and the transpose) and the patterns of the four
// operators of the solves (src/precond/block_ic/block_sweeps.hpp), in device memory.
// The host reference is the host analysis itself (precond::analyze_block_factor,
// block_sweeps_pattern, block_ic_plan and block_ic_solve_plan): equal arrays entry for
// entry.

#include "kernels/block_ic.hpp"
#include "kernels/csr_view.hpp"
#include "kernels/cuda/device_memory.hpp"

#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <vector>

namespace prism::kernels::cuda {

/// A CSR pattern in device memory (an operator's, values elsewhere).
struct DevicePattern {
  DeviceBuffer<index_t> row_ptr, col_idx;
};

/// kernels::BlockIcPlan with its arrays in device memory; what the host plans launches
/// from (level_ptr, the block pointers, the sizes) on the host.
struct DeviceBlockIcPlan {
  index_t rows = 0;
  index_t blocks = 0;
  index_t entries = 0;  ///< off-diagonal blocks L_IJ
  /// The first row that stores no diagonal entry (-1: none); when set, the analysis
  /// stopped there and the arrays below are not filled.
  index_t missing_diagonal = -1;
  std::vector<index_t> host_block_ptr;  ///< the blocks, as given
  std::vector<index_t> level_ptr;       ///< level l: level_blocks[level_ptr[l] .. level_ptr[l + 1])
  DeviceBuffer<index_t> block_ptr, row_ptr, col, entry_row, transpose_prefix;
  DeviceBuffer<std::int64_t> offset, diagonal, inverse, scatter;
  DeviceBuffer<index_t> a_row_ptr, a_col, a_diagonal;
  DeviceBuffer<index_t> level_blocks, transpose_ptr, transpose_entry;
  /// The operators' patterns (with `operators`; else empty): F, I + W, B, I + V.
  DevicePattern forward_diagonal, forward, backward_diagonal, backward;
  /// Their entries (F, I + W, B, I + V), kept where their patterns are handed on.
  std::array<index_t, 4> operator_nnz{};
  bool operators = true;
  bool float_solves = false;
  std::int64_t value_count = 0;
  std::int64_t inverse_count = 0;
  index_t largest_block = 0;
  index_t uniform_block = 0;
  /// diagonal_block_weight(A, blocks): the share of sum |a_ij| inside the diagonal blocks.
  double block_weight = 1.0;

  /// The view the kernels read (the operators' row pointers from the patterns).
  BlockIcView view() const;
};

/// The analysis of `a` (square, device arrays; `nnz` its entries; values read only for
/// block_weight) over the blocks [block_ptr[b], block_ptr[b + 1]) (host; they must
/// partition a's rows into consecutive, non-empty runs: the caller checks). The columns
/// must be sorted and the pattern symmetric (not checked); a row without its diagonal
/// comes back in missing_diagonal. With `operators` the operators' patterns and row
/// pointers (block_ic.solve: inverted), else none (trsv; `float_solves` as the plan's).
/// Waits for the stream a few times (sizes, the levels' passes).
DeviceBlockIcPlan block_ic_analysis(CsrView<double> a, index_t nnz,
                                    const std::vector<index_t>& block_ptr, bool operators,
                                    bool float_solves, cudaStream_t stream);

/// diagonal_block_weight(A, blocks) (include/prism/blocks.hpp) of `a` in device memory
/// over the blocks [block_ptr[b], block_ptr[b + 1]) (host; they must fit: the caller
/// checks): the sums in another order than the host's, equal to rounding.
double diagonal_block_weight(CsrView<double> a, const std::vector<index_t>& block_ptr,
                             cudaStream_t stream);

}  // namespace prism::kernels::cuda
