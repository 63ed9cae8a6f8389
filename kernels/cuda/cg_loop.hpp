#pragma once
// The convergence test of a device-side PCG loop: the last kernel of the body of a CUDA
// graph `while` node (conditional node, CUDA 12.4+), so the iterations run back to back
// with no host round trip and stop at exactly the iteration the host check would.

#include "kernels/cg_loop.hpp"

#include <cuda_runtime.h>

namespace prism::kernels::cuda {

/// What a device-side loop and the host share while it runs (in mapped host memory).
struct LoopWatch {
  int published = 0;     ///< the last iteration whose residual norm is in history
  int stop_request = 0;  ///< set by the host: stop at the next check
};

/// ++state->iteration (= k), history[k] = sqrt(scalars[kCgRr]) (the residual norm; slots
/// as kernels/cg_scalars.hpp lays them out), state->stop = cg_stop(...), and the while
/// node's condition set to continue only while the stop is `running`. history holds
/// max_iterations + 1 entries. With rr_count > 0 it first finishes r . r itself from the
/// residual pass's rr_partials into scalars[kCgRr] (in sum_partials' order, so the same bits):
/// one launch where there would be two. With `watch` (host memory mapped into the device,
/// for a host that watches the loop run): history[k] is written before watch->published = k
/// (a system-wide fence between), and a running loop whose watch->stop_request is set stops
/// with LoopStop::requested.
void cg_loop_check(cudaGraphConditionalHandle handle, double* scalars, const double* rr_partials,
                   int rr_count, LoopState* state, double* history, LoopWatch* watch, double target,
                   int max_iterations, cudaStream_t stream);

}  // namespace prism::kernels::cuda
