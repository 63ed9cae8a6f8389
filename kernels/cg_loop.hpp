#pragma once
// The stopping rule of PCG, one function shared by the host check (src/solver/pcg.cpp)
// and the device-side loop (kernels/cuda/cg_loop.cu), so both stop at the same
// iteration for the same reasons.

namespace prism::kernels {

#if defined(__CUDACC__)
#define PRISM_HOST_DEVICE __host__ __device__
#else
#define PRISM_HOST_DEVICE
#endif

/// Why an iteration loop stops (or `running`: it does not). `requested`: its caller asked
/// it to (a monitor), never an outcome of cg_stop().
enum class LoopStop : int {
  running = 0,
  converged = 1,
  breakdown = 2,
  max_iterations = 3,
  requested = 4
};

/// Where the device-side loop keeps its count and its verdict.
struct LoopState {
  int iteration = 0;  ///< the last iteration completed
  int stop = 0;       ///< a LoopStop
};

/// Largest finite double: `v <= kMaxFinite` is false for NaN and infinity, the same test
/// on host and device without <cmath>.
inline constexpr double kMaxFinite = 1.7976931348623157e308;

/// After iteration `iteration` (r_k and its norm known; rz and pq those the iteration
/// used): converged when residual_norm <= target; else breakdown when rz <= 0 (M not
/// positive definite), pq <= 0 (A not, along p) or any of them is not finite;
/// max_iterations when iteration >= max_iterations; else running. Convergence is tested
/// first: iterations past the converged one (check_every > 1) may drive r to exactly 0,
/// and with it rz and pq, which is no breakdown.
PRISM_HOST_DEVICE inline LoopStop cg_stop(double rz, double pq, double residual_norm, double target,
                                          int iteration, int max_iterations) {
  const bool rz_ok = rz > 0.0 && rz <= kMaxFinite;
  const bool pq_ok = pq > 0.0 && pq <= kMaxFinite;
  if (residual_norm <= target) return LoopStop::converged;  // false for NaN
  if (!rz_ok || !pq_ok || !(residual_norm <= kMaxFinite)) return LoopStop::breakdown;
  if (iteration >= max_iterations) return LoopStop::max_iterations;
  return LoopStop::running;
}

}  // namespace prism::kernels
