#pragma once
// Vector kernels of the PCG iteration on the device, all asynchronous on `stream`.
// The CG scalars live in device memory (`scalars`, slots as kernels/cg_scalars.hpp lays
// them out: s[rz] is scalars[kCgRz] and so on), so alpha and beta are formed on the device
// and an iteration needs no host round trip. Reductions are deterministic: fixed grid,
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

/// sum_partials for thousands of partials (one block of 1024 threads, in its own fixed
/// order), launched after the previous kernel (dependent_launch.cuh): the second pass of
/// a dot formed by the color-set solves, one partial per block of theirs.
void sum_many_partials(const double* partials, int count, double* scalars, int out,
                       cudaStream_t stream);

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

// The fused CG step (backend.hpp, cg_step / cg_direction_dot / cg_finish). Each kernel
// that needs a dot product finishes the previous kernel's partial sums itself, in every
// block, in finish_sum's order (identical bits in every block and to the unfused path),
// so no single-block reduction launch sits between them. `in_partials` (count of them)
// and `partials` (kReductionBlocks) must be different buffers.

/// pq = sum of in_partials (the SpMV's p . q); rz = s[rz_new]; alpha = rz / pq (0
/// unless both positive and finite); r -= alpha q; s[rr] = r . r; s[pq], s[alpha],
/// s[rz] = rz. Returns the count of r . r's partial sums in `partials`; with finish_rr
/// false, s[rr] is left to the caller (cg_loop_check).
int cg_residual(index_t n, const double* q, double* r, const double* in_partials, int count,
                double* partials, double* scalars, bool finish_rr, cudaStream_t stream);

/// rz_new = r . z; beta = rz_new / s[rz] (0 unless s[rz] positive and finite);
/// x += s[alpha] p; p = z + beta p; s[rz_new] = rz_new. `partials` is workspace.
void cg_direction_dot(index_t n, const double* r, const double* z, double* p, double* x,
                      double* partials, double* scalars, cudaStream_t stream);

/// cg_direction_dot with rz_new already in s[rz_new] (formed by the preconditioner):
/// beta = s[rz_new] / s[rz]; x += s[alpha] p; p = z + beta p.
void cg_direction_x(index_t n, const double* z, double* p, double* x, const double* scalars,
                    cudaStream_t stream);

/// x += s[alpha] p
void cg_finish(index_t n, const double* p, double* x, const double* scalars, cudaStream_t stream);

/// partials[b] = the part of x . y summed by block b; returns the count (the first pass
/// of dot()).
int dot_partials(index_t n, const double* x, const double* y, double* partials,
                 cudaStream_t stream);

/// y[i] = x[source[i]], and 0 where source[i] < 0 (padding); the float overload rounds.
void gather_values(index_t n, const index_t* source, const double* x, double* y,
                   cudaStream_t stream);
void gather_values(index_t n, const index_t* source, const double* x, float* y,
                   cudaStream_t stream);

}  // namespace prism::kernels::cuda
