#pragma once
/// @file
/// Writing a SolveReport: JSON (schema in docs/cli.md, "JSON report") and the CSV
/// residual history. Files are written to a temporary name and renamed.

#include <prism/report.hpp>

#include <string>

namespace prism {

/// A distributed solve's own figures (`mpirun -np P prism solve`; DistributedSolveReport in
/// prism/distributed.hpp), written as the report's "distributed" object when ranks > 0.
/// Times are each the slowest rank's, in seconds.
struct DistributedFigures {
  int ranks = 0;          ///< 0: not a distributed solve
  std::string backend;    ///< "cpu" or "cuda"
  std::string transport;  ///< "mpi", "mpi (host-staged)", "mpi (CUDA-aware)" or "nccl"
  std::string cg_variant;
  int reductions_per_iteration = 0;
  bool phases_timed = true;
  double communication_share = 0.0;  ///< (halo + reductions) / solve time, the largest rank's
  double spmv_interior = 0.0, halo = 0.0, spmv_boundary = 0.0, reductions = 0.0, precond = 0.0,
         vector_ops = 0.0;
  long long min_rows = 0, max_rows = 0, max_ghosts = 0;
  int max_neighbors = 0;
};

/// Context of a report that the solver itself does not know.
struct ReportContext {
  std::string problem_name;
  std::string problem_file;   ///< YAML path, may be empty
  std::string matrix_source;  ///< file path or generator description
  DistributedFigures distributed;
};

/// The report as a JSON document (UTF-8, two-space indented).
std::string report_to_json(const SolveReport& report, const ReportContext& context);

/// Writes report_to_json() to path. Throws IoError.
void write_report_json(const std::string& path, const SolveReport& report,
                       const ReportContext& context);

/// Writes "iteration,residual_norm,relative_residual," then "<phase>_s" for every
/// phase, and one row per recorded iteration (row 0: the initial residual).
/// Throws IoError.
void write_history_csv(const std::string& path, const SolveReport& report);

}  // namespace prism
