#include "precond/preconditioner.hpp"

#include <prism/errors.hpp>

#include <cmath>

namespace prism::precond {
namespace {

/// M = diag(A): z = D^{-1} r. Traffic per apply: read d and r, write z.
class Jacobi final : public Preconditioner {
 public:
  explicit Jacobi(backend::Backend& backend) : backend_(backend) {}
  std::string name() const override { return "jacobi"; }
  void analyze(const CsrMatrix<double>& a) override {
    rows_ = a.rows;
    inverse_diagonal_ = backend_.make_vector(a.rows);
  }
  void factorize(const CsrMatrix<double>& a) override {
    std::vector<double> d = diagonal(a);
    for (index_t i = 0; i < a.rows; ++i) {
      if (!(d[i] > 0.0) || !std::isfinite(d[i])) {
        throw InvalidMatrixError("jacobi: diagonal entry of row " + std::to_string(i + 1) +
                                 " is not positive");
      }
      d[i] = 1.0 / d[i];
    }
    backend_.copy_from_host(d, *inverse_diagonal_);
  }
  void apply(const backend::Vector& r, backend::Vector& z) override {
    backend_.pointwise_multiply(*inverse_diagonal_, r, z);
  }
  double bytes_per_apply() const override { return 24.0 * rows_; }

 private:
  backend::Backend& backend_;
  index_t rows_ = 0;
  std::unique_ptr<backend::Vector> inverse_diagonal_;
};

}  // namespace

std::unique_ptr<Preconditioner> make_jacobi(backend::Backend& backend,
                                            const PreconditionerOptions&) {
  return std::make_unique<Jacobi>(backend);
}

}  // namespace prism::precond
