#include <prism/solver.hpp>

#include <prism/analysis.hpp>
#include <prism/blocks.hpp>
#include <prism/errors.hpp>

#include "backend/backend.hpp"
#include "common/memory.hpp"
#include "common/parallel.hpp"
#include "precond/preconditioner.hpp"
#include "solver/line_order.hpp"
#include "solver/pcg.hpp"
#include "solver/plan.hpp"
#include "solver/preconditioner_choice.hpp"
#include "solver/solve_columns.hpp"
#include "solver/validate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numeric>
#include <utility>

namespace prism {
namespace {

// Entries a host thread gathers at least (the values reordered for the solver).
constexpr std::size_t kEntriesPerPart = std::size_t{1} << 18;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// 0 where `largest` (the largest finite |b_i| and |x_i|) lies in [2^-400, 2^400], where
/// the squares the norms sum cannot overflow or underflow; else its exponent, so that
/// scaling by 2^-exponent brings it near 1.
int safe_exponent(double largest) {
  if (largest == 0.0) return 0;
  const int exponent = std::ilogb(largest);
  return exponent > 400 || exponent < -400 ? exponent : 0;
}

/// "blocks: 67240 of 3 rows (3 to 3; node blocks from the pattern), 25.5% of sum |a_ij|
/// inside them".
std::string describe_blocks(const CsrMatrix<double>& a, const BlockPartition& blocks,
                            const BlockIcOptions& options) {
  const SetStats sizes = set_stats(blocks.ptr);
  std::string kind = options.block_size > 0 ? "block_size " + std::to_string(options.block_size)
                                            : std::string("node blocks from the pattern");
  if (options.supernode > 0) {
    kind = "supernodes of up to " + std::to_string(options.supernode) + " rows of " + kind;
  }
  char text[240];
  std::snprintf(text, sizeof text,
                "blocks: %lld of %.3g rows (%lld to %lld; %s), %.1f%% of sum |a_ij| inside them",
                static_cast<long long>(blocks.count()), sizes.mean_size,
                static_cast<long long>(sizes.min_size), static_cast<long long>(sizes.max_size),
                kind.c_str(), 100.0 * diagonal_block_weight(a, blocks));
  return text;
}

/// The largest finite |v_i| (0 when none): the rule of Backend::largest_finite_magnitude.
double largest_finite(const std::vector<double>& v) {
  double largest = 0.0;
  for (const double value : v) {
    if (std::isfinite(value)) largest = std::max(largest, std::abs(value));
  }
  return largest;
}

/// Whether [a, a + n) and [b, b + n) share an element.
bool overlap(const double* a, const double* b, std::size_t n) {
  const std::less<const double*> before;
  return n > 0 && before(a, b + n) && before(b, a + n);
}

}  // namespace

struct Solver::Impl {
  SolverConfig config;                                // its ordering resolved (resolve_ordering)
  Ordering requested_ordering = Ordering::automatic;  // the ordering as the caller gave it
  std::string type;                                   // the registered type set up (auto resolved)
  std::vector<std::string> ordering_reasons;          // why the ordering is what it is
  solver::Plan plan;                                  // the set-up's resolved choices
  std::unique_ptr<backend::Backend> backend;
  std::unique_ptr<precond::Preconditioner> preconditioner;

  // The pattern given to setup(), to recognise a refactor with the same pattern.
  std::vector<index_t> row_ptr;
  std::vector<index_t> col_idx;
  std::vector<index_t> mirror;  // mirror[k]: the entry a(j, i) of entry k = a(i, j)

  bool permuted = false;
  std::vector<index_t> permutation;   // permutation[new] = old
  std::vector<index_t> value_source;  // ordered.values[k] = a.values[value_source[k]]
  CsrMatrix<double> ordered;          // A in the solver's order
  std::unique_ptr<backend::Matrix> device_matrix;
  // refactor_on_backend(): the mirror map in the backend's memory, made on first use
  // (a solver that never uses it pays nothing; the consumers keep their own maps).
  std::unique_ptr<backend::IndexMap> mirror_map;
  // refactor_on_backend(): its queued work (values check, SpMV storage, the preconditioner's
  // load and first attempt), recorded after the second call in a row with one values
  // pointer succeeded (so that alternating buffers never pay for a recording) and replayed
  // by the calls with that pointer after it (refactor() on the device path passes its
  // staging buffer, so its calls replay too); dropped by setup() and a host refactor().
  std::unique_ptr<backend::Recording> refactor_recording;
  const double* refactor_recording_values = nullptr;
  const double* refactor_last_values = nullptr;  // the last call's pointer
  // setup(view) with one triangle: its entries (refactor_on_backend takes the full
  // matrix's, and names the mistake); 0 after any other setup.
  std::size_t triangle_entries = 0;

  SetupReport setup;
  OrderingReport ordering;
  FactorizationReport factorization;
  bool ready = false;
  std::string backend_choice;         // how backend: auto chose, "" for an explicit backend
  Monitor monitor;                    // set_monitor(); empty: none
  PreconditionerCallback user_apply;  // set_preconditioner_callback(): type user's M^{-1}

  // Vectors that arrive in the backend's memory (solve_on_backend, apply_preconditioner*):
  // the reordering both ways as gather maps, and the preconditioner's work vectors (a
  // caller's Krylov method applies it every iteration), made on first use.
  std::unique_ptr<backend::IndexMap> order_map;    // ordered[i] = v[permutation[i]]
  std::unique_ptr<backend::IndexMap> unorder_map;  // v[j] = ordered[inverse[j]]
  std::unique_ptr<backend::Vector> apply_r, apply_z;

  void require_ready(const char* call) const {
    if (!ready) throw Error(std::string(call) + "() called before a successful setup()");
    require_callback(call);
  }
  void require_callback(const char* call) const {
    if (config.preconditioner.type != precond::kUserPreconditioner || user_apply) return;
    throw ConfigError(std::string(call) +
                      ": preconditioner: user needs a callback: call "
                      "Solver::set_preconditioner_callback (C: prism_solver_set_preconditioner)");
  }
  /// setup()'s checks of `a` at the level of solver.check, and the mirror map the value
  /// checks of refactor() and refactor_on_backend() use (check full only).
  void check_matrix(const CsrMatrix<double>& a) {
    const SolverOptions& o = config.solver;
    if (o.check == MatrixCheck::full) check_spd_candidate(a, o.symmetry_tolerance);
    if (o.check == MatrixCheck::pattern) check_pattern(a);
    if (o.check == MatrixCheck::none) check_storage(a);
    // A system of no equations: a solve would report convergence with nothing solved.
    if (a.rows == 0) throw InvalidMatrixError("setup: the matrix is empty (0 x 0)");
    mirror.clear();
    if (o.check == MatrixCheck::full) mirror = mirror_entries(a);
  }
  /// The checks of two vectors the caller hands over in the backend's memory.
  void check_backend_vectors(const char* call, const double* in, const char* in_name,
                             const double* out, const char* out_name, std::size_t count) const;
  /// dst = factor * src with src in the caller's order, dst in the solver's.
  void to_solver_order(const backend::Vector& src, backend::Vector& dst, double factor);
  /// dst = factor * src with src in the solver's order, dst in the caller's.
  void to_caller_order(const backend::Vector& src, backend::Vector& dst, double factor);
  /// dst = factor * src, gathered through `map` (nullptr: the same order).
  void reorder(const backend::Vector& src, backend::Vector& dst, double factor,
               const backend::IndexMap* map);
  /// factor * v in a new vector (a power of two: exact, as solve()'s host scaling).
  std::unique_ptr<backend::Vector> scaled(const backend::Vector& v, double factor);
  void make_apply_work() {
    if (apply_r) return;
    apply_r = backend->make_vector(ordered.rows);
    apply_z = backend->make_vector(ordered.rows);
  }
  /// PCG on b and x in the solver's order, scaled by `factor`, and its report.
  SolveReport run(const backend::Vector& b, backend::Vector& x, double factor);
  /// What a multi-column solve takes (solver/solve_columns.hpp).
  solver::ColumnsSetup columns_setup() {
    return {*backend,
            *device_matrix,
            *preconditioner,
            permuted ? &permutation : nullptr,
            config.solver,
            [this](const backend::Vector& src, backend::Vector& dst, double factor) {
              to_solver_order(src, dst, factor);
            },
            [this](const backend::Vector& src, backend::Vector& dst, double factor) {
              to_caller_order(src, dst, factor);
            }};
  }

  /// setup() on the current backend.
  void set_up(const CsrMatrix<double>& a);
  /// The block coloring of A's blocks: the permutation and ordering report, and the blocks
  /// in the new order.
  void order_blocks(const CsrMatrix<double>& a, BlockPartition& blocks);

  /// Drops everything that lives in the backend's memory, so the backend can go.
  void release_backend_objects() {
    release_vector_objects();
    refactor_recording.reset();
    refactor_recording_values = refactor_last_values = nullptr;
    mirror_map.reset();
    device_matrix.reset();
    preconditioner.reset();
    ready = false;
  }

  void release_vector_objects() {
    order_map.reset();
    unorder_map.reset();
    apply_r.reset();
    apply_z.reset();
  }

  /// Host memory the solver keeps: its own vectors and its backend objects' (SetupReport).
  std::size_t host_bytes() const;
  /// Frees the host copies no later call reads. The ordered values are refilled by each
  /// host factorization (factorize_and_upload). The ordered pattern is read only by a host
  /// factorization: with the preconditioner factoring in the backend, refactor() and
  /// refactor_on_backend() read row_ptr, col_idx, mirror and value_source, kept.
  void release_host_copies() {
    common::release(ordered.values);
    if (!preconditioner || preconditioner->backend_factorization() == nullptr) return;
    common::release(ordered.row_ptr);
    common::release(ordered.col_idx);
  }
  /// setup()'s memory figures (kept by refactors, which do not change them much).
  void record_memory(std::size_t input_bytes, std::size_t resident_before) {
    MemoryReport& m = setup.memory;
    m.input_bytes = input_bytes;
    m.host_bytes = host_bytes();
    m.device_bytes = backend->device_bytes();
    m.resident_before_bytes = resident_before;
    m.resident_after_bytes = common::resident_set_bytes();
  }
  /// A fresh report for a refactor, with setup()'s memory figures.
  void reset_setup_report() {
    const MemoryReport memory = setup.memory;
    setup = SetupReport{};
    setup.memory = memory;
  }

  void factorize_and_upload(const CsrMatrix<double>& a) {
    ordered.values.resize(value_source.size());  // release_host_copies() freed them
    // The gather is memory-bound; entries in parts on host threads.
    common::parallel_for(value_source.size(), kEntriesPerPart,
                         [&](std::size_t first, std::size_t last) {
                           for (std::size_t k = first; k < last; ++k) {
                             ordered.values[k] = a.values[value_source[k]];
                           }
                         });
    auto t = std::chrono::steady_clock::now();
    preconditioner->factorize(ordered);
    setup.factorization_seconds = seconds_since(t);
    factorization = preconditioner->info().factorization;
    t = std::chrono::steady_clock::now();
    if (device_matrix) {
      device_matrix->update_values(ordered.values);
    } else {
      device_matrix = backend->make_matrix(ordered, plan.spmv);
    }
    setup.upload_seconds = seconds_since(t);
    common::release(ordered.values);  // the preconditioner and the SpMV matrix keep theirs
  }
};

Solver::Solver(SolverConfig config) : impl_(std::make_unique<Impl>()) {
  impl_->config = std::move(config);
  PreconditionerOptions& popt = impl_->config.preconditioner;
  // Fail on a bad configuration or an unknown preconditioner before any matrix work.
  validate(impl_->config);
  if (popt.type != solver::kAutoType) precond::Registry::instance().require(popt.type);
  impl_->requested_ordering = popt.ordering;
  popt.ordering = solver::resolve_ordering(popt, impl_->ordering_reasons);
  impl_->backend = backend::make_backend(
      impl_->config.backend, &impl_->backend_choice, impl_->config.cpu_kernels,
      backend::DevicePlacement{impl_->config.device, impl_->config.stream});
}

Solver::~Solver() {
  if (impl_ == nullptr || impl_->backend == nullptr) return;  // moved from
  // The objects in the backend's memory go first, on its device; the backend itself
  // last (its destructor makes its device current itself).
  std::unique_ptr<backend::Backend> backend = std::move(impl_->backend);
  const backend::DeviceScope device_scope(*backend);
  impl_.reset();
}
Solver::Solver(Solver&&) noexcept = default;
Solver& Solver::operator=(Solver&&) noexcept = default;

void Solver::set_solver_options(const SolverOptions& options) {
  SolverConfig config = impl_->config;
  config.solver = options;
  // The rules hold for the caller's configuration (line types insist on ordering auto).
  config.preconditioner.ordering = impl_->requested_ordering;
  validate(config);
  impl_->config.solver = options;
}

void Solver::set_monitor(Monitor monitor) {
  impl_->monitor = std::move(monitor);
}

std::string Solver::backend_name() const {
  return impl_->backend->name();
}
const SetupReport& Solver::setup_report() const {
  return impl_->setup;
}

void Solver::setup(const CsrMatrix<double>& a) {
  const backend::DeviceScope device_scope(*impl_->backend);
  Impl& s = *impl_;
  s.triangle_entries = 0;
  const std::size_t resident_before = common::resident_set_bytes();
  const bool automatic = s.config.backend == BackendKind::automatic;
  try {
    s.set_up(a);
    if (automatic && s.backend->kind() == backend::Backend::Kind::device) {
      // The vectors solve() allocates (b, x and CG's four) must fit as well: a problem
      // the GPU cannot solve goes to the CPU now, not as an error in solve().
      std::vector<std::unique_ptr<backend::Vector>> probe;
      for (int k = 0; k < 6; ++k) probe.push_back(s.backend->make_vector(a.rows));
    }
  } catch (const DeviceMemoryError& e) {
    // `auto` takes the GPU when there is one; a problem too large for it goes to the CPU.
    if (!automatic || s.backend->kind() != backend::Backend::Kind::device) throw;
    s.release_backend_objects();
    s.backend = backend::make_backend(BackendKind::cpu, &s.backend_choice, s.config.cpu_kernels);
    s.backend_choice = std::string("backend: auto fell back to cpu: ") + e.what();
    s.set_up(a);
  }
  s.setup.backend_choice = s.backend_choice;
  s.release_host_copies();
  s.record_memory(common::bytes_of(a), resident_before);
}

std::size_t Solver::Impl::host_bytes() const {
  using common::bytes_of;
  const auto of = [](const auto& object) { return object ? object->host_bytes() : 0; };
  return bytes_of(row_ptr) + bytes_of(col_idx) + bytes_of(mirror) + bytes_of(permutation) +
         bytes_of(value_source) + bytes_of(ordered) + of(device_matrix) + of(preconditioner) +
         of(mirror_map) + of(order_map) + of(unorder_map) + of(apply_r) + of(apply_z);
}

void Solver::Impl::order_blocks(const CsrMatrix<double>& a, BlockPartition& blocks) {
  const PreconditionerOptions& popt = config.preconditioner;
  BlockColoring coloring = color_blocks(a, blocks, popt.coloring.vertex_order);
  permutation = std::move(coloring.permutation);
  blocks = std::move(coloring.blocks);
  ordering.method = "greedy (blocks)";
  ordering.vertex_order = std::string(to_string(popt.coloring.vertex_order));
  ordering.colors = set_stats(coloring.color_rows);
}

void Solver::Impl::set_up(const CsrMatrix<double>& a) {
  Impl& s = *this;
  s.ready = false;
  require_callback("setup");
  s.release_vector_objects();
  s.setup = SetupReport{};
  s.ordering = OrderingReport{};
  s.refactor_recording.reset();
  s.refactor_last_values = nullptr;
  s.device_matrix.reset();
  s.mirror_map.reset();

  auto t = std::chrono::steady_clock::now();
  s.check_matrix(a);
  s.setup.check_seconds = seconds_since(t);
  s.row_ptr = a.row_ptr;
  s.col_idx = a.col_idx;

  const PreconditionerOptions& popt = s.config.preconditioner;
  s.permuted = popt.ordering == Ordering::color;
  s.ordering.ordering = std::string(to_string(popt.ordering));
  t = std::chrono::steady_clock::now();  // choosing the type counts as ordering work
  solver::TypeChoice choice = solver::resolve_type(popt, a);
  s.type = choice.type;
  const bool blocked = precond::Registry::instance().uses_blocks(s.type);
  const bool lined = precond::Registry::instance().uses_lines(s.type);
  BlockPartition blocks;
  std::string lines_found;           // the plan line of a line preconditioner
  std::vector<index_t> line_colors;  // lines by color (Partition::colored_lines)
  if (lined) {
    solver::LineOrder order = solver::order_by_lines(a, popt.lines);
    s.ordering.method = "lines";
    if (precond::Registry::instance().partition(s.type) == precond::Partition::colored_lines) {
      solver::color_lines(a, order, popt.coloring.vertex_order);
      line_colors = std::move(order.color_ptr);
      s.ordering.method = "greedy (lines)";
      s.ordering.vertex_order = std::string(to_string(popt.coloring.vertex_order));
      s.ordering.colors = set_stats(order.color_rows);
    }
    s.permuted = true;
    s.permutation = std::move(order.permutation);
    blocks = std::move(order.lines);
    lines_found = std::move(order.description);
    s.ordering.ordering = "lines";
    s.setup.coloring_seconds = seconds_since(t);
  } else if (blocked) {
    blocks = choice.blocks ? std::move(*choice.blocks) : solver::node_blocks(a, popt.block_ic);
    std::vector<index_t> grouping;  // rows: each supernode made consecutive
    if (popt.block_ic.supernode > 0) {
      Aggregation supernodes = aggregate_blocks(a, blocks, popt.block_ic.supernode);
      grouping = std::move(supernodes.permutation);
      blocks = std::move(supernodes.blocks);
    }
    if (s.permuted) {
      s.order_blocks(grouping.empty() ? a : permute_symmetric(a, grouping), blocks);
      for (index_t& row : s.permutation) row = grouping.empty() ? row : grouping[row];
    } else if (!grouping.empty()) {
      s.permuted = true;
      s.permutation = std::move(grouping);
    }
    s.setup.coloring_seconds = seconds_since(t);
  } else if (s.permuted) {
    const bool cyclic = popt.coloring.method == ColoringMethod::level_cyclic;
    Coloring coloring = cyclic ? level_cyclic_coloring(a, popt.coloring.colors)
                               : color_matrix(a, popt.coloring.vertex_order);
    if (popt.coloring.balance) balance_coloring(a, coloring);
    s.setup.coloring_seconds = seconds_since(t);
    s.permutation = std::move(coloring.permutation);
    s.ordering.method = std::string(to_string(popt.coloring.method));
    s.ordering.vertex_order = std::string(to_string(popt.coloring.vertex_order));
    s.ordering.balanced = popt.coloring.balance;
    s.ordering.colors = set_stats(coloring.color_ptr);
  }
  if (!s.permuted) s.permutation.clear();

  // Keep where each entry of the ordered matrix comes from, so refactor() maps new
  // values with a gather instead of permuting again.
  t = std::chrono::steady_clock::now();
  if (s.permuted) {
    s.ordered = permute_symmetric(a, s.permutation, &s.value_source);
  } else {
    s.ordered = a;
    s.value_source.resize(a.values.size());
    std::iota(s.value_source.begin(), s.value_source.end(), 0);
  }
  s.setup.permutation_seconds = seconds_since(t);

  t = std::chrono::steady_clock::now();
  SolverConfig resolved = s.config;
  resolved.preconditioner.type = s.type;
  std::vector<std::string> reasons = s.ordering_reasons;
  if (!choice.reason.empty()) reasons.insert(reasons.begin(), choice.reason);
  s.plan = solver::resolve_plan(resolved, *s.backend, s.ordered, std::move(reasons));
  s.preconditioner =
      precond::Registry::instance().create(s.type, *s.backend, s.plan.preconditioner);
  s.preconditioner->set_callback(s.user_apply);
  s.ordering.levels = set_stats(level_sets(s.ordered).level_ptr);
  if (blocked) {
    s.plan.reasons.push_back(describe_blocks(s.ordered, blocks, popt.block_ic));
    s.preconditioner->set_blocks(blocks);
  }
  if (lined) {
    s.plan.reasons.push_back(lines_found);
    s.preconditioner->set_blocks(blocks);
    if (!line_colors.empty()) s.preconditioner->set_block_colors(line_colors);
  }
  s.preconditioner->analyze(s.ordered);
  s.setup.analysis_seconds = seconds_since(t);

  s.factorize_and_upload(a);
  s.ready = true;
}

void Solver::refactor(const CsrMatrix<double>& a) {
  const backend::DeviceScope device_scope(*impl_->backend);
  Impl& s = *impl_;
  if (!s.device_matrix) throw Error("refactor() called before setup()");
  if (a.rows != static_cast<index_t>(s.row_ptr.size()) - 1 || a.row_ptr != s.row_ptr ||
      a.col_idx != s.col_idx) {
    throw InvalidMatrixError(
        "refactor: the matrix does not have the sparsity pattern given to setup()");
  }
  // Every check level: the values are read by position.
  if (a.values.size() != a.col_idx.size()) {
    throw InvalidMatrixError("refactor: " + std::to_string(a.values.size()) +
                             " values for a pattern of " + std::to_string(a.col_idx.size()) +
                             " entries");
  }
  if (s.preconditioner->backend_factorization() != nullptr) {
    // Checked, reordered, scaled and factored where the backend computes, as by
    // refactor_on_backend (the same factor, bit for bit, as scaled on the host): the host
    // only copies the values there, into one buffer, so that repeated calls replay.
    refactor_on_backend(s.backend->stage(a.values), a.values.size());
    return;
  }
  s.ready = false;
  s.refactor_recording.reset();  // the preconditioner's loaded values now come from the host
  s.refactor_last_values = nullptr;
  auto t = std::chrono::steady_clock::now();
  if (s.config.solver.check == MatrixCheck::full) {
    check_spd_candidate_values(a, s.mirror, s.config.solver.symmetry_tolerance);
  }
  s.reset_setup_report();
  s.setup.check_seconds = seconds_since(t);
  s.factorize_and_upload(a);
  s.ready = true;
}

void Solver::refactor_on_backend(const double* values, std::size_t count) {
  const backend::DeviceScope device_scope(*impl_->backend);
  Impl& s = *impl_;
  if (!s.device_matrix) throw Error("refactor_on_backend() called before setup()");
  if (count != s.col_idx.size() && count == s.triangle_entries) {
    throw ConfigError("refactor_on_backend: " + std::to_string(count) +
                      " values, the entries of the triangle given to setup(view); it takes the " +
                      std::to_string(s.col_idx.size()) +
                      " of the full matrix in expand_triangle()'s order (or pass the "
                      "triangle to refactor(view))");
  }
  if (count != s.col_idx.size()) {
    throw InvalidMatrixError("refactor_on_backend: " + std::to_string(count) +
                             " values for a pattern of " + std::to_string(s.col_idx.size()) +
                             " entries");
  }
  backend::Backend& be = *s.backend;
  if (count > 0 && (values == nullptr || !be.reads(values))) {
    throw InvalidMatrixError(
        "refactor_on_backend: the values are not in memory the " + be.name() +
        " backend reads (for cuda: device memory of the solver's device, or managed memory)");
  }
  s.ready = false;
  s.reset_setup_report();
  // The values check, the SpMV storage and the factorization are queued one after the
  // other; the check's verdict is read at the end (or when the factorization fails), so
  // the host waits once less. The timings are then the times to queue the check and
  // the SpMV storage; factorization_seconds covers everything to the end of the work.
  // A call with the recorded values pointer replays the recording of all of it up to the
  // first attempt's verdict (one graph launch): check_seconds is then the time to launch
  // it, upload_seconds 0.
  const bool replay = s.refactor_recording && s.refactor_recording_values == values;
  const bool repeated = s.refactor_last_values == values;
  s.refactor_last_values = values;
  auto t = std::chrono::steady_clock::now();
  const bool check = s.config.solver.check == MatrixCheck::full;
  const double tolerance = s.config.solver.symmetry_tolerance;
  if (check && !s.mirror_map) s.mirror_map = be.make_index_map(s.mirror);
  if (replay) {
    s.refactor_recording->replay();
  } else {
    s.refactor_recording.reset();
    if (check) be.queue_value_check(values, *s.mirror_map, tolerance);
  }
  const auto reject_bad_values = [&] {
    if (!check || be.value_check_result() < 0) return;
    // The host check names the problem exactly as refactor() would.
    CsrMatrix<double> a{s.ordered.rows, s.ordered.cols, s.row_ptr, s.col_idx, {}};
    be.copy_to_host(values, count, a.values);
    check_spd_candidate_values(a, s.mirror, tolerance);
    throw InvalidMatrixError("refactor_on_backend: the values fail the symmetry check");
  };
  s.setup.check_seconds = seconds_since(t);

  // Every consumer gathers straight from `values` through its own composed map.
  const backend::SourceValues source{values, &s.value_source};
  if (!replay) {
    t = std::chrono::steady_clock::now();
    s.device_matrix->update_values(source);
    s.setup.upload_seconds = seconds_since(t);
  }
  t = std::chrono::steady_clock::now();
  precond::BackendFactorization* on_backend = s.preconditioner->backend_factorization();
  try {
    if (replay) {
      on_backend->finish();
    } else if (on_backend != nullptr) {
      on_backend->factorize(source);
    } else {
      std::vector<double> host_values;
      be.copy_to_host(values, count, host_values);
      s.ordered.values.resize(s.value_source.size());
      for (std::size_t k = 0; k < s.value_source.size(); ++k) {
        s.ordered.values[k] = host_values[s.value_source[k]];
      }
      s.preconditioner->factorize(s.ordered);
      common::release(s.ordered.values);
    }
  } catch (const Error&) {
    reject_bad_values();  // bad values explain the failure: say so, as refactor() does
    throw;
  }
  reject_bad_values();
  be.synchronize();
  s.setup.factorization_seconds = seconds_since(t);
  s.factorization = s.preconditioner->info().factorization;
  s.ready = true;
  if (!replay && repeated && be.can_record() && on_backend != nullptr && on_backend->queues()) {
    // Recording queues nothing; it repeats the host side of the queued calls above, which
    // leave the same state for the same pointer. A backend that cannot record some of it
    // throws, and the calls then keep the plain path.
    try {
      s.refactor_recording = be.record([&] {
        if (check) be.queue_value_check(values, *s.mirror_map, tolerance);
        s.device_matrix->update_values(source);
        on_backend->queue(source);
      });
      s.refactor_recording_values = values;
    } catch (const Error&) {
      s.refactor_recording.reset();
    }
  }
}

void Solver::Impl::check_backend_vectors(const char* call, const double* in, const char* in_name,
                                         const double* out, const char* out_name,
                                         std::size_t count) const {
  const std::string where = std::string(call) + ": ";
  const index_t n = ordered.rows;
  if (count != static_cast<std::size_t>(n)) {
    throw InvalidMatrixError(where + "count is " + std::to_string(count) + ", the matrix has " +
                             std::to_string(n) + " rows");
  }
  const auto check = [&](const double* v, const char* name) {
    if (v == nullptr) throw InvalidMatrixError(where + name + " is a null pointer");
    if (!backend->reads(v)) {
      throw InvalidMatrixError(
          where + name + " is not in memory the " + backend->name() +
          " backend reads (for cuda: device memory of the solver's device, or managed memory)");
    }
  };
  check(in, in_name);
  check(out, out_name);
  if (overlap(in, out, count)) {
    throw InvalidMatrixError(where + in_name + " and " + out_name + " overlap; " + out_name +
                             " must be an array of its own");
  }
}

std::unique_ptr<backend::Vector> Solver::Impl::scaled(const backend::Vector& v, double factor) {
  auto constant = backend->make_vector(v.size());
  backend->copy_from_host(std::vector<double>(static_cast<std::size_t>(v.size()), factor),
                          *constant);
  auto out = backend->make_vector(v.size());
  backend->pointwise_multiply(*constant, v, *out);
  return out;
}

void Solver::Impl::reorder(const backend::Vector& src, backend::Vector& dst, double factor,
                           const backend::IndexMap* map) {
  const std::unique_ptr<backend::Vector> scaled_src = factor != 1.0 ? scaled(src, factor) : nullptr;
  const backend::Vector& from = scaled_src ? *scaled_src : src;
  if (map == nullptr) {
    backend->copy(from, dst);
  } else {
    backend->gather(from.data(), *map, dst);
  }
}

void Solver::Impl::to_solver_order(const backend::Vector& src, backend::Vector& dst,
                                   double factor) {
  if (permuted && !order_map) order_map = backend->make_index_map(permutation);
  reorder(src, dst, factor, permuted ? order_map.get() : nullptr);
}

void Solver::Impl::to_caller_order(const backend::Vector& src, backend::Vector& dst,
                                   double factor) {
  if (permuted && !unorder_map) {
    unorder_map = backend->make_index_map(inverse_permutation(permutation));
  }
  reorder(src, dst, factor, permuted ? unorder_map.get() : nullptr);
}

SolveReport Solver::solve(const std::vector<double>& b, std::vector<double>& x) {
  const backend::DeviceScope device_scope(*impl_->backend);
  Impl& s = *impl_;
  s.require_ready("solve");
  const index_t n = s.ordered.rows;
  if (static_cast<index_t>(b.size()) != n) {
    throw InvalidMatrixError("solve: right-hand side has " + std::to_string(b.size()) +
                             " entries, the matrix " + std::to_string(n) + " rows");
  }
  if (x.empty()) x.assign(static_cast<std::size_t>(n), 0.0);
  if (static_cast<index_t>(x.size()) != n) {
    throw InvalidMatrixError("solve: initial guess has " + std::to_string(x.size()) +
                             " entries, the matrix " + std::to_string(n) + " rows");
  }

  // Into the solver's order, v_ordered[i] = v[permutation[i]], scaled by a power of two
  // (exact) where ||b||^2 or ||x||^2 would leave the range of doubles; the iterates scale
  // with b, x comes back unscaled.
  const double factor =
      std::ldexp(1.0, -safe_exponent(std::max(largest_finite(b), largest_finite(x))));
  const double unscale = 1.0 / factor;
  std::vector<double> b_ordered(b.size());
  std::vector<double> x_ordered(x.size());
  for (index_t i = 0; i < n; ++i) {
    const index_t from = s.permuted ? s.permutation[i] : i;
    b_ordered[i] = b[from] * factor;
    x_ordered[i] = x[from] * factor;
  }
  backend::Backend& be = *s.backend;
  auto b_dev = be.make_vector(n);
  auto x_dev = be.make_vector(n);
  be.copy_from_host(b_ordered, *b_dev);
  be.copy_from_host(x_ordered, *x_dev);
  SolveReport report = s.run(*b_dev, *x_dev, factor);

  be.copy_to_host(*x_dev, x_ordered);
  if (s.permuted) {
    for (index_t i = 0; i < n; ++i) x[s.permutation[i]] = x_ordered[i] * unscale;
  } else {
    x = std::move(x_ordered);
    if (unscale != 1.0) {
      for (double& xi : x) xi *= unscale;
    }
  }
  return report;
}

SolveReport Solver::solve_on_backend(const double* b, double* x, std::size_t count) {
  const backend::DeviceScope device_scope(*impl_->backend);
  Impl& s = *impl_;
  s.require_ready("solve_on_backend");
  s.check_backend_vectors("solve_on_backend", b, "b", x, "x", count);
  backend::Backend& be = *s.backend;
  const index_t n = s.ordered.rows;
  // solve()'s scaling, with the largest magnitudes found where the vectors are.
  const double largest =
      std::max(be.largest_finite_magnitude(b, count), be.largest_finite_magnitude(x, count));
  const double factor = std::ldexp(1.0, -safe_exponent(largest));
  const std::unique_ptr<const backend::Vector> b_view = be.view_input(b, n);
  const std::unique_ptr<backend::Vector> x_view = be.view(x, n);
  if (!s.permuted && factor == 1.0) {
    SolveReport report = s.run(*b_view, *x_view, factor);  // in the caller's x itself
    be.synchronize();
    return report;
  }
  auto b_work = be.make_vector(n);
  auto x_work = be.make_vector(n);
  s.to_solver_order(*b_view, *b_work, factor);
  s.to_solver_order(*x_view, *x_work, factor);
  SolveReport report = s.run(*b_work, *x_work, factor);
  s.to_caller_order(*x_work, *x_view, 1.0 / factor);
  be.synchronize();
  return report;
}

MultiSolveReport Solver::solve(const double* b, double* x, std::size_t rows, int columns) {
  const backend::DeviceScope device_scope(*impl_->backend);
  impl_->require_ready("solve");
  return solver::solve_columns(impl_->columns_setup(), b, x, rows, columns);
}

MultiSolveReport Solver::solve(const std::vector<double>& b, std::vector<double>& x, int columns) {
  impl_->require_ready("solve");
  const std::size_t rows = columns > 0 ? b.size() / static_cast<std::size_t>(columns) : 0;
  if (columns > 0 && b.size() != rows * static_cast<std::size_t>(columns)) {
    throw InvalidMatrixError("solve: right-hand sides have " + std::to_string(b.size()) +
                             " entries, not a multiple of " + std::to_string(columns) + " columns");
  }
  if (x.empty()) x.assign(b.size(), 0.0);
  if (x.size() != b.size()) {
    throw InvalidMatrixError("solve: initial guesses have " + std::to_string(x.size()) +
                             " entries, the right-hand sides " + std::to_string(b.size()));
  }
  return solve(b.data(), x.data(), rows, columns);
}

MultiSolveReport Solver::solve_on_backend(const double* b, double* x, std::size_t rows,
                                          int columns) {
  const backend::DeviceScope device_scope(*impl_->backend);
  impl_->require_ready("solve_on_backend");
  return solver::solve_columns_on_backend(impl_->columns_setup(), b, x, rows, columns);
}

void Solver::apply_preconditioner(const std::vector<double>& r, std::vector<double>& z) {
  const backend::DeviceScope device_scope(*impl_->backend);
  Impl& s = *impl_;
  s.require_ready("apply_preconditioner");
  const index_t n = s.ordered.rows;
  if (static_cast<index_t>(r.size()) != n) {
    throw InvalidMatrixError("apply_preconditioner: r has " + std::to_string(r.size()) +
                             " entries, the matrix " + std::to_string(n) + " rows");
  }
  std::vector<double> ordered(r.size());
  for (index_t i = 0; i < n; ++i) ordered[i] = r[s.permuted ? s.permutation[i] : i];
  backend::Backend& be = *s.backend;
  s.make_apply_work();
  be.copy_from_host(ordered, *s.apply_r);
  s.preconditioner->apply(*s.apply_r, *s.apply_z);
  be.copy_to_host(*s.apply_z, ordered);
  z.resize(r.size());
  for (index_t i = 0; i < n; ++i) z[s.permuted ? s.permutation[i] : i] = ordered[i];
}

void Solver::apply_preconditioner_on_backend(const double* r, double* z, std::size_t count) {
  const backend::DeviceScope device_scope(*impl_->backend);
  Impl& s = *impl_;
  s.require_ready("apply_preconditioner_on_backend");
  s.check_backend_vectors("apply_preconditioner_on_backend", r, "r", z, "z", count);
  backend::Backend& be = *s.backend;
  const index_t n = s.ordered.rows;
  const std::unique_ptr<const backend::Vector> r_view = be.view_input(r, n);
  const std::unique_ptr<backend::Vector> z_view = be.view(z, n);
  if (s.permuted) {
    s.make_apply_work();
    s.to_solver_order(*r_view, *s.apply_r, 1.0);
    s.preconditioner->apply(*s.apply_r, *s.apply_z);
    s.to_caller_order(*s.apply_z, *z_view, 1.0);
  } else {
    s.preconditioner->apply(*r_view, *z_view);
  }
  be.synchronize();
}

void Solver::set_preconditioner_callback(PreconditionerCallback apply) {
  impl_->user_apply = std::move(apply);
  if (impl_->preconditioner) impl_->preconditioner->set_callback(impl_->user_apply);
}

SolveReport Solver::Impl::run(const backend::Vector& b, backend::Vector& x, double factor) {
  Impl& s = *this;
  const double unscale = 1.0 / factor;
  backend::Backend& be = *s.backend;
  std::string run_reason;
  const bool monitored = static_cast<bool>(s.monitor);
  const solver::RunMode mode = solver::resolve_run_mode(s.config.solver, be, &run_reason,
                                                        s.preconditioner->recordable(), monitored);
  // The monitor sees the residuals of the caller's b, not of the scaled one.
  const Monitor unscaled = [&](const IterationRecord& record) {
    IterationRecord out = record;
    out.residual_norm *= unscale;
    return s.monitor(out);
  };
  SolverOptions options = s.config.solver;
  options.absolute_tolerance *= factor;  // b and the residuals are scaled by `factor`
  solver::PcgResult result = solver::pcg(be, *s.device_matrix, *s.preconditioner, b, x, options,
                                         mode, monitored ? &unscaled : nullptr);
  const index_t n = s.ordered.rows;

  SolveReport report;
  report.backend = be.name();
  report.device = be.device_name();
  const precond::PreconditionerInfo info = s.preconditioner->info();
  report.preconditioner = s.preconditioner->name();
  report.trisolve = info.trisolve;
  report.precision = info.precision;
  report.trisolve_layout = info.trisolve_layout;
  report.spmv = s.device_matrix->algorithm();
  if (!s.backend_choice.empty()) report.plan.push_back(s.backend_choice);
  report.plan.insert(report.plan.end(), s.plan.reasons.begin(), s.plan.reasons.end());
  report.plan.push_back(run_reason);
  report.check_every = s.config.solver.check_every;
  report.graph = result.mode != solver::RunMode::launches;
  report.device_loop = result.mode == solver::RunMode::loop;
  report.reference_bandwidth = be.reference_bandwidth();
  report.rows = n;
  report.nnz = static_cast<index_t>(s.col_idx.size());  // ordered's pattern may be freed
  report.tolerance = s.config.solver.tolerance;
  report.absolute_tolerance = s.config.solver.absolute_tolerance;
  report.max_iterations = s.config.solver.max_iterations;
  report.status = result.status;
  report.iterations = result.iterations;
  report.rhs_norm = result.rhs_norm * unscale;
  report.initial_residual_norm = result.initial_residual_norm * unscale;
  const double scale = result.rhs_norm > 0.0 ? result.rhs_norm : 1.0;
  report.relative_residual = result.residual_norm / scale;
  report.true_relative_residual =
      result.true_residual_norm / (result.rhs_norm > 0.0 ? scale : factor);
  report.residual_replacements = result.residual_replacements;
  report.diagnosis = std::move(result.diagnosis);
  report.solve_seconds = result.seconds;
  report.phase_bytes = result.phase_bytes;
  report.phase_seconds = result.unrecorded_seconds;
  for (IterationRecord& rec : result.history) rec.residual_norm *= unscale;
  for (const IterationRecord& rec : result.history) {
    for (int p = 0; p < kNumPhases; ++p) report.phase_seconds[p] += rec.seconds[p];
  }
  report.setup = s.setup;
  report.factorization = s.factorization;
  report.ordering = s.ordering;
  report.history = std::move(result.history);
  return report;
}

namespace {

// The view path's messages count from 0; the matrix checks' (values, symmetry) count
// from 1, as the CLI's files do, and say so here.
template <typename Body>
void numbered_from_one(const Body& body) {
  try {
    body();
  } catch (const InvalidMatrixError& e) {
    throw InvalidMatrixError(std::string(e.what()) +
                             " (row and column numbers in this message count from 1)");
  }
}

}  // namespace

void Solver::setup(const CsrView32& a) {
  const CsrMatrix<double> full = to_csr_matrix(a);
  numbered_from_one([&] { setup(full); });
  impl_->triangle_entries = a.storage == Storage::full ? 0 : static_cast<std::size_t>(a.nnz());
}

void Solver::setup(const CsrView64& a) {
  const CsrMatrix<double> full = to_csr_matrix(a);
  numbered_from_one([&] { setup(full); });
  impl_->triangle_entries = a.storage == Storage::full ? 0 : static_cast<std::size_t>(a.nnz());
}

void Solver::refactor(const CsrView32& a) {
  const CsrMatrix<double> full = to_csr_matrix(a);
  numbered_from_one([&] { refactor(full); });
}

void Solver::refactor(const CsrView64& a) {
  const CsrMatrix<double> full = to_csr_matrix(a);
  numbered_from_one([&] { refactor(full); });
}

}  // namespace prism
