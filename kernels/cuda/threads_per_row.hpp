#pragma once
// The row kernels (spmv.cu, colorset.cu) are compiled for 1, 2, 4, 8, 16 and 32 threads per
// row; this turns the count chosen at run time into the template argument, in one place.

#include <type_traits>

namespace prism::kernels::cuda {

/// Calls f(std::integral_constant<int, T>{}) for threads_per_row = T in 1, 2, 4, 8, 16; any
/// other count takes 32.
template <typename F>
void with_threads_per_row(int threads_per_row, F&& f) {
  switch (threads_per_row) {
    case 1:
      f(std::integral_constant<int, 1>{});
      break;
    case 2:
      f(std::integral_constant<int, 2>{});
      break;
    case 4:
      f(std::integral_constant<int, 4>{});
      break;
    case 8:
      f(std::integral_constant<int, 8>{});
      break;
    case 16:
      f(std::integral_constant<int, 16>{});
      break;
    default:
      f(std::integral_constant<int, 32>{});
      break;
  }
}

}  // namespace prism::kernels::cuda
