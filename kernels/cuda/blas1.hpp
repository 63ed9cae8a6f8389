#pragma once
// Vector kernels of the PCG iteration on the device, all asynchronous on `stream`.
// The CG scalars live in device memory (`scalars`, indexed by the backend's Scalar
// enum: 0 rz, 1 rz_new, 2 pq, 3 rr), so alpha and beta are formed on the device and
// an iteration needs no host round trip. Reductions are deterministic: fixed grid,
// per-block partial sums in `partials` (kReductionBlocks doubles), then one block.
// Traffic as in kernels/blas1.hpp.

#include <prism/types.hpp>

#include <cuda_runtime.h>

namespace prism::kernels::cuda {

/// Number of partial sums a reduction writes: the size of the `partials` workspace.
inline constexpr int kReductionBlocks = 1024;

/// scalars[out] = x . y
void dot(index_t n, const double* x, const double* y, double* partials, double* scalars, int out,
         cudaStream_t stream);

/// scalars[out] = sum of partials[0, count), in a fixed order: the second pass of a
/// reduction whose first pass is fused into another kernel (e.g. sell_spmv_dot).
void sum_partials(const double* partials, int count, double* scalars, int out, cudaStream_t stream);

/// y += a x
void axpy(index_t n, double a, const double* x, double* y, cudaStream_t stream);

/// y = d .* x
void pointwise_multiply(index_t n, const double* d, const double* x, double* y,
                        cudaStream_t stream);

/// alpha = s[rz] / s[pq] (0 unless both positive and finite); x += alpha p;
/// r -= alpha q; s[rr] = r . r — one pass over the four vectors.
void cg_update(index_t n, const double* p, const double* q, double* x, double* r, double* partials,
               double* scalars, cudaStream_t stream);

/// beta = s[rz_new] / s[rz] (0 unless s[rz] positive and finite); p = z + beta p;
/// then s[rz] = s[rz_new].
void cg_direction(index_t n, const double* z, double* p, double* scalars, cudaStream_t stream);

/// y[i] = x[source[i]], and 0 where source[i] < 0 (padding); the float overload rounds.
void gather_values(index_t n, const index_t* source, const double* x, double* y,
                   cudaStream_t stream);
void gather_values(index_t n, const index_t* source, const double* x, float* y,
                   cudaStream_t stream);

}  // namespace prism::kernels::cuda
