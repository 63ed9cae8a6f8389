#include "kernels/columns.hpp"

#include "kernels/cg_scalars.hpp"
#include "kernels/host/team.hpp"

#include <cmath>

namespace prism::kernels::host {
namespace {

/// Columns summed together per pass over a row: their sums stay in registers while the
/// row's entries are read once.
constexpr int kColumnGroup = 8;

/// Rows a thread takes at least in one color-set block (kernels/host/colorset.cpp).
constexpr index_t kRowsPerThread = 256;

bool positive(double v) {
  return v > 0.0 && std::isfinite(v);
}

inline std::ptrdiff_t at(index_t c, index_t n) {
  return static_cast<std::ptrdiff_t>(c) * n;
}

/// sum[g] = row i of S times column base[g] of x, for g < group: each column summed in
/// entry order from 0, as the one-column kernels sum it.
inline void row_sums(const CsrView<double>& s, index_t i, const double* const* base, int group,
                     double* sum) {
  for (int g = 0; g < group; ++g) sum[g] = 0.0;
  for (index_t k = s.row_ptr[i]; k < s.row_ptr[i + 1]; ++k) {
    const double v = s.values[k];
    const index_t col = s.col_idx[k];
    for (int g = 0; g < group; ++g) sum[g] += v * base[g][col];
  }
}

/// body(group, first column) for the listed columns in groups of at most kColumnGroup.
template <typename Body>
void for_groups(int count, const Body& body) {
  for (int first = 0; first < count; first += kColumnGroup) {
    body(std::min(kColumnGroup, count - first), first);
  }
}

}  // namespace

void spmm(int threads, CsrView<double> a, const index_t* cols, int count, const double* x,
          double* y) {
  const index_t n = a.rows;
  detail::for_parts(threads, n, [&](index_t begin, index_t end) {
    for_groups(count, [&](int group, int first) {
      const double* xs[kColumnGroup];
      for (int g = 0; g < group; ++g) xs[g] = x + at(cols[first + g], n);
      double sum[kColumnGroup];
      for (index_t i = begin; i < end; ++i) {
        row_sums(a, i, xs, group, sum);
        for (int g = 0; g < group; ++g) y[at(cols[first + g], n) + i] = sum[g];
      }
    });
  });
}

void dot_columns(int threads, index_t n, const index_t* cols, int count, const double* x,
                 const double* y, double* s, int slot) {
  for (int c = 0; c < count; ++c) {
    s[cols[c] * kCgScalarCount + slot] = dot(threads, n, x + at(cols[c], n), y + at(cols[c], n));
  }
}

void axpy_columns(int threads, index_t n, const index_t* cols, int count, double a, const double* x,
                  double* y) {
  for (int c = 0; c < count; ++c) axpy(threads, n, a, x + at(cols[c], n), y + at(cols[c], n));
}

void copy_columns(int threads, index_t n, const index_t* cols, int count, const double* x,
                  double* y) {
  for (int c = 0; c < count; ++c) copy(threads, n, x + at(cols[c], n), y + at(cols[c], n));
}

void pointwise_multiply_columns(int threads, index_t n, const index_t* cols, int count,
                                const double* d, const double* x, double* y) {
  detail::for_parts(threads, n, [&](index_t begin, index_t end) {
    for (int c = 0; c < count; ++c) {
      const std::ptrdiff_t o = at(cols[c], n);
      for (index_t i = begin; i < end; ++i) y[o + i] = d[i] * x[o + i];
    }
  });
}

void cg_update_columns(int threads, index_t n, const index_t* cols, int count, const double* p,
                       const double* q, double* x, double* r, double* s) {
  for (int c = 0; c < count; ++c) {
    double* sc = s + cols[c] * kCgScalarCount;
    const double alpha = positive(sc[kCgRz]) && positive(sc[kCgPq]) ? sc[kCgRz] / sc[kCgPq] : 0.0;
    const std::ptrdiff_t o = at(cols[c], n);
    sc[kCgRr] = cg_update(threads, n, alpha, p + o, q + o, x + o, r + o);
  }
}

void cg_direction_columns(int threads, index_t n, const index_t* cols, int count, const double* z,
                          double* p, double* s) {
  for (int c = 0; c < count; ++c) {
    double* sc = s + cols[c] * kCgScalarCount;
    const double beta = positive(sc[kCgRz]) ? sc[kCgRzNew] / sc[kCgRz] : 0.0;
    xpay(threads, n, z + at(cols[c], n), beta, p + at(cols[c], n));
    sc[kCgRz] = sc[kCgRzNew];
  }
}

// The team and steps of kernels/host/colorset.cpp, each row solved for every column.
void colorset_solve_columns(int threads, CsrView<double> strict, const double* inverse_diagonal,
                            const index_t* block_ptr, int num_blocks, bool lower,
                            const index_t* cols, int count, const double* b, double* x) {
  const index_t n = strict.rows;
  const auto solve_rows = [&](index_t begin, index_t end) {
    for_groups(count, [&](int group, int first) {
      const double* xs[kColumnGroup];
      for (int g = 0; g < group; ++g) xs[g] = x + at(cols[first + g], n);
      double sum[kColumnGroup];
      for (index_t i = begin; i < end; ++i) {
        row_sums(strict, i, xs, group, sum);
        for (int g = 0; g < group; ++g) {
          const std::ptrdiff_t o = at(cols[first + g], n);
          x[o + i] = (b[o + i] - sum[g]) * inverse_diagonal[i];
        }
      }
    });
  };
  const auto block_at = [&](int step) { return lower ? step : num_blocks - 1 - step; };
  const auto rows_at = [&](int step) {
    const int k = block_at(step);
    return block_ptr[k + 1] - block_ptr[k];
  };
  const auto solve_block = [&](int step, int part, int parts) {
    const index_t first = block_ptr[block_at(step)], rows = rows_at(step);
    solve_rows(first + detail::part_start(rows, part, parts),
               first + detail::part_start(rows, part + 1, parts));
  };
  const int team = static_cast<int>(std::clamp<index_t>(n / kRowsPerThread, 1, threads));
  detail::run_team(team, [&](int rank, int size) {
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
