#include "backend/cuda/cuda_line_ic.hpp"

#include "common/memory.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/line_ic.hpp"

namespace prism::backend::cuda {
namespace {

using kernels::cuda::DeviceBuffer;
using kernels::cuda::upload_and_wait;

class CudaLineIcSolver final : public LineIcSolver {
 public:
  CudaLineIcSolver(const LineIcFactor& pattern, cudaStream_t stream)
      : stream_(stream),
        rows_(pattern.lower.rows),
        tiles_(kernels::line_ic_tiles(pattern.line_ptr, pattern.color_ptr,
                                      kernels::cuda::kLineIcTileRows)),
        line_ptr_(upload_and_wait(pattern.line_ptr, stream)),
        tile_line_ptr_(upload_and_wait(tiles_.line_ptr, stream)),
        lower_ptr_(upload_and_wait(pattern.lower.row_ptr, stream)),
        lower_col_(upload_and_wait(pattern.lower.col_idx, stream)),
        upper_ptr_(upload_and_wait(pattern.upper.row_ptr, stream)),
        upper_col_(upload_and_wait(pattern.upper.col_idx, stream)),
        lower_values_(pattern.lower.col_idx.size()),
        upper_values_(pattern.upper.col_idx.size()),
        sub_(static_cast<std::size_t>(rows_)),
        inverse_diagonal_(static_cast<std::size_t>(rows_)) {}

  void update_values(const LineIcFactor& factor) override {
    lower_values_.upload(factor.lower.values.data(), stream_);
    upper_values_.upload(factor.upper.values.data(), stream_);
    sub_.upload(factor.sub.data(), stream_);
    inverse_diagonal_.upload(factor.inverse_diagonal.data(), stream_);
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the host factor may go
  }
  void forward(const Vector& r, Vector& w) override {
    kernels::cuda::line_ic_solve(view(), tile_line_ptr_.data(), tiles_, true, r.data(), w.data(),
                                 stream_);
  }
  void backward(const Vector& w, Vector& z) override {
    kernels::cuda::line_ic_solve(view(), tile_line_ptr_.data(), tiles_, false, w.data(), z.data(),
                                 stream_);
  }
  std::size_t host_bytes() const override {
    return common::bytes_of(tiles_.line_ptr) + common::bytes_of(tiles_.color_ptr);
  }

 private:
  kernels::LineIcView view() const {
    kernels::LineIcView v;
    v.rows = rows_;
    v.colors = static_cast<int>(tiles_.color_ptr.size()) - 1;
    v.line_ptr = line_ptr_.data();
    v.color_ptr = nullptr;  // the launches take the tiles' colors
    v.lower = {rows_, rows_, lower_ptr_.data(), lower_col_.data(), lower_values_.data()};
    v.upper = {rows_, rows_, upper_ptr_.data(), upper_col_.data(), upper_values_.data()};
    v.sub = sub_.data();
    v.inverse_diagonal = inverse_diagonal_.data();
    return v;
  }

  cudaStream_t stream_;
  index_t rows_;
  kernels::LineIcTiles tiles_;
  DeviceBuffer<index_t> line_ptr_, tile_line_ptr_;
  DeviceBuffer<index_t> lower_ptr_, lower_col_, upper_ptr_, upper_col_;
  DeviceBuffer<double> lower_values_, upper_values_, sub_, inverse_diagonal_;
};

}  // namespace

std::unique_ptr<LineIcSolver> make_cuda_line_ic_solver(const LineIcFactor& pattern,
                                                       cudaStream_t stream) {
  return std::make_unique<CudaLineIcSolver>(pattern, stream);
}

}  // namespace prism::backend::cuda
