#include "backend/cuda/colorset_trisolve.hpp"

#include "backend/cuda/cuda_vector.hpp"
#include "kernels/cuda/ic0.hpp"

namespace prism::backend::cuda {

using kernels::cuda::DeviceBuffer;

ColorsetValues::ColorsetValues(std::size_t nnz, index_t rows, Precision precision)
    : precision_(precision) {
  const auto n = static_cast<std::size_t>(rows);
  if (precision_ == Precision::mixed) {
    values32_ = DeviceBuffer<float>(nnz);
    inverse32_ = DeviceBuffer<float>(n);
  } else {
    values_ = DeviceBuffer<double>(nnz);
    inverse_ = DeviceBuffer<double>(n);
  }
}

void ColorsetValues::upload(const std::vector<double>& values,
                            const std::vector<double>& inverse_diagonal, cudaStream_t stream) {
  if (precision_ == Precision::mixed) {
    const std::vector<float> v(values.begin(), values.end());
    const std::vector<float> d(inverse_diagonal.begin(), inverse_diagonal.end());
    values32_.upload(v.data(), stream);
    inverse32_.upload(d.data(), stream);
    // v and d go away here: wait until they are on the device.
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
    return;
  }
  values_.upload(values.data(), stream);
  inverse_.upload(inverse_diagonal.data(), stream);
}

void ColorsetValues::gather(const index_t* strict_source, const index_t* diagonal_source,
                            const double* factor, cudaStream_t stream) {
  namespace k = kernels::cuda;
  if (precision_ == Precision::mixed) {
    k::gather_values(static_cast<index_t>(values32_.size()), strict_source, factor,
                     values32_.data(), stream);
    k::gather_inverse(static_cast<index_t>(inverse32_.size()), diagonal_source, factor,
                      inverse32_.data(), stream);
  } else {
    k::gather_values(static_cast<index_t>(values_.size()), strict_source, factor, values_.data(),
                     stream);
    k::gather_inverse(static_cast<index_t>(inverse_.size()), diagonal_source, factor,
                      inverse_.data(), stream);
  }
}

void ColorsetValues::solve(index_t rows, const index_t* row_ptr, const index_t* col_idx,
                           const std::vector<kernels::cuda::ColorsetStep>& plan, bool lower,
                           const double* b, double* x, cudaStream_t stream) const {
  if (precision_ == Precision::mixed) {
    const kernels::CsrView<float> view{rows, rows, row_ptr, col_idx, values32_.data()};
    kernels::cuda::colorset_solve(view, inverse32_.data(), plan, lower, b, x, stream);
  } else {
    const kernels::CsrView<double> view{rows, rows, row_ptr, col_idx, values_.data()};
    kernels::cuda::colorset_solve(view, inverse_.data(), plan, lower, b, x, stream);
  }
}

namespace {

class ColorsetTrisolve final : public TriangularSolver {
 public:
  ColorsetTrisolve(SplitTriangle split, cudaStream_t stream)
      : split_(std::move(split)),
        stream_(stream),
        row_ptr_(split_.strict().row_ptr.size()),
        col_idx_(split_.strict().col_idx.size()),
        values_(split_.strict().col_idx.size(), split_.strict().rows, split_.precision()),
        plan_(kernels::cuda::colorset_plan(split_.strict().row_ptr.data(), split_.block_ptr())) {
    row_ptr_.upload(split_.strict().row_ptr.data(), stream_);
    col_idx_.upload(split_.strict().col_idx.data(), stream_);
    upload_values();
  }

  index_t rows() const override { return split_.strict().rows; }
  index_t nnz() const override { return split_.strict().nnz() + split_.strict().rows; }
  std::string algorithm() const override { return "colorset"; }

  void update_values(const std::vector<double>& values) override {
    split_.update(values);
    upload_values();
  }

  void solve(const Vector& b, Vector& x) override {
    values_.solve(rows(), row_ptr_.data(), col_idx_.data(), plan_, split_.lower(), cast(b).data(),
                  cast(x).data(), stream_);
  }

 private:
  void upload_values() {
    values_.upload(split_.strict().values, split_.inverse_diagonal(), stream_);
    // The host copies may change on the next update(): wait until they are on the device.
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  SplitTriangle split_;
  cudaStream_t stream_;
  DeviceBuffer<index_t> row_ptr_;
  DeviceBuffer<index_t> col_idx_;
  ColorsetValues values_;
  std::vector<kernels::cuda::ColorsetStep> plan_;
};

}  // namespace

std::unique_ptr<TriangularSolver> make_colorset_trisolve(SplitTriangle split, cudaStream_t stream) {
  return std::make_unique<ColorsetTrisolve>(std::move(split), stream);
}

}  // namespace prism::backend::cuda
