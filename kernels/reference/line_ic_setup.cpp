#include "kernels/line_ic_setup.hpp"

#include <algorithm>
#include <cmath>

namespace prism::kernels::reference {

std::vector<index_t> line_ic_line_of(const std::vector<index_t>& line_ptr) {
  std::vector<index_t> line_of(static_cast<std::size_t>(line_ptr.back()));
  for (std::size_t l = 0; l + 1 < line_ptr.size(); ++l) {
    for (index_t i = line_ptr[l]; i < line_ptr[l + 1]; ++i) line_of[i] = static_cast<index_t>(l);
  }
  return line_of;
}

LineIcSplit line_ic_split(CsrView<double> a, const std::vector<index_t>& line_ptr,
                          const std::vector<index_t>& color_ptr) {
  const std::vector<index_t> line_of = line_ic_line_of(line_ptr);
  std::vector<index_t> color_of(line_ptr.size() - 1);
  for (std::size_t c = 0; c + 1 < color_ptr.size(); ++c) {
    for (index_t l = color_ptr[c]; l < color_ptr[c + 1]; ++l) color_of[l] = static_cast<index_t>(c);
  }
  const index_t n = a.rows;
  LineIcSplit s;
  s.diagonal_source.assign(static_cast<std::size_t>(n), -1);
  s.sub_source.assign(static_cast<std::size_t>(n), -1);
  for (index_t i = 0; i < n; ++i) {
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      const index_t j = a.col_idx[k];
      const index_t ci = color_of[line_of[i]], cj = color_of[line_of[j]];
      if (line_of[j] == line_of[i]) {
        if (j == i) s.diagonal_source[i] = k;
        if (j == i - 1) s.sub_source[i] = k;
      } else if (cj < ci) {
        s.lower_col.push_back(j);
        s.lower_source.push_back(k);
      } else if (cj > ci) {
        s.upper_col.push_back(j);
        s.upper_source.push_back(k);
      } else {
        LineIcSplit defect;
        defect.lower_ptr.clear();
        defect.upper_ptr.clear();
        defect.coupled_row = i;
        defect.coupled_col = j;
        return defect;
      }
    }
    s.lower_ptr.push_back(static_cast<index_t>(s.lower_col.size()));
    s.upper_ptr.push_back(static_cast<index_t>(s.upper_col.size()));
  }
  return s;
}

namespace {

/// (L Sigma L^T)(i, m) over the entries of rows i and m of L in one line, at most one row
/// apart: the band of Sigma.
double schur(const LineIcAttemptView& f, index_t i, index_t m) {
  const CsrView<double>& l = f.lower;
  double sum = 0.0;
  for (index_t p = l.row_ptr[i]; p < l.row_ptr[i + 1]; ++p) {
    const index_t j = l.col_idx[p];
    for (index_t q = l.row_ptr[m]; q < l.row_ptr[m + 1]; ++q) {
      const index_t k = l.col_idx[q];
      if (k == j) {
        sum += l.values[p] * f.band_diagonal[j] * l.values[q];
      } else if ((k == j + 1 || k == j - 1) && f.line_of[k] == f.line_of[j]) {
        sum += l.values[p] * f.band_off[std::min(j, k)] * l.values[q];
      }
    }
  }
  return sum;
}

}  // namespace

index_t line_ic_attempt_lines(const LineIcAttemptView& f, index_t first, index_t last, double shift,
                              double& pivot) {
  for (index_t line = first; line < last; ++line) {
    const index_t begin = f.line_ptr[line], end = f.line_ptr[line + 1];
    if (begin == end) continue;  // an empty line has no band
    for (index_t i = begin; i < end; ++i) {
      const double d = f.diagonal[i];
      pivot = d + shift * std::abs(d) - schur(f, i, i);
      if (i > begin) {
        // l_{i,i-1} = Delta(i, i-1) / l_{i-1,i-1}
        const double sub = (f.below[i] - schur(f, i, i - 1)) * f.inverse_diagonal[i - 1];
        f.sub[i] = sub;
        pivot -= sub * sub;
      }
      if (!(pivot > 0.0) || !std::isfinite(pivot)) return i;
      f.inverse_diagonal[i] = 1.0 / std::sqrt(pivot);
    }
    // The band of Delta^{-1} = L_D^{-T} L_D^{-1} from the line's end (Takahashi):
    // Sigma(i, i+1) = -(l_{i+1,i} / l_ii) Sigma(i+1, i+1),
    // Sigma(i, i) = 1 / l_ii^2 - (l_{i+1,i} / l_ii) Sigma(i, i+1).
    f.band_diagonal[end - 1] = f.inverse_diagonal[end - 1] * f.inverse_diagonal[end - 1];
    for (index_t i = end - 2; i >= begin; --i) {
      const double ratio = f.sub[i + 1] * f.inverse_diagonal[i];
      f.band_off[i] = -ratio * f.band_diagonal[i + 1];
      f.band_diagonal[i] = f.inverse_diagonal[i] * f.inverse_diagonal[i] - ratio * f.band_off[i];
    }
  }
  return -1;
}

}  // namespace prism::kernels::reference
