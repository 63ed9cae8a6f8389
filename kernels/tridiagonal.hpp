#pragma once
/// @file
/// Batched tridiagonal solves: M independent systems of size N,
///
///   a[i] x[i-1] + b[i] x[i] + c[i] x[i+1] = d[i],   i = 0 .. N-1,
///
/// with a[0] and c[N-1] ignored (treated as zero), as cuSPARSE's gtsv routines do.
/// No pivoting: the systems must be diagonally dominant or symmetric positive definite.
///
/// Two storage layouts of the four arrays a, b, c, d and of the solution x:
///  - contiguous:  element i of system s at s * N + i (system after system);
///  - interleaved: element i of system s at i * M + s (element i of every system together).
///
/// The reference backend (here) runs the Thomas algorithm; the CUDA backend
/// (kernels/cuda/tridiagonal.hpp) runs a partition method in shared memory and registers
/// (Laszlo, Giles and Appleyard, ACM TOMS 2016) with PCR on the small reduced systems (Kim,
/// Wu, Chang and Hwu, "A Scalable Tridiagonal Solver for GPUs", ICPP 2011), in one pass over
/// the data for systems that fit a thread block and in two for longer ones.

#include <prism/types.hpp>

namespace prism::kernels {

/// Where element i of system s lives; see the file comment.
enum class TridiagonalLayout { contiguous, interleaved };

}  // namespace prism::kernels

namespace prism::kernels::reference {

/// Solves the M systems with the Thomas algorithm (forward elimination
/// c'_i = c_i / (b_i - a_i c'_{i-1}), d'_i = (d_i - a_i d'_{i-1}) / (b_i - a_i c'_{i-1}),
/// back substitution x_i = d'_i - c'_i x_{i+1}). x may alias d (in-place solve); the
/// other arrays are read only. Throws NumericalError on a zero pivot, naming system and row.
void tridiagonal_solve(TridiagonalLayout layout, index_t n, index_t m, const double* a,
                       const double* b, const double* c, const double* d, double* x);

/// Single-precision twin of the above (arithmetic in float, like the CUDA kernel).
void tridiagonal_solve(TridiagonalLayout layout, index_t n, index_t m, const float* a,
                       const float* b, const float* c, const float* d, float* x);

}  // namespace prism::kernels::reference
