#pragma once
// The device-side loop of the multi-column PCG on CUDA (backend/columns.hpp's ColumnLoop):
// a CUDA graph of one while node whose body is one iteration over the columns and the
// check of kernels/cuda/column_loop.hpp.

#include "backend/columns.hpp"

#include <cuda_runtime.h>

#include <functional>
#include <memory>
#include <vector>

namespace prism::backend::cuda {

/// ColumnOperations::record_column_loop on `stream` (a driver that runs while nodes).
std::unique_ptr<ColumnLoop> make_cuda_column_loop(cudaStream_t stream,
                                                  const std::function<void()>& body,
                                                  const ColumnSet& set, Vector& s,
                                                  const std::vector<double>& targets,
                                                  int check_every, int max_iterations);

}  // namespace prism::backend::cuda
