#include "kernels/tridiagonal.hpp"
#include "kernels/host/team.hpp"
#include "kernels/host/threaded.hpp"

#include <cstdint>

namespace prism::kernels::host {

void tridiagonal_solve(int threads, index_t n, index_t m, const double* a, const double* b,
                       const double* c, const double* d, double* x) {
  // Whole systems per thread, each by the reference's Thomas: its bits, for any split.
  const index_t grain = n > 0 ? std::max<index_t>(1, 4096 / n) : 1;
  detail::for_items(threads, m, grain, [&](int, index_t begin, index_t end) {
    const std::int64_t at = static_cast<std::int64_t>(begin) * n;
    reference::tridiagonal_solve(TridiagonalLayout::contiguous, n, end - begin, a + at, b + at,
                                 c + at, d + at, x + at);
  });
}

}  // namespace prism::kernels::host
