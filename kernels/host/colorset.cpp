#include <prism/errors.hpp>

#include "kernels/host/sell_lanes.hpp"
#include "kernels/host/team.hpp"

namespace prism::kernels::host {
namespace {

/// Rows a thread takes at least in one block: below twice this a block is a sequential
/// step, and runs of such blocks go to one thread between two synchronisations.
constexpr index_t kRowsPerThread = 256;

/// The view of a layout's arrays (values unset).
SellRangesView ranges_view(const SellLayout& layout) {
  return {layout.rows,
          static_cast<int>(layout.range_ptr.size()) - 1,
          layout.range_ptr.data(),
          layout.range_slice.data(),
          layout.slice_ptr.data(),
          layout.col_idx.data(),
          nullptr};
}

/// One block's rows [begin, end), each as reference::colorset_solve computes it.
void solve_rows(const CsrView<double>& strict, const double* inverse_diagonal, const double* b,
                double* x, index_t begin, index_t end) {
  for (index_t i = begin; i < end; ++i) {
    double sum = 0.0;
    for (index_t k = strict.row_ptr[i]; k < strict.row_ptr[i + 1]; ++k) {
      sum += strict.values[k] * x[strict.col_idx[k]];
    }
    x[i] = (b[i] - sum) * inverse_diagonal[i];
  }
}

/// One block's slices [first, last) of the SELL-8 layout, the first holding rows from
/// `row` on (the block ends at row_end): each row as solve_rows computes it.
PRISM_SIMD_CLONES
void solve_slices(const SellRangesView& a, const double* inverse_diagonal, const double* b,
                  double* x, index_t first, index_t last, index_t row, index_t row_end) {
  for (index_t s = first; s < last; ++s, row += detail::kLanes) {
    double sum[detail::kLanes] = {};
    detail::add_slice(a.slice_ptr[s], a.slice_ptr[s + 1], a.col_idx, a.values, x, sum);
    const index_t lanes = std::min<index_t>(detail::kLanes, row_end - row);
    for (index_t l = 0; l < lanes; ++l) {
      x[row + l] = (b[row + l] - sum[l]) * inverse_diagonal[row + l];
    }
  }
}

/// The team of a color-set solve on `rows` rows, and the parts of a block of `count` rows.
int solve_team(int threads, index_t rows) {
  return static_cast<int>(std::clamp<index_t>(rows / kRowsPerThread, 1, threads));
}
index_t block_parts(int size, index_t count) {
  return std::min<index_t>(size, count / kRowsPerThread);
}

/// part(k, p, parts) for the parts of every block k on the solve's team: a block of
/// parts > 1 split over ranks 0 to parts - 1, a smaller one on rank 0. With `barriers`,
/// the blocks in dependency order (lower: first to last), runs of one-part blocks between
/// two barriers (the solve); without, in any order (the first writes of its storage).
template <typename Part>
void for_block_parts(int threads, index_t rows, const index_t* block_ptr, int num_blocks,
                     bool lower, bool barriers, const Part& part) {
  const auto block_at = [&](int step) { return lower ? step : num_blocks - 1 - step; };
  const auto rows_at = [&](int step) {
    const int k = block_at(step);
    return block_ptr[k + 1] - block_ptr[k];
  };
  detail::run_team(solve_team(threads, rows), [&](int rank, int size) {
    // Every thread walks the same steps; with barriers, one closes each.
    const auto parts_at = [&](int step) { return block_parts(size, rows_at(step)); };
    int step = 0;
    while (step < num_blocks) {
      const index_t parts = parts_at(step);
      if (parts > 1) {
        if (rank < parts) part(block_at(step), rank, static_cast<int>(parts));
        ++step;
      } else {
        int end = step + 1;
        while (end < num_blocks && parts_at(end) <= 1) ++end;
        if (rank == 0) {
          for (; step < end; ++step) part(block_at(step), 0, 1);
        }
        step = end;
      }
      if (barriers) detail::team_barrier();
    }
  });
}

/// body(first slice, last slice, its first row, the block's end row) on the slices of
/// part p of `parts` of range k.
template <typename Body>
void slice_part(const SellRangesView& a, int k, int p, int parts, const Body& body) {
  const index_t s0 = a.range_slice[k], count = a.range_slice[k + 1] - s0;
  const index_t first = s0 + detail::part_start(count, p, parts);
  const index_t last = s0 + detail::part_start(count, p + 1, parts);
  body(first, last, a.range_ptr[k] + (first - s0) * detail::kLanes, a.range_ptr[k + 1]);
}

}  // namespace

void colorset_touch(int threads, index_t rows, const index_t* block_ptr, int num_blocks,
                    const std::function<void(index_t, index_t)>& write) {
  for_block_parts(threads, rows, block_ptr, num_blocks, true, false, [&](int k, int p, int parts) {
    const index_t first = block_ptr[k], count = block_ptr[k + 1] - first;
    const index_t begin = first + detail::part_start(count, p, parts);
    const index_t end = first + detail::part_start(count, p + 1, parts);
    if (begin < end) write(begin, end);
  });
}

void colorset_solve(int threads, CsrView<double> strict, const double* inverse_diagonal,
                    const index_t* block_ptr, int num_blocks, bool lower, const double* b,
                    double* x) {
  for_block_parts(
      threads, strict.rows, block_ptr, num_blocks, lower, true, [&](int k, int p, int parts) {
        const index_t first = block_ptr[k], count = block_ptr[k + 1] - first;
        solve_rows(strict, inverse_diagonal, b, x, first + detail::part_start(count, p, parts),
                   first + detail::part_start(count, p + 1, parts));
      });
}

void colorset_solve_sell(int threads, SellRangesView a, const double* inverse_diagonal, bool lower,
                         const double* b, double* x) {
  for_block_parts(
      threads, a.rows, a.range_ptr, a.ranges, lower, true, [&](int k, int p, int parts) {
        slice_part(a, k, p, parts, [&](index_t first, index_t last, index_t row, index_t end) {
          solve_slices(a, inverse_diagonal, b, x, first, last, row, end);
        });
      });
}

void colorset_sell_place(int threads, const SellLayout& layout, index_t* slice_ptr,
                         index_t* col_idx, index_t* source) {
  if (layout.slice != detail::kLanes) {
    throw ConfigError("colorset_sell_place: the host SELL solve takes slices of " +
                      std::to_string(detail::kLanes) + " rows");
  }
  const SellRangesView a = ranges_view(layout);
  const index_t slices = static_cast<index_t>(layout.slice_ptr.size()) - 1;
  slice_ptr[slices] = layout.slice_ptr[static_cast<std::size_t>(slices)];
  for_block_parts(
      threads, a.rows, a.range_ptr, a.ranges, true, false, [&](int k, int p, int parts) {
        slice_part(a, k, p, parts, [&](index_t first, index_t last, index_t, index_t) {
          std::copy(a.slice_ptr + first, a.slice_ptr + last, slice_ptr + first);
          const index_t k0 = a.slice_ptr[first], k1 = a.slice_ptr[last];
          std::copy(a.col_idx + k0, a.col_idx + k1, col_idx + k0);
          std::copy(layout.source.begin() + k0, layout.source.begin() + k1, source + k0);
        });
      });
}

void colorset_sell_values(int threads, SellRangesView a, const index_t* source,
                          const double* strict_values, double* values) {
  for_block_parts(threads, a.rows, a.range_ptr, a.ranges, true, false,
                  [&](int k, int p, int parts) {
                    slice_part(a, k, p, parts, [&](index_t first, index_t last, index_t, index_t) {
                      for (index_t e = a.slice_ptr[first]; e < a.slice_ptr[last]; ++e) {
                        values[e] = source[e] >= 0 ? strict_values[source[e]] : 0.0;
                      }
                    });
                  });
}

}  // namespace prism::kernels::host
