#include "backend/ordered_matrix.hpp"
#include "common/setup_steps.hpp"
#include "precond/ic0_pattern.hpp"
#include "precond/preconditioner.hpp"

#include <prism/errors.hpp>

#include <algorithm>
#include <optional>

namespace prism::precond {
namespace {

/// M = L L^T with the IC(0) factor: z = L^{-T} L^{-1} r.
/// Traffic per triangular solve: the factor (12 B/nnz + 4 B/row), the right-hand side
/// and the solution read (gathered) and the solution written: 12 nnz(L) + 28 n; with
/// precision mixed the values take 4 B: 8 nnz(L) + 28 n.
///
/// With factorization `backend` (engine_) the factor is computed, kept and solved in the
/// backend's memory, and values already there are scaled, factored and laid out there:
/// nothing goes through the host. With `host` the reference kernel factors on the host
/// and the triangular solvers take the factor.
class Ic0 final : public Preconditioner, public BackendFactorization {
 public:
  Ic0(backend::Backend& backend, const PreconditionerOptions& options)
      : backend_(backend), options_(options) {}
  std::string name() const override { return "ic0"; }
  PreconditionerInfo info() const override {
    PreconditionerInfo info;
    info.trisolve = trisolve_name_;
    info.trisolve_layout = engine_ ? engine_->layout() : lower_ ? lower_->layout() : "";
    info.precision = std::string(to_string(options_.ic0.precision));
    info.factorization = report_;
    return info;
  }

  void analyze(const CsrMatrix<double>& a) override {
    common::StepTimer pattern_step("analysis: ic0 pattern (L, U = L^T)");
    auto pattern = std::make_unique<Ic0Pattern>(a);
    pattern_step.stop();
    const index_t lower_nnz = pattern->lower().nnz();
    start_analysis(std::move(pattern), a.rows, lower_nnz);
    // The solver's plan resolves `automatic` (solver/plan.hpp); a caller that passes it
    // here gets the host factorization.
    if (options_.ic0.factorization == Ic0Factorization::backend) {
      engine_ =
          backend_.make_ic0_factor(pattern_->lower(), pattern_->upper(), pattern_->upper_source(),
                                   pattern_->lower_source(), spec());
      trisolve_name_ = "colorset";
      pattern_->keep_only_lower_pattern();
    }
  }

  /// With factorization `backend` only: the backend builds the pattern, its split and
  /// layouts from the kept matrix; the host keeps A's size.
  bool analyze_on_backend(const backend::OrderedMatrix& a) override {
    if (options_.ic0.factorization != Ic0Factorization::backend) return false;
    // tril of a symmetric pattern with its diagonal
    start_analysis(std::make_unique<Ic0Pattern>(a.rows(), a.nnz()), a.rows(),
                   (a.nnz() + a.rows()) / 2);
    engine_ = backend_.make_ic0_factor_on_backend(a, spec());
    trisolve_name_ = "colorset";
    return true;
  }

  BackendFactorization* backend_factorization() override { return engine_ ? this : nullptr; }
  void factorize(const backend::SourceValues& a) override {
    factorized(pattern_->factorize(a, options_.ic0, *engine_, first_attempt_, first_ladder_));
  }
  bool queues() const override { return true; }
  void queue(const backend::SourceValues& a) override {
    pattern_->queue_factorize(a, *engine_, first_attempt_);
  }
  void finish() override {
    factorized(pattern_->finish_factorize(options_.ic0, *engine_, first_attempt_, first_ladder_));
  }

  void factorize(const CsrMatrix<double>& a) override {
    if (engine_) {
      // The pattern goes after each factorization from host values (the backend's factor
      // has its own); the solver's refactors take values in the backend's memory.
      if (!pattern_->has_pattern()) {
        pattern_ = std::make_unique<Ic0Pattern>(a);
        pattern_->keep_only_lower_pattern();
      }
      factorized(pattern_->factorize(a, options_.ic0, *engine_));
      pattern_->release_pattern();
      return;
    }
    factorized(pattern_->factorize(a, options_.ic0));
    if (lower_) {
      lower_->update_values(pattern_->lower().values);
      upper_->update_values(pattern_->upper().values);
    } else {
      // The solvers' analysis (cuSPARSE's level sets) is done once, on the first factor.
      lower_ = backend_.make_triangular_solver(pattern_->lower(), backend::Triangle::lower, spec());
      upper_ = backend_.make_triangular_solver(pattern_->upper(), backend::Triangle::upper, spec());
      trisolve_name_ = lower_->algorithm();
    }
    pattern_->release_values();  // the solvers keep their own copies
  }

  /// The phases are the two halves; the backend's factor may fold passes between them
  /// (backend::Ic0Factor::forward) and form (r, z) as |L^{-1} r|^2 on the way.
  void apply(const backend::Vector& r, backend::Vector& z, backend::PhaseTimer* timer,
             std::optional<backend::Scalar> dot) override {
    if (dot && !forms_dot()) check_no_dot(name(), dot);
    timed(timer, Phase::lower_solve, [&] {  // L y = r
      if (engine_) {
        engine_->forward(r, *work_, z, dot);
      } else {
        lower_->solve(r, *work_);
      }
    });
    timed(timer, Phase::upper_solve, [&] {  // L^T z = y
      if (engine_) {
        engine_->backward(r, *work_, z, dot);
      } else {
        upper_->solve(*work_, z);
      }
    });
  }
  bool forms_dot() const override { return engine_ && engine_->forms_dot(); }
  /// Both color-set solves read each row of the factor once for all the columns; other
  /// triangular solves (reference, cusparse) go column by column through apply().
  void apply_columns(backend::Backend& backend, const backend::Vector& r, backend::Vector& z,
                     const backend::ColumnSet& set, backend::PhaseTimer* timer) override {
    if (!applies_columns_at_once()) {
      Preconditioner::apply_columns(backend, r, z, set, timer);
      return;
    }
    halves_on_columns(r, z, set, timer, nullptr, std::nullopt);
  }
  /// The halves form (r_j, z_j) where they form the one-column dot (forms_dot()).
  void apply_columns_dot(backend::Backend& backend, const backend::Vector& r, backend::Vector& z,
                         const backend::ColumnSet& set, backend::Vector& s, backend::Scalar dot,
                         backend::PhaseTimer* timer) override {
    if (!applies_columns_at_once() || !forms_dot()) {
      Preconditioner::apply_columns_dot(backend, r, z, set, s, dot, timer);
      return;
    }
    halves_on_columns(r, z, set, timer, &s, dot);
  }
  bool applies_columns_at_once() const override {
    if (engine_) return engine_->solves_columns();
    return lower_ && lower_->solves_columns() && upper_->solves_columns();
  }
  std::size_t host_bytes() const override {
    const auto of = [](const auto& object) { return object ? object->host_bytes() : 0; };
    return of(pattern_) + of(lower_) + of(upper_) + of(engine_) + of(work_) + of(work_columns_);
  }

  /// Each half keeps half the traffic.
  PhaseArray traffic() const override {
    const double n = rows_;
    const double nnz = lower_nnz_;
    const double value_bytes = options_.ic0.precision == Precision::mixed ? 4.0 : 8.0;
    const double saved = engine_ ? engine_->apply_bytes_saved() : 0.0;
    const double apply = 2.0 * ((value_bytes + 4.0) * nnz + 28.0 * n) - saved;
    PhaseArray bytes{};
    bytes[static_cast<int>(Phase::lower_solve)] = apply / 2;
    bytes[static_cast<int>(Phase::upper_solve)] = apply / 2;
    return bytes;
  }

 private:
  /// apply_columns through both color-set solves (the engine's halves where there is one),
  /// with the engine's dot into s where `dot` is given.
  void halves_on_columns(const backend::Vector& r, backend::Vector& z,
                         const backend::ColumnSet& set, backend::PhaseTimer* timer,
                         backend::Vector* s, std::optional<backend::Scalar> dot) {
    // A work block laid out as r and z, for the largest column of the set.
    index_t width = 0;
    for (const index_t j : set.columns()) width = std::max(width, j + 1);
    const index_t size = width * set.rows();
    if (!work_columns_ || work_columns_->size() < size) work_columns_ = backend_.make_vector(size);
    timed(timer, Phase::lower_solve, [&] {  // L Y_j = R_j
      if (engine_) {
        engine_->forward_columns(r, *work_columns_, z, set, s, dot);
      } else {
        lower_->solve_columns(r, *work_columns_, set);
      }
    });
    timed(timer, Phase::upper_solve, [&] {  // L^T Z_j = Y_j
      if (engine_) {
        engine_->backward_columns(r, *work_columns_, z, set, s, dot);
      } else {
        upper_->solve_columns(*work_columns_, z, set);
      }
    });
  }
  /// What both analyses start with: the new pattern, and every object of the previous
  /// one dropped (the device's first, before the new ones are made).
  void start_analysis(std::unique_ptr<Ic0Pattern> pattern, index_t rows, index_t lower_nnz) {
    pattern_ = std::move(pattern);
    rows_ = rows;
    lower_nnz_ = lower_nnz;
    first_attempt_ = Ic0Pattern::FirstAttempt::alone;
    first_ladder_ = 0;
    first_factorization_ = true;
    lower_.reset();
    upper_.reset();
    engine_.reset();
    work_ = backend_.make_vector(rows);
    work_columns_.reset();
  }
  /// Keeps a factorization's report; the first after analyze() also decides how the
  /// later ones from the backend's memory start: with the shift retries where it needed
  /// a shift (a refactor of a stiffness matrix mostly needs one again), the first ladder
  /// up to one attempt past the set-up's successful one.
  void factorized(const FactorizationReport& report) {
    report_ = report;
    if (!first_factorization_) return;
    first_factorization_ = false;
    first_attempt_ = report.retries > 0 ? Ic0Pattern::FirstAttempt::with_retries
                                        : Ic0Pattern::FirstAttempt::alone;
    first_ladder_ = report.retries > 0 ? report.retries + 2 : 0;
  }
  backend::TrisolveSpec spec() const {
    return {options_.trisolve, options_.ic0.precision, options_.colorset_layout};
  }

  backend::Backend& backend_;
  PreconditionerOptions options_;
  std::unique_ptr<Ic0Pattern> pattern_;
  index_t rows_ = 0, lower_nnz_ = 0;  // the pattern's (traffic), kept past release_pattern
  std::unique_ptr<backend::TriangularSolver> lower_;
  std::unique_ptr<backend::TriangularSolver> upper_;
  std::unique_ptr<backend::Ic0Factor> engine_;  // factorization: backend
  std::unique_ptr<backend::Vector> work_;
  std::unique_ptr<backend::Vector> work_columns_;  // apply_columns' L^{-1} R, made on first use
  FactorizationReport report_;
  // How the factorizations from the backend's memory start (Ic0Pattern::FirstAttempt):
  // decided by the first factorization after analyze() (the set-up's) and kept until the
  // next, so that a recording of a queued factorization (queue) always replays with the
  // start it was recorded with.
  Ic0Pattern::FirstAttempt first_attempt_ = Ic0Pattern::FirstAttempt::alone;
  int first_ladder_ = 0;  ///< Ic0Pattern::factorize's first_ladder, decided alike
  bool first_factorization_ = true;
  std::string trisolve_name_;
};

}  // namespace

std::unique_ptr<Preconditioner> make_ic0(backend::Backend& backend,
                                         const PreconditionerOptions& options) {
  return std::make_unique<Ic0>(backend, options);
}

}  // namespace prism::precond
