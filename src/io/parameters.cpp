#include "io/parameters.hpp"

#include <prism/options.hpp>
#include <prism/solver.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>

namespace prism {
namespace {

using Type = ParameterType;
using Getter = std::function<std::string(const ProblemSpec&)>;

// Builders that keep each table row to one declaration.

Parameter key(std::string dotted, Type type, std::string doc, std::string example,
              Getter value = {}) {
  Parameter p;
  p.key = std::move(dotted);
  p.type = type;
  p.doc = std::move(doc);
  p.example = std::move(example);
  p.value = std::move(value);
  return p;
}

Parameter section(std::string dotted, std::string doc, std::string example) {
  return key(std::move(dotted), Type::section, std::move(doc), std::move(example));
}

/// A section that also takes one of `names` alone, as shorthand for {type: NAME}.
Parameter section_or_name(std::string dotted, std::vector<std::string> names, std::string doc,
                          std::string example, Getter value) {
  Parameter p =
      key(std::move(dotted), Type::section, std::move(doc), std::move(example), std::move(value));
  p.values = std::move(names);
  return p;
}

Parameter choice(std::string dotted, std::vector<std::string> names, std::string doc,
                 std::string example, Getter value) {
  Parameter p =
      key(std::move(dotted), Type::choice, std::move(doc), std::move(example), std::move(value));
  p.values = std::move(names);
  return p;
}

template <typename E>
std::vector<std::string> names_of() {
  std::vector<std::string> out;
  for (const auto& entry : enum_names<E>()) out.emplace_back(entry.second);
  return out;
}

template <typename Kind>
std::vector<std::string> names_of(const std::vector<std::pair<Kind, std::string_view>>& table) {
  std::vector<std::string> out;
  for (const auto& entry : table) out.emplace_back(entry.second);
  return out;
}

template <typename Kind>
std::string name_of(const std::vector<std::pair<Kind, std::string_view>>& table, Kind kind) {
  for (const auto& entry : table) {
    if (entry.first == kind) return std::string(entry.second);
  }
  return "?";
}

/// An enum-valued key: the names are enum_names<E>(), the value read through `get`.
template <typename E>
Parameter enumerated(std::string dotted, std::string doc, std::string example,
                     E (*get)(const ProblemSpec&)) {
  return choice(std::move(dotted), names_of<E>(), std::move(doc), std::move(example),
                [get](const ProblemSpec& s) { return std::string(to_string(get(s))); });
}

Getter integer_value(int (*get)(const ProblemSpec&)) {
  return [get](const ProblemSpec& s) { return std::to_string(get(s)); };
}

Getter real_value(double (*get)(const ProblemSpec&)) {
  return [get](const ProblemSpec& s) { return format_number(get(s)); };
}

Parameter at_least(Parameter p, double v) {
  p.min = {true, v, false};
  return p;
}
Parameter above(Parameter p, double v) {
  p.min = {true, v, true};
  return p;
}
Parameter at_most(Parameter p, double v) {
  p.max = {true, v, false};
  return p;
}
Parameter below(Parameter p, double v) {
  p.max = {true, v, true};
  return p;
}
Parameter required(Parameter p) {
  p.required = true;
  return p;
}
/// A default the reader computes or a rule states, where the struct's value would mislead.
Parameter default_is(Parameter p, std::string note) {
  p.default_note = std::move(note);
  return p;
}
Parameter only_for(Parameter p, std::string sibling, std::vector<std::string> values) {
  p.applies = {std::move(sibling), std::move(values)};
  return p;
}

std::vector<std::string> all_but(const std::vector<std::string>& names,
                                 const std::vector<std::string>& excluded) {
  std::vector<std::string> out;
  for (const auto& n : names) {
    bool skip = false;
    for (const auto& e : excluded) skip = skip || n == e;
    if (!skip) out.push_back(n);
  }
  return out;
}

/// name and the matrix section.
void add_matrix_keys(std::vector<Parameter>& t) {
  const std::vector<std::string>& generators = generator_names();
  const std::vector<std::string> three_d{"poisson3d",    "anisotropic3d", "layered3d",
                                         "elasticity3d", "stretched3d",   "rotated3d"};
  const std::vector<std::string> layered{"layered2d", "layered3d", "elasticity3d"};
  t.push_back(default_is(key("name", Type::string, "Name shown in the report.", "demo",
                             [](const ProblemSpec& s) { return s.name; }),
                         "the file name without extension"));

  t.push_back(required(section("matrix", "Where A comes from: a Matrix Market file or a generator.",
                               "{generator: poisson3d, nx: 2, ny: 2, nz: 2}")));
  const std::string file_or_generator = "file or generator required";
  t.push_back(
      default_is(only_for(key("matrix.file", Type::path,
                              "Matrix Market file (.mtx or .mtx.gz), relative to the problem file.",
                              "A.mtx", [](const ProblemSpec& s) { return s.matrix.file; }),
                          "generator", {""}),
                 file_or_generator));
  t.push_back(default_is(
      choice("matrix.generator", generators,
             "Generated matrix: Poisson, anisotropic (rotated3d: strong along a diagonal), layered "
             "(jumping) coefficients, a stretched grid or linear elasticity on a structured "
             "grid.",
             "poisson3d", [](const ProblemSpec& s) { return s.matrix.generator.name; }),
      file_or_generator));
  t.push_back(required(only_for(
      at_least(key("matrix.nx", Type::integer, "Grid points in x.", "5",
                   integer_value([](const ProblemSpec& s) { return s.matrix.generator.nx; })),
               1),
      "generator", generators)));
  t.push_back(required(only_for(
      at_least(key("matrix.ny", Type::integer, "Grid points in y.", "5",
                   integer_value([](const ProblemSpec& s) { return s.matrix.generator.ny; })),
               1),
      "generator", generators)));
  t.push_back(required(only_for(
      at_least(key("matrix.nz", Type::integer, "Grid points in z.", "5",
                   integer_value([](const ProblemSpec& s) { return s.matrix.generator.nz; })),
               1),
      "generator", three_d)));
  Parameter stencil =
      key("matrix.stencil", Type::integer, "Points of the finite-difference stencil.", "27",
          integer_value([](const ProblemSpec& s) { return s.matrix.generator.stencil; }));
  stencil.values = {"7", "27"};
  t.push_back(only_for(stencil, "generator", {"poisson3d"}));
  t.push_back(required(only_for(at_least(key("matrix.layers", Type::integer,
                                             "Number of slabs of equal thickness along z "
                                             "(y in 2D), each with its own coefficient; at "
                                             "most nz (ny in 2D).",
                                             "3", integer_value([](const ProblemSpec& s) {
                                               return s.matrix.generator.layers;
                                             })),
                                         1),
                                "generator", layered)));
  t.push_back(required(only_for(
      at_most(
          above(key("matrix.coefficients", Type::real_list,
                    "anisotropic: one per direction (2 in 2D, 3 in 3D); layered: one per layer, "
                    "elasticity3d: Young's modulus per layer, at most `layers` of them (fewer "
                    "repeat in turn: 2 for 8 layers alternate); stretched3d: the wall cell's "
                    "aspect ratio, one value; rotated3d: along the diagonals (1, 1, 0) and (1, -1, "
                    "0) "
                    "and along z, three values.",
                    "[2.0, 0.5]",
                    [](const ProblemSpec& s) {
                      std::vector<std::string> items;
                      for (double c : s.matrix.generator.coefficients)
                        items.push_back(format_number(c));
                      return "[" + join(items, ", ") + "]";
                    }),
                0.0),
          1e300),
      "generator", all_but(generators, {"poisson2d", "poisson3d"}))));
}

/// The right-hand side and the initial guess.
void add_vector_keys(std::vector<Parameter>& t) {
  const std::vector<std::string> rhs_kinds = names_of(rhs_kind_names());
  const std::vector<std::string> guess_kinds = names_of(initial_guess_kind_names());
  const Getter rhs_kind = [](const ProblemSpec& s) {
    return name_of(rhs_kind_names(), s.rhs.kind);
  };
  const Getter guess_kind = [](const ProblemSpec& s) {
    return name_of(initial_guess_kind_names(), s.initial_guess.kind);
  };
  t.push_back(section_or_name("rhs", all_but(rhs_kinds, {"file"}),
                              "Right-hand side b: a map, or a type name alone.", "ones", rhs_kind));
  t.push_back(required(choice("rhs.type", rhs_kinds,
                              "manufactured: b = A * 1 (exact solution all ones); ones: b = 1; "
                              "random: uniform in [-1, 1); file: read from a file.",
                              "ones", rhs_kind)));
  t.push_back(only_for(key("rhs.seed", Type::seed, "Seed of the random right-hand side.", "5",
                           [](const ProblemSpec& s) { return std::to_string(s.rhs.seed); }),
                       "type", {"random"}));
  t.push_back(only_for(
      at_least(key("rhs.columns", Type::integer,
                   "Right-hand sides solved together (column j from seed + j): one multi-column "
                   "solve, each column reported.",
                   "8", integer_value([](const ProblemSpec& s) { return s.rhs.columns; })),
               1.0),
      "type", {"random"}));
  t.push_back(required(
      only_for(key("rhs.file", Type::path, "Matrix Market vector, relative to the problem file.",
                   "b.mtx", [](const ProblemSpec& s) { return s.rhs.file; }),
               "type", {"file"})));

  t.push_back(section_or_name("initial_guess", all_but(guess_kinds, {"file"}),
                              "Initial guess x0: a map, or a type name alone.", "random",
                              guess_kind));
  t.push_back(required(choice("initial_guess.type", guess_kinds,
                              "zero: x0 = 0; random: uniform in [-1, 1); file: read from a file.",
                              "random", guess_kind)));
  t.push_back(
      only_for(key("initial_guess.seed", Type::seed, "Seed of the random initial guess.", "99",
                   [](const ProblemSpec& s) { return std::to_string(s.initial_guess.seed); }),
               "type", {"random"}));
  t.push_back(required(only_for(
      key("initial_guess.file", Type::path, "Matrix Market vector, relative to the problem file.",
          "x0.mtx", [](const ProblemSpec& s) { return s.initial_guess.file; }),
      "type", {"file"})));
}

void add_solver_keys(std::vector<Parameter>& t) {
  t.push_back(section("solver", "Stopping rule, timing and algorithms of the CG iteration.",
                      "{max_iterations: 50}"));
  t.push_back(below(
      above(key("solver.tolerance", Type::real, "Stop when ||r_k|| <= tolerance * ||b||.", "1e-6",
                real_value([](const ProblemSpec& s) { return s.config.solver.tolerance; })),
            0.0),
      1.0));
  t.push_back(at_least(key("solver.absolute_tolerance", Type::real,
                           "Also stop when ||r_k|| <= absolute_tolerance (in the units of b); 0: "
                           "the relative tolerance alone.",
                           "1e-12", real_value([](const ProblemSpec& s) {
                             return s.config.solver.absolute_tolerance;
                           })),
                       0.0));
  t.push_back(at_least(
      key("solver.max_iterations", Type::integer, "Stop after this many iterations.", "50",
          integer_value([](const ProblemSpec& s) { return s.config.solver.max_iterations; })),
      1));
  t.push_back(
      at_least(key("solver.check_every", Type::integer,
                   "Read the residual back and test convergence every this many iterations.", "5",
                   integer_value([](const ProblemSpec& s) { return s.config.solver.check_every; })),
               1));
  t.push_back(enumerated<TimingMode>(
      "solver.timing",
      "phases: time every phase of every iteration; total: only the whole solve (needed by "
      "graph on and loop).",
      "total", [](const ProblemSpec& s) { return s.config.solver.timing; }));
  t.push_back(enumerated<SpmvAlgorithm>(
      "solver.spmv",
      "Sparse matrix-vector product: cusparse (cuda only), csr_vector, sell or bsr (prism's "
      "kernels; bsr on uniform node blocks, else auto's choice; the threaded cpu kernels run "
      "sell as SELL-8, the others as CSR); auto picks per backend.",
      "csr_vector", [](const ProblemSpec& s) { return s.config.solver.spmv; }));
  t.push_back(enumerated<GraphMode>(
      "solver.graph",
      "Record the iteration once and replay it (on), run the whole loop on the device (loop), "
      "or launch every operation (off); auto records where the backend can and timing is total.",
      "off", [](const ProblemSpec& s) { return s.config.solver.graph; }));
  t.push_back(enumerated<MatrixCheck>(
      "solver.check",
      "What setup and refactor check of the matrix: full (storage, symmetric pattern and "
      "values, finite values, positive diagonal), pattern (storage, symmetric pattern, stored "
      "diagonal; values not read), or none (storage alone).",
      "pattern", [](const ProblemSpec& s) { return s.config.solver.check; }));
  t.push_back(below(
      at_least(key("solver.symmetry_tolerance", Type::real,
                   "check full: accept |a_ij - a_ji| <= symmetry_tolerance * max|a| (1e-6 for a "
                   "matrix assembled in float).",
                   "1e-6", real_value([](const ProblemSpec& s) {
                     return s.config.solver.symmetry_tolerance;
                   })),
               0.0),
      1.0));
  t.push_back(enumerated<CgVariant>(
      "solver.cg_variant",
      "Distributed solves (mpirun -np P, P >= 2): classic PCG, two all-reduces per iteration, "
      "or single_reduction (Chronopoulos-Gear), one; auto: single_reduction. A one-process "
      "solve runs its one PCG loop whatever this says.",
      "classic", [](const ProblemSpec& s) { return s.config.solver.cg_variant; }));
  t.push_back(enumerated<DistributedTransport>(
      "solver.transport",
      "Distributed solves on GPU ranks: how the halo and the all-reduce travel: nccl (device "
      "buffers; needs a GPU per rank and a build with NCCL), mpi (the halo on device buffers "
      "where the MPI is CUDA-aware, else through host buffers), or "
      "auto (nccl where it can run, else mpi). cpu ranks use MPI whatever this says.",
      "mpi", [](const ProblemSpec& s) { return s.config.solver.transport; }));
  t.push_back(enumerated<SetupSite>(
      "solver.setup",
      "Where setup builds the SpMV layout and the factor's pattern and layouts after the "
      "permutation: auto (in the GPU's memory where it can: cuda with ic0 factored there in a "
      "color order, the ordered matrix never copied to the host; else the host), or host (the "
      "host builds them and uploads them).",
      "host", [](const ProblemSpec& s) { return s.config.solver.setup; }));
}

void add_preconditioner_keys(std::vector<Parameter>& t) {
  std::vector<std::string> preconditioners = preconditioner_names();
  preconditioners.insert(preconditioners.begin(), "auto");  // resolved per matrix, not registered
  const Getter preconditioner_type = [](const ProblemSpec& s) {
    return s.config.preconditioner.type;
  };
  t.push_back(section_or_name("preconditioner", preconditioners,
                              "The preconditioner: a map, or a type name alone.", "jacobi",
                              preconditioner_type));
  t.push_back(choice("preconditioner.type", preconditioners,
                     "auto: block_ic where the matrix has node blocks (2 rows or more on average, "
                     "or block_ic.block_size >= 2) and the ordering and coloring allow it, else "
                     "line_ic where lines of 4 rows or more on average hold at least 90% of "
                     "the rows and half the off-diagonal sum |a_ij| and the ordering is auto, else "
                     "ic0 (the report's plan says which and why); none: plain CG; jacobi: diagonal "
                     "scaling; ic0: incomplete Cholesky with no fill-in; block_ic: block "
                     "incomplete Cholesky on blocks of unknowns (FEM nodes), dense inside a "
                     "block; line_jacobi: block Jacobi on lines of strong couplings "
                     "(preconditioner.lines), a tridiagonal solve each; line_ic: block IC(0) "
                     "on those lines in a multicolor order of the lines, each line solved "
                     "exactly in its sweeps; "
                     "user: the embedding code's own, a callback "
                     "(Solver::set_preconditioner_callback), so not from a problem file.",
                     "jacobi", preconditioner_type));
  t.push_back(enumerated<Ordering>(
      "preconditioner.ordering",
      "Symmetric reordering before set-up: color (multicolor; block_ic colors its blocks), "
      "natural, or auto (color for ic0, block_ic and auto, natural otherwise; a coloring map "
      "makes it color).",
      "natural", [](const ProblemSpec& s) { return s.config.preconditioner.ordering; }));
  t.push_back(section("preconditioner.coloring", "How the rows are colored (ordering color).",
                      "{balance: true}"));
  t.push_back(enumerated<ColoringMethod>(
      "preconditioner.coloring.method",
      "greedy: Boost's sequential coloring; level_cyclic: a chosen number of colors that keeps "
      "most couplings in natural-order direction; jones_plassmann: a parallel coloring (hash "
      "priorities, then greedy recoloring of the color classes), on the GPU with backend "
      "cuda; parallel_greedy: greedy's coloring (vertex_order natural or largest_first) by "
      "parallel rounds, on the GPU with backend cuda; auto (the default): greedy's coloring, "
      "by parallel_greedy's rounds on the GPU with backend cuda (vertex_order natural or "
      "largest_first, and within the rounds' limit), else by greedy.",
      "level_cyclic",
      [](const ProblemSpec& s) { return s.config.preconditioner.coloring.method; }));
  t.push_back(at_most(
      at_least(key("preconditioner.coloring.colors", Type::integer,
                   "level_cyclic: number of colors (raised to max degree + 1 where needed).", "16",
                   integer_value([](const ProblemSpec& s) {
                     return s.config.preconditioner.coloring.colors;
                   })),
               1),
      4096));
  t.push_back(enumerated<VertexOrder>(
      "preconditioner.coloring.vertex_order",
      "greedy and parallel_greedy: order in which rows are colored (largest_first: "
      "Welsh-Powell; smallest_last: Matula-Beck, greedy only).",
      "largest_first",
      [](const ProblemSpec& s) { return s.config.preconditioner.coloring.vertex_order; }));
  t.push_back(key("preconditioner.coloring.balance", Type::boolean,
                  "greedy: even out the color sizes afterwards (same number of colors).", "true",
                  [](const ProblemSpec& s) {
                    return std::string(s.config.preconditioner.coloring.balance ? "true" : "false");
                  }));
  t.push_back(enumerated<TrisolveAlgorithm>(
      "preconditioner.trisolve",
      "IC(0) triangular solves: reference (cpu only), cusparse (cuda only), colorset (one "
      "parallel step per color); auto picks per backend and ordering.",
      "colorset", [](const ProblemSpec& s) { return s.config.preconditioner.trisolve; }));
  t.push_back(enumerated<ColorsetLayout>(
      "preconditioner.colorset_layout",
      "Storage of the triangle in the color-set solves: csr, sell (SELL-32 on the GPU, SELL-8 "
      "on the threaded cpu kernels), or auto.",
      "csr", [](const ProblemSpec& s) { return s.config.preconditioner.colorset_layout; }));
  t.push_back(only_for(section("preconditioner.ic0",
                               "Options of the IC(0) factorization (with type auto: its shift "
                               "keys apply to block_ic too, the others where auto picks ic0).",
                               "{max_shift_retries: 5}"),
                       "type", {"ic0", "auto"}));
  t.push_back(above(
      key("preconditioner.ic0.initial_shift", Type::real,
          "First diagonal shift tried when the factorization breaks down (doubled each retry).",
          "0.01", real_value([](const ProblemSpec& s) {
            return s.config.preconditioner.ic0.initial_shift;
          })),
      0.0));
  // The shift doubles each retry, so 200 retries span 60 orders of magnitude; the bound
  // keeps the ladder of shifts (and the attempts a backend runs together) small.
  t.push_back(at_most(at_least(key("preconditioner.ic0.max_shift_retries", Type::integer,
                                   "Shifted retries before the factorization gives up.", "5",
                                   integer_value([](const ProblemSpec& s) {
                                     return s.config.preconditioner.ic0.max_shift_retries;
                                   })),
                               0),
                      200));
  t.push_back(enumerated<Ic0Factorization>(
      "preconditioner.ic0.factorization",
      "Where the numeric factorization runs: host (then uploaded), backend (color by color in "
      "the backend's memory; needs trisolve colorset or auto), or auto.",
      "host", [](const ProblemSpec& s) { return s.config.preconditioner.ic0.factorization; }));
  t.push_back(enumerated<Precision>(
      "preconditioner.ic0.precision",
      "Precision of the stored factor: double, or mixed (float factor, double sums; needs "
      "trisolve colorset or auto).",
      "mixed", [](const ProblemSpec& s) { return s.config.preconditioner.ic0.precision; }));
  t.push_back(only_for(section("preconditioner.block_ic",
                               "Options of the block IC(0) preconditioner (the factor's scaling "
                               "and shift retries are those of ic0's defaults; with type auto: "
                               "where auto picks block_ic, and block_size >= 2 makes it pick "
                               "block_ic).",
                               "{block_size: 3}"),
                       "type", {"block_ic", "auto"}));
  t.push_back(at_most(
      at_least(key("preconditioner.block_ic.block_size", Type::integer,
                   "Unknowns per block (per FEM node: 3 for solids, 6 for shells); the last "
                   "block is shorter where it does not divide the rows. 0: node blocks found "
                   "from the pattern (runs of rows with the same columns).",
                   "3", integer_value([](const ProblemSpec& s) {
                     return s.config.preconditioner.block_ic.block_size;
                   })),
               0),
      4096));
  t.push_back(at_most(
      at_least(key("preconditioner.block_ic.supernode", Type::integer,
                   "Largest supernode: the blocks aggregated with their most strongly coupled "
                   "neighbours into dense diagonal blocks of up to this many rows (fewer "
                   "iterations, a larger factor); 0: the blocks as they are.",
                   "24", integer_value([](const ProblemSpec& s) {
                     return s.config.preconditioner.block_ic.supernode;
                   })),
               0),
      4096));
  t.push_back(enumerated<Precision>(
      "preconditioner.block_ic.precision",
      "Precision of the stored off-diagonal blocks of the solves: double, or mixed (float, "
      "double sums; needs trisolve colorset or auto).",
      "mixed", [](const ProblemSpec& s) { return s.config.preconditioner.block_ic.precision; }));
  t.push_back(enumerated<BlockIcSolve>(
      "preconditioner.block_ic.solve",
      "How the solves apply the diagonal blocks: inverted (inverted at set-up; per half a "
      "block diagonal product and a color-set solve) or trsv (the factor as it is, a warp per "
      "block row solving its diagonal block by substitution; trisolve does not apply).",
      "trsv", [](const ProblemSpec& s) { return s.config.preconditioner.block_ic.solve; }));
  t.push_back(enumerated<Ic0Factorization>(
      "preconditioner.block_ic.factorization",
      "Where the factor and the solves' operators are computed: host (then uploaded), backend "
      "(in the backend's memory, the block rows of a color at once; needs trisolve colorset or "
      "auto), or auto (backend on a GPU).",
      "host", [](const ProblemSpec& s) { return s.config.preconditioner.block_ic.factorization; }));
  t.push_back(only_for(section("preconditioner.lines",
                               "How line_jacobi and line_ic find their lines (find_lines): each "
                               "row links to its one or two strongest couplings where they "
                               "dominate the others (with type auto: the lines auto judges, and "
                               "line_ic's where it picks line_ic).",
                               "{dominance: 8}"),
                       "type", {"line_jacobi", "line_ic", "auto"}));
  t.push_back(above(key("preconditioner.lines.dominance", Type::real,
                        "A row's chosen couplings must be at least this many times stronger "
                        "than every other coupling of the row.",
                        "8", real_value([](const ProblemSpec& s) {
                          return s.config.preconditioner.lines.dominance;
                        })),
                    1.0));
  t.push_back(below(at_least(key("preconditioner.lines.min_strength", Type::real,
                                 "Weakest link |a_ij| / sqrt(a_ii a_jj) a line may have.", "0.2",
                                 real_value([](const ProblemSpec& s) {
                                   return s.config.preconditioner.lines.min_strength;
                                 })),
                             0.0),
                    1.0));
  t.push_back(at_least(key("preconditioner.lines.max_length", Type::integer,
                           "Longest line; a longer chain is cut into pieces of nearly equal "
                           "length.",
                           "64", integer_value([](const ProblemSpec& s) {
                             return s.config.preconditioner.lines.max_length;
                           })),
                       1));
}

/// The backend and what the CLI prints and writes.
void add_run_keys(std::vector<Parameter>& t) {
  t.push_back(enumerated<BackendKind>(
      "backend",
      "Where the iterations run: cpu, cuda, or auto (cuda when a GPU is usable and the "
      "problem fits its memory, else cpu).",
      "cpu", [](const ProblemSpec& s) { return s.config.backend; }));
  t.push_back(enumerated<CpuKernels>(
      "cpu_kernels",
      "Kernels of the cpu backend: threaded (every host thread, PRISM_HOST_THREADS caps them; "
      "sums in a fixed order, so the results do not depend on the thread count) or reference "
      "(one thread, the plain kernels every other kernel is tested against).",
      "reference", [](const ProblemSpec& s) { return s.config.cpu_kernels; }));
  t.push_back(
      at_least(key("device", Type::integer,
                   "The CUDA device the solver works on (backend cuda, or auto where "
                   "it takes cuda), numbered from 0; -1: the current device (0 unless "
                   "a program embedding prism made another current).",
                   "1", integer_value([](const ProblemSpec& s) { return s.config.device; })),
               -1));

  t.push_back(section("output",
                      "Files the CLI writes; paths are relative to the current "
                      "directory, and an empty or absent path writes nothing.",
                      "{report: out/r.json}"));
  t.push_back(key("output.report", Type::path, "JSON report of the solve.", "out/r.json",
                  [](const ProblemSpec& s) { return s.output.report; }));
  t.push_back(key("output.history", Type::path, "CSV residual history.", "out/r.csv",
                  [](const ProblemSpec& s) { return s.output.history; }));
  t.push_back(key("output.solution", Type::path, "Solution as a Matrix Market vector.", "out/x.mtx",
                  [](const ProblemSpec& s) { return s.output.solution; }));

  t.push_back(section("logging", "Console output of the CLI.", "{print_every: 0}"));
  t.push_back(choice("logging.level", {"trace", "debug", "info", "warn", "error", "off"},
                     "Least severe message printed.", "warn",
                     [](const ProblemSpec& s) { return s.logging.level; }));
  t.push_back(
      at_least(key("logging.print_every", Type::integer,
                   "Print a row of the iteration table every this many iterations (0: "
                   "none).",
                   "0", integer_value([](const ProblemSpec& s) { return s.logging.print_every; })),
               0));
}

std::vector<Parameter> build_table() {
  std::vector<Parameter> t;
  add_matrix_keys(t);
  add_vector_keys(t);
  add_solver_keys(t);
  add_preconditioner_keys(t);
  add_run_keys(t);
  return t;
}

}  // namespace

std::string join(const std::vector<std::string>& items, std::string_view separator) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += separator;
    out += item;
  }
  return out;
}

std::string format_number(double v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  // Whole numbers as integers ("200", not "2e2").
  if (v == std::trunc(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  char buffer[32];
  for (int digits = 1; digits <= 17; ++digits) {
    std::snprintf(buffer, sizeof buffer, "%.*g", digits, v);
    if (std::strtod(buffer, nullptr) == v) break;
  }
  // "1e-08" -> "1e-8": the exponent without its padding zeros.
  std::string text = buffer;
  const std::size_t e = text.find('e');
  if (e != std::string::npos) {
    std::size_t digit = e + 1;
    if (digit < text.size() && (text[digit] == '-' || text[digit] == '+')) {
      if (text[digit] == '+')
        text.erase(digit, 1);
      else
        ++digit;
    }
    while (digit + 1 < text.size() && text[digit] == '0') text.erase(digit, 1);
  }
  return text;
}

const std::vector<std::string>& generator_names() {
  static const std::vector<std::string> names{"poisson2d",     "poisson3d",   "anisotropic2d",
                                              "anisotropic3d", "layered2d",   "layered3d",
                                              "elasticity3d",  "stretched3d", "rotated3d"};
  return names;
}

const std::vector<std::pair<RhsSpec::Kind, std::string_view>>& rhs_kind_names() {
  using Kind = RhsSpec::Kind;
  static const std::vector<std::pair<Kind, std::string_view>> names{
      {Kind::ones, "ones"},
      {Kind::random, "random"},
      {Kind::manufactured, "manufactured"},
      {Kind::file, "file"}};
  return names;
}

const std::vector<std::pair<InitialGuessSpec::Kind, std::string_view>>& initial_guess_kind_names() {
  using Kind = InitialGuessSpec::Kind;
  static const std::vector<std::pair<Kind, std::string_view>> names{
      {Kind::zero, "zero"}, {Kind::random, "random"}, {Kind::file, "file"}};
  return names;
}

const std::vector<Parameter>& parameters() {
  static const std::vector<Parameter> table = build_table();
  return table;
}

const Parameter* find_parameter(std::string_view key) {
  for (const Parameter& p : parameters()) {
    if (p.key == key) return &p;
  }
  return nullptr;
}

const Parameter& parameter(std::string_view key) {
  const Parameter* p = find_parameter(key);
  if (p == nullptr) {
    throw std::logic_error(
        "problem-file key '" + std::string(key) +
        "' is read but not declared in the parameter table (src/io/parameters.cpp)");
  }
  return *p;
}

std::vector<const Parameter*> parameters_in(std::string_view section) {
  std::vector<const Parameter*> out;
  for (const Parameter& p : parameters()) {
    if (p.parent() == section) out.push_back(&p);
  }
  return out;
}

bool is_solver_config_key(std::string_view key) {
  // SolverConfig is exactly the solver, preconditioner, backend, cpu_kernels and device keys
  // (its stream is the embedding program's, never a key).
  return key == "backend" || key == "cpu_kernels" || key == "device" ||
         key.rfind("solver.", 0) == 0 || key.rfind("preconditioner.", 0) == 0;
}

std::string Parameter::parent() const {
  const std::size_t dot = key.rfind('.');
  return dot == std::string::npos ? std::string() : key.substr(0, dot);
}

std::string Parameter::name() const {
  const std::size_t dot = key.rfind('.');
  return dot == std::string::npos ? key : key.substr(dot + 1);
}

bool Parameter::in_range(double v) const {
  if (std::isnan(v)) return false;
  if (min.set && (min.open ? !(v > min.value) : !(v >= min.value))) return false;
  if (max.set && (max.open ? !(v < max.value) : !(v <= max.value))) return false;
  if (type == ParameterType::integer && !values.empty()) {
    for (const auto& allowed : values) {
      if (std::to_string(static_cast<long long>(v)) == allowed) return true;
    }
    return false;
  }
  return true;
}

std::string Parameter::range_text() const {
  if (type == ParameterType::integer && !values.empty()) {
    std::string out;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (i > 0) out += i + 1 == values.size() ? " or " : ", ";
      out += values[i];
    }
    return out;
  }
  if (min.set && max.set && !min.open && !max.open) {
    return "in [" + format_number(min.value) + ", " + format_number(max.value) + "]";
  }
  std::string out;
  if (min.set) out = (min.open ? "> " : ">= ") + format_number(min.value);
  if (max.set) {
    if (!out.empty()) out += " and ";
    out += (max.open ? "< " : "<= ") + format_number(max.value);
  }
  return out;
}

std::string Parameter::type_name() const {
  switch (type) {
    case ParameterType::integer:
      return "int";
    case ParameterType::real:
      return "double";
    case ParameterType::boolean:
      return "bool";
    case ParameterType::string:
      return "string";
    case ParameterType::choice:
      return "enum";
    case ParameterType::path:
      return "path";
    case ParameterType::real_list:
      return "list of doubles";
    case ParameterType::section:
      return values.empty() ? "map" : "map or name";
    case ParameterType::seed:
      return "seed";
  }
  return "?";
}

std::string Parameter::default_text() const {
  if (required) return "required";
  if (!default_note.empty()) return default_note;
  if (!value) return "";
  return value(ProblemSpec{});
}

std::string Parameter::condition_text() const {
  if (applies.key.empty()) return "";
  if (applies.values.size() == 1 && applies.values[0].empty()) return "without " + applies.key;
  const std::string sibling = parent().empty() ? applies.key : parent() + "." + applies.key;
  const Parameter* condition = find_parameter(sibling);
  if (condition != nullptr && condition->values == applies.values) return "with " + applies.key;
  const std::string subject = applies.key == "type" ? parent() + " type" : applies.key;
  return subject + " " + join(applies.values, ", ");
}

}  // namespace prism
