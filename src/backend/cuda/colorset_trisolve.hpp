#pragma once
// The color-set triangular solve on the CUDA backend: the strict triangle and the
// inverse diagonal in device memory, one kernel launch per independent row block, the
// strict triangle stored as CSR or SELL-32 and its values in double or float.

#include "backend/backend.hpp"
#include "backend/split_triangle.hpp"
#include "kernels/cuda/colorset.hpp"
#include "kernels/cuda/device_memory.hpp"

#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

namespace prism::backend::cuda {

/// One triangle of a color-set solve on the device: pattern, values, inverse diagonal.
class DeviceColorset {
 public:
  DeviceColorset() = default;
  /// Lays out `split`'s strict triangle (its values are not uploaded). With
  /// `strict_to_factor` (strict entry k comes from entry strict_to_factor[k] of a factor
  /// on the device), gather() can fill the values on the device.
  DeviceColorset(const SplitTriangle& split, const std::vector<index_t>& strict_to_factor,
                 Precision precision, ColorsetLayout layout, cudaStream_t stream);

  /// "csr" or "sell".
  std::string layout() const { return sell_ ? "sell" : "csr"; }
  /// Values from the host: split's strict values and inverse diagonal (rounded already
  /// when mixed). Synchronizes: the host vectors may change afterwards.
  void upload(const SplitTriangle& split, cudaStream_t stream);
  /// Values from a scaled factor L_s on the device (L = S^{-1} L_s, undone on the fly:
  /// entry k of L_s, in row entry_row[k], times row_scale[entry_row[k]]): the strict
  /// entries through strict_to_factor, the inverse diagonal 1 / L[diagonal_source[i]].
  void gather(const double* ls, const index_t* entry_row, const double* row_scale,
              const index_t* diagonal_source, cudaStream_t stream);
  /// Solves (D + S) x = b. x may alias b.
  void solve(const double* b, double* x, cudaStream_t stream) const;

 private:
  template <typename V>
  void solve_with(const V* values, const V* inverse, const double* b, double* x,
                  cudaStream_t stream) const;

  bool lower_ = true;
  bool sell_ = false;
  Precision precision_ = Precision::fp64;
  index_t rows_ = 0;
  // CSR: row_ptr_, col_idx_, plan_. SELL: slice_ptr_, col_idx_, range_ptr_, range_slice_.
  kernels::cuda::DeviceBuffer<index_t> row_ptr_, slice_ptr_, col_idx_;
  std::vector<kernels::cuda::ColorsetStep> plan_;
  std::vector<index_t> range_ptr_, range_slice_;
  std::vector<index_t> host_source_;                    // stored entry <- strict CSR entry
  kernels::cuda::DeviceBuffer<index_t> factor_source_;  // stored entry <- factor entry
  kernels::cuda::DeviceBuffer<double> values_, inverse_;
  kernels::cuda::DeviceBuffer<float> values32_, inverse32_;
};

std::unique_ptr<TriangularSolver> make_colorset_trisolve(SplitTriangle split, ColorsetLayout layout,
                                                         cudaStream_t stream);

}  // namespace prism::backend::cuda
