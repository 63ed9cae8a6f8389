#pragma once
// RAII owners of the CUDA objects the backend holds: stream, cuSPARSE handle, the
// cuSPARSE matrix / vector / SpSV descriptors, events, graphs.

#include <prism/types.hpp>

#include "kernels/cuda/check.hpp"

#include <utility>

namespace prism::backend::cuda {

/// Owns one handle-like object and destroys it with `Destroy` (a no-throw function).
template <typename Handle, auto Destroy>
class Owned {
 public:
  Owned() = default;
  explicit Owned(Handle h) : h_(h) {}
  ~Owned() { reset(); }
  Owned(Owned&& o) noexcept : h_(std::exchange(o.h_, Handle{})) {}
  Owned& operator=(Owned&& o) noexcept {
    if (this != &o) {
      reset();
      h_ = std::exchange(o.h_, Handle{});
    }
    return *this;
  }
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  Handle get() const noexcept { return h_; }
  explicit operator bool() const noexcept { return h_ != Handle{}; }
  void reset() noexcept {
    if (h_ != Handle{}) Destroy(h_);
    h_ = Handle{};
  }

 private:
  Handle h_{};
};

using Stream = Owned<cudaStream_t, cudaStreamDestroy>;
using Event = Owned<cudaEvent_t, cudaEventDestroy>;
using SparseHandle = Owned<cusparseHandle_t, cusparseDestroy>;
using SpMatDescr = Owned<cusparseSpMatDescr_t, cusparseDestroySpMat>;
using DnVecDescr = Owned<cusparseDnVecDescr_t, cusparseDestroyDnVec>;
using SpSVDescr = Owned<cusparseSpSVDescr_t, cusparseSpSV_destroyDescr>;
using Graph = Owned<cudaGraph_t, cudaGraphDestroy>;
using GraphExec = Owned<cudaGraphExec_t, cudaGraphExecDestroy>;

inline Stream make_stream() {
  cudaStream_t s = nullptr;
  PRISM_CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return Stream(s);
}

inline Event make_event() {
  cudaEvent_t e = nullptr;
  PRISM_CUDA_CHECK(cudaEventCreate(&e));
  return Event(e);
}

inline SparseHandle make_sparse_handle(cudaStream_t stream) {
  cusparseHandle_t h = nullptr;
  PRISM_CUSPARSE_CHECK(cusparseCreate(&h));
  SparseHandle owned(h);
  PRISM_CUSPARSE_CHECK(cusparseSetStream(h, stream));
  return owned;
}

/// A CSR descriptor over device arrays (32-bit indices, double values, base 0).
inline SpMatDescr make_csr_descr(index_t rows, index_t cols, index_t nnz, index_t* row_ptr,
                                 index_t* col_idx, double* values) {
  cusparseSpMatDescr_t d = nullptr;
  PRISM_CUSPARSE_CHECK(cusparseCreateCsr(&d, rows, cols, nnz, row_ptr, col_idx, values,
                                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                         CUSPARSE_INDEX_BASE_ZERO, CUDA_R_64F));
  return SpMatDescr(d);
}

inline DnVecDescr make_dnvec_descr(index_t n, double* values) {
  cusparseDnVecDescr_t d = nullptr;
  PRISM_CUSPARSE_CHECK(cusparseCreateDnVec(&d, n, values, CUDA_R_64F));
  return DnVecDescr(d);
}

}  // namespace prism::backend::cuda
