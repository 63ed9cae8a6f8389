#include "precond/block_ic/block_factor.hpp"

#include <prism/errors.hpp>

#include <algorithm>
#include <cmath>
#include <string>

namespace prism::precond {
namespace {

// Dense kernels on row-major blocks, plain on purpose: this is the reference.

/// In place: the lower triangle of the n x n block `a` becomes L with L L^T = a; false
/// when a pivot is not positive or not finite.
bool cholesky(double* a, index_t n) {
  for (index_t j = 0; j < n; ++j) {
    double d = a[j * n + j];
    for (index_t m = 0; m < j; ++m) d -= a[j * n + m] * a[j * n + m];
    if (!(d > 0.0) || !std::isfinite(d)) return false;
    const double pivot = std::sqrt(d);
    a[j * n + j] = pivot;
    for (index_t i = j + 1; i < n; ++i) {
      double s = a[i * n + j];
      for (index_t m = 0; m < j; ++m) s -= a[i * n + m] * a[j * n + m];
      a[i * n + j] = s / pivot;
    }
  }
  return true;
}

/// x = L^{-1} x with L the lower triangle of the n x n block `l`.
void forward(const double* l, index_t n, double* x) {
  for (index_t i = 0; i < n; ++i) {
    double s = x[i];
    for (index_t m = 0; m < i; ++m) s -= l[i * n + m] * x[m];
    x[i] = s / l[i * n + i];
  }
}

/// x = L^{-T} x.
void backward(const double* l, index_t n, double* x) {
  for (index_t i = n - 1; i >= 0; --i) {
    double s = x[i];
    for (index_t m = i + 1; m < n; ++m) s -= l[m * n + i] * x[m];
    x[i] = s / l[i * n + i];
  }
}

/// c -= a b^T with a (rows x inner), b (cols x inner), c (rows x cols), all row-major;
/// with `lower`, only c's entries on and below the diagonal (c square).
void subtract_product(const double* a, const double* b, index_t rows, index_t cols, index_t inner,
                      double* c, bool lower) {
  for (index_t i = 0; i < rows; ++i) {
    for (index_t j = 0; j < (lower ? i + 1 : cols); ++j) {
      double s = 0.0;
      for (index_t m = 0; m < inner; ++m) s += a[i * inner + m] * b[j * inner + m];
      c[i * cols + j] -= s;
    }
  }
}

}  // namespace

BlockFactor analyze_block_factor(const CsrMatrix<double>& a, const BlockPartition& blocks) {
  const CsrMatrix<double> q = quotient_matrix(a, blocks);  // checks that the blocks fit A
  BlockFactor f;
  f.blocks = blocks;
  const index_t n = blocks.count();
  f.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
  f.diagonal.resize(static_cast<std::size_t>(n));
  std::int64_t position = 0;
  for (index_t block = 0; block < n; ++block) {
    const std::int64_t rows = f.size(block);
    for (index_t k = q.row_ptr[block]; k < q.row_ptr[block + 1] && q.col_idx[k] < block; ++k) {
      f.col.push_back(q.col_idx[k]);
      f.offset.push_back(position);
      position += rows * f.size(q.col_idx[k]);
    }
    f.row_ptr[block + 1] = static_cast<index_t>(f.col.size());
    f.diagonal[block] = position;
    position += rows * rows;
  }
  f.values.assign(static_cast<std::size_t>(position), 0.0);
  f.scale.assign(static_cast<std::size_t>(a.rows), 0.0);

  const std::vector<index_t> block_of = blocks.block_of();
  f.scatter.assign(a.col_idx.size(), -1);
  for (index_t i = 0; i < a.rows; ++i) {
    const index_t bi = block_of[i];
    const std::int64_t r = i - blocks.ptr[bi];
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t j = a.col_idx[k];
      const index_t bj = block_of[j];
      const std::int64_t c = j - blocks.ptr[bj];
      if (bj == bi) {
        f.scatter[k] = f.diagonal[bi] + r * f.size(bi) + c;
      } else if (bj < bi) {
        const auto first = f.col.begin() + f.row_ptr[bi];
        const auto e = std::lower_bound(first, f.col.begin() + f.row_ptr[bi + 1], bj);
        f.scatter[k] = f.offset[e - f.col.begin()] + r * f.size(bj) + c;
      }
    }
  }
  return f;
}

index_t factor_block_ic0(const CsrMatrix<double>& a, double shift, BlockFactor& f) {
  if (a.values.size() != f.scatter.size()) {
    throw InvalidMatrixError("factor_block_ic0: the matrix has " + std::to_string(a.values.size()) +
                             " entries, the analyzed pattern " + std::to_string(f.scatter.size()));
  }
  const std::vector<index_t> block_of = f.blocks.block_of();
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      if (a.col_idx[k] != i) continue;
      if (!(a.values[k] > 0.0) || !std::isfinite(a.values[k])) return block_of[i];
      f.scale[i] = 1.0 / std::sqrt(a.values[k]);
    }
  }
  std::fill(f.values.begin(), f.values.end(), 0.0);
  for (index_t i = 0; i < a.rows; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      if (f.scatter[k] >= 0)
        f.values[f.scatter[k]] = a.values[k] * f.scale[i] * f.scale[a.col_idx[k]];
    }
  }
  const index_t n = f.blocks.count();
  for (index_t block = 0; block < n; ++block) {
    const index_t rows = f.size(block);
    double* diagonal = &f.values[f.diagonal[block]];
    for (index_t r = 0; r < rows; ++r) diagonal[r * rows + r] += shift;

    for (index_t e = f.row_ptr[block]; e < f.row_ptr[block + 1]; ++e) {
      const index_t j = f.col[e];
      double* lij = &f.values[f.offset[e]];
      // A_IJ - sum over K < J coupled to both of L_IK L_JK^T: the rows I and J merged.
      index_t ei = f.row_ptr[block], ej = f.row_ptr[j];
      while (ei < e && ej < f.row_ptr[j + 1]) {
        if (f.col[ei] < f.col[ej]) {
          ++ei;
        } else if (f.col[ej] < f.col[ei]) {
          ++ej;
        } else {
          subtract_product(&f.values[f.offset[ei]], &f.values[f.offset[ej]], rows, f.size(j),
                           f.size(f.col[ei]), lij, false);
          ++ei;
          ++ej;
        }
      }
      // L_IJ = (...) L_JJ^{-T}: row by row, L_JJ x = row.
      for (index_t r = 0; r < rows; ++r)
        forward(&f.values[f.diagonal[j]], f.size(j), lij + r * f.size(j));
    }
    // The diagonal block's Schur complement, then its Cholesky factor.
    for (index_t e = f.row_ptr[block]; e < f.row_ptr[block + 1]; ++e) {
      const double* lij = &f.values[f.offset[e]];
      subtract_product(lij, lij, rows, rows, f.size(f.col[e]), diagonal, true);
    }
    if (!cholesky(diagonal, rows)) return block;
  }
  return -1;
}

void solve_block_ic0(const BlockFactor& f, const double* r, double* z) {
  const index_t rows = f.blocks.rows();
  std::vector<double> y(static_cast<std::size_t>(rows));
  for (index_t i = 0; i < rows; ++i) y[i] = r[i] * f.scale[i];
  const index_t n = f.blocks.count();
  for (index_t block = 0; block < n; ++block) {
    double* yi = &y[f.blocks.ptr[block]];
    const index_t bi = f.size(block);
    for (index_t e = f.row_ptr[block]; e < f.row_ptr[block + 1]; ++e) {
      const index_t bj = f.size(f.col[e]);
      const double* lij = &f.values[f.offset[e]];
      const double* yj = &y[f.blocks.ptr[f.col[e]]];
      for (index_t r = 0; r < bi; ++r) {
        for (index_t c = 0; c < bj; ++c) yi[r] -= lij[r * bj + c] * yj[c];
      }
    }
    forward(&f.values[f.diagonal[block]], bi, yi);
  }
  for (index_t block = n - 1; block >= 0; --block) {
    double* yi = &y[f.blocks.ptr[block]];
    const index_t bi = f.size(block);
    backward(&f.values[f.diagonal[block]], bi, yi);
    for (index_t e = f.row_ptr[block]; e < f.row_ptr[block + 1]; ++e) {
      const index_t bj = f.size(f.col[e]);
      const double* lij = &f.values[f.offset[e]];
      double* yj = &y[f.blocks.ptr[f.col[e]]];
      for (index_t r = 0; r < bi; ++r) {
        for (index_t c = 0; c < bj; ++c) yj[c] -= lij[r * bj + c] * yi[r];
      }
    }
  }
  for (index_t i = 0; i < rows; ++i) z[i] = y[i] * f.scale[i];
}

}  // namespace prism::precond
