#pragma once
// Line IC's solves on the GPU (kernels/cuda/line_ic.hpp): the factor kept in device memory
// (L and L^T in SELL-32), a launch per color and half. Its values come from the host
// (update_values) or, for a solver laid out from patterns in device memory, are written
// there by the device set-up (storage()).

#include "backend/backend.hpp"
#include "kernels/csr_view.hpp"

#include <cuda_runtime.h>

#include <memory>
#include <vector>

namespace prism::backend::cuda {

/// Where the values of a solver laid out from device patterns go: L's and L^T's SELL
/// storage (stored entry s holds the CSR entry *_source[s] of the pattern given, -1 for
/// padding, which must hold 0), and the factor L_D of the lines' blocks (rows entries each;
/// sub is 0 at each line's first row and the set-up never writes it there).
struct LineIcStorage {
  double* lower = nullptr;
  const index_t* lower_source = nullptr;
  index_t lower_stored = 0;
  double* upper = nullptr;
  const index_t* upper_source = nullptr;
  index_t upper_stored = 0;
  double* sub = nullptr;
  double* inverse_diagonal = nullptr;
};

/// A LineIcSolver whose storage the device set-up writes (update_values from the host
/// only for a solver made from a host pattern).
class DeviceLineIcSolver : public LineIcSolver {
 public:
  virtual LineIcStorage storage() = 0;
};

std::unique_ptr<LineIcSolver> make_cuda_line_ic_solver(const LineIcFactor& pattern,
                                                       cudaStream_t stream);

/// The same solver (plan, SELL-32 storage, solves) as make_cuda_line_ic_solver(pattern)
/// gives for a pattern with these lines and colors whose L and L^T (pattern.lower,
/// pattern.upper) are `lower` and `upper`, CSR patterns in device memory (row pointers and
/// columns; values not read), laid out on the device.
std::unique_ptr<DeviceLineIcSolver> make_cuda_line_ic_solver(const std::vector<index_t>& line_ptr,
                                                             const std::vector<index_t>& color_ptr,
                                                             kernels::CsrView<double> lower,
                                                             kernels::CsrView<double> upper,
                                                             cudaStream_t stream);

}  // namespace prism::backend::cuda
