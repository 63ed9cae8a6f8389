#include "backend/cuda/cuda_matrix.hpp"

#include <prism/blocks.hpp>
#include <prism/errors.hpp>

#include "common/setup_steps.hpp"
#include "kernels/cuda/blas1.hpp"
#include "kernels/cuda/bsr.hpp"
#include "kernels/cuda/columns.hpp"
#include "kernels/cuda/matrix_values.hpp"
#include "kernels/cuda/sell_layout.hpp"
#include "kernels/cuda/spmv.hpp"
#include "kernels/sell.hpp"

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <utility>

namespace prism::backend::cuda {

using kernels::cuda::DeviceBuffer;
namespace k = kernels::cuda;

namespace {

/// auto's rule from the entries SELL-32 would store.
SpmvAlgorithm pick_by_padding(double stored, index_t nnz) {
  const double padding = nnz > 0 ? stored / static_cast<double>(nnz) : 1.0;
  return padding <= kernels::kSellAutoMaxPadding ? SpmvAlgorithm::sell : SpmvAlgorithm::cusparse;
}

/// The same, SELL-32's entries counted on the device from its row pointers.
SpmvAlgorithm pick_on_device(const index_t* row_ptr, index_t rows, index_t nnz,
                             cudaStream_t stream) {
  const std::int64_t stored =
      k::sell_stored_device(row_ptr, {0, rows}, kernels::kSellSlice, stream);
  return pick_by_padding(static_cast<double>(stored), nnz);
}

int threads_per_row(index_t rows, index_t nnz) {
  return k::spmv_threads_per_row(rows > 0 ? static_cast<double>(nnz) / rows : 1.0);
}

}  // namespace

SpmvAlgorithm pick_spmv_algorithm(const CsrMatrix<double>& a) {
  double stored = 0.0;
  for (index_t first = 0; first < a.rows; first += kernels::kSellSlice) {
    const index_t last = std::min<index_t>(first + kernels::kSellSlice, a.rows);
    index_t width = 0;
    for (index_t i = first; i < last; ++i) width = std::max(width, a.row_ptr[i + 1] - a.row_ptr[i]);
    stored += static_cast<double>(width) * kernels::kSellSlice;
  }
  return pick_by_padding(stored, a.nnz());
}

SpmvAlgorithm pick_spmv_algorithm(const DeviceOrdered& a, cudaStream_t stream) {
  return pick_on_device(a.row_ptr.data(), a.n, a.nnz(), stream);
}

int pick_bsr_block_size(const CsrMatrix<double>& a) {
  if (a.rows != a.cols || a.rows == 0) return 0;
  const BlockPartition nodes = find_node_blocks(a);
  index_t common = nodes.count() == 1 ? a.rows : 0;
  for (index_t k = 0; k + 1 < nodes.count(); ++k) {
    common = std::gcd(common, nodes.ptr[k + 1] - nodes.ptr[k]);
  }
  for (int b = 8; b >= 2; --b) {
    if (common % b == 0) return b;
  }
  return 0;
}

CudaMatrix::CudaMatrix(const CsrMatrix<double>& a, SpmvAlgorithm algorithm, cusparseHandle_t handle,
                       cudaStream_t stream)
    : handle_(handle),
      stream_(stream),
      algorithm_(algorithm),
      threads_per_row_(threads_per_row(a.rows, a.nnz())),
      csr_(a, stream) {
  if (algorithm_ == SpmvAlgorithm::bsr) make_bsr(a);
  // auto's choice and the SELL layout from the uploaded CSR, on the device: the same as
  // the host's, and a billion entries take well under a second there against tens of
  // seconds on one host thread (the distributed solver's parts of 20M rows).
  if (algorithm_ == SpmvAlgorithm::automatic) {
    algorithm_ = pick_on_device(csr_.view().row_ptr, csr_.rows(), csr_.nnz(), stream_);
  }
  if (algorithm_ == SpmvAlgorithm::sell) make_sell_on_device();
}

CudaMatrix::CudaMatrix(DeviceOrdered& a, SpmvAlgorithm algorithm, cusparseHandle_t handle,
                       cudaStream_t stream)
    : handle_(handle),
      stream_(stream),
      algorithm_(algorithm),
      threads_per_row_(threads_per_row(a.n, a.nnz())),
      csr_(a.n, a.n, std::move(a.row_ptr), std::move(a.col_idx), std::move(a.values), stream),
      from_values_(std::move(a.source)) {
  if (from_values_.size() != static_cast<std::size_t>(csr_.nnz())) {
    throw Error("CudaMatrix: a source map of " + std::to_string(from_values_.size()) +
                " entries for " + std::to_string(csr_.nnz()) + " nonzeros");
  }
  a.n = 0;
  lay_out_on_device();
}

CudaMatrix::CudaMatrix(index_t rows, index_t cols, DeviceBuffer<index_t> row_ptr,
                       DeviceBuffer<index_t> col_idx, SpmvAlgorithm algorithm,
                       cusparseHandle_t handle, cudaStream_t stream)
    : handle_(handle),
      stream_(stream),
      algorithm_(algorithm),
      threads_per_row_(threads_per_row(rows, static_cast<index_t>(col_idx.size()))),
      csr_(zero_values(rows, cols, std::move(row_ptr), std::move(col_idx), stream)),
      values_in_order_(true) {
  lay_out_on_device();
}

DeviceCsr CudaMatrix::zero_values(index_t rows, index_t cols, DeviceBuffer<index_t> row_ptr,
                                  DeviceBuffer<index_t> col_idx, cudaStream_t stream) {
  DeviceBuffer<double> values(col_idx.size());
  if (values.size() > 0) {
    PRISM_CUDA_CHECK(
        cudaMemsetAsync(values.data(), 0, values.size() * sizeof(double), stream));  // +0.0
  }
  return DeviceCsr(rows, cols, std::move(row_ptr), std::move(col_idx), std::move(values), stream);
}

/// The layouts of a CSR matrix in device memory: BSR from the pattern read back, auto's
/// choice and SELL on the device.
void CudaMatrix::lay_out_on_device() {
  if (algorithm_ == SpmvAlgorithm::bsr) {
    // Rare and host-planned (node blocks, the BSR pattern): the pattern comes to the host.
    const common::StepTimer step("upload: SpMV matrix (BSR, pattern read back)", true);
    CsrMatrix<double> pattern;
    const kernels::CsrView<double> v = csr_.view();
    pattern.rows = v.rows;
    pattern.cols = v.cols;
    pattern.row_ptr.resize(static_cast<std::size_t>(csr_.rows()) + 1);
    pattern.col_idx.resize(static_cast<std::size_t>(csr_.nnz()));
    PRISM_CUDA_CHECK(cudaMemcpyAsync(pattern.row_ptr.data(), v.row_ptr,
                                     pattern.row_ptr.size() * sizeof(index_t),
                                     cudaMemcpyDeviceToHost, stream_));
    if (!pattern.col_idx.empty()) {
      PRISM_CUDA_CHECK(cudaMemcpyAsync(pattern.col_idx.data(), v.col_idx,
                                       pattern.col_idx.size() * sizeof(index_t),
                                       cudaMemcpyDeviceToHost, stream_));
    }
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    make_bsr(pattern);  // where BSR does not fit, auto's choice, the same as on the device
  }
  if (algorithm_ == SpmvAlgorithm::automatic) {
    algorithm_ = pick_on_device(csr_.view().row_ptr, csr_.rows(), csr_.nnz(), stream_);
  }
  if (algorithm_ == SpmvAlgorithm::sell) make_sell_on_device();
}

void CudaMatrix::make_sell_on_device() {
  const common::StepTimer step("upload: SpMV matrix (SELL, device)", true);
  const kernels::CsrView<double> v = csr_.view();
  k::DeviceSellLayout sell = k::sell_layout_device(v.row_ptr, v.col_idx, v.rows, {0, v.rows},
                                                   kernels::kSellSlice, stream_);
  sell_slice_ptr_ = std::move(sell.slice_ptr);
  sell_col_idx_ = std::move(sell.col_idx);
  sell_source_ = std::move(sell.source);
  sell_values_ = DeviceBuffer<double>(sell_col_idx_.size());
  refill_sell();
  PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the step's time is the device's
}

std::string CudaMatrix::algorithm() const {
  const std::string name(to_string(algorithm_));
  return bsr_fallback_.empty() ? name : name + " (" + bsr_fallback_ + ")";
}

void CudaMatrix::update_values(const std::vector<double>& values) {
  csr_.update_values(values);
  refill_sell();
  refill_bsr();
}

void CudaMatrix::update_values(const SourceValues& a) {
  if (a.source == nullptr && values_in_order_) {
    csr_.update_values(a.values);
    refill_sell();
    refill_bsr();
    return;
  }
  if (a.source == nullptr && from_values_.size() != static_cast<std::size_t>(csr_.nnz())) {
    throw Error("update_values: no map to the caller's values (the matrix was not kept)");
  }
  if (a.source != nullptr && static_cast<index_t>(a.source->size()) != csr_.nnz()) {
    throw InvalidMatrixError("update_values: expected " + std::to_string(csr_.nnz()) +
                             " values, got " + std::to_string(a.source->size()));
  }
  // a.source is fixed per pattern: uploaded once (or taken from the kept matrix, whose
  // source map it equals).
  if (from_values_.size() == 0) from_values_ = k::upload_and_wait(*a.source, stream_);
  k::gather_values(static_cast<index_t>(from_values_.size()), from_values_.data(), a.values,
                   csr_.values(), stream_);
  refill_sell();
  refill_bsr();
}

void CudaMatrix::multiply_columns(const Vector& x, Vector& y, const ColumnSet& set) const {
  const index_t n = csr_.rows();
  if (is_sell()) {
    k::sell_spmm(n, sell_view(), set.backend_columns(), set.count(), x.data(), y.data(), stream_);
  } else if (is_bsr()) {
    for (const index_t j : set.columns()) {
      const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(j) * n;
      CudaVector yj(y.data() + at, n);
      multiply(CudaVector(const_cast<double*>(x.data()) + at, n), yj);  // only read
    }
  } else {
    k::spmm(csr_.view(), set.backend_columns(), set.count(), x.data(), y.data(), stream_);
  }
}

void CudaMatrix::multiply_columns_dot(const Vector& x, Vector& y, const ColumnSet& set,
                                      double* partials, double* s, int slot) const {
  if (is_sell()) {
    k::sell_spmm_dot(csr_.rows(), sell_view(), set.backend_columns(), set.count(), x.data(),
                     y.data(), partials, s, slot, stream_);
    return;
  }
  multiply_columns(x, y, set);
  k::dot_columns(csr_.rows(), set.backend_columns(), set.count(), x.data(), y.data(), partials, s,
                 slot, stream_);
}

int CudaMatrix::multiply_dot(const CudaVector& x, CudaVector& y, double* partials) const {
  return k::sell_spmv_dot(csr_.rows(), sell_view(), x.data(), y.data(), partials, stream_);
}

void CudaMatrix::multiply(const CudaVector& x, CudaVector& y) const {
  if (algorithm_ == SpmvAlgorithm::csr_vector) {
    k::spmv(csr_.view(), threads_per_row_, x.data(), y.data(), stream_);
    return;
  }
  if (algorithm_ == SpmvAlgorithm::sell) {
    k::sell_spmv(csr_.rows(), sell_view(), x.data(), y.data(), stream_);
    return;
  }
  if (algorithm_ == SpmvAlgorithm::bsr) {
    k::bsr_spmv(bsr_view(), x.data(), y.data(), stream_);
    return;
  }
  const double one = 1.0, zero = 0.0;
  if (!prepared_) {
    std::size_t bytes = 0;
    PRISM_CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                                 csr_.descr(), x.descr(), &zero, y.descr(),
                                                 CUDA_R_64F, kAlgorithm, &bytes));
    buffer_ = DeviceBuffer<char>(std::max<std::size_t>(bytes, 1));
    PRISM_CUSPARSE_CHECK(cusparseSpMV_preprocess(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                                 csr_.descr(), x.descr(), &zero, y.descr(),
                                                 CUDA_R_64F, kAlgorithm, buffer_.data()));
    prepared_ = true;
  }
  PRISM_CUSPARSE_CHECK(cusparseSpMV(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, csr_.descr(),
                                    x.descr(), &zero, y.descr(), CUDA_R_64F, kAlgorithm,
                                    buffer_.data()));
}

void CudaMatrix::refill_sell() {
  if (algorithm_ != SpmvAlgorithm::sell) return;
  k::gather_values(static_cast<index_t>(sell_values_.size()), sell_source_.data(), csr_.values(),
                   sell_values_.data(), stream_);
}

/// `spmv: bsr`: the BSR copy of `a`, or where no block size fits or BSR pads beyond
/// kBsrMaxPadding, auto's choice with the reason kept for algorithm().
void CudaMatrix::make_bsr(const CsrMatrix<double>& a) {
  const kernels::CsrView<double> pattern{a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(),
                                         nullptr};
  const int b = pick_bsr_block_size(a);
  kernels::BsrLayout layout;
  if (b >= 2) layout = kernels::reference::bsr_pattern(pattern, b);
  const double padding = b >= 2 ? kernels::bsr_padding(layout, a.nnz()) : 0.0;
  if (b < 2 || padding > kernels::kBsrMaxPadding) {
    char why[96];
    if (b < 2) {
      std::snprintf(why, sizeof why, "bsr: no common node block size of 2 to 8 rows");
    } else {
      std::snprintf(why, sizeof why, "bsr: %dx%d blocks would store %.2f values per nonzero", b, b,
                    padding);
    }
    bsr_fallback_ = why;
    algorithm_ = pick_spmv_algorithm(a);
    return;
  }
  kernels::reference::bsr_map(pattern, layout);
  bsr_block_size_ = b;
  bsr_block_rows_ = layout.block_rows();
  bsr_row_ptr_ = k::upload_and_wait(layout.block_row_ptr, stream_);
  bsr_col_idx_ = k::upload_and_wait(layout.block_col_idx, stream_);
  bsr_source_ = k::upload_and_wait(layout.source, stream_);
  bsr_values_ = DeviceBuffer<double>(layout.source.size());
  refill_bsr();
}

void CudaMatrix::refill_bsr() {
  if (algorithm_ != SpmvAlgorithm::bsr) return;
  k::bsr_gather(static_cast<index_t>(bsr_values_.size()), bsr_source_.data(), csr_.values(),
                bsr_values_.data(), stream_);
}

}  // namespace prism::backend::cuda
