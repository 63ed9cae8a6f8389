#pragma once
// The backend interface: the few operations the PCG loop and the preconditioners
// need, implemented once per backend (cpu: kernels/reference; cuda: kernels/cuda and
// cuSPARSE). Handles are opaque; a backend only accepts handles it created.
//
// The scalars of the CG recurrence (r.z, p.q, r.r) live in the backend, so a GPU
// iteration needs no host round trip: alpha and beta are formed where the vectors
// are, and the host reads the scalars only when it checks convergence.

#include <prism/csr_matrix.hpp>
#include <prism/errors.hpp>
#include <prism/options.hpp>
#include <prism/report.hpp>

#include "kernels/cg_loop.hpp"
#include "kernels/ic0.hpp"

#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace prism::backend {

/// Backend-resident scalars of the CG recurrence.
enum class Scalar : int { rz = 0, rz_new = 1, pq = 2, rr = 3, alpha = 4 };
inline constexpr int kNumScalars = 5;
using ScalarValues = std::array<double, kNumScalars>;

/// A vector living in the backend's memory.
class Vector {
 public:
  virtual ~Vector() = default;
  virtual index_t size() const = 0;
};

/// The values of the matrix given to Solver::setup(), arriving in the backend's memory
/// (refactor_on_backend), with where each entry of the solver's own (ordered) matrix
/// comes from: ordered entry k is values[source[k]]. Consumers compose their own maps
/// with `source` once and gather straight from `values`, so no reordered copy is made.
struct SourceValues {
  const double* values = nullptr;
  const std::vector<index_t>* source = nullptr;
};

/// map[k] = source[through[k]] (and -1 where through[k] is -1, padding): a map that
/// reads the entries `through` picks from the ordered matrix straight from the values.
inline std::vector<index_t> compose_source(const std::vector<index_t>& through,
                                           const std::vector<index_t>& source) {
  std::vector<index_t> map(through.size());
  for (std::size_t k = 0; k < through.size(); ++k) {
    map[k] = through[k] < 0 ? -1 : source[static_cast<std::size_t>(through[k])];
  }
  return map;
}

/// An index array in the backend's memory: a gather map built once per pattern.
class IndexMap {
 public:
  virtual ~IndexMap() = default;
  virtual index_t size() const = 0;
};

/// A CSR matrix living in the backend's memory, for SpMV.
class Matrix {
 public:
  virtual ~Matrix() = default;
  virtual index_t rows() const = 0;
  virtual index_t nnz() const = 0;
  /// The SpMV algorithm actually used ("reference", "cusparse", "csr_vector").
  virtual std::string algorithm() const = 0;
  /// Replaces the values, same pattern (refactor).
  virtual void update_values(const std::vector<double>& values) = 0;
  /// The same with the values in the backend's memory; the first call composes and
  /// keeps the map from this matrix's storage to a.values (a.source fixed per pattern).
  virtual void update_values(const SourceValues& a) = 0;
};

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
  /// Solves T x = b.
  virtual void solve(const Vector& b, Vector& x) = 0;
};

/// An IC(0) factor computed and applied in the backend's memory, one independent block
/// of rows (a color) at a time, every row of a block in parallel. The host keeps the
/// shift retry (precond/ic0_factor.hpp): load() once, then attempt() for the unshifted
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
  /// Whether forward() and backward() take a `dot`.
  virtual bool forms_dot() const { return false; }
  /// Bytes forward() + backward() do not move against two separate solves (0 unless
  /// passes are skipped), for the preconditioner's traffic model.
  virtual double apply_bytes_saved() const { return 0.0; }
  /// Storage of the factor the solves read ("csr", or "sell" for SELL-32).
  virtual std::string layout() const { return "csr"; }

 protected:
  void check_no_dot(std::optional<Scalar> dot) const {
    if (dot && !forms_dot()) throw Error("ic0 factor: these solves do not form (r, z)");
  }

 private:
  kernels::Ic0Status queued_{};  // the default queue_attempt()'s verdict
};

/// Times the phases of each iteration. A backend may record asynchronously (events)
/// and resolve the times only in per_iteration(), so timing adds no host round trip.
class PhaseTimer {
 public:
  virtual ~PhaseTimer() = default;
  /// Off: begin/end record nothing (timing: total), iterations are still counted.
  virtual void set_enabled(bool enabled) = 0;
  virtual void begin(Phase phase) = 0;
  virtual void end(Phase phase) = 0;
  /// Closes the current iteration's record.
  virtual void next_iteration() = 0;
  /// Times of every closed iteration (zeros when disabled); also resets the timer.
  virtual std::vector<PhaseArray> per_iteration() = 0;
};

/// A sequence of queued operations recorded once and replayed as one unit (cuda: a
/// CUDA graph), on the same vectors, matrices and factors it was recorded on.
class Recording {
 public:
  virtual ~Recording() = default;
  /// Queues the recorded operations again.
  virtual void replay() = 0;
};

/// Where a device-side loop stopped.
struct LoopOutcome {
  int iteration = 0;  ///< the last iteration completed
  kernels::LoopStop stop = kernels::LoopStop::running;
  /// Residual norms of the iterations the loop ran (first + 1 .. iteration).
  std::vector<double> residual_norms;
};

/// Operations recorded once as the body of a loop that the backend repeats by itself,
/// applying the stopping rule of kernels/cg_loop.hpp to its scalars after each pass
/// (cuda: a CUDA graph with a while node; no host round trip between iterations).
class Loop {
 public:
  virtual ~Loop() = default;
  /// Runs the body as iterations first + 1, first + 2, ... until the rule stops it
  /// (at the latest after max_iterations); returns once it has stopped.
  virtual LoopOutcome run(int first) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  /// "cpu" or "cuda".
  virtual std::string name() const = 0;
  /// The device, in words ("NVIDIA H200", "host CPU").
  virtual std::string device_name() const = 0;

  virtual std::unique_ptr<Vector> make_vector(index_t n) = 0;
  /// An algorithm the backend does not have throws ConfigError.
  virtual std::unique_ptr<Matrix> make_matrix(const CsrMatrix<double>& a,
                                              SpmvAlgorithm algorithm) = 0;
  /// The algorithm `automatic` picks the backend's best; an algorithm the backend
  /// does not have, or mixed precision with another algorithm than the color-set
  /// solve, throws ConfigError.
  virtual std::unique_ptr<TriangularSolver> make_triangular_solver(const CsrMatrix<double>& t,
                                                                   Triangle triangle,
                                                                   const TrisolveSpec& spec) = 0;
  /// An IC(0) factor on the pattern `lower` (diagonal last); `upper` is the pattern of
  /// L^T (diagonal first) and upper_source maps its entries to entries of `lower`;
  /// lower_source maps the entries of `lower` to those of A. The factorization runs in
  /// double; `spec` (precision, layout) is that of the color-set solves.
  virtual std::unique_ptr<Ic0Factor> make_ic0_factor(const CsrMatrix<double>& lower,
                                                     const CsrMatrix<double>& upper,
                                                     const std::vector<index_t>& upper_source,
                                                     const std::vector<index_t>& lower_source,
                                                     const TrisolveSpec& spec) = 0;
  virtual void copy_from_host(const std::vector<double>& src, Vector& dst) = 0;
  virtual void copy_to_host(const Vector& src, std::vector<double>& dst) = 0;

  // Values that arrive in the backend's memory (refactor_on_backend): `values` points
  // to memory the backend's kernels read (cuda: device or managed memory; cpu: host).
  /// Whether `values` is such memory (cuda: asks the driver; cpu: always).
  virtual bool reads(const double* values) const = 0;
  /// Host values put where the backend reads them (refactor() on the refactor_on_backend
  /// path): cuda copies them into a buffer of its own, reused by the next call (so its
  /// address stays the same for a pattern); cpu returns values.data(). Valid until the
  /// next call.
  virtual const double* stage(const std::vector<double>& values) = 0;
  virtual std::unique_ptr<IndexMap> make_index_map(const std::vector<index_t>& indices) = 0;
  /// dst[k] = src[map[k]] for every k < map.size() (= dst.size()).
  virtual void gather(const double* src, const IndexMap& map, Vector& dst) = 0;
  /// Queues kernels::reference::first_bad_value over mirror.size() values; other work may
  /// be queued before its verdict is read with value_check_result().
  virtual void queue_value_check(const double* values, const IndexMap& mirror) = 0;
  /// The verdict of the last queued check (-1 when nothing is wrong); waits for it.
  virtual index_t value_check_result() = 0;
  /// The check, waited for.
  index_t first_bad_value(const double* values, const IndexMap& mirror) {
    queue_value_check(values, mirror);
    return value_check_result();
  }
  /// x = 1 / x; the first i with x_i not positive or not finite, -1 when none; waits.
  virtual index_t invert_positive(Vector& x) = 0;
  /// Copies `count` values from the backend's memory to the host; waits.
  virtual void copy_to_host(const double* src, std::size_t count, std::vector<double>& dst) = 0;
  /// Waits until every operation queued so far is done.
  virtual void synchronize() = 0;

  /// y = A x
  virtual void spmv(const Matrix& a, const Vector& x, Vector& y) = 0;
  /// y = A x and s[out] = x . y: one pass where fuses_spmv_dot(a), else spmv then dot.
  virtual void spmv_dot(const Matrix& a, const Vector& x, Vector& y, Scalar out) = 0;
  /// Whether spmv_dot() on `a` reads x and y once (no separate dot pass).
  virtual bool fuses_spmv_dot(const Matrix& a) const = 0;
  /// s[out] = x . y
  virtual void dot(const Vector& x, const Vector& y, Scalar out) = 0;
  /// y += a x
  virtual void axpy(double a, const Vector& x, Vector& y) = 0;
  /// y = x
  virtual void copy(const Vector& x, Vector& y) = 0;
  /// y = d .* x
  virtual void pointwise_multiply(const Vector& d, const Vector& x, Vector& y) = 0;
  /// alpha = s[rz] / s[pq] (0 unless both are positive and finite);
  /// x += alpha p; r -= alpha q; s[rr] = r . r
  virtual void cg_update(const Vector& p, const Vector& q, Vector& x, Vector& r) = 0;
  /// beta = s[rz_new] / s[rz] (0 unless s[rz] is positive and finite);
  /// p = z + beta p; s[rz] = s[rz_new]
  virtual void cg_direction(const Vector& z, Vector& p) = 0;
  // The fused iteration (used when nothing is timed per phase): fewer passes and
  // launches, the same arithmetic. x lags one step: cg_direction_dot adds the previous
  // step's alpha p, cg_finish the last one's. rz enters in s[rz_new].
  /// q = A p; pq = (p, q); rz = s[rz_new]; alpha = rz / pq (0 unless both are positive
  /// and finite); r -= alpha q; s[rr] = (r, r); and s[pq], s[alpha], s[rz] = rz.
  virtual void cg_step(const Matrix& a, const Vector& p, Vector& q, Vector& r) = 0;
  /// rz_new = (r, z); beta = rz_new / s[rz] (0 unless s[rz] is positive and finite);
  /// x += s[alpha] p; p = z + beta p; s[rz_new] = rz_new.
  virtual void cg_direction_dot(const Vector& r, const Vector& z, Vector& p, Vector& x) = 0;
  /// cg_direction_dot with rz_new already in s[rz_new], formed by the preconditioner
  /// (Ic0Factor::forms_dot): x += s[alpha] p; p = z + beta p.
  virtual void cg_direction_x(const Vector& z, Vector& p, Vector& x) = 0;
  /// x += s[alpha] p
  virtual void cg_finish(const Vector& p, Vector& x) = 0;

  /// The scalars, once all work queued so far is done.
  virtual ScalarValues read_scalars() = 0;

  virtual PhaseTimer& timer() = 0;

  /// Whether record() works here (cuda: yes; cpu: no).
  virtual bool can_record() const = 0;
  /// Records the operations `body` queues without running them, for replay(); throws
  /// BackendError when the backend cannot record. The body must only queue work: no
  /// read_scalars(), copy_to_host() or other host round trip, and no timer phases.
  virtual std::unique_ptr<Recording> record(const std::function<void()>& body) = 0;
  /// Whether record_loop() works here (cuda: with a driver that runs graph while nodes,
  /// CUDA 12.4+; cpu: yes, the loop runs on the host with the same rule).
  virtual bool can_loop() const = 0;
  /// Records `body` (the same rules as record()) as the body of a Loop that stops by
  /// kernels::cg_stop(s[rz], s[pq], sqrt(s[rr]), target, k, max_iterations).
  virtual std::unique_ptr<Loop> record_loop(const std::function<void()>& body, double target,
                                            int max_iterations) = 0;

  /// Achievable memory bandwidth in bytes/s (a large device-to-device copy, measured
  /// once on first call); 0 when the backend does not measure it.
  virtual double reference_bandwidth() = 0;
};

/// Creates the backend for a kind; `automatic` resolves to cuda when a device is
/// usable, else cpu. Throws BackendError for `cuda` when no CUDA device is usable.
std::unique_ptr<Backend> make_backend(BackendKind kind);

}  // namespace prism::backend
