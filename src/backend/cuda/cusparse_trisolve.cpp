#include "backend/cuda/cusparse_trisolve.hpp"

#include <prism/errors.hpp>

#include "backend/cuda/cuda_vector.hpp"
#include "backend/cuda/device_csr.hpp"

namespace prism::backend::cuda {
namespace {

using kernels::cuda::DeviceBuffer;

class CusparseTrisolve final : public TriangularSolver {
 public:
  CusparseTrisolve(const CsrMatrix<double>& t, Triangle triangle, cusparseHandle_t handle,
                   cudaStream_t stream)
      : handle_(handle), stream_(stream), csr_(t, stream) {
    cusparseFillMode_t fill =
        triangle == Triangle::lower ? CUSPARSE_FILL_MODE_LOWER : CUSPARSE_FILL_MODE_UPPER;
    cusparseDiagType_t diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
    PRISM_CUSPARSE_CHECK(
        cusparseSpMatSetAttribute(csr_.descr(), CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof fill));
    PRISM_CUSPARSE_CHECK(
        cusparseSpMatSetAttribute(csr_.descr(), CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof diag));
    cusparseSpSVDescr_t d = nullptr;
    PRISM_CUSPARSE_CHECK(cusparseSpSV_createDescr(&d));
    spsv_ = SpSVDescr(d);

    // The analysis needs vector descriptors; any vectors of the right size will do.
    CudaVector b(csr_.rows()), x(csr_.rows());
    const double one = 1.0;
    std::size_t bytes = 0;
    PRISM_CUSPARSE_CHECK(cusparseSpSV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                                 csr_.descr(), b.descr(), x.descr(), CUDA_R_64F,
                                                 CUSPARSE_SPSV_ALG_DEFAULT, spsv_.get(), &bytes));
    buffer_ = DeviceBuffer<char>(bytes > 0 ? bytes : 1);
    PRISM_CUSPARSE_CHECK(cusparseSpSV_analysis(
        handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, csr_.descr(), b.descr(), x.descr(),
        CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, spsv_.get(), buffer_.data()));
    // b and x are freed at scope exit: let the analysis finish with them first.
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  index_t rows() const override { return csr_.rows(); }
  index_t nnz() const override { return csr_.nnz(); }
  std::string algorithm() const override { return "cusparse"; }

  void update_values(const std::vector<double>& values) override {
    csr_.update_values(values);
    PRISM_CUSPARSE_CHECK(cusparseSpSV_updateMatrix(handle_, spsv_.get(), csr_.values(),
                                                   CUSPARSE_SPSV_UPDATE_GENERAL));
  }

  void solve(const Vector& b, Vector& x) override {
    const double one = 1.0;
    PRISM_CUSPARSE_CHECK(cusparseSpSV_solve(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                            csr_.descr(), cast(b).descr(), cast(x).descr(),
                                            CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, spsv_.get()));
  }

 private:
  cusparseHandle_t handle_;
  cudaStream_t stream_;
  DeviceCsr csr_;
  SpSVDescr spsv_;
  DeviceBuffer<char> buffer_;
};

}  // namespace

std::unique_ptr<TriangularSolver> make_cusparse_trisolve(const CsrMatrix<double>& t,
                                                         Triangle triangle, cusparseHandle_t handle,
                                                         cudaStream_t stream) {
  return std::make_unique<CusparseTrisolve>(t, triangle, handle, stream);
}

}  // namespace prism::backend::cuda
