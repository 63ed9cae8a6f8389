#include "backend/cuda/ic0_factor.hpp"

#include "backend/cuda/colorset_trisolve.hpp"
#include "backend/cuda/cuda_vector.hpp"
#include "backend/split_triangle.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/ic0.hpp"

#include <algorithm>

namespace prism::backend::cuda {
namespace {

using kernels::cuda::DeviceBuffer;
using kernels::cuda::PinnedBuffer;

/// SplitTriangle inverts the diagonal at construction; a pattern has no values yet.
CsrMatrix<double> with_unit_values(CsrMatrix<double> t) {
  std::fill(t.values.begin(), t.values.end(), 1.0);
  return t;
}

class CudaIc0Factor final : public Ic0Factor {
 public:
  CudaIc0Factor(const CsrMatrix<double>& lower, const CsrMatrix<double>& upper,
                const std::vector<index_t>& upper_source, const std::vector<index_t>& lower_source,
                const TrisolveSpec& spec, cudaStream_t stream)
      : stream_(stream), rows_(lower.rows), failed_(1) {
    const SplitTriangle sl(with_unit_values(lower), Triangle::lower);
    const SplitTriangle su(with_unit_values(upper), Triangle::upper);
    // Rows of one block of the strict lower triangle never read each other: the
    // factorization runs block by block, like the forward solve.
    blocks_ = sl.block_ptr();
    l_row_ptr_ = kernels::cuda::upload_and_wait(lower.row_ptr, stream);
    l_col_idx_ = kernels::cuda::upload_and_wait(lower.col_idx, stream);
    l_values_ = DeviceBuffer<double>(lower.col_idx.size());
    scaled_ = DeviceBuffer<double>(lower.col_idx.size());
    lower_source_ = kernels::cuda::upload_and_wait(lower_source, stream);
    host_row_ptr_ = lower.row_ptr;
    host_lower_source_ = lower_source;

    // U's strict entries come from L through U's own map into L.
    std::vector<index_t> from_l(su.strict_source().size());
    for (std::size_t k = 0; k < from_l.size(); ++k) from_l[k] = upper_source[su.strict_source()[k]];
    lower_ = DeviceColorset(sl, sl.strict_source(), spec.precision, spec.layout, stream);
    upper_ = DeviceColorset(su, from_l, spec.precision, spec.layout, stream);
    diagonal_source_ = kernels::cuda::upload_and_wait(sl.diagonal_source(), stream);
    row_scale_ = DeviceBuffer<double>(static_cast<std::size_t>(rows_));
  }

  void load(const std::vector<double>& scaled, const std::vector<double>& row_scale) override {
    scaled_.upload(scaled.data(), stream_);
    row_scale_.upload(row_scale.data(), stream_);
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the vectors are the caller's
  }
  kernels::Ic0Status load(const Vector& a_values) override {
    const double* a = cast(a_values).data();
    kernels::cuda::ic0_scale(pattern(), lower_source_.data(), a, scaled_.data(), row_scale_.data(),
                             failed_row_.data(), stream_);
    const int row = read_failed_row();
    if (row == kernels::cuda::kNoFailedRow) return {};
    double diagonal = 0.0;
    copy_one(a + host_lower_source_[host_row_ptr_[row + 1] - 1], diagonal);
    return {row, diagonal};
  }

  kernels::Ic0Status attempt(double shift) override {
    PRISM_CUDA_CHECK(cudaMemcpyAsync(l_values_.data(), scaled_.data(),
                                     scaled_.size() * sizeof(double), cudaMemcpyDeviceToDevice,
                                     stream_));
    PRISM_CUDA_CHECK(
        cudaMemsetAsync(failed_row_.data(), kernels::cuda::kNoFailedRowByte, sizeof(int), stream_));
    for (std::size_t b = 0; b + 1 < blocks_.size(); ++b) {
      kernels::cuda::ic0_factor_rows(blocks_[b], blocks_[b + 1], pattern(), l_values_.data(),
                                     shift, failed_row_.data(), stream_);
    }
    const int row = read_failed_row();
    if (row == kernels::cuda::kNoFailedRow) return {};
    // The failed row keeps its pivot in its diagonal slot.
    double pivot = 0.0;
    copy_one(l_values_.data() + host_row_ptr_[row + 1] - 1, pivot);
    return {row, pivot};
  }

  void finish() override {
    kernels::cuda::scale_rows(rows_, l_row_ptr_.data(), row_scale_.data(), l_values_.data(),
                              stream_);
    // Each triangle keeps its own copy of the inverse diagonal: 8 (or 4) B per row
    // buys solves that read only their own arrays.
    for (DeviceColorset* t : {&lower_, &upper_}) {
      t->gather(l_values_.data(), diagonal_source_.data(), stream_);
    }
  }

  void solve(Triangle triangle, const Vector& b, Vector& x) override {
    (triangle == Triangle::lower ? lower_ : upper_).solve(cast(b).data(), cast(x).data(), stream_);
  }
  std::string layout() const override { return lower_.layout(); }

 private:
  kernels::CsrView<double> pattern() const {
    return {rows_, rows_, l_row_ptr_.data(), l_col_idx_.data(), nullptr};
  }
  int read_failed_row() {
    PRISM_CUDA_CHECK(cudaMemcpyAsync(failed_.data(), failed_row_.data(), sizeof(int),
                                     cudaMemcpyDeviceToHost, stream_));
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return failed_.data()[0];
  }
  void copy_one(const double* device_value, double& out) {
    PRISM_CUDA_CHECK(
        cudaMemcpyAsync(&out, device_value, sizeof(double), cudaMemcpyDeviceToHost, stream_));
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  cudaStream_t stream_;
  index_t rows_;
  std::vector<index_t> blocks_;
  std::vector<index_t> host_row_ptr_;
  std::vector<index_t> host_lower_source_;
  DeviceBuffer<index_t> l_row_ptr_, l_col_idx_, lower_source_;
  DeviceBuffer<double> l_values_, scaled_;
  DeviceColorset lower_, upper_;
  DeviceBuffer<index_t> diagonal_source_;
  DeviceBuffer<double> row_scale_;
  DeviceBuffer<int> failed_row_{1};
  PinnedBuffer<int> failed_;
};

}  // namespace

std::unique_ptr<Ic0Factor> make_cuda_ic0_factor(const CsrMatrix<double>& lower,
                                                const CsrMatrix<double>& upper,
                                                const std::vector<index_t>& upper_source,
                                                const std::vector<index_t>& lower_source,
                                                const TrisolveSpec& spec, cudaStream_t stream) {
  return std::make_unique<CudaIc0Factor>(lower, upper, upper_source, lower_source, spec, stream);
}

}  // namespace prism::backend::cuda
