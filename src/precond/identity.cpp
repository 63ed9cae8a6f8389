#include "precond/preconditioner.hpp"

namespace prism::precond {
namespace {

/// M = I: plain conjugate gradients.
class Identity final : public Preconditioner {
 public:
  explicit Identity(backend::Backend& backend) : backend_(backend) {}
  std::string name() const override { return "none"; }
  void analyze(const CsrMatrix<double>& a) override { rows_ = a.rows; }
  void factorize(const CsrMatrix<double>&) override {}
  bool factorizes_in_backend() const override { return true; }
  void factorize(const backend::SourceValues&) override {}
  void apply(const backend::Vector& r, backend::Vector& z) override { backend_.copy(r, z); }
  double bytes_per_apply() const override { return 16.0 * rows_; }

 private:
  backend::Backend& backend_;
  index_t rows_ = 0;
};

}  // namespace

std::unique_ptr<Preconditioner> make_identity(backend::Backend& backend,
                                              const PreconditionerOptions&) {
  return std::make_unique<Identity>(backend);
}

}  // namespace prism::precond
