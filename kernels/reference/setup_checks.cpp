#include "kernels/setup_checks.hpp"

#include <algorithm>

namespace prism::kernels::reference {

int pattern_defects(const CsrView<double>& a, index_t nnz, bool structure, index_t* mirror) {
  int found = kNoDefect;
  for (index_t i = 0; i < a.rows; ++i) {
    const index_t begin = a.row_ptr[i], end = a.row_ptr[i + 1];
    if (begin < 0 || end < begin || end > nnz) {
      found |= kBadStorage;
      continue;  // this row's columns cannot be read
    }
    for (index_t k = begin; k < end; ++k) {
      const index_t j = a.col_idx[k];
      if (j < 0 || j >= a.cols || (k > begin && a.col_idx[k - 1] >= j)) found |= kBadStorage;
    }
  }
  if (found != kNoDefect || !structure) return found;
  for (index_t i = 0; i < a.rows; ++i) {
    bool diagonal = false;
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t j = a.col_idx[k];
      const index_t* first = a.col_idx + a.row_ptr[j];
      const index_t* last = a.col_idx + a.row_ptr[j + 1];
      const index_t* m = std::lower_bound(first, last, i);
      if (m == last || *m != i) {
        found |= kNoMirror;
        continue;
      }
      mirror[k] = static_cast<index_t>(m - a.col_idx);
      diagonal = diagonal || j == i;
    }
    if (!diagonal) found |= kMissingDiagonal;
  }
  return found;
}

}  // namespace prism::kernels::reference
