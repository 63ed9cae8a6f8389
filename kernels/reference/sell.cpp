#include "kernels/sell.hpp"

#include <prism/errors.hpp>

#include <algorithm>

namespace prism::kernels {

SellLayout sell_layout(CsrView<double> a, const std::vector<index_t>& range_ptr, index_t slice) {
  if (range_ptr.size() < 2 || range_ptr.front() != 0 || range_ptr.back() != a.rows) {
    throw ConfigError("sell_layout: ranges must start at 0 and end at rows");
  }
  if (slice < 1) throw ConfigError("sell_layout: the slice must have at least one row");
  SellLayout s;
  s.rows = a.rows;
  s.slice = slice;
  s.range_ptr = range_ptr;
  s.range_slice.push_back(0);
  s.slice_ptr.push_back(0);
  for (std::size_t r = 0; r + 1 < range_ptr.size(); ++r) {
    if (range_ptr[r + 1] < range_ptr[r]) throw ConfigError("sell_layout: bad ranges");
    for (index_t first = range_ptr[r]; first < range_ptr[r + 1]; first += slice) {
      const index_t last = std::min<index_t>(first + slice, range_ptr[r + 1]);
      index_t width = 0;
      for (index_t i = first; i < last; ++i)
        width = std::max(width, a.row_ptr[i + 1] - a.row_ptr[i]);
      const index_t base = s.slice_ptr.back();
      s.col_idx.resize(static_cast<std::size_t>(base) + width * slice, -1);
      s.source.resize(s.col_idx.size(), -1);
      for (index_t i = first; i < last; ++i) {
        const index_t lane = i - first;
        for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
          const index_t at = base + (k - a.row_ptr[i]) * slice + lane;
          s.col_idx[at] = a.col_idx[k];
          s.source[at] = k;
        }
      }
      s.slice_ptr.push_back(static_cast<index_t>(s.col_idx.size()));
    }
    s.range_slice.push_back(static_cast<index_t>(s.slice_ptr.size()) - 1);
  }
  return s;
}

std::int64_t sell_stored(CsrView<double> a, const std::vector<index_t>& range_ptr, index_t slice) {
  std::int64_t stored = 0;
  for (std::size_t r = 0; r + 1 < range_ptr.size(); ++r) {
    for (index_t first = range_ptr[r]; first < range_ptr[r + 1]; first += slice) {
      const index_t last = std::min<index_t>(first + slice, range_ptr[r + 1]);
      index_t width = 0;
      for (index_t i = first; i < last; ++i)
        width = std::max(width, a.row_ptr[i + 1] - a.row_ptr[i]);
      stored += static_cast<std::int64_t>(width) * slice;
    }
  }
  return stored;
}

double sell_padding(const SellLayout& layout, index_t nnz) {
  return nnz > 0 ? static_cast<double>(layout.stored()) / static_cast<double>(nnz) : 1.0;
}

template <typename T>
void sell_gather(const SellLayout& layout, const double* values, std::vector<T>& out) {
  out.resize(layout.source.size());
  for (std::size_t k = 0; k < out.size(); ++k) {
    out[k] = layout.source[k] >= 0 ? static_cast<T>(values[layout.source[k]]) : T(0);
  }
}

template void sell_gather<double>(const SellLayout&, const double*, std::vector<double>&);
template void sell_gather<float>(const SellLayout&, const double*, std::vector<float>&);

}  // namespace prism::kernels
