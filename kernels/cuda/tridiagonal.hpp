#pragma once
/// @file
/// Batched tridiagonal solves on the GPU: tiled PCR with a buffered sliding window,
/// then thread-level parallel Thomas (p-Thomas), after Kim, Wu, Chang and Hwu,
/// "A Scalable Tridiagonal Solver for GPUs", ICPP 2011. Same systems, layouts and
/// conventions as kernels/tridiagonal.hpp (a[0] and c[N-1] ignored, no pivoting).
///
/// Two paths, chosen per call by tridiagonal_plan():
///  - in-shared (N*4*sizeof(T) fits a shared-memory budget): G systems per thread block
///    are read once into shared memory, split by k_shared PCR steps into 2^k_shared
///    interleaved subsystems, solved by p-Thomas (one thread per subsystem) and written
///    once: 4 reads + 1 write per row, the fewest bytes possible. This is the paper's
///    fused tiled PCR + p-Thomas kernel for systems that fit on chip.
///  - tiled (larger N): k_tiled PCR steps with the buffered sliding window (one window per
///    segment of a system, several segments per system) write the level-k equations to
///    a workspace; they form 2^k_tiled interleaved subsystems small enough for the
///    in-shared path, which then solves them. 4 reads + 4 writes + 4 reads + 1 write.

#include <cstddef>

#include <cuda_runtime_api.h>

#include "kernels/tridiagonal.hpp"

namespace prism::kernels::cuda {

/// How a solve will run; tridiagonal_plan() derives it from N, M, the element size and
/// the current device (SM count, shared memory, occupancy). Exposed for benchmarks/tests.
struct TridiagonalPlan {
  bool tiled = false;            ///< sliding-window PCR front end first
  int k_tiled = 0;               ///< PCR steps of the sliding-window kernel (0 if !tiled)
  int window_threads = 0;        ///< threads (= rows per sub-tile) of the window kernel
  long long segments = 0;        ///< windows per system (Fig. 11b of the paper)
  long long segment_rows = 0;    ///< output rows per window
  int k_shared = 0;              ///< PCR steps inside the in-shared kernel
  int systems_per_block = 0;     ///< G: (sub)systems per block of the in-shared kernel
  int shared_threads = 0;        ///< threads per block of the in-shared kernel
  std::size_t shared_bytes = 0;  ///< dynamic shared memory of the in-shared kernel
  std::size_t workspace_bytes = 0;
};

/// Plan for M systems of size N with elements of elem_size bytes (4 or 8) on the current
/// device. Throws BackendError if a device query fails, ConfigError if N is too large.
TridiagonalPlan tridiagonal_plan(TridiagonalLayout layout, index_t n, index_t m,
                                 std::size_t elem_size);

/// Device workspace tridiagonal_solve needs (0 for the in-shared path).
std::size_t tridiagonal_workspace_bytes(TridiagonalLayout layout, index_t n, index_t m,
                                        std::size_t elem_size);

/// Solves the M systems on `stream` (asynchronous; device pointers). x may alias d;
/// a, b, c are read only. `workspace` must hold tridiagonal_workspace_bytes(...) bytes
/// (may be null when that is 0). Throws BackendError when a launch fails.
void tridiagonal_solve(TridiagonalLayout layout, index_t n, index_t m, const double* a,
                       const double* b, const double* c, const double* d, double* x,
                       void* workspace, std::size_t workspace_bytes, cudaStream_t stream);

/// Single-precision twin.
void tridiagonal_solve(TridiagonalLayout layout, index_t n, index_t m, const float* a,
                       const float* b, const float* c, const float* d, float* x, void* workspace,
                       std::size_t workspace_bytes, cudaStream_t stream);

}  // namespace prism::kernels::cuda
