#pragma once
// The kernels of the cpu backend, chosen once per backend: the reference kernels
// (kernels/reference, one thread, the oracle of every other kernel) or the threaded ones
// (kernels/host, the same operations on every host thread, sums in a fixed order).

#include <prism/options.hpp>

#include "kernels/block_ic.hpp"
#include "kernels/csr_view.hpp"
#include "kernels/ic0.hpp"
#include "kernels/sell.hpp"

#include <functional>
#include <memory>
#include <string>

namespace prism::backend {

/// The operations as kernels/blas1.hpp, spmv.hpp, colorset.hpp, matrix_values.hpp,
/// ic0.hpp and block_ic.hpp declare them, with the fused ones the backend's CG steps take.
class HostKernels {
 public:
  virtual ~HostKernels() = default;
  /// "reference kernels, 1 thread", "threaded kernels, 16 threads".
  virtual std::string description() const = 0;
  virtual CpuKernels kind() const = 0;
  virtual int threads() const = 0;

  virtual void spmv(kernels::CsrView<double> a, const double* x, double* y) const = 0;
  /// y = A x; returns x . y (reference: spmv then dot)
  virtual double spmv_dot(kernels::CsrView<double> a, const double* x, double* y) const = 0;
  /// Whether spmv_dot() is one pass.
  virtual bool fuses_spmv_dot() const = 0;
  /// The SELL-8 SpMV and its fused dot (kernels/host: sell_spmv), and the first writes of
  /// its storage, on threads() threads (the cpu backend gives the reference kernels no
  /// SELL matrix: their CSR SpMV is the oracle).
  void sell_spmv(kernels::SellView a, const double* x, double* y) const;
  double sell_spmv_dot(kernels::SellView a, const double* x, double* y) const;
  void sell_place(const kernels::SellLayout& layout, index_t* slice_ptr, index_t* col_idx,
                  index_t* source) const;
  void sell_values(kernels::SellView a, const index_t* source, const double* csr_values,
                   double* values) const;
  /// The color-set solve on a SELL-8 strict triangle (kernels/host: colorset_solve_sell)
  /// and the first writes of its storage, on threads() threads.
  void colorset_solve_sell(kernels::SellRangesView a, const double* inverse_diagonal, bool lower,
                           const double* b, double* x) const;
  void colorset_sell_place(const kernels::SellLayout& layout, index_t* slice_ptr, index_t* col_idx,
                           index_t* source) const;
  void colorset_sell_values(kernels::SellRangesView a, const index_t* source,
                            const double* strict_values, double* values) const;
  /// write(begin, end) on the rows of colorset_solve's parts, each on the thread that
  /// solves them: the first writes of a split factor (SplitTriangle).
  void colorset_touch(index_t rows, const index_t* block_ptr, int num_blocks,
                      const std::function<void(index_t, index_t)>& write) const;
  virtual double dot(index_t n, const double* x, const double* y) const = 0;
  virtual void axpy(index_t n, double a, const double* x, double* y) const = 0;
  virtual void xpay(index_t n, const double* x, double b, double* y) const = 0;
  /// x += a p, then p = z + b p
  virtual void axpy_xpay(index_t n, double a, double b, const double* z, double* p,
                         double* x) const = 0;
  virtual double cg_update(index_t n, double alpha, const double* p, const double* q, double* x,
                           double* r) const = 0;
  virtual double cg_residual(index_t n, double alpha, const double* q, double* r) const = 0;
  virtual void pointwise_multiply(index_t n, const double* d, const double* x, double* y) const = 0;
  virtual void copy(index_t n, const double* x, double* y) const = 0;
  virtual void gather(index_t n, const index_t* perm, const double* x, double* y) const = 0;
  /// The first writes of new storage (common::HostArray), by the threads and in the parts
  /// of the kernels that read it (first touch); the reference's on the calling thread.
  virtual void fill(index_t n, double value, double* x) const = 0;
  /// a's arrays into new storage in the SpMV's parts (a.rows + 1 row pointers).
  virtual void copy_csr(kernels::CsrView<double> a, index_t* row_ptr, index_t* col_idx,
                        double* values) const = 0;
  /// Zeroes the factor's and the inverted diagonal blocks' storage in the parts of
  /// block_ic_factor.
  virtual void block_ic_touch(const kernels::BlockIcView& p, const std::vector<index_t>& level_ptr,
                              double* values, double* inverse) const = 0;
  virtual void colorset_solve(kernels::CsrView<double> strict, const double* inverse_diagonal,
                              const index_t* block_ptr, int num_blocks, bool lower, const double* b,
                              double* x) const = 0;
  virtual index_t first_bad_value(index_t n, const double* values, const index_t* mirror,
                                  double tolerance) const = 0;
  virtual double largest_finite_magnitude(index_t n, const double* x) const = 0;
  virtual index_t invert_positive(index_t n, double* x) const = 0;

  virtual kernels::Ic0Status ic0_scale(kernels::CsrView<double> lower, const index_t* source,
                                       const double* a, double* scaled,
                                       double* row_scale) const = 0;
  /// The rows of block k of `block_ptr` read only rows of earlier blocks (the threaded
  /// kernels factor a block's rows at once; the reference ignores the blocks).
  virtual kernels::Ic0Status ic0_factorize(kernels::CsrView<double> lower, const index_t* block_ptr,
                                           int num_blocks, double* values, double shift) const = 0;
  virtual index_t block_ic_scale(const kernels::BlockIcView& p, const double* a,
                                 const index_t* source, double* scale) const = 0;
  virtual void block_ic_load(const kernels::BlockIcView& p, const double* a, const index_t* source,
                             const double* scale, double shift, std::int64_t value_count,
                             double* values) const = 0;
  virtual kernels::BlockIcStatus block_ic_factor(const kernels::BlockIcView& p,
                                                 const std::vector<index_t>& level_ptr,
                                                 double* values, double* inverse) const = 0;
  virtual void block_ic_operators(const kernels::BlockIcView& p, const double* values,
                                  const double* inverse, const double* scale,
                                  double* forward_diagonal, double* forward,
                                  double* backward_diagonal, double* backward) const = 0;
  /// The factor's solves (block_ic.solve: trsv), the off-diagonal blocks in double or
  /// float.
  virtual void block_ic_forward(const kernels::BlockIcView& p,
                                const std::vector<index_t>& level_ptr, const double* values,
                                const double* blocks, const double* scale, const double* r,
                                double* u) const = 0;
  virtual void block_ic_forward(const kernels::BlockIcView& p,
                                const std::vector<index_t>& level_ptr, const double* values,
                                const float* blocks, const double* scale, const double* r,
                                double* u) const = 0;
  virtual void block_ic_backward(const kernels::BlockIcView& p,
                                 const std::vector<index_t>& level_ptr, const double* values,
                                 const double* blocks, const double* scale, const double* u,
                                 double* w, double* z) const = 0;
  virtual void block_ic_backward(const kernels::BlockIcView& p,
                                 const std::vector<index_t>& level_ptr, const double* values,
                                 const float* blocks, const double* scale, const double* u,
                                 double* w, double* z) const = 0;
  /// m tridiagonal systems of n rows, contiguous (kernels/tridiagonal.hpp).
  virtual void tridiagonal_solve(index_t n, index_t m, const double* a, const double* b,
                                 const double* c, const double* d, double* x) const = 0;
};

/// The reference kernels, or the threaded ones on `threads` threads (0:
/// common::host_threads(), the machine's or PRISM_HOST_THREADS; one where prism was built
/// without OpenMP).
std::unique_ptr<HostKernels> make_host_kernels(CpuKernels kind, int threads = 0);

}  // namespace prism::backend
