#include "kernels/host/team.hpp"

#include <cmath>
#include <vector>

namespace prism::kernels::host {
namespace {

/// Rows a thread takes at least in one block: below twice this a block runs on the
/// calling thread, with the small blocks next to it.
constexpr index_t kRowsPerThread = 128;

/// Row i of the factor, the reference's own; false (and `status`) on a bad pivot.
bool factor_row(const CsrView<double>& lower, double* values, double shift, index_t i,
                Ic0Status& status) {
  status = reference::ic0_factor_row(lower, values, shift, i);
  return status.ok();
}

/// Rows [begin, end) in order, stopping at the first bad pivot (the reference's verdict).
Ic0Status factor_rows(const CsrView<double>& lower, double* values, double shift, index_t begin,
                      index_t end) {
  Ic0Status status;
  for (index_t i = begin; i < end; ++i) {
    if (!factor_row(lower, values, shift, i, status)) break;
  }
  return status;
}

}  // namespace

Ic0Status ic0_scale(int threads, CsrView<double> lower, const index_t* source, const double* a,
                    double* scaled, double* row_scale) {
  const index_t n = lower.rows;
  std::vector<double> s(static_cast<std::size_t>(n));
  const index_t bad_row = detail::first_index(threads, n, [&](index_t begin, index_t end) {
    for (index_t i = begin; i < end; ++i) {
      const double d = a[source[lower.row_ptr[i + 1] - 1]];
      if (!(d > 0.0) || !std::isfinite(d)) return i;
      row_scale[i] = std::sqrt(d);
      s[i] = 1.0 / row_scale[i];
    }
    return index_t{-1};
  });
  if (bad_row >= 0) return Ic0Status{bad_row, a[source[lower.row_ptr[bad_row + 1] - 1]], true};
  detail::for_parts(threads, n, [&](index_t begin, index_t end) {
    for (index_t i = begin; i < end; ++i) {
      for (index_t k = lower.row_ptr[i]; k < lower.row_ptr[i + 1]; ++k) {
        scaled[k] = a[source[k]] * s[i] * s[lower.col_idx[k]];
      }
    }
  });
  return Ic0Status{};
}

Ic0Status ic0_factorize(int threads, CsrView<double> lower, const index_t* block_ptr,
                        int num_blocks, double* values, double shift) {
  const auto rows_of = [&](int b) { return block_ptr[b + 1] - block_ptr[b]; };
  const auto small = [&](int b) { return threads <= 1 || rows_of(b) < 2 * kRowsPerThread; };
  int b = 0;
  while (b < num_blocks) {
    Ic0Status status;
    if (small(b)) {
      // A run of small blocks in row order: the reference's order, and its first failure.
      int end = b + 1;
      while (end < num_blocks && small(end)) ++end;
      status = factor_rows(lower, values, shift, block_ptr[b], block_ptr[end]);
      b = end;
    } else {
      // The rows of one block read only earlier blocks: in parts at once. Parts are in row
      // order, so the first part that fails holds the block's smallest failing row.
      const index_t first = block_ptr[b];
      for (const Ic0Status& part : detail::scan_items<Ic0Status>(
               threads, rows_of(b), kRowsPerThread, Ic0Status{}, [&](index_t begin, index_t end) {
                 return factor_rows(lower, values, shift, first + begin, first + end);
               })) {
        if (!part.ok()) {
          status = part;
          break;
        }
      }
      ++b;
    }
    if (!status.ok()) return status;
  }
  return Ic0Status{};
}

}  // namespace prism::kernels::host
