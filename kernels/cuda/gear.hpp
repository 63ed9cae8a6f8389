#pragma once
// The vector work of one Chronopoulos-Gear PCG iteration (the distributed solver's
// single-reduction CG) in two passes on the device: the update of the four recurrences
// with the residual's norm, and the two dot products that go into the iteration's one
// all-reduce. alpha and beta come from the host (they follow the all-reduce there), by
// value. Reductions as kernels/cuda/blas1.hpp: fixed grid, per-block partial sums, then one
// block. Twins of kernels::reference::gear_update and gear_dots (kernels/blas1.hpp).

#include <prism/types.hpp>

#include <cuda_runtime.h>

namespace prism::kernels::cuda {

/// p = u + beta p; s = w + beta s (with `first`: p = u, s = w); x += alpha p;
/// r -= alpha s; sums[out] = r . r. One pass: 6 reads, 4 writes. `partials`: the
/// kReductionBlocks workspace of blas1.hpp.
void gear_update(index_t n, double alpha, double beta, bool first, const double* u, const double* w,
                 double* p, double* s, double* x, double* r, double* partials, double* sums,
                 int out, cudaStream_t stream);

/// sums[out] = r . u and sums[out + 1] = w . u, u read once. `partials`: 2 kReductionBlocks.
void gear_dots(index_t n, const double* r, const double* u, const double* w, double* partials,
               double* sums, int out, cudaStream_t stream);

}  // namespace prism::kernels::cuda
