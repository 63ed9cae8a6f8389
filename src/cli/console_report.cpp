#include "cli/console_report.hpp"

#include <spdlog/fmt/fmt.h>
#include <spdlog/spdlog.h>

namespace prism::cli {

std::string format_seconds(double s) {
  if (s < 1e-3) return fmt::format("{:.1f} us", s * 1e6);
  if (s < 1.0) return fmt::format("{:.3f} ms", s * 1e3);
  return fmt::format("{:.3f} s", s);
}

namespace {

std::string format_megabytes(std::size_t bytes) {
  return fmt::format("{:.1f} MB", static_cast<double>(bytes) / 1e6);
}

/// "memory         host 25.3 MB kept (1.21x the matrix's 20.9 MB), device 0.0 MB,
/// resident set +48.0 MB".
void print_memory(const MemoryReport& m) {
  const double ratio = m.input_bytes > 0 ? static_cast<double>(m.host_bytes) / m.input_bytes : 0.0;
  std::string line = fmt::format("memory         host {} kept ({:.2f}x the matrix's {}), device {}",
                                 format_megabytes(m.host_bytes), ratio,
                                 format_megabytes(m.input_bytes), format_megabytes(m.device_bytes));
  if (m.resident_after_bytes > 0) {
    const double delta =
        static_cast<double>(m.resident_after_bytes) - static_cast<double>(m.resident_before_bytes);
    line += fmt::format(", resident set {:+.1f} MB", delta / 1e6);
  }
  spdlog::info("{}", line);
}

}  // namespace

bool phases_timed(const SolveReport& r) {
  for (double t : r.phase_seconds) {
    if (t > 0.0) return true;
  }
  return false;
}

void print_iteration_table(const SolveReport& r, int every) {
  if (every <= 0 || r.history.empty()) return;
  // Only the phases this solve used get a column, and none when no phase was timed
  // (timing: total), where every column would read zero.
  const bool timed = phases_timed(r);
  std::vector<int> shown;
  for (int p = 0; p < kNumPhases; ++p) {
    if (timed && r.phase_bytes[p] > 0.0) shown.push_back(p);
  }
  std::string header = fmt::format("{:>6}  {:>12}  {:>12}", "iter", "residual", "relative");
  for (int p : shown) header += fmt::format("  {:>12}", std::string(phase_name(Phase(p))) + " ms");
  spdlog::info("{}", header);
  const int last = r.history.back().iteration;
  for (const IterationRecord& rec : r.history) {
    if (rec.iteration % every != 0 && rec.iteration != last) continue;
    std::string line = fmt::format("{:>6}  {:>12.4e}  {:>12.4e}", rec.iteration, rec.residual_norm,
                                   rec.relative_residual);
    for (int p : shown) line += fmt::format("  {:>12.4f}", rec.seconds[p] * 1e3);
    spdlog::info("{}", line);
  }
}

void print_summary(const SolveReport& r, const std::string& problem_name) {
  spdlog::info("");
  spdlog::info("problem        {}: {} rows, {} nonzeros", problem_name, r.rows, r.nnz);
  std::string details;
  if (!r.trisolve.empty()) {
    details += "trisolve " + r.trisolve;
    if (r.trisolve == "colorset") details += " " + r.trisolve_layout;
  }
  if (!r.spmv.empty()) details += std::string(details.empty() ? "" : ", ") + "spmv " + r.spmv;
  if (r.precision == "mixed") details += ", precision mixed";
  if (r.graph) {
    details += std::string(details.empty() ? "" : ", ") +
               (r.device_loop ? "CUDA graph loop" : "CUDA graph");
  }
  spdlog::info("solver         backend {} ({}), preconditioner {}{}, tolerance {:.1e}", r.backend,
               r.device, r.preconditioner, details.empty() ? "" : " (" + details + ")",
               r.tolerance);
  const OrderingReport& o = r.ordering;
  if (o.colors.count > 0) {
    spdlog::info(
        "ordering       {} ({}): {} colors, size min/mean/max {}/{:.0f}/{},"
        " phi {:.0f}",
        o.ordering == "lines" ? "lines, colored" : "color",
        o.method == "level_cyclic" || o.method == "jones_plassmann"
            ? o.method + (o.balanced ? ", balanced" : "")
            : (o.method == "parallel_greedy" ? "parallel greedy, " : "") + o.vertex_order +
                  " vertex order" + (o.balanced ? ", balanced" : ""),
        o.colors.count, o.colors.min_size, o.colors.mean_size, o.colors.max_size, o.colors.phi);
  } else {
    spdlog::info("ordering       {}", o.ordering);
  }
  spdlog::info("levels         {} level sets of the lower triangle, phi {:.0f}", o.levels.count,
               o.levels.phi);
  const SetupReport& s = r.setup;
  spdlog::info(
      "setup          {}: check {}, coloring {}, permutation {}, analysis {}, "
      "factorization {}, upload {}",
      format_seconds(s.total_seconds), format_seconds(s.check_seconds),
      format_seconds(s.coloring_seconds), format_seconds(s.permutation_seconds),
      format_seconds(s.analysis_seconds), format_seconds(s.factorization_seconds),
      format_seconds(s.upload_seconds));
  print_memory(s.memory);
  if (r.factorization.performed) {
    spdlog::info("factorization  diagonal shift {:.3g} after {} retr{}", r.factorization.shift,
                 r.factorization.retries, r.factorization.retries == 1 ? "y" : "ies");
    if (r.factorization.retries > 0) {
      spdlog::warn("warning        IC(0) broke down without a shift; solved with shift {:.3g}",
                   r.factorization.shift);
    }
  }
  spdlog::info("status         {} after {} iterations", status_name(r.status), r.iterations);
  if (r.residual_replacements > 0) {
    spdlog::info("restarts       {} from the true residual (the recursive one had drifted)",
                 r.residual_replacements);
  }
  spdlog::info("residual       relative {:.3e}, true relative ||b - A x|| / ||b|| {:.3e}",
               r.relative_residual, r.true_relative_residual);
  spdlog::info("time           solve {}, {} per iteration", format_seconds(r.solve_seconds),
               format_seconds(r.iterations > 0 ? r.solve_seconds / r.iterations : 0.0));

  double total = 0.0;
  for (double t : r.phase_seconds) total += t;
  spdlog::info("");
  if (r.iterations == 0) return;  // converged at the start: nothing to break down
  if (!phases_timed(r)) {
    // timing: total times only the whole loop; a table would be all zeros.
    spdlog::info("phases         not timed (timing: total); whole solve {} per iteration",
                 format_seconds(r.solve_seconds / r.iterations));
    return;
  }
  const double bw = r.reference_bandwidth;
  spdlog::info("{:<12} {:>12} {:>8} {:>12} {:>10} {:>10}", "phase", "time", "share", "per iter",
               "GB/s", bw > 0.0 ? "% of bound" : "");
  double bytes = 0.0;
  for (int p = 0; p < kNumPhases; ++p) {
    const double t = r.phase_seconds[p];
    bytes += r.phase_bytes[p];
    // A phase with no modeled bytes (a distributed solve's, whose traffic has no model)
    // shows its time alone.
    if (r.phase_bytes[p] == 0.0 && t == 0.0) continue;
    const double gbs = t > 0.0 ? r.phase_bytes[p] / t / 1e9 : 0.0;
    const bool modeled = r.phase_bytes[p] > 0.0;
    spdlog::info("{:<12} {:>12} {:>7.1f}% {:>12} {:>10} {:>10}", phase_name(static_cast<Phase>(p)),
                 format_seconds(t), 100.0 * t / total,
                 format_seconds(r.iterations > 0 ? t / r.iterations : 0.0),
                 modeled ? fmt::format("{:.2f}", gbs) : "",
                 bw > 0.0 && modeled ? fmt::format("{:.1f}%", 100.0 * gbs * 1e9 / bw) : "");
  }
  const double gbs = bytes / total / 1e9;
  spdlog::info("{:<12} {:>12} {:>7.1f}% {:>12} {:>10} {:>10}", "total", format_seconds(total),
               100.0, format_seconds(r.iterations > 0 ? total / r.iterations : 0.0),
               bytes > 0.0 ? fmt::format("{:.2f}", gbs) : "",
               bw > 0.0 ? fmt::format("{:.1f}%", 100.0 * gbs * 1e9 / bw) : "");
  if (bw > 0.0) {
    spdlog::info(
        "bandwidth      device-to-device copy {:.0f} GB/s measured; the bytes moved "
        "need {} at that rate",
        bw / 1e9, format_seconds(bytes / bw));
  }
}

}  // namespace prism::cli
