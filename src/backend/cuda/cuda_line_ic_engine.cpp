#include "backend/cuda/cuda_line_ic_engine.hpp"

#include "backend/cuda/cuda_line_ic.hpp"
#include "backend/cuda/device_ordered.hpp"
#include "common/memory.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/ic0_analysis.hpp"
#include "kernels/cuda/line_ic_setup.hpp"
#include "kernels/cuda/matrix_values.hpp"

#include <string>
#include <utility>

namespace prism::backend::cuda {
namespace {

using kernels::cuda::DeviceBuffer;
using kernels::cuda::PinnedBuffer;

/// out = source[through[k]] for the `through` entries (compose_maps), in a new buffer.
DeviceBuffer<index_t> composed(const index_t* through, std::size_t count, const index_t* source,
                               cudaStream_t stream) {
  DeviceBuffer<index_t> out(count);
  if (count > 0) kernels::cuda::compose_maps(count, through, source, out.data(), stream);
  return out;
}

class CudaLineIcEngine final : public LineIcEngine {
 public:
  CudaLineIcEngine(const DeviceOrdered& a, const BlockPartition& lines,
                   const std::vector<index_t>& color_ptr, cudaStream_t stream)
      : stream_(stream), rows_(a.n), color_ptr_(color_ptr) {
    if (lines.rows() != a.n || color_ptr.empty() || color_ptr.back() != lines.count()) {
      throw Error("line_ic: the lines and their colors do not partition the " +
                  std::to_string(a.n) + " rows of the kept matrix");
    }
    split_ = kernels::cuda::line_ic_split_device(a.view(), lines.ptr, color_ptr, stream);
    if (split_.coupled_row >= 0) return;
    const kernels::CsrView<double> lower{rows_, rows_, split_.lower_ptr.data(),
                                         split_.lower_col.data(), nullptr};
    const kernels::CsrView<double> upper{rows_, rows_, split_.upper_ptr.data(),
                                         split_.upper_col.data(), nullptr};
    solver_ = make_cuda_line_ic_solver(lines.ptr, color_ptr, lower, upper, stream);
    storage_ = solver_->storage();
    // Every value the set-up reads, mapped once to the caller's entries.
    const index_t* source = a.source.data();
    lower_from_ = composed(split_.lower_source.data(), split_.lower_source.size(), source, stream);
    lower_sell_from_ =
        composed(storage_.lower_source, static_cast<std::size_t>(storage_.lower_stored),
                 lower_from_.data(), stream);
    {
      const DeviceBuffer<index_t> upper_from =
          composed(split_.upper_source.data(), split_.upper_source.size(), source, stream);
      upper_sell_from_ =
          composed(storage_.upper_source, static_cast<std::size_t>(storage_.upper_stored),
                   upper_from.data(), stream);
      PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));  // before upper_from goes
    }
    const auto n = static_cast<std::size_t>(rows_);
    diagonal_from_ = composed(split_.diagonal_source.data(), n, source, stream);
    below_from_ = composed(split_.sub_source.data(), n, source, stream);
    lower_values_ = DeviceBuffer<double>(split_.lower_source.size());
    diagonal_ = DeviceBuffer<double>(n);
    below_ = DeviceBuffer<double>(n);
    band_diagonal_ = DeviceBuffer<double>(n);
    band_off_ = DeviceBuffer<double>(n);
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));  // the maps are made: their sources go
    upper_nnz_ = split_.upper_nnz();
    split_.lower_source = {};
    split_.upper_source = {};
    split_.upper_ptr = {};
    split_.upper_col = {};
    split_.diagonal_source = {};
    split_.sub_source = {};
  }

  std::pair<index_t, index_t> coupled_rows() const override {
    return {split_.coupled_row, split_.coupled_col};
  }
  index_t lower_nnz() const override { return static_cast<index_t>(lower_from_.size()); }
  index_t upper_nnz() const override { return upper_nnz_; }

  // The values go where the attempts read them (L in CSR, the lines' diagonals and
  // sub-diagonals) and straight into the solves' storage (L and L^T in SELL).
  void load(const SourceValues& a) override {
    if (!solver_) throw Error("line_ic: the lines of one color are coupled; nothing to load");
    if (a.source != nullptr) {
      throw Error("line_ic: values for the kept matrix come through its own map (no source)");
    }
    gather(a.values, lower_from_, lower_values_.data());
    gather(a.values, lower_sell_from_, storage_.lower);
    gather(a.values, upper_sell_from_, storage_.upper);
    gather(a.values, diagonal_from_, diagonal_.data());
    gather(a.values, below_from_, below_.data());
  }

  /// A launch per color in order; the verdict (row, pivot, diagonal) read back once.
  LineIcStatus attempt(double shift) override {
    if (!solver_) throw Error("line_ic: the lines of one color are coupled; nothing to factor");
    PRISM_CUDA_CHECK(
        cudaMemsetAsync(failed_.data(), kernels::cuda::kLineIcNoFailureByte, sizeof(int), stream_));
    const kernels::LineIcAttemptView view = attempt_view();
    for (std::size_t c = 0; c + 1 < color_ptr_.size(); ++c) {
      kernels::cuda::line_ic_attempt_lines(view, color_ptr_[c], color_ptr_[c + 1], shift,
                                           failed_.data(), stream_);
    }
    kernels::cuda::line_ic_failure(failed_.data(), storage_.inverse_diagonal, diagonal_.data(),
                                   failure_.data(), stream_);
    PRISM_CUDA_CHECK(cudaMemcpyAsync(host_failed_.data(), failed_.data(), sizeof(int),
                                     cudaMemcpyDeviceToHost, stream_));
    PRISM_CUDA_CHECK(cudaMemcpyAsync(host_failure_.data(), failure_.data(), 2 * sizeof(double),
                                     cudaMemcpyDeviceToHost, stream_));
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const int row = host_failed_.data()[0];
    if (row == kernels::cuda::kLineIcNoFailure) return {};
    return {row, host_failure_.data()[0], host_failure_.data()[1]};
  }

  void forward(const Vector& r, Vector& w) override { solver_->forward(r, w); }
  void backward(const Vector& w, Vector& z) override { solver_->backward(w, z); }
  std::size_t host_bytes() const override {
    return common::bytes_of(color_ptr_) + (solver_ ? solver_->host_bytes() : 0);
  }

 private:
  void gather(const double* values, const DeviceBuffer<index_t>& map, double* out) {
    if (map.size() == 0) return;
    kernels::cuda::gather_values<double>(static_cast<index_t>(map.size()), values, map.data(), out,
                                         stream_);
  }
  kernels::LineIcAttemptView attempt_view() {
    kernels::LineIcAttemptView v;
    v.rows = rows_;
    v.line_ptr = split_.line_ptr.data();
    v.line_of = split_.line_of.data();
    v.lower = {rows_, rows_, split_.lower_ptr.data(), split_.lower_col.data(),
               lower_values_.data()};
    v.diagonal = diagonal_.data();
    v.below = below_.data();
    v.sub = storage_.sub;
    v.inverse_diagonal = storage_.inverse_diagonal;
    v.band_diagonal = band_diagonal_.data();
    v.band_off = band_off_.data();
    return v;
  }

  cudaStream_t stream_;
  index_t rows_;
  std::vector<index_t> color_ptr_;
  kernels::cuda::DeviceLineIcSplit split_;  // kept: lines, line_of, L's pattern
  index_t upper_nnz_ = 0;
  std::unique_ptr<DeviceLineIcSolver> solver_;  // null where lines of one color are coupled
  LineIcStorage storage_;
  // Maps to the caller's entries: L (CSR), L and L^T in SELL, the lines' diagonals and
  // sub-diagonals (-1: none, read as 0).
  DeviceBuffer<index_t> lower_from_, lower_sell_from_, upper_sell_from_, diagonal_from_,
      below_from_;
  DeviceBuffer<double> lower_values_, diagonal_, below_, band_diagonal_, band_off_;
  DeviceBuffer<int> failed_{1};
  DeviceBuffer<double> failure_{2};
  PinnedBuffer<int> host_failed_{1};
  PinnedBuffer<double> host_failure_{2};
};

}  // namespace

std::unique_ptr<LineIcEngine> make_cuda_line_ic_engine(const DeviceOrdered& a,
                                                       const BlockPartition& lines,
                                                       const std::vector<index_t>& color_ptr,
                                                       cudaStream_t stream) {
  return std::make_unique<CudaLineIcEngine>(a, lines, color_ptr, stream);
}

}  // namespace prism::backend::cuda
