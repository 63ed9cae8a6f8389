#include "backend/cuda/cusparse_trisolve.hpp"

#include <prism/errors.hpp>

#include "backend/cuda/cuda_vector.hpp"

namespace prism::backend::cuda {
namespace {

using kernels::cuda::DeviceBuffer;

class CusparseTrisolve final : public TriangularSolver {
 public:
  CusparseTrisolve(const CsrMatrix<double>& t, Triangle triangle, cusparseHandle_t handle,
                   cudaStream_t stream)
      : handle_(handle),
        stream_(stream),
        rows_(t.rows),
        row_ptr_(t.row_ptr.size()),
        col_idx_(t.col_idx.size()),
        values_(t.values.size()) {
    row_ptr_.upload(t.row_ptr.data(), stream);
    col_idx_.upload(t.col_idx.data(), stream);
    values_.upload(t.values.data(), stream);
    matrix_ =
        make_csr_descr(t.rows, t.cols, t.nnz(), row_ptr_.data(), col_idx_.data(), values_.data());
    cusparseFillMode_t fill =
        triangle == Triangle::lower ? CUSPARSE_FILL_MODE_LOWER : CUSPARSE_FILL_MODE_UPPER;
    cusparseDiagType_t diag = CUSPARSE_DIAG_TYPE_NON_UNIT;
    PRISM_CUSPARSE_CHECK(
        cusparseSpMatSetAttribute(matrix_.get(), CUSPARSE_SPMAT_FILL_MODE, &fill, sizeof fill));
    PRISM_CUSPARSE_CHECK(
        cusparseSpMatSetAttribute(matrix_.get(), CUSPARSE_SPMAT_DIAG_TYPE, &diag, sizeof diag));
    cusparseSpSVDescr_t d = nullptr;
    PRISM_CUSPARSE_CHECK(cusparseSpSV_createDescr(&d));
    spsv_ = SpSVDescr(d);

    // The analysis needs vector descriptors; any vectors of the right size will do.
    CudaVector b(rows_), x(rows_);
    const double one = 1.0;
    std::size_t bytes = 0;
    PRISM_CUSPARSE_CHECK(cusparseSpSV_bufferSize(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                                 matrix_.get(), b.descr(), x.descr(), CUDA_R_64F,
                                                 CUSPARSE_SPSV_ALG_DEFAULT, spsv_.get(), &bytes));
    buffer_ = DeviceBuffer<char>(bytes > 0 ? bytes : 1);
    PRISM_CUSPARSE_CHECK(cusparseSpSV_analysis(
        handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, matrix_.get(), b.descr(), x.descr(),
        CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, spsv_.get(), buffer_.data()));
    // b and x are freed at scope exit: let the analysis finish with them first.
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  index_t rows() const override { return rows_; }
  index_t nnz() const override { return static_cast<index_t>(values_.size()); }

  void update_values(const std::vector<double>& values) override {
    if (values.size() != values_.size()) {
      throw InvalidMatrixError("update_values: expected " + std::to_string(values_.size()) +
                               " values, got " + std::to_string(values.size()));
    }
    values_.upload(values.data(), stream_);
    PRISM_CUSPARSE_CHECK(cusparseSpSV_updateMatrix(handle_, spsv_.get(), values_.data(),
                                                   CUSPARSE_SPSV_UPDATE_GENERAL));
  }

  void solve(const Vector& b, Vector& x) override {
    const double one = 1.0;
    PRISM_CUSPARSE_CHECK(cusparseSpSV_solve(handle_, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                            matrix_.get(), cast(b).descr(), cast(x).descr(),
                                            CUDA_R_64F, CUSPARSE_SPSV_ALG_DEFAULT, spsv_.get()));
  }

 private:
  cusparseHandle_t handle_;
  cudaStream_t stream_;
  index_t rows_;
  DeviceBuffer<index_t> row_ptr_;
  DeviceBuffer<index_t> col_idx_;
  DeviceBuffer<double> values_;
  SpMatDescr matrix_;
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
