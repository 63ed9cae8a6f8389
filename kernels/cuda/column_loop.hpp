#pragma once
// The check of a device-side loop over several columns (the multi-column PCG): the last
// kernel of the body of a CUDA graph `while` node, so the iterations of all the columns run
// back to back with no host round trip, and the loop hands back to the host at exactly the
// check point where the host's check would first see a column stop.

#include <prism/types.hpp>

#include "kernels/cg_loop.hpp"

#include <cuda_runtime.h>

namespace prism::kernels::cuda {

/// What the loop keeps in device memory between its iterations.
struct ColumnLoopState {
  int iteration = 0;  ///< the last iteration completed
  int checks = 0;     ///< check points passed (rows of the residual history written)
  int last = 0;       ///< the loop ends at the first check point from this iteration on
};

/// k = ++state->iteration. At a check point (k a multiple of check_every, or k >=
/// max_iterations): history[checks * count + c] = sqrt(s[j][rr]) for each listed column
/// j = cols[c] (s as kernels/columns.hpp lays it out; masked columns, negative entries,
/// left out and their entries not written), ++checks, and the while node's condition
/// cleared where some column's cg_stop(s[j][rz], s[j][pq], that norm, targets[j], k,
/// max_iterations) is not `running`, or k >= state->last. Between check points the loop
/// goes on. One block; `count` columns of any number.
void column_loop_check(cudaGraphConditionalHandle handle, const double* s, const index_t* cols,
                       int count, const double* targets, ColumnLoopState* state, double* history,
                       int check_every, int max_iterations, cudaStream_t stream);

}  // namespace prism::kernels::cuda
