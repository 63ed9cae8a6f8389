#pragma once
// A preconditioner is a named component with a two-phase setup, as in DESIGN.md:
// analyze() once per sparsity pattern, factorize() once per set of values, then
// apply() every iteration on backend vectors. The matrix it sees is already in the
// solver's (possibly permuted) order.

#include <prism/csr_matrix.hpp>
#include <prism/options.hpp>
#include <prism/report.hpp>

#include "backend/backend.hpp"

#include <prism/errors.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace prism::precond {

class Preconditioner {
 public:
  virtual ~Preconditioner() = default;
  virtual std::string name() const = 0;
  /// Pattern-only work; a.values may be ignored.
  virtual void analyze(const CsrMatrix<double>& a) = 0;
  /// Numeric setup on the analyzed pattern (may be called again with new values).
  virtual void factorize(const CsrMatrix<double>& a) = 0;
  /// Whether factorize(const backend::SourceValues&) works: the numeric setup runs where the
  /// values already are, in the backend's memory.
  virtual bool factorizes_in_backend() const { return false; }
  /// factorize() with the analyzed matrix's values in the backend's memory (entry k of
  /// the analyzed matrix is a.values[(*a.source)[k]]). Only where
  /// factorizes_in_backend(); else throws Error.
  virtual void factorize(const backend::SourceValues& a) {
    (void)a;
    throw Error(name() + ": no numeric setup from values in the backend's memory");
  }
  /// Whether factorize(const backend::SourceValues&) also comes in two parts:
  /// queue_factorize() queues the work up to the first verdict without a host wait (so
  /// that the backend can record it, Backend::record, and replay it), finish_factorize()
  /// waits for that verdict and completes the setup as factorize() does.
  virtual bool queues_factorize() const { return false; }
  virtual void queue_factorize(const backend::SourceValues& a) {
    (void)a;
    throw Error(name() + ": no queued numeric setup");
  }
  virtual void finish_factorize() { throw Error(name() + ": no queued numeric setup"); }
  /// z = M^{-1} r (z and r distinct)
  virtual void apply(const backend::Vector& r, backend::Vector& z) = 0;
  /// Modeled bytes one apply() moves (for the GB/s column of the breakdown).
  virtual double bytes_per_apply() const = 0;
  /// apply() with its time recorded in the phases this preconditioner consists of and
  /// its modeled traffic added to `bytes`; by default all of it is Phase::precond.
  virtual void apply_timed(const backend::Vector& r, backend::Vector& z, backend::PhaseTimer& timer,
                           PhaseArray& bytes) {
    timer.begin(Phase::precond);
    apply(r, z);
    timer.end(Phase::precond);
    bytes[static_cast<int>(Phase::precond)] += bytes_per_apply();
  }
  /// apply_timed(), and where this preconditioner forms (r, z) on the way (returns true)
  /// the backend's scalar `dot` = (r, z), with no pass of its own; false: the caller
  /// forms the dot.
  virtual bool apply_timed_dot(const backend::Vector& r, backend::Vector& z, backend::Scalar dot,
                               backend::PhaseTimer& timer, PhaseArray& bytes) {
    static_cast<void>(dot);
    apply_timed(r, z, timer, bytes);
    return false;
  }
  /// Triangular solve algorithm in use ("" for preconditioners without one).
  virtual std::string trisolve() const { return ""; }
  /// Storage of the factor the solves read ("csr" or "sell"; "" without one).
  virtual std::string trisolve_layout() const { return ""; }
  /// Precision of the factor ("double" or "mixed"; "" for preconditioners without one).
  virtual std::string precision() const { return ""; }
  /// Breakdown handling of the last factorize() (only factorizations fill it).
  virtual FactorizationReport factorization_report() const { return {}; }
};

using Factory =
    std::function<std::unique_ptr<Preconditioner>(backend::Backend&, const PreconditionerOptions&)>;

/// The one place a preconditioner name maps to its implementation.
class Registry {
 public:
  static Registry& instance();
  void add(const std::string& name, Factory factory);
  /// Throws ConfigError listing the registered names when `name` is unknown.
  std::unique_ptr<Preconditioner> create(const std::string& name, backend::Backend& backend,
                                         const PreconditionerOptions& options) const;
  std::vector<std::string> names() const;

 private:
  Registry();
  std::vector<std::pair<std::string, Factory>> entries_;
};

// Factories of the built-in preconditioners (registered in registry.cpp).
std::unique_ptr<Preconditioner> make_identity(backend::Backend& backend,
                                              const PreconditionerOptions& options);
std::unique_ptr<Preconditioner> make_jacobi(backend::Backend& backend,
                                            const PreconditionerOptions& options);
std::unique_ptr<Preconditioner> make_ic0(backend::Backend& backend,
                                         const PreconditionerOptions& options);

}  // namespace prism::precond
