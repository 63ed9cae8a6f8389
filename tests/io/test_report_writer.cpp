#include <prism/errors.hpp>
#include <prism/report_io.hpp>

#include "io/json_writer.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {

prism::SolveReport sample_report() {
  prism::SolveReport r;
  r.backend = "cpu";
  r.preconditioner = "ic0";
  r.rows = 4;
  r.nnz = 10;
  r.tolerance = 1e-8;
  r.max_iterations = 100;
  r.status = prism::SolveStatus::converged;
  r.iterations = 2;
  r.rhs_norm = 2.0;
  r.relative_residual = 5e-9;
  r.true_relative_residual = 6e-9;
  r.solve_seconds = 0.5;
  r.phase_seconds = {0.1, 0.2, 0.05, 0.05};
  r.phase_bytes = {1e8, 2e8, 1e7, 1e7};
  r.factorization = {true, 0.004, 2};
  r.setup.memory = {1000, 2500, 4096, 7000000, 9000000};
  r.ordering.ordering = "color";
  r.ordering.colors = {2, 2, 2, 2.0, 2.0};
  r.history = {{0, 2.0, 1.0, {}},
               {1, 0.1, 0.05, {0.05, 0.1, 0.02, 0.03}},
               {2, 1e-8, 5e-9, {0.05, 0.1, 0.03, 0.02}}};
  return r;
}

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(JsonWriter, WritesNestedDocumentWithEscapesAndNullForNonFinite) {
  prism::io::JsonWriter w;
  w.begin_object();
  w.key("a\"b").value("line\nbreak");
  w.key("list").begin_array().value(1).value(0.5).value(std::nan("")).end_array();
  w.key("empty").begin_object().end_object();
  w.key("flag").value(true);
  w.end_object();
  const std::string& s = w.str();
  EXPECT_NE(s.find("\"a\\\"b\": \"line\\nbreak\""), std::string::npos) << s;
  EXPECT_NE(s.find("null"), std::string::npos) << s;
  EXPECT_NE(s.find("\"empty\": {}"), std::string::npos) << s;
  EXPECT_NE(s.find("0.5"), std::string::npos) << s;
  EXPECT_EQ(s.find("nan"), std::string::npos) << s;
}

TEST(JsonWriter, NumbersReadBackExactly) {
  prism::io::JsonWriter w;
  w.begin_array().value(0.1).value(1.0 / 3.0).value(1e-300).end_array();
  std::istringstream in(w.str().substr(1));
  double a, b, c;
  char comma;
  in >> a >> comma >> b >> comma >> c;
  EXPECT_EQ(a, 0.1);
  EXPECT_EQ(b, 1.0 / 3.0);
  EXPECT_EQ(c, 1e-300);
}

TEST(ReportWriter, JsonHoldsSummaryPhasesAndHistory) {
  prism::ReportContext ctx{"demo", "inputs/demo.yaml", "poisson2d 2x2"};
  prism::SolveReport report = sample_report();
  const std::string json = prism::report_to_json(report, ctx);
  for (const char* needle :
       {"\"schema\": \"prism.solve_report/1\"", "\"name\": \"demo\"", "\"status\": \"converged\"",
        "\"iterations\": 2", "\"shift\": 0.004", "\"retries\": 2",
        "\"true_relative_residual\": 6e-09", "\"name\": \"precond\"", "\"gb_per_s\": 1",
        "\"ordering\": \"color\"", "\"memory\": {", "\"input_bytes\": 1000", "\"host_bytes\": 2500",
        "\"device_bytes\": 4096", "\"resident_before_bytes\": 7000000",
        "\"resident_after_bytes\": 9000000"}) {
    EXPECT_NE(json.find(needle), std::string::npos) << needle << "\n" << json;
  }
  // No bandwidth given: no % of bound.
  EXPECT_EQ(json.find("percent_of_bound"), std::string::npos);
  report.reference_bandwidth = 1e9;
  EXPECT_NE(prism::report_to_json(report, ctx).find("percent_of_bound"), std::string::npos);
}

TEST(ReportWriter, HistoryCsvHasHeaderAndOneRowPerRecord) {
  const std::string path =
      (std::filesystem::temp_directory_path() / "prism_test_history.csv").string();
  prism::write_history_csv(path, sample_report());
  const std::string csv = slurp(path);
  std::filesystem::remove(path);
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line,
            "iteration,residual_norm,relative_residual,spmv_s,precond_s,lower_solve_s,"
            "upper_solve_s,dot_s,update_s");
  int rows = 0;
  while (std::getline(in, line)) ++rows;
  EXPECT_EQ(rows, 3);
}

TEST(ReportWriter, UnwritablePathThrowsIoErrorAndLeavesNoFile) {
  const std::string path = "/nonexistent-prism-dir/report.json";
  EXPECT_THROW(prism::write_report_json(path, sample_report(), {}), prism::IoError);
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
