#include "kernels/line_ic.hpp"
#include "kernels/host/team.hpp"

#include <algorithm>

namespace prism::kernels::host {
namespace {

/// Rows per thread below which a color is not split (a team barrier costs about that).
constexpr index_t kRowsPerThread = 2048;

/// Each color's lines in `size` parts of about equal rows (the lines of a color run from
/// long to short), the colors in `order`, a team barrier between colors: one team for the
/// whole solve. `lines(first, last)` solves lines [first, last) as the reference does.
template <typename Lines>
void by_colors(int threads, const LineIcView& f, bool forward, const Lines& lines) {
  const int team =
      static_cast<int>(std::clamp<index_t>(f.rows / kRowsPerThread, 1, std::max(threads, 1)));
  detail::run_team(team, [&](int rank, int size) {
    for (int k = 0; k < f.colors; ++k) {
      const int c = forward ? k : f.colors - 1 - k;
      const index_t* first = f.line_ptr + f.color_ptr[c];
      const index_t* last = f.line_ptr + f.color_ptr[c + 1];
      // The line of this color in which a row part starts (the first line starting at or
      // after the part's first row).
      const auto line_at = [&](int part) {
        const index_t row = *first + detail::part_start(*last - *first, part, size);
        return static_cast<index_t>(std::lower_bound(first, last, row) - f.line_ptr);
      };
      const index_t begin = line_at(rank), end = line_at(rank + 1);
      if (begin < end) lines(begin, end);
      if (size > 1) detail::team_barrier();
    }
  });
}

}  // namespace

void line_ic_forward(int threads, const LineIcView& f, const double* r, double* w) {
  by_colors(threads, f, true, [&](index_t first, index_t last) {
    reference::line_ic_forward_lines(f, first, last, r, w);
  });
}

void line_ic_backward(int threads, const LineIcView& f, const double* w, double* z) {
  by_colors(threads, f, false, [&](index_t first, index_t last) {
    reference::line_ic_backward_lines(f, first, last, w, z);
  });
}

}  // namespace prism::kernels::host
