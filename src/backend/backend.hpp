#pragma once
// The backend interface: the operations the PCG loop and the preconditioners need,
// implemented once per backend (cpu: kernels/reference; cuda: kernels/cuda and
// cuSPARSE), grouped by who needs them. Handles are opaque; a backend only accepts
// handles it created.
//
// The scalars of the CG recurrence (r.z, p.q, r.r) live in the backend, so a GPU
// iteration needs no host round trip: alpha and beta are formed where the vectors
// are, and the host reads the scalars only when it checks convergence.

#include <prism/blocks.hpp>
#include <prism/csr_matrix.hpp>
#include <prism/errors.hpp>
#include <prism/options.hpp>
#include <prism/report.hpp>

#include "backend/columns.hpp"
#include "backend/execution.hpp"
#include "backend/factors.hpp"
#include "backend/handles.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace prism {
template <typename Index>
struct CsrView;  // <prism/csr_view.hpp>, which would bring its view_of() into every user
using CsrView32 = CsrView<std::int32_t>;
}  // namespace prism

namespace prism::backend {

class SetupSession;   // backend/setup.hpp
class OrderedMatrix;  // backend/ordered_matrix.hpp

/// Block IC(0)'s storage built from a kept matrix (Backend::make_block_ic_on_backend).
struct BlockIcStorage {
  std::unique_ptr<BlockIcFactor> engine;
  /// The operators of block_ic.solve inverted (none for trsv): F and B, I + W and I + V.
  std::unique_ptr<Matrix> forward_diagonal, backward_diagonal;
  std::unique_ptr<TriangularSolver> forward, backward;
  std::int64_t value_count = 0;  ///< the factor's values
  index_t entries = 0;           ///< its off-diagonal blocks L_IJ
  /// Entries of F (inverted), or of the diagonal blocks' triangles (trsv); of W (inverted),
  /// or of the off-diagonal blocks (trsv): what BlockIc's traffic() counts.
  double diagonal_nnz = 0.0, strict_nnz = 0.0;
  double block_weight = 1.0;  ///< diagonal_block_weight(a, blocks)
  /// The first row of a that stores no diagonal entry (-1: none); then nothing else is made
  /// (the caller names the row, as block_ic's host plan does).
  index_t missing_diagonal = -1;
};

/// The arithmetic of one CG iteration (solver/pcg.cpp), with the scalars in the backend.
class CgOperations {
 public:
  virtual ~CgOperations() = default;
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
  /// (Preconditioner::forms_dot): x += s[alpha] p; p = z + beta p.
  virtual void cg_direction_x(const Vector& z, Vector& p, Vector& x) = 0;
  /// x += s[alpha] p
  virtual void cg_finish(const Vector& p, Vector& x) = 0;
  /// The scalars, once all work queued so far is done.
  virtual ScalarValues read_scalars() = 0;
};

/// Queued work recorded once and run again without the host: graphs and loops.
class Recorder {
 public:
  virtual ~Recorder() = default;
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
  /// kernels::cg_stop(s[rz], s[pq], sqrt(s[rr]), target, k, max_iterations). `watched`: the
  /// loop's run() takes a LoopProgress (cuda: each check also publishes its residual to
  /// host memory and reads the host's stop request, a little more work per iteration).
  virtual std::unique_ptr<Loop> record_loop(const std::function<void()>& body, double target,
                                            int max_iterations, bool watched = false) = 0;
};

/// What preconditioners build on besides vectors: factors and elementwise operations.
class FactorOperations {
 public:
  virtual ~FactorOperations() = default;
  /// The triangular solve `trisolve: auto` takes for a factor of `independent_blocks`
  /// row blocks (one per color in a multicolor order) stored in `precision`.
  virtual TrisolveAlgorithm pick_trisolve(int independent_blocks, Precision precision) const = 0;
  /// `automatic` takes pick_trisolve's; an algorithm the backend does not have, or mixed
  /// precision with another algorithm than the color-set solve, throws ConfigError.
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
  /// Block IC(0) factored in the backend's memory on `plan` (cpu: the reference kernels).
  virtual std::unique_ptr<BlockIcFactor> make_block_ic_factor(const kernels::BlockIcPlan& plan) = 0;
  /// Batched tridiagonal solves on `batches` (line preconditioners).
  virtual std::unique_ptr<TridiagonalSolver> make_tridiagonal_solver(
      const TridiagonalBatches& batches) = 0;
  /// Line IC's solves on the pattern of `factor` (its values are not read; update_values).
  virtual std::unique_ptr<LineIcSolver> make_line_ic_solver(const LineIcFactor& factor) = 0;
  /// y = d .* x
  virtual void pointwise_multiply(const Vector& d, const Vector& x, Vector& y) = 0;
  /// x = 1 / x; the first i with x_i not positive or not finite, -1 when none; waits.
  virtual index_t invert_positive(Vector& x) = 0;
};

/// Values that arrive in the backend's memory (Solver::refactor_on_backend): `values`
/// points to memory the backend's kernels read (cuda: device or managed memory; cpu: host).
class ValueOperations {
 public:
  virtual ~ValueOperations() = default;
  /// Whether `values` is such memory (cuda: asks the driver; cpu: always).
  virtual bool reads(const void* values) const = 0;
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
  virtual void queue_value_check(const double* values, const IndexMap& mirror,
                                 double tolerance) = 0;
  /// The verdict of the last queued check (-1 when nothing is wrong); waits for it.
  virtual index_t value_check_result() = 0;
  /// The check, waited for.
  index_t first_bad_value(const double* values, const IndexMap& mirror, double tolerance) {
    queue_value_check(values, mirror, tolerance);
    return value_check_result();
  }
  /// The largest |v| over the finite values of values[0, count) (0 when none); waits.
  virtual double largest_finite_magnitude(const double* values, std::size_t count) = 0;
  /// Copies `count` values from the backend's memory to the host; waits.
  virtual void copy_to_host(const double* src, std::size_t count, std::vector<double>& dst) = 0;
  /// Waits until every operation queued so far is done.
  virtual void synchronize() = 0;
};

/// A backend: its memory (vectors, matrices), timing, and the groups above (and the
/// multi-column operations of backend/columns.hpp).
class Backend : public CgOperations,
                public ColumnOperations,
                public Recorder,
                public FactorOperations,
                public ValueOperations {
 public:
  /// Where the backend computes: the host's cores or an accelerator.
  enum class Kind { host, device };

  /// "cpu" or "cuda".
  virtual std::string name() const = 0;
  virtual Kind kind() const = 0;
  /// The device, in words (the GPU's name, "host CPU ...").
  virtual std::string device_name() const = 0;
  /// Whether the backend's factorizations run a color's (level's) rows at once, so that
  /// `factorization: auto` puts them there: a GPU, the cpu backend's threaded kernels.
  virtual bool factors_in_parallel() const { return kind() == Kind::device; }

  virtual std::unique_ptr<Vector> make_vector(index_t n) = 0;
  /// A vector over n doubles at `data`, memory the backend reads (reads()) and the caller
  /// owns and keeps alive for the view's life; nothing is copied.
  virtual std::unique_ptr<Vector> view(double* data, index_t n) = 0;
  /// view() of memory the backend only reads through it (b of a solve).
  std::unique_ptr<const Vector> view_input(const double* data, index_t n) {
    return view(const_cast<double*>(data), n);  // the view is only handed out as const
  }
  /// The algorithm `spmv: auto` takes for `a` (returned unchanged when not automatic).
  virtual SpmvAlgorithm pick_spmv(const CsrMatrix<double>& a, SpmvAlgorithm requested) const = 0;
  /// An algorithm the backend does not have throws ConfigError; `automatic` takes
  /// pick_spmv's.
  virtual std::unique_ptr<Matrix> make_matrix(const CsrMatrix<double>& a,
                                              SpmvAlgorithm algorithm) = 0;
  virtual void copy_from_host(const std::vector<double>& src, Vector& dst) = 0;
  virtual void copy_to_host(const Vector& src, std::vector<double>& dst) = 0;
  using ValueOperations::copy_to_host;

  virtual PhaseTimer& timer() = 0;

  /// Achievable memory bandwidth in bytes/s (a large device-to-device copy, measured
  /// once on first call); 0 when the backend does not measure it.
  virtual double reference_bandwidth() = 0;

  /// Device memory held now by prism's allocations in this process (every solver's; the
  /// cuda backend counts its cudaMalloc calls); 0 on the cpu.
  virtual std::size_t device_bytes() const { return 0; }

  /// Makes the backend's device the calling thread's current one and returns the device
  /// that was current (cuda); -1 and nothing done on the cpu. DeviceScope gives it back.
  virtual int make_device_current() { return -1; }

  /// The set-up steps this backend runs in its own memory on `a` (backend/setup.hpp), which
  /// must outlive the session; nullptr where the host runs them all (cpu). With `resident`
  /// (the same matrix in memory this backend reads, as Solver::setup_on_backend takes it;
  /// it must outlive the session too) the session copies its arrays from there instead of
  /// uploading a's.
  virtual std::unique_ptr<SetupSession> begin_setup(const CsrMatrix<double>& a,
                                                    const CsrView32* resident = nullptr);
  /// Copies `bytes` bytes from memory this backend reads (reads()) to host memory; waits.
  virtual void download(const void* from, void* to, std::size_t bytes);

  // The set-up from a matrix its session kept in the backend's memory
  // (SetupSession::permute_kept): only a backend whose session keeps one has them; the
  // others throw Error. Each equals its host twin on the same matrix.
  /// pick_spmv(a, requested) for a kept matrix.
  virtual SpmvAlgorithm pick_spmv_on_backend(const OrderedMatrix& a, SpmvAlgorithm requested) const;
  /// make_matrix(a, algorithm) for a kept matrix: takes its storage (`a` is spent after).
  virtual std::unique_ptr<Matrix> make_matrix_on_backend(OrderedMatrix& a, SpmvAlgorithm algorithm);
  /// make_ic0_factor() on the IC(0) pattern of a kept matrix (tril(A), diagonal last), its
  /// entries mapped to the caller's through the matrix's source map, so load(SourceValues)
  /// with that map reads the caller's values: the same factor and solves as the host
  /// pattern's (precond::Ic0Pattern) give.
  virtual std::unique_ptr<Ic0Factor> make_ic0_factor_on_backend(const OrderedMatrix& a,
                                                                const TrisolveSpec& spec);
  /// analysis::level_ptr(a, independent) for a kept matrix.
  virtual std::vector<index_t> level_ptr_on_backend(const OrderedMatrix& a,
                                                    const std::vector<index_t>& independent);
  /// diagonal_block_weight(a, blocks) for a kept matrix.
  virtual double block_weight_on_backend(const OrderedMatrix& a, const BlockPartition& blocks);
  /// Line IC (precond/line_ic.cpp) set up from a kept matrix in its line-multicolor order:
  /// `lines` its lines, color c the lines [color_ptr[c], color_ptr[c + 1]).
  virtual std::unique_ptr<LineIcEngine> make_line_ic_on_backend(
      const OrderedMatrix& a, const BlockPartition& lines, const std::vector<index_t>& color_ptr);
  /// Block IC(0)'s storage for a kept matrix over `blocks` (consecutive rows of it), its
  /// analysis run in the backend's memory: the engine of make_block_ic_factor() on
  /// block_ic_plan(a, analyze_block_factor(a, blocks), block_sweeps_pattern(f)) with
  /// `operators` (block_ic.solve: inverted) and the four operators made on those patterns
  /// (`spec` for the solves), or on block_ic_solve_plan(a, f, float_solves) without them
  /// (trsv); load(SourceValues{values, nullptr}) then reads the caller's values through
  /// the kept matrix's map. Blocks that do not fit a throw quotient_matrix's
  /// InvalidMatrixError; a row without its diagonal comes back in missing_diagonal.
  virtual BlockIcStorage make_block_ic_on_backend(const OrderedMatrix& a,
                                                  const BlockPartition& blocks,
                                                  const TrisolveSpec& spec, bool operators,
                                                  bool float_solves);
};

/// Makes `device` the calling thread's current CUDA device (a no-op for -1 or without
/// CUDA); never throws.
void restore_current_device(int device) noexcept;

/// While alive, the backend's device is current on the calling thread; the caller's
/// device is given back on destruction (even where the backend is gone by then). Every
/// Solver call that reaches the backend opens one, so a caller working on another device
/// is left as it was.
class DeviceScope {
 public:
  explicit DeviceScope(Backend& backend) : previous_(backend.make_device_current()) {}
  ~DeviceScope() { restore_current_device(previous_); }
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_;
};

/// Where a cuda backend works (SolverConfig::device and ::stream).
struct DevicePlacement {
  int device = -1;         ///< -1: the current device
  void* stream = nullptr;  ///< the caller's cudaStream_t; nullptr: one of the backend's own
};

/// Creates the backend for a kind; `automatic` resolves to cuda when a device is
/// usable, else cpu, and says why in *reason ("" for an explicit kind). Throws
/// BackendError for `cuda` when no CUDA device is usable (none, busy or lost), and
/// ConfigError for a placement that names no device or a stream that cannot serve (the
/// legacy default stream, another device's). `reason` may be null. A cpu backend runs
/// `cpu_kernels`; a cuda one works on `placement`.
std::unique_ptr<Backend> make_backend(BackendKind kind, std::string* reason,
                                      CpuKernels cpu_kernels = CpuKernels::threaded,
                                      const DevicePlacement& placement = {});

}  // namespace prism::backend
