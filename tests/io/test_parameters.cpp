// The parameter table against the YAML reader and validate(): every row's example value is
// read and lands in the spec (a row the reader ignores fails), the reader allows exactly the
// table's keys in every section, absent keys give the documented defaults, and each rule of
// validate() holds at its boundary and fails just past it, in the library and the reader.

#include "io/parameters.hpp"
#include "solver/validate.hpp"

#include <prism/errors.hpp>
#include <prism/problem.hpp>

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;
using prism::Parameter;
using prism::ParameterType;

/// A problem file built key by key: dotted keys become nested block maps, values are YAML
/// text written as given.
class YamlTree {
 public:
  void set(const std::string& dotted, const std::string& value) { node(dotted).value = value; }
  bool has(const std::string& dotted) const { return find(dotted) != nullptr; }
  std::string get(const std::string& dotted) const {
    const Node* n = find(dotted);
    return n == nullptr ? "" : n->value;
  }
  void erase(const std::string& dotted) {
    const std::size_t dot = dotted.rfind('.');
    Node& parent = dot == std::string::npos ? root_ : node(dotted.substr(0, dot));
    const std::string name = dot == std::string::npos ? dotted : dotted.substr(dot + 1);
    for (auto it = parent.children.begin(); it != parent.children.end(); ++it) {
      if (it->first == name) {
        parent.children.erase(it);
        return;
      }
    }
  }
  std::string text() const { return emit(root_, 0); }

 private:
  struct Node {
    std::string value;
    std::vector<std::pair<std::string, Node>> children;
  };

  Node& node(const std::string& dotted) {
    Node* n = &root_;
    std::size_t start = 0;
    while (true) {
      const std::size_t dot = dotted.find('.', start);
      const std::string name = dotted.substr(start, dot - start);
      Node* next = nullptr;
      for (auto& [k, child] : n->children) {
        if (k == name) next = &child;
      }
      if (next == nullptr) {
        n->children.emplace_back(name, Node{});
        next = &n->children.back().second;
      }
      n = next;
      if (dot == std::string::npos) return *n;
      start = dot + 1;
    }
  }
  const Node* find(const std::string& dotted) const {
    const Node* n = &root_;
    std::size_t start = 0;
    while (true) {
      const std::size_t dot = dotted.find('.', start);
      const std::string name = dotted.substr(start, dot - start);
      const Node* next = nullptr;
      for (const auto& [k, child] : n->children) {
        if (k == name) next = &child;
      }
      if (next == nullptr) return nullptr;
      n = next;
      if (dot == std::string::npos) return n;
      start = dot + 1;
    }
  }
  static std::string emit(const Node& n, int indent) {
    std::string out;
    for (const auto& [k, child] : n.children) {
      out += std::string(indent, ' ') + k + ":";
      if (!child.children.empty()) {
        out += "\n" + emit(child, indent + 2);
      } else {
        out += child.value.empty() ? "\n" : " " + child.value + "\n";
      }
    }
    return out;
  }

  Node root_;
};

std::string parent_of(const std::string& key) {
  const std::size_t dot = key.rfind('.');
  return dot == std::string::npos ? "" : key.substr(0, dot);
}

std::string sibling(const std::string& key, const std::string& name) {
  const std::string parent = parent_of(key);
  return parent.empty() ? name : parent + "." + name;
}

bool contains(const std::vector<std::string>& list, const std::string& s) {
  for (const auto& item : list) {
    if (item == s) return true;
  }
  return false;
}

/// The smallest problem file that sets `p` to its example: a generated matrix, the
/// conditions under which p (and each section holding it) applies, and the keys required
/// alongside.
YamlTree minimal_file_setting(const Parameter& p) {
  YamlTree file;
  if (p.key != "matrix" && p.key.rfind("matrix.", 0) != 0) {
    file.set("matrix", "{generator: poisson2d, nx: 3, ny: 2}");
  }
  for (std::string level = p.key; !level.empty(); level = parent_of(level)) {
    const Parameter& row = prism::parameter(level);
    if (!row.applies.key.empty() && !row.applies.values[0].empty()) {
      const std::string condition = sibling(level, row.applies.key);
      if (condition != p.key && !file.has(condition)) file.set(condition, row.applies.values[0]);
    }
    for (const Parameter* q : prism::parameters_in(parent_of(level))) {
      if (!q->required || q->key == p.key || file.has(q->key)) continue;
      if (!q->applies.key.empty()) {
        const std::string condition = sibling(q->key, q->applies.key);
        const std::string value = condition == p.key ? p.example : file.get(condition);
        if (!contains(q->applies.values, value)) continue;
      }
      file.set(q->key, q->example);
    }
  }
  file.set(p.key, p.example);
  return file;
}

/// A problem file of this process's own (ctest runs the tests in parallel processes),
/// removed with its folder at the end of the test.
class ScratchFile {
 public:
  ScratchFile()
      : dir_(fs::temp_directory_path() / ("prism_parameters_" + std::to_string(getpid()))) {
    fs::create_directories(dir_);
    path_ = (dir_ / "problem.yaml").string();
  }
  ~ScratchFile() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  fs::path dir_;
  std::string path_;
};

prism::ProblemSpec load(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return prism::load_problem_file(path);
}

/// Every value the table can see in a spec, for sections (which have none of their own).
std::string everything(const prism::ProblemSpec& spec) {
  std::string out;
  for (const Parameter& p : prism::parameters()) {
    if (p.value) out += p.key + "=" + p.value(spec) + "\n";
  }
  return out;
}

TEST(ParameterTable, RowsAreWellFormed) {
  const auto& table = prism::parameters();
  ASSERT_GE(table.size(), 40u);
  for (std::size_t i = 0; i < table.size(); ++i) {
    const Parameter& p = table[i];
    SCOPED_TRACE(p.key);
    EXPECT_FALSE(p.doc.empty());
    EXPECT_FALSE(p.example.empty());
    EXPECT_EQ(prism::find_parameter(p.key), &p) << "declared twice";
    if (p.type != ParameterType::section || !p.values.empty()) {
      EXPECT_TRUE(static_cast<bool>(p.value)) << "a key with a value needs a getter";
    }
    if (p.type == ParameterType::choice) EXPECT_FALSE(p.values.empty());
    // A key's section is declared before it.
    if (!p.parent().empty()) {
      const Parameter* section = prism::find_parameter(p.parent());
      ASSERT_NE(section, nullptr);
      EXPECT_EQ(section->type, ParameterType::section);
      EXPECT_LT(section, &p);
    }
    // A condition names a sibling choice and some of its values ("": the sibling absent).
    if (!p.applies.key.empty()) {
      const Parameter* condition = prism::find_parameter(sibling(p.key, p.applies.key));
      ASSERT_NE(condition, nullptr) << p.applies.key;
      ASSERT_FALSE(p.applies.values.empty());
      for (const auto& v : p.applies.values) {
        EXPECT_TRUE(v.empty() || contains(condition->values, v)) << v;
      }
    }
  }
}

TEST(ParameterTable, UnknownKeyIsALogicError) {
  EXPECT_EQ(prism::find_parameter("solver.tolerence"), nullptr);
  EXPECT_THROW(prism::parameter("solver.tolerence"), std::logic_error);
}

// For every row: a problem file setting the key to its example reads, and the key's value
// in the spec differs from what the same file without the key gives (or from the default
// spec, where the key cannot be left out). A row the reader ignores fails here.
TEST(ParameterTable, EveryKeyIsReadIntoTheSpec) {
  const ScratchFile scratch;
  const std::string& path = scratch.path();
  for (const Parameter& p : prism::parameters()) {
    SCOPED_TRACE(p.key);
    YamlTree file = minimal_file_setting(p);
    const std::string with_key = file.text();
    prism::ProblemSpec set;
    try {
      set = load(path, with_key);
    } catch (const std::exception& e) {
      ADD_FAILURE() << e.what() << "\nin:\n" << with_key;
      continue;
    }
    file.erase(p.key);
    prism::ProblemSpec unset;
    try {
      unset = load(path, file.text());
    } catch (const prism::ConfigError&) {
      // Required here (or its section would be empty): compare with the defaults.
    }
    if (p.value) {
      EXPECT_NE(p.value(set), p.value(unset)) << "example '" << p.example << "' not read:\n"
                                              << with_key;
    } else {
      EXPECT_NE(everything(set), everything(unset)) << "example '" << p.example << "' not read:\n"
                                                    << with_key;
    }
  }
}

// The reader allows in each section exactly the keys the table declares there, in the
// table's order: a key cannot be read without a row.
TEST(ParameterTable, ReaderAllowsExactlyTheTableKeys) {
  const ScratchFile scratch;
  const std::string& path = scratch.path();
  std::vector<std::string> sections{""};
  for (const Parameter& p : prism::parameters()) {
    if (p.type == ParameterType::section) sections.push_back(p.key);
  }
  for (const std::string& section : sections) {
    SCOPED_TRACE(section.empty() ? "top level" : section);
    std::vector<std::string> names;
    for (const Parameter* p : prism::parameters_in(section)) names.push_back(p->name());
    YamlTree file = section.empty() ? YamlTree{} : minimal_file_setting(prism::parameter(section));
    if (section.empty()) file.set("matrix", "{generator: poisson2d, nx: 3, ny: 2}");
    file.set(section.empty() ? "no_such_key" : section + ".no_such_key", "1");
    try {
      load(path, file.text());
      ADD_FAILURE() << "accepted:\n" << file.text();
    } catch (const prism::ConfigError& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find("unknown key 'no_such_key'"), std::string::npos) << message;
      EXPECT_NE(message.find("; allowed: " + prism::join(names, ", ")), std::string::npos)
          << message;
    }
  }
}

// What the docs list as defaults is what a file that leaves the keys out gets.
TEST(ParameterTable, AbsentKeysTakeTheDocumentedDefaults) {
  const ScratchFile scratch;
  const std::string& path = scratch.path();
  const prism::ProblemSpec spec = load(path, "matrix: {generator: poisson2d, nx: 3, ny: 2}\n");
  for (const Parameter& p : prism::parameters()) {
    if (!p.value || p.required || !p.default_note.empty() || p.parent() == "matrix") continue;
    SCOPED_TRACE(p.key);
    EXPECT_EQ(p.value(spec), p.default_text());
  }
}

TEST(ParameterTable, RangeText) {
  EXPECT_EQ(prism::parameter("solver.tolerance").range_text(), "> 0 and < 1");
  EXPECT_EQ(prism::parameter("matrix.nx").range_text(), ">= 1");
  EXPECT_EQ(prism::parameter("preconditioner.coloring.colors").range_text(), "in [1, 4096]");
  EXPECT_EQ(prism::parameter("matrix.stencil").range_text(), "7 or 27");
  EXPECT_EQ(prism::parameter("solver.tolerance").default_text(), "1e-8");
  EXPECT_EQ(prism::format_number(0.001), "0.001");
  EXPECT_EQ(prism::format_number(1e-300), "1e-300");
  EXPECT_EQ(prism::format_number(0.1), "0.1");
  EXPECT_EQ(prism::format_number(16777216), "16777216");
}

// ---------------------------------------------------------------------------
// validate(): each rule accepted at its boundary and rejected just past it.

/// The message validate() throws, or "" when it accepts.
std::string violation(const prism::SolverConfig& c) {
  try {
    prism::validate(c);
    return "";
  } catch (const prism::ConfigError& e) {
    return e.what();
  }
}

TEST(Validate, DefaultsAreValid) {
  EXPECT_EQ(violation(prism::SolverConfig{}), "");
}

TEST(Validate, Tolerance) {
  prism::SolverConfig c;
  for (double ok : {1e-300, 0.5, std::nextafter(1.0, 0.0)}) {
    c.solver.tolerance = ok;
    EXPECT_EQ(violation(c), "") << ok;
  }
  for (double bad : {0.0, -1e-8, 1.0, 2.0, std::nan(""), std::numeric_limits<double>::infinity()}) {
    c.solver.tolerance = bad;
    EXPECT_EQ(violation(c).rfind("solver.tolerance: must be > 0 and < 1, got ", 0), 0u) << bad;
  }
  c.solver.tolerance = 2.0;
  EXPECT_EQ(violation(c), "solver.tolerance: must be > 0 and < 1, got 2");
}

TEST(Validate, IterationCounts) {
  prism::SolverConfig c;
  c.solver.max_iterations = 1;
  c.solver.check_every = 1;
  EXPECT_EQ(violation(c), "");
  c.solver.max_iterations = 0;
  EXPECT_EQ(violation(c), "solver.max_iterations: must be >= 1, got 0");
  c.solver.max_iterations = 1;
  c.solver.check_every = 0;
  EXPECT_EQ(violation(c), "solver.check_every: must be >= 1, got 0");
}

TEST(Validate, ColoringColors) {
  prism::SolverConfig c;
  for (int ok : {1, 4096}) {
    c.preconditioner.coloring.colors = ok;
    EXPECT_EQ(violation(c), "") << ok;
  }
  for (int bad : {0, 4097}) {
    c.preconditioner.coloring.colors = bad;
    EXPECT_EQ(violation(c),
              "preconditioner.coloring.colors: must be in [1, 4096], got " + std::to_string(bad));
  }
}

TEST(Validate, Ic0Shift) {
  prism::SolverConfig c;
  c.preconditioner.ic0.initial_shift = 1e-300;
  c.preconditioner.ic0.max_shift_retries = 0;
  EXPECT_EQ(violation(c), "");
  for (double bad : {0.0, -1.0, std::numeric_limits<double>::infinity()}) {
    c.preconditioner.ic0.initial_shift = bad;
    EXPECT_EQ(violation(c).rfind("preconditioner.ic0.initial_shift: must be > 0, got ", 0), 0u)
        << bad;
  }
  c.preconditioner.ic0.initial_shift = 1e-3;
  c.preconditioner.ic0.max_shift_retries = -1;
  EXPECT_EQ(violation(c), "preconditioner.ic0.max_shift_retries: must be in [0, 200], got -1");
  c.preconditioner.ic0.max_shift_retries = 200;
  EXPECT_EQ(violation(c), "");
  // A bound on the ladder of shifts: 2^31 - 1 retries would allocate them all.
  c.preconditioner.ic0.max_shift_retries = std::numeric_limits<int>::max();
  EXPECT_EQ(violation(c).rfind("preconditioner.ic0.max_shift_retries: must be in [0, 200]", 0), 0u);
}

TEST(Validate, PreconditionerType) {
  prism::SolverConfig c;
  for (const char* ok : {"none", "jacobi", "ic0"}) {
    c.preconditioner.type = ok;
    EXPECT_EQ(violation(c), "") << ok;
  }
  c.preconditioner.type = "amg";
  EXPECT_EQ(violation(c).rfind("preconditioner.type: unknown value 'amg'; allowed: ", 0), 0u);
}

TEST(Validate, GraphNeedsTotalTiming) {
  prism::SolverConfig c;
  for (auto graph : {prism::GraphMode::on, prism::GraphMode::loop}) {
    c.solver.graph = graph;
    c.solver.timing = prism::TimingMode::total;
    EXPECT_EQ(violation(c), "");
    c.solver.timing = prism::TimingMode::phases;
    EXPECT_EQ(violation(c).rfind("solver.graph: ", 0), 0u);
    EXPECT_NE(violation(c).find("needs solver.timing: total"), std::string::npos);
  }
  for (auto graph : {prism::GraphMode::off, prism::GraphMode::automatic}) {
    c.solver.graph = graph;
    EXPECT_EQ(violation(c), "");
  }
  const auto v = prism::find_violation([] {
    prism::SolverConfig bad;
    bad.solver.graph = prism::GraphMode::loop;
    return bad;
  }());
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->keys, (std::vector<std::string>{"solver.graph", "solver.timing"}));
}

TEST(Validate, LoopBoundsTheIterationCount) {
  prism::SolverConfig c;
  c.solver.graph = prism::GraphMode::loop;
  c.solver.timing = prism::TimingMode::total;
  c.solver.max_iterations = prism::kMaxLoopIterations;
  EXPECT_EQ(violation(c), "");
  c.solver.max_iterations = prism::kMaxLoopIterations + 1;
  EXPECT_NE(violation(c).find("solver.max_iterations up to 16777216, got 16777217"),
            std::string::npos);
  c.solver.graph = prism::GraphMode::on;  // a replay keeps no residual per iteration
  EXPECT_EQ(violation(c), "");
}

TEST(Validate, MixedPrecisionAndBackendFactorizationNeedColorsetSolves) {
  using T = prism::TrisolveAlgorithm;
  prism::SolverConfig mixed;
  mixed.preconditioner.ic0.precision = prism::Precision::mixed;
  prism::SolverConfig backend;
  backend.preconditioner.ic0.factorization = prism::Ic0Factorization::backend;
  for (prism::SolverConfig* c : {&mixed, &backend}) {
    for (T ok : {T::automatic, T::colorset}) {
      c->preconditioner.trisolve = ok;
      EXPECT_EQ(violation(*c), "");
    }
    for (T bad : {T::reference, T::cusparse}) {
      c->preconditioner.trisolve = bad;
      EXPECT_NE(violation(*c).find("needs preconditioner.trisolve: colorset or auto, got " +
                                   std::string(prism::to_string(bad))),
                std::string::npos);
    }
  }
  EXPECT_EQ(violation(mixed).rfind("preconditioner.ic0.precision: mixed", 0), 0u);
  EXPECT_EQ(violation(backend).rfind("preconditioner.ic0.factorization: backend", 0), 0u);
}

TEST(Validate, LevelCyclicColoringTakesNoGreedyOptions) {
  prism::SolverConfig c;
  c.preconditioner.coloring.balance = true;
  c.preconditioner.coloring.vertex_order = prism::VertexOrder::smallest_last;
  EXPECT_EQ(violation(c), "");  // greedy takes both
  c.preconditioner.coloring.method = prism::ColoringMethod::level_cyclic;
  EXPECT_EQ(violation(c).rfind("preconditioner.coloring.vertex_order: smallest_last needs "
                               "preconditioner.coloring.method: greedy",
                               0),
            0u);
  c.preconditioner.coloring.vertex_order = prism::VertexOrder::natural;
  EXPECT_EQ(violation(c).rfind("preconditioner.coloring.balance: true needs", 0), 0u);
  c.preconditioner.coloring.balance = false;
  EXPECT_EQ(violation(c), "");
}

// The reader applies the same rules and points at the key the message names.
TEST(Validate, ReaderReportsBrokenRulesAtTheKey) {
  const ScratchFile scratch;
  const std::string& path = scratch.path();
  struct Case {
    std::string yaml;
    std::string where;
    std::string says;
  };
  const std::vector<Case> cases{
      {"matrix: {generator: poisson2d, nx: 3, ny: 2}\nsolver:\n  graph: loop\n",
       ":3:10: ", "solver.graph: loop needs solver.timing: total"},
      {"matrix: {generator: poisson2d, nx: 3, ny: 2}\npreconditioner:\n  trisolve: reference\n"
       "  ic0: {precision: mixed}\n",
       ":4:20: ", "preconditioner.ic0.precision: mixed stores the factor"},
      {"matrix: {generator: poisson2d, nx: 3, ny: 2}\npreconditioner:\n  coloring:\n"
       "    balance: true\n    method: level_cyclic\n",
       ":4:14: ", "preconditioner.coloring.balance: true needs"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.yaml);
    try {
      load(path, c.yaml);
      ADD_FAILURE() << "accepted";
    } catch (const prism::ConfigError& e) {
      const std::string message = e.what();
      EXPECT_EQ(message.rfind(path + c.where + c.says, 0), 0u) << message;
    }
  }
}

}  // namespace
