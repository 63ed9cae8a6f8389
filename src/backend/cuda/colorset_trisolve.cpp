#include "backend/cuda/colorset_trisolve.hpp"

#include "backend/cuda/cuda_vector.hpp"
#include "kernels/cuda/colorset.hpp"
#include "kernels/cuda/device_memory.hpp"

namespace prism::backend::cuda {
namespace {

using kernels::cuda::DeviceBuffer;

class ColorsetTrisolve final : public TriangularSolver {
 public:
  ColorsetTrisolve(SplitTriangle split, cudaStream_t stream)
      : split_(std::move(split)),
        stream_(stream),
        row_ptr_(split_.strict().row_ptr.size()),
        col_idx_(split_.strict().col_idx.size()),
        values_(split_.strict().values.size()),
        inverse_diagonal_(split_.inverse_diagonal().size()),
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
    const kernels::CsrView<double> view{rows(), rows(), row_ptr_.data(), col_idx_.data(),
                                        values_.data()};
    kernels::cuda::colorset_solve(view, inverse_diagonal_.data(), plan_, split_.lower(),
                                  cast(b).data(), cast(x).data(), stream_);
  }

 private:
  void upload_values() {
    values_.upload(split_.strict().values.data(), stream_);
    inverse_diagonal_.upload(split_.inverse_diagonal().data(), stream_);
    // The host copies may change on the next update(): wait until they are on the device.
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  SplitTriangle split_;
  cudaStream_t stream_;
  DeviceBuffer<index_t> row_ptr_;
  DeviceBuffer<index_t> col_idx_;
  DeviceBuffer<double> values_;
  DeviceBuffer<double> inverse_diagonal_;
  std::vector<kernels::cuda::ColorsetStep> plan_;
};

}  // namespace

std::unique_ptr<TriangularSolver> make_colorset_trisolve(SplitTriangle split, cudaStream_t stream) {
  return std::make_unique<ColorsetTrisolve>(std::move(split), stream);
}

}  // namespace prism::backend::cuda
