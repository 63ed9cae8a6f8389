#include "backend/ordered_matrix.hpp"
#include "common/memory.hpp"
#include "kernels/line_ic_setup.hpp"
#include "precond/preconditioner.hpp"
#include "precond/row_error.hpp"

#include <prism/errors.hpp>

#include <algorithm>
#include <string>
#include <utility>

namespace prism::precond {
namespace {

/// Line multicolor IC: block IC(0) on the lines, BIC(0) of Concus, Golub and Meurant (SIAM
/// J. Sci. Stat. Comput. 6, 1985) with tridiagonal diagonal blocks,
///   M = (Delta + L) Delta^{-1} (Delta + L)^T,
/// in the solver's line-multicolor order (find_lines' lines colored on their quotient
/// graph, the rows color by color, each line's rows consecutive). L is A's couplings
/// between lines, all to lines of earlier colors, so M's off-diagonal blocks are A's;
/// Delta_c = D_c - tridiag(L_c Sigma L_c^T) with D the lines' tridiagonal blocks of A and
/// Sigma the tridiagonal band of the earlier lines' Delta^{-1} (its band is exact, from the
/// bidiagonal Cholesky factor of Delta), so M's diagonal blocks match A's on the lines'
/// tridiagonal pattern. Delta stays tridiagonal, its Cholesky factor bidiagonal, and each
/// color of each half is one parallel step over its lines (kernels/line_ic.hpp). With
/// Delta = D it would be the symmetric zebra line Gauss-Seidel; with lines of one row it is
/// IC(0) in a multicolor order (Delta_i = a_ii - sum_j a_ij^2 / Delta_j is IC(0)'s pivot).
///
/// Why not IC(0) on A's pattern in the same order: its factor's coupling from a row to a
/// line of an earlier color is a_ij / l_jj, the line's factor replaced by its diagonal, so
/// L L^T does not reproduce A's couplings between lines; on anisotropic3d 48^3 with
/// coefficients (1, 1e-3, 1e-3) it took as many CG iterations as line Jacobi (11, to 1e-8)
/// against 6 for this block form.
///
/// The factorization runs line after line on the host (kernels/line_ic_setup.hpp; a line
/// reads the band of the earlier colors' lines), or, from the matrix a set-up session kept
/// in the backend's memory (analyze_on_backend), there, a color at a time with its lines in
/// parallel (backend::LineIcEngine), the same factor bit for bit; either way with ic0's
/// diagonal-shift ladder (PreconditionerOptions::ic0's initial_shift
/// and max_shift_retries; D + shift diag(D), the shift relative to each diagonal entry as
/// in ic0's unit-diagonal scaling). Couplings inside a line between rows that are not
/// neighbours in it (a line that bends back next to itself) are left out of M, so that D
/// stays tridiagonal; the generators' grid lines have none. Traffic per apply: per half,
/// A's entries off the lines (12 B each) and 36 B a row (44 B in the backward half, which
/// reads w too).
class LineIc final : public Preconditioner, public BackendFactorization {
 public:
  LineIc(backend::Backend& backend, const PreconditionerOptions& options)
      : backend_(backend), options_(options) {}
  std::string name() const override { return "line_ic"; }
  void set_blocks(const BlockPartition& lines) override { lines_ = lines; }
  void set_block_colors(const std::vector<index_t>& color_ptr) override { colors_ = color_ptr; }
  PreconditionerInfo info() const override {
    PreconditionerInfo info;
    info.factorization = report_;
    return info;
  }

  void analyze(const CsrMatrix<double>& a) override {
    check_lines(a.rows);
    engine_.reset();
    split(a);
    solver_ = backend_.make_line_ic_solver(factor_);
    work_ = backend_.make_vector(a.rows);
  }

  /// The split, the solves' storage and the factorization in the backend's memory, from
  /// the kept P A P^T; the host keeps the lines, their colors and A's size.
  bool analyze_on_backend(const backend::OrderedMatrix& a) override {
    check_lines(a.rows());
    solver_.reset();
    engine_.reset();
    factor_ = backend::LineIcFactor{};
    for (std::vector<index_t>* v :
         {&line_of_, &lower_source_, &upper_source_, &diagonal_source_, &sub_source_}) {
      common::release(*v);
    }
    engine_ = backend_.make_line_ic_on_backend(a, lines_, colors_);
    const auto [i, j] = engine_->coupled_rows();
    if (i >= 0) {
      engine_.reset();
      throw_coupled(i, j);
    }
    rows_ = a.rows();
    a_nnz_ = a.nnz();
    lower_nnz_ = engine_->lower_nnz();
    upper_nnz_ = engine_->upper_nnz();
    work_ = backend_.make_vector(a.rows());
    return true;
  }
  BackendFactorization* backend_factorization() override { return engine_ ? this : nullptr; }
  void factorize(const backend::SourceValues& a) override {
    engine_->load(a);
    run_ladder([&](double shift) { return engine_->attempt(shift); });
  }

  void factorize(const CsrMatrix<double>& a) override {
    if (engine_) {
      throw Error("line_ic: analyzed on the " + backend_.name() +
                  " backend's kept matrix; its values come through backend_factorization()");
    }
    if (a.rows != rows_ || a.values.size() != a.col_idx.size() || a.nnz() != a_nnz_) {
      throw InvalidMatrixError("line_ic: matrix does not have the analyzed sparsity pattern");
    }
    const auto gather = [&](const std::vector<index_t>& from, std::vector<double>& to) {
      to.resize(from.size());
      for (std::size_t k = 0; k < from.size(); ++k) to[k] = from[k] >= 0 ? a.values[from[k]] : 0.0;
    };
    gather(lower_source_, factor_.lower.values);
    gather(upper_source_, factor_.upper.values);
    std::vector<double> diagonal, below;
    gather(diagonal_source_, diagonal);
    gather(sub_source_, below);
    const auto n = static_cast<std::size_t>(rows_);
    factor_.sub.assign(n, 0.0);
    factor_.inverse_diagonal.assign(n, 0.0);
    const CsrMatrix<double>& l = factor_.lower;
    kernels::LineIcAttemptView view;
    view.rows = rows_;
    view.line_ptr = lines_.ptr.data();
    view.line_of = line_of_.data();
    view.lower = {l.rows, l.cols, l.row_ptr.data(), l.col_idx.data(), l.values.data()};
    view.diagonal = diagonal.data();
    view.below = below.data();
    view.sub = factor_.sub.data();
    view.inverse_diagonal = factor_.inverse_diagonal.data();
    run_ladder([&](double shift) {
      std::vector<double> band_diagonal(n), band_off(n);  // Sigma's band, this attempt's
      view.band_diagonal = band_diagonal.data();
      view.band_off = band_off.data();
      backend::LineIcStatus status;
      status.row =
          kernels::reference::line_ic_attempt_lines(view, 0, lines_.count(), shift, status.pivot);
      if (status.row >= 0) status.diagonal = diagonal[status.row];
      return status;
    });
    solver_->update_values(factor_);
    common::release(factor_.lower.values);  // the solver keeps its own copy
    common::release(factor_.upper.values);
    common::release(factor_.sub);
    common::release(factor_.inverse_diagonal);
  }

  void apply(const backend::Vector& r, backend::Vector& z, backend::PhaseTimer* timer,
             std::optional<backend::Scalar> dot) override {
    check_no_dot(name(), dot);
    // (Delta + L) w = r, then (Delta + L^T) z = Delta w
    timed(timer, Phase::lower_solve,
          [&] { engine_ ? engine_->forward(r, *work_) : solver_->forward(r, *work_); });
    timed(timer, Phase::upper_solve,
          [&] { engine_ ? engine_->backward(*work_, z) : solver_->backward(*work_, z); });
  }
  PhaseArray traffic() const override {
    const double n = rows_;
    PhaseArray bytes{};
    bytes[static_cast<int>(Phase::lower_solve)] = 12.0 * lower_nnz_ + 36.0 * n;
    bytes[static_cast<int>(Phase::upper_solve)] = 12.0 * upper_nnz_ + 44.0 * n;
    return bytes;
  }
  std::size_t host_bytes() const override {
    using common::bytes_of;
    const auto of = [](const auto& object) { return object ? object->host_bytes() : 0; };
    return bytes_of(lines_.ptr) + bytes_of(colors_) + bytes_of(line_of_) +
           bytes_of(factor_.line_ptr) + bytes_of(factor_.color_ptr) + bytes_of(factor_.lower) +
           bytes_of(factor_.upper) + bytes_of(lower_source_) + bytes_of(upper_source_) +
           bytes_of(diagonal_source_) + bytes_of(sub_source_) + of(solver_) + of(engine_) +
           of(work_);
  }

 private:
  void check_lines(index_t rows) const {
    if (lines_.rows() != rows || colors_.empty() || colors_.back() != lines_.count()) {
      throw Error("line_ic: analyze() needs the lines of the " + std::to_string(rows) +
                  " rows and their colors (set_blocks, set_block_colors)");
    }
  }
  [[noreturn]] static void throw_coupled(index_t i, index_t j) {
    throw RowError<Error>(RowText() << "line_ic: rows " << Row{i} << " and " << Row{j}
                                    << " are coupled but lie in different lines of one color");
  }

  /// The solver's pattern from A's (kernels::reference::line_ic_split): each entry off the
  /// diagonal couples row i to an earlier color (L), a later one (L^T), the row before it in
  /// its line (D's sub-diagonal), the row after it (D's super-diagonal, the same values), or
  /// another row of its line (left out). Throws Error where two lines of one color are
  /// coupled (not a line coloring).
  void split(const CsrMatrix<double>& a) {
    const kernels::CsrView<double> view{a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(),
                                        nullptr};
    kernels::LineIcSplit s = kernels::reference::line_ic_split(view, lines_.ptr, colors_);
    if (s.coupled_row >= 0) throw_coupled(s.coupled_row, s.coupled_col);
    line_of_ = kernels::reference::line_ic_line_of(lines_.ptr);
    rows_ = a.rows;
    a_nnz_ = a.nnz();
    factor_ = backend::LineIcFactor{};
    factor_.line_ptr = lines_.ptr;
    factor_.color_ptr = colors_;
    factor_.lower.rows = factor_.lower.cols = factor_.upper.rows = factor_.upper.cols = a.rows;
    factor_.lower.row_ptr = std::move(s.lower_ptr);
    factor_.lower.col_idx = std::move(s.lower_col);
    factor_.upper.row_ptr = std::move(s.upper_ptr);
    factor_.upper.col_idx = std::move(s.upper_col);
    lower_source_ = std::move(s.lower_source);
    upper_source_ = std::move(s.upper_source);
    diagonal_source_ = std::move(s.diagonal_source);
    sub_source_ = std::move(s.sub_source);
    lower_nnz_ = static_cast<index_t>(lower_source_.size());
    upper_nnz_ = static_cast<index_t>(upper_source_.size());
  }

  /// BIC(0) line by line (`attempt`: a LineIcStatus for a shift), the shift from ic0's
  /// ladder: none, then initial_shift, doubled on each retry. Throws NumericalError when
  /// every shift fails, or at once for a diagonal entry that is not positive (no relative
  /// shift helps).
  template <typename Attempt>
  void run_ladder(const Attempt& attempt) {
    report_ = FactorizationReport{};
    report_.performed = true;
    double shift = 0.0;
    for (int retry = 0;; ++retry) {
      const backend::LineIcStatus status = attempt(shift);
      if (status.ok()) break;
      if (retry == options_.ic0.max_shift_retries || !(status.diagonal > 0.0)) {
        const index_t bad = status.row;
        const auto at = std::upper_bound(lines_.ptr.begin(), lines_.ptr.end(), bad) - 1;
        RowText msg;
        msg << "line_ic: the block factorization broke down at row " << Row{bad} << " of a line ("
            << *(at + 1) - *at << " rows), pivot " << status.pivot;
        if (retry > 0) msg << ", with diagonal shift " << shift << " after " << retry << " retries";
        throw RowError<NumericalError>(msg);
      }
      shift = std::max(2.0 * shift, options_.ic0.initial_shift);
      report_.retries = retry + 1;
    }
    report_.shift = shift;
  }

  backend::Backend& backend_;
  PreconditionerOptions options_;
  BlockPartition lines_;
  std::vector<index_t> colors_;   // color c: lines [colors_[c], colors_[c + 1])
  std::vector<index_t> line_of_;  // the line of each row
  backend::LineIcFactor factor_;  // the solver's pattern (values only during factorize)
  index_t rows_ = 0, a_nnz_ = 0, lower_nnz_ = 0, upper_nnz_ = 0;
  // Where the operators' values are in A: L's and L^T's entries, each row's diagonal and
  // its coupling to the row before it in its line (-1: none).
  std::vector<index_t> lower_source_, upper_source_, diagonal_source_, sub_source_;
  std::unique_ptr<backend::LineIcSolver> solver_;
  // analyze_on_backend: the split, factor and solves in the backend's memory.
  std::unique_ptr<backend::LineIcEngine> engine_;
  std::unique_ptr<backend::Vector> work_;
  FactorizationReport report_;
};

}  // namespace

std::unique_ptr<Preconditioner> make_line_ic(backend::Backend& backend,
                                             const PreconditionerOptions& options) {
  return std::make_unique<LineIc>(backend, options);
}

}  // namespace prism::precond
