#include "backend/host_line_ic.hpp"

#include "common/memory.hpp"
#include "kernels/line_ic.hpp"

namespace prism::backend {
namespace {

class HostLineIcSolver final : public LineIcSolver {
 public:
  HostLineIcSolver(const LineIcFactor& pattern, const HostKernels& kernels)
      : factor_(pattern), k_(kernels) {}
  void update_values(const LineIcFactor& factor) override {
    factor_.lower.values = factor.lower.values;
    factor_.upper.values = factor.upper.values;
    factor_.sub = factor.sub;
    factor_.inverse_diagonal = factor.inverse_diagonal;
  }
  void forward(const Vector& r, Vector& w) override {
    if (k_.kind() == CpuKernels::reference) {
      kernels::reference::line_ic_forward(view(), r.data(), w.data());
    } else {
      kernels::host::line_ic_forward(k_.threads(), view(), r.data(), w.data());
    }
  }
  void backward(const Vector& w, Vector& z) override {
    if (k_.kind() == CpuKernels::reference) {
      kernels::reference::line_ic_backward(view(), w.data(), z.data());
    } else {
      kernels::host::line_ic_backward(k_.threads(), view(), w.data(), z.data());
    }
  }
  std::size_t host_bytes() const override {
    using common::bytes_of;
    return bytes_of(factor_.line_ptr) + bytes_of(factor_.color_ptr) + bytes_of(factor_.lower) +
           bytes_of(factor_.upper) + bytes_of(factor_.sub) + bytes_of(factor_.inverse_diagonal);
  }

 private:
  kernels::LineIcView view() const {
    const auto csr = [](const CsrMatrix<double>& m) {
      return kernels::CsrView<double>{m.rows, m.cols, m.row_ptr.data(), m.col_idx.data(),
                                      m.values.data()};
    };
    kernels::LineIcView v;
    v.rows = factor_.lower.rows;
    v.colors = static_cast<int>(factor_.color_ptr.size()) - 1;
    v.line_ptr = factor_.line_ptr.data();
    v.color_ptr = factor_.color_ptr.data();
    v.lower = csr(factor_.lower);
    v.upper = csr(factor_.upper);
    v.sub = factor_.sub.data();
    v.inverse_diagonal = factor_.inverse_diagonal.data();
    return v;
  }

  LineIcFactor factor_;
  const HostKernels& k_;  // the backend's
};

}  // namespace

std::unique_ptr<LineIcSolver> make_host_line_ic_solver(const LineIcFactor& pattern,
                                                       const HostKernels& kernels) {
  return std::make_unique<HostLineIcSolver>(pattern, kernels);
}

}  // namespace prism::backend
