#include <prism/solver.hpp>

#include "solver/solver_impl.hpp"

#include "analysis/level_sets.hpp"

#include <future>

namespace prism {

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
  const auto start = std::chrono::steady_clock::now();
  const backend::DeviceScope device_scope(*impl_->backend);
  Impl& s = *impl_;
  s.triangle_entries = 0;
  const std::size_t resident_before = common::resident_set_bytes();
  const bool automatic = s.config.backend == BackendKind::automatic;
  const common::StepRecording recording(s.setup.steps);
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
  s.setup.total_seconds = seconds_since(start);
}

std::size_t Solver::Impl::host_bytes() const {
  using common::bytes_of;
  const auto of = [](const auto& object) { return object ? object->host_bytes() : 0; };
  return bytes_of(row_ptr) + bytes_of(col_idx) + bytes_of(mirror) + bytes_of(permutation) +
         bytes_of(value_source) + bytes_of(ordered) + of(device_matrix) + of(preconditioner) +
         of(mirror_map) + of(order_map) + of(unorder_map) + of(apply_r) + of(apply_z);
}

void Solver::Impl::order_blocks(const CsrMatrix<double>& a, backend::SetupSession* device,
                                const std::vector<index_t>& grouping, BlockPartition& blocks) {
  const PreconditionerOptions& popt = config.preconditioner;
  const VertexOrder order = popt.coloring.vertex_order;
  BlockColoring coloring;
  if (device == nullptr || !device->color_blocks(grouping, blocks, order, coloring)) {
    coloring = color_blocks(grouping.empty() ? a : permute_symmetric(a, grouping), blocks, order);
    for (index_t& row : coloring.permutation) row = grouping.empty() ? row : grouping[row];
  }
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
  // The checks, the parallel coloring and the permutation run in the backend's memory
  // where it can.
  std::unique_ptr<backend::SetupSession> device = s.backend->begin_setup(a, s.resident_input);
  // The caller's pattern, kept for refactor()'s comparison and the mirror map: with a
  // device session, copied on a thread of its own while the host waits for the device's
  // steps (taken at the end; an exception on the way waits for it in the future's end),
  // in parts on the host threads, which fault in the fresh pages together.
  const auto copy_pattern = [&] {
    const auto copy = [](const std::vector<index_t>& from, common::HostArray<index_t>& to) {
      to.resize(from.size());
      common::parallel_for(from.size(), kEntriesPerPart, [&](std::size_t first, std::size_t last) {
        std::copy(from.begin() + first, from.begin() + last, to.begin() + first);
      });
    };
    copy(a.row_ptr, s.row_ptr);
    copy(a.col_idx, s.col_idx);
  };
  std::future<void> pattern_copy;
  s.row_ptr.clear();
  s.col_idx.clear();
  if (device != nullptr) {
    pattern_copy = std::async(std::launch::async, copy_pattern);
  }
  s.check_matrix(a, device.get());
  if (device == nullptr) copy_pattern();
  s.setup.check_seconds = seconds_since(t);

  const PreconditionerOptions& popt = s.config.preconditioner;
  s.permuted = popt.ordering == Ordering::color;
  s.ordering.ordering = std::string(to_string(popt.ordering));
  t = std::chrono::steady_clock::now();    // choosing the type counts as ordering work
  PreconditionerOptions requested = popt;  // auto reads the ordering as the caller gave it
  requested.ordering = s.requested_ordering;
  solver::TypeChoice choice = solver::resolve_type(requested, a, device.get());
  s.type = choice.type;
  const bool blocked = precond::Registry::instance().uses_blocks(s.type);
  const bool lined = precond::Registry::instance().uses_lines(s.type);
  BlockPartition blocks;
  std::vector<index_t> independent_rows;  // the colors of a row coloring, in the new order
  std::string lines_found;                // the plan line of a line preconditioner
  std::vector<index_t> line_colors;       // lines by color (Partition::colored_lines)
  if (lined) {
    solver::LineOrder order = choice.lines ? solver::order_lines(*choice.lines)
                                           : solver::order_by_lines(a, popt.lines, device.get());
    s.ordering.method = "lines";
    if (precond::Registry::instance().partition(s.type) == precond::Partition::colored_lines) {
      solver::color_lines(a, order, popt.coloring.vertex_order, device.get());
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
    blocks = choice.blocks ? std::move(*choice.blocks)
                           : solver::node_blocks(a, popt.block_ic, device.get());
    std::vector<index_t> grouping;  // rows: each supernode made consecutive
    if (popt.block_ic.supernode > 0) {
      Aggregation supernodes = aggregate_blocks(a, blocks, popt.block_ic.supernode);
      grouping = std::move(supernodes.permutation);
      blocks = std::move(supernodes.blocks);
    }
    if (s.permuted) {
      s.order_blocks(a, device.get(), grouping, blocks);
    } else if (!grouping.empty()) {
      s.permuted = true;
      s.permutation = std::move(grouping);
    }
    s.setup.coloring_seconds = seconds_since(t);
  } else if (s.permuted) {
    ColoringMethod method = popt.coloring.method;
    Coloring coloring = s.color_rows(a, device.get(), method);
    if (popt.coloring.balance) balance_coloring(a, coloring);
    s.setup.coloring_seconds = seconds_since(t);
    s.permutation = std::move(coloring.permutation);
    s.ordering.method = std::string(to_string(method));
    s.ordering.vertex_order = std::string(to_string(popt.coloring.vertex_order));
    s.ordering.balanced = popt.coloring.balance;
    s.ordering.colors = set_stats(coloring.color_ptr);
    independent_rows = std::move(coloring.color_ptr);
  }
  if (!s.permuted) s.permutation.clear();

  // Keep where each entry of the ordered matrix comes from, so refactor() maps new
  // values with a gather instead of permuting again. The backend's session permutes the
  // matrix it holds where it can.
  t = std::chrono::steady_clock::now();
  std::unique_ptr<backend::OrderedMatrix> kept;  // P A P^T in the backend's memory
  if (s.permuted && device != nullptr && s.builds_on_backend(s.type)) {
    const common::StepTimer step("permutation: pattern and values, kept on the device", true);
    kept = device->permute_kept(s.permutation);
  }
  s.maps_on_backend = kept != nullptr;
  if (kept) {
    common::release(s.value_source);  // the consumers' maps are made on the device
    s.ordered = CsrMatrix<double>{};  // sizes only: the pattern and values stay there
    s.ordered.rows = s.ordered.cols = a.rows;
  } else if (s.permuted) {
    common::StepTimer device_step("permutation: pattern and values", true);
    if (device == nullptr || !device->permute(s.permutation, s.ordered, s.value_source)) {
      device_step.cancel();
      const common::StepTimer step("permutation: pattern and values");
      s.ordered = permute_symmetric(a, s.permutation, &s.value_source);
    }
  } else {
    s.ordered = a;
    s.value_source.resize(a.values.size());
    std::iota(s.value_source.begin(), s.value_source.end(), 0);
  }
  device.reset();  // its device memory goes before the set-up's next allocations
  s.setup.permutation_seconds = seconds_since(t);

  t = std::chrono::steady_clock::now();
  SolverConfig resolved = s.config;
  resolved.preconditioner.type = s.type;
  std::vector<std::string> reasons = s.ordering_reasons;
  if (lined && !choice.reason.empty()) {  // auto chose lines: resolve_plan says their ordering
    reasons.clear();
    resolved.preconditioner.ordering = Ordering::automatic;
  }
  if (!choice.reason.empty()) reasons.insert(reasons.begin(), choice.reason);
  common::StepTimer plan_step("analysis: plan");
  s.plan = solver::resolve_plan(resolved, *s.backend, s.ordered, std::move(reasons), kept.get());
  s.preconditioner =
      precond::Registry::instance().create(s.type, *s.backend, s.plan.preconditioner);
  s.preconditioner->set_callback(s.user_apply);
  plan_step.stop();
  {
    const common::StepTimer step("analysis: level sets (report)", kept != nullptr);
    s.ordering.levels = set_stats(kept ? s.backend->level_ptr_on_backend(*kept, independent_rows)
                                       : analysis::level_ptr(s.ordered, independent_rows));
  }
  if (blocked) {
    const double inside = kept ? s.backend->block_weight_on_backend(*kept, blocks)
                               : diagonal_block_weight(s.ordered, blocks);
    s.plan.reasons.push_back(solver::describe_blocks(inside, blocks, popt.block_ic));
    s.preconditioner->set_blocks(blocks);
  }
  if (lined) {
    s.plan.reasons.push_back(lines_found);
    s.preconditioner->set_blocks(blocks);
    if (!line_colors.empty()) s.preconditioner->set_block_colors(line_colors);
  }
  if (kept) {
    s.naming_rows([&] {
      if (!s.preconditioner->analyze_on_backend(*kept)) {
        throw Error("setup: preconditioner " + s.type + " cannot use the matrix kept on the " +
                    s.backend->name() + " backend");
      }
    });
  } else {
    s.naming_rows([&] { s.preconditioner->analyze(s.ordered); });
  }
  if (pattern_copy.valid()) {
    const common::StepTimer step(
        "analysis: wait for the copy of the caller's pattern (own thread)");
    pattern_copy.get();
  }
  s.setup.analysis_seconds = seconds_since(t);

  if (kept) {
    s.factorize_and_upload(*kept);
  } else {
    s.factorize_and_upload(a, true);  // the permutation wrote the values in order
  }

  s.ready = true;
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
  impl_->queue_preconditioner("apply_preconditioner_on_backend", r, z, count);
  impl_->backend->synchronize();
}

void Solver::queue_preconditioner_on_backend(const double* r, double* z, std::size_t count) {
  const backend::DeviceScope device_scope(*impl_->backend);
  impl_->queue_preconditioner("queue_preconditioner_on_backend", r, z, count);
}

void Solver::Impl::queue_preconditioner(const char* call, const double* r, double* z,
                                        std::size_t count) {
  Impl& s = *this;
  s.require_ready(call);
  s.check_backend_vectors(call, r, "r", z, "z", count);
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

void Solver::setup(const CsrView32& a) {
  const CsrMatrix<double> full = to_csr_matrix(a);
  setup(full);
  impl_->triangle_entries = a.storage == Storage::full ? 0 : static_cast<std::size_t>(a.nnz());
}

void Solver::setup_on_backend(const CsrView32& a) {
  const backend::DeviceScope device_scope(*impl_->backend);
  Impl& s = *impl_;
  backend::Backend& be = *s.backend;
  if (a.storage != Storage::full) {
    throw ConfigError(
        "setup_on_backend: the view holds one triangle; it takes the full matrix (or pass the "
        "triangle to setup(view), which mirrors it on the host)");
  }
  if (a.rows < 0 || a.cols != a.rows) {
    throw InvalidMatrixError("setup_on_backend: the matrix is " + std::to_string(a.rows) + " x " +
                             std::to_string(a.cols) + ", not square");
  }
  const auto check = [&](const void* p, const char* name) {
    if (p == nullptr || !be.reads(p)) {
      throw InvalidMatrixError(
          std::string("setup_on_backend: ") + name + " is not in memory the " + be.name() +
          " backend reads (for cuda: device memory of the solver's device, or managed memory)");
    }
  };
  check(a.row_ptr, "row_ptr");
  // The host's copy, which its own steps read; the session copies from the caller's arrays.
  const auto start = std::chrono::steady_clock::now();
  CsrMatrix<double> host;
  host.rows = host.cols = a.rows;
  host.row_ptr.resize(static_cast<std::size_t>(a.rows) + 1);
  be.download(a.row_ptr, host.row_ptr.data(), host.row_ptr.size() * sizeof(index_t));
  const index_t nnz = host.row_ptr.back();
  if (host.row_ptr.front() != 0 || nnz < 0) {
    throw InvalidMatrixError("setup_on_backend: row_ptr[0] is " +
                             std::to_string(host.row_ptr.front()) + " and row_ptr[rows] is " +
                             std::to_string(nnz) + "; they must be 0 and the entries (>= 0)");
  }
  if (nnz > 0) {
    check(a.col_idx, "col_idx");
    check(a.values, "values");
  }
  host.col_idx.resize(static_cast<std::size_t>(nnz));
  host.values.resize(static_cast<std::size_t>(nnz));
  be.download(a.col_idx, host.col_idx.data(), host.col_idx.size() * sizeof(index_t));
  be.download(a.values, host.values.data(), host.values.size() * sizeof(double));
  const double downloaded = seconds_since(start);
  s.resident_input = &a;
  try {
    setup(host);
  } catch (...) {
    s.resident_input = nullptr;
    throw;
  }
  s.resident_input = nullptr;
  s.setup.steps.insert(s.setup.steps.begin(),
                       SetupStep{"check: the matrix copied to the host", downloaded, true});
  s.setup.check_seconds += downloaded;
  s.setup.total_seconds += downloaded;
}

void Solver::setup(const CsrView64& a) {
  const CsrMatrix<double> full = to_csr_matrix(a);
  setup(full);
  impl_->triangle_entries = a.storage == Storage::full ? 0 : static_cast<std::size_t>(a.nnz());
}

}  // namespace prism
