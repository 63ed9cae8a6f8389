#include "precond/preconditioner.hpp"

namespace prism::precond {
namespace {

/// M = I: plain conjugate gradients.
class Identity final : public Preconditioner, public BackendFactorization {
 public:
  explicit Identity(backend::Backend& backend) : backend_(backend) {}
  std::string name() const override { return "none"; }
  void analyze(const CsrMatrix<double>& a) override { rows_ = a.rows; }
  void factorize(const CsrMatrix<double>&) override {}
  BackendFactorization* backend_factorization() override { return this; }
  void factorize(const backend::SourceValues&) override {}
  void apply(const backend::Vector& r, backend::Vector& z, backend::PhaseTimer* timer,
             std::optional<backend::Scalar> dot) override {
    check_no_dot(name(), dot);
    timed(timer, Phase::precond, [&] { backend_.copy(r, z); });
  }
  void apply_columns(backend::Backend&, const backend::Vector& r, backend::Vector& z,
                     const backend::ColumnSet& set, backend::PhaseTimer* timer) override {
    timed(timer, Phase::precond, [&] { backend_.column_copy(r, z, set); });
  }
  bool applies_columns_at_once() const override { return true; }
  /// Reads r, writes z.
  PhaseArray traffic() const override {
    PhaseArray bytes{};
    bytes[static_cast<int>(Phase::precond)] = 16.0 * rows_;
    return bytes;
  }

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
