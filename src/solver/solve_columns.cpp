#include "solver/solve_columns.hpp"

#include <prism/errors.hpp>

#include "solver/pcg_columns.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>

namespace prism::solver {
namespace {

/// solve()'s scaling (solver.cpp): 2^-e where the largest finite magnitude of b and x, 2^e,
/// lies outside [2^-400, 2^400], else 1.
double range_factor(double largest) {
  if (largest == 0.0) return 1.0;
  const int exponent = std::ilogb(largest);
  return std::ldexp(1.0, exponent > 400 || exponent < -400 ? -exponent : 0);
}

double largest_finite(const double* v, std::size_t n) {
  double largest = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isfinite(v[i])) largest = std::max(largest, std::abs(v[i]));
  }
  return largest;
}

/// Columns of one solve at most: the GPU kernels run one grid row (y) per column.
constexpr int kMaxColumns = 65535;

void check_shape(const char* call, const ColumnsSetup& s, std::size_t rows, int columns) {
  const index_t n = s.matrix.rows();
  if (columns < 1 || columns > kMaxColumns) {
    throw InvalidMatrixError(std::string(call) + ": columns is " + std::to_string(columns) +
                             "; give 1 to " + std::to_string(kMaxColumns));
  }
  if (rows != static_cast<std::size_t>(n)) {
    throw InvalidMatrixError(std::string(call) + ": rows is " + std::to_string(rows) +
                             ", the matrix has " + std::to_string(n) + " rows");
  }
  // The blocks are backend vectors of rows * columns entries, counted in index_t.
  if (rows * static_cast<std::size_t>(columns) >
      static_cast<std::size_t>(std::numeric_limits<index_t>::max())) {
    throw InvalidMatrixError(std::string(call) + ": " + std::to_string(columns) + " columns of " +
                             std::to_string(rows) + " rows exceed 2^31 - 1 entries; solve " +
                             "fewer columns at a time");
  }
}

MultiSolveReport report_of(const ColumnsSetup& s, ColumnsResult&& result,
                           const std::vector<double>& factor) {
  MultiSolveReport report;
  const backend::Backend& be = s.backend;
  report.backend = be.name();
  report.device = be.device_name();
  report.preconditioner = s.preconditioner.name();
  report.spmv = s.matrix.algorithm();
  report.preconditioner_reads_once = s.preconditioner.applies_columns_at_once();
  report.rows = s.matrix.rows();
  report.nnz = s.matrix.nnz();
  report.columns = static_cast<int>(factor.size());
  report.tolerance = s.options.tolerance;
  report.absolute_tolerance = s.options.absolute_tolerance;
  report.max_iterations = s.options.max_iterations;
  report.check_every = s.options.check_every;
  report.iterations = result.iterations;
  report.solve_seconds = result.seconds;
  report.device_loop = result.device_loop;
  report.phase_seconds = result.phase_seconds;
  for (std::size_t j = 0; j < factor.size(); ++j) {
    PcgResult& r = result.columns[j];
    const double unscale = 1.0 / factor[j];
    ColumnReport c;
    c.status = r.status;
    c.iterations = r.iterations;
    c.rhs_norm = r.rhs_norm * unscale;
    c.initial_residual_norm = r.initial_residual_norm * unscale;
    const double scale = r.rhs_norm > 0.0 ? r.rhs_norm : 1.0;
    c.relative_residual = r.residual_norm / scale;
    c.true_relative_residual = r.true_residual_norm / (r.rhs_norm > 0.0 ? scale : factor[j]);
    c.residual_replacements = r.residual_replacements;
    c.diagnosis = std::move(r.diagnosis);
    for (IterationRecord& rec : r.history) rec.residual_norm *= unscale;
    c.history = std::move(r.history);
    report.column.push_back(std::move(c));
  }
  return report;
}

ColumnsResult run(const ColumnsSetup& s, const backend::Vector& b, backend::Vector& x,
                  const std::vector<double>& factor) {
  std::vector<double> absolute(factor.size());
  for (std::size_t j = 0; j < factor.size(); ++j) {
    absolute[j] = s.options.absolute_tolerance * factor[j];  // b_j is scaled by factor[j]
  }
  return pcg_columns(s.backend, s.matrix, s.preconditioner, b, x, static_cast<int>(factor.size()),
                     absolute, s.options);
}

/// Whether [a, a + n) and [b, b + n) share an element.
bool overlap(const double* a, const double* b, std::size_t n) {
  const std::less<const double*> before;
  return n > 0 && before(a, b + n) && before(b, a + n);
}

}  // namespace

MultiSolveReport solve_columns(const ColumnsSetup& s, const double* b, double* x, std::size_t rows,
                               int columns) {
  check_shape("solve", s, rows, columns);
  if (b == nullptr || x == nullptr) throw InvalidMatrixError("solve: b or x is a null pointer");
  const std::size_t n = rows, total = rows * static_cast<std::size_t>(columns);
  if (overlap(b, x, total)) {
    throw InvalidMatrixError("solve: b and x overlap; x must be an array of its own");
  }
  // Each column into the solver's order and scaled into range as solve() does it.
  std::vector<double> factor(static_cast<std::size_t>(columns));
  std::vector<double> b_ordered(total), x_ordered(total);
  for (std::size_t j = 0; j < factor.size(); ++j) {
    const double* bj = b + j * n;
    const double* xj = x + j * n;
    factor[j] = range_factor(std::max(largest_finite(bj, n), largest_finite(xj, n)));
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t from = s.permutation ? static_cast<std::size_t>((*s.permutation)[i]) : i;
      b_ordered[j * n + i] = bj[from] * factor[j];
      x_ordered[j * n + i] = xj[from] * factor[j];
    }
  }
  backend::Backend& be = s.backend;
  auto b_block = be.make_vector(static_cast<index_t>(total));
  auto x_block = be.make_vector(static_cast<index_t>(total));
  be.copy_from_host(b_ordered, *b_block);
  be.copy_from_host(x_ordered, *x_block);
  ColumnsResult result = run(s, *b_block, *x_block, factor);
  be.copy_to_host(*x_block, x_ordered);
  for (std::size_t j = 0; j < factor.size(); ++j) {
    const double unscale = 1.0 / factor[j];
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t to = s.permutation ? static_cast<std::size_t>((*s.permutation)[i]) : i;
      x[j * n + to] = x_ordered[j * n + i] * unscale;
    }
  }
  return report_of(s, std::move(result), factor);
}

MultiSolveReport solve_columns_on_backend(const ColumnsSetup& s, const double* b, double* x,
                                          std::size_t rows, int columns) {
  const char* call = "solve_on_backend";
  check_shape(call, s, rows, columns);
  backend::Backend& be = s.backend;
  const std::size_t total = rows * static_cast<std::size_t>(columns);
  const auto check = [&](const double* v, const char* name) {
    if (v == nullptr)
      throw InvalidMatrixError(std::string(call) + ": " + name + " is a null pointer");
    if (!be.reads(v)) {
      throw InvalidMatrixError(
          std::string(call) + ": " + name + " is not in memory the " + be.name() +
          " backend reads (for cuda: device memory of the solver's device, or managed memory)");
    }
  };
  check(b, "b");
  check(x, "x");
  if (overlap(b, x, total)) {
    throw InvalidMatrixError(std::string(call) +
                             ": b and x overlap; x must be an array of its own");
  }
  const index_t n = s.matrix.rows();
  std::vector<double> factor(static_cast<std::size_t>(columns));
  bool scaled = false;
  for (std::size_t j = 0; j < factor.size(); ++j) {
    const double largest = std::max(be.largest_finite_magnitude(b + j * rows, rows),
                                    be.largest_finite_magnitude(x + j * rows, rows));
    factor[j] = range_factor(largest);
    scaled = scaled || factor[j] != 1.0;
  }
  const auto b_view = be.view_input(b, static_cast<index_t>(total));
  const auto x_view = be.view(x, static_cast<index_t>(total));
  if (s.permutation == nullptr && !scaled) {
    ColumnsResult result = run(s, *b_view, *x_view, factor);  // in the caller's x itself
    be.synchronize();
    return report_of(s, std::move(result), factor);
  }
  auto b_work = be.make_vector(static_cast<index_t>(total));
  auto x_work = be.make_vector(static_cast<index_t>(total));
  const auto column = [&](const backend::Vector& block, std::size_t j) {
    return be.view_input(block.data() + j * rows, n);
  };
  const auto column_out = [&](backend::Vector& block, std::size_t j) {
    return be.view(block.data() + j * rows, n);
  };
  for (std::size_t j = 0; j < factor.size(); ++j) {
    s.to_solver(*column(*b_view, j), *column_out(*b_work, j), factor[j]);
    s.to_solver(*column(*x_view, j), *column_out(*x_work, j), factor[j]);
  }
  ColumnsResult result = run(s, *b_work, *x_work, factor);
  for (std::size_t j = 0; j < factor.size(); ++j) {
    s.to_caller(*column(*x_work, j), *column_out(*x_view, j), 1.0 / factor[j]);
  }
  be.synchronize();
  return report_of(s, std::move(result), factor);
}

}  // namespace prism::solver
