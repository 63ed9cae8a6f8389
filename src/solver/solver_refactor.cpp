// Solver::refactor and refactor_on_backend: new values for the pattern given to setup().
#include "solver/solver_impl.hpp"

namespace prism {

void Solver::refactor(const CsrMatrix<double>& a) {
  const backend::DeviceScope device_scope(*impl_->backend);
  Impl& s = *impl_;
  if (!s.device_matrix) throw Error("refactor() called before setup()");
  const auto same = [](const std::vector<index_t>& given, const common::HostArray<index_t>& kept) {
    return std::equal(given.begin(), given.end(), kept.begin(), kept.end());
  };
  if (a.rows != static_cast<index_t>(s.row_ptr.size()) - 1 || !same(a.row_ptr, s.row_ptr) ||
      !same(a.col_idx, s.col_idx)) {
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
    check_spd_candidate_values(a, s.pattern_mirror(), s.config.solver.symmetry_tolerance,
                               s.config.numbering);
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
  if (check && !s.mirror_map) {
    s.mirror_map = be.make_index_map(s.pattern_mirror());
    // With the factorization in the backend, refactor() comes here too: the backend's
    // copy serves every later check.
    if (s.preconditioner->backend_factorization() != nullptr) common::release(s.mirror);
  }
  if (replay) {
    s.refactor_recording->replay();
  } else {
    s.refactor_recording.reset();
    if (check) be.queue_value_check(values, *s.mirror_map, tolerance);
  }
  const auto reject_bad_values = [&] {
    if (!check || be.value_check_result() < 0) return;
    // The host check names the problem exactly as refactor() would.
    CsrMatrix<double> a{s.ordered.rows,
                        s.ordered.cols,
                        {s.row_ptr.begin(), s.row_ptr.end()},
                        {s.col_idx.begin(), s.col_idx.end()},
                        {}};
    be.copy_to_host(values, count, a.values);
    check_spd_candidate_values(a, s.pattern_mirror(), tolerance, s.config.numbering);
    throw InvalidMatrixError("refactor_on_backend: the values fail the symmetry check");
  };
  s.setup.check_seconds = seconds_since(t);

  // Every consumer gathers straight from `values` through its own composed map.
  const backend::SourceValues source{values, s.maps_on_backend ? nullptr : &s.value_source};
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
    s.rethrow_naming_rows();
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

void Solver::refactor(const CsrView32& a) {
  const CsrMatrix<double> full = to_csr_matrix(a);
  refactor(full);
}

void Solver::refactor(const CsrView64& a) {
  const CsrMatrix<double> full = to_csr_matrix(a);
  refactor(full);
}

}  // namespace prism
