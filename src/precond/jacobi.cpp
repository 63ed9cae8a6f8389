#include "precond/preconditioner.hpp"
#include "precond/row_error.hpp"

#include <prism/errors.hpp>

#include <cmath>

namespace prism::precond {
namespace {

[[noreturn]] void throw_not_positive(index_t row) {
  throw RowError<InvalidMatrixError>(RowText() << "jacobi: diagonal entry of row " << Row{row}
                                               << " is not positive");
}

/// M = diag(A): z = D^{-1} r. Traffic per apply: read d and r, write z.
class Jacobi final : public Preconditioner, public BackendFactorization {
 public:
  explicit Jacobi(backend::Backend& backend) : backend_(backend) {}
  std::string name() const override { return "jacobi"; }
  void analyze(const CsrMatrix<double>& a) override {
    rows_ = a.rows;
    inverse_diagonal_ = backend_.make_vector(a.rows);
    diagonal_map_.reset();
    // Where each diagonal entry is, for a numeric setup from values in the backend.
    diagonal_entry_.assign(static_cast<std::size_t>(a.rows), -1);
    missing_diagonal_ = -1;
    for (index_t i = a.rows - 1; i >= 0; --i) {
      for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        if (a.col_idx[k] == i) diagonal_entry_[i] = k;
      }
      if (diagonal_entry_[i] < 0) missing_diagonal_ = i;
    }
  }
  void factorize(const CsrMatrix<double>& a) override {
    std::vector<double> d = diagonal(a);
    for (index_t i = 0; i < a.rows; ++i) {
      if (!(d[i] > 0.0) || !std::isfinite(d[i])) {
        throw_not_positive(i);
      }
      d[i] = 1.0 / d[i];
    }
    backend_.copy_from_host(d, *inverse_diagonal_);
  }
  BackendFactorization* backend_factorization() override { return this; }
  void factorize(const backend::SourceValues& a) override {
    if (missing_diagonal_ >= 0) {
      throw_not_positive(missing_diagonal_);
    }
    if (!diagonal_map_) {
      diagonal_map_ = backend_.make_index_map(backend::compose_source(diagonal_entry_, *a.source));
    }
    backend_.gather(a.values, *diagonal_map_, *inverse_diagonal_);
    const index_t bad = backend_.invert_positive(*inverse_diagonal_);
    if (bad >= 0) {
      throw_not_positive(bad);
    }
  }
  void apply(const backend::Vector& r, backend::Vector& z, backend::PhaseTimer* timer,
             std::optional<backend::Scalar> dot) override {
    check_no_dot(name(), dot);
    timed(timer, Phase::precond, [&] { backend_.pointwise_multiply(*inverse_diagonal_, r, z); });
  }
  /// The inverse diagonal read once per row for all the columns.
  void apply_columns(backend::Backend&, const backend::Vector& r, backend::Vector& z,
                     const backend::ColumnSet& set, backend::PhaseTimer* timer) override {
    timed(timer, Phase::precond,
          [&] { backend_.column_pointwise_multiply(*inverse_diagonal_, r, z, set); });
  }
  /// (r_j, z_j) on the same pass where the backend fuses it.
  void apply_columns_dot(backend::Backend&, const backend::Vector& r, backend::Vector& z,
                         const backend::ColumnSet& set, backend::Vector& s, backend::Scalar dot,
                         backend::PhaseTimer* timer) override {
    timed(timer, Phase::precond,
          [&] { backend_.column_pointwise_multiply_dot(*inverse_diagonal_, r, z, set, s, dot); });
  }
  bool applies_columns_at_once() const override { return true; }
  PhaseArray traffic() const override {
    PhaseArray bytes{};
    bytes[static_cast<int>(Phase::precond)] = 24.0 * rows_;
    return bytes;
  }
  std::size_t host_bytes() const override {
    return diagonal_entry_.capacity() * sizeof(index_t) +
           (inverse_diagonal_ ? inverse_diagonal_->host_bytes() : 0) +
           (diagonal_map_ ? diagonal_map_->host_bytes() : 0);
  }

 private:
  backend::Backend& backend_;
  index_t rows_ = 0;
  std::unique_ptr<backend::Vector> inverse_diagonal_;
  std::vector<index_t> diagonal_entry_;  // the entry of a_ii, -1 where it is missing
  index_t missing_diagonal_ = -1;        // the first row without one
  std::unique_ptr<backend::IndexMap> diagonal_map_;
};

}  // namespace

std::unique_ptr<Preconditioner> make_jacobi(backend::Backend& backend,
                                            const PreconditionerOptions&) {
  return std::make_unique<Jacobi>(backend);
}

}  // namespace prism::precond
