#pragma once
/// @file
/// Batched tridiagonal solves on the GPU. Same systems, layouts and conventions as
/// kernels/tridiagonal.hpp (a[0] and c[N-1] ignored, no pivoting: diagonally dominant or
/// SPD systems).
///
/// Two paths, chosen per call from N, M, the element size and the device:
///  - one pass (a system's threads fit a block, or a cluster of up to 16 blocks on sm_90):
///    each system is split into p chunks of at most L rows, one thread each; a thread
///    loads its chunk straight into registers
///    (coalesced element by element for interleaved data, 16-byte vectors for contiguous
///    data where aligned) and reduces it with the partition method (Laszlo, Giles and
///    Appleyard, ACM TOMS 2016); the 2p chunk-boundary equations of a system are solved by
///    one cyclic-reduction step and PCR by warp shuffles or in shared memory (the PCR of
///    Kim, Wu, Chang and Hwu, ICPP 2011, on the reduced system only), and x is stored straight from
///    registers: 4 reads + 1 write per row, the fewest bytes possible. Across a cluster,
///    each block runs PCR on its share with the unknowns just outside it as two more
///    right-hand sides, and the blocks' boundary unknowns are solved together through
///    distributed shared memory (one cluster barrier, the blocks' terms of the interface
///    system solved by warp scans).
///  - two pass (longer systems): pass 1 reduces every unit of kReduceRows rows of every
///    system to its 2 boundary equations (4 threads per unit, chunk equations merged); the
///    reduced systems (2 rows per unit) are solved by this same function recursively;
///    pass 2 re-reads the units and solves each, knowing x just outside it, with the
///    one-pass kernel: 4 + 4 reads + 1 write per row plus the small reduced system.

#include <cstddef>

#include <cuda_runtime_api.h>

#include "kernels/tridiagonal.hpp"

namespace prism::kernels::cuda {

/// How a solve will run; tridiagonal_plan() derives it from N, M, the element size and
/// the current device (SM count, shared memory). Exposed for benchmarks and tests.
struct TridiagonalPlan {
  int levels = 0;                ///< two-pass levels before the one-pass solve (0: one pass)
  long long reduce_rows = 0;     ///< rows per chunk of the two-pass levels (0 if levels == 0)
  long long reduced_rows = 0;    ///< rows per system the one-pass solve sees (0 if levels == 0)
  int chunk_rows = 0;            ///< L: most rows per thread of the one-pass solve
  int threads_per_system = 0;    ///< p: threads per system of the one-pass solve
  int systems_per_block = 0;     ///< G: systems per block (per cluster) of the one-pass solve
  int cluster_blocks = 1;        ///< blocks per thread-block cluster of the one-pass solve
  int block_threads = 0;         ///< G * p / cluster_blocks
  int blocks_per_sm = 0;         ///< resident blocks of the one-pass solve (occupancy API)
  std::size_t shared_bytes = 0;  ///< dynamic shared memory of the one-pass solve
  std::size_t workspace_bytes = 0;
};

/// Plan for M systems of size N with elements of elem_size bytes (4 or 8) on the current
/// device. Throws BackendError if a device query fails.
TridiagonalPlan tridiagonal_plan(TridiagonalLayout layout, index_t n, index_t m,
                                 std::size_t elem_size);

/// Device workspace tridiagonal_solve needs (0 for the one-pass path).
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
