// The state behind prism::Solver (its pimpl) and the helpers its parts share; included by
// the files that implement Solver (solver.cpp, solver_refactor.cpp) and nowhere else.
#pragma once

#include <prism/solver.hpp>

#include <prism/analysis.hpp>
#include <prism/blocks.hpp>
#include <prism/errors.hpp>

#include "analysis/color_order.hpp"
#include "backend/backend.hpp"
#include "backend/setup.hpp"
#include "common/host_array.hpp"
#include "common/memory.hpp"
#include "common/parallel.hpp"
#include "common/setup_steps.hpp"
#include "precond/preconditioner.hpp"
#include "precond/row_error.hpp"
#include "solver/line_order.hpp"
#include "solver/pcg.hpp"
#include "solver/plan.hpp"
#include "solver/preconditioner_choice.hpp"
#include "solver/solve_columns.hpp"
#include "solver/validate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <numeric>
#include <utility>

namespace prism {
namespace solver_impl {

// Entries a host thread gathers at least (the values reordered for the solver).
constexpr std::size_t kEntriesPerPart = std::size_t{1} << 18;

inline double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/// 0 where `largest` (the largest finite |b_i| and |x_i|) lies in [2^-400, 2^400], where
/// the squares the norms sum cannot overflow or underflow; else its exponent, so that
/// scaling by 2^-exponent brings it near 1.
inline int safe_exponent(double largest) {
  if (largest == 0.0) return 0;
  const int exponent = std::ilogb(largest);
  return exponent > 400 || exponent < -400 ? exponent : 0;
}

/// The largest finite |v_i| (0 when none): the rule of Backend::largest_finite_magnitude.
inline double largest_finite(const std::vector<double>& v) {
  double largest = 0.0;
  for (const double value : v) {
    if (std::isfinite(value)) largest = std::max(largest, std::abs(value));
  }
  return largest;
}

/// Whether [a, a + n) and [b, b + n) share an element.
inline bool overlap(const double* a, const double* b, std::size_t n) {
  const std::less<const double*> before;
  return n > 0 && before(a, b + n) && before(b, a + n);
}

}  // namespace solver_impl

using solver_impl::kEntriesPerPart;
using solver_impl::largest_finite;
using solver_impl::overlap;
using solver_impl::safe_exponent;
using solver_impl::seconds_since;

struct Solver::Impl {
  SolverConfig config;                                // its ordering resolved (resolve_ordering)
  Ordering requested_ordering = Ordering::automatic;  // the ordering as the caller gave it
  std::string type;                                   // the registered type set up (auto resolved)
  std::vector<std::string> ordering_reasons;          // why the ordering is what it is
  solver::Plan plan;                                  // the set-up's resolved choices
  std::unique_ptr<backend::Backend> backend;
  std::unique_ptr<precond::Preconditioner> preconditioner;

  // The pattern given to setup(), to recognise a refactor with the same pattern (written
  // by setup()'s threads: HostArray leaves it unwritten until they copy it).
  common::HostArray<index_t> row_ptr;
  common::HostArray<index_t> col_idx;
  std::vector<index_t> mirror;  // mirror[k]: the entry a(j, i) of entry k = a(i, j)

  bool permuted = false;
  std::vector<index_t> permutation;   // permutation[new] = old
  std::vector<index_t> value_source;  // ordered.values[k] = a.values[value_source[k]]
  /// Set-up kept the ordered matrix in the backend's memory: value_source is empty, and
  /// every consumer of new values (SourceValues without a map) holds its map there.
  bool maps_on_backend = false;
  bool pattern_proven = false;  // setup()'s check proved a symmetric pattern, diagonals stored
  CsrMatrix<double> ordered;    // A in the solver's order
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
  // setup_on_backend(): the caller's matrix in the backend's memory, for the set-up session
  // to copy from (null otherwise; valid during that call only).
  const CsrView32* resident_input = nullptr;

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
  /// Throws the exception being handled again; one whose message names rows of the ordered
  /// matrix (a preconditioner's precond::RowFailure) names them as the caller does: the
  /// row of the matrix given to setup(), from 0 or from 1 as config.numbering says.
  [[noreturn]] void rethrow_naming_rows() const {
    try {
      throw;
    } catch (const precond::RowFailure& e) {
      const index_t base = config.numbering == Numbering::from_one ? 1 : 0;
      e.rethrow(e.text().format([&](index_t row) {
        const bool mapped = permuted && row >= 0 && row < static_cast<index_t>(permutation.size());
        return std::to_string(static_cast<long long>(mapped ? permutation[row] : row) + base);
      }));
    }
    throw;  // not reached (both branches throw); the compiler cannot tell
  }
  /// Runs `step` (the preconditioner's analysis or factorization), its failures' rows named
  /// as the caller does (rethrow_naming_rows).
  template <typename Step>
  void naming_rows(Step&& step) const {
    try {
      step();
    } catch (...) {
      rethrow_naming_rows();
    }
  }
  /// Whether set-up keeps the ordered matrix in the backend's memory and builds the
  /// solver's storage there (SetupSite::automatic), after a check that found every diagonal
  /// stored, on a backend that factors a color's rows at once: ic0 and block_ic factored
  /// there (the plan's choice in a color order with color-set solves, or block_ic's own
  /// trsv solves), and line_ic.
  bool builds_on_backend(const std::string& resolved_type) const {
    const PreconditionerOptions& p = config.preconditioner;
    if (config.solver.setup != SetupSite::automatic || !pattern_proven ||
        !backend->factors_in_parallel()) {
      return false;
    }
    const auto in_parallel = [](Ic0Factorization f) {
      return f == Ic0Factorization::automatic || f == Ic0Factorization::backend;
    };
    const bool colorset =
        p.trisolve == TrisolveAlgorithm::automatic || p.trisolve == TrisolveAlgorithm::colorset;
    if (resolved_type == "ic0") {
      return p.ordering == Ordering::color && in_parallel(p.ic0.factorization) && colorset;
    }
    if (resolved_type == "block_ic") {  // its blocks colored: the plan factors them there
      return p.ordering == Ordering::color && in_parallel(p.block_ic.factorization) &&
             (colorset || p.block_ic.solve == BlockIcSolve::trsv);
    }
    return resolved_type == "line_ic";  // ordered by its lines, factored color by color
  }

  /// setup()'s checks of `a` at the level of solver.check; with a backend session
  /// (`device`) they run there, and a defect found there is named by the host checks.
  void check_matrix(const CsrMatrix<double>& a, backend::SetupSession* device) {
    const SolverOptions& o = config.solver;
    // With check none the session still proves the pattern (symmetric, every diagonal
    // stored: what building there relies on) where that is cheap, as on a GPU; a pattern
    // that fails is accepted, as check none says, and set up on the host.
    const bool prove_pattern = o.check == MatrixCheck::none && device != nullptr &&
                               o.setup == SetupSite::automatic && backend->factors_in_parallel();
    const MatrixCheck level = prove_pattern ? MatrixCheck::pattern : o.check;
    const bool checked = device != nullptr && device->check(level, o.symmetry_tolerance);
    pattern_proven = checked && level != MatrixCheck::none;
    if (!checked) {
      const Numbering numbering = config.numbering;
      if (o.check == MatrixCheck::full) check_spd_candidate(a, o.symmetry_tolerance, numbering);
      if (o.check == MatrixCheck::pattern) check_pattern(a, numbering);
      if (o.check == MatrixCheck::none) check_storage(a, numbering);
    }
    // A system of no equations: a solve would report convergence with nothing solved.
    if (a.rows == 0) throw InvalidMatrixError("setup: the matrix is empty (0 x 0)");
    mirror.clear();
  }
  /// The mirror map of the value checks (refactors with check full), made from the pattern
  /// on first use: setup() keeps none, since on the GPU path only the backend's copy is
  /// read (refactor_on_backend releases the host one after making it).
  const std::vector<index_t>& pattern_mirror() {
    if (!mirror.empty() || col_idx.empty()) return mirror;
    const auto rows = static_cast<index_t>(row_ptr.size()) - 1;
    const CsrMatrix<double> pattern{
        rows, rows, {row_ptr.begin(), row_ptr.end()}, {col_idx.begin(), col_idx.end()}, {}};
    mirror = mirror_entries(pattern);
    return mirror;
  }
  /// The checks of two vectors the caller hands over in the backend's memory.
  void check_backend_vectors(const char* call, const double* in, const char* in_name,
                             const double* out, const char* out_name, std::size_t count) const;
  /// z = M^{-1} r on backend memory, queued on the backend's stream (no wait); `call`
  /// names the public call in its errors.
  void queue_preconditioner(const char* call, const double* r, double* z, std::size_t count);
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
  /// The rows' coloring of coloring.method (jones_plassmann and parallel_greedy in the
  /// backend's session `device` where there is one); `method` names the one that ran.
  Coloring color_rows(const CsrMatrix<double>& a, backend::SetupSession* device,
                      ColoringMethod& method) const {
    const ColoringOptions& c = config.preconditioner.coloring;
    method = c.method;
    switch (c.method) {
      case ColoringMethod::automatic: {
        // The rounds give Boost's coloring exactly; past their limit (a long chain in the
        // vertex order) the fallback would not, so Boost colors instead.
        method = ColoringMethod::greedy;
        if (device == nullptr || c.vertex_order == VertexOrder::smallest_last) break;
        kernels::GreedyColoring result;
        Coloring coloring = color_on_device(a, *device, ColoringMethod::parallel_greedy, result);
        if (!result.exact) break;
        method = ColoringMethod::parallel_greedy;
        return coloring;
      }
      case ColoringMethod::level_cyclic:
        return level_cyclic_coloring(a, c.colors);
      case ColoringMethod::jones_plassmann: {
        if (device == nullptr) return jones_plassmann_coloring(a);
        kernels::GreedyColoring result;
        return color_on_device(a, *device, ColoringMethod::jones_plassmann, result);
      }
      case ColoringMethod::parallel_greedy: {
        if (device == nullptr) return parallel_greedy_coloring(a, c.vertex_order);
        kernels::GreedyColoring result;
        return color_on_device(a, *device, ColoringMethod::parallel_greedy, result);
      }
      case ColoringMethod::greedy:
        break;
    }
    return color_matrix(a, c.vertex_order);
  }
  /// color_rows()' coloring `run` (jones_plassmann or parallel_greedy, `result` what it
  /// did) in the session `device`, renumbered and ordered there where the session can.
  /// Not with coloring.balance: balance_coloring rewrites the permutation in place, which
  /// the session would take for the one it kept (backend/setup.hpp).
  Coloring color_on_device(const CsrMatrix<double>& a, backend::SetupSession& device,
                           ColoringMethod run, kernels::GreedyColoring& result) const {
    const ColoringOptions& c = config.preconditioner.coloring;
    std::vector<index_t> rank;
    if (run == ColoringMethod::parallel_greedy && c.vertex_order != VertexOrder::natural) {
      const common::StepTimer step("coloring: vertex order (host)");
      rank = analysis::greedy_rank(a, c.vertex_order);
    }
    Coloring coloring;
    if (!c.balance && device.ordered_coloring(run, rank, false, coloring, result)) return coloring;
    std::vector<int> colors;
    if (run == ColoringMethod::jones_plassmann) {
      result = kernels::GreedyColoring{};
      result.colors = device.color_rows(colors);
    } else {
      result = device.color_rows_in_order(rank, colors);
    }
    return coloring_of(std::move(colors), result.colors);
  }
  /// block_ic's order: `blocks` (of a's rows, or of a's rows in the order `grouping` when
  /// not empty) colored on their quotient graph, in the session `device` where it can; sets
  /// the permutation and the ordering report, and `blocks` to the blocks in the new order.
  void order_blocks(const CsrMatrix<double>& a, backend::SetupSession* device,
                    const std::vector<index_t>& grouping, BlockPartition& blocks);

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
  /// refactor_on_backend() read row_ptr, col_idx and value_source, kept (and the mirror
  /// map, made from the pattern when first needed: pattern_mirror).
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

  /// factorize_and_upload() for the matrix set-up kept in the backend's memory: the
  /// preconditioner factors A's values there through the map it made there (as
  /// refactor_on_backend() does), then the SpMV matrix takes the kept storage.
  void factorize_and_upload(backend::OrderedMatrix& kept) {
    auto t = std::chrono::steady_clock::now();
    const backend::SourceValues source{kept.given_values(), nullptr};
    naming_rows([&] { preconditioner->backend_factorization()->factorize(source); });
    setup.factorization_seconds = seconds_since(t);
    factorization = preconditioner->info().factorization;
    t = std::chrono::steady_clock::now();
    device_matrix = backend->make_matrix_on_backend(kept, plan.spmv);
    setup.upload_seconds = seconds_since(t);
  }

  /// `in_order`: ordered.values already hold a's values in the solver's order (set-up,
  /// where the permutation wrote them); else they are gathered again.
  void factorize_and_upload(const CsrMatrix<double>& a, bool in_order = false) {
    auto t = std::chrono::steady_clock::now();
    if (!in_order || ordered.values.size() != value_source.size()) {
      const common::StepTimer step("permutation: values gathered");
      ordered.values.resize(value_source.size());  // release_host_copies() freed them
      // The gather is memory-bound; entries in parts on host threads.
      common::parallel_for(value_source.size(), kEntriesPerPart,
                           [&](std::size_t first, std::size_t last) {
                             for (std::size_t k = first; k < last; ++k) {
                               ordered.values[k] = a.values[value_source[k]];
                             }
                           });
      setup.permutation_seconds += seconds_since(t);  // the values in the solver's order
    }
    t = std::chrono::steady_clock::now();
    naming_rows([&] { preconditioner->factorize(ordered); });
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

}  // namespace prism
