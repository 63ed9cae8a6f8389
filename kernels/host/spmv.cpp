#include "kernels/host/team.hpp"

namespace prism::kernels::host {
namespace {

using detail::chunk_begin;
using detail::chunk_count;
using detail::run_team;
using detail::team_size;

/// The first chunk of part `part` of `parts` with about equal nonzeros: the chunk
/// boundary nearest the row where the part's share of the nonzeros begins. Whole chunks,
/// so that spmv_dot's partial sums are those of dot().
index_t nnz_part_start(CsrView<double> a, index_t chunks, int part, int parts) {
  if (part <= 0) return 0;
  if (part >= parts) return chunks;
  const index_t first = a.row_ptr[0];
  const std::int64_t nnz = a.row_ptr[a.rows] - first;
  const auto target = static_cast<index_t>(first + nnz * part / parts);
  const auto row =
      static_cast<index_t>(std::lower_bound(a.row_ptr, a.row_ptr + a.rows, target) - a.row_ptr);
  return std::min(chunks, (row + kReductionChunk / 2) / kReductionChunk);
}

/// Row i of A x, summed as the reference sums it.
inline double row_product(const CsrView<double>& a, const double* x, index_t i) {
  double sum = 0.0;
  for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) sum += a.values[k] * x[a.col_idx[k]];
  return sum;
}

/// body(begin, end) on the rows of spmv's part of each thread.
template <typename Body>
void for_row_parts(int threads, const CsrView<double>& a, const Body& body) {
  const index_t chunks = chunk_count(a.rows);
  run_team(team_size(threads, chunks), [&](int rank, int size) {
    const index_t begin = chunk_begin(nnz_part_start(a, chunks, rank, size), a.rows);
    const index_t end = chunk_begin(nnz_part_start(a, chunks, rank + 1, size), a.rows);
    if (begin < end) body(begin, end);
  });
}

}  // namespace

void copy_csr(int threads, CsrView<double> a, index_t* row_ptr, index_t* col_idx, double* values) {
  row_ptr[a.rows] = a.row_ptr[a.rows];
  for_row_parts(threads, a, [&](index_t begin, index_t end) {
    std::copy(a.row_ptr + begin, a.row_ptr + end, row_ptr + begin);
    const index_t first = a.row_ptr[begin], last = a.row_ptr[end];
    std::copy(a.col_idx + first, a.col_idx + last, col_idx + first);
    std::copy(a.values + first, a.values + last, values + first);
  });
}

void spmv(int threads, CsrView<double> a, const double* x, double* y) {
  for_row_parts(threads, a, [&](index_t begin, index_t end) {
    for (index_t i = begin; i < end; ++i) y[i] = row_product(a, x, i);
  });
}

double spmv_dot(int threads, CsrView<double> a, const double* x, double* y) {
  const index_t chunks = chunk_count(a.rows);
  std::vector<double> partials(static_cast<std::size_t>(chunks));
  run_team(team_size(threads, chunks), [&](int rank, int size) {
    const index_t last = nnz_part_start(a, chunks, rank + 1, size);
    for (index_t c = nnz_part_start(a, chunks, rank, size); c < last; ++c) {
      partials[c] =
          detail::chunk_sum(chunk_begin(c, a.rows), chunk_begin(c + 1, a.rows), [&](index_t i) {
            y[i] = row_product(a, x, i);
            return x[i] * y[i];
          });
    }
  });
  return detail::sum_in_order(partials);
}

}  // namespace prism::kernels::host
