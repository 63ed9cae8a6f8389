#pragma once
// Device twins of kernels/block_ic.hpp's reference kernels. A warp computes one block row
// of the factor (its lanes take the block's rows), one block of the operators, and one
// block row of each solve; the verdicts go to device ints, kNoBadEntry
// (matrix_values.hpp) when there is none.

#include "kernels/block_ic.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

namespace prism::kernels::cuda {

/// reference::block_ic_scale; *bad_row = the smallest row with a bad a_ii (set by the call).
void block_ic_scale(const BlockIcView& p, const double* a, const index_t* source, double* scale,
                    int* bad_row, cudaStream_t stream);

/// reference::block_ic_load.
void block_ic_load(const BlockIcView& p, const double* a, const index_t* source,
                   const double* scale, double shift, std::int64_t value_count, double* values,
                   cudaStream_t stream);

/// reference::block_ic_factor, a launch per level; `failed` holds one int per level (set
/// by the call): a level whose predecessor failed only passes the verdict on, so the last
/// one ends as the smallest failed block of the first level that has one.
void block_ic_factor(const BlockIcView& p, const std::vector<index_t>& level_ptr, double* values,
                     double* inverse, int* failed, cudaStream_t stream);

/// reference::block_ic_operators.
void block_ic_operators(const BlockIcView& p, const double* values, const double* inverse,
                        const double* scale, double* forward_diagonal, double* forward,
                        double* backward_diagonal, double* backward, cudaStream_t stream);

/// The factor's solves (reference::block_ic_forward_row and block_ic_backward_row): a
/// launch per level, a warp per block row; forward in level order, backward in reverse.
template <typename T>
void block_ic_forward(const BlockIcView& p, const std::vector<index_t>& level_ptr,
                      const double* values, const T* blocks, const double* scale, const double* r,
                      double* u, cudaStream_t stream);
template <typename T>
void block_ic_backward(const BlockIcView& p, const std::vector<index_t>& level_ptr,
                       const double* values, const T* blocks, const double* scale, const double* u,
                       double* w, double* z, cudaStream_t stream);

/// out[k] = float(in[k]), k < n: the factor for mixed-precision solves.
void narrow_values(std::int64_t n, const double* in, float* out, cudaStream_t stream);

}  // namespace prism::kernels::cuda
