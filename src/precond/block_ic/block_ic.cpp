#include "precond/block_ic/block_factor.hpp"
#include "precond/block_ic/block_sweeps.hpp"
#include "precond/preconditioner.hpp"

#include <prism/errors.hpp>

#include <sstream>

namespace prism::precond {
namespace {

/// Block IC(0) on the solver's blocks (block_factor.hpp), factored on the host and
/// applied in the backend's memory as the four operators of block_sweeps.hpp: per half an
/// SpMV with the inverted diagonal blocks and a color-set solve with a unit diagonal, so
/// the apply only queues backend work (recordable: graphs and the device loop).
class BlockIc final : public Preconditioner {
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
    forward_diagonal_.reset();
    backward_diagonal_.reset();
    forward_.reset();
    backward_.reset();
    work_ = backend_.make_vector(a.rows);
    step_ = backend_.make_vector(a.rows);
  }
  // The shift ladder of ic0 (Ic0Options): 0, then initial_shift doubled each retry.
  void factorize(const CsrMatrix<double>& a) override {
    report_ = FactorizationReport{};
    report_.performed = true;
    const Ic0Options& shifts = options_.ic0;
    double shift = 0.0;
    index_t failed = -1;
    for (int attempt = 0; attempt <= shifts.max_shift_retries; ++attempt) {
      failed = factor_block_ic0(a, shift, factor_);
      if (failed < 0) {
        report_.shift = shift;
        report_.retries = attempt;
        load(block_sweeps(factor_));
        return;
      }
      shift = attempt == 0 ? shifts.initial_shift : 2.0 * shift;
    }
    std::ostringstream msg;
    msg << "block_ic: factorization broke down at block " << failed + 1 << " (rows "
        << factor_.blocks.ptr[failed] + 1 << " to " << factor_.blocks.ptr[failed + 1] << ") after "
        << shifts.max_shift_retries << " shift retries";
    throw NumericalError(msg.str());
  }
  void apply(const backend::Vector& r, backend::Vector& z, backend::PhaseTimer* timer,
             std::optional<backend::Scalar> dot) override {
    check_no_dot(name(), dot);
    timed(timer, Phase::lower_solve, [&] {
      backend_.spmv(*forward_diagonal_, r, *step_);
      forward_->solve(*step_, *work_);
    });
    timed(timer, Phase::upper_solve, [&] {
      backend_.spmv(*backward_diagonal_, *work_, *step_);
      backward_->solve(*step_, z);
    });
  }
  /// Per half: the block diagonal SpMV (12 B per entry, x read, y written: 16 B/row) and
  /// the color-set solve (the strict triangle at value + 4 B per entry, 4 B/row of row
  /// pointers and 28 B/row of vectors and inverse diagonal, as ic0's).
  PhaseArray traffic() const override {
    const double n = factor_.blocks.rows();
    const double value_bytes = options_.block_ic.precision == Precision::mixed ? 4.0 : 8.0;
    PhaseArray bytes{};
    bytes[static_cast<int>(Phase::lower_solve)] =
        12.0 * diagonal_nnz_ + 16.0 * n + (value_bytes + 4.0) * strict_nnz_ + 32.0 * n;
    bytes[static_cast<int>(Phase::upper_solve)] = bytes[static_cast<int>(Phase::lower_solve)];
    return bytes;
  }
  PreconditionerInfo info() const override {
    PreconditionerInfo out;
    out.trisolve = forward_ ? forward_->algorithm() : "";
    out.trisolve_layout = forward_ ? forward_->layout() : "";
    out.precision = std::string(to_string(options_.block_ic.precision));
    out.factorization = report_;
    return out;
  }

 private:
  /// The operators into the backend: made on the first factor (the triangular solves'
  /// analysis once), new values on the same patterns after that.
  void load(const BlockSweeps& sweeps) {
    if (forward_) {
      forward_diagonal_->update_values(sweeps.forward_diagonal.values);
      forward_->update_values(sweeps.forward.values);
      backward_diagonal_->update_values(sweeps.backward_diagonal.values);
      backward_->update_values(sweeps.backward.values);
      return;
    }
    const backend::TrisolveSpec spec{options_.trisolve, options_.block_ic.precision,
                                     options_.colorset_layout};
    forward_diagonal_ = backend_.make_matrix(sweeps.forward_diagonal, SpmvAlgorithm::automatic);
    backward_diagonal_ = backend_.make_matrix(sweeps.backward_diagonal, SpmvAlgorithm::automatic);
    forward_ = backend_.make_triangular_solver(sweeps.forward, backend::Triangle::lower, spec);
    backward_ = backend_.make_triangular_solver(sweeps.backward, backend::Triangle::upper, spec);
    diagonal_nnz_ = static_cast<double>(sweeps.forward_diagonal.nnz());
    strict_nnz_ = static_cast<double>(sweeps.forward.nnz() - sweeps.forward.rows);
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
  std::unique_ptr<backend::Vector> work_;  // y = L_s^{-1} S r
  std::unique_ptr<backend::Vector> step_;  // F r, then B y
  double diagonal_nnz_ = 0.0;
  double strict_nnz_ = 0.0;
};

}  // namespace

std::unique_ptr<Preconditioner> make_block_ic(backend::Backend& backend,
                                              const PreconditionerOptions& options) {
  return std::make_unique<BlockIc>(backend, options);
}

}  // namespace prism::precond
