// Reads YAML problem files into ProblemSpec. This is the only file in prism that sees
// YAML: every value is checked here (type, range, allowed names) and every error names
// the file, the 1-based line:column and the key, so the core only gets valid structs.

#include <prism/errors.hpp>
#include <prism/problem.hpp>
#include <prism/solver.hpp>

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace prism {
namespace {

namespace fs = std::filesystem;

std::string join(const std::vector<std::string>& names, const char* separator) {
  std::string out;
  for (const auto& name : names) {
    if (!out.empty()) out += separator;
    out += name;
  }
  return out;
}

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

/// A checked map: its entries in file order (unknown, duplicate and non-string keys
/// already rejected) and its own position.
struct Map {
  std::string path;  ///< dotted path for messages ("solver", "preconditioner.ic0")
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

/// Converts YAML nodes to plain values, throwing ConfigError("FILE:LINE:COL: ...").
class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const YAML::Mark& mark, const std::string& message) const {
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

  /// Checks that node is a map whose keys are strings, unique and among allowed.
  Map expect_map(const YAML::Node& node, const YAML::Mark& at, const std::string& path,
                 const std::vector<std::string>& allowed) const {
    const std::string what = path.empty() ? "the problem file" : path;
    if (!node.IsMap()) fail(at, what + ": expected a map, got " + describe(node));
    Map map{path, node.Mark(), {}};
    for (const auto& kv : node) {
      if (!kv.first.IsScalar()) fail(kv.first.Mark(), what + ": keys must be plain strings");
      Entry e{kv.first.Scalar(), kv.first.Mark(), kv.second};
      if (!contains(allowed, e.key)) {
        fail(e.key_mark, "unknown key '" + e.key + "' " +
                             (path.empty() ? std::string("at the top level") : "in " + path) +
                             "; allowed: " + join(allowed, ", "));
      }
      if (map.find(e.key) != nullptr) {
        const YAML::Mark first = map.find(e.key)->key_mark;
        fail(e.key_mark, "duplicate key '" + map.child(e.key) + "' (first given at line " +
                             std::to_string(first.line + 1) + ")");
      }
      map.entries.push_back(std::move(e));
    }
    return map;
  }

  Map expect_map(const Entry& e, const std::string& path,
                 const std::vector<std::string>& allowed) const {
    return expect_map(e.value, where(e), path, allowed);
  }

  const Entry& require(const Map& map, const std::string& key,
                       const std::string& context = "") const {
    const Entry* e = map.find(key);
    if (e == nullptr) {
      fail(map.mark, (map.path.empty() ? std::string() : map.path + ": ") +
                         "missing required key '" + key + "'" + context);
    }
    return *e;
  }

  std::string get_scalar(const Entry& e, const std::string& path, const char* expected) const {
    if (!e.value.IsScalar()) {
      fail(where(e), path + ": expected " + expected + ", got " + describe(e.value));
    }
    return e.value.Scalar();
  }

  std::string get_string(const Entry& e, const std::string& path) const {
    return get_scalar(e, path, "a string");
  }

  long long get_int(const Entry& e, const std::string& path, long long min,
                    long long max = std::numeric_limits<int>::max()) const {
    const std::string text = get_scalar(e, path, "an integer");
    long long value = 0;
    if (!parse_int(text, value)) fail(where(e), path + ": expected an integer, got '" + text + "'");
    if (value < min || value > max) {
      fail(where(e), path + ": must be " + range_text(min, max) + ", got " + text);
    }
    return value;
  }

  /// true or false, nothing else (YAML 1.1's yes/no/on/off are not booleans here).
  bool get_bool(const Entry& e, const std::string& path) const {
    const std::string text = get_scalar(e, path, "true or false");
    if (text != "true" && text != "false") {
      fail(where(e), path + ": expected true or false, got '" + text + "'");
    }
    return text == "true";
  }

  std::uint64_t get_seed(const Entry& e, const std::string& path) const {
    const std::string text = get_scalar(e, path, "a non-negative integer");
    errno = 0;
    char* end = nullptr;
    const bool digits_only =
        !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (!digits_only || errno == ERANGE || *end != '\0') {
      fail(where(e), path + ": expected a non-negative integer, got '" + text + "'");
    }
    return value;
  }

  double get_double(const Entry& e, const std::string& path) const {
    return parse_double(e.value, where(e), path);
  }

  std::vector<double> get_double_list(const Entry& e, const std::string& path) const {
    if (!e.value.IsSequence()) {
      fail(where(e), path + ": expected a sequence of numbers, got " + describe(e.value));
    }
    if (e.value.size() == 0) fail(where(e), path + ": must not be empty");
    std::vector<double> out;
    for (std::size_t i = 0; i < e.value.size(); ++i) {
      const YAML::Node item = e.value[i];
      out.push_back(parse_double(item, item.Mark(), path + "[" + std::to_string(i) + "]"));
    }
    return out;
  }

  /// One of a list of names (preconditioners, generators, right-hand side kinds).
  std::string get_choice(const Entry& e, const std::string& path,
                         const std::vector<std::string>& allowed) const {
    const std::string value = get_string(e, path);
    if (!contains(allowed, value)) {
      fail(where(e), path + ": unknown value '" + value + "'; allowed: " + join(allowed, " | "));
    }
    return value;
  }

  template <typename E>
  E get_enum(const Entry& e, const std::string& path) const {
    const std::string value = get_string(e, path);
    E out{};
    if (!from_string<E>(value, out)) {
      fail(where(e), path + ": unknown value '" + value + "'; allowed: " + allowed_names<E>());
    }
    return out;
  }

  /// A path in the problem file, relative to the file's directory unless absolute.
  std::string input_path(const Entry& e, const std::string& path) const {
    const std::string value = get_string(e, path);
    if (value.empty()) fail(where(e), path + ": must not be empty");
    const fs::path p(value);
    if (p.is_absolute()) return value;
    return (fs::path(file_).parent_path() / p).lexically_normal().string();
  }

 private:
  static std::string range_text(long long min, long long max) {
    if (max == std::numeric_limits<int>::max()) return ">= " + std::to_string(min);
    return "in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
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
    errno = 0;
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    // strtod also accepts hex floats, "inf" and "nan": only finite decimals pass.
    const bool decimal = text.find_first_not_of("0123456789+-.eE") == std::string::npos;
    if (text.empty() || !decimal || *end != '\0' || errno == ERANGE || !std::isfinite(value)) {
      fail(at, path + ": expected a finite number, got '" + text + "'");
    }
    return value;
  }

  std::string file_;
};

// ---------------------------------------------------------------------------
// Sections of the file.

struct GeneratorKeys {
  std::string name;
  std::vector<std::string> keys;  ///< the parameters it takes besides "generator"
};

const std::vector<GeneratorKeys>& generators() {
  static const std::vector<GeneratorKeys> table{
      {"poisson2d", {"nx", "ny"}},
      {"poisson3d", {"nx", "ny", "nz", "stencil"}},
      {"anisotropic2d", {"nx", "ny", "coefficients"}},
      {"anisotropic3d", {"nx", "ny", "nz", "coefficients"}},
      {"layered2d", {"nx", "ny", "layers", "coefficients"}},
      {"layered3d", {"nx", "ny", "nz", "layers", "coefficients"}},
      {"elasticity3d", {"nx", "ny", "nz", "layers", "coefficients"}},
  };
  return table;
}

MatrixSpec read_matrix(const Reader& r, const Entry& entry) {
  static const std::vector<std::string> all_keys{"file", "generator", "nx",           "ny",
                                                 "nz",   "stencil",   "coefficients", "layers"};
  const Map map = r.expect_map(entry, "matrix", all_keys);
  MatrixSpec spec;
  const Entry* file = map.find("file");
  const Entry* generator = map.find("generator");
  if (file != nullptr && generator != nullptr) {
    const Entry& second = file->key_mark.pos > generator->key_mark.pos ? *file : *generator;
    r.fail(second.key_mark, "matrix: give either 'file' or 'generator', not both");
  }
  if (file == nullptr && generator == nullptr) {
    r.fail(map.mark, "matrix: missing required key 'file' or 'generator'");
  }
  if (file != nullptr) {
    for (const auto& e : map.entries) {
      if (e.key != "file") {
        r.fail(e.key_mark, "key '" + e.key + "' does not apply to a matrix file; allowed: file");
      }
    }
    spec.file = r.input_path(*file, "matrix.file");
    return spec;
  }

  std::vector<std::string> names;
  for (const auto& g : generators()) names.push_back(g.name);
  GeneratorSpec& gen = spec.generator;
  gen.name = r.get_choice(*generator, "matrix.generator", names);
  std::vector<std::string> keys;
  for (const auto& g : generators()) {
    if (g.name == gen.name) keys = g.keys;
  }
  for (const auto& e : map.entries) {
    if (e.key != "generator" && !contains(keys, e.key)) {
      r.fail(e.key_mark, "key '" + e.key + "' does not apply to generator " + gen.name +
                             "; allowed: generator, " + join(keys, ", "));
    }
  }
  const std::string context = " for generator " + gen.name;
  const int max_size = std::numeric_limits<index_t>::max();
  gen.nx = static_cast<index_t>(r.get_int(r.require(map, "nx", context), "matrix.nx", 1, max_size));
  gen.ny = static_cast<index_t>(r.get_int(r.require(map, "ny", context), "matrix.ny", 1, max_size));
  if (contains(keys, "nz")) {
    gen.nz =
        static_cast<index_t>(r.get_int(r.require(map, "nz", context), "matrix.nz", 1, max_size));
  }
  if (const Entry* e = map.find("stencil")) {
    gen.stencil = static_cast<int>(r.get_int(*e, "matrix.stencil", 0));
    if (gen.stencil != 7 && gen.stencil != 27) {
      r.fail(Reader::where(*e),
             "matrix.stencil: must be 7 or 27, got " + std::to_string(gen.stencil));
    }
  }
  if (contains(keys, "layers")) {
    gen.layers = static_cast<int>(r.get_int(r.require(map, "layers", context), "matrix.layers", 1));
  }
  if (contains(keys, "coefficients")) {
    const Entry& e = r.require(map, "coefficients", context);
    gen.coefficients = r.get_double_list(e, "matrix.coefficients");
    for (std::size_t i = 0; i < gen.coefficients.size(); ++i) {
      if (!(gen.coefficients[i] > 0.0)) {
        r.fail(e.value[i].Mark(), "matrix.coefficients[" + std::to_string(i) +
                                      "]: must be > 0, got " + e.value[i].Scalar());
      }
    }
    const std::size_t wanted = gen.name == "anisotropic2d"   ? 2
                               : gen.name == "anisotropic3d" ? 3
                                                             : 0;
    if (wanted != 0 && gen.coefficients.size() != wanted) {
      r.fail(Reader::where(e), "matrix.coefficients: generator " + gen.name + " takes " +
                                   std::to_string(wanted) +
                                   " coefficients (one per direction), got " +
                                   std::to_string(gen.coefficients.size()));
    }
  }
  return spec;
}

RhsSpec read_rhs(const Reader& r, const Entry& entry) {
  using Kind = RhsSpec::Kind;
  static const std::vector<std::string> kinds{"ones", "random", "manufactured", "file"};
  static const std::vector<std::string> shorthand{"ones", "random", "manufactured"};
  RhsSpec spec;
  auto kind_of = [](const std::string& name) {
    return name == "ones"     ? Kind::ones
           : name == "random" ? Kind::random
           : name == "file"   ? Kind::file
                              : Kind::manufactured;
  };
  if (entry.value.IsScalar()) {
    spec.kind = kind_of(r.get_choice(entry, "rhs", shorthand));
    return spec;
  }
  const Map map = r.expect_map(entry, "rhs", {"type", "seed", "file"});
  const std::string type = r.get_choice(r.require(map, "type"), "rhs.type", kinds);
  spec.kind = kind_of(type);
  for (const auto& e : map.entries) {
    if ((e.key == "seed" && type != "random") || (e.key == "file" && type != "file")) {
      r.fail(e.key_mark, "key '" + e.key + "' does not apply to rhs type " + type);
    }
  }
  if (const Entry* e = map.find("seed")) spec.seed = r.get_seed(*e, "rhs.seed");
  if (spec.kind == Kind::file) {
    spec.file = r.input_path(r.require(map, "file", " for type file"), "rhs.file");
  }
  return spec;
}

InitialGuessSpec read_initial_guess(const Reader& r, const Entry& entry) {
  using Kind = InitialGuessSpec::Kind;
  static const std::vector<std::string> kinds{"zero", "random", "file"};
  static const std::vector<std::string> shorthand{"zero", "random"};
  InitialGuessSpec spec;
  auto kind_of = [](const std::string& name) {
    return name == "random" ? Kind::random : name == "file" ? Kind::file : Kind::zero;
  };
  if (entry.value.IsScalar()) {
    spec.kind = kind_of(r.get_choice(entry, "initial_guess", shorthand));
    return spec;
  }
  const Map map = r.expect_map(entry, "initial_guess", {"type", "seed", "file"});
  const std::string type = r.get_choice(r.require(map, "type"), "initial_guess.type", kinds);
  spec.kind = kind_of(type);
  for (const auto& e : map.entries) {
    if ((e.key == "seed" && type != "random") || (e.key == "file" && type != "file")) {
      r.fail(e.key_mark, "key '" + e.key + "' does not apply to initial_guess type " + type);
    }
  }
  if (const Entry* e = map.find("seed")) spec.seed = r.get_seed(*e, "initial_guess.seed");
  if (spec.kind == Kind::file) {
    spec.file = r.input_path(r.require(map, "file", " for type file"), "initial_guess.file");
  }
  return spec;
}

void read_solver(const Reader& r, const Entry& entry, SolverOptions& options) {
  const Map map = r.expect_map(
      entry, "solver", {"tolerance", "max_iterations", "check_every", "timing", "spmv", "graph"});
  if (const Entry* e = map.find("tolerance")) {
    options.tolerance = r.get_double(*e, "solver.tolerance");
    if (!(options.tolerance > 0.0 && options.tolerance < 1.0)) {
      r.fail(Reader::where(*e), "solver.tolerance: must be > 0 and < 1, got " + e->value.Scalar());
    }
  }
  if (const Entry* e = map.find("max_iterations")) {
    options.max_iterations = static_cast<int>(r.get_int(*e, "solver.max_iterations", 1));
  }
  if (const Entry* e = map.find("check_every")) {
    options.check_every = static_cast<int>(r.get_int(*e, "solver.check_every", 1));
  }
  if (const Entry* e = map.find("timing")) {
    options.timing = r.get_enum<TimingMode>(*e, "solver.timing");
  }
  if (const Entry* e = map.find("spmv")) {
    options.spmv = r.get_enum<SpmvAlgorithm>(*e, "solver.spmv");
  }
  if (const Entry* e = map.find("graph")) {
    options.graph = r.get_enum<GraphMode>(*e, "solver.graph");
  }
}

void read_preconditioner(const Reader& r, const Entry& entry, PreconditionerOptions& options) {
  const std::vector<std::string> names = preconditioner_names();
  if (entry.value.IsScalar()) {
    options.type = r.get_choice(entry, "preconditioner", names);
    return;
  }
  const Map map =
      r.expect_map(entry, "preconditioner",
                   {"type", "ordering", "coloring", "trisolve", "colorset_layout", "ic0"});
  if (const Entry* e = map.find("type"))
    options.type = r.get_choice(*e, "preconditioner.type", names);
  if (const Entry* e = map.find("ordering")) {
    options.ordering = r.get_enum<Ordering>(*e, "preconditioner.ordering");
  }
  if (const Entry* e = map.find("coloring")) {
    // Coloring options ask for a coloring: with ordering auto they make it color (jacobi
    // and none would otherwise keep the natural order and ignore them).
    if (options.ordering == Ordering::automatic) options.ordering = Ordering::color;
    const Map coloring = r.expect_map(*e, "preconditioner.coloring",
                                      {"method", "colors", "vertex_order", "balance"});
    if (const Entry* v = coloring.find("method")) {
      options.coloring.method = r.get_enum<ColoringMethod>(*v, "preconditioner.coloring.method");
    }
    if (const Entry* v = coloring.find("colors")) {
      options.coloring.colors =
          static_cast<int>(r.get_int(*v, "preconditioner.coloring.colors", 1, 4096));
    }
    if (const Entry* v = coloring.find("vertex_order")) {
      options.coloring.vertex_order =
          r.get_enum<VertexOrder>(*v, "preconditioner.coloring.vertex_order");
    }
    if (const Entry* v = coloring.find("balance")) {
      options.coloring.balance = r.get_bool(*v, "preconditioner.coloring.balance");
    }
  }
  if (const Entry* e = map.find("trisolve")) {
    options.trisolve = r.get_enum<TrisolveAlgorithm>(*e, "preconditioner.trisolve");
  }
  if (const Entry* e = map.find("colorset_layout")) {
    options.colorset_layout = r.get_enum<ColorsetLayout>(*e, "preconditioner.colorset_layout");
  }
  if (const Entry* e = map.find("ic0")) {
    if (options.type != "ic0") {
      r.fail(e->key_mark, "preconditioner.ic0: options for ic0 given, but type is " + options.type);
    }
    const Map ic0 =
        r.expect_map(*e, "preconditioner.ic0",
                     {"initial_shift", "max_shift_retries", "factorization", "precision"});
    if (const Entry* v = ic0.find("initial_shift")) {
      options.ic0.initial_shift = r.get_double(*v, "preconditioner.ic0.initial_shift");
      if (!(options.ic0.initial_shift > 0.0)) {
        r.fail(Reader::where(*v),
               "preconditioner.ic0.initial_shift: must be > 0, got " + v->value.Scalar());
      }
    }
    if (const Entry* v = ic0.find("max_shift_retries")) {
      options.ic0.max_shift_retries =
          static_cast<int>(r.get_int(*v, "preconditioner.ic0.max_shift_retries", 0));
    }
    if (const Entry* v = ic0.find("factorization")) {
      options.ic0.factorization =
          r.get_enum<Ic0Factorization>(*v, "preconditioner.ic0.factorization");
    }
    if (const Entry* v = ic0.find("precision")) {
      options.ic0.precision = r.get_enum<Precision>(*v, "preconditioner.ic0.precision");
    }
  }
}

void read_output(const Reader& r, const Entry& entry, OutputSpec& output) {
  const Map map = r.expect_map(entry, "output", {"report", "history", "solution"});
  if (const Entry* e = map.find("report")) output.report = r.get_string(*e, "output.report");
  if (const Entry* e = map.find("history")) output.history = r.get_string(*e, "output.history");
  if (const Entry* e = map.find("solution")) output.solution = r.get_string(*e, "output.solution");
}

void read_logging(const Reader& r, const Entry& entry, LoggingSpec& logging) {
  static const std::vector<std::string> levels{"trace", "debug", "info", "warn", "error", "off"};
  const Map map = r.expect_map(entry, "logging", {"level", "print_every"});
  if (const Entry* e = map.find("level")) logging.level = r.get_choice(*e, "logging.level", levels);
  if (const Entry* e = map.find("print_every")) {
    logging.print_every = static_cast<int>(r.get_int(*e, "logging.print_every", 0));
  }
}

std::vector<YAML::Node> parse_documents(const std::string& path, const Reader& r) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) throw IoError(path + ": is a directory, not a problem file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw IoError(path + ": cannot open problem file");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw IoError(path + ": cannot read problem file");
  try {
    return YAML::LoadAll(text.str());
  } catch (const YAML::ParserException& e) {
    r.fail(e.mark, "YAML syntax error: " + e.msg);
  } catch (const YAML::Exception& e) {
    r.fail(e.mark, "invalid YAML: " + e.msg);
  }
}

}  // namespace

ProblemSpec load_problem_file(const std::string& path) {
  const Reader r(path);
  const std::vector<YAML::Node> documents = parse_documents(path, r);
  if (documents.empty() || documents[0].IsNull()) {
    r.fail(YAML::Mark(), "empty problem file; expected a map with at least 'matrix'");
  }
  if (documents.size() > 1) {
    r.fail(documents[1].Mark(),
           "expected one YAML document, found " + std::to_string(documents.size()));
  }
  const Map top = r.expect_map(documents[0], documents[0].Mark(), "",
                               {"name", "matrix", "rhs", "initial_guess", "solver",
                                "preconditioner", "backend", "output", "logging"});

  ProblemSpec spec;
  spec.source_path = path;
  spec.name = fs::path(path).stem().string();
  if (const Entry* e = top.find("name")) spec.name = r.get_string(*e, "name");
  spec.matrix = read_matrix(r, r.require(top, "matrix"));
  if (const Entry* e = top.find("rhs")) spec.rhs = read_rhs(r, *e);
  if (const Entry* e = top.find("initial_guess")) spec.initial_guess = read_initial_guess(r, *e);
  if (const Entry* e = top.find("solver")) read_solver(r, *e, spec.config.solver);
  if (const Entry* e = top.find("preconditioner")) {
    read_preconditioner(r, *e, spec.config.preconditioner);
  }
  if (const Entry* e = top.find("backend")) {
    spec.config.backend = r.get_enum<BackendKind>(*e, "backend");
  }
  if (const Entry* e = top.find("output")) read_output(r, *e, spec.output);
  if (const Entry* e = top.find("logging")) read_logging(r, *e, spec.logging);
  return spec;
}

}  // namespace prism
