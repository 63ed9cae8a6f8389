#pragma once
// A preconditioner is a named component with a two-phase setup, as in DESIGN.md:
// analyze() once per sparsity pattern, factorize() once per set of values, then
// apply() every iteration on backend vectors. The matrix it sees is already in the
// solver's (possibly permuted) order, and its options are already resolved by the
// solver's plan (solver/plan.hpp): no `automatic` choice reaches it.

#include <prism/blocks.hpp>
#include <prism/csr_matrix.hpp>
#include <prism/errors.hpp>
#include <prism/options.hpp>
#include <prism/report.hpp>

#include "backend/backend.hpp"

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace prism::precond {

/// Numeric setup from values already in the backend's memory (Solver::refactor_on_backend),
/// for preconditioners that can do it there.
class BackendFactorization {
 public:
  virtual ~BackendFactorization() = default;
  /// factorize() with the analyzed matrix's values in the backend's memory (entry k of
  /// the analyzed matrix is a.values[(*a.source)[k]]).
  virtual void factorize(const backend::SourceValues& a) = 0;
  /// Whether factorize() also comes in two parts: queue() queues the work up to the first
  /// verdict without a host wait (so that the backend can record it, Backend::record, and
  /// replay it), finish() waits for that verdict and completes the setup as factorize() does.
  virtual bool queues() const { return false; }
  virtual void queue(const backend::SourceValues& a) {
    static_cast<void>(a);
    throw Error("no queued numeric setup");
  }
  virtual void finish() { throw Error("no queued numeric setup"); }
};

/// The name of the preconditioner a caller supplies as a callback (precond/user.cpp).
inline constexpr const char* kUserPreconditioner = "user";

/// z = M^{-1} r on n doubles in the backend's memory: a caller's preconditioner
/// (Solver::PreconditionerCallback).
using UserApply = std::function<void(const double* r, double* z, std::size_t n)>;

/// What a preconditioner reports about itself (SolveReport's fields).
struct PreconditionerInfo {
  std::string trisolve;               ///< triangular solve algorithm ("" without one)
  std::string trisolve_layout;        ///< storage of the factor the solves read ("csr" or "sell")
  std::string precision;              ///< precision of the factor ("double" or "mixed")
  FactorizationReport factorization;  ///< breakdown handling of the last factorize()
};

class Preconditioner {
 public:
  virtual ~Preconditioner() = default;
  virtual std::string name() const = 0;
  /// The blocks of the solver's order, before analyze(); called only for preconditioners
  /// registered as working on blocks (Registry::uses_blocks).
  virtual void set_blocks(const BlockPartition& blocks) { static_cast<void>(blocks); }
  /// The colors of those blocks, after set_blocks(): color c is blocks [color_ptr[c],
  /// color_ptr[c + 1]), no two blocks of one color coupled; called only for preconditioners
  /// registered with Partition::colored_lines.
  virtual void set_block_colors(const std::vector<index_t>& color_ptr) {
    static_cast<void>(color_ptr);
  }
  /// The caller's M^{-1} (type `user` only; the others have their own).
  virtual void set_callback(UserApply apply) { static_cast<void>(apply); }
  /// Pattern-only work; a.values may be ignored.
  virtual void analyze(const CsrMatrix<double>& a) = 0;
  /// analyze() on the ordered matrix a set-up session kept in the backend's memory
  /// (backend/ordered_matrix.hpp), whose values then come through backend_factorization():
  /// false where this preconditioner (or its options) needs the host's matrix.
  virtual bool analyze_on_backend(const backend::OrderedMatrix& a) {
    static_cast<void>(a);
    return false;
  }
  /// Numeric setup on the analyzed pattern (may be called again with new values).
  virtual void factorize(const CsrMatrix<double>& a) = 0;
  /// The numeric setup from values in the backend's memory, or nullptr where this
  /// preconditioner has none (the values then go through the host).
  virtual BackendFactorization* backend_factorization() { return nullptr; }

  /// z = M^{-1} r (z and r distinct). With a timer, the time is recorded in the phases
  /// this preconditioner consists of (by default all of it in Phase::precond). With `dot`
  /// (only where forms_dot()), the backend scalar `dot` is also set to (r, z), formed on
  /// the way with no pass of its own.
  virtual void apply(const backend::Vector& r, backend::Vector& z,
                     backend::PhaseTimer* timer = nullptr,
                     std::optional<backend::Scalar> dot = std::nullopt) = 0;
  /// Whether apply() takes a `dot`.
  virtual bool forms_dot() const { return false; }
  /// z_j = M^{-1} r_j for the columns of `set` (blocks as backend/columns.hpp lays them
  /// out; the multi-column solve). By default column by column through apply() on views of
  /// the columns, reading the factor once per column: block_ic, line_jacobi, user and any
  /// preconditioner without an override. none, jacobi and ic0 with color-set solves override
  /// it and read their factor once for all the columns (applies_columns_at_once()).
  virtual void apply_columns(backend::Backend& backend, const backend::Vector& r,
                             backend::Vector& z, const backend::ColumnSet& set,
                             backend::PhaseTimer* timer = nullptr) {
    backend::for_each_column(
        backend, r, z, set,
        [&](const backend::Vector& rj, backend::Vector& zj) { apply(rj, zj, timer); });
  }
  /// apply_columns(), then s[j][dot] = (r_j, z_j) for the set's columns (s laid out as
  /// backend/columns.hpp lays out the columns' scalars): formed on the way where the
  /// preconditioner forms the one-column dot (forms_dot(): ic0 with SELL color-set solves on
  /// cuda, as |L^{-1} r_j|^2), else by a dot pass (timed as Phase::dot).
  virtual void apply_columns_dot(backend::Backend& backend, const backend::Vector& r,
                                 backend::Vector& z, const backend::ColumnSet& set,
                                 backend::Vector& s, backend::Scalar dot,
                                 backend::PhaseTimer* timer = nullptr) {
    apply_columns(backend, r, z, set, timer);
    timed(timer, Phase::dot, [&] { backend.column_dot(r, z, set, s, dot); });
  }
  /// Whether apply_columns() reads the factor once for all the columns.
  virtual bool applies_columns_at_once() const { return false; }
  /// Whether apply() only queues backend work (so that it can be recorded and replayed,
  /// Backend::record); false where it goes through the host.
  virtual bool recordable() const { return true; }
  /// Modeled bytes one apply() moves, by phase (for the GB/s column of the breakdown).
  virtual PhaseArray traffic() const = 0;
  virtual PreconditionerInfo info() const { return {}; }
  /// Host memory this preconditioner and the backend objects it owns keep (its pattern,
  /// maps, factors), for SetupReport::host_bytes.
  virtual std::size_t host_bytes() const { return 0; }

 protected:
  /// The timed frame of a preconditioner that is one phase.
  template <typename Body>
  static void timed(backend::PhaseTimer* timer, Phase phase, Body&& body) {
    if (timer != nullptr) timer->begin(phase);
    body();
    if (timer != nullptr) timer->end(phase);
  }
  static void check_no_dot(const std::string& name, std::optional<backend::Scalar> dot) {
    if (dot) throw Error(name + ": apply does not form (r, z)");
  }
};

using Factory =
    std::function<std::unique_ptr<Preconditioner>(backend::Backend&, const PreconditionerOptions&)>;

/// The partition of the unknowns a preconditioner works on, which the solver finds and
/// orders before analyze() and hands to set_blocks().
enum class Partition {
  none,
  blocks,         ///< node blocks or supernodes (BlockIcOptions), ordered block color by color
  lines,          ///< lines of strong couplings (LineOptions, find_lines), each line's rows
                  ///< consecutive, the lines by decreasing length
  colored_lines,  ///< those lines colored on their quotient graph (color_blocks), the rows
                  ///< color by color, a color's lines by decreasing length
};

/// The one place a preconditioner name maps to its implementation.
class Registry {
 public:
  static Registry& instance();
  void add(const std::string& name, Factory factory, Partition partition = Partition::none);
  /// What `name` was registered to work on (none for an unknown name).
  Partition partition(const std::string& name) const;
  bool uses_blocks(const std::string& name) const { return partition(name) == Partition::blocks; }
  bool uses_lines(const std::string& name) const {
    return partition(name) == Partition::lines || partition(name) == Partition::colored_lines;
  }
  /// Throws ConfigError listing the registered names when `name` is unknown.
  void require(const std::string& name) const;
  /// require(name), then a new preconditioner of that name.
  std::unique_ptr<Preconditioner> create(const std::string& name, backend::Backend& backend,
                                         const PreconditionerOptions& options) const;
  std::vector<std::string> names() const;

 private:
  Registry();
  struct Entry {
    std::string name;
    Factory factory;
    Partition partition = Partition::none;
  };
  std::vector<Entry> entries_;
};

// Factories of the built-in preconditioners (registered in registry.cpp).
std::unique_ptr<Preconditioner> make_identity(backend::Backend& backend,
                                              const PreconditionerOptions& options);
std::unique_ptr<Preconditioner> make_jacobi(backend::Backend& backend,
                                            const PreconditionerOptions& options);
std::unique_ptr<Preconditioner> make_ic0(backend::Backend& backend,
                                         const PreconditionerOptions& options);
std::unique_ptr<Preconditioner> make_block_ic(backend::Backend& backend,
                                              const PreconditionerOptions& options);
std::unique_ptr<Preconditioner> make_user(backend::Backend& backend,
                                          const PreconditionerOptions& options);
std::unique_ptr<Preconditioner> make_line_jacobi(backend::Backend& backend,
                                                 const PreconditionerOptions& options);
std::unique_ptr<Preconditioner> make_line_ic(backend::Backend& backend,
                                             const PreconditionerOptions& options);

}  // namespace prism::precond
