#pragma once
// The color-set triangular solve on the CUDA backend: the strict triangle and the
// inverse diagonal in device memory, one kernel launch per independent row block.

#include "backend/backend.hpp"
#include "backend/split_triangle.hpp"
#include "kernels/cuda/colorset.hpp"
#include "kernels/cuda/device_memory.hpp"

#include <cuda_runtime.h>

#include <memory>
#include <vector>

namespace prism::backend::cuda {

/// The values a color-set solve reads, in the solve's precision: the strict triangle's
/// values and the inverse diagonal in double, or in float for Precision::mixed.
class ColorsetValues {
 public:
  ColorsetValues() = default;
  ColorsetValues(std::size_t nnz, index_t rows, Precision precision);

  /// From the host (SplitTriangle's values, already rounded when mixed).
  void upload(const std::vector<double>& values, const std::vector<double>& inverse_diagonal,
              cudaStream_t stream);
  /// From a factor's values on the device: values[k] = factor[strict_source[k]],
  /// inverse[i] = 1 / factor[diagonal_source[i]] (computed in double, rounded when mixed).
  void gather(const index_t* strict_source, const index_t* diagonal_source, const double* factor,
              cudaStream_t stream);
  /// Solves (D + S) x = b with S's pattern given by row_ptr / col_idx (device arrays).
  void solve(index_t rows, const index_t* row_ptr, const index_t* col_idx,
             const std::vector<kernels::cuda::ColorsetStep>& plan, bool lower, const double* b,
             double* x, cudaStream_t stream) const;

 private:
  Precision precision_ = Precision::fp64;
  kernels::cuda::DeviceBuffer<double> values_, inverse_;
  kernels::cuda::DeviceBuffer<float> values32_, inverse32_;
};

std::unique_ptr<TriangularSolver> make_colorset_trisolve(SplitTriangle split, cudaStream_t stream);

}  // namespace prism::backend::cuda
