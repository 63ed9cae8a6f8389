#pragma once
// A device vector with its cuSPARSE descriptor (made once, reused by every call).

#include "backend/backend.hpp"
#include "backend/cuda/cuda_handles.hpp"
#include "kernels/cuda/device_memory.hpp"

namespace prism::backend::cuda {

class CudaVector final : public Vector {
 public:
  explicit CudaVector(index_t n)
      : data_(static_cast<std::size_t>(n)), descr_(make_dnvec_descr(n, data_.data())) {}
  index_t size() const override { return static_cast<index_t>(data_.size()); }
  double* data() { return data_.data(); }
  const double* data() const { return data_.data(); }
  /// cuSPARSE takes non-const descriptors even for inputs; it does not write them.
  cusparseDnVecDescr_t descr() const { return descr_.get(); }

 private:
  kernels::cuda::DeviceBuffer<double> data_;
  DnVecDescr descr_;
};

inline const CudaVector& cast(const Vector& v) {
  return dynamic_cast<const CudaVector&>(v);
}
inline CudaVector& cast(Vector& v) {
  return dynamic_cast<CudaVector&>(v);
}

}  // namespace prism::backend::cuda
