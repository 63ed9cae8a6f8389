#include "precond/preconditioner.hpp"

#include <prism/errors.hpp>

#include <utility>

namespace prism::precond {
namespace {

/// M^{-1} given by the caller: z = apply(r) on the backend's memory (Solver's
/// set_preconditioner_callback). The callback may do anything (host work, its own streams),
/// so apply() waits for the queued work that forms r and is never recorded.
class User final : public Preconditioner, public BackendFactorization {
 public:
  explicit User(backend::Backend& backend) : backend_(backend) {}
  std::string name() const override { return kUserPreconditioner; }
  void set_callback(UserApply apply) override { apply_ = std::move(apply); }
  void analyze(const CsrMatrix<double>& a) override { rows_ = a.rows; }
  void factorize(const CsrMatrix<double>&) override {}
  BackendFactorization* backend_factorization() override { return this; }
  void factorize(const backend::SourceValues&) override {}
  void apply(const backend::Vector& r, backend::Vector& z, backend::PhaseTimer* timer,
             std::optional<backend::Scalar> dot) override {
    check_no_dot(name(), dot);
    if (!apply_) {
      throw ConfigError(
          "preconditioner: user has no callback; give one with "
          "Solver::set_preconditioner_callback (C: prism_solver_set_preconditioner)");
    }
    timed(timer, Phase::precond, [&] {
      backend_.synchronize();  // r complete before the callback reads it
      apply_(r.data(), z.data(), static_cast<std::size_t>(rows_));
    });
  }
  bool recordable() const override { return false; }
  /// Unknown: the callback's own.
  PhaseArray traffic() const override { return PhaseArray{}; }

 private:
  backend::Backend& backend_;
  index_t rows_ = 0;
  UserApply apply_;
};

}  // namespace

std::unique_ptr<Preconditioner> make_user(backend::Backend& backend, const PreconditionerOptions&) {
  return std::make_unique<User>(backend);
}

}  // namespace prism::precond
