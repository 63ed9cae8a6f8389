#include "kernels/block_ic.hpp"

#include <algorithm>
#include <cmath>

namespace prism::kernels {

BlockIcView BlockIcPlan::view() const {
  BlockIcView v;
  v.rows = rows;
  v.blocks = blocks();
  v.entries = entries();
  v.block_ptr = block_ptr.data();
  v.row_ptr = row_ptr.data();
  v.col = col.data();
  v.entry_row = entry_row.data();
  v.offset = offset.data();
  v.diagonal = diagonal.data();
  v.inverse = inverse.data();
  v.transpose_prefix = transpose_prefix.data();
  v.a_row_ptr = a_row_ptr.data();
  v.a_col = a_col.data();
  v.scatter = scatter.data();
  v.a_diagonal = a_diagonal.data();
  v.forward_ptr = forward_ptr.data();
  v.backward_ptr = backward_ptr.data();
  v.forward_diagonal_ptr = forward_diagonal_ptr.data();
  v.backward_diagonal_ptr = backward_diagonal_ptr.data();
  v.level_blocks = level_blocks.data();
  v.transpose_ptr = transpose_ptr.data();
  v.transpose_entry = transpose_entry.data();
  v.uniform_block = uniform_block;
  return v;
}

}  // namespace prism::kernels

namespace prism::kernels::reference {
namespace {

double entry(const double* a, const index_t* source, index_t k) {
  return a[source != nullptr ? source[k] : k];
}

}  // namespace

// As one warp of the device kernel computes it: the off-diagonal blocks in order (Schur
// updates from the entries left of them, then times L_JJ^{-T}), the diagonal block's
// Schur complement and Cholesky factor, and its inverse.
bool block_ic_factor_row(const BlockIcView& p, index_t block, double* values, double* inverse) {
  const index_t bi = p.block_ptr[block + 1] - p.block_ptr[block];
  const auto size = [&](index_t b) { return p.block_ptr[b + 1] - p.block_ptr[b]; };
  for (index_t e = p.row_ptr[block]; e < p.row_ptr[block + 1]; ++e) {
    const index_t j = p.col[e], bj = size(j);
    double* lij = values + p.offset[e];
    index_t ei = p.row_ptr[block], ej = p.row_ptr[j];
    while (ei < e && ej < p.row_ptr[j + 1]) {
      if (p.col[ei] < p.col[ej]) {
        ++ei;
      } else if (p.col[ej] < p.col[ei]) {
        ++ej;
      } else {
        const index_t bk = size(p.col[ei]);
        const double* lik = values + p.offset[ei];
        const double* ljk = values + p.offset[ej];
        for (index_t r = 0; r < bi; ++r) {
          for (index_t c = 0; c < bj; ++c) {
            double s = 0.0;
            for (index_t m = 0; m < bk; ++m) s += lik[r * bk + m] * ljk[c * bk + m];
            lij[r * bj + c] -= s;
          }
        }
        ++ei;
        ++ej;
      }
    }
    // L_IJ = X L_JJ^{-T}, row by row, columns last to first (in place).
    const double* inv = inverse + p.inverse[j];
    for (index_t r = 0; r < bi; ++r) {
      for (index_t c = bj - 1; c >= 0; --c) {
        double s = 0.0;
        for (index_t m = 0; m <= c; ++m) s += lij[r * bj + m] * inv[c * bj + m];
        lij[r * bj + c] = s;
      }
    }
  }
  double* d = values + p.diagonal[block];
  for (index_t e = p.row_ptr[block]; e < p.row_ptr[block + 1]; ++e) {
    const index_t bj = size(p.col[e]);
    const double* lij = values + p.offset[e];
    for (index_t r = 0; r < bi; ++r) {
      for (index_t c = 0; c <= r; ++c) {
        double s = 0.0;
        for (index_t m = 0; m < bj; ++m) s += lij[r * bj + m] * lij[c * bj + m];
        d[r * bi + c] -= s;
      }
    }
  }
  // Right-looking Cholesky, as the device's lanes (one per row) do it.
  for (index_t j = 0; j < bi; ++j) {
    const double pivot = d[j * bi + j];
    if (!(pivot > 0.0) || !std::isfinite(pivot)) return false;
    const double l = std::sqrt(pivot);
    d[j * bi + j] = l;
    for (index_t r = j + 1; r < bi; ++r) d[r * bi + j] /= l;
    for (index_t r = j + 1; r < bi; ++r) {
      for (index_t c = j + 1; c <= r; ++c) d[r * bi + c] -= d[r * bi + j] * d[c * bi + j];
    }
  }
  // L_II^{-1}, column by column (a lane per column on the device).
  double* inv = inverse + p.inverse[block];
  for (index_t c = 0; c < bi; ++c) {
    for (index_t i = 0; i < bi; ++i) {
      if (i < c) {
        inv[i * bi + c] = 0.0;
        continue;
      }
      double s = i == c ? 1.0 : 0.0;
      for (index_t m = c; m < i; ++m) s -= d[i * bi + m] * inv[m * bi + c];
      inv[i * bi + c] = s / d[i * bi + i];
    }
  }
  return true;
}

index_t block_ic_scale(const BlockIcView& p, const double* a, const index_t* source,
                       double* scale) {
  for (index_t i = 0; i < p.rows; ++i) {
    const double d = entry(a, source, p.a_diagonal[i]);
    if (!(d > 0.0) || !std::isfinite(d)) return i;
    scale[i] = 1.0 / std::sqrt(d);
  }
  return -1;
}

void block_ic_load(const BlockIcView& p, const double* a, const index_t* source,
                   const double* scale, double shift, std::int64_t value_count, double* values) {
  std::fill(values, values + value_count, 0.0);
  for (index_t i = 0; i < p.rows; ++i) {
    for (index_t k = p.a_row_ptr[i]; k < p.a_row_ptr[i + 1]; ++k) {
      if (p.scatter[k] < 0) continue;
      const index_t j = p.a_col[k];
      values[p.scatter[k]] = entry(a, source, k) * scale[i] * scale[j] + (i == j ? shift : 0.0);
    }
  }
}

BlockIcStatus block_ic_factor(const BlockIcView& p, const std::vector<index_t>& level_ptr,
                              double* values, double* inverse) {
  for (std::size_t l = 0; l + 1 < level_ptr.size(); ++l) {
    BlockIcStatus status;
    for (index_t k = level_ptr[l]; k < level_ptr[l + 1]; ++k) {
      const index_t block = p.level_blocks[k];
      if (!block_ic_factor_row(p, block, values, inverse) &&
          (status.failed_block < 0 || block < status.failed_block)) {
        status.failed_block = block;
      }
    }
    if (!status.ok()) return status;
  }
  return {};
}

void block_ic_block_operators(const BlockIcView& p, index_t b, const double* inverse,
                              const double* scale, double* forward_diagonal, double* forward,
                              double* backward_diagonal, double* backward) {
  const index_t bi = p.block_ptr[b + 1] - p.block_ptr[b], first = p.block_ptr[b];
  const double* inv = inverse + p.inverse[b];
  for (index_t r = 0; r < bi; ++r) {
    const index_t row = first + r;
    for (index_t c = 0; c <= r; ++c) {
      forward_diagonal[p.forward_diagonal_ptr[row] + c] = inv[r * bi + c] * scale[first + c];
    }
    for (index_t c = r; c < bi; ++c) {
      backward_diagonal[p.backward_diagonal_ptr[row] + c - r] = scale[row] * inv[c * bi + r];
    }
    forward[p.forward_ptr[row + 1] - 1] = 1.0;
    backward[p.backward_ptr[row]] = 1.0;
  }
}

void block_ic_entry_operators(const BlockIcView& p, index_t e, const double* values,
                              const double* inverse, const double* scale, double* forward,
                              double* backward) {
  const auto size = [&](index_t b) { return p.block_ptr[b + 1] - p.block_ptr[b]; };
  const index_t i = p.entry_row[e], j = p.col[e];
  const index_t bi = size(i), bj = size(j), pi = p.block_ptr[i], pj = p.block_ptr[j];
  const double* l = values + p.offset[e];
  const double* inv_i = inverse + p.inverse[i];
  const double* inv_j = inverse + p.inverse[j];
  const std::int64_t before = (p.offset[e] - p.offset[p.row_ptr[i]]) / bi;
  for (index_t r = 0; r < bi; ++r) {
    for (index_t c = 0; c < bj; ++c) {
      double w = 0.0;  // W_IJ = L_II^{-1} L_IJ
      for (index_t m = 0; m <= r; ++m) w += inv_i[r * bi + m] * l[m * bj + c];
      forward[p.forward_ptr[pi + r] + before + c] = w;
      double v = 0.0;  // V_JI[c][r] = s_c (L_JJ^{-T} L_IJ^T)[c][r] / s_r
      for (index_t m = c; m < bj; ++m) v += inv_j[m * bj + c] * l[r * bj + m];
      backward[p.backward_ptr[pj + c] + 1 + p.transpose_prefix[e] + r] =
          scale[pj + c] * v / scale[pi + r];
    }
  }
}

void block_ic_operators(const BlockIcView& p, const double* values, const double* inverse,
                        const double* scale, double* forward_diagonal, double* forward,
                        double* backward_diagonal, double* backward) {
  for (index_t b = 0; b < p.blocks; ++b) {
    block_ic_block_operators(p, b, inverse, scale, forward_diagonal, forward, backward_diagonal,
                             backward);
  }
  for (index_t e = 0; e < p.entries; ++e) {
    block_ic_entry_operators(p, e, values, inverse, scale, forward, backward);
  }
}

}  // namespace prism::kernels::reference
