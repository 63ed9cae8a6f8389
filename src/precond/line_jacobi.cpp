#include "precond/preconditioner.hpp"
#include "precond/row_error.hpp"

#include <prism/errors.hpp>

#include <cmath>
#include <string>

namespace prism::precond {
namespace {

/// Line Jacobi: M = the tridiagonal blocks of A on its lines (find_lines; the solver orders
/// each line's rows consecutively, the lines by decreasing length), z = M^{-1} r by the
/// backend's batched tridiagonal solver, one call per line length. Each block is a
/// principal submatrix of A, so SPD where A is; factorize() checks its pivots once on the
/// host, so the solves never meet a zero one. Traffic per apply: the three diagonals and r
/// read, z written (the fewest bytes a tridiagonal solve can move).
class LineJacobi final : public Preconditioner {
 public:
  explicit LineJacobi(backend::Backend& backend) : backend_(backend) {}
  std::string name() const override { return "line_jacobi"; }
  void set_blocks(const BlockPartition& lines) override { lines_ = lines; }
  void analyze(const CsrMatrix<double>& a) override {
    if (lines_.rows() != a.rows) {
      throw Error("line_jacobi: analyze() needs the lines of the " + std::to_string(a.rows) +
                  " rows (set_blocks)");
    }
    solver_ = backend_.make_tridiagonal_solver(batches());
  }
  void factorize(const CsrMatrix<double>& a) override {
    const index_t n = a.rows;
    std::vector<double> lower(static_cast<std::size_t>(n), 0.0), diagonal(lower), upper(lower);
    std::vector<char> first(static_cast<std::size_t>(n), 0);  // the first row of a line
    for (index_t l = 0; l < lines_.count(); ++l) first[lines_.ptr[l]] = 1;
    for (index_t i = 0; i < n; ++i) {
      for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        const index_t j = a.col_idx[k];
        if (j == i) diagonal[i] = a.values[k];
        if (j == i - 1 && !first[i]) lower[i] = a.values[k];
        if (j == i + 1 && i + 1 < n && !first[i + 1]) upper[i] = a.values[k];
      }
    }
    check_pivots(lower, diagonal, upper);
    solver_->update_values(lower, diagonal, upper);
  }
  void apply(const backend::Vector& r, backend::Vector& z, backend::PhaseTimer* timer,
             std::optional<backend::Scalar> dot) override {
    check_no_dot(name(), dot);
    timed(timer, Phase::precond, [&] { solver_->solve(r, z); });
  }
  PhaseArray traffic() const override {
    PhaseArray bytes{};
    bytes[static_cast<int>(Phase::precond)] = 40.0 * lines_.rows();
    return bytes;
  }
  std::size_t host_bytes() const override {
    return lines_.ptr.capacity() * sizeof(index_t) + (solver_ ? solver_->host_bytes() : 0);
  }

 private:
  /// The lines grouped by length: the solver orders them by decreasing length, so each
  /// length is one run of consecutive lines.
  backend::TridiagonalBatches batches() const {
    backend::TridiagonalBatches out;
    out.rows = lines_.rows();
    for (index_t l = 0; l < lines_.count(); ++l) {
      const index_t length = lines_.ptr[l + 1] - lines_.ptr[l];
      if (!out.length.empty() && out.length.back() == length) {
        ++out.count.back();
        continue;
      }
      out.first.push_back(lines_.ptr[l]);
      out.length.push_back(length);
      out.count.push_back(1);
    }
    return out;
  }
  /// The Thomas pivots of every line, positive and finite (as for an SPD block).
  void check_pivots(const std::vector<double>& lower, const std::vector<double>& diagonal,
                    const std::vector<double>& upper) const {
    for (index_t l = 0; l < lines_.count(); ++l) {
      double c = 0.0;  // the previous row's c' = upper / pivot
      for (index_t i = lines_.ptr[l]; i < lines_.ptr[l + 1]; ++i) {
        const double pivot = diagonal[i] - lower[i] * c;
        if (!(pivot > 0.0) || !std::isfinite(pivot)) {
          throw RowError<NumericalError>(RowText()
                                         << "line_jacobi: the tridiagonal block of a line ("
                                         << lines_.ptr[l + 1] - lines_.ptr[l]
                                         << " rows) is not positive definite (pivot " << pivot
                                         << " at row " << Row{i} << ")");
        }
        c = upper[i] / pivot;
      }
    }
  }

  backend::Backend& backend_;
  BlockPartition lines_;
  std::unique_ptr<backend::TridiagonalSolver> solver_;
};

}  // namespace

std::unique_ptr<Preconditioner> make_line_jacobi(backend::Backend& backend,
                                                 const PreconditionerOptions&) {
  return std::make_unique<LineJacobi>(backend);
}

}  // namespace prism::precond
