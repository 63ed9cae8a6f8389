#include "kernels/line_ic.hpp"

#include <prism/errors.hpp>

#include <string>

namespace prism::kernels {

LineIcPlan line_ic_plan(const std::vector<index_t>& line_ptr, const std::vector<index_t>& color_ptr,
                        index_t tile_rows) {
  if (tile_rows < 1) {
    throw Error("line_ic_plan: tile_rows must be >= 1, got " + std::to_string(tile_rows));
  }
  LineIcPlan p;
  const auto close = [&](index_t first, index_t end) {
    if (end > first) {
      p.tile_begin.push_back(line_ptr[first]);
      p.tile_end.push_back(line_ptr[end]);
    }
  };
  for (std::size_t c = 0; c + 1 < color_ptr.size(); ++c) {
    index_t points = color_ptr[c + 1];  // the first line of the trailing lines of one row
    while (points > color_ptr[c] && line_ptr[points] - line_ptr[points - 1] == 1) --points;
    index_t first = color_ptr[c];
    for (index_t l = color_ptr[c]; l < points; ++l) {
      if (l > first && line_ptr[l + 1] - line_ptr[first] > tile_rows) {
        close(first, l);
        first = l;
      }
    }
    close(first, points);
    p.color_tile.push_back(static_cast<index_t>(p.tile_begin.size()));
    p.range_ptr.push_back(line_ptr[points]);
    p.range_ptr.push_back(line_ptr[color_ptr[c + 1]]);
  }
  return p;
}

}  // namespace prism::kernels

namespace prism::kernels::reference {
namespace {

/// t = L_D^{-T} L_D^{-1} t on the line of rows [begin, end).
void line_solve(const LineIcView& f, index_t begin, index_t end, double* t) {
  for (index_t i = begin; i < end; ++i) {
    double s = t[i];
    if (i > begin) s -= f.sub[i] * t[i - 1];
    t[i] = s * f.inverse_diagonal[i];
  }
  t[end - 1] = t[end - 1] * f.inverse_diagonal[end - 1];
  for (index_t i = end - 2; i >= begin; --i) {
    t[i] = (t[i] - f.sub[i + 1] * t[i + 1]) * f.inverse_diagonal[i];
  }
}

}  // namespace

void line_ic_forward_lines(const LineIcView& f, index_t first, index_t last, const double* r,
                           double* w) {
  const CsrView<double>& o = f.lower;
  for (index_t l = first; l < last; ++l) {
    for (index_t i = f.line_ptr[l]; i < f.line_ptr[l + 1]; ++i) {
      double s = r[i];  // r_i - sum_j l_ij w_j over the earlier colors
      for (index_t k = o.row_ptr[i]; k < o.row_ptr[i + 1]; ++k) s -= o.values[k] * w[o.col_idx[k]];
      w[i] = s;
    }
    line_solve(f, f.line_ptr[l], f.line_ptr[l + 1], w);
  }
}

void line_ic_backward_lines(const LineIcView& f, index_t first, index_t last, const double* w,
                            double* z) {
  const CsrView<double>& o = f.upper;
  for (index_t l = first; l < last; ++l) {
    for (index_t i = f.line_ptr[l]; i < f.line_ptr[l + 1]; ++i) {
      double s = 0.0;  // -sum_j u_ij z_j over the later colors
      for (index_t k = o.row_ptr[i]; k < o.row_ptr[i + 1]; ++k) s -= o.values[k] * z[o.col_idx[k]];
      z[i] = s;
    }
    line_solve(f, f.line_ptr[l], f.line_ptr[l + 1], z);
    for (index_t i = f.line_ptr[l]; i < f.line_ptr[l + 1]; ++i) z[i] = w[i] + z[i];
  }
}

void line_ic_forward(const LineIcView& f, const double* r, double* w) {
  for (int c = 0; c < f.colors; ++c) {
    line_ic_forward_lines(f, f.color_ptr[c], f.color_ptr[c + 1], r, w);
  }
}

void line_ic_backward(const LineIcView& f, const double* w, double* z) {
  for (int c = f.colors - 1; c >= 0; --c) {
    line_ic_backward_lines(f, f.color_ptr[c], f.color_ptr[c + 1], w, z);
  }
}

}  // namespace prism::kernels::reference
