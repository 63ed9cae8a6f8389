#include "backend/host_block_ic_factor.hpp"

#include "common/host_array.hpp"
#include "common/memory.hpp"

#include <algorithm>

namespace prism::backend {
namespace {

class HostBlockIcFactor final : public BlockIcFactor {
 public:
  HostBlockIcFactor(const kernels::BlockIcPlan& plan, const HostKernels& kernels)
      : k_(kernels),
        plan_(plan),
        view_(plan_.view()),
        scale_(static_cast<std::size_t>(plan.rows)),
        values_(static_cast<std::size_t>(plan.value_count)),
        inverse_(static_cast<std::size_t>(plan.inverse_count)),
        forward_diagonal_(last(plan.forward_diagonal_ptr)),
        forward_(last(plan.forward_ptr)),
        backward_diagonal_(last(plan.backward_diagonal_ptr)),
        backward_(last(plan.backward_ptr)) {
    // First touch: the factor's blocks by the threads that factor and solve them.
    k_.fill(plan.rows, 0.0, scale_.data());
    k_.block_ic_touch(view_, plan_.level_ptr, values_.data(), inverse_.data());
  }

  void load(const SourceValues& a) override {
    a_ = a.values;
    source_ = a.source != nullptr ? a.source->data() : nullptr;
    bad_row_ = k_.block_ic_scale(view_, a_, source_, scale_.data());
  }
  kernels::BlockIcStatus attempt(double shift) override {
    if (bad_row_ >= 0) return {block_of(bad_row_), true};
    k_.block_ic_load(view_, a_, source_, scale_.data(), shift, plan_.value_count, values_.data());
    const kernels::BlockIcStatus status =
        k_.block_ic_factor(view_, plan_.level_ptr, values_.data(), inverse_.data());
    if (status.ok() && !plan_.operators) {
      narrow();
    } else if (status.ok()) {
      k_.block_ic_operators(view_, values_.data(), inverse_.data(), scale_.data(),
                            forward_diagonal_.data(), forward_.data(), backward_diagonal_.data(),
                            backward_.data());
    }
    return status;
  }
  BlockIcOperators operators() override {
    return {forward_diagonal_.data(), forward_.data(), backward_diagonal_.data(), backward_.data()};
  }
  void set_factor(const std::vector<double>& values, const std::vector<double>& scale) override {
    if (values.size() != values_.size() || scale.size() != scale_.size()) {
      throw Error("block_ic: the host factor does not fit the plan");
    }
    std::copy(values.begin(), values.end(), values_.begin());
    std::copy(scale.begin(), scale.end(), scale_.begin());
    narrow();
  }
  void forward(const Vector& r, Vector& u) override {
    if (plan_.float_solves) {
      k_.block_ic_forward(view_, plan_.level_ptr, values_.data(), narrow_.data(), scale_.data(),
                          r.data(), u.data());
    } else {
      k_.block_ic_forward(view_, plan_.level_ptr, values_.data(), values_.data(), scale_.data(),
                          r.data(), u.data());
    }
  }
  void backward(const Vector& u, Vector& w, Vector& z) override {
    if (plan_.float_solves) {
      k_.block_ic_backward(view_, plan_.level_ptr, values_.data(), narrow_.data(), scale_.data(),
                           u.data(), w.data(), z.data());
    } else {
      k_.block_ic_backward(view_, plan_.level_ptr, values_.data(), values_.data(), scale_.data(),
                           u.data(), w.data(), z.data());
    }
  }

  std::size_t host_bytes() const override {
    using common::bytes_of;
    return plan_bytes(plan_) + bytes_of(scale_) + bytes_of(values_) + bytes_of(inverse_) +
           bytes_of(forward_diagonal_) + bytes_of(forward_) + bytes_of(backward_diagonal_) +
           bytes_of(backward_) + bytes_of(narrow_);
  }

 private:
  static std::size_t plan_bytes(const kernels::BlockIcPlan& p) {
    using common::bytes_of;
    return bytes_of(p.block_ptr) + bytes_of(p.row_ptr) + bytes_of(p.col) + bytes_of(p.entry_row) +
           bytes_of(p.transpose_prefix) + bytes_of(p.offset) + bytes_of(p.diagonal) +
           bytes_of(p.inverse) + bytes_of(p.scatter) + bytes_of(p.a_row_ptr) + bytes_of(p.a_col) +
           bytes_of(p.a_diagonal) + bytes_of(p.forward_ptr) + bytes_of(p.backward_ptr) +
           bytes_of(p.forward_diagonal_ptr) + bytes_of(p.backward_diagonal_ptr) +
           bytes_of(p.level_ptr) + bytes_of(p.level_blocks) + bytes_of(p.transpose_ptr) +
           bytes_of(p.transpose_entry);
  }
  static std::size_t last(const std::vector<index_t>& ptr) {
    return ptr.empty() ? 0 : static_cast<std::size_t>(ptr.back());
  }
  void narrow() {
    if (plan_.float_solves) narrow_.assign(values_.begin(), values_.end());
  }
  index_t block_of(index_t row) const {
    index_t b = 0;
    while (plan_.block_ptr[b + 1] <= row) ++b;
    return b;
  }

  const HostKernels& k_;  // the backend's
  kernels::BlockIcPlan plan_;
  kernels::BlockIcView view_;  // into plan_
  const double* a_ = nullptr;
  const index_t* source_ = nullptr;
  index_t bad_row_ = -1;
  common::HostArray<double> scale_, values_, inverse_;
  std::vector<double> forward_diagonal_, forward_, backward_diagonal_, backward_;
  std::vector<float> narrow_;  // the factor in float (float_solves)
};

}  // namespace

std::unique_ptr<BlockIcFactor> make_host_block_ic_factor(const kernels::BlockIcPlan& plan,
                                                         const HostKernels& kernels) {
  return std::make_unique<HostBlockIcFactor>(plan, kernels);
}

}  // namespace prism::backend
