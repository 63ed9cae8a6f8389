#include "backend/ordered_matrix.hpp"
#include "precond/block_ic/block_factor.hpp"
#include "precond/block_ic/block_plan.hpp"
#include "precond/block_ic/block_sweeps.hpp"
#include "precond/preconditioner.hpp"
#include "precond/row_error.hpp"

#include "common/memory.hpp"

#include <prism/errors.hpp>

#include <algorithm>
#include <numeric>

namespace prism::precond {
namespace {

/// Block IC(0) on the solver's blocks (block_factor.hpp), applied in the backend's memory,
/// so the apply only queues backend work (recordable: graphs and the device loop):
///  - solve inverted: as the four operators of block_sweeps.hpp, per half an SpMV with the
///    inverted diagonal blocks and a color-set solve with a unit diagonal;
///  - solve trsv: the factor as it is, by the engine's solves (kernels/block_ic.hpp).
/// With factorization `backend` the factor (and the operators) are computed in the
/// backend's memory by the engine and nothing goes through the host; with `host` the host
/// factors and uploads. From a matrix kept in the backend's memory (analyze_on_backend)
/// the analysis runs there too, and the host keeps the blocks and a few counts.
class BlockIc final : public Preconditioner, public BackendFactorization {
 public:
  BlockIc(backend::Backend& backend, const PreconditionerOptions& options)
      : backend_(backend), options_(options) {}
  std::string name() const override { return "block_ic"; }
  void set_blocks(const BlockPartition& blocks) override { blocks_ = blocks; }
  void analyze(const CsrMatrix<double>& a) override {
    if (blocks_.rows() != a.rows) {
      throw Error("block_ic: analyze() needs the blocks of the " + std::to_string(a.rows) +
                  " rows (set_blocks)");
    }
    factor_ = analyze_block_factor(a, blocks_);
    value_count_ = factor_.values.size();
    entries_ = factor_.col.size();
    on_backend_ = false;
    work_ = backend_.make_vector(a.rows);
    step_ = backend_.make_vector(a.rows);
    release_operators();
    if (trsv()) {
      engine_ = backend_.make_block_ic_factor(
          block_ic_solve_plan(a, factor_, options_.block_ic.precision == Precision::mixed));
      diagonal_nnz_ = 0.0;  // the diagonal blocks' triangles, of b^2 stored values
      double stored = 0.0;
      for (index_t b = 0; b < factor_.blocks.count(); ++b) {
        const double size = factor_.size(b);
        diagonal_nnz_ += 0.5 * size * (size + 1.0);
        stored += size * size;
      }
      strict_nnz_ = static_cast<double>(factor_.values.size()) - stored;
      release_host_factor();
      return;
    }
    const BlockSweeps pattern = block_sweeps_pattern(factor_);
    make_operators(pattern);
    if (options_.block_ic.factorization == Ic0Factorization::backend) {
      engine_ = backend_.make_block_ic_factor(block_ic_plan(a, factor_, pattern));
      diagonal_source_.resize(pattern.forward_diagonal.values.size());
      std::iota(diagonal_source_.begin(), diagonal_source_.end(), index_t{0});
    }
    release_host_factor();
  }
  /// With the factorization in the backend (`backend`, or `automatic` as the plan resolves
  /// it for a kept matrix) and, for the inverted solves, the color-set solve: the engine and
  /// the operators made by the backend from the kept matrix (no host copy of the pattern).
  bool analyze_on_backend(const backend::OrderedMatrix& a) override {
    if (options_.block_ic.factorization == Ic0Factorization::host) return false;
    if (!trsv() && options_.trisolve != TrisolveAlgorithm::automatic &&
        options_.trisolve != TrisolveAlgorithm::colorset) {
      return false;
    }
    if (blocks_.rows() != a.rows()) {
      throw Error("block_ic: analyze_on_backend() needs the blocks of the " +
                  std::to_string(a.rows()) + " rows (set_blocks)");
    }
    factor_ = BlockFactor{};
    factor_.blocks = blocks_;  // the breakdown message's rows, traffic()
    release_operators();
    work_ = backend_.make_vector(a.rows());
    step_ = backend_.make_vector(a.rows());
    backend::BlockIcStorage storage = backend_.make_block_ic_on_backend(
        a, blocks_, spec(), !trsv(), options_.block_ic.precision == Precision::mixed);
    if (storage.missing_diagonal >= 0) {
      throw RowError<InvalidMatrixError>(RowText()
                                         << "block_ic: row " << Row{storage.missing_diagonal}
                                         << " has no diagonal entry");
    }
    engine_ = std::move(storage.engine);
    forward_diagonal_ = std::move(storage.forward_diagonal);
    backward_diagonal_ = std::move(storage.backward_diagonal);
    forward_ = std::move(storage.forward);
    backward_ = std::move(storage.backward);
    diagonal_nnz_ = storage.diagonal_nnz;
    strict_nnz_ = storage.strict_nnz;
    value_count_ = static_cast<std::size_t>(storage.value_count);
    entries_ = static_cast<std::size_t>(storage.entries);
    on_backend_ = true;
    return true;
  }
  // The shift ladder of ic0 (Ic0Options): 0, then initial_shift doubled each retry.
  void factorize(const CsrMatrix<double>& a) override {
    if (backend_factorization() != nullptr) {
      // Host values in the solver's order; an engine from a kept matrix reads values
      // without a map through its map to the caller's, so these go through the identity.
      if (on_backend_ && identity_.size() != a.values.size()) {
        identity_.resize(a.values.size());
        std::iota(identity_.begin(), identity_.end(), index_t{0});
      }
      factorize(
          backend::SourceValues{backend_.stage(a.values), on_backend_ ? &identity_ : nullptr});
      return;
    }
    factor_.values.resize(value_count_);  // freed after the last factorization
    ladder([&](double shift) {
      const index_t failed = factor_block_ic0(a, shift, factor_);
      if (failed < 0 && trsv()) engine_->set_factor(factor_.values, factor_.scale);
      if (failed < 0 && !trsv()) load(block_sweeps(factor_));
      return kernels::BlockIcStatus{failed, false};
    });
    common::release(factor_.values);  // the backend's operators or engine hold the factor
  }
  BackendFactorization* backend_factorization() override {
    const bool there = options_.block_ic.factorization == Ic0Factorization::backend || on_backend_;
    return engine_ && there ? this : nullptr;
  }
  void factorize(const backend::SourceValues& a) override {
    engine_->load(a);
    ladder([&](double shift) {
      const kernels::BlockIcStatus status = engine_->attempt(shift);
      if (status.ok() && !trsv()) load(engine_->operators());
      return status;
    });
  }
  void apply(const backend::Vector& r, backend::Vector& z, backend::PhaseTimer* timer,
             std::optional<backend::Scalar> dot) override {
    check_no_dot(name(), dot);
    if (trsv()) {  // work_ = u, step_ = w
      timed(timer, Phase::lower_solve, [&] { engine_->forward(r, *work_); });
      timed(timer, Phase::upper_solve, [&] { engine_->backward(*work_, *step_, z); });
      return;
    }
    timed(timer, Phase::lower_solve, [&] {
      backend_.spmv(*forward_diagonal_, r, *step_);
      forward_->solve(*step_, *work_);
    });
    timed(timer, Phase::upper_solve, [&] {
      backend_.spmv(*backward_diagonal_, *work_, *step_);
      backward_->solve(*step_, z);
    });
  }
  /// inverted, per half: the block diagonal SpMV (12 B per entry, x read, y written:
  /// 16 B/row) and the color-set solve (the strict triangle at value + 4 B per entry,
  /// 4 B/row of row pointers and 28 B/row of vectors and inverse diagonal, as ic0's).
  /// trsv, per half: the factor's values once (the diagonal blocks' triangles), one
  /// 4 B index per off-diagonal block, and 32 B/row of vectors (right-hand side, scale,
  /// the solution written and read back).
  PhaseArray traffic() const override {
    const double n = factor_.blocks.rows();
    const double value_bytes = options_.block_ic.precision == Precision::mixed ? 4.0 : 8.0;
    PhaseArray bytes{};
    bytes[static_cast<int>(Phase::lower_solve)] =
        trsv() ? value_bytes * (diagonal_nnz_ + strict_nnz_) + 4.0 * entries_ + 32.0 * n
               : 12.0 * diagonal_nnz_ + 16.0 * n + (value_bytes + 4.0) * strict_nnz_ + 32.0 * n;
    bytes[static_cast<int>(Phase::upper_solve)] = bytes[static_cast<int>(Phase::lower_solve)];
    return bytes;
  }
  PreconditionerInfo info() const override {
    PreconditionerInfo out;
    out.trisolve = trsv() ? "block_trsv" : forward_ ? forward_->algorithm() : "";
    out.trisolve_layout = trsv() ? "blocks" : forward_ ? forward_->layout() : "";
    out.precision = std::string(to_string(options_.block_ic.precision));
    out.factorization = report_;
    return out;
  }

  std::size_t host_bytes() const override {
    using common::bytes_of;
    const auto of = [](const auto& object) { return object ? object->host_bytes() : 0; };
    const BlockFactor& f = factor_;
    return bytes_of(blocks_.ptr) + bytes_of(f.blocks.ptr) + bytes_of(f.row_ptr) + bytes_of(f.col) +
           bytes_of(f.offset) + bytes_of(f.diagonal) + bytes_of(f.values) + bytes_of(f.scale) +
           bytes_of(f.scatter) + of(forward_diagonal_) + of(backward_diagonal_) + of(forward_) +
           of(backward_) + of(work_) + of(step_) + of(engine_) + bytes_of(diagonal_source_) +
           bytes_of(identity_);
  }

 private:
  bool trsv() const { return options_.block_ic.solve == BlockIcSolve::trsv; }
  /// The factor's values are scratch of a host factorization (sized again by it); with the
  /// factorization in the backend nothing but the blocks and the entry count is read again
  /// (the error message, traffic()).
  void release_host_factor() {
    common::release(factor_.values);
    if (backend_factorization() == nullptr) return;
    common::release(factor_.row_ptr);
    common::release(factor_.offset);
    common::release(factor_.diagonal);
    common::release(factor_.scale);
    common::release(factor_.scatter);
  }
  /// Runs `attempt` on the shift ladder until one succeeds; the report says which shift.
  template <typename Attempt>
  void ladder(Attempt&& attempt) {
    report_ = FactorizationReport{};
    report_.performed = true;
    const Ic0Options& shifts = options_.ic0;
    double shift = 0.0;
    kernels::BlockIcStatus status;
    for (int retry = 0; retry <= shifts.max_shift_retries; ++retry) {
      status = attempt(shift);
      if (status.ok()) {
        report_.shift = shift;
        report_.retries = retry;
        return;
      }
      if (status.bad_input) break;
      shift = retry == 0 ? shifts.initial_shift : 2.0 * shift;
    }
    // The block's rows by name (the first few of a large one): the caller's rows of a
    // block need not be consecutive.
    const index_t first = factor_.blocks.ptr[status.failed_block];
    const index_t size = factor_.blocks.ptr[status.failed_block + 1] - first;
    constexpr index_t kNamed = 8;
    RowText msg;
    msg << "block_ic: factorization broke down at the block of row" << (size > 1 ? "s " : " ");
    for (index_t k = 0; k < std::min(size, kNamed); ++k)
      msg << (k > 0 ? ", " : "") << Row{first + k};
    if (size > kNamed) msg << " and " << size - kNamed << " more";
    if (status.bad_input) {
      msg << ": a diagonal entry is not positive";
    } else {
      msg << " after " << shifts.max_shift_retries << " shift retries";
    }
    throw RowError<NumericalError>(msg);
  }
  backend::TrisolveSpec spec() const {
    return {options_.trisolve, options_.block_ic.precision, options_.colorset_layout};
  }
  /// The previous analysis's objects go before the new ones are made (device memory).
  void release_operators() {
    engine_.reset();
    forward_diagonal_.reset();
    backward_diagonal_.reset();
    forward_.reset();
    backward_.reset();
    diagonal_source_.clear();
  }
  /// The operators in the backend, on their patterns (the triangular solves' analysis
  /// once per pattern).
  void make_operators(const BlockSweeps& pattern) {
    forward_diagonal_ = backend_.make_matrix(pattern.forward_diagonal, SpmvAlgorithm::automatic);
    backward_diagonal_ = backend_.make_matrix(pattern.backward_diagonal, SpmvAlgorithm::automatic);
    forward_ = backend_.make_triangular_solver(pattern.forward, backend::Triangle::lower, spec());
    backward_ = backend_.make_triangular_solver(pattern.backward, backend::Triangle::upper, spec());
    diagonal_nnz_ = static_cast<double>(pattern.forward_diagonal.nnz());
    strict_nnz_ = static_cast<double>(pattern.forward.nnz() - pattern.forward.rows);
  }
  /// New operator values from the host.
  void load(const BlockSweeps& sweeps) {
    forward_diagonal_->update_values(sweeps.forward_diagonal.values);
    forward_->update_values(sweeps.forward.values);
    backward_diagonal_->update_values(sweeps.backward_diagonal.values);
    backward_->update_values(sweeps.backward.values);
  }
  /// ... or from the backend's memory (F and B have the same pattern sizes; the
  /// operators made from a kept matrix take values in their CSR order without a map).
  void load(const backend::BlockIcOperators& op) {
    const std::vector<index_t>* in_order = on_backend_ ? nullptr : &diagonal_source_;
    forward_diagonal_->update_values(backend::SourceValues{op.forward_diagonal, in_order});
    backward_diagonal_->update_values(backend::SourceValues{op.backward_diagonal, in_order});
    forward_->update_values_on_backend(op.forward);
    backward_->update_values_on_backend(op.backward);
  }

  backend::Backend& backend_;
  PreconditionerOptions options_;
  BlockPartition blocks_;
  BlockFactor factor_;
  FactorizationReport report_;
  std::unique_ptr<backend::Matrix> forward_diagonal_;
  std::unique_ptr<backend::Matrix> backward_diagonal_;
  std::unique_ptr<backend::TriangularSolver> forward_;
  std::unique_ptr<backend::TriangularSolver> backward_;
  std::unique_ptr<backend::Vector> work_;           // y = L_s^{-1} S r (trsv: u)
  std::unique_ptr<backend::Vector> step_;           // F r, then B y (trsv: w)
  std::unique_ptr<backend::BlockIcFactor> engine_;  // factorization backend, or solve trsv
  std::vector<index_t> diagonal_source_;            // 0, 1, ...: F's and B's values in order
  double diagonal_nnz_ = 0.0;
  double strict_nnz_ = 0.0;
  std::size_t value_count_ = 0;    // factor_.values of the pattern
  std::size_t entries_ = 0;        // the off-diagonal blocks L_IJ (traffic())
  bool on_backend_ = false;        // analyze_on_backend made the engine and operators
  std::vector<index_t> identity_;  // factorize(host values) of an engine from a kept matrix
};

}  // namespace

std::unique_ptr<Preconditioner> make_block_ic(backend::Backend& backend,
                                              const PreconditionerOptions& options) {
  return std::make_unique<BlockIc>(backend, options);
}

}  // namespace prism::precond
