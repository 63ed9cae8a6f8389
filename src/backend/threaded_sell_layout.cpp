#include "backend/threaded_sell_layout.hpp"

#include <prism/errors.hpp>

#include "common/parallel.hpp"

#include <algorithm>

namespace prism::backend {
namespace {

// Slices a host thread lays out at least: a few thousand rows.
constexpr std::size_t kSlicesPerPart = 256;

}  // namespace

kernels::SellLayout threaded_sell_layout(kernels::CsrView<double> a,
                                         const std::vector<index_t>& range_ptr, index_t slice) {
  if (range_ptr.size() < 2 || range_ptr.front() != 0 || range_ptr.back() != a.rows) {
    throw ConfigError("sell_layout: ranges must start at 0 and end at rows");
  }
  if (slice < 1) throw ConfigError("sell_layout: the slice must have at least one row");
  kernels::SellLayout s;
  s.rows = a.rows;
  s.slice = slice;
  s.range_ptr = range_ptr;
  // Each slice's first row and row count, range by range (slices never cross a range).
  s.range_slice.push_back(0);
  std::vector<index_t> first_row;
  for (std::size_t r = 0; r + 1 < range_ptr.size(); ++r) {
    if (range_ptr[r + 1] < range_ptr[r]) throw ConfigError("sell_layout: bad ranges");
    for (index_t first = range_ptr[r]; first < range_ptr[r + 1]; first += slice) {
      first_row.push_back(first);
    }
    s.range_slice.push_back(static_cast<index_t>(first_row.size()));
  }
  const std::size_t slices = first_row.size();
  // The end of a slice's rows: the next slice's first row, or its range's end.
  std::vector<index_t> last_row(slices);
  for (std::size_t r = 0; r + 1 < range_ptr.size(); ++r) {
    for (index_t k = s.range_slice[r]; k < s.range_slice[r + 1]; ++k) {
      last_row[k] = std::min<index_t>(first_row[k] + slice, range_ptr[r + 1]);
    }
  }
  // Widths in parts, their sums on one thread (a slice's start), then the entries in parts.
  s.slice_ptr.assign(slices + 1, 0);
  common::parallel_for(slices, kSlicesPerPart, [&](std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) {
      index_t width = 0;
      for (index_t i = first_row[k]; i < last_row[k]; ++i) {
        width = std::max(width, a.row_ptr[i + 1] - a.row_ptr[i]);
      }
      s.slice_ptr[k + 1] = width * slice;
    }
  });
  for (std::size_t k = 0; k < slices; ++k) s.slice_ptr[k + 1] += s.slice_ptr[k];
  s.col_idx.resize(static_cast<std::size_t>(s.slice_ptr[slices]));
  s.source.resize(s.col_idx.size());
  common::parallel_for(slices, kSlicesPerPart, [&](std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) {
      const index_t base = s.slice_ptr[k];
      std::fill(s.col_idx.begin() + base, s.col_idx.begin() + s.slice_ptr[k + 1], -1);
      std::fill(s.source.begin() + base, s.source.begin() + s.slice_ptr[k + 1], -1);
      for (index_t i = first_row[k]; i < last_row[k]; ++i) {
        const index_t lane = i - first_row[k];
        for (index_t e = a.row_ptr[i]; e < a.row_ptr[i + 1]; ++e) {
          const index_t at = base + (e - a.row_ptr[i]) * slice + lane;
          s.col_idx[at] = a.col_idx[e];
          s.source[at] = e;
        }
      }
    }
  });
  return s;
}

}  // namespace prism::backend
