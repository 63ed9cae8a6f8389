#pragma once
/// @file
/// Writing a SolveReport: JSON (schema in docs/cli.md, "JSON report") and the CSV
/// residual history. Files are written to a temporary name and renamed.

#include <prism/report.hpp>

#include <string>

namespace prism {

/// Context of a report that the solver itself does not know.
struct ReportContext {
  std::string problem_name;
  std::string problem_file;   ///< YAML path, may be empty
  std::string matrix_source;  ///< file path or generator description
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
