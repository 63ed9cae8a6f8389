#include "backend/cuda/cuda_line_ic.hpp"

#include "common/memory.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/line_ic.hpp"
#include "kernels/cuda/sell_layout.hpp"
#include "kernels/sell.hpp"

#include <utility>
#include <vector>

namespace prism::backend::cuda {
namespace {

using kernels::cuda::DeviceBuffer;
using kernels::cuda::upload_and_wait;

/// L or L^T in SELL-32 over the plan's ranges: the layout on the device, the map from the
/// factor's CSR entries for the values on the host.
struct DeviceSell {
  DeviceSell(const CsrMatrix<double>& m, const std::vector<index_t>& range_ptr,
             cudaStream_t stream) {
    const kernels::CsrView<double> view{m.rows, m.cols, m.row_ptr.data(), m.col_idx.data(),
                                        nullptr};
    // No colors (no rows): one empty range.
    kernels::SellLayout layout = kernels::sell_layout(
        view, range_ptr.size() >= 2 ? range_ptr : std::vector<index_t>{0, m.rows});
    slice_ptr = upload_and_wait(layout.slice_ptr, stream);
    col_idx = upload_and_wait(layout.col_idx, stream);
    values = DeviceBuffer<double>(layout.col_idx.size());
    range_slice = std::move(layout.range_slice);
    source = std::move(layout.source);
  }
  /// The same layout from a CSR pattern in device memory (rows + 1 pointers), laid out
  /// there; its map from the CSR entries stays there (device_source).
  DeviceSell(const index_t* csr_row_ptr, const index_t* csr_col_idx, index_t rows,
             const std::vector<index_t>& range_ptr, cudaStream_t stream) {
    kernels::cuda::DeviceSellLayout layout = kernels::cuda::sell_layout_device(
        csr_row_ptr, csr_col_idx, rows,
        range_ptr.size() >= 2 ? range_ptr : std::vector<index_t>{0, rows}, kernels::kSellSlice,
        stream);
    slice_ptr = std::move(layout.slice_ptr);
    values = DeviceBuffer<double>(layout.col_idx.size());
    col_idx = std::move(layout.col_idx);
    range_slice = std::move(layout.range_slice);
    device_source = std::move(layout.source);
  }
  /// Uploads the values of `m` (the pattern given at construction) on `stream`; `staging`
  /// must live until the stream is synchronized.
  void upload(const CsrMatrix<double>& m, std::vector<double>& staging, cudaStream_t stream) {
    staging.resize(source.size());
    for (std::size_t k = 0; k < source.size(); ++k) {
      staging[k] = source[k] >= 0 ? m.values[source[k]] : 0.0;
    }
    values.upload(staging.data(), stream);
  }
  kernels::cuda::SellView<double> view() const {
    return {slice_ptr.data(), col_idx.data(), values.data()};
  }
  std::size_t host_bytes() const {
    return common::bytes_of(range_slice) + common::bytes_of(source);
  }

  DeviceBuffer<index_t> slice_ptr, col_idx;
  DeviceBuffer<double> values;
  std::vector<index_t> range_slice;     // equal for L and L^T (the ranges' rows alone)
  std::vector<index_t> source;          // stored entry <- CSR entry (-1: padding)
  DeviceBuffer<index_t> device_source;  // the same in device memory (device patterns)
};

class CudaLineIcSolver final : public DeviceLineIcSolver {
 public:
  CudaLineIcSolver(const LineIcFactor& pattern, cudaStream_t stream)
      : stream_(stream),
        rows_(pattern.lower.rows),
        plan_(kernels::line_ic_plan(pattern.line_ptr, pattern.color_ptr,
                                    kernels::cuda::kLineIcTileRows)),
        lower_(pattern.lower, plan_.range_ptr, stream),
        upper_(pattern.upper, plan_.range_ptr, stream),
        tile_begin_(upload_and_wait(plan_.tile_begin, stream)),
        tile_end_(upload_and_wait(plan_.tile_end, stream)),
        sub_(static_cast<std::size_t>(rows_)),
        inverse_diagonal_(static_cast<std::size_t>(rows_)) {}
  CudaLineIcSolver(const std::vector<index_t>& line_ptr, const std::vector<index_t>& color_ptr,
                   kernels::CsrView<double> lower, kernels::CsrView<double> upper,
                   cudaStream_t stream)
      : stream_(stream),
        rows_(lower.rows),
        plan_(kernels::line_ic_plan(line_ptr, color_ptr, kernels::cuda::kLineIcTileRows)),
        lower_(lower.row_ptr, lower.col_idx, rows_, plan_.range_ptr, stream),
        upper_(upper.row_ptr, upper.col_idx, rows_, plan_.range_ptr, stream),
        tile_begin_(upload_and_wait(plan_.tile_begin, stream)),
        tile_end_(upload_and_wait(plan_.tile_end, stream)),
        sub_(static_cast<std::size_t>(rows_)),
        inverse_diagonal_(static_cast<std::size_t>(rows_)) {
    // sub is 0 at each line's first row: the factorization never writes it there.
    if (rows_ > 0) {
      PRISM_CUDA_CHECK(cudaMemsetAsync(sub_.data(), 0, sub_.size() * sizeof(double), stream));
    }
  }

  LineIcStorage storage() override {
    LineIcStorage s;
    s.lower = lower_.values.data();
    s.lower_source = lower_.device_source.data();
    s.lower_stored = static_cast<index_t>(lower_.values.size());
    s.upper = upper_.values.data();
    s.upper_source = upper_.device_source.data();
    s.upper_stored = static_cast<index_t>(upper_.values.size());
    s.sub = sub_.data();
    s.inverse_diagonal = inverse_diagonal_.data();
    return s;
  }

  void update_values(const LineIcFactor& factor) override {
    if (lower_.source.size() != lower_.values.size()) {
      throw Error("line_ic solver: laid out from device patterns, its values come from there");
    }
    std::vector<double> lower, upper;
    lower_.upload(factor.lower, lower, stream_);
    upper_.upload(factor.upper, upper, stream_);
    sub_.upload(factor.sub.data(), stream_);
    inverse_diagonal_.upload(factor.inverse_diagonal.data(), stream_);
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the host factor may go
  }
  void forward(const Vector& r, Vector& w) override {
    kernels::cuda::line_ic_solve(view(), plan_, lower_.range_slice, true, r.data(), w.data(),
                                 stream_);
  }
  void backward(const Vector& w, Vector& z) override {
    kernels::cuda::line_ic_solve(view(), plan_, lower_.range_slice, false, w.data(), z.data(),
                                 stream_);
  }
  std::size_t host_bytes() const override {
    using common::bytes_of;
    return bytes_of(plan_.range_ptr) + bytes_of(plan_.tile_begin) + bytes_of(plan_.tile_end) +
           bytes_of(plan_.color_tile) + lower_.host_bytes() + upper_.host_bytes();
  }

 private:
  kernels::cuda::LineIcDevice view() const {
    kernels::cuda::LineIcDevice v;
    v.lower = lower_.view();
    v.upper = upper_.view();
    v.sub = sub_.data();
    v.inverse_diagonal = inverse_diagonal_.data();
    v.tile_begin = tile_begin_.data();
    v.tile_end = tile_end_.data();
    return v;
  }

  cudaStream_t stream_;
  index_t rows_;
  kernels::LineIcPlan plan_;
  DeviceSell lower_, upper_;
  DeviceBuffer<index_t> tile_begin_, tile_end_;
  DeviceBuffer<double> sub_, inverse_diagonal_;
};

}  // namespace

std::unique_ptr<LineIcSolver> make_cuda_line_ic_solver(const LineIcFactor& pattern,
                                                       cudaStream_t stream) {
  return std::make_unique<CudaLineIcSolver>(pattern, stream);
}

std::unique_ptr<DeviceLineIcSolver> make_cuda_line_ic_solver(const std::vector<index_t>& line_ptr,
                                                             const std::vector<index_t>& color_ptr,
                                                             kernels::CsrView<double> lower,
                                                             kernels::CsrView<double> upper,
                                                             cudaStream_t stream) {
  return std::make_unique<CudaLineIcSolver>(line_ptr, color_ptr, lower, upper, stream);
}

}  // namespace prism::backend::cuda
