#pragma once
// A CSR matrix in device memory with its cuSPARSE descriptor: what SpMV and the
// triangular solves both hold.

#include <prism/csr_matrix.hpp>
#include <prism/errors.hpp>

#include "backend/cuda/cuda_handles.hpp"
#include "kernels/csr_view.hpp"
#include "kernels/cuda/device_memory.hpp"

#include <string>
#include <utility>
#include <vector>

namespace prism::backend::cuda {

class DeviceCsr {
 public:
  DeviceCsr(const CsrMatrix<double>& a, cudaStream_t stream)
      : stream_(stream),
        rows_(a.rows),
        cols_(a.cols),
        row_ptr_(a.row_ptr.size()),
        col_idx_(a.col_idx.size()),
        values_(a.values.size()) {
    row_ptr_.upload(a.row_ptr.data(), stream);
    col_idx_.upload(a.col_idx.data(), stream);
    values_.upload(a.values.data(), stream);
    descr_ =
        make_csr_descr(a.rows, a.cols, a.nnz(), row_ptr_.data(), col_idx_.data(), values_.data());
  }

  /// Takes a CSR matrix already in device memory (row_ptr: rows + 1 entries).
  DeviceCsr(index_t rows, index_t cols, kernels::cuda::DeviceBuffer<index_t> row_ptr,
            kernels::cuda::DeviceBuffer<index_t> col_idx,
            kernels::cuda::DeviceBuffer<double> values, cudaStream_t stream)
      : stream_(stream),
        rows_(rows),
        cols_(cols),
        row_ptr_(std::move(row_ptr)),
        col_idx_(std::move(col_idx)),
        values_(std::move(values)) {
    if (row_ptr_.size() != static_cast<std::size_t>(rows) + 1 ||
        col_idx_.size() != values_.size()) {
      throw Error("DeviceCsr: " + std::to_string(row_ptr_.size()) + " row pointers for " +
                  std::to_string(rows) + " rows, " + std::to_string(col_idx_.size()) +
                  " columns for " + std::to_string(values_.size()) + " values");
    }
    descr_ = make_csr_descr(rows, cols, nnz(), row_ptr_.data(), col_idx_.data(), values_.data());
  }

  index_t rows() const { return rows_; }
  index_t nnz() const { return static_cast<index_t>(values_.size()); }
  cusparseSpMatDescr_t descr() const { return descr_.get(); }
  kernels::CsrView<double> view() const {
    return {rows_, cols_, row_ptr_.data(), col_idx_.data(), values_.data()};
  }
  double* values() { return values_.data(); }

  /// New values on the same pattern (asynchronous on the stream).
  void update_values(const std::vector<double>& values) {
    if (values.size() != values_.size()) {
      throw InvalidMatrixError("update_values: expected " + std::to_string(values_.size()) +
                               " values, got " + std::to_string(values.size()));
    }
    values_.upload(values.data(), stream_);
  }
  /// The same from device memory (asynchronous on the stream).
  void update_values(const double* device_values) {
    if (values_.size() == 0) return;
    PRISM_CUDA_CHECK(cudaMemcpyAsync(values_.data(), device_values, values_.size() * sizeof(double),
                                     cudaMemcpyDeviceToDevice, stream_));
  }

 private:
  cudaStream_t stream_;
  index_t rows_;
  index_t cols_;
  kernels::cuda::DeviceBuffer<index_t> row_ptr_;
  kernels::cuda::DeviceBuffer<index_t> col_idx_;
  kernels::cuda::DeviceBuffer<double> values_;
  SpMatDescr descr_;
};

}  // namespace prism::backend::cuda
