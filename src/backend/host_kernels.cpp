#include "backend/host_kernels.hpp"

#include "common/parallel.hpp"
#include "kernels/blas1.hpp"
#include "kernels/block_ic.hpp"
#include "kernels/colorset.hpp"
#include "kernels/host/threaded.hpp"
#include "kernels/ic0.hpp"
#include "kernels/matrix_values.hpp"
#include "kernels/spmv.hpp"
#include "kernels/tridiagonal.hpp"

namespace prism::backend {
namespace {

namespace ref = prism::kernels::reference;
namespace host = prism::kernels::host;
using kernels::BlockIcView;
using kernels::CsrView;

class ReferenceKernels final : public HostKernels {
 public:
  std::string description() const override { return "reference kernels, 1 thread"; }
  CpuKernels kind() const override { return CpuKernels::reference; }
  int threads() const override { return 1; }
  void spmv(CsrView<double> a, const double* x, double* y) const override { ref::spmv(a, x, y); }
  double spmv_dot(CsrView<double> a, const double* x, double* y) const override {
    ref::spmv(a, x, y);
    return ref::dot(a.rows, x, y);
  }
  bool fuses_spmv_dot() const override { return false; }
  double dot(index_t n, const double* x, const double* y) const override {
    return ref::dot(n, x, y);
  }
  void axpy(index_t n, double a, const double* x, double* y) const override {
    ref::axpy(n, a, x, y);
  }
  void xpay(index_t n, const double* x, double b, double* y) const override {
    ref::xpay(n, x, b, y);
  }
  void axpy_xpay(index_t n, double a, double b, const double* z, double* p,
                 double* x) const override {
    ref::axpy(n, a, p, x);
    ref::xpay(n, z, b, p);
  }
  double cg_update(index_t n, double alpha, const double* p, const double* q, double* x,
                   double* r) const override {
    return ref::cg_update(n, alpha, p, q, x, r);
  }
  double cg_residual(index_t n, double alpha, const double* q, double* r) const override {
    return ref::cg_residual(n, alpha, q, r);
  }
  void pointwise_multiply(index_t n, const double* d, const double* x, double* y) const override {
    ref::pointwise_multiply(n, d, x, y);
  }
  void copy(index_t n, const double* x, double* y) const override { ref::copy(n, x, y); }
  void gather(index_t n, const index_t* perm, const double* x, double* y) const override {
    ref::gather(n, perm, x, y);
  }
  // The first writes on the calling thread alone: the threaded kernels' on a team of one.
  void fill(index_t n, double value, double* x) const override { host::fill(1, n, value, x); }
  void copy_csr(CsrView<double> a, index_t* row_ptr, index_t* col_idx,
                double* values) const override {
    host::copy_csr(1, a, row_ptr, col_idx, values);
  }
  void block_ic_touch(const BlockIcView& p, const std::vector<index_t>& level_ptr, double* values,
                      double* inverse) const override {
    host::block_ic_touch(1, p, level_ptr, values, inverse);
  }
  void colorset_solve(CsrView<double> strict, const double* inverse_diagonal,
                      const index_t* block_ptr, int num_blocks, bool lower, const double* b,
                      double* x) const override {
    ref::colorset_solve(strict, inverse_diagonal, block_ptr, num_blocks, lower, b, x);
  }
  index_t first_bad_value(index_t n, const double* values, const index_t* mirror,
                          double tolerance) const override {
    return ref::first_bad_value(n, values, mirror, tolerance);
  }
  double largest_finite_magnitude(index_t n, const double* x) const override {
    return ref::largest_finite_magnitude(n, x);
  }
  index_t invert_positive(index_t n, double* x) const override {
    return ref::invert_positive(n, x);
  }
  kernels::Ic0Status ic0_scale(CsrView<double> lower, const index_t* source, const double* a,
                               double* scaled, double* row_scale) const override {
    return ref::ic0_scale(lower, source, a, scaled, row_scale);
  }
  kernels::Ic0Status ic0_factorize(CsrView<double> lower, const index_t*, int, double* values,
                                   double shift) const override {
    return ref::ic0_factorize(lower, values, shift);
  }
  index_t block_ic_scale(const BlockIcView& p, const double* a, const index_t* source,
                         double* scale) const override {
    return ref::block_ic_scale(p, a, source, scale);
  }
  void block_ic_load(const BlockIcView& p, const double* a, const index_t* source,
                     const double* scale, double shift, std::int64_t value_count,
                     double* values) const override {
    ref::block_ic_load(p, a, source, scale, shift, value_count, values);
  }
  kernels::BlockIcStatus block_ic_factor(const BlockIcView& p,
                                         const std::vector<index_t>& level_ptr, double* values,
                                         double* inverse) const override {
    return ref::block_ic_factor(p, level_ptr, values, inverse);
  }
  void block_ic_operators(const BlockIcView& p, const double* values, const double* inverse,
                          const double* scale, double* forward_diagonal, double* forward,
                          double* backward_diagonal, double* backward) const override {
    ref::block_ic_operators(p, values, inverse, scale, forward_diagonal, forward, backward_diagonal,
                            backward);
  }
  void block_ic_forward(const BlockIcView& p, const std::vector<index_t>&, const double* values,
                        const double* blocks, const double* scale, const double* r,
                        double* u) const override {
    forward(p, values, blocks, scale, r, u);
  }
  void block_ic_forward(const BlockIcView& p, const std::vector<index_t>&, const double* values,
                        const float* blocks, const double* scale, const double* r,
                        double* u) const override {
    forward(p, values, blocks, scale, r, u);
  }
  void block_ic_backward(const BlockIcView& p, const std::vector<index_t>&, const double* values,
                         const double* blocks, const double* scale, const double* u, double* w,
                         double* z) const override {
    backward(p, values, blocks, scale, u, w, z);
  }
  void block_ic_backward(const BlockIcView& p, const std::vector<index_t>&, const double* values,
                         const float* blocks, const double* scale, const double* u, double* w,
                         double* z) const override {
    backward(p, values, blocks, scale, u, w, z);
  }

  void tridiagonal_solve(index_t n, index_t m, const double* a, const double* b, const double* c,
                         const double* d, double* x) const override {
    ref::tridiagonal_solve(kernels::TridiagonalLayout::contiguous, n, m, a, b, c, d, x);
  }

 private:
  // Block row by block row in the natural order (the reference ignores the levels).
  template <typename T>
  static void forward(const BlockIcView& p, const double* values, const T* blocks,
                      const double* scale, const double* r, double* u) {
    for (index_t b = 0; b < p.blocks; ++b) {
      ref::block_ic_forward_row(p, b, values, blocks, scale, r, u);
    }
  }
  template <typename T>
  static void backward(const BlockIcView& p, const double* values, const T* blocks,
                       const double* scale, const double* u, double* w, double* z) {
    for (index_t b = p.blocks - 1; b >= 0; --b) {
      ref::block_ic_backward_row(p, b, values, blocks, scale, u, w, z);
    }
  }
};

class ThreadedKernels final : public HostKernels {
 public:
  explicit ThreadedKernels(int threads) : t_(threads) {}
  std::string description() const override {
    return "threaded kernels, " + std::to_string(t_) + (t_ == 1 ? " thread" : " threads");
  }
  CpuKernels kind() const override { return CpuKernels::threaded; }
  int threads() const override { return t_; }
  void spmv(CsrView<double> a, const double* x, double* y) const override {
    host::spmv(t_, a, x, y);
  }
  double spmv_dot(CsrView<double> a, const double* x, double* y) const override {
    return host::spmv_dot(t_, a, x, y);
  }
  bool fuses_spmv_dot() const override { return true; }
  double dot(index_t n, const double* x, const double* y) const override {
    return host::dot(t_, n, x, y);
  }
  void axpy(index_t n, double a, const double* x, double* y) const override {
    host::axpy(t_, n, a, x, y);
  }
  void xpay(index_t n, const double* x, double b, double* y) const override {
    host::xpay(t_, n, x, b, y);
  }
  void axpy_xpay(index_t n, double a, double b, const double* z, double* p,
                 double* x) const override {
    host::axpy_xpay(t_, n, a, b, z, p, x);
  }
  double cg_update(index_t n, double alpha, const double* p, const double* q, double* x,
                   double* r) const override {
    return host::cg_update(t_, n, alpha, p, q, x, r);
  }
  double cg_residual(index_t n, double alpha, const double* q, double* r) const override {
    return host::cg_residual(t_, n, alpha, q, r);
  }
  void pointwise_multiply(index_t n, const double* d, const double* x, double* y) const override {
    host::pointwise_multiply(t_, n, d, x, y);
  }
  void copy(index_t n, const double* x, double* y) const override { host::copy(t_, n, x, y); }
  void gather(index_t n, const index_t* perm, const double* x, double* y) const override {
    host::gather(t_, n, perm, x, y);
  }
  void fill(index_t n, double value, double* x) const override { host::fill(t_, n, value, x); }
  void copy_csr(CsrView<double> a, index_t* row_ptr, index_t* col_idx,
                double* values) const override {
    host::copy_csr(t_, a, row_ptr, col_idx, values);
  }
  void block_ic_touch(const BlockIcView& p, const std::vector<index_t>& level_ptr, double* values,
                      double* inverse) const override {
    host::block_ic_touch(t_, p, level_ptr, values, inverse);
  }
  void colorset_solve(CsrView<double> strict, const double* inverse_diagonal,
                      const index_t* block_ptr, int num_blocks, bool lower, const double* b,
                      double* x) const override {
    host::colorset_solve(t_, strict, inverse_diagonal, block_ptr, num_blocks, lower, b, x);
  }
  index_t first_bad_value(index_t n, const double* values, const index_t* mirror,
                          double tolerance) const override {
    return host::first_bad_value(t_, n, values, mirror, tolerance);
  }
  double largest_finite_magnitude(index_t n, const double* x) const override {
    return host::largest_finite_magnitude(t_, n, x);
  }
  index_t invert_positive(index_t n, double* x) const override {
    return host::invert_positive(t_, n, x);
  }
  kernels::Ic0Status ic0_scale(CsrView<double> lower, const index_t* source, const double* a,
                               double* scaled, double* row_scale) const override {
    return host::ic0_scale(t_, lower, source, a, scaled, row_scale);
  }
  kernels::Ic0Status ic0_factorize(CsrView<double> lower, const index_t* block_ptr, int num_blocks,
                                   double* values, double shift) const override {
    return host::ic0_factorize(t_, lower, block_ptr, num_blocks, values, shift);
  }
  index_t block_ic_scale(const BlockIcView& p, const double* a, const index_t* source,
                         double* scale) const override {
    return host::block_ic_scale(t_, p, a, source, scale);
  }
  void block_ic_load(const BlockIcView& p, const double* a, const index_t* source,
                     const double* scale, double shift, std::int64_t value_count,
                     double* values) const override {
    host::block_ic_load(t_, p, a, source, scale, shift, value_count, values);
  }
  kernels::BlockIcStatus block_ic_factor(const BlockIcView& p,
                                         const std::vector<index_t>& level_ptr, double* values,
                                         double* inverse) const override {
    return host::block_ic_factor(t_, p, level_ptr, values, inverse);
  }
  void block_ic_operators(const BlockIcView& p, const double* values, const double* inverse,
                          const double* scale, double* forward_diagonal, double* forward,
                          double* backward_diagonal, double* backward) const override {
    host::block_ic_operators(t_, p, values, inverse, scale, forward_diagonal, forward,
                             backward_diagonal, backward);
  }
  void block_ic_forward(const BlockIcView& p, const std::vector<index_t>& level_ptr,
                        const double* values, const double* blocks, const double* scale,
                        const double* r, double* u) const override {
    host::block_ic_forward(t_, p, level_ptr, values, blocks, scale, r, u);
  }
  void block_ic_forward(const BlockIcView& p, const std::vector<index_t>& level_ptr,
                        const double* values, const float* blocks, const double* scale,
                        const double* r, double* u) const override {
    host::block_ic_forward(t_, p, level_ptr, values, blocks, scale, r, u);
  }
  void block_ic_backward(const BlockIcView& p, const std::vector<index_t>& level_ptr,
                         const double* values, const double* blocks, const double* scale,
                         const double* u, double* w, double* z) const override {
    host::block_ic_backward(t_, p, level_ptr, values, blocks, scale, u, w, z);
  }
  void block_ic_backward(const BlockIcView& p, const std::vector<index_t>& level_ptr,
                         const double* values, const float* blocks, const double* scale,
                         const double* u, double* w, double* z) const override {
    host::block_ic_backward(t_, p, level_ptr, values, blocks, scale, u, w, z);
  }

  void tridiagonal_solve(index_t n, index_t m, const double* a, const double* b, const double* c,
                         const double* d, double* x) const override {
    host::tridiagonal_solve(t_, n, m, a, b, c, d, x);
  }

 private:
  int t_;
};

}  // namespace

void HostKernels::sell_spmv(kernels::SellView a, const double* x, double* y) const {
  host::sell_spmv(threads(), a, x, y);
}
double HostKernels::sell_spmv_dot(kernels::SellView a, const double* x, double* y) const {
  return host::sell_spmv_dot(threads(), a, x, y);
}
void HostKernels::sell_place(const kernels::SellLayout& layout, index_t* slice_ptr,
                             index_t* col_idx, index_t* source) const {
  host::sell_place(threads(), layout, slice_ptr, col_idx, source);
}
void HostKernels::sell_values(kernels::SellView a, const index_t* source, const double* csr_values,
                              double* values) const {
  host::sell_values(threads(), a, source, csr_values, values);
}

void HostKernels::colorset_solve_sell(kernels::SellRangesView a, const double* inverse_diagonal,
                                      bool lower, const double* b, double* x) const {
  host::colorset_solve_sell(threads(), a, inverse_diagonal, lower, b, x);
}
void HostKernels::colorset_sell_place(const kernels::SellLayout& layout, index_t* slice_ptr,
                                      index_t* col_idx, index_t* source) const {
  host::colorset_sell_place(threads(), layout, slice_ptr, col_idx, source);
}
void HostKernels::colorset_sell_values(kernels::SellRangesView a, const index_t* source,
                                       const double* strict_values, double* values) const {
  host::colorset_sell_values(threads(), a, source, strict_values, values);
}
void HostKernels::colorset_touch(index_t rows, const index_t* block_ptr, int num_blocks,
                                 const std::function<void(index_t, index_t)>& write) const {
  host::colorset_touch(threads(), rows, block_ptr, num_blocks, write);
}

std::unique_ptr<HostKernels> make_host_kernels(CpuKernels kind, int threads) {
  if (kind == CpuKernels::reference) return std::make_unique<ReferenceKernels>();
  if (!host::threads_available()) threads = 1;
  return std::make_unique<ThreadedKernels>(threads > 0 ? threads : common::host_threads());
}

}  // namespace prism::backend
