#include "backend/cpu_backend.hpp"

#include <prism/errors.hpp>

#include "kernels/blas1.hpp"
#include "kernels/spmv.hpp"
#include "kernels/trisolve.hpp"

#include <array>
#include <chrono>
#include <utility>

namespace prism::backend {
namespace {

namespace ref = prism::kernels::reference;

class CpuVector final : public Vector {
 public:
  explicit CpuVector(index_t n) : data(static_cast<std::size_t>(n), 0.0) {}
  index_t size() const override { return static_cast<index_t>(data.size()); }
  std::vector<double> data;
};

class CpuMatrix final : public Matrix {
 public:
  explicit CpuMatrix(const CsrMatrix<double>& a) : csr(a) {}
  index_t rows() const override { return csr.rows; }
  index_t nnz() const override { return csr.nnz(); }
  void update_values(const std::vector<double>& values) override {
    if (values.size() != csr.values.size()) {
      throw InvalidMatrixError("update_values: expected " + std::to_string(csr.values.size()) +
                               " values, got " + std::to_string(values.size()));
    }
    csr.values = values;
  }
  kernels::CsrView<double> view() const {
    return {csr.rows, csr.cols, csr.row_ptr.data(), csr.col_idx.data(), csr.values.data()};
  }
  CsrMatrix<double> csr;
};

class CpuTimer final : public PhaseTimer {
 public:
  void begin(Phase phase) override { start_[static_cast<int>(phase)] = clock::now(); }
  void end(Phase phase) override {
    const int p = static_cast<int>(phase);
    current_[p] += std::chrono::duration<double>(clock::now() - start_[p]).count();
  }
  void next_iteration() override {
    records_.push_back(current_);
    current_ = PhaseArray{};
  }
  std::vector<PhaseArray> per_iteration() override {
    current_ = PhaseArray{};
    return std::exchange(records_, {});
  }

 private:
  using clock = std::chrono::steady_clock;
  std::array<clock::time_point, kNumPhases> start_{};
  PhaseArray current_{};
  std::vector<PhaseArray> records_;
};

const CpuVector& cast(const Vector& v) {
  return dynamic_cast<const CpuVector&>(v);
}
CpuVector& cast(Vector& v) {
  return dynamic_cast<CpuVector&>(v);
}
const CpuMatrix& cast(const Matrix& m) {
  return dynamic_cast<const CpuMatrix&>(m);
}

void check_size(const Vector& x, const Vector& y, const char* op) {
  if (x.size() != y.size()) {
    throw Error(std::string(op) + ": vector sizes differ (" + std::to_string(x.size()) + " vs " +
                std::to_string(y.size()) + ")");
  }
}

class CpuBackend final : public Backend {
 public:
  std::string name() const override { return "cpu"; }

  std::unique_ptr<Vector> make_vector(index_t n) override { return std::make_unique<CpuVector>(n); }
  std::unique_ptr<Matrix> make_matrix(const CsrMatrix<double>& a) override {
    return std::make_unique<CpuMatrix>(a);
  }
  void copy_from_host(const std::vector<double>& src, Vector& dst) override {
    if (static_cast<index_t>(src.size()) != dst.size()) {
      throw Error("copy_from_host: size " + std::to_string(src.size()) + " does not match " +
                  std::to_string(dst.size()));
    }
    cast(dst).data = src;
  }
  void copy_to_host(const Vector& src, std::vector<double>& dst) override { dst = cast(src).data; }

  void spmv(const Matrix& a, const Vector& x, Vector& y) override {
    ref::spmv(cast(a).view(), cast(x).data.data(), cast(y).data.data());
  }
  double dot(const Vector& x, const Vector& y) override {
    check_size(x, y, "dot");
    return ref::dot(x.size(), cast(x).data.data(), cast(y).data.data());
  }
  void axpy(double a, const Vector& x, Vector& y) override {
    check_size(x, y, "axpy");
    ref::axpy(x.size(), a, cast(x).data.data(), cast(y).data.data());
  }
  void xpay(const Vector& x, double b, Vector& y) override {
    check_size(x, y, "xpay");
    ref::xpay(x.size(), cast(x).data.data(), b, cast(y).data.data());
  }
  double cg_update(double alpha, const Vector& p, const Vector& q, Vector& x, Vector& r) override {
    check_size(p, x, "cg_update");
    return ref::cg_update(p.size(), alpha, cast(p).data.data(), cast(q).data.data(),
                          cast(x).data.data(), cast(r).data.data());
  }
  void copy(const Vector& x, Vector& y) override {
    check_size(x, y, "copy");
    ref::copy(x.size(), cast(x).data.data(), cast(y).data.data());
  }
  void pointwise_multiply(const Vector& d, const Vector& x, Vector& y) override {
    check_size(d, x, "pointwise_multiply");
    ref::pointwise_multiply(x.size(), cast(d).data.data(), cast(x).data.data(),
                            cast(y).data.data());
  }
  void lower_solve(const Matrix& l, const Vector& b, Vector& x) override {
    ref::lower_solve(cast(l).view(), cast(b).data.data(), cast(x).data.data());
  }
  void upper_solve(const Matrix& u, const Vector& b, Vector& x) override {
    ref::upper_solve(cast(u).view(), cast(b).data.data(), cast(x).data.data());
  }

  PhaseTimer& timer() override { return timer_; }

 private:
  CpuTimer timer_;
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend() {
  return std::make_unique<CpuBackend>();
}

}  // namespace prism::backend
