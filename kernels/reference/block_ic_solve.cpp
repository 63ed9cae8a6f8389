#include "kernels/block_ic.hpp"

namespace prism::kernels::reference {

// Row by row of the block, as one warp of the device kernel computes it: the sum over the
// off-diagonal blocks (`blocks`: the factor's values in T) and the rows of L_II already
// solved (`values`: in double), then the division by the pivot.
template <typename T>
void block_ic_forward_row(const BlockIcView& p, index_t block, const double* values,
                          const T* blocks, const double* scale, const double* r, double* u) {
  const index_t pi = p.block_ptr[block], bi = p.block_ptr[block + 1] - pi;
  const double* d = values + p.diagonal[block];
  for (index_t row = 0; row < bi; ++row) {
    double s = 0.0;
    for (index_t e = p.row_ptr[block]; e < p.row_ptr[block + 1]; ++e) {
      const index_t j = p.col[e], pj = p.block_ptr[j], bj = p.block_ptr[j + 1] - pj;
      const T* l = blocks + p.offset[e] + static_cast<std::int64_t>(row) * bj;
      for (index_t c = 0; c < bj; ++c) s += static_cast<double>(l[c]) * u[pj + c];
    }
    for (index_t m = 0; m < row; ++m) s += d[row * bi + m] * u[pi + m];
    u[pi + row] = (scale[pi + row] * r[pi + row] - s) / d[row * bi + row];
  }
}

// Columns of the block last to first: L_JJ^T is upper triangular.
template <typename T>
void block_ic_backward_row(const BlockIcView& p, index_t block, const double* values,
                           const T* blocks, const double* scale, const double* u, double* w,
                           double* z) {
  const index_t pj = p.block_ptr[block], bj = p.block_ptr[block + 1] - pj;
  const double* d = values + p.diagonal[block];
  for (index_t c = bj - 1; c >= 0; --c) {
    double s = 0.0;
    for (index_t t = p.transpose_ptr[block]; t < p.transpose_ptr[block + 1]; ++t) {
      const index_t e = p.transpose_entry[t], i = p.entry_row[e];
      const index_t pi = p.block_ptr[i], bi = p.block_ptr[i + 1] - pi;
      const T* l = blocks + p.offset[e] + c;
      for (index_t row = 0; row < bi; ++row) {
        s += static_cast<double>(l[static_cast<std::int64_t>(row) * bj]) * w[pi + row];
      }
    }
    for (index_t m = c + 1; m < bj; ++m) s += d[m * bj + c] * w[pj + m];
    w[pj + c] = (u[pj + c] - s) / d[c * bj + c];
    z[pj + c] = scale[pj + c] * w[pj + c];
  }
}

template <typename T>
void block_ic_solve(const BlockIcView& p, const double* values, const T* blocks,
                    const double* scale, const double* r, double* u, double* w, double* z) {
  for (index_t b = 0; b < p.blocks; ++b) block_ic_forward_row(p, b, values, blocks, scale, r, u);
  for (index_t b = p.blocks - 1; b >= 0; --b) {
    block_ic_backward_row(p, b, values, blocks, scale, u, w, z);
  }
}

#define PRISM_BLOCK_IC_SOLVE(T)                                                                \
  template void block_ic_forward_row<T>(const BlockIcView&, index_t, const double*, const T*,  \
                                        const double*, const double*, double*);                \
  template void block_ic_backward_row<T>(const BlockIcView&, index_t, const double*, const T*, \
                                         const double*, const double*, double*, double*);      \
  template void block_ic_solve<T>(const BlockIcView&, const double*, const T*, const double*,  \
                                  const double*, double*, double*, double*);
PRISM_BLOCK_IC_SOLVE(double)
PRISM_BLOCK_IC_SOLVE(float)
#undef PRISM_BLOCK_IC_SOLVE

}  // namespace prism::kernels::reference
