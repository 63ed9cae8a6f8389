#include "kernels/colorset.hpp"

namespace prism::kernels {

std::vector<index_t> independent_blocks(CsrView<double> strict, bool lower) {
  const index_t n = strict.rows;
  std::vector<index_t> ptr;
  if (lower) {
    ptr.push_back(0);
    index_t start = 0;
    for (index_t i = 0; i < n; ++i) {
      for (index_t k = strict.row_ptr[i]; k < strict.row_ptr[i + 1]; ++k) {
        if (strict.col_idx[k] >= start) {  // depends on a row of the current block
          start = i;
          ptr.push_back(i);
          break;
        }
      }
    }
    if (n > 0) ptr.push_back(n);
    return ptr;
  }
  // Upper: scan up; ends are collected from the bottom, then put in ascending order.
  std::vector<index_t> ends{n};
  index_t end = n;
  for (index_t i = n - 1; i >= 0; --i) {
    for (index_t k = strict.row_ptr[i]; k < strict.row_ptr[i + 1]; ++k) {
      if (strict.col_idx[k] < end) {
        end = i + 1;
        ends.push_back(end);
        break;
      }
    }
  }
  if (n > 0) ends.push_back(0);
  return std::vector<index_t>(ends.rbegin(), ends.rend());
}

}  // namespace prism::kernels

namespace prism::kernels::reference {

void colorset_solve(CsrView<double> strict, const double* inverse_diagonal,
                    const index_t* block_ptr, int num_blocks, bool lower, const double* b,
                    double* x) {
  for (int step = 0; step < num_blocks; ++step) {
    const int block = lower ? step : num_blocks - 1 - step;
    // Every row of a block depends only on other blocks: any order within it is exact.
    for (index_t i = block_ptr[block]; i < block_ptr[block + 1]; ++i) {
      double sum = 0.0;
      for (index_t k = strict.row_ptr[i]; k < strict.row_ptr[i + 1]; ++k) {
        sum += strict.values[k] * x[strict.col_idx[k]];
      }
      x[i] = (b[i] - sum) * inverse_diagonal[i];
    }
  }
}

}  // namespace prism::kernels::reference
