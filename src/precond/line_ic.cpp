#include "common/memory.hpp"
#include "precond/preconditioner.hpp"
#include "precond/row_error.hpp"

#include <prism/errors.hpp>

#include <algorithm>
#include <cmath>
#include <string>

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
/// The factorization runs on the host, line after line (a line reads the band of the lines
/// before it), with ic0's diagonal-shift ladder (PreconditionerOptions::ic0's initial_shift
/// and max_shift_retries; D + shift diag(D), the shift relative to each diagonal entry as
/// in ic0's unit-diagonal scaling). Couplings inside a line between rows that are not
/// neighbours in it (a line that bends back next to itself) are left out of M, so that D
/// stays tridiagonal; the generators' grid lines have none. Traffic per apply: per half,
/// A's entries off the lines (12 B each) and 36 B a row (44 B in the backward half, which
/// reads w too).
class LineIc final : public Preconditioner {
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
    if (lines_.rows() != a.rows || colors_.empty() || colors_.back() != lines_.count()) {
      throw Error("line_ic: analyze() needs the lines of the " + std::to_string(a.rows) +
                  " rows and their colors (set_blocks, set_block_colors)");
    }
    split(a);
    solver_ = backend_.make_line_ic_solver(factor_);
    work_ = backend_.make_vector(a.rows);
  }

  void factorize(const CsrMatrix<double>& a) override {
    if (a.rows != factor_.lower.rows || a.values.size() != a.col_idx.size() || a.nnz() != a_nnz_) {
      throw InvalidMatrixError("line_ic: matrix does not have the analyzed sparsity pattern");
    }
    const auto gather = [&](const std::vector<index_t>& from, std::vector<double>& to) {
      to.resize(from.size());
      for (std::size_t k = 0; k < from.size(); ++k) to[k] = a.values[from[k]];
    };
    gather(lower_source_, factor_.lower.values);
    gather(upper_source_, factor_.upper.values);
    factor_lines(a);
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
    timed(timer, Phase::lower_solve, [&] { solver_->forward(r, *work_); });
    timed(timer, Phase::upper_solve, [&] { solver_->backward(*work_, z); });
  }
  PhaseArray traffic() const override {
    const double n = factor_.lower.rows;
    PhaseArray bytes{};
    bytes[static_cast<int>(Phase::lower_solve)] = 12.0 * lower_source_.size() + 36.0 * n;
    bytes[static_cast<int>(Phase::upper_solve)] = 12.0 * upper_source_.size() + 44.0 * n;
    return bytes;
  }
  std::size_t host_bytes() const override {
    using common::bytes_of;
    const auto of = [](const auto& object) { return object ? object->host_bytes() : 0; };
    return bytes_of(lines_.ptr) + bytes_of(colors_) + bytes_of(line_of_) +
           bytes_of(factor_.line_ptr) + bytes_of(factor_.color_ptr) + bytes_of(factor_.lower) +
           bytes_of(factor_.upper) + bytes_of(lower_source_) + bytes_of(upper_source_) +
           bytes_of(diagonal_source_) + bytes_of(sub_source_) + of(solver_) + of(work_);
  }

 private:
  /// The solver's pattern from A's: each entry off the diagonal couples row i to an earlier
  /// color (L), a later one (L^T), the row before it in its line (D's sub-diagonal), the row
  /// after it (D's super-diagonal, the same values), or another row of its line (left out).
  /// Throws Error where two lines of one color are coupled (not a line coloring).
  void split(const CsrMatrix<double>& a) {
    line_of_ = lines_.block_of();
    const std::vector<index_t>& line_of = line_of_;
    std::vector<index_t> color_of(static_cast<std::size_t>(lines_.count()));
    for (std::size_t c = 0; c + 1 < colors_.size(); ++c) {
      for (index_t l = colors_[c]; l < colors_[c + 1]; ++l) color_of[l] = static_cast<index_t>(c);
    }
    const index_t n = a.rows;
    a_nnz_ = a.nnz();
    factor_ = backend::LineIcFactor{};
    factor_.line_ptr = lines_.ptr;
    factor_.color_ptr = colors_;
    for (CsrMatrix<double>* m : {&factor_.lower, &factor_.upper}) {
      m->rows = m->cols = n;
      m->row_ptr.assign(1, 0);
    }
    lower_source_.clear();
    upper_source_.clear();
    diagonal_source_.assign(static_cast<std::size_t>(n), -1);
    sub_source_.assign(static_cast<std::size_t>(n), -1);
    for (index_t i = 0; i < n; ++i) {
      for (index_t k = a.row_ptr[i]; k < a.row_ptr[i + 1]; ++k) {
        const index_t j = a.col_idx[k];
        const index_t ci = color_of[line_of[i]], cj = color_of[line_of[j]];
        if (line_of[j] == line_of[i]) {
          if (j == i) diagonal_source_[i] = k;
          if (j == i - 1) sub_source_[i] = k;
        } else if (cj < ci) {
          factor_.lower.col_idx.push_back(j);
          lower_source_.push_back(k);
        } else if (cj > ci) {
          factor_.upper.col_idx.push_back(j);
          upper_source_.push_back(k);
        } else {
          throw RowError<Error>(RowText() << "line_ic: rows " << Row{i} << " and " << Row{j}
                                          << " are coupled but lie in different lines of one "
                                             "color");
        }
      }
      factor_.lower.row_ptr.push_back(static_cast<index_t>(factor_.lower.col_idx.size()));
      factor_.upper.row_ptr.push_back(static_cast<index_t>(factor_.upper.col_idx.size()));
    }
  }

  /// BIC(0) line by line (attempt_lines), the shift from ic0's ladder: none, then
  /// initial_shift, doubled on each retry. Throws NumericalError when every shift fails, or
  /// at once for a diagonal entry that is not positive (no relative shift helps).
  void factor_lines(const CsrMatrix<double>& a) {
    const auto n = static_cast<std::size_t>(a.rows);
    const auto value = [&](index_t k) { return k >= 0 ? a.values[k] : 0.0; };
    factor_.sub.assign(n, 0.0);
    factor_.inverse_diagonal.assign(n, 0.0);
    report_ = FactorizationReport{};
    report_.performed = true;
    double shift = 0.0;
    for (int attempt = 0;; ++attempt) {
      double pivot = 0.0;
      const index_t bad = attempt_lines(value, shift, pivot);
      if (bad < 0) break;
      if (attempt == options_.ic0.max_shift_retries || !(value(diagonal_source_[bad]) > 0.0)) {
        const auto at = std::upper_bound(lines_.ptr.begin(), lines_.ptr.end(), bad) - 1;
        RowText msg;
        msg << "line_ic: the block factorization broke down at row " << Row{bad} << " of a line ("
            << *(at + 1) - *at << " rows), pivot " << pivot;
        if (attempt > 0)
          msg << ", with diagonal shift " << shift << " after " << attempt << " retries";
        throw RowError<NumericalError>(msg);
      }
      shift = std::max(2.0 * shift, options_.ic0.initial_shift);
      report_.retries = attempt + 1;
    }
    report_.shift = shift;
  }
  /// One attempt of BIC(0), colors in order: for each line, Delta = D + shift diag(D) less
  /// the tridiagonal part of L Sigma L^T over its couplings to earlier lines, Sigma the
  /// tridiagonal band of their Delta^{-1}; Delta = L_D L_D^T; then the band of Delta^{-1}
  /// for the later lines. The first row whose pivot is not positive and finite (and the
  /// pivot), or -1.
  template <typename Value>
  index_t attempt_lines(const Value& value, double shift, double& pivot) {
    const auto n = static_cast<std::size_t>(factor_.lower.rows);
    std::vector<double> diagonal(n), off(n);  // Sigma(i, i) and Sigma(i, i + 1) in a line
    const CsrMatrix<double>& l = factor_.lower;
    // (L Sigma L^T)(i, m) over the entries of rows i and m of L in one line, at most one
    // row apart: the band of Sigma.
    const auto schur = [&](index_t i, index_t m) {
      double sum = 0.0;
      for (index_t p = l.row_ptr[i]; p < l.row_ptr[i + 1]; ++p) {
        const index_t j = l.col_idx[p];
        for (index_t q = l.row_ptr[m]; q < l.row_ptr[m + 1]; ++q) {
          const index_t k = l.col_idx[q];
          if (k == j) {
            sum += l.values[p] * diagonal[j] * l.values[q];
          } else if ((k == j + 1 || k == j - 1) && line_of_[k] == line_of_[j]) {
            sum += l.values[p] * off[std::min(j, k)] * l.values[q];
          }
        }
      }
      return sum;
    };
    for (index_t line = 0; line < lines_.count(); ++line) {
      const index_t begin = lines_.ptr[line], end = lines_.ptr[line + 1];
      for (index_t i = begin; i < end; ++i) {
        const double d = value(diagonal_source_[i]);
        pivot = d + shift * std::abs(d) - schur(i, i);
        if (i > begin) {
          // l_{i,i-1} = Delta(i, i-1) / l_{i-1,i-1}
          const double sub =
              (value(sub_source_[i]) - schur(i, i - 1)) * factor_.inverse_diagonal[i - 1];
          factor_.sub[i] = sub;
          pivot -= sub * sub;
        }
        if (!(pivot > 0.0) || !std::isfinite(pivot)) return i;
        factor_.inverse_diagonal[i] = 1.0 / std::sqrt(pivot);
      }
      // The band of Delta^{-1} = L_D^{-T} L_D^{-1} from the line's end (Takahashi):
      // Sigma(i, i+1) = -(l_{i+1,i} / l_ii) Sigma(i+1, i+1),
      // Sigma(i, i) = 1 / l_ii^2 - (l_{i+1,i} / l_ii) Sigma(i, i+1).
      diagonal[end - 1] = factor_.inverse_diagonal[end - 1] * factor_.inverse_diagonal[end - 1];
      for (index_t i = end - 2; i >= begin; --i) {
        const double ratio = factor_.sub[i + 1] * factor_.inverse_diagonal[i];
        off[i] = -ratio * diagonal[i + 1];
        diagonal[i] = factor_.inverse_diagonal[i] * factor_.inverse_diagonal[i] - ratio * off[i];
      }
    }
    return -1;
  }

  backend::Backend& backend_;
  PreconditionerOptions options_;
  BlockPartition lines_;
  std::vector<index_t> colors_;   // color c: lines [colors_[c], colors_[c + 1])
  std::vector<index_t> line_of_;  // the line of each row
  backend::LineIcFactor factor_;  // the solver's pattern (values only during factorize)
  index_t a_nnz_ = 0;
  // Where the operators' values are in A: L's and L^T's entries, each row's diagonal and
  // its coupling to the row before it in its line (-1: none).
  std::vector<index_t> lower_source_, upper_source_, diagonal_source_, sub_source_;
  std::unique_ptr<backend::LineIcSolver> solver_;
  std::unique_ptr<backend::Vector> work_;
  FactorizationReport report_;
};

}  // namespace

std::unique_ptr<Preconditioner> make_line_ic(backend::Backend& backend,
                                             const PreconditionerOptions& options) {
  return std::make_unique<LineIc>(backend, options);
}

}  // namespace prism::precond
