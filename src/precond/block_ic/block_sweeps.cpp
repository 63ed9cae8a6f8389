#include "precond/block_ic/block_sweeps.hpp"

#include <cstdint>
#include <vector>

namespace prism::precond {
namespace {

/// The inverse of the lower triangular n x n block `l` (row-major), lower triangular.
std::vector<double> invert_lower(const double* l, index_t n) {
  std::vector<double> inverse(static_cast<std::size_t>(n) * n, 0.0);
  for (index_t c = 0; c < n; ++c) {  // column c: L x = e_c, x_i = 0 for i < c
    for (index_t i = c; i < n; ++i) {
      double s = i == c ? 1.0 : 0.0;
      for (index_t m = c; m < i; ++m) s -= l[i * n + m] * inverse[m * n + c];
      inverse[i * n + c] = s / l[i * n + i];
    }
  }
  return inverse;
}

/// Appends one CSR row's end.
void close_row(CsrMatrix<double>& m, index_t row) {
  m.row_ptr[static_cast<std::size_t>(row) + 1] = static_cast<index_t>(m.col_idx.size());
}

CsrMatrix<double> empty_like(index_t n) {
  CsrMatrix<double> m;
  m.rows = m.cols = n;
  m.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  return m;
}

/// The operators; with `values` false only their patterns (zeros, unit diagonals).
BlockSweeps build(const BlockFactor& f, bool values) {
  const index_t n = f.blocks.rows();
  const index_t count = f.blocks.count();
  const auto& ptr = f.blocks.ptr;
  std::vector<std::vector<double>> inverse(static_cast<std::size_t>(count));
  for (index_t b = 0; b < count; ++b) {
    inverse[b] = values ? invert_lower(&f.values[f.diagonal[b]], f.size(b))
                        : std::vector<double>(static_cast<std::size_t>(f.size(b)) * f.size(b));
  }

  // The transpose's block pattern: for each block J, the entries e with col[e] = J, by
  // ascending block row I (a counting sort keeps the row order).
  std::vector<index_t> t_ptr(static_cast<std::size_t>(count) + 1, 0);
  for (const index_t j : f.col) ++t_ptr[j + 1];
  for (index_t b = 0; b < count; ++b) t_ptr[b + 1] += t_ptr[b];
  std::vector<index_t> t_entry(f.col.size()), t_row(f.col.size());
  std::vector<index_t> next(t_ptr.begin(), t_ptr.end() - 1);
  for (index_t i = 0; i < count; ++i) {
    for (index_t e = f.row_ptr[i]; e < f.row_ptr[i + 1]; ++e) {
      t_entry[next[f.col[e]]] = e;
      t_row[next[f.col[e]]++] = i;
    }
  }

  BlockSweeps out{empty_like(n), empty_like(n), empty_like(n), empty_like(n)};
  for (index_t b = 0; b < count; ++b) {
    const index_t rows = f.size(b), p = ptr[b];
    const std::vector<double>& inv = inverse[b];
    for (index_t r = 0; r < rows; ++r) {
      const index_t row = p + r;
      // F: row r of L_bb^{-1}, columns scaled.
      for (index_t c = 0; c <= r; ++c) {
        out.forward_diagonal.col_idx.push_back(p + c);
        out.forward_diagonal.values.push_back(inv[r * rows + c] * f.scale[p + c]);
      }
      close_row(out.forward_diagonal, row);
      // W: row r of L_bb^{-1} L_bJ over the block row's entries, then the unit diagonal.
      for (index_t e = f.row_ptr[b]; e < f.row_ptr[b + 1]; ++e) {
        const index_t cols = f.size(f.col[e]);
        const double* l = &f.values[f.offset[e]];
        for (index_t c = 0; c < cols; ++c) {
          double s = 0.0;
          for (index_t m = 0; m <= r; ++m) s += inv[r * rows + m] * l[m * cols + c];
          out.forward.col_idx.push_back(ptr[f.col[e]] + c);
          out.forward.values.push_back(s);
        }
      }
      out.forward.col_idx.push_back(row);
      out.forward.values.push_back(1.0);
      close_row(out.forward, row);
      // B: row r of S_b L_bb^{-T}.
      for (index_t c = r; c < rows; ++c) {
        out.backward_diagonal.col_idx.push_back(p + c);
        out.backward_diagonal.values.push_back(f.scale[row] * inv[c * rows + r]);
      }
      close_row(out.backward_diagonal, row);
      // V: the unit diagonal, then row r of S_b L_bb^{-T} L_Ib^T S_I^{-1} over the block
      // rows I > b that couple to b.
      out.backward.col_idx.push_back(row);
      out.backward.values.push_back(1.0);
      for (index_t t = t_ptr[b]; t < t_ptr[b + 1]; ++t) {
        const index_t i = t_row[t], cols = f.size(i);
        const double* l = &f.values[f.offset[t_entry[t]]];  // L_ib: cols x rows
        for (index_t c = 0; c < cols; ++c) {
          double s = 0.0;
          for (index_t m = r; m < rows; ++m) s += inv[m * rows + r] * l[c * rows + m];
          out.backward.col_idx.push_back(ptr[i] + c);
          out.backward.values.push_back(values ? f.scale[row] * s / f.scale[ptr[i] + c] : 0.0);
        }
      }
      close_row(out.backward, row);
    }
  }
  return out;
}

}  // namespace

BlockSweeps block_sweeps(const BlockFactor& f) {
  return build(f, true);
}

BlockSweeps block_sweeps_pattern(const BlockFactor& f) {
  return build(f, false);
}

}  // namespace prism::precond
