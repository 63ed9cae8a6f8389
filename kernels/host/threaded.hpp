#pragma once
// The threaded host kernels: the reference kernels' operations (kernels/blas1.hpp,
// spmv.hpp, colorset.hpp, matrix_values.hpp, ic0.hpp, block_ic.hpp) on `threads` host
// threads (OpenMP when prism is built with it, else one). Each element and each row is
// computed as the reference computes it; only the sums differ: every reduction runs over
// fixed chunks of kReductionChunk entries (four interleaved partial sums inside a chunk,
// the chunk sums then added in order), so its result is the same bit for bit for any
// thread count. The factorizations have no such sums: their factors and verdicts are the
// reference's. Traffic per call as the reference's.

#include "kernels/block_ic.hpp"
#include "kernels/csr_view.hpp"
#include "kernels/ic0.hpp"
#include "kernels/sell.hpp"

#include <cstdint>
#include <functional>
#include <vector>

namespace prism::kernels::host {

/// The places (OMP_PLACES) OpenMP binds threads to, 0 where none are set or there is no
/// OpenMP. With OMP_PROC_BIND set, OpenMP binds the initial thread to the first place at
/// start-up, so the thread's own affinity no longer tells how many cores the process has.
int openmp_places() noexcept;

/// Entries per partial sum of a reduction: fixed, so sums do not depend on the threads.
inline constexpr index_t kReductionChunk = 1024;

/// Whether the threads are real: prism was built with OpenMP.
bool threads_available();

/// x . y
double dot(int threads, index_t n, const double* x, const double* y);

/// y += a x
void axpy(int threads, index_t n, double a, const double* x, double* y);

/// y = x + b y
void xpay(int threads, index_t n, const double* x, double b, double* y);

/// x += a p, then p = z + b p (one pass; the bits of axpy then xpay)
void axpy_xpay(int threads, index_t n, double a, double b, const double* z, double* p, double* x);

/// x += alpha p ; r -= alpha q ; returns r . r
double cg_update(int threads, index_t n, double alpha, const double* p, const double* q, double* x,
                 double* r);

/// r -= alpha q ; returns r . r
double cg_residual(int threads, index_t n, double alpha, const double* q, double* r);

/// y = d .* x
void pointwise_multiply(int threads, index_t n, const double* d, const double* x, double* y);

/// y = x
void copy(int threads, index_t n, const double* x, double* y);

/// y[i] = x[perm[i]]
void gather(int threads, index_t n, const index_t* perm, const double* x, double* y);

/// x = value, in the parts of the vector kernels: the first write of a new vector places
/// each part's pages with the thread that updates it (first touch).
void fill(int threads, index_t n, double value, double* x);

/// y = A x, the rows in parts of about equal nonzeros.
void spmv(int threads, CsrView<double> a, const double* x, double* y);

/// y = A x; returns x . y (one pass; the bits of spmv then dot).
double spmv_dot(int threads, CsrView<double> a, const double* x, double* y);

/// y = A x on A's SELL-8 layout (kernels/sell.hpp: C = kHostSellSlice, one range): the
/// lanes of a slice in SIMD registers, each row summed in reference::spmv's order (its
/// bits); the threads take whole chunks of rows of about equal stored entries.
void sell_spmv(int threads, SellView a, const double* x, double* y);

/// y = A x on the SELL-8 layout; returns x . y (one pass; the bits of spmv then dot).
double sell_spmv_dot(int threads, SellView a, const double* x, double* y);

/// Copies a SELL-8 layout of one range (slice pointers, columns, sources) into new
/// storage in sell_spmv's parts, so that each thread first touches the slices it
/// multiplies. Throws ConfigError for another slice or several ranges.
void sell_place(int threads, const SellLayout& layout, index_t* slice_ptr, index_t* col_idx,
                index_t* source);

/// values[k] = csr_values[source[k]], 0 for padding, in sell_spmv's parts (a's values
/// ignored): the SELL values of new storage (first touch) or of new CSR values.
void sell_values(int threads, SellView a, const index_t* source, const double* csr_values,
                 double* values);

/// Copies a's arrays (a.rows + 1 row pointers, then the entries) into new storage in the
/// SpMV's parts of rows, so that each thread first touches the rows it multiplies.
void copy_csr(int threads, CsrView<double> a, index_t* row_ptr, index_t* col_idx, double* values);

/// reference::colorset_solve with the rows of each large block in parallel; runs of small
/// blocks (a natural order's) go to one thread, so they cost no synchronisation each.
void colorset_solve(int threads, CsrView<double> strict, const double* inverse_diagonal,
                    const index_t* block_ptr, int num_blocks, bool lower, const double* b,
                    double* x);

/// write(begin, end) on the rows of colorset_solve's parts (`rows` rows in num_blocks
/// blocks), each part on the thread that solves it (runs of small blocks on the first):
/// the first writes of the solves' storage. write must not throw.
void colorset_touch(int threads, index_t rows, const index_t* block_ptr, int num_blocks,
                    const std::function<void(index_t, index_t)>& write);

/// colorset_solve on the strict triangle's SELL-8 layout with its blocks as the ranges
/// (sell_layout(strict, block_ptr, kHostSellSlice)): a slice's lanes at once, each row the
/// reference's bits; the blocks parted as colorset_solve parts them, in whole slices.
void colorset_solve_sell(int threads, SellRangesView a, const double* inverse_diagonal, bool lower,
                         const double* b, double* x);

/// Copies such a layout's slice pointers, columns and sources into new storage in
/// colorset_solve_sell's parts (first touch). Throws ConfigError for another slice.
void colorset_sell_place(int threads, const SellLayout& layout, index_t* slice_ptr,
                         index_t* col_idx, index_t* source);

/// values[k] = strict_values[source[k]], 0 for padding, in colorset_solve_sell's parts.
void colorset_sell_values(int threads, SellRangesView a, const index_t* source,
                          const double* strict_values, double* values);

/// reference::ic0_scale
Ic0Status ic0_scale(int threads, CsrView<double> lower, const index_t* source, const double* a,
                    double* scaled, double* row_scale);

/// reference::ic0_factorize with the rows of each large block in parallel. The rows of
/// block k, [block_ptr[k], block_ptr[k + 1]), must read only rows of earlier blocks (a
/// multicolor order's colors; SplitTriangle's blocks of the lower triangle). The same
/// factor and verdict: the smallest failing row of the first block with one (later
/// blocks are not computed).
Ic0Status ic0_factorize(int threads, CsrView<double> lower, const index_t* block_ptr,
                        int num_blocks, double* values, double shift);

/// reference::block_ic_scale
index_t block_ic_scale(int threads, const BlockIcView& p, const double* a, const index_t* source,
                       double* scale);

/// reference::block_ic_load
void block_ic_load(int threads, const BlockIcView& p, const double* a, const index_t* source,
                   const double* scale, double shift, std::int64_t value_count, double* values);

/// reference::block_ic_factor with the block rows of each level in parallel (the
/// reference's block rows, so its bits and its verdict).
BlockIcStatus block_ic_factor(int threads, const BlockIcView& p,
                              const std::vector<index_t>& level_ptr, double* values,
                              double* inverse);

/// Zeroes each block row's blocks of the factor (`values`) and of the inverted diagonal
/// blocks (`inverse`) in block_ic_factor's parts of each level: the first touch of new
/// storage, so a block row's pages sit with the thread that factors and solves it.
void block_ic_touch(int threads, const BlockIcView& p, const std::vector<index_t>& level_ptr,
                    double* values, double* inverse);

/// reference::block_ic_operators, the blocks and then the entries in parallel.
void block_ic_operators(int threads, const BlockIcView& p, const double* values,
                        const double* inverse, const double* scale, double* forward_diagonal,
                        double* forward, double* backward_diagonal, double* backward);

/// reference::block_ic_solve's halves, the block rows of each level in parallel
/// (forward in level order, backward in reverse): the reference's rows, so its bits.
template <typename T>
void block_ic_forward(int threads, const BlockIcView& p, const std::vector<index_t>& level_ptr,
                      const double* values, const T* blocks, const double* scale, const double* r,
                      double* u);
template <typename T>
void block_ic_backward(int threads, const BlockIcView& p, const std::vector<index_t>& level_ptr,
                       const double* values, const T* blocks, const double* scale, const double* u,
                       double* w, double* z);

/// reference::tridiagonal_solve of m contiguous systems of n rows, whole systems on each
/// thread (the reference's bits).
void tridiagonal_solve(int threads, index_t n, index_t m, const double* a, const double* b,
                       const double* c, const double* d, double* x);

/// reference::first_bad_value
index_t first_bad_value(int threads, index_t n, const double* values, const index_t* mirror,
                        double tolerance);

/// reference::largest_finite_magnitude
double largest_finite_magnitude(int threads, index_t n, const double* x);

/// reference::invert_positive
index_t invert_positive(int threads, index_t n, double* x);

}  // namespace prism::kernels::host
