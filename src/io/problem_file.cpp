// Reads YAML problem files into ProblemSpec. This is the only file in prism that sees
// YAML. The keys each section allows, their types, ranges, allowed names and where they
// apply come from the parameter table (io/parameters.hpp); this file adds the line that
// stores each value and the few rules a table row cannot say. Every error names the file,
// the 1-based line:column and the key, so the core only gets valid structs.

#include "io/parameters.hpp"
#include "solver/validate.hpp"

#include <prism/errors.hpp>
#include <prism/problem.hpp>
#include <prism/solver.hpp>

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace prism {
namespace {

namespace fs = std::filesystem;

bool contains(const std::vector<std::string>& names, const std::string& name) {
  for (const auto& n : names) {
    if (n == name) return true;
  }
  return false;
}

const char* type_name(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Null:
      return "nothing";
    case YAML::NodeType::Sequence:
      return "a sequence";
    case YAML::NodeType::Map:
      return "a map";
    default:
      return "a scalar";
  }
}

/// What a node holds, for "expected X, got Y" messages.
std::string describe(const YAML::Node& node) {
  if (node.IsScalar()) return "'" + node.Scalar() + "'";
  return type_name(node);
}

/// One key: value pair of a map, with the key's position kept for messages.
struct Entry {
  std::string key;
  YAML::Mark key_mark;
  YAML::Node value;
};

/// A checked section: its entries in file order (unknown, duplicate and non-string keys
/// already rejected) and its own position.
struct Map {
  std::string path;  ///< dotted path of the section ("solver", "preconditioner.ic0")
  YAML::Mark mark;
  std::vector<Entry> entries;

  const Entry* find(const std::string& key) const {
    for (const auto& e : entries) {
      if (e.key == key) return &e;
    }
    return nullptr;
  }
  std::string child(const std::string& key) const { return path.empty() ? key : path + "." + key; }
};

/// Converts YAML nodes to plain values as the parameter table declares them, throwing
/// ConfigError("FILE:LINE:COL: ...").
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  /// A value that `-o KEY=VALUE` (`text`) put in place of the file's: errors about `key`
  /// point at the override, not at a place in the file.
  void add_override(std::string key, std::string text) {
    overrides_.emplace_back(std::move(key), std::move(text));
  }

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& message) const {
    for (const auto& [key, text] : overrides_) {
      const bool about = message.rfind(key, 0) == 0 && message.size() > key.size() &&
                         (message[key.size()] == ':' || message[key.size()] == '[');
      if (about) throw ConfigError(file_ + ": -o " + text + ": " + message);
    }
    // yaml-cpp marks are 0-based; a null mark (no position known) points at the start.
    const int line = mark.is_null() ? 1 : mark.line + 1;
    const int column = mark.is_null() ? 1 : mark.column + 1;
    throw ConfigError(file_ + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " +
                      message);
  }

  /// Where a value is: its own mark, or its key's when it has none (an empty value).
  static YAML::Mark where(const Entry& e) {
    const YAML::Mark mark = e.value.Mark();
    return (mark.is_null() || e.value.IsNull()) ? e.key_mark : mark;
  }

  /// Checks that node is a map whose keys are strings, unique and declared in the table
  /// under `path`, and that the keys the table requires there without condition are given.
  /// With `only`, just those of its keys are allowed and none is required.
  Map section(const YAML::Node& node, const YAML::Mark& at, const std::string& path,
              const std::vector<std::string>* only = nullptr) const {
    const std::string what = path.empty() ? "the problem file" : path;
    if (!node.IsMap()) fail(at, what + ": expected a map, got " + describe(node));
    std::vector<std::string> allowed;
    for (const Parameter* p : parameters_in(path)) {
      if (only == nullptr || contains(*only, p->name())) allowed.push_back(p->name());
    }
    Map map{path, node.Mark(), {}};
    for (const auto& kv : node) {
      if (!kv.first.IsScalar()) fail(kv.first.Mark(), what + ": keys must be plain strings");
      Entry e{kv.first.Scalar(), kv.first.Mark(), kv.second};
      if (!contains(allowed, e.key)) {
        fail(e.key_mark, "unknown key '" + e.key + "' " +
                             (path.empty() ? std::string("at the top level") : "in " + path) +
                             "; allowed: " + join(allowed, ", "));
      }
      if (const Entry* first = map.find(e.key)) {
        fail(e.key_mark, "duplicate key '" + map.child(e.key) + "' (first given at line " +
                             std::to_string(first->key_mark.line + 1) + ")");
      }
      map.entries.push_back(std::move(e));
    }
    for (const Parameter* p : parameters_in(path)) {
      if (only == nullptr && p->required && p->applies.key.empty() &&
          map.find(p->name()) == nullptr) {
        fail(map.mark, (path.empty() ? std::string() : path + ": ") + "missing required key '" +
                           p->name() + "'");
      }
    }
    for (const auto& e : map.entries) given_.emplace_back(map.child(e.key), e);
    return map;
  }

  Map section(const Entry& e, const std::string& path) const {
    return section(e.value, where(e), path);
  }

  /// For keys that apply only for some values of the sibling `condition` (`type`,
  /// `generator`; "" for it being absent): rejects those given for another value, then
  /// asks for those required for this one.
  void check_applicable(const Map& map, const std::string& condition,
                        const std::string& value) const {
    std::vector<std::string> applicable;
    for (const Parameter* p : parameters_in(map.path)) {
      if (p->applies.key.empty() ||
          (p->applies.key == condition && contains(p->applies.values, value))) {
        applicable.push_back(p->name());
      }
    }
    const std::string subject = value.empty()         ? "without '" + condition + "'"
                                : condition == "type" ? "to " + map.path + " type " + value
                                                      : "to " + condition + " " + value;
    for (const auto& e : map.entries) {
      const Parameter& p = parameter(map.child(e.key));
      if (p.applies.key == condition && !contains(p.applies.values, value)) {
        fail(e.key_mark, "key '" + e.key + "' does not apply " + subject +
                             "; allowed: " + join(applicable, ", "));
      }
    }
    for (const Parameter* p : parameters_in(map.path)) {
      if (p->required && p->applies.key == condition && contains(p->applies.values, value) &&
          map.find(p->name()) == nullptr) {
        fail(map.mark, map.path + ": missing required key '" + p->name() + "' for " + condition +
                           " " + value);
      }
    }
  }

  // read(map, key, out): stores the value of `key` in `out` when the section gives it,
  // checked against the key's table row. The row is looked up even when the key is
  // absent, so a read line without a row fails every problem file.

  void read(const Map& map, const std::string& key, int& out) const {
    const Parameter& p = row(map, key, ParameterType::integer);
    const Entry* e = map.find(key);
    if (e == nullptr) return;
    const std::string text = scalar(*e, p.key, "an integer");
    long long value = 0;
    if (!parse_int(text, value))
      fail(where(*e), p.key + ": expected an integer, got '" + text + "'");
    if (!p.in_range(static_cast<double>(value))) {
      fail(where(*e), p.key + ": must be " + p.range_text() + ", got " + text);
    }
    if (value > std::numeric_limits<int>::max() || value < std::numeric_limits<int>::min()) {
      fail(where(*e), p.key + ": must be <= " + std::to_string(std::numeric_limits<int>::max()) +
                          ", got " + text);
    }
    out = static_cast<int>(value);
  }

  void read(const Map& map, const std::string& key, double& out) const {
    const Parameter& p = row(map, key, ParameterType::real);
    const Entry* e = map.find(key);
    if (e == nullptr) return;
    const double value = parse_double(e->value, where(*e), p.key);
    if (!p.in_range(value)) {
      fail(where(*e), p.key + ": must be " + p.range_text() + ", got " + e->value.Scalar());
    }
    out = value;
  }

  /// true or false, nothing else (YAML 1.1's yes/no/on/off are not booleans here).
  void read(const Map& map, const std::string& key, bool& out) const {
    const Parameter& p = row(map, key, ParameterType::boolean);
    const Entry* e = map.find(key);
    if (e == nullptr) return;
    const std::string text = scalar(*e, p.key, "true or false");
    if (text != "true" && text != "false") {
      fail(where(*e), p.key + ": expected true or false, got '" + text + "'");
    }
    out = text == "true";
  }

  void read(const Map& map, const std::string& key, std::uint64_t& out) const {
    const Parameter& p = row(map, key, ParameterType::seed);
    const Entry* e = map.find(key);
    if (e == nullptr) return;
    const std::string text = scalar(*e, p.key, "a non-negative integer");
    errno = 0;
    char* end = nullptr;
    const bool digits_only =
        !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (!digits_only || errno == ERANGE || *end != '\0') {
      fail(where(*e), p.key + ": expected a non-negative integer, got '" + text + "'");
    }
    out = value;
  }

  void read(const Map& map, const std::string& key, std::vector<double>& out) const {
    const Parameter& p = row(map, key, ParameterType::real_list);
    const Entry* e = map.find(key);
    if (e == nullptr) return;
    if (!e->value.IsSequence()) {
      fail(where(*e), p.key + ": expected a sequence of numbers, got " + describe(e->value));
    }
    if (e->value.size() == 0) fail(where(*e), p.key + ": must not be empty");
    std::vector<double> values;
    for (std::size_t i = 0; i < e->value.size(); ++i) {
      const YAML::Node item = e->value[i];
      const std::string at = p.key + "[" + std::to_string(i) + "]";
      const double value = parse_double(item, item.Mark(), at);
      if (!p.in_range(value)) {
        fail(item.Mark(), at + ": must be " + p.range_text() + ", got " + item.Scalar());
      }
      values.push_back(value);
    }
    out = std::move(values);
  }

  /// A string, a path kept as written (output files), or one of a choice's names.
  void read(const Map& map, const std::string& key, std::string& out) const {
    const Parameter& p = row(map, key, ParameterType::string);
    const Entry* e = map.find(key);
    if (e == nullptr) return;
    out = p.type == ParameterType::choice ? choice(*e, p, p.values) : scalar(*e, p.key, "a string");
  }

  template <typename E, typename = std::enable_if_t<std::is_enum_v<E>>>
  void read(const Map& map, const std::string& key, E& out) const {
    read_named(map, key, enum_names<E>(), out);
  }

  /// A choice stored as an enum through its name table; returns the name given ("" when
  /// absent).
  template <typename E>
  std::string read_named(const Map& map, const std::string& key,
                         const std::vector<std::pair<E, std::string_view>>& names, E& out) const {
    const Parameter& p = row(map, key, ParameterType::choice);
    const Entry* e = map.find(key);
    if (e == nullptr) return "";
    const std::string name = choice(*e, p, p.values);
    for (const auto& [value, n] : names) {
      if (n == name) out = value;
    }
    return name;
  }

  /// A file the problem reads, relative to the problem file's directory unless absolute.
  void read_input_path(const Map& map, const std::string& key, std::string& out) const {
    const Parameter& p = row(map, key, ParameterType::path);
    const Entry* e = map.find(key);
    if (e == nullptr) return;
    const std::string value = scalar(*e, p.key, "a string");
    if (value.empty()) fail(where(*e), p.key + ": must not be empty");
    const fs::path path(value);
    out = path.is_absolute() ? value
                             : (fs::path(file_).parent_path() / path).lexically_normal().string();
  }

  /// A section given as one of its shorthand names (`rhs: ones`, `preconditioner: jacobi`).
  std::string shorthand(const Entry& e, const std::string& path) const {
    const Parameter& p = parameter(path);
    return choice(e, p, p.values);
  }

  /// Where a rule broken by the whole configuration points: the value of the first of
  /// `keys` the file gives, else of the nearest section holding one, else nowhere.
  YAML::Mark position_of(const std::vector<std::string>& keys) const {
    for (std::string key : keys) {
      if (const Entry* e = given(key)) return where(*e);
    }
    for (std::string key : keys) {
      while (key.find('.') != std::string::npos) {
        key.erase(key.rfind('.'));
        if (const Entry* e = given(key)) return where(*e);
      }
    }
    return YAML::Mark();
  }

 private:
  /// The table row of a key in a section, whose type must suit the value read into.
  static const Parameter& row(const Map& map, const std::string& key, ParameterType type) {
    const Parameter& p = parameter(map.child(key));
    const bool text = type == ParameterType::string &&
                      (p.type == ParameterType::choice || p.type == ParameterType::path);
    if (p.type != type && !text) {
      throw std::logic_error("problem-file key '" + p.key + "' is declared as " + p.type_name() +
                             " but read as another type");
    }
    return p;
  }

  std::string scalar(const Entry& e, const std::string& path, const char* expected) const {
    if (!e.value.IsScalar()) {
      fail(where(e), path + ": expected " + expected + ", got " + describe(e.value));
    }
    return e.value.Scalar();
  }

  std::string choice(const Entry& e, const Parameter& p,
                     const std::vector<std::string>& allowed) const {
    const std::string value = scalar(e, p.key, "a string");
    if (!contains(allowed, value)) {
      fail(where(e), p.key + ": unknown value '" + value + "'; allowed: " + join(allowed, " | "));
    }
    return value;
  }

  const Entry* given(const std::string& key) const {
    for (const auto& [k, e] : given_) {
      if (k == key) return &e;
    }
    return nullptr;
  }

  /// A decimal integer with an optional sign, nothing else (no "1e3", "0x10", "4.0").
  static bool parse_int(const std::string& text, long long& value) {
    const std::size_t start = (!text.empty() && (text[0] == '-' || text[0] == '+')) ? 1 : 0;
    if (start >= text.size() || text.find_first_not_of("0123456789", start) != std::string::npos) {
      return false;
    }
    errno = 0;
    value = std::strtoll(text.c_str(), nullptr, 10);
    return errno != ERANGE;
  }

  double parse_double(const YAML::Node& node, const YAML::Mark& at, const std::string& path) const {
    if (!node.IsScalar()) fail(at, path + ": expected a number, got " + describe(node));
    const std::string text = node.Scalar();
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    // strtod also accepts hex floats, "inf" and "nan": only finite decimals pass. Overflow
    // gives infinity (rejected); underflow a subnormal or zero, a finite number that the
    // key's range judges.
    const bool decimal = text.find_first_not_of("0123456789+-.eE") == std::string::npos;
    if (text.empty() || !decimal || *end != '\0' || !std::isfinite(value)) {
      fail(at, path + ": expected a finite number, got '" + text + "'");
    }
    return value;
  }

  std::string file_;
  std::vector<std::pair<std::string, std::string>> overrides_;  ///< key, -o text
  /// Every key the file gives, by dotted path, for rules checked after reading.
  mutable std::vector<std::pair<std::string, Entry>> given_;
};

// ---------------------------------------------------------------------------
// Sections of the file: one line per key stores its value.

MatrixSpec read_matrix(const Reader& r, const Entry& entry) {
  const Map map = r.section(entry, "matrix");
  const Entry* file = map.find("file");
  const Entry* generator = map.find("generator");
  if (file != nullptr && generator != nullptr) {
    const Entry& second = file->key_mark.pos > generator->key_mark.pos ? *file : *generator;
    r.fail(second.key_mark, "matrix: give either 'file' or 'generator', not both");
  }
  if (file == nullptr && generator == nullptr) {
    r.fail(map.mark, "matrix: missing required key 'file' or 'generator'");
  }
  MatrixSpec spec;
  GeneratorSpec& gen = spec.generator;
  r.read(map, "generator", gen.name);
  r.check_applicable(map, "generator", gen.name);
  r.read_input_path(map, "file", spec.file);
  r.read(map, "nx", gen.nx);
  r.read(map, "ny", gen.ny);
  r.read(map, "nz", gen.nz);
  r.read(map, "stencil", gen.stencil);
  r.read(map, "layers", gen.layers);
  r.read(map, "coefficients", gen.coefficients);
  // Anisotropic generators take one coefficient per direction.
  const std::size_t wanted = gen.name == "anisotropic2d"   ? 2
                             : gen.name == "anisotropic3d" ? 3
                             : gen.name == "rotated3d"     ? 3
                             : gen.name == "stretched3d"   ? 1
                                                           : 0;
  if (wanted != 0 && gen.coefficients.size() != wanted) {
    r.fail(Reader::where(*map.find("coefficients")),
           "matrix.coefficients: generator " + gen.name + " takes " + std::to_string(wanted) +
               (wanted == 1 ? " coefficient (the wall cell's aspect ratio), got "
                            : " coefficients (one per direction), got ") +
               std::to_string(gen.coefficients.size()));
  }
  // Fewer coefficients than layers repeat in turn (2 for 8 layers alternate); more would
  // go unused, a mistake.
  const Entry* coefficients = map.find("coefficients");
  if (coefficients != nullptr && map.find("layers") != nullptr && gen.layers >= 1 &&
      gen.coefficients.size() > static_cast<std::size_t>(gen.layers)) {
    r.fail(Reader::where(*coefficients),
           "matrix.coefficients: " + std::to_string(gen.coefficients.size()) +
               " coefficients for " + std::to_string(gen.layers) +
               " layers; the extra ones would go unused");
  }
  // Refused here, at the generator, before anything is allocated.
  const bool three_d = map.find("nz") != nullptr;
  const double unknowns =
      gen.name == "elasticity3d"
          ? 3.0 * (gen.nx + 1.0) * (gen.ny + 1.0) * gen.nz
          : static_cast<double>(gen.nx) * gen.ny * (three_d ? static_cast<double>(gen.nz) : 1.0);
  if (generator != nullptr && unknowns > std::numeric_limits<index_t>::max()) {
    r.fail(generator->key_mark, "matrix: generator " + gen.name + " on this grid gives " +
                                    format_number(unknowns) + " unknowns, more than 2^31 - 1");
  }
  // Layers are slabs of grid planes along z (y in 2D): at most one per plane.
  const Entry* layers = map.find("layers");
  if (layers != nullptr) {
    const bool two_d = gen.name == "layered2d";
    const int planes = two_d ? gen.ny : gen.nz;
    if (gen.layers > planes) {
      r.fail(Reader::where(*layers),
             "matrix.layers: must not exceed " + std::string(two_d ? "ny" : "nz") + " (" +
                 std::to_string(planes) + "), got " + std::to_string(gen.layers));
    }
  }
  return spec;
}

/// rhs and initial_guess: a kind alone, or a map with the kind and its seed or file.
template <typename Spec, typename Names>
Spec read_vector_spec(const Reader& r, const Entry& entry, const std::string& section,
                      const Names& kind_names) {
  Spec spec;
  if (entry.value.IsScalar()) {
    const std::string name = r.shorthand(entry, section);
    for (const auto& [kind, n] : kind_names) {
      if (n == name) spec.kind = kind;
    }
    return spec;
  }
  const Map map = r.section(entry, section);
  r.check_applicable(map, "type", r.read_named(map, "type", kind_names, spec.kind));
  r.read(map, "seed", spec.seed);
  r.read_input_path(map, "file", spec.file);
  if constexpr (std::is_same_v<Spec, RhsSpec>) r.read(map, "columns", spec.columns);
  return spec;
}

void read_solver(const Reader& r, const Entry& entry, SolverOptions& options) {
  const Map map = r.section(entry, "solver");
  r.read(map, "tolerance", options.tolerance);
  r.read(map, "absolute_tolerance", options.absolute_tolerance);
  r.read(map, "max_iterations", options.max_iterations);
  r.read(map, "check_every", options.check_every);
  r.read(map, "timing", options.timing);
  r.read(map, "spmv", options.spmv);
  r.read(map, "graph", options.graph);
  r.read(map, "check", options.check);
  r.read(map, "symmetry_tolerance", options.symmetry_tolerance);
  r.read(map, "cg_variant", options.cg_variant);
  r.read(map, "transport", options.transport);
  r.read(map, "setup", options.setup);
}

void read_preconditioner(const Reader& r, const Entry& entry, PreconditionerOptions& options) {
  if (entry.value.IsScalar()) {
    options.type = r.shorthand(entry, "preconditioner");
    return;
  }
  const Map map = r.section(entry, "preconditioner");
  r.read(map, "type", options.type);
  r.check_applicable(map, "type", options.type);
  r.read(map, "ordering", options.ordering);
  if (const Entry* e = map.find("coloring")) {
    // Coloring options ask for a coloring: with ordering auto they make it color (jacobi
    // and none would otherwise keep the natural order and ignore them).
    if (options.ordering == Ordering::automatic) options.ordering = Ordering::color;
    const Map coloring = r.section(*e, "preconditioner.coloring");
    r.read(coloring, "method", options.coloring.method);
    r.read(coloring, "colors", options.coloring.colors);
    r.read(coloring, "vertex_order", options.coloring.vertex_order);
    r.read(coloring, "balance", options.coloring.balance);
  }
  r.read(map, "trisolve", options.trisolve);
  r.read(map, "colorset_layout", options.colorset_layout);
  if (const Entry* e = map.find("ic0")) {
    const Map ic0 = r.section(*e, "preconditioner.ic0");
    r.read(ic0, "initial_shift", options.ic0.initial_shift);
    r.read(ic0, "max_shift_retries", options.ic0.max_shift_retries);
    r.read(ic0, "factorization", options.ic0.factorization);
    r.read(ic0, "precision", options.ic0.precision);
  }
  if (const Entry* e = map.find("block_ic")) {
    const Map block_ic = r.section(*e, "preconditioner.block_ic");
    r.read(block_ic, "block_size", options.block_ic.block_size);
    r.read(block_ic, "supernode", options.block_ic.supernode);
    r.read(block_ic, "precision", options.block_ic.precision);
    r.read(block_ic, "factorization", options.block_ic.factorization);
    r.read(block_ic, "solve", options.block_ic.solve);
  }
  if (const Entry* e = map.find("lines")) {
    const Map lines = r.section(*e, "preconditioner.lines");
    r.read(lines, "dominance", options.lines.dominance);
    r.read(lines, "min_strength", options.lines.min_strength);
    r.read(lines, "max_length", options.lines.max_length);
  }
}

void read_output(const Reader& r, const Entry& entry, OutputSpec& output) {
  const Map map = r.section(entry, "output");
  r.read(map, "report", output.report);
  r.read(map, "history", output.history);
  r.read(map, "solution", output.solution);
}

void read_logging(const Reader& r, const Entry& entry, LoggingSpec& logging) {
  const Map map = r.section(entry, "logging");
  r.read(map, "level", logging.level);
  r.read(map, "print_every", logging.print_every);
}

/// The type of a handler method's last parameter: yaml-cpp's EventHandler spells some of
/// them differently across releases (the style as EmitterStyle::value or EmitterStyle).
template <typename F>
struct LastParameter;
template <typename C, typename A, typename B, typename D, typename E>
struct LastParameter<void (C::*)(A, B, D, E)> {
  using type = E;
};
using ScalarValue = LastParameter<decltype(&YAML::EventHandler::OnScalar)>::type;
using SequenceStyle = LastParameter<decltype(&YAML::EventHandler::OnSequenceStart)>::type;
using MapStyle = LastParameter<decltype(&YAML::EventHandler::OnMapStart)>::type;

/// Where each YAML document of a text starts, and where its first node is (none for a
/// document of a null alone, as a trailing "---" opens), without building it.
class DocumentStarts : public YAML::EventHandler {
 public:
  std::vector<YAML::Mark> marks;
  std::vector<YAML::Mark> content;  ///< null where the document has no node but a null
  void OnDocumentStart(const YAML::Mark& mark) override {
    marks.push_back(mark);
    content.push_back(YAML::Mark::null_mark());
  }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t) override { fill(mark); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t, ScalarValue) override {
    fill(mark);
  }
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t,
                       SequenceStyle) override {
    fill(mark);
  }
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t, MapStyle) override {
    fill(mark);
  }
  void OnMapEnd() override {}

 private:
  void fill(const YAML::Mark& mark) {
    if (!content.empty() && content.back().is_null()) content.back() = mark;
  }
};

/// Largest problem file read.
constexpr std::size_t kMaxProblemFileBytes = std::size_t{1} << 20;

/// The one document of a problem file. Documents are counted one call at a time, and at
/// most three: yaml-cpp's parser can stop advancing on some malformed input (a document
/// starting with ','), where YAML::LoadAll would loop and grow without end; a document
/// that starts where the previous one did is that case, reported as a syntax error.
YAML::Node parse_text(const std::string& text, const Reader& r);

YAML::Node parse_document(const std::string& path, const Reader& r) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw IoError(path + ": is a directory, not a problem file");
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    const int error = errno;
    throw IoError(path + ": cannot open problem file" +
                  (error != 0 ? std::string(": ") + std::strerror(error) : std::string()));
  }
  // Bounded: a problem file is a few lines of YAML, and a device or a huge file given by
  // mistake must not be read without end.
  std::string text(kMaxProblemFileBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) throw IoError(path + ": cannot read problem file");
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > kMaxProblemFileBytes) {
    throw IoError(path + ": larger than " + std::to_string(kMaxProblemFileBytes >> 20) +
                  " MiB; a problem file is a short YAML file (matrices go in their own files)");
  }
  return parse_text(text, r);
}

/// The one YAML document of `text` (a problem file's, or a configuration's).
YAML::Node parse_text(const std::string& text, const Reader& r) {
  // A NUL ends the C strings of messages: a key holding one would read as another key.
  const std::size_t nul = text.find('\0');
  if (nul != std::string::npos) {
    YAML::Mark at;
    for (std::size_t k = 0; k < nul; ++k) {
      ++at.column;
      if (text[k] == '\n') {
        ++at.line;
        at.column = 0;
      }
    }
    r.fail(at, "a NUL byte: a problem file is text (a binary file given by mistake?)");
  }
  try {
    std::istringstream stream(text);
    YAML::Parser parser(stream);
    DocumentStarts starts;
    for (int call = 0; call < 3 && parser.HandleNextDocument(starts); ++call) {
      const std::vector<YAML::Mark>& m = starts.marks;
      if (m.size() >= 2 && m[m.size() - 1].pos == m[m.size() - 2].pos) {
        r.fail(m.back(), "YAML syntax error: the parser cannot go on from here");
      }
    }
    for (std::size_t d = 1; d < starts.marks.size(); ++d) {
      if (!starts.content[d].is_null()) {
        r.fail(starts.content[d], "expected one YAML document, found more");
      }
    }
    return YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    r.fail(e.mark, "YAML syntax error: " + e.msg);
  } catch (const YAML::Exception& e) {
    r.fail(e.mark, "invalid YAML: " + e.msg);
  }
}

/// Puts `-o KEY=VALUE` into the document as if the file said it: KEY a key of the table
/// (or a section a name stands for), VALUE a YAML value. A section the file gives as a
/// name alone (`preconditioner: jacobi`) becomes the map {type: jacobi} around it.
void apply_override(YAML::Node& document, const std::string& text, Reader& r) {
  const std::size_t equals = text.find('=');
  const std::string key = text.substr(0, equals);
  if (equals == std::string::npos || key.empty()) {
    throw ConfigError("-o " + text + ": expected KEY=VALUE, e.g. -o solver.tolerance=1e-10");
  }
  const Parameter* p = find_parameter(key);
  if (p == nullptr || (p->type == ParameterType::section && p->values.empty())) {
    throw ConfigError("-o " + text + ": unknown key '" + key + "' (prism options lists the keys)");
  }
  YAML::Node value;
  try {
    value = YAML::Load(text.substr(equals + 1));
  } catch (const YAML::Exception& e) {
    throw ConfigError("-o " + text + ": YAML syntax error: " + e.msg);
  }
  if (document.IsNull()) document = YAML::Node(YAML::NodeType::Map);
  if (!document.IsMap()) return;  // the reader says what the file holds instead
  std::vector<std::string> parts;
  for (std::size_t start = 0;;) {
    const std::size_t dot = key.find('.', start);
    parts.push_back(key.substr(start, dot - start));
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  // yaml-cpp: `=` on a Node assigns to the node it refers to, reset() rebinds the handle.
  YAML::Node node;
  node.reset(document);
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    const YAML::Node child = node[parts[i]];
    if (!child.IsDefined() || child.IsNull()) {
      node[parts[i]] = YAML::Node(YAML::NodeType::Map);
    } else if (child.IsScalar()) {
      YAML::Node section(YAML::NodeType::Map);
      section["type"] = child.Scalar();
      node[parts[i]] = section;
    }
    const YAML::Node next = node[parts[i]];
    node.reset(next);
  }
  node[parts.back()] = value;
  r.add_override(key, text);
}

}  // namespace

ProblemSpec load_problem_file(const std::string& path, const std::vector<std::string>& overrides) {
  Reader r(path);
  YAML::Node document = parse_document(path, r);
  for (const std::string& text : overrides) apply_override(document, text, r);
  if (document.IsNull()) {
    r.fail(YAML::Mark(), "empty problem file; expected a map with at least 'matrix'");
  }
  const Map top = r.section(document, document.Mark(), "");

  ProblemSpec spec;
  spec.source_path = path;
  spec.name = fs::path(path).stem().string();
  r.read(top, "name", spec.name);
  spec.matrix = read_matrix(r, *top.find("matrix"));
  if (const Entry* e = top.find("rhs")) {
    spec.rhs = read_vector_spec<RhsSpec>(r, *e, "rhs", rhs_kind_names());
  }
  if (const Entry* e = top.find("initial_guess")) {
    spec.initial_guess =
        read_vector_spec<InitialGuessSpec>(r, *e, "initial_guess", initial_guess_kind_names());
  }
  if (const Entry* e = top.find("solver")) read_solver(r, *e, spec.config.solver);
  if (const Entry* e = top.find("preconditioner")) {
    read_preconditioner(r, *e, spec.config.preconditioner);
  }
  r.read(top, "backend", spec.config.backend);
  r.read(top, "cpu_kernels", spec.config.cpu_kernels);
  r.read(top, "device", spec.config.device);
  if (const Entry* e = top.find("output")) read_output(r, *e, spec.output);
  if (const Entry* e = top.find("logging")) read_logging(r, *e, spec.logging);

  // The rules between keys are the library's (the Solver constructor checks the same).
  if (const auto violation = find_violation(spec.config)) {
    r.fail(r.position_of(violation->keys), violation->message);
  }
  return spec;
}

SolverConfig parse_solver_config(const std::string& text) {
  const Reader r("<config>");
  if (text.size() > kMaxProblemFileBytes) {
    throw ConfigError("<config>: larger than " + std::to_string(kMaxProblemFileBytes >> 20) +
                      " MiB; a configuration is a short YAML text");
  }
  const YAML::Node document = parse_text(text, r);
  SolverConfig config;
  if (document.IsNull()) return config;
  static const std::vector<std::string> keys{"solver", "preconditioner", "backend", "cpu_kernels",
                                             "device"};
  const Map top = r.section(document, document.Mark(), "", &keys);
  if (const Entry* e = top.find("solver")) read_solver(r, *e, config.solver);
  if (const Entry* e = top.find("preconditioner"))
    read_preconditioner(r, *e, config.preconditioner);
  r.read(top, "backend", config.backend);
  r.read(top, "cpu_kernels", config.cpu_kernels);
  r.read(top, "device", config.device);
  if (const auto violation = find_violation(config)) {
    r.fail(r.position_of(violation->keys), violation->message);
  }
  return config;
}

}  // namespace prism
