#pragma once
// Triangular factors in a backend's memory: prepared triangular solves, and the IC(0)
// factor computed and applied there (what the preconditioners build on).

#include <prism/csr_matrix.hpp>
#include <prism/errors.hpp>
#include <prism/options.hpp>

#include "backend/columns.hpp"
#include "backend/handles.hpp"
#include "kernels/block_ic.hpp"
#include "kernels/ic0.hpp"

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace prism::backend {

enum class Triangle { lower, upper };

/// How a triangular factor is stored and solved.
struct TrisolveSpec {
  TrisolveAlgorithm algorithm = TrisolveAlgorithm::automatic;
  /// mixed: the factor in float; needs the color-set solve (automatic then picks it).
  Precision precision = Precision::fp64;
  /// Storage of the color-set solve's strict triangle (cuda; the cpu has one).
  ColorsetLayout layout = ColorsetLayout::automatic;
};

/// A triangular factor prepared for repeated solves (analysis done at creation).
/// Lower factors store the diagonal last in each row, upper ones first.
class TriangularSolver {
 public:
  virtual ~TriangularSolver() = default;
  virtual index_t rows() const = 0;
  virtual index_t nnz() const = 0;
  /// The algorithm actually used ("reference", "cusparse", "colorset").
  virtual std::string algorithm() const = 0;
  /// Storage of the factor the solve reads ("csr", or "sell" for SELL-32).
  virtual std::string layout() const { return "csr"; }
  /// Replaces the values, same pattern (refactor); reuses the analysis.
  virtual void update_values(const std::vector<double>& values) = 0;
  /// The same with the values in the backend's memory, in the order of the triangle given
  /// at creation (cuda: the color-set solves only).
  virtual void update_values_on_backend(const double* values) {
    static_cast<void>(values);
    throw Error("triangular solve '" + algorithm() + "': no values from the backend's memory");
  }
  /// Solves T x = b.
  virtual void solve(const Vector& b, Vector& x) = 0;
  /// Whether solve_columns() is there: the color-set solves (cpu and cuda), which read
  /// each row of the factor once for all the columns.
  virtual bool solves_columns() const { return false; }
  /// Solves T X_j = B_j for the columns of `set` (backend/columns.hpp), each as solve()
  /// solves it. Only where solves_columns().
  virtual void solve_columns(const Vector& b, Vector& x, const ColumnSet& set) {
    static_cast<void>(b);
    static_cast<void>(x);
    static_cast<void>(set);
    throw Error("triangular solve '" + algorithm() + "': no multi-column solve");
  }
  /// Host memory this object owns (SetupReport::host_bytes); device memory is not counted.
  virtual std::size_t host_bytes() const { return 0; }
};

/// The values of block IC(0)'s four operators (precond/block_ic/block_sweeps.hpp) in the
/// backend's memory, each in the CSR order of its operator.
struct BlockIcOperators {
  const double* forward_diagonal = nullptr;
  const double* forward = nullptr;
  const double* backward_diagonal = nullptr;
  const double* backward = nullptr;
};

/// Block IC(0) factored in the backend's memory on a plan (kernels/block_ic.hpp): load()
/// once per set of values, attempt() per shift of the host's ladder, then operators().
class BlockIcFactor {
 public:
  virtual ~BlockIcFactor() = default;
  /// Scales A's values, entry k of the planned matrix being a.values[(*a.source)[k]] (or
  /// a.values[k] without a source), which must stay valid through the attempts; a
  /// diagonal that is not positive is reported by the next attempt (bad_input).
  virtual void load(const SourceValues& a) = 0;
  /// Factors the loaded matrix + shift I (on the scaled diagonal); waits for the verdict.
  virtual kernels::BlockIcStatus attempt(double shift) = 0;
  /// After a successful attempt: the operators' values (valid until the next attempt;
  /// the plan's `operators`).
  virtual BlockIcOperators operators() = 0;
  /// Takes a factor computed on the host instead (BlockFactor's values and scale, the
  /// plan's layout), for the solves below.
  virtual void set_factor(const std::vector<double>& values, const std::vector<double>& scale) = 0;
  /// The factor's solves (block_ic.solve: trsv; in float with the plan's float_solves),
  /// after a successful attempt or set_factor: u = L^{-1} S r, then w = L^{-T} u and
  /// z = S w. Queued on the backend (recordable).
  virtual void forward(const Vector& r, Vector& u) = 0;
  virtual void backward(const Vector& u, Vector& w, Vector& z) = 0;
  /// Host memory this object owns (SetupReport::host_bytes); device memory is not counted.
  virtual std::size_t host_bytes() const { return 0; }
};

/// Tridiagonal systems stored system after system in consecutive rows, grouped so that each
/// batch holds systems of one length: batch k is count[k] systems of length[k] rows from
/// row first[k] on (kernels/tridiagonal.hpp, contiguous layout), the batches in row order
/// and covering rows [0, rows).
struct TridiagonalBatches {
  std::vector<index_t> first, length, count;
  index_t rows = 0;
};

/// z = T^{-1} r for a block diagonal T of tridiagonal blocks (the batches' systems): the
/// batched tridiagonal solver, a call per batch. Queued on the backend (recordable).
class TridiagonalSolver {
 public:
  virtual ~TridiagonalSolver() = default;
  /// T's sub-diagonal (lower[i] = t(i, i - 1), 0 at a system's first row), diagonal and
  /// super-diagonal (upper[i] = t(i, i + 1), 0 at a system's last row), from the host.
  virtual void update_values(const std::vector<double>& lower, const std::vector<double>& diagonal,
                             const std::vector<double>& upper) = 0;
  virtual void solve(const Vector& r, Vector& z) = 0;
  /// Host memory this object owns (SetupReport::host_bytes); device memory is not counted.
  virtual std::size_t host_bytes() const { return 0; }
};

/// Line IC's operators M = (D + L) D^{-1} (D + L)^T (kernels/line_ic.hpp) on the host: the
/// lines and their colors, A's couplings between lines (lower: row i's to earlier colors,
/// L; upper: to later colors, L^T), and the bidiagonal Cholesky factor of D's tridiagonal
/// blocks (sub[i] its entry (i, i - 1), 0 at a line's first row; inverse_diagonal[i] = 1 /
/// its entry (i, i)).
struct LineIcFactor {
  std::vector<index_t> line_ptr{0};  ///< line l: rows [line_ptr[l], line_ptr[l + 1])
  std::vector<index_t> color_ptr;    ///< color c: lines [color_ptr[c], color_ptr[c + 1])
  CsrMatrix<double> lower, upper;
  std::vector<double> sub, inverse_diagonal;
};

/// Line IC's two halves, a step per color with the lines of a color in parallel. Queued on
/// the backend (recordable).
class LineIcSolver {
 public:
  virtual ~LineIcSolver() = default;
  /// The values on the pattern given at creation (lower and upper values, sub,
  /// inverse_diagonal), from the host.
  virtual void update_values(const LineIcFactor& factor) = 0;
  /// w = (D + L)^{-1} r (w and r distinct)
  virtual void forward(const Vector& r, Vector& w) = 0;
  /// z = (D + L^T)^{-1} D w (z and w distinct)
  virtual void backward(const Vector& w, Vector& z) = 0;
  /// Host memory this object owns (SetupReport::host_bytes); device memory is not counted.
  virtual std::size_t host_bytes() const { return 0; }
};

/// One attempt of line IC's factorization: the first row whose pivot was not positive and
/// finite, its pivot and its diagonal entry a_ii (row -1 when none).
struct LineIcStatus {
  index_t row = -1;
  double pivot = 0.0;
  double diagonal = 0.0;
  bool ok() const { return row < 0; }
};

/// Line IC set up in the backend's memory from the ordered matrix kept there
/// (Backend::make_line_ic_on_backend): the split of its entries into the operators at
/// creation, then load() once per set of values, attempt() per shift of the host's ladder,
/// and the solves of the last successful attempt. Each equals the host set-up's
/// (precond/line_ic.cpp on P A P^T) bit for bit.
class LineIcEngine {
 public:
  virtual ~LineIcEngine() = default;
  /// Rows i < j coupled by an entry although their lines are of one color (the first such
  /// entry, rows in order), as {i, j}; {-1, -1} when the colors are a line coloring. The
  /// engine cannot be loaded then.
  virtual std::pair<index_t, index_t> coupled_rows() const = 0;
  /// Entries of L (couplings to earlier colors) and of L^T (to later ones).
  virtual index_t lower_nnz() const = 0;
  virtual index_t upper_nnz() const = 0;
  /// Takes A's values in the caller's order, through the kept matrix's own map to the
  /// caller's entries (a.source must be null; Error otherwise); they must stay valid
  /// through the attempts.
  virtual void load(const SourceValues& a) = 0;
  /// BIC(0) of the loaded values with diagonal D + shift |D|; waits for the verdict.
  virtual LineIcStatus attempt(double shift) = 0;
  /// The solves (after a successful attempt): w = (D + L)^{-1} r, z = (D + L^T)^{-1} D w.
  virtual void forward(const Vector& r, Vector& w) = 0;
  virtual void backward(const Vector& w, Vector& z) = 0;
  /// Host memory this object owns (SetupReport::host_bytes); device memory is not counted.
  virtual std::size_t host_bytes() const { return 0; }
};

/// An IC(0) factor computed and applied in the backend's memory, one independent block
/// of rows (a color) at a time, every row of a block in parallel. The host keeps the
/// shift retry (precond/ic0_pattern.hpp): load() once, then attempt() for the unshifted
/// matrix and attempts() for the retries, then finish(). The solves are the color-set solves.
class Ic0Factor {
 public:
  virtual ~Ic0Factor() = default;
  /// Loads tril(S A S) scaled on the host, `scaled` on the lower pattern (diagonal
  /// last), with row_scale[i] = 1 / S_ii = sqrt(a_ii).
  virtual void load(const std::vector<double>& scaled, const std::vector<double>& row_scale) = 0;
  /// Loads the same from A's values in the backend's memory, scaled there
  /// (kernels::reference::ic0_scale); asynchronous: a diagonal entry that is not positive
  /// is reported by the next attempt(), with bad_input set.
  virtual void load(const SourceValues& a) = 0;
  /// Factors the loaded matrix + shift I. On failure: the first row whose pivot is <= 0
  /// or not finite, and the pivot.
  virtual kernels::Ic0Status attempt(double shift) = 0;
  /// attempt() in two parts: queue_attempt() queues the factorization without waiting for
  /// it (a backend that records may record it, with load(const SourceValues&) before it,
  /// and replay both), attempt_result() waits and gives its verdict. By default the attempt
  /// runs in queue_attempt().
  virtual void queue_attempt(double shift) { queued_ = attempt(shift); }
  virtual kernels::Ic0Status attempt_result() { return queued_; }
  /// Attempts with shifts[0], shifts[1], ... (count >= 1) as attempt() would one after
  /// another, stopping after the first that succeeds or reports bad input: their verdicts,
  /// in order. A backend may run several at once and may stop early (at least one verdict,
  /// none of them a success but possibly the last); the loaded matrix then stays loaded
  /// for further attempts, and after a success finish() finishes that attempt's factor.
  /// By default one attempt() after another.
  virtual std::vector<kernels::Ic0Status> attempts(const double* shifts, int count) {
    std::vector<kernels::Ic0Status> verdicts;
    for (int a = 0; a < count; ++a) {
      verdicts.push_back(attempt(shifts[a]));
      if (verdicts.back().ok() || verdicts.back().bad_input) break;
    }
    return verdicts;
  }
  /// After a successful attempt: L = S^{-1} L_s, laid out for the solves.
  virtual void finish() = 0;
  /// Solves L x = b (lower) or L^T x = b (upper).
  virtual void solve(Triangle triangle, const Vector& b, Vector& x) = 0;
  /// Whether solve_columns() is there (the cpu and cuda engines: color-set solves).
  virtual bool solves_columns() const { return false; }
  /// solve() for the columns of `set` (backend/columns.hpp), each row of the factor read
  /// once for all of them; each column as forward() then backward() computes it. Only
  /// where solves_columns().
  virtual void solve_columns(Triangle triangle, const Vector& b, Vector& x, const ColumnSet& set) {
    static_cast<void>(triangle);
    static_cast<void>(b);
    static_cast<void>(x);
    static_cast<void>(set);
    throw Error("ic0 factor: no multi-column solve");
  }
  /// z = (L L^T)^{-1} r as two halves, forward() then backward(), equal bit for bit to
  /// solve(lower, r, work) then solve(upper, work, z). A backend may move work between
  /// the halves and skip passes (cuda, SELL: the first color's forward step and the last
  /// color's backward step are folded into their neighbours); `work` then holds only
  /// part of L^{-1} r. z must not alias r or work.
  /// With `dot` (only where forms_dot()), given to both halves of one apply, the halves
  /// also leave (r, z) in that backend scalar, formed as |L^{-1} r|^2 from values they
  /// compute anyway: equal in exact arithmetic, never negative, and no pass reads r and
  /// z again. z is the same bit for bit with or without it.
  virtual void forward(const Vector& r, Vector& work, Vector& z, std::optional<Scalar> dot) {
    static_cast<void>(z);
    check_no_dot(dot);
    solve(Triangle::lower, r, work);
  }
  virtual void backward(const Vector& r, Vector& work, Vector& z, std::optional<Scalar> dot) {
    static_cast<void>(r);
    check_no_dot(dot);
    solve(Triangle::upper, work, z);
  }
  /// forward() and backward() for the columns of `set` (only where solves_columns()): each
  /// column as they compute it, the factor read once for all of them. With `dot` (only where
  /// forms_dot()), given to both halves of one apply, they also leave (r_j, z_j) in s[j][dot]
  /// (s laid out as backend/columns.hpp lays out the columns' scalars), formed as forward()
  /// forms it.
  virtual void forward_columns(const Vector& r, Vector& work, Vector& z, const ColumnSet& set,
                               Vector* s, std::optional<Scalar> dot) {
    static_cast<void>(z);
    static_cast<void>(s);
    check_no_dot(dot);
    solve_columns(Triangle::lower, r, work, set);
  }
  virtual void backward_columns(const Vector& r, Vector& work, Vector& z, const ColumnSet& set,
                                Vector* s, std::optional<Scalar> dot) {
    static_cast<void>(r);
    static_cast<void>(s);
    check_no_dot(dot);
    solve_columns(Triangle::upper, work, z, set);
  }
  /// Whether forward() and backward() take a `dot`.
  virtual bool forms_dot() const { return false; }
  /// Bytes forward() + backward() do not move against two separate solves (0 unless
  /// passes are skipped), for the preconditioner's traffic model.
  virtual double apply_bytes_saved() const { return 0.0; }
  /// Storage of the factor the solves read ("csr", or "sell" for SELL-32).
  virtual std::string layout() const { return "csr"; }
  /// Host memory this object owns (SetupReport::host_bytes); device memory is not counted.
  virtual std::size_t host_bytes() const { return 0; }

 protected:
  void check_no_dot(std::optional<Scalar> dot) const {
    if (dot && !forms_dot()) throw Error("ic0 factor: these solves do not form (r, z)");
  }

 private:
  kernels::Ic0Status queued_{};  // the default queue_attempt()'s verdict
};

}  // namespace prism::backend
