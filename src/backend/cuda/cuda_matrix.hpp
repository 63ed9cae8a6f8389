#pragma once
// The cuda backend's SpMV matrix (Backend::make_matrix, make_matrix_on_backend) and the
// automatic choices of its layout (`spmv: auto`, `spmv: bsr`'s block size).

#include <prism/csr_matrix.hpp>
#include <prism/options.hpp>

#include "backend/backend.hpp"
#include "backend/cuda/cuda_vector.hpp"
#include "backend/cuda/device_csr.hpp"
#include "backend/cuda/device_ordered.hpp"
#include "kernels/bsr.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/sell.hpp"

#include <cuda_runtime.h>
#include <cusparse.h>

#include <string>
#include <vector>

namespace prism::backend::cuda {

/// `spmv: auto`: SELL-32 unless its padding is large, then cuSPARSE (the faster of the two
/// CSR kernels where SELL pads too much). The padding is counted from the row lengths
/// (each slice of 32 rows stores 32 times its longest row), without building the layout.
SpmvAlgorithm pick_spmv_algorithm(const CsrMatrix<double>& a);
/// The same for a matrix the set-up kept on the device, counted there (same choice).
SpmvAlgorithm pick_spmv_algorithm(const DeviceOrdered& a, cudaStream_t stream);

/// `spmv: bsr`: the largest b in 2..8 (the sizes with a tuned kernel) that divides every
/// node block (find_node_blocks) but the last, which the matrix's end may cut short: uniform
/// node blocks of b rows give b, and so do runs of whole nodes that share a pattern. 0 where
/// there is none.
int pick_bsr_block_size(const CsrMatrix<double>& a);

/// y = A x with cusparseSpMV (CSR_ALG2, bit-wise deterministic run to run, preprocessed
/// once) or prism's kernels: CSR-vector, SELL-32 or BSR (a copy of the values in the SELL
/// or BSR layout, refilled from the CSR values on the device by update_values()).
class CudaMatrix final : public Matrix {
 public:
  CudaMatrix(const CsrMatrix<double>& a, SpmvAlgorithm algorithm, cusparseHandle_t handle,
             cudaStream_t stream);
  /// From the matrix the set-up kept on the device: takes its pattern, values and source
  /// map (`a` is spent), lays SELL out there; only BSR reads the pattern on the host.
  CudaMatrix(DeviceOrdered& a, SpmvAlgorithm algorithm, cusparseHandle_t handle,
             cudaStream_t stream);
  /// From a CSR pattern in device memory (taken: rows + 1 row pointers, its columns), every
  /// value zero: the storage the first constructor gives for the same pattern, laid out as
  /// the second one does. update_values(SourceValues) with a null source then copies
  /// values in the pattern's CSR order as they are.
  CudaMatrix(index_t rows, index_t cols, kernels::cuda::DeviceBuffer<index_t> row_ptr,
             kernels::cuda::DeviceBuffer<index_t> col_idx, SpmvAlgorithm algorithm,
             cusparseHandle_t handle, cudaStream_t stream);

  index_t rows() const override { return csr_.rows(); }
  index_t nnz() const override { return csr_.nnz(); }
  /// With `spmv: bsr` where BSR does not fit, the algorithm used and why not bsr.
  std::string algorithm() const override;
  void update_values(const std::vector<double>& values) override;
  /// A gather from the caller's values into the CSR values, then the SELL or BSR copy
  /// refilled from them on the device: the layouts' maps live on the device only, so the
  /// host keeps no copy of them (one more pass over the values than a composed map).
  void update_values(const SourceValues& a) override;

  /// Y_j = A X_j for the set's columns: the SELL or CSR copy read once for all of them
  /// (cusparse's matrix is prism's CSR one); BSR column by column through multiply().
  void multiply_columns(const Vector& x, Vector& y, const ColumnSet& set) const;
  /// multiply_columns and s[j][slot] = X_j . Y_j, fused where the matrix is SELL.
  void multiply_columns_dot(const Vector& x, Vector& y, const ColumnSet& set, double* partials,
                            double* s, int slot) const;

  bool is_sell() const { return algorithm_ == SpmvAlgorithm::sell; }
  bool is_bsr() const { return algorithm_ == SpmvAlgorithm::bsr; }
  /// SELL only: y = A x and the per-block parts of x . y in `partials`; returns their count.
  int multiply_dot(const CudaVector& x, CudaVector& y, double* partials) const;
  void multiply(const CudaVector& x, CudaVector& y) const;

 private:
  static constexpr cusparseSpMVAlg_t kAlgorithm = CUSPARSE_SPMV_CSR_ALG2;

  kernels::cuda::SellView<double> sell_view() const {
    return {sell_slice_ptr_.data(), sell_col_idx_.data(), sell_values_.data()};
  }
  static DeviceCsr zero_values(index_t rows, index_t cols,
                               kernels::cuda::DeviceBuffer<index_t> row_ptr,
                               kernels::cuda::DeviceBuffer<index_t> col_idx, cudaStream_t stream);
  void lay_out_on_device();
  void make_sell_on_device();
  void refill_sell();
  void make_bsr(const CsrMatrix<double>& a);
  kernels::BsrView<double> bsr_view() const {
    return {csr_.rows(),         csr_.view().cols,    bsr_block_size_,   bsr_block_rows_,
            bsr_row_ptr_.data(), bsr_col_idx_.data(), bsr_values_.data()};
  }
  void refill_bsr();

  cusparseHandle_t handle_;
  cudaStream_t stream_;
  SpmvAlgorithm algorithm_;
  int threads_per_row_;
  DeviceCsr csr_;
  kernels::cuda::DeviceBuffer<index_t> sell_slice_ptr_, sell_col_idx_, sell_source_;
  kernels::cuda::DeviceBuffer<index_t> from_values_;  // update_values(SourceValues): CSR <- values
  kernels::cuda::DeviceBuffer<double> sell_values_;
  int bsr_block_size_ = 0;
  index_t bsr_block_rows_ = 0;
  kernels::cuda::DeviceBuffer<index_t> bsr_row_ptr_, bsr_col_idx_, bsr_source_;
  kernels::cuda::DeviceBuffer<double> bsr_values_;
  std::string bsr_fallback_;      // spmv: bsr where it does not fit: why not
  bool values_in_order_ = false;  // a null source: values in the CSR order (no map)
  mutable kernels::cuda::DeviceBuffer<char> buffer_;
  mutable bool prepared_ = false;
};

}  // namespace prism::backend::cuda
