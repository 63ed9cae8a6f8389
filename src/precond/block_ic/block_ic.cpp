#include "precond/block_ic/block_factor.hpp"
#include "precond/preconditioner.hpp"

#include <prism/errors.hpp>

#include <sstream>

namespace prism::precond {
namespace {

/// Block IC(0) on the solver's blocks (block_factor.hpp), factored and applied on the
/// host: the reference path. On the cuda backend each apply copies r to the host and z
/// back, which info() says (trisolve "host").
class BlockIc final : public Preconditioner {
 public:
  BlockIc(backend::Backend& backend, const PreconditionerOptions& options)
      : backend_(backend), shifts_(options.ic0) {}
  std::string name() const override { return "block_ic"; }
  void set_blocks(const BlockPartition& blocks) override { blocks_ = blocks; }
  bool recordable() const override { return false; }
  void analyze(const CsrMatrix<double>& a) override {
    if (blocks_.rows() != a.rows) {
      throw Error("block_ic: analyze() needs the blocks of the " + std::to_string(a.rows) +
                  " rows (set_blocks)");
    }
    factor_ = analyze_block_factor(a, blocks_);
  }
  // The shift ladder of ic0 (Ic0Options): 0, then initial_shift doubled each retry.
  void factorize(const CsrMatrix<double>& a) override {
    report_ = FactorizationReport{};
    report_.performed = true;
    double shift = 0.0;
    index_t failed = -1;
    for (int attempt = 0; attempt <= shifts_.max_shift_retries; ++attempt) {
      failed = factor_block_ic0(a, shift, factor_);
      if (failed < 0) {
        report_.shift = shift;
        report_.retries = attempt;
        return;
      }
      shift = attempt == 0 ? shifts_.initial_shift : 2.0 * shift;
    }
    std::ostringstream msg;
    msg << "block_ic: factorization broke down at block " << failed + 1 << " (rows "
        << factor_.blocks.ptr[failed] + 1 << " to " << factor_.blocks.ptr[failed + 1] << ") after "
        << shifts_.max_shift_retries << " shift retries";
    throw NumericalError(msg.str());
  }
  void apply(const backend::Vector& r, backend::Vector& z, backend::PhaseTimer* timer,
             std::optional<backend::Scalar> dot) override {
    check_no_dot(name(), dot);
    timed(timer, Phase::precond, [&] {
      backend_.copy_to_host(r, host_);
      solve_block_ic0(factor_, host_.data(), host_.data());
      backend_.copy_from_host(host_, z);
    });
  }
  /// Each factor value read twice (forward and backward), r read, z written, the work
  /// vector swept four times.
  PhaseArray traffic() const override {
    PhaseArray bytes{};
    const double n = factor_.blocks.rows();
    bytes[static_cast<int>(Phase::precond)] =
        16.0 * static_cast<double>(factor_.values.size()) + 48.0 * n;
    return bytes;
  }
  PreconditionerInfo info() const override {
    PreconditionerInfo out;
    out.trisolve = "host";
    out.precision = "double";
    out.factorization = report_;
    return out;
  }

 private:
  backend::Backend& backend_;
  Ic0Options shifts_;
  BlockPartition blocks_;
  BlockFactor factor_;
  FactorizationReport report_;
  std::vector<double> host_;
};

}  // namespace

std::unique_ptr<Preconditioner> make_block_ic(backend::Backend& backend,
                                              const PreconditionerOptions& options) {
  return std::make_unique<BlockIc>(backend, options);
}

}  // namespace prism::precond
