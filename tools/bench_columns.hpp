#pragma once
// bench_pcg --columns K: K right-hand sides solved together (Solver::solve with columns)
// against one solve and against K single solves of the same columns, with the settings of
// bench_pcg's timed solves (timing: total). Column 0 is the problem's b, the others random
// in [-1, 1) (seeds 1, 2, ...), every column from the problem's x0. Times are medians of
// --repeats runs after a warm-up.

#include <prism/problem.hpp>
#include <prism/solver.hpp>

#include <algorithm>
#include <chrono>
#include <random>
#include <vector>

namespace bench {

struct ColumnsTiming {
  int k = 0;                 ///< columns (0: not measured)
  bool converged = false;    ///< every column of the multi-column solve
  int iterations = 0;        ///< the most any column took
  bool reads_once = false;   ///< the preconditioner read its factor once for all columns
  bool device_loop = false;  ///< the columns iterated in a device-side loop
  double multi = 0.0;        ///< the K columns together, seconds
  double one = 0.0;          ///< column 0 alone
  double singles = 0.0;      ///< the K columns one after another
};

inline double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/// Times the three ways on a set-up solver (its options as the caller set them).
inline ColumnsTiming time_columns(prism::Solver& solver, const prism::Problem& p, int k,
                                  int repeats) {
  const std::size_t n = p.b.size();
  std::vector<double> b(p.b), x0;
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  for (int j = 1; j < k; ++j) {
    for (std::size_t i = 0; i < n; ++i) b.push_back(uniform(rng));
  }
  for (int j = 0; j < k; ++j) x0.insert(x0.end(), p.x0.begin(), p.x0.end());
  ColumnsTiming t;
  t.k = k;
  std::vector<double> multi, one, singles;
  for (int rep = 0; rep <= repeats; ++rep) {  // rep 0: warm-up
    std::vector<double> x = x0;
    const prism::MultiSolveReport m = solver.solve(b, x, k);
    double sum = 0.0, first = 0.0;
    for (int j = 0; j < k; ++j) {
      const std::vector<double> bj(b.begin() + j * n, b.begin() + (j + 1) * n);
      std::vector<double> xj = p.x0;
      const double seconds = solver.solve(bj, xj).solve_seconds;
      sum += seconds;
      if (j == 0) first = seconds;
    }
    if (rep == 0) {
      t.converged = m.converged();
      t.iterations = m.iterations;
      t.reads_once = m.preconditioner_reads_once;
      t.device_loop = m.device_loop;
      continue;
    }
    multi.push_back(m.solve_seconds);
    one.push_back(first);
    singles.push_back(sum);
  }
  t.multi = median_of(multi);
  t.one = median_of(one);
  t.singles = median_of(singles);
  return t;
}

}  // namespace bench
