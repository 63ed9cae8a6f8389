#include "backend/cuda/colorset_trisolve.hpp"

#include "backend/cuda/cuda_vector.hpp"
#include "backend/threaded_sell_layout.hpp"
#include "common/parallel.hpp"
#include "kernels/cuda/blas1.hpp"
#include "kernels/cuda/columns.hpp"
#include "kernels/cuda/device_info.hpp"
#include "kernels/cuda/ic0.hpp"
#include "kernels/cuda/ic0_analysis.hpp"
#include "kernels/cuda/independent_blocks.hpp"
#include "kernels/cuda/matrix_values.hpp"
#include "kernels/cuda/sell.hpp"
#include "kernels/cuda/sell_layout.hpp"
#include "kernels/sell.hpp"

#include <cstdint>
#include <numeric>
#include <optional>

namespace prism::backend::cuda {

using kernels::cuda::DeviceBuffer;

namespace {

// Entries a host thread maps at least in the set-up's loops over stored entries.
constexpr std::size_t kEntriesPerPart = std::size_t{1} << 18;

/// The automatic layout's first test: SELL for blocks large enough to fill the GPU with
/// one thread per row (kernels/sell.hpp); its second is the padding.
bool large_blocks(index_t rows, const std::vector<index_t>& block_ptr) {
  const std::size_t blocks = block_ptr.size() - 1;
  return blocks > 0 && static_cast<double>(rows) / static_cast<double>(blocks) >=
                           kernels::kSellAutoMinBlockFraction * kernels::cuda::resident_threads();
}

}  // namespace

DeviceColorset::DeviceColorset(const SplitTriangle& split,
                               const std::vector<index_t>& strict_to_factor, Precision precision,
                               ColorsetLayout layout, cudaStream_t stream)
    : lower_(split.lower()), precision_(precision), rows_(split.strict().rows) {
  const StrictTriangle& strict = split.strict();
  const kernels::CsrView<double> view{strict.rows, strict.cols, strict.row_ptr.data(),
                                      strict.col_idx.data(), nullptr};
  std::vector<index_t> source;  // stored entry <- strict CSR entry
  // auto: SELL for little padding and large blocks.
  if (layout == ColorsetLayout::sell ||
      (layout == ColorsetLayout::automatic && large_blocks(rows_, split.block_ptr()))) {
    kernels::SellLayout sell = threaded_sell_layout(view, split.block_ptr());
    if (layout == ColorsetLayout::sell ||
        kernels::sell_padding(sell, strict.nnz()) <= kernels::kSellAutoMaxPadding) {
      sell_ = true;
      slice_ptr_ = kernels::cuda::upload_and_wait(sell.slice_ptr, stream);
      col_idx_ = kernels::cuda::upload_and_wait(sell.col_idx, stream);
      range_ptr_ = std::move(sell.range_ptr);
      range_slice_ = std::move(sell.range_slice);
      source = std::move(sell.source);
    }
  }
  if (!sell_) {
    row_ptr_ = kernels::cuda::upload_and_wait(strict.row_ptr, stream);
    col_idx_ = kernels::cuda::upload_and_wait(strict.col_idx, stream);
    plan_ = kernels::cuda::colorset_plan(strict.row_ptr.data(), split.block_ptr(), stream);
    source.resize(strict.col_idx.size());
    std::iota(source.begin(), source.end(), index_t{0});
  }
  if (!strict_to_factor.empty()) {
    host_factor_source_.resize(source.size());
    // Memory-bound: entries in parts on host threads.
    common::parallel_for(source.size(), kEntriesPerPart, [&](std::size_t first, std::size_t last) {
      for (std::size_t k = first; k < last; ++k) {
        host_factor_source_[k] = source[k] >= 0 ? strict_to_factor[source[k]] : -1;
      }
    });
  }
  host_source_ = std::move(source);
  const std::size_t stored = host_source_.size(), n = static_cast<std::size_t>(rows_);
  if (precision_ == Precision::mixed) {
    values32_ = DeviceBuffer<float>(stored);
    inverse32_ = DeviceBuffer<float>(n);
  } else {
    values_ = DeviceBuffer<double>(stored);
    inverse_ = DeviceBuffer<double>(n);
  }
}

RowBlocks independent_blocks_on_device(const index_t* lower_reach, const index_t* upper_reach,
                                       index_t rows, cudaStream_t stream) {
  if (rows <= 0) return {{0}, {0}};  // one empty block bound, as the host split gives
  kernels::cuda::DeviceBlocks found =
      kernels::cuda::independent_blocks_device(lower_reach, upper_reach, rows, stream);
  const auto blocks = [&](const index_t* reach, std::optional<std::vector<index_t>>& bounds,
                          bool lower) -> std::vector<index_t> {
    if (reach == nullptr) return {};
    if (bounds) return std::move(*bounds);
    const auto n = static_cast<std::size_t>(rows);
    return independent_blocks_from_reach(kernels::cuda::download_and_wait(reach, n, stream).data(),
                                         rows, lower);
  };
  RowBlocks out;
  out.lower = blocks(lower_reach, found.lower, true);
  out.upper = blocks(upper_reach, found.upper, false);
  return out;
}

DeviceBuffer<index_t> DeviceColorset::lay_out(const DeviceStrict& strict, ColorsetLayout layout,
                                              cudaStream_t stream) {
  DeviceBuffer<index_t> source;  // SELL: stored entry <- strict entry (-1: padding)
  if (layout == ColorsetLayout::sell ||
      (layout == ColorsetLayout::automatic && large_blocks(rows_, strict.block_ptr))) {
    // The host constructor's padding test (kernels::sell_padding) on the counted layout.
    bool take = layout == ColorsetLayout::sell;
    if (!take) {
      const std::int64_t count = kernels::cuda::sell_stored_device(strict.row_ptr, strict.block_ptr,
                                                                   kernels::kSellSlice, stream);
      const double padding =
          strict.nnz > 0 ? static_cast<double>(count) / static_cast<double>(strict.nnz) : 1.0;
      take = padding <= kernels::kSellAutoMaxPadding;
    }
    if (take) {
      kernels::cuda::DeviceSellLayout sell = kernels::cuda::sell_layout_device(
          strict.row_ptr, strict.col_idx, rows_, strict.block_ptr, kernels::kSellSlice, stream);
      sell_ = true;
      slice_ptr_ = std::move(sell.slice_ptr);
      col_idx_ = std::move(sell.col_idx);
      source = std::move(sell.source);
      range_ptr_ = std::move(sell.range_ptr);
      range_slice_ = std::move(sell.range_slice);
    }
  }
  if (!sell_) {
    const auto n = static_cast<std::size_t>(rows_);
    const auto stored = static_cast<std::size_t>(strict.nnz);
    row_ptr_ = DeviceBuffer<index_t>(n + 1);
    col_idx_ = DeviceBuffer<index_t>(stored);
    PRISM_CUDA_CHECK(cudaMemcpyAsync(row_ptr_.data(), strict.row_ptr, (n + 1) * sizeof(index_t),
                                     cudaMemcpyDeviceToDevice, stream));
    if (stored > 0) {
      PRISM_CUDA_CHECK(cudaMemcpyAsync(col_idx_.data(), strict.col_idx, stored * sizeof(index_t),
                                       cudaMemcpyDeviceToDevice, stream));
    }
    // The plan's schedule is made on the host from the row pointers (n + 1 numbers).
    const std::vector<index_t> host_row_ptr = kernels::cuda::download_and_wait(row_ptr_, stream);
    plan_ = kernels::cuda::colorset_plan(host_row_ptr.data(), strict.block_ptr, stream);
  }
  return source;
}

void DeviceColorset::allocate_values() {
  const std::size_t stored = col_idx_.size(), n = static_cast<std::size_t>(rows_);
  if (precision_ == Precision::mixed) {
    values32_ = DeviceBuffer<float>(stored);
    inverse32_ = DeviceBuffer<float>(n);
  } else {
    values_ = DeviceBuffer<double>(stored);
    inverse_ = DeviceBuffer<double>(n);
  }
}

DeviceColorset::DeviceColorset(const DeviceStrict& strict, std::size_t factor_entries,
                               DeviceBuffer<index_t>& factor_dest, Precision precision,
                               ColorsetLayout layout, cudaStream_t stream)
    : lower_(strict.lower), maps_released_(true), precision_(precision), rows_(strict.rows) {
  const DeviceBuffer<index_t> source = lay_out(strict, layout, stream);
  factor_dest = DeviceBuffer<index_t>(factor_entries);
  kernels::cuda::factor_destinations(col_idx_.size(), sell_ ? source.data() : nullptr,
                                     strict.to_factor, factor_entries, factor_dest.data(), stream);
  allocate_values();
  // `source` goes here: freeing it waits for the scatter.
}

DeviceColorset::DeviceColorset(const DeviceStrict& strict, DeviceBuffer<index_t> diagonal,
                               Precision precision, ColorsetLayout layout, cudaStream_t stream)
    : lower_(strict.lower), maps_released_(true), precision_(precision), rows_(strict.rows) {
  if (diagonal.size() != static_cast<std::size_t>(rows_)) {
    throw Error("color-set triangle: " + std::to_string(diagonal.size()) + " diagonals for " +
                std::to_string(rows_) + " rows");
  }
  const DeviceBuffer<index_t> source = lay_out(strict, layout, stream);
  const std::size_t stored = col_idx_.size();
  // update_from's maps: stored entry <- strict entry <- triangle entry.
  from_triangle_ = DeviceBuffer<index_t>(stored);
  if (sell_) {
    kernels::cuda::compose_maps(stored, source.data(), strict.to_factor, from_triangle_.data(),
                                stream);
  } else if (stored > 0) {
    PRISM_CUDA_CHECK(cudaMemcpyAsync(from_triangle_.data(), strict.to_factor,
                                     stored * sizeof(index_t), cudaMemcpyDeviceToDevice, stream));
  }
  diagonal_from_triangle_ = std::move(diagonal);
  allocate_values();
  const auto count = static_cast<index_t>(stored);
  if (precision_ == Precision::mixed) {
    kernels::cuda::fill_values(count, 0.0f, values32_.data(), stream);
    kernels::cuda::fill_values(rows_, 1.0f, inverse32_.data(), stream);
  } else {
    kernels::cuda::fill_values(count, 0.0, values_.data(), stream);
    kernels::cuda::fill_values(rows_, 1.0, inverse_.data(), stream);
  }
  PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));  // `source` goes: the composition is done
}

void DeviceColorset::upload(const SplitTriangle& split, cudaStream_t stream) {
  if (first_scaled_) throw Error("color-set triangle: a scaled first range takes no host values");
  if (maps_released_) throw Error("color-set triangle: its host maps were released");
  const common::HostArray<double>& strict = split.strict().values;
  auto fill = [&](auto& values, auto& inverse, auto zero) {
    using T = decltype(zero);
    std::vector<T> v(host_source_.size());
    for (std::size_t k = 0; k < v.size(); ++k) {
      v[k] = host_source_[k] >= 0 ? static_cast<T>(strict[host_source_[k]]) : zero;
    }
    const std::vector<T> d(split.inverse_diagonal().begin(), split.inverse_diagonal().end());
    values.upload(v.data(), stream);
    inverse.upload(d.data(), stream);
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));  // v and d go away
  };
  if (precision_ == Precision::mixed) {
    fill(values32_, inverse32_, 0.0f);
  } else {
    fill(values_, inverse_, 0.0);
  }
}

void DeviceColorset::update_from(const SplitTriangle& split, const double* values,
                                 cudaStream_t stream) {
  if (first_scaled_) throw Error("color-set triangle: a scaled first range takes no values");
  if (maps_released_) throw Error("color-set triangle: its host maps were released");
  if (from_triangle_.size() == 0 && !host_source_.empty()) {
    std::vector<index_t> from(host_source_.size());
    for (std::size_t k = 0; k < from.size(); ++k) {
      from[k] = host_source_[k] >= 0 ? split.strict_source()[host_source_[k]] : -1;
    }
    from_triangle_ = kernels::cuda::upload_and_wait(from, stream);
  }
  if (diagonal_from_triangle_.size() == 0) {
    diagonal_from_triangle_ = kernels::cuda::upload_and_wait(split.diagonal_source(), stream);
  }
  gather_from(values, stream);
}

void DeviceColorset::gather_from(const double* values, cudaStream_t stream) {
  if (first_scaled_) throw Error("color-set triangle: a scaled first range takes no values");
  if (diagonal_from_triangle_.size() != static_cast<std::size_t>(rows_)) {
    throw Error("color-set triangle: no map from the triangle's values");
  }
  const auto stored = static_cast<index_t>(col_idx_.size());
  if (precision_ == Precision::mixed) {
    kernels::cuda::gather_values(stored, values, from_triangle_.data(), values32_.data(), stream);
    kernels::cuda::gather_inverse(rows_, values, diagonal_from_triangle_.data(), inverse32_.data(),
                                  stream);
  } else {
    kernels::cuda::gather_values(stored, values, from_triangle_.data(), values_.data(), stream);
    kernels::cuda::gather_inverse(rows_, values, diagonal_from_triangle_.data(), inverse_.data(),
                                  stream);
  }
}

std::vector<index_t> DeviceColorset::factor_destinations(std::size_t factor_entries) const {
  std::vector<index_t> dest(factor_entries, -1);
  // Each factor entry has at most one stored place: the parts write apart.
  common::parallel_for(host_factor_source_.size(), kEntriesPerPart,
                       [&](std::size_t first, std::size_t last) {
                         for (std::size_t k = first; k < last; ++k) {
                           const index_t from = host_factor_source_[k];
                           if (from >= 0) dest[from] = static_cast<index_t>(k);
                         }
                       });
  return dest;
}

kernels::cuda::Ic0Output DeviceColorset::pair_output(DeviceColorset& lower, DeviceColorset& upper,
                                                     const index_t* lower_dest,
                                                     const index_t* upper_dest,
                                                     const double* row_scale) {
  kernels::cuda::Ic0Output out;
  out.lower_dest = lower_dest;
  out.upper_dest = upper_dest;
  out.row_scale = row_scale;
  out.scaled_end = lower.first_scaled_ && lower.range_ptr_.size() > 2 ? lower.range_ptr_[1] : 0;
  if (lower.precision_ == Precision::mixed) {
    out.lower32 = lower.values32_.data();
    out.upper32 = upper.values32_.data();
    out.lower_inverse32 = lower.inverse32_.data();
    out.upper_inverse32 = upper.inverse32_.data();
  } else {
    out.lower = lower.values_.data();
    out.upper = upper.values_.data();
    out.lower_inverse = lower.inverse_.data();
    out.upper_inverse = upper.inverse_.data();
  }
  return out;
}

template <typename V>
void DeviceColorset::solve_with(const V* values, const V* inverse, const double* b, double* x,
                                cudaStream_t stream) const {
  if (sell_) {
    const kernels::cuda::SellView<V> view{slice_ptr_.data(), col_idx_.data(), values};
    kernels::cuda::sell_colorset_solve(view, inverse, range_ptr_, range_slice_, lower_,
                                       first_scaled_, b, x, stream);
  } else {
    const kernels::CsrView<V> view{rows_, rows_, row_ptr_.data(), col_idx_.data(), values};
    kernels::cuda::colorset_solve(view, inverse, plan_, lower_, b, x, stream);
  }
}

void DeviceColorset::solve(const double* b, double* x, cudaStream_t stream) const {
  if (precision_ == Precision::mixed) {
    solve_with(values32_.data(), inverse32_.data(), b, x, stream);
  } else {
    solve_with(values_.data(), inverse_.data(), b, x, stream);
  }
}

template <typename V>
void DeviceColorset::solve_columns_with(const V* values, const V* inverse, const index_t* cols,
                                        int count, const double* b, double* x,
                                        cudaStream_t stream) const {
  if (sell_) {
    const kernels::cuda::SellView<V> view{slice_ptr_.data(), col_idx_.data(), values};
    kernels::cuda::sell_colorset_solve_columns(view, inverse, range_ptr_, range_slice_, lower_,
                                               first_scaled_, cols, count, b, x, stream);
  } else {
    const kernels::CsrView<V> view{rows_, rows_, row_ptr_.data(), col_idx_.data(), values};
    kernels::cuda::colorset_solve_columns(view, inverse, plan_, lower_, cols, count, b, x, stream);
  }
}

void DeviceColorset::solve_columns(const index_t* cols, int count, const double* b, double* x,
                                   cudaStream_t stream) const {
  if (precision_ == Precision::mixed) {
    solve_columns_with(values32_.data(), inverse32_.data(), cols, count, b, x, stream);
  } else {
    solve_columns_with(values_.data(), inverse_.data(), cols, count, b, x, stream);
  }
}

int DeviceColorset::forward_pair(const DeviceColorset& lower, const DeviceColorset& upper,
                                 const double* b, double* y, double* z, double* partials,
                                 cudaStream_t stream) {
  if (!lower.first_scaled_) {
    throw Error("color-set pair: the lower triangle's first range is not scaled");
  }
  if (lower.precision_ == Precision::mixed) {
    return kernels::cuda::sell_llt_forward(
        lower.sell_triangle(lower.values32_.data(), lower.inverse32_.data()),
        upper.sell_triangle(upper.values32_.data(), upper.inverse32_.data()), b, y, z, partials,
        stream);
  }
  return kernels::cuda::sell_llt_forward(
      lower.sell_triangle(lower.values_.data(), lower.inverse_.data()),
      upper.sell_triangle(upper.values_.data(), upper.inverse_.data()), b, y, z, partials, stream);
}

int DeviceColorset::backward_pair(const DeviceColorset& lower, const DeviceColorset& upper,
                                  const double* b, const double* y, double* z, double* partials,
                                  cudaStream_t stream) {
  if (lower.precision_ == Precision::mixed) {
    return kernels::cuda::sell_llt_backward(
        upper.sell_triangle(upper.values32_.data(), upper.inverse32_.data()),
        lower.sell_triangle(lower.values32_.data(), lower.inverse32_.data()), b, y, z, partials,
        stream);
  }
  return kernels::cuda::sell_llt_backward(
      upper.sell_triangle(upper.values_.data(), upper.inverse_.data()),
      lower.sell_triangle(lower.values_.data(), lower.inverse_.data()), b, y, z, partials, stream);
}

int DeviceColorset::forward_pair_columns(const DeviceColorset& lower, const DeviceColorset& upper,
                                         const index_t* cols, int count, const double* b, double* y,
                                         double* z, double* partials, int stride,
                                         cudaStream_t stream) {
  if (!lower.first_scaled_) {
    throw Error("color-set pair: the lower triangle's first range is not scaled");
  }
  if (lower.precision_ == Precision::mixed) {
    return kernels::cuda::sell_llt_forward_columns(
        lower.sell_triangle(lower.values32_.data(), lower.inverse32_.data()),
        upper.sell_triangle(upper.values32_.data(), upper.inverse32_.data()), cols, count, b, y, z,
        partials, stride, stream);
  }
  return kernels::cuda::sell_llt_forward_columns(
      lower.sell_triangle(lower.values_.data(), lower.inverse_.data()),
      upper.sell_triangle(upper.values_.data(), upper.inverse_.data()), cols, count, b, y, z,
      partials, stride, stream);
}

int DeviceColorset::backward_pair_columns(const DeviceColorset& lower, const DeviceColorset& upper,
                                          const index_t* cols, int count, const double* b,
                                          const double* y, double* z, double* partials, int stride,
                                          cudaStream_t stream) {
  if (lower.precision_ == Precision::mixed) {
    return kernels::cuda::sell_llt_backward_columns(
        upper.sell_triangle(upper.values32_.data(), upper.inverse32_.data()),
        lower.sell_triangle(lower.values32_.data(), lower.inverse32_.data()), cols, count, b, y, z,
        partials, stride, stream);
  }
  return kernels::cuda::sell_llt_backward_columns(
      upper.sell_triangle(upper.values_.data(), upper.inverse_.data()),
      lower.sell_triangle(lower.values_.data(), lower.inverse_.data()), cols, count, b, y, z,
      partials, stride, stream);
}

double DeviceColorset::pair_bytes_saved(const DeviceColorset& lower) {
  // Per row and pass the solves' model counts the diagonal as an entry (value + 4 B)
  // and 28 B of vectors and row pointer.
  const std::vector<index_t>& ptr = lower.range_ptr_;
  if (ptr.size() < 2) return 0.0;
  const double value_bytes = lower.precision_ == Precision::mixed ? 4.0 : 8.0;
  const double pass = 32.0 + value_bytes;
  const double first = static_cast<double>(ptr[1]);
  // One range: one pass does both steps, reading the second inverse diagonal.
  if (ptr.size() == 2) return first * (pass - value_bytes);
  const double last = static_cast<double>(ptr.back() - ptr[ptr.size() - 2]);
  return (first + last) * pass - first * (8.0 + value_bytes);
}

namespace {

class ColorsetTrisolve final : public TriangularSolver {
 public:
  ColorsetTrisolve(SplitTriangle split, ColorsetLayout layout, cudaStream_t stream)
      : split_(std::move(split)),
        stream_(stream),
        device_(split_, {}, split_.precision(), layout, stream) {
    device_.upload(split_, stream_);
  }

  index_t rows() const override { return split_.strict().rows; }
  index_t nnz() const override { return split_.strict().nnz() + split_.strict().rows; }
  std::string algorithm() const override { return "colorset"; }
  std::string layout() const override { return device_.layout(); }

  void update_values(const std::vector<double>& values) override {
    split_.update(values);
    device_.upload(split_, stream_);
  }

  void update_values_on_backend(const double* values) override {
    device_.update_from(split_, values, stream_);
  }

  void solve(const Vector& b, Vector& x) override {
    device_.solve(cast(b).data(), cast(x).data(), stream_);
  }
  bool solves_columns() const override { return true; }
  void solve_columns(const Vector& b, Vector& x, const ColumnSet& set) override {
    device_.solve_columns(set.backend_columns(), set.count(), b.data(), x.data(), stream_);
  }
  // split_ stays: update_values() refills it and update_values_on_backend() reads its maps.
  std::size_t host_bytes() const override { return split_.host_bytes() + device_.host_bytes(); }

 private:
  SplitTriangle split_;
  cudaStream_t stream_;
  DeviceColorset device_;
};

}  // namespace

std::unique_ptr<TriangularSolver> make_colorset_trisolve(SplitTriangle split, ColorsetLayout layout,
                                                         cudaStream_t stream) {
  return std::make_unique<ColorsetTrisolve>(std::move(split), layout, stream);
}

}  // namespace prism::backend::cuda
