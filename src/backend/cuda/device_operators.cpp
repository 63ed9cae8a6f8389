#include "backend/cuda/device_operators.hpp"

#include <prism/errors.hpp>

#include "backend/cuda/colorset_trisolve.hpp"
#include "backend/cuda/cuda_matrix.hpp"
#include "backend/cuda/cuda_vector.hpp"
#include "common/setup_steps.hpp"
#include "kernels/cuda/triangle_split.hpp"

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace prism::backend::cuda {

using kernels::cuda::DeviceBuffer;

std::unique_ptr<Matrix> make_cuda_matrix_from_device(index_t rows, index_t cols,
                                                     DeviceBuffer<index_t> row_ptr,
                                                     DeviceBuffer<index_t> col_idx,
                                                     SpmvAlgorithm algorithm,
                                                     cusparseHandle_t handle, cudaStream_t stream) {
  if (rows < 0 || cols < 0 || row_ptr.size() != static_cast<std::size_t>(rows) + 1) {
    throw Error("SpMV matrix: " + std::to_string(row_ptr.size()) + " row pointers for " +
                std::to_string(rows) + " rows");
  }
  return std::make_unique<CudaMatrix>(rows, cols, std::move(row_ptr), std::move(col_idx), algorithm,
                                      handle, stream);
}

namespace {

/// The color-set solve of a triangle split on the device: no host copy of the triangle,
/// its values gathered on the device through the maps DeviceColorset made there.
class DeviceColorsetTrisolve final : public TriangularSolver {
 public:
  DeviceColorsetTrisolve(index_t rows, DeviceBuffer<index_t> row_ptr, DeviceBuffer<index_t> col_idx,
                         Triangle triangle, const TrisolveSpec& spec, cudaStream_t stream)
      : lower_(triangle == Triangle::lower),
        precision_(spec.precision),
        rows_(rows),
        nnz_(static_cast<index_t>(col_idx.size())),
        stream_(stream),
        row_ptr_(std::move(row_ptr)) {
    const common::StepTimer step("analysis: color-set triangle split, layout (device)", true);
    kernels::cuda::DeviceTriangleSplit split = kernels::cuda::triangle_split(
        rows_, row_ptr_.data(), col_idx.data(), nnz_, lower_, stream_);
    if (split.bad_row >= 0) {
      throw InvalidMatrixError("triangular factor: row " + std::to_string(split.bad_row + 1) +
                               " does not store its diagonal " + (lower_ ? "last" : "first"));
    }
    RowBlocks blocks =
        independent_blocks_on_device(lower_ ? split.reach.data() : nullptr,
                                     lower_ ? nullptr : split.reach.data(), rows_, stream_);
    const DeviceStrict strict{lower_,
                              rows_,
                              nnz_ - rows_,
                              split.row_ptr.data(),
                              split.col_idx.data(),
                              split.source.data(),
                              std::move(lower_ ? blocks.lower : blocks.upper)};
    device_ = DeviceColorset(strict, std::move(split.diagonal), precision_, spec.layout, stream_);
    // `split` goes here (its buffers' frees wait for the device: the layouts are done).
  }

  index_t rows() const override { return rows_; }
  index_t nnz() const override { return nnz_; }
  std::string algorithm() const override { return "colorset"; }
  std::string layout() const override { return device_.layout(); }

  void update_values(const std::vector<double>& values) override {
    check(values);
    if (staged_.size() == 0) staged_ = DeviceBuffer<double>(values.size());
    // From pageable memory the copy returns once `values` is read: it may change after.
    staged_.upload(values.data(), stream_);
    device_.gather_from(staged_.data(), stream_);
  }
  void update_values_on_backend(const double* values) override {
    device_.gather_from(values, stream_);
  }

  void solve(const Vector& b, Vector& x) override {
    device_.solve(cast(b).data(), cast(x).data(), stream_);
  }
  bool solves_columns() const override { return true; }
  void solve_columns(const Vector& b, Vector& x, const ColumnSet& set) override {
    device_.solve_columns(set.backend_columns(), set.count(), b.data(), x.data(), stream_);
  }
  std::size_t host_bytes() const override {
    return common::bytes_of(host_row_ptr_) + device_.host_bytes();
  }

 private:
  /// SplitTriangle::update's checks of host values: their count, every diagonal nonzero
  /// and finite, and in mixed precision every stored value (the strict ones and the
  /// inverse diagonal) finite as a float.
  void check(const std::vector<double>& values) {
    if (static_cast<index_t>(values.size()) != nnz_) {
      throw InvalidMatrixError("update_values: expected " + std::to_string(nnz_) + " values, got " +
                               std::to_string(values.size()));
    }
    if (host_row_ptr_.empty()) host_row_ptr_ = kernels::cuda::download_and_wait(row_ptr_, stream_);
    for (index_t i = 0; i < rows_; ++i) {
      const double d = values[lower_ ? host_row_ptr_[i + 1] - 1 : host_row_ptr_[i]];
      if (d == 0.0 || !std::isfinite(d)) {
        throw InvalidMatrixError("triangular factor: diagonal of row " + std::to_string(i + 1) +
                                 " is zero or not finite");
      }
    }
    if (precision_ != Precision::mixed) return;
    for (index_t i = 0; i < rows_; ++i) {
      const index_t diagonal = lower_ ? host_row_ptr_[i + 1] - 1 : host_row_ptr_[i];
      for (index_t k = host_row_ptr_[i]; k < host_row_ptr_[i + 1]; ++k) {
        const double stored = k == diagonal ? 1.0 / values[k] : values[k];
        if (!std::isfinite(static_cast<float>(stored))) {
          throw NumericalError(
              "precision mixed: the triangular factor has values outside the float range");
        }
      }
    }
  }

  bool lower_;
  Precision precision_;
  index_t rows_;
  index_t nnz_;
  cudaStream_t stream_;
  DeviceBuffer<index_t> row_ptr_;      // the triangle's: update_values(host) finds diagonals
  std::vector<index_t> host_row_ptr_;  // its host copy, made by the first host update
  DeviceBuffer<double> staged_;        // host values uploaded
  DeviceColorset device_;
};

}  // namespace

std::unique_ptr<TriangularSolver> make_cuda_colorset_from_device(
    index_t rows, DeviceBuffer<index_t> row_ptr, DeviceBuffer<index_t> col_idx, Triangle triangle,
    const TrisolveSpec& spec, cudaStream_t stream) {
  if (spec.algorithm != TrisolveAlgorithm::automatic &&
      spec.algorithm != TrisolveAlgorithm::colorset) {
    throw ConfigError("trisolve '" + std::string(to_string(spec.algorithm)) +
                      "' on a triangle made in device memory: only the color-set solve (auto, "
                      "colorset) is made there");
  }
  if (rows < 0 || row_ptr.size() != static_cast<std::size_t>(rows) + 1) {
    throw Error("color-set triangle: " + std::to_string(row_ptr.size()) + " row pointers for " +
                std::to_string(rows) + " rows");
  }
  return std::make_unique<DeviceColorsetTrisolve>(rows, std::move(row_ptr), std::move(col_idx),
                                                  triangle, spec, stream);
}

}  // namespace prism::backend::cuda
