#include "kernels/choice_scans.hpp"

#include <cmath>

namespace prism::kernels::reference {
namespace {

bool same_pattern(const CsrView<double>& a, index_t i, index_t j) {
  const index_t length = a.row_ptr[i + 1] - a.row_ptr[i];
  if (a.row_ptr[j + 1] - a.row_ptr[j] != length) return false;
  for (index_t t = 0; t < length; ++t) {
    if (a.col_idx[a.row_ptr[i] + t] != a.col_idx[a.row_ptr[j] + t]) return false;
  }
  return true;
}

}  // namespace

int choose_links(const CsrView<double>& a, const double* r, index_t i, double dominance,
                 double min_strength, index_t col[2]) {
  double top[3] = {0.0, 0.0, 0.0};  // the three largest strengths, in decreasing order
  col[0] = col[1] = -1;
  for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
    const index_t j = a.col_idx[k];
    if (j == i) continue;
    const double s = std::abs(a.values[k]) * (r[i] * r[j]);
    if (s > top[0]) {
      top[2] = top[1];
      top[1] = top[0];
      col[1] = col[0];
      top[0] = s;
      col[0] = j;
    } else if (s > top[1]) {
      top[2] = top[1];
      top[1] = s;
      col[1] = j;
    } else if (s > top[2]) {
      top[2] = s;
    }
  }
  const auto dominant = [&](double chosen, double next) {
    return chosen > 0.0 && chosen >= min_strength && chosen >= dominance * next;
  };
  return dominant(top[1], top[2]) ? 2 : (dominant(top[0], top[1]) ? 1 : 0);
}

index_t node_block_ptr(const CsrView<double>& a, index_t max_size, index_t* ptr) {
  index_t count = 0;
  ptr[0] = 0;
  for (index_t i = 0; i < a.rows;) {
    index_t end = i + 1;
    while (end < a.rows && end - i < max_size && same_pattern(a, end - 1, end)) ++end;
    ptr[++count] = end;
    i = end;
  }
  return count;
}

index_t inverse_sqrt_diagonal(const CsrView<double>& a, double* r) {
  for (index_t i = 0; i < a.rows; ++i) {
    double d = 0.0;
    for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
      if (a.col_idx[k] == i) d = a.values[k];
    }
    if (!(d > 0.0) || !std::isfinite(d)) return i;
    r[i] = 1.0 / std::sqrt(d);
  }
  return -1;
}

index_t rows_choosing_links(const CsrView<double>& a, const double* r, double dominance,
                            double min_strength) {
  index_t choosing = 0;
  for (index_t i = 0; i < a.rows; ++i) {
    index_t col[2];
    if (choose_links(a, r, i, dominance, min_strength, col) > 0) ++choosing;
  }
  return choosing;
}

void chosen_links(const CsrView<double>& a, const double* r, double dominance, double min_strength,
                  index_t* chosen) {
  for (index_t i = 0; i < a.rows; ++i) {
    index_t col[2];
    const int k = choose_links(a, r, i, dominance, min_strength, col);
    chosen[2 * i] = k > 0 ? col[0] : -1;
    chosen[2 * i + 1] = k > 1 ? col[1] : -1;
  }
}

void mutual_links(index_t rows, const index_t* chosen, index_t* links) {
  for (index_t i = 0; i < rows; ++i) {
    index_t* out = links + 2 * i;
    out[0] = out[1] = -1;
    for (int c = 0; c < 2; ++c) {
      const index_t j = chosen[2 * i + c];
      if (j >= 0 && (chosen[2 * j] == i || chosen[2 * j + 1] == i)) *out++ = j;
    }
  }
}

}  // namespace prism::kernels::reference
