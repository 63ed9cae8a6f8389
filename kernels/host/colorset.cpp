#include "kernels/host/team.hpp"

namespace prism::kernels::host {
namespace {

/// Rows a thread takes at least in one block: below twice this a block is a sequential
/// step, and runs of such blocks go to one thread between two synchronisations.
constexpr index_t kRowsPerThread = 256;

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

}  // namespace

void colorset_solve(int threads, CsrView<double> strict, const double* inverse_diagonal,
                    const index_t* block_ptr, int num_blocks, bool lower, const double* b,
                    double* x) {
  const auto block_at = [&](int step) { return lower ? step : num_blocks - 1 - step; };
  const auto rows_at = [&](int step) {
    const int k = block_at(step);
    return block_ptr[k + 1] - block_ptr[k];
  };
  const auto solve_block = [&](int step, int part, int parts) {
    const index_t first = block_ptr[block_at(step)], rows = rows_at(step);
    solve_rows(strict, inverse_diagonal, b, x, first + detail::part_start(rows, part, parts),
               first + detail::part_start(rows, part + 1, parts));
  };
  const int team = static_cast<int>(std::clamp<index_t>(strict.rows / kRowsPerThread, 1, threads));
  detail::run_team(team, [&](int rank, int size) {
    // Every thread walks the same steps; a barrier closes each.
    const auto parts_at = [&](int step) {
      return std::min<index_t>(size, rows_at(step) / kRowsPerThread);
    };
    int step = 0;
    while (step < num_blocks) {
      const index_t parts = parts_at(step);
      if (parts > 1) {
        if (rank < parts) solve_block(step, rank, static_cast<int>(parts));
        ++step;
      } else {
        int end = step + 1;
        while (end < num_blocks && parts_at(end) <= 1) ++end;
        if (rank == 0) {
          for (; step < end; ++step) solve_block(step, 0, 1);
        }
        step = end;
      }
      detail::team_barrier();
    }
  });
}

}  // namespace prism::kernels::host
