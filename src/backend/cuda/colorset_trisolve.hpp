#pragma once
// The color-set triangular solve on the CUDA backend: the strict triangle and the
// inverse diagonal in device memory, one kernel launch per independent row block, the
// strict triangle stored as CSR or SELL-32 and its values in double or float.

#include "backend/backend.hpp"
#include "backend/split_triangle.hpp"
#include "common/memory.hpp"
#include "kernels/cuda/colorset.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/ic0.hpp"
#include "kernels/cuda/sell.hpp"

#include <cuda_runtime.h>

#include <memory>
#include <string>
#include <vector>

namespace prism::backend::cuda {

/// A strict triangle in device memory (kernels/cuda/ic0_analysis.hpp), with its
/// independent row blocks found on the host (independent_blocks_from_reach) and the map of
/// its entries into a factor on the device.
struct DeviceStrict {
  bool lower = true;
  index_t rows = 0;
  index_t nnz = 0;
  const index_t* row_ptr = nullptr;    // rows + 1
  const index_t* col_idx = nullptr;    // nnz
  const index_t* to_factor = nullptr;  // strict entry k holds factor entry to_factor[k]
  std::vector<index_t> block_ptr;      // host
};

/// The independent row blocks of strict triangles of `rows` rows from each strict row's
/// reach in device memory (kernels/cuda/independent_blocks.hpp; a null reach: that
/// triangle is not wanted, its blocks come back empty): found on the device, or for a
/// triangle of more than kDeviceBlocksLimit blocks scanned on the host from its reaches
/// read back (independent_blocks_from_reach). The bounds SplitTriangle's block_ptr holds
/// ({0} for both where rows is 0).
struct RowBlocks {
  std::vector<index_t> lower, upper;
};
RowBlocks independent_blocks_on_device(const index_t* lower_reach, const index_t* upper_reach,
                                       index_t rows, cudaStream_t stream);

/// One triangle of a color-set solve on the device: pattern, values, inverse diagonal.
class DeviceColorset {
 public:
  DeviceColorset() = default;
  /// Lays out `split`'s strict triangle (its values are not uploaded). With
  /// `strict_to_factor` (strict entry k comes from entry strict_to_factor[k] of a factor
  /// on the device), that factorization can write the values (pair_output).
  DeviceColorset(const SplitTriangle& split, const std::vector<index_t>& strict_to_factor,
                 Precision precision, ColorsetLayout layout, cudaStream_t stream);

  /// The same storage as the constructor above on a split of the same pattern, laid out
  /// from device memory: `factor_dest` (factor_entries) receives on the device what
  /// factor_destinations(factor_entries) returns there, and no host map is kept (as after
  /// release_host_maps()). Reads back only the CSR row pointers (CSR layout) or the SELL
  /// stored count (automatic layout).
  DeviceColorset(const DeviceStrict& strict, std::size_t factor_entries,
                 kernels::cuda::DeviceBuffer<index_t>& factor_dest, Precision precision,
                 ColorsetLayout layout, cudaStream_t stream);

  /// The same storage laid out from device memory for a triangle whose values come from
  /// device memory (gather_from): strict.to_factor maps each strict entry to its entry of
  /// the triangle, `diagonal` (taken) each row's diagonal to its entry; the maps
  /// update_from() makes from a host split of the triangle, made here on the device (no
  /// host map kept). Holds zero strict entries and a unit inverse diagonal until then.
  DeviceColorset(const DeviceStrict& strict, kernels::cuda::DeviceBuffer<index_t> diagonal,
                 Precision precision, ColorsetLayout layout, cudaStream_t stream);

  /// "csr" or "sell".
  std::string layout() const { return sell_ ? "sell" : "csr"; }
  /// Host memory kept: the ranges and the maps to the stored entries.
  std::size_t host_bytes() const {
    return common::bytes_of(range_ptr_) + common::bytes_of(range_slice_) +
           common::bytes_of(host_source_) + common::bytes_of(host_factor_source_);
  }
  /// For storage a device factorization writes (pair_output), after factor_destinations():
  /// the host maps, which only upload() and update_from() read (they refuse afterwards).
  void release_host_maps() {
    common::release(host_source_);
    common::release(host_factor_source_);
    maps_released_ = true;
  }
  /// Values from the host: split's strict values and inverse diagonal (rounded already
  /// when mixed). Synchronizes: the host vectors may change afterwards.
  void upload(const SplitTriangle& split, cudaStream_t stream);
  /// Values in device memory, in the order of the triangle `split` was made from (its
  /// entries, diagonal included): gathered into the storage, the diagonal inverted.
  void update_from(const SplitTriangle& split, const double* values, cudaStream_t stream);
  /// update_from() through the maps on the device (made by update_from() or the
  /// triangle constructor above; throws Error where there are none).
  void gather_from(const double* values, cudaStream_t stream);
  /// dest[p] = the stored entry that holds entry p of the factor (through the
  /// strict_to_factor map given at construction; -1 where none), p < factor_entries.
  std::vector<index_t> factor_destinations(std::size_t factor_entries) const;
  /// Where a device factorization writes L for a pair (lower = L, upper = L^T): the
  /// maps from factor_destinations (on the device), and each triangle's values and
  /// inverse diagonal in its precision.
  static kernels::cuda::Ic0Output pair_output(DeviceColorset& lower, DeviceColorset& upper,
                                              const index_t* lower_dest, const index_t* upper_dest,
                                              const double* row_scale);
  /// Solves (D + S) x = b. x may alias b.
  void solve(const double* b, double* x, cudaStream_t stream) const;
  /// solve() for the columns `cols` (device, `count` of them) of blocks of rows() rows
  /// (backend/columns.hpp), each row of the factor read once for all of them; SELL as
  /// solve() computes each column, bit for bit.
  void solve_columns(const index_t* cols, int count, const double* b, double* x,
                     cudaStream_t stream) const;
  /// For a lower triangle in SELL written by a device factorization (pair_output): its
  /// entries in the first range's columns hold l_rc * dl_c (kernels/cuda/sell.hpp,
  /// sell_colorset_solve, first_scaled), as forward_pair requires and solve() takes into
  /// account; upload() then refuses host values. A CSR or upper triangle is left as it is.
  void scale_first_range() { first_scaled_ = sell_ && lower_; }

  /// Both triangles of a pair in SELL: forward_pair / backward_pair apply (the lower one
  /// with scale_first_range).
  static bool pair_fuses(const DeviceColorset& lower, const DeviceColorset& upper) {
    return lower.sell_ && upper.sell_;
  }
  /// z = (L L^T)^{-1} b in two halves for lower = L and upper = L^T with pair_fuses
  /// (kernels/cuda/sell.hpp, sell_llt_forward): equal bit for bit to lower.solve(b, y),
  /// upper.solve(y, z), without the first color's forward and the last color's backward
  /// pass (nor the backward pass of upper's last range). y and z must not alias b.
  /// With `partials` (not null) the halves also write partial sums of (b, z) (as
  /// |L^{-1} b|^2) and return their count; backward's go after forward's, both within
  /// pair_dot_capacity (kernels/cuda/sell.hpp, sell_llt_forward).
  static int forward_pair(const DeviceColorset& lower, const DeviceColorset& upper, const double* b,
                          double* y, double* z, double* partials, cudaStream_t stream);
  static int backward_pair(const DeviceColorset& lower, const DeviceColorset& upper,
                           const double* b, const double* y, double* z, double* partials,
                           cudaStream_t stream);
  /// forward_pair / backward_pair for the columns `cols` (device, `count` of them) of blocks
  /// of rows() rows, each row of the factor read once for all of them, each column as the
  /// one-column halves compute it; their partials for listed column c from c * stride on
  /// (kernels/cuda/columns.hpp, sell_llt_forward_columns), stride >= pair_dot_capacity.
  static int forward_pair_columns(const DeviceColorset& lower, const DeviceColorset& upper,
                                  const index_t* cols, int count, const double* b, double* y,
                                  double* z, double* partials, int stride, cudaStream_t stream);
  static int backward_pair_columns(const DeviceColorset& lower, const DeviceColorset& upper,
                                   const index_t* cols, int count, const double* b, const double* y,
                                   double* z, double* partials, int stride, cudaStream_t stream);
  static int pair_dot_capacity(const DeviceColorset& lower, const DeviceColorset& upper) {
    return kernels::cuda::sell_llt_dot_capacity(lower.range_ptr_, upper.range_ptr_);
  }
  /// Bytes the pair's halves do not move against two solve() calls, in the solves'
  /// traffic model (precond/ic0.cpp): the rows of the two skipped passes, less the first
  /// range's right-hand side and inverse diagonal read a second time by the backward half.
  /// Rows of the upper triangle's last range before the lower's last range also skip
  /// their backward pass (sell_llt_forward); they are not counted, so the modeled bytes
  /// stay an upper bound.
  static double pair_bytes_saved(const DeviceColorset& lower);

 private:
  template <typename V>
  kernels::cuda::SellTriangle<V> sell_triangle(const V* values, const V* inverse) const {
    return {{slice_ptr_.data(), col_idx_.data(), values}, inverse, &range_ptr_, &range_slice_};
  }
  /// The storage of a strict triangle in device memory (layout and columns), without
  /// its values; returns the SELL layout's map (stored entry <- strict entry, -1:
  /// padding), empty for CSR.
  kernels::cuda::DeviceBuffer<index_t> lay_out(const DeviceStrict& strict, ColorsetLayout layout,
                                               cudaStream_t stream);
  void allocate_values();
  template <typename V>
  void solve_with(const V* values, const V* inverse, const double* b, double* x,
                  cudaStream_t stream) const;
  template <typename V>
  void solve_columns_with(const V* values, const V* inverse, const index_t* cols, int count,
                          const double* b, double* x, cudaStream_t stream) const;

  bool lower_ = true;
  bool sell_ = false;
  bool first_scaled_ = false;   // scale_first_range
  bool maps_released_ = false;  // release_host_maps
  Precision precision_ = Precision::fp64;
  index_t rows_ = 0;
  // CSR: row_ptr_, col_idx_, plan_. SELL: slice_ptr_, col_idx_, range_ptr_, range_slice_.
  kernels::cuda::DeviceBuffer<index_t> row_ptr_, slice_ptr_, col_idx_;
  kernels::cuda::ColorsetPlan plan_;
  std::vector<index_t> range_ptr_, range_slice_;
  std::vector<index_t> host_source_;         // stored entry <- strict CSR entry
  std::vector<index_t> host_factor_source_;  // stored entry <- factor entry (or empty)
  // update_from's maps: stored entry <- triangle entry (-1: padding), row <- its diagonal.
  kernels::cuda::DeviceBuffer<index_t> from_triangle_, diagonal_from_triangle_;
  kernels::cuda::DeviceBuffer<double> values_, inverse_;
  kernels::cuda::DeviceBuffer<float> values32_, inverse32_;
};

std::unique_ptr<TriangularSolver> make_colorset_trisolve(SplitTriangle split, ColorsetLayout layout,
                                                         cudaStream_t stream);

}  // namespace prism::backend::cuda
