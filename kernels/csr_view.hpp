#pragma once
// Non-owning view of a CSR matrix. The same struct describes host arrays (reference
// kernels) and device arrays (CUDA kernels), so every kernel has one signature.

#include <prism/types.hpp>

namespace prism::kernels {

template <typename T>
struct CsrView {
  index_t rows = 0;
  index_t cols = 0;
  const index_t* row_ptr = nullptr;
  const index_t* col_idx = nullptr;
  const T* values = nullptr;
};

}  // namespace prism::kernels
