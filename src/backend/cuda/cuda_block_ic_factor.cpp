#include "backend/cuda/cuda_block_ic_factor.hpp"

#include "common/memory.hpp"
#include "kernels/cuda/block_ic.hpp"
#include "kernels/cuda/block_ic_analysis.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/matrix_values.hpp"

#include <array>

namespace prism::backend::cuda {
namespace {

using kernels::cuda::DeviceBuffer;
using kernels::cuda::upload_and_wait;

class CudaBlockIcFactor final : public BlockIcFactor {
 public:
  CudaBlockIcFactor(const kernels::BlockIcPlan& plan, cudaStream_t stream)
      : stream_(stream),
        level_ptr_(plan.level_ptr),
        value_count_(plan.value_count),
        block_ptr_(plan.block_ptr),
        block_ptr_d_(upload_and_wait(plan.block_ptr, stream)),
        row_ptr_(upload_and_wait(plan.row_ptr, stream)),
        col_(upload_and_wait(plan.col, stream)),
        entry_row_(upload_and_wait(plan.entry_row, stream)),
        transpose_prefix_(upload_and_wait(plan.transpose_prefix, stream)),
        offset_(upload_and_wait(plan.offset, stream)),
        diagonal_(upload_and_wait(plan.diagonal, stream)),
        inverse_offset_(upload_and_wait(plan.inverse, stream)),
        scatter_(upload_and_wait(plan.scatter, stream)),
        a_row_ptr_(upload_and_wait(plan.a_row_ptr, stream)),
        a_col_(upload_and_wait(plan.a_col, stream)),
        a_diagonal_(upload_and_wait(plan.a_diagonal, stream)),
        forward_ptr_(upload_and_wait(plan.forward_ptr, stream)),
        backward_ptr_(upload_and_wait(plan.backward_ptr, stream)),
        forward_diagonal_ptr_(upload_and_wait(plan.forward_diagonal_ptr, stream)),
        backward_diagonal_ptr_(upload_and_wait(plan.backward_diagonal_ptr, stream)),
        level_blocks_(upload_and_wait(plan.level_blocks, stream)),
        transpose_ptr_(upload_and_wait(plan.transpose_ptr, stream)),
        transpose_entry_(upload_and_wait(plan.transpose_entry, stream)),
        scale_(static_cast<std::size_t>(plan.rows)),
        values_(static_cast<std::size_t>(plan.value_count)),
        inverse_(static_cast<std::size_t>(plan.inverse_count)),
        forward_diagonal_(last(plan.forward_diagonal_ptr)),
        forward_(last(plan.forward_ptr)),
        backward_diagonal_(last(plan.backward_diagonal_ptr)),
        backward_(last(plan.backward_ptr)),
        narrow_(plan.float_solves ? static_cast<std::size_t>(plan.value_count) : 0),
        operators_(plan.operators),
        verdicts_(std::max<std::size_t>(1, plan.level_ptr.size())) {
    set_view(plan.rows, plan.blocks(), plan.entries(), plan.uniform_block);
  }

  /// From a plan analysed on the device (its arrays taken, the operators' columns left) for
  /// the matrix kept there:
  /// `source` maps its entries to the caller's (the kept matrix's source map), read by
  /// load(SourceValues) without a source of its own.
  CudaBlockIcFactor(kernels::cuda::DeviceBlockIcPlan&& plan, DeviceBuffer<index_t> source,
                    cudaStream_t stream)
      : stream_(stream),
        level_ptr_(std::move(plan.level_ptr)),
        value_count_(plan.value_count),
        block_ptr_(std::move(plan.host_block_ptr)),
        block_ptr_d_(std::move(plan.block_ptr)),
        row_ptr_(std::move(plan.row_ptr)),
        col_(std::move(plan.col)),
        entry_row_(std::move(plan.entry_row)),
        transpose_prefix_(std::move(plan.transpose_prefix)),
        offset_(std::move(plan.offset)),
        diagonal_(std::move(plan.diagonal)),
        inverse_offset_(std::move(plan.inverse)),
        scatter_(std::move(plan.scatter)),
        a_row_ptr_(std::move(plan.a_row_ptr)),
        a_col_(std::move(plan.a_col)),
        a_diagonal_(std::move(plan.a_diagonal)),
        forward_ptr_(std::move(plan.forward.row_ptr)),
        backward_ptr_(std::move(plan.backward.row_ptr)),
        forward_diagonal_ptr_(std::move(plan.forward_diagonal.row_ptr)),
        backward_diagonal_ptr_(std::move(plan.backward_diagonal.row_ptr)),
        level_blocks_(std::move(plan.level_blocks)),
        transpose_ptr_(std::move(plan.transpose_ptr)),
        transpose_entry_(std::move(plan.transpose_entry)),
        scale_(static_cast<std::size_t>(plan.rows)),
        values_(static_cast<std::size_t>(plan.value_count)),
        inverse_(static_cast<std::size_t>(plan.inverse_count)),
        forward_diagonal_(static_cast<std::size_t>(plan.operator_nnz[0])),
        forward_(static_cast<std::size_t>(plan.operator_nnz[1])),
        backward_diagonal_(static_cast<std::size_t>(plan.operator_nnz[2])),
        backward_(static_cast<std::size_t>(plan.operator_nnz[3])),
        narrow_(plan.float_solves ? static_cast<std::size_t>(plan.value_count) : 0),
        operators_(plan.operators),
        verdicts_(std::max<std::size_t>(1, level_ptr_.size())),
        kept_source_(std::move(source)) {
    set_view(plan.rows, plan.blocks, plan.entries, plan.uniform_block);
  }

  // verdicts_: [0] the scaling's bad row, [1 + l] level l's failed block.
  void load(const SourceValues& a) override {
    if (a.source != nullptr && a.source != host_source_) {
      source_ = upload_and_wait(*a.source, stream_);
      host_source_ = a.source;
    }
    a_ = a.values;
    // Without a source: the kept matrix's own map to the caller's values, where there is one.
    source_read_ = a.source != nullptr       ? source_.data()
                   : kept_source_.size() > 0 ? kept_source_.data()
                                             : nullptr;
    kernels::cuda::block_ic_scale(view_, a_, source_read_, scale_.data(), verdicts_.data(),
                                  stream_);
  }
  kernels::BlockIcStatus attempt(double shift) override {
    kernels::cuda::block_ic_load(view_, a_, source_read_, scale_.data(), shift, value_count_,
                                 values_.data(), stream_);
    kernels::cuda::block_ic_factor(view_, level_ptr_, values_.data(), inverse_.data(),
                                   verdicts_.data() + 1, stream_);
    // The first verdict and the last level's (which carries the first failing level's).
    const std::size_t levels = level_ptr_.size() - 1;
    std::array<int, 2> v{kernels::cuda::kNoBadEntry, kernels::cuda::kNoBadEntry};
    PRISM_CUDA_CHECK(
        cudaMemcpyAsync(&v[0], verdicts_.data(), sizeof(int), cudaMemcpyDeviceToHost, stream_));
    if (levels > 0) {
      PRISM_CUDA_CHECK(cudaMemcpyAsync(&v[1], verdicts_.data() + levels, sizeof(int),
                                       cudaMemcpyDeviceToHost, stream_));
    }
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    if (v[0] != kernels::cuda::kNoBadEntry) return {block_of(v[0]), true};
    if (v[1] != kernels::cuda::kNoBadEntry) return {v[1], false};
    if (operators_) {
      kernels::cuda::block_ic_operators(view_, values_.data(), inverse_.data(), scale_.data(),
                                        forward_diagonal_.data(), forward_.data(),
                                        backward_diagonal_.data(), backward_.data(), stream_);
    }
    narrow();
    return {};
  }
  BlockIcOperators operators() override {
    return {forward_diagonal_.data(), forward_.data(), backward_diagonal_.data(), backward_.data()};
  }
  void set_factor(const std::vector<double>& values, const std::vector<double>& scale) override {
    if (values.size() != values_.size() || scale.size() != scale_.size()) {
      throw Error("block_ic: the host factor does not fit the plan");
    }
    values_.upload(values.data(), stream_);
    scale_.upload(scale.data(), stream_);
    narrow();
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  void forward(const Vector& r, Vector& u) override {
    if (narrow_.size() > 0) {
      kernels::cuda::block_ic_forward(view_, level_ptr_, values_.data(), narrow_.data(),
                                      scale_.data(), r.data(), u.data(), stream_);
    } else {
      kernels::cuda::block_ic_forward(view_, level_ptr_, values_.data(), values_.data(),
                                      scale_.data(), r.data(), u.data(), stream_);
    }
  }
  std::size_t host_bytes() const override {
    return common::bytes_of(level_ptr_) + common::bytes_of(block_ptr_);
  }
  void backward(const Vector& u, Vector& w, Vector& z) override {
    if (narrow_.size() > 0) {
      kernels::cuda::block_ic_backward(view_, level_ptr_, values_.data(), narrow_.data(),
                                       scale_.data(), u.data(), w.data(), z.data(), stream_);
    } else {
      kernels::cuda::block_ic_backward(view_, level_ptr_, values_.data(), values_.data(),
                                       scale_.data(), u.data(), w.data(), z.data(), stream_);
    }
  }

 private:
  static std::size_t last(const std::vector<index_t>& ptr) {
    return ptr.empty() ? 0 : static_cast<std::size_t>(ptr.back());
  }
  void narrow() {
    if (narrow_.size() > 0) {
      kernels::cuda::narrow_values(value_count_, values_.data(), narrow_.data(), stream_);
    }
  }
  void set_view(index_t rows, index_t blocks, index_t entries, index_t uniform_block) {
    view_.rows = rows;
    view_.blocks = blocks;
    view_.entries = entries;
    view_.block_ptr = block_ptr_d_.data();
    view_.row_ptr = row_ptr_.data();
    view_.col = col_.data();
    view_.entry_row = entry_row_.data();
    view_.offset = offset_.data();
    view_.diagonal = diagonal_.data();
    view_.inverse = inverse_offset_.data();
    view_.transpose_prefix = transpose_prefix_.data();
    view_.a_row_ptr = a_row_ptr_.data();
    view_.a_col = a_col_.data();
    view_.scatter = scatter_.data();
    view_.a_diagonal = a_diagonal_.data();
    view_.forward_ptr = forward_ptr_.data();
    view_.backward_ptr = backward_ptr_.data();
    view_.forward_diagonal_ptr = forward_diagonal_ptr_.data();
    view_.backward_diagonal_ptr = backward_diagonal_ptr_.data();
    view_.level_blocks = level_blocks_.data();
    view_.transpose_ptr = transpose_ptr_.data();
    view_.transpose_entry = transpose_entry_.data();
    view_.uniform_block = uniform_block;
  }
  index_t block_of(index_t row) const {
    index_t b = 0;
    while (block_ptr_[b + 1] <= row) ++b;
    return b;
  }

  cudaStream_t stream_;
  std::vector<index_t> level_ptr_;
  std::int64_t value_count_;
  std::vector<index_t> block_ptr_;
  DeviceBuffer<index_t> block_ptr_d_, row_ptr_, col_, entry_row_, transpose_prefix_;
  DeviceBuffer<std::int64_t> offset_, diagonal_, inverse_offset_, scatter_;
  DeviceBuffer<index_t> a_row_ptr_, a_col_, a_diagonal_;
  DeviceBuffer<index_t> forward_ptr_, backward_ptr_, forward_diagonal_ptr_, backward_diagonal_ptr_;
  DeviceBuffer<index_t> level_blocks_, transpose_ptr_, transpose_entry_;
  DeviceBuffer<double> scale_, values_, inverse_;
  DeviceBuffer<double> forward_diagonal_, forward_, backward_diagonal_, backward_;
  DeviceBuffer<float> narrow_;  // the factor in float (float_solves)
  bool operators_;
  DeviceBuffer<int> verdicts_;
  DeviceBuffer<index_t> source_;
  const std::vector<index_t>* host_source_ = nullptr;
  DeviceBuffer<index_t> kept_source_;  // the kept matrix's entries -> the caller's
  const index_t* source_read_ = nullptr;
  const double* a_ = nullptr;
  kernels::BlockIcView view_;
};

}  // namespace

std::unique_ptr<BlockIcFactor> make_cuda_block_ic_factor(const kernels::BlockIcPlan& plan,
                                                         cudaStream_t stream) {
  return std::make_unique<CudaBlockIcFactor>(plan, stream);
}

std::unique_ptr<BlockIcFactor> make_cuda_block_ic_factor(kernels::cuda::DeviceBlockIcPlan&& plan,
                                                         DeviceBuffer<index_t> source,
                                                         cudaStream_t stream) {
  return std::make_unique<CudaBlockIcFactor>(std::move(plan), std::move(source), stream);
}

}  // namespace prism::backend::cuda
