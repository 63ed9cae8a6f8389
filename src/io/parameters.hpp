#pragma once
// The problem-file parameter table: every YAML key declared once, with its type, allowed
// values or range, default, one-line doc and an example value (as AMGX's
// registerParameter). The YAML reader takes its allowed keys, checks and messages from it,
// validate() its ranges, `prism options` prints it and docs/problem-file.md is generated
// from it, so a key added in one place only fails a test.

#include <prism/problem.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace prism {

enum class ParameterType {
  integer,    ///< a decimal integer (fits an int)
  real,       ///< a finite decimal number
  boolean,    ///< true or false
  string,     ///< any text
  choice,     ///< one of `values`
  path,       ///< a file path
  real_list,  ///< a non-empty sequence of numbers, each within the range
  section,    ///< a map of the keys below it; with `values`, also one of them as shorthand
  seed,       ///< a non-negative 64-bit integer
};

/// One end of a numeric range; `set` false: unbounded.
struct Bound {
  bool set = false;
  double value = 0.0;
  bool open = false;  ///< excludes `value` itself
};

/// When a key applies: its sibling `key` holds one of `values`, where "" stands for the
/// sibling being absent. An empty `key` means always.
struct Condition {
  std::string key;
  std::vector<std::string> values;
};

/// One problem-file key.
struct Parameter {
  std::string key;  ///< dotted path: "solver.tolerance", "preconditioner.ic0.precision"
  ParameterType type = ParameterType::string;
  /// choice: the allowed names; section: the names its shorthand takes; integer: the only
  /// allowed values where a range cannot say it (stencil: 7 or 27).
  std::vector<std::string> values;
  Bound min, max;         ///< integer, real, real_list (each element)
  bool required = false;  ///< where it applies
  Condition applies;
  std::string doc;      ///< one line
  std::string example;  ///< a valid value other than the default, as YAML text
  /// The value a spec holds for this key, as text; empty for sections without shorthand.
  /// Defaults come from it applied to a default-constructed ProblemSpec.
  std::function<std::string(const ProblemSpec&)> value;
  /// Shown as the default where the struct's value is not it (a default computed by the
  /// reader, such as the file name).
  std::string default_note;

  /// "solver" for "solver.tolerance", "" for a top-level key.
  std::string parent() const;
  /// "tolerance" for "solver.tolerance".
  std::string name() const;
  /// Within the range (and among `values` for an integer that has them).
  bool in_range(double v) const;
  /// "> 0 and < 1", ">= 1", "in [1, 4096]", "7 or 27"; "" without a range.
  std::string range_text() const;
  /// "int", "double", "enum", "map or name", ...
  std::string type_name() const;
  /// What the default column shows: "required", the note, or the default spec's value.
  std::string default_text() const;
  /// "generator poisson3d, anisotropic3d", "rhs type random", "with generator" (any value)
  /// or "without generator" (absent); "" when it always applies.
  std::string condition_text() const;
};

/// Every key, sections before the keys inside them, in the order the docs list them.
const std::vector<Parameter>& parameters();

/// The row of a dotted key, or nullptr.
const Parameter* find_parameter(std::string_view key);

/// The row of a dotted key; throws std::logic_error when there is none (a reader line
/// without a table row, which fails every read).
const Parameter& parameter(std::string_view key);

/// The rows directly inside a section ("" for the top level), in table order.
std::vector<const Parameter*> parameters_in(std::string_view section);

/// Whether a key belongs to SolverConfig (what validate() checks).
bool is_solver_config_key(std::string_view key);

/// The matrix generators (problems/generators.hpp) a problem file can name.
const std::vector<std::string>& generator_names();

/// The problem-file names of RhsSpec::Kind and InitialGuessSpec::Kind.
const std::vector<std::pair<RhsSpec::Kind, std::string_view>>& rhs_kind_names();
const std::vector<std::pair<InitialGuessSpec::Kind, std::string_view>>& initial_guess_kind_names();

/// The shortest decimal text that reads back as `v` ("1e-8", "0.001", "4096").
std::string format_number(double v);

/// "a, b, c" with any separator.
std::string join(const std::vector<std::string>& items, std::string_view separator);

}  // namespace prism
