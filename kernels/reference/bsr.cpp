#include "kernels/bsr.hpp"

#include <prism/errors.hpp>

#include <algorithm>
#include <limits>
#include <string>

namespace prism::kernels {

double bsr_padding(const BsrLayout& layout, index_t nnz) {
  return nnz > 0 ? static_cast<double>(layout.stored()) / static_cast<double>(nnz) : 1.0;
}

}  // namespace prism::kernels

namespace prism::kernels::reference {
namespace {

index_t ceil_div(index_t n, int b) {
  return static_cast<index_t>((static_cast<std::int64_t>(n) + b - 1) / b);
}

/// Rows [I b, min(I b + b, rows)) of block row I.
index_t block_row_end(const BsrLayout& layout, index_t block_row) {
  const std::int64_t end = static_cast<std::int64_t>(block_row + 1) * layout.block_size;
  return static_cast<index_t>(std::min<std::int64_t>(end, layout.rows));
}

}  // namespace

BsrLayout bsr_pattern(CsrView<double> a, int block_size) {
  if (block_size < 1) {
    throw ConfigError("bsr_pattern: block size " + std::to_string(block_size) + " is below 1");
  }
  BsrLayout s;
  s.rows = a.rows;
  s.cols = a.cols;
  s.block_size = block_size;
  const index_t block_rows = ceil_div(a.rows, block_size);
  // last_seen[J]: the last block row that stored block column J (a marker, no clearing).
  std::vector<index_t> last_seen(static_cast<std::size_t>(ceil_div(a.cols, block_size)), -1);
  s.block_row_ptr.reserve(static_cast<std::size_t>(block_rows) + 1);
  for (index_t br = 0; br < block_rows; ++br) {
    const std::size_t first = s.block_col_idx.size();
    for (index_t i = br * block_size; i < block_row_end(s, br); ++i) {
      for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        const index_t c = a.col_idx[k];
        if (c < 0 || c >= a.cols) {
          throw InvalidMatrixError("bsr_pattern: column " + std::to_string(c) + " in row " +
                                   std::to_string(i) + " outside [0, " + std::to_string(a.cols) +
                                   ")");
        }
        const index_t bc = c / block_size;
        if (last_seen[bc] == br) continue;
        last_seen[bc] = br;
        s.block_col_idx.push_back(bc);
      }
    }
    std::sort(s.block_col_idx.begin() + static_cast<std::ptrdiff_t>(first), s.block_col_idx.end());
    s.block_row_ptr.push_back(static_cast<index_t>(s.block_col_idx.size()));
  }
  return s;
}

void bsr_map(CsrView<double> a, BsrLayout& layout) {
  if (layout.stored() > std::numeric_limits<index_t>::max()) {
    throw InvalidMatrixError("bsr_map: " + std::to_string(layout.stored()) +
                             " stored values exceed the 32-bit index range");
  }
  const int b = layout.block_size;
  layout.source.assign(static_cast<std::size_t>(layout.stored()), -1);
  // slot[J]: the position of block column J in the current block row.
  std::vector<index_t> slot(static_cast<std::size_t>(ceil_div(layout.cols, b)), -1);
  for (index_t br = 0; br < layout.block_rows(); ++br) {
    for (index_t k = layout.block_row_ptr[br]; k < layout.block_row_ptr[br + 1]; ++k) {
      slot[layout.block_col_idx[k]] = k;
    }
    for (index_t i = br * b; i < block_row_end(layout, br); ++i) {
      const index_t r = i - br * b;
      for (index_t e = a.row_ptr[i]; e < a.row_ptr[i + 1]; ++e) {
        const index_t c = a.col_idx[e];
        const index_t k = c >= 0 && c < layout.cols ? slot[c / b] : -1;
        if (k < layout.block_row_ptr[br] || k >= layout.block_row_ptr[br + 1]) {
          throw InvalidMatrixError("bsr_map: entry (" + std::to_string(i) + ", " +
                                   std::to_string(c) + ") is not in the layout's pattern");
        }
        const std::size_t at =
            static_cast<std::size_t>(k) * b * b + static_cast<std::size_t>(r) * b + (c % b);
        if (layout.source[at] >= 0) {
          throw InvalidMatrixError("bsr_map: row " + std::to_string(i) + " holds column " +
                                   std::to_string(c) + " twice");
        }
        layout.source[at] = e;
      }
    }
  }
}

BsrLayout bsr_layout(CsrView<double> a, int block_size) {
  BsrLayout layout = bsr_pattern(a, block_size);
  bsr_map(a, layout);
  return layout;
}

void bsr_gather(const BsrLayout& layout, const double* values, std::vector<double>& out) {
  out.resize(layout.source.size());
  for (std::size_t k = 0; k < out.size(); ++k) {
    out[k] = layout.source[k] >= 0 ? values[layout.source[k]] : 0.0;
  }
}

void bsr_spmv(BsrView<double> a, const double* x, double* y) {
  const int b = a.block_size;
  for (index_t br = 0; br < a.block_rows; ++br) {
    for (int r = 0; r < b && static_cast<std::int64_t>(br) * b + r < a.rows; ++r) {
      double sum = 0.0;
      for (index_t k = a.block_row_ptr[br]; k < a.block_row_ptr[br + 1]; ++k) {
        const double* row = a.values + static_cast<std::size_t>(k) * b * b + r * b;
        for (int c = 0; c < b; ++c) {
          const std::int64_t col = static_cast<std::int64_t>(a.block_col_idx[k]) * b + c;
          if (col < a.cols) sum += row[c] * x[col];
        }
      }
      y[static_cast<std::size_t>(br) * b + r] = sum;
    }
  }
}

}  // namespace prism::kernels::reference
