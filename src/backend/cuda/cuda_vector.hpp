#pragma once
// A device vector with its cuSPARSE descriptor (made once, reused by every call): its own
// memory, or a view of the caller's (Backend::view).

#include "backend/backend.hpp"
#include "backend/cuda/cuda_handles.hpp"
#include "kernels/cuda/device_memory.hpp"

namespace prism::backend::cuda {

class CudaVector final : public Vector {
 public:
  explicit CudaVector(index_t n)
      : owned_(static_cast<std::size_t>(n)),
        data_(owned_.data()),
        size_(n),
        descr_(make_dnvec_descr(n, data_)) {}
  /// A view of n doubles of device memory the caller owns.
  CudaVector(double* data, index_t n) : data_(data), size_(n), descr_(make_dnvec_descr(n, data)) {}
  index_t size() const override { return size_; }
  double* data() override { return data_; }
  const double* data() const override { return data_; }
  /// cuSPARSE takes non-const descriptors even for inputs; it does not write them.
  cusparseDnVecDescr_t descr() const { return descr_.get(); }

 private:
  kernels::cuda::DeviceBuffer<double> owned_;  // empty for a view
  double* data_;
  index_t size_;
  DnVecDescr descr_;
};

inline const CudaVector& cast(const Vector& v) {
  return dynamic_cast<const CudaVector&>(v);
}
inline CudaVector& cast(Vector& v) {
  return dynamic_cast<CudaVector&>(v);
}

}  // namespace prism::backend::cuda
