#include <prism/report_io.hpp>

#include <prism/errors.hpp>

#include "io/atomic_file.hpp"
#include "io/json_writer.hpp"

#include <cstdio>
#include <ostream>

namespace prism {
namespace {

void write_set_stats(io::JsonWriter& w, const SetStats& s) {
  w.begin_object();
  w.key("count").value(s.count);
  w.key("min_size").value(static_cast<long long>(s.min_size));
  w.key("mean_size").value(s.mean_size);
  w.key("max_size").value(static_cast<long long>(s.max_size));
  w.key("phi").value(s.phi);
  w.end_object();
}

void write_distributed(io::JsonWriter& w, const DistributedFigures& d) {
  w.begin_object();
  w.key("ranks").value(d.ranks);
  w.key("backend").value(d.backend);
  w.key("transport").value(d.transport);
  w.key("cg_variant").value(d.cg_variant);
  w.key("reductions_per_iteration").value(d.reductions_per_iteration);
  w.key("phases_timed").value(d.phases_timed);
  w.key("communication_share").value(d.communication_share);
  w.key("slowest_rank_seconds").begin_object();
  w.key("spmv_interior").value(d.spmv_interior);
  w.key("halo").value(d.halo);
  w.key("spmv_boundary").value(d.spmv_boundary);
  w.key("reductions").value(d.reductions);
  w.key("precond").value(d.precond);
  w.key("vector_ops").value(d.vector_ops);
  w.end_object();
  w.key("min_rows").value(d.min_rows);
  w.key("max_rows").value(d.max_rows);
  w.key("max_ghosts").value(d.max_ghosts);
  w.key("max_neighbors").value(d.max_neighbors);
  w.end_object();
}

void write_phase_seconds(io::JsonWriter& w, const PhaseArray& seconds) {
  w.begin_object();
  for (int p = 0; p < kNumPhases; ++p) w.key(phase_name(static_cast<Phase>(p))).value(seconds[p]);
  w.end_object();
}

}  // namespace

std::string report_to_json(const SolveReport& r, const ReportContext& context) {
  io::JsonWriter w;
  w.begin_object();
  w.key("schema").value("prism.solve_report/1");

  w.key("problem").begin_object();
  w.key("name").value(context.problem_name);
  w.key("file").value(context.problem_file);
  w.key("matrix_source").value(context.matrix_source);
  w.end_object();

  w.key("matrix").begin_object();
  w.key("rows").value(static_cast<long long>(r.rows));
  w.key("nnz").value(static_cast<long long>(r.nnz));
  w.end_object();

  w.key("solver").begin_object();
  w.key("backend").value(r.backend);
  w.key("device").value(r.device);
  w.key("preconditioner").value(r.preconditioner);
  w.key("trisolve").value(r.trisolve);
  w.key("trisolve_layout").value(r.trisolve_layout);
  w.key("spmv").value(r.spmv);
  w.key("precision").value(r.precision);
  w.key("tolerance").value(r.tolerance);
  w.key("absolute_tolerance").value(r.absolute_tolerance);
  w.key("max_iterations").value(r.max_iterations);
  w.key("plan").begin_array();
  for (const std::string& choice : r.plan) w.value(choice);
  w.end_array();
  w.end_object();

  w.key("ordering").begin_object();
  w.key("ordering").value(r.ordering.ordering);
  w.key("coloring_method").value(r.ordering.method);
  w.key("vertex_order").value(r.ordering.vertex_order);
  w.key("balanced").value(r.ordering.balanced);
  w.key("colors");
  write_set_stats(w, r.ordering.colors);
  w.key("levels");
  write_set_stats(w, r.ordering.levels);
  w.end_object();

  w.key("setup").begin_object();
  w.key("check_seconds").value(r.setup.check_seconds);
  w.key("coloring_seconds").value(r.setup.coloring_seconds);
  w.key("permutation_seconds").value(r.setup.permutation_seconds);
  w.key("analysis_seconds").value(r.setup.analysis_seconds);
  w.key("factorization_seconds").value(r.setup.factorization_seconds);
  w.key("upload_seconds").value(r.setup.upload_seconds);
  w.key("total_seconds").value(r.setup.total_seconds);
  w.key("steps").begin_array();
  for (const SetupStep& step : r.setup.steps) {
    w.begin_object();
    w.key("name").value(step.name);
    w.key("seconds").value(step.seconds);
    w.key("device").value(step.device);
    w.end_object();
  }
  w.end_array();
  const MemoryReport& m = r.setup.memory;
  const auto bytes = [](std::size_t n) { return static_cast<long long>(n); };
  w.key("memory").begin_object();
  w.key("input_bytes").value(bytes(m.input_bytes));
  w.key("host_bytes").value(bytes(m.host_bytes));
  w.key("device_bytes").value(bytes(m.device_bytes));
  w.key("resident_before_bytes").value(bytes(m.resident_before_bytes));
  w.key("resident_after_bytes").value(bytes(m.resident_after_bytes));
  w.end_object();
  w.key("factorization").begin_object();
  w.key("performed").value(r.factorization.performed);
  w.key("shift").value(r.factorization.shift);
  w.key("retries").value(r.factorization.retries);
  w.end_object();
  w.end_object();

  double total_phase_seconds = 0.0, total_bytes = 0.0;
  for (int p = 0; p < kNumPhases; ++p) {
    total_phase_seconds += r.phase_seconds[p];
    total_bytes += r.phase_bytes[p];
  }
  w.key("summary").begin_object();
  w.key("status").value(status_name(r.status));
  w.key("converged").value(r.converged());
  w.key("iterations").value(r.iterations);
  w.key("rhs_norm").value(r.rhs_norm);
  w.key("initial_residual_norm").value(r.initial_residual_norm);
  w.key("relative_residual").value(r.relative_residual);
  w.key("true_relative_residual").value(r.true_relative_residual);
  w.key("residual_replacements").value(r.residual_replacements);
  w.key("diagnosis").value(r.diagnosis);
  w.key("solve_seconds").value(r.solve_seconds);
  w.key("seconds_per_iteration").value(r.iterations > 0 ? r.solve_seconds / r.iterations : 0.0);
  w.key("bytes_moved").value(total_bytes);
  w.key("check_every").value(r.check_every);
  w.key("graph").value(r.graph);
  w.key("device_loop").value(r.device_loop);
  if (r.reference_bandwidth > 0.0) {
    const double bound = total_bytes / r.reference_bandwidth;
    w.key("reference_bandwidth_bytes_per_second").value(r.reference_bandwidth);
    w.key("bandwidth_bound_seconds").value(bound);
    w.key("percent_of_bound")
        .value(total_phase_seconds > 0.0 ? 100.0 * bound / total_phase_seconds : 0.0);
  }
  w.end_object();

  if (context.distributed.ranks > 0) {
    w.key("distributed");
    write_distributed(w, context.distributed);
  }

  w.key("phases").begin_array();
  for (int p = 0; p < kNumPhases; ++p) {
    w.begin_object();
    w.key("name").value(phase_name(static_cast<Phase>(p)));
    w.key("seconds").value(r.phase_seconds[p]);
    w.key("percent").value(
        total_phase_seconds > 0.0 ? 100.0 * r.phase_seconds[p] / total_phase_seconds : 0.0);
    w.key("bytes").value(r.phase_bytes[p]);
    w.key("gb_per_s")
        .value(r.phase_seconds[p] > 0.0 ? r.phase_bytes[p] / r.phase_seconds[p] / 1e9 : 0.0);
    w.end_object();
  }
  w.end_array();

  w.key("iterations").begin_array();
  for (const IterationRecord& rec : r.history) {
    w.begin_object();
    w.key("iteration").value(rec.iteration);
    w.key("residual_norm").value(rec.residual_norm);
    w.key("relative_residual").value(rec.relative_residual);
    w.key("seconds");
    write_phase_seconds(w, rec.seconds);
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.str();
}

void write_report_json(const std::string& path, const SolveReport& report,
                       const ReportContext& context) {
  const std::string json = report_to_json(report, context);
  io::write_file_atomically(path, [&](std::ostream& out) { out << json; });
}

void write_history_csv(const std::string& path, const SolveReport& report) {
  io::write_file_atomically(path, [&](std::ostream& out) {
    out << "iteration,residual_norm,relative_residual";
    for (int p = 0; p < kNumPhases; ++p) out << ',' << phase_name(static_cast<Phase>(p)) << "_s";
    out << '\n';
    char field[64];
    for (const IterationRecord& rec : report.history) {
      std::snprintf(field, sizeof field, "%d,%.17g,%.17g", rec.iteration, rec.residual_norm,
                    rec.relative_residual);
      out << field;
      for (double t : rec.seconds) {
        std::snprintf(field, sizeof field, ",%.9g", t);
        out << field;
      }
      out << '\n';
    }
  });
}

}  // namespace prism
