#pragma once
/// @file
/// Solver, preconditioner and backend options: plain structs with documented
/// defaults, and the enums behind every algorithm choice with their string names.

#include <prism/types.hpp>

#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace prism {

/// Where the PCG iterations run.
enum class BackendKind {
  automatic,  ///< "auto": the CUDA backend when a GPU is present, else the CPU
  cpu,        ///< "cpu": the host's cores (SolverConfig::cpu_kernels), runs everywhere
  cuda,       ///< "cuda": NVIDIA GPU; an error when none is present
};

/// The kernels of the cpu backend.
enum class CpuKernels {
  threaded,   ///< "threaded": every host thread (PRISM_HOST_THREADS caps them), sums in a
              ///< fixed order, so results do not depend on the number of threads
  reference,  ///< "reference": the reference kernels on one thread, the oracle of the others
};

/// Symmetric reordering applied before the preconditioner is set up.
enum class Ordering {
  automatic,  ///< "auto": color for ic0, block_ic and type auto (whose factor and solves
              ///< it parallelises), natural for the others (jacobi, none), which it would
              ///< only cost set-up and SpMV locality; Solver resolves it (resolved_ordering)
  natural,    ///< "natural": the user's ordering
  color,      ///< "color": multicolor ordering (colors by decreasing size)
};

/// Vertex visiting order of the greedy (sequential) coloring.
enum class VertexOrder {
  natural,        ///< "natural": rows in index order
  largest_first,  ///< "largest_first": by decreasing degree (Welsh-Powell)
  smallest_last,  ///< "smallest_last": Matula-Beck smallest-last ordering
};

/// How the rows are colored (ordering: color).
enum class ColoringMethod {
  greedy,        ///< "greedy": Boost's sequential coloring (fewest colors it finds)
  level_cyclic,  ///< "level_cyclic": level-cyclic multicolor, a chosen number of colors
                 ///< that keeps most couplings in natural-order direction
  /// "jones_plassmann": parallel Jones-Plassmann coloring (hash priorities) with iterated
  /// greedy recoloring; on the GPU with the cuda backend, the same coloring on the host
  /// with the cpu backend
  jones_plassmann,
  /// "parallel_greedy": greedy's coloring (same vertex_order, natural or largest_first) by
  /// parallel rounds, each coloring the rows whose earlier neighbours are all colored; on
  /// the GPU with the cuda backend, on the host with the cpu backend
  parallel_greedy,
  /// "auto": greedy's coloring, computed where it is fastest: by parallel_greedy's rounds
  /// on the GPU with the cuda backend (vertex_order natural or largest_first), else (and
  /// where the rounds would pass their limit) by Boost's sequential coloring
  automatic,
};

/// Sparse triangular solve algorithm of the IC(0) preconditioner.
enum class TrisolveAlgorithm {
  automatic,  ///< "auto": cpu: colorset (threaded kernels) or reference (reference
              ///< kernels); cuda: colorset when the factor splits into few
              ///< independent row blocks (ordering: color), else cusparse
  reference,  ///< "reference": row-by-row substitution on the CPU (the oracle)
  cusparse,   ///< "cusparse": cusparseSpSV, the level-set baseline (Naumov 2011), cuda only
  colorset,   ///< "colorset": one parallel step per independent block of rows (a color;
              ///< Suchoski 2012); cpu (threaded, or the reference twin) and cuda
};

/// Sparse matrix-vector product algorithm.
enum class SpmvAlgorithm {
  automatic,   ///< "auto": cpu (threaded kernels): sell where SELL-8 moves no more bytes than
               ///< CSR, else its CSR SpMV (the reference kernels: CSR); cuda: sell unless
               ///< the SELL-32 padding is large (more than 1.5 stored entries a nonzero),
               ///< then cusparse
  cusparse,    ///< "cusparse": cusparseSpMV (CSR_ALG2), cuda only
  csr_vector,  ///< "csr_vector": prism's kernel, a power-of-two group of threads per row
               ///< sized from the mean row length; cuda (the cpu runs its CSR SpMV)
  sell,        ///< "sell": prism's kernel on the SELL-C layout (kernels/sell.hpp); cuda:
               ///< SELL-32, one thread per row; cpu (threaded kernels): SELL-8, a slice's
               ///< rows in SIMD lanes (the reference kernels run their CSR SpMV)
  bsr,         ///< "bsr": prism's kernel on b x b blocks (kernels/bsr.hpp), a warp per block
               ///< row, for matrices whose node blocks (find_node_blocks) all have b >= 2
               ///< rows; where they do not, the choice of auto (the matrix's algorithm()
               ///< says so); cuda (the cpu runs its CSR SpMV)
};

/// Storage of the strict triangle in the color-set solves (the reference kernels: CSR).
enum class ColorsetLayout {
  automatic,  ///< "auto": sell unless padding makes it move too many bytes (cuda: also for
              ///< small colors), then csr
  csr,        ///< "csr": CSR; cuda: a power-of-two group of threads per row
  sell,       ///< "sell": SELL-C (kernels/sell.hpp); cuda: SELL-32, one thread per row,
              ///< coalesced; cpu (threaded kernels): SELL-8, a slice's rows in SIMD lanes
};

/// Where the IC(0) numeric factorization runs.
enum class Ic0Factorization {
  automatic,  ///< "auto": backend on cuda for color-set solves of a multicolor order,
              ///< else host (SolveReport::plan says which, and why)
  host,       ///< "host": the reference kernel on the CPU, then uploaded
  backend,    ///< "backend": in the backend's memory, color by color (the GPU on cuda),
              ///< solved with the color-set solves
};

/// How block_ic applies the diagonal blocks of its factor in the solves.
enum class BlockIcSolve {
  inverted,  ///< "inverted": the diagonal blocks inverted at set-up (Hogg's inversion), each
             ///< half a block diagonal SpMV and a color-set solve with a unit diagonal
  trsv,      ///< "trsv": the factor as it is (one column index per block), each half a
             ///< launch per color, a warp per block row solving its diagonal block by
             ///< substitution
};

/// Precision of the IC(0) factor in the triangular solves.
enum class Precision {
  fp64,   ///< "double": factor and solves in double
  mixed,  ///< "mixed": the factor stored in float (half the value bytes), the sums and
          ///< vectors in double, inside the double CG
};

/// How much of each solve is timed.
enum class TimingMode {
  phases,  ///< "phases": every phase of every iteration (events on the GPU)
  total,   ///< "total": only the whole solve, nothing recorded inside the iteration
};

/// Whether the PCG iteration is recorded once and replayed (a CUDA graph on the GPU),
/// and whether the convergence test runs on the device.
enum class GraphMode {
  automatic,  ///< "auto": loop where the backend records graphs with device-side loops,
              ///< else on where it records graphs; off unless timing is total
  on,         ///< "on": replayed between host convergence checks (timing: total, cuda)
  loop,       ///< "loop": the whole iteration loop, convergence test included, runs on
              ///< the device (a CUDA graph while node): no host round trip per iteration
  off,        ///< "off": every operation launched one by one
};

/// The PCG recurrences of a distributed solve (include/prism/distributed.hpp, `mpirun -np P
/// prism solve`); a one-process solve runs prism's one PCG loop whatever this says.
enum class CgVariant {
  automatic,         ///< "auto": single_reduction
  classic,           ///< "classic": Hestenes-Stiefel, two all-reduces per iteration: (p, A p),
                     ///< then (r, z) with (r, r)
  single_reduction,  ///< "single_reduction": Chronopoulos and Gear (1989): (r, z), (r, r) and
                     ///< (A z, z) in one all-reduce per iteration, for one more vector update
};

/// Where setup() builds the solver's storage (the SpMV layout, the factor's pattern, split
/// and layouts) after the permutation.
enum class SetupSite {
  automatic,  ///< "auto": in the backend's memory where the backend keeps the ordered matrix
              ///< there (cuda, ic0 factored on the backend in a color order), else the host
  host,       ///< "host": the host builds it and uploads it (the ordered matrix comes back)
};

/// How the GPU ranks of a distributed solve exchange the halo and sum the dot products.
enum class DistributedTransport {
  automatic,  ///< "auto": nccl where built and every rank has a GPU of its own, else mpi
  mpi,        ///< "mpi": MPI (GPU ranks: device buffers where CUDA-aware, else via the host)
  nccl,       ///< "nccl": NCCL on device buffers (grouped ncclSend/ncclRecv, ncclAllReduce)
};

/// Names of an enum's values, in declaration order (the strings used in YAML).
template <typename E>
const std::vector<std::pair<E, std::string_view>>& enum_names();

/// The string name of an enum value.
template <typename E>
std::string_view to_string(E value);

/// Parses an enum by name; returns false when the name is unknown.
template <typename E>
bool from_string(std::string_view name, E& value);

/// "a | b | c": the allowed names of an enum, for error messages and help.
template <typename E>
std::string allowed_names();

/// Options of the graph coloring.
struct ColoringOptions {
  ColoringMethod method = ColoringMethod::automatic;
  /// greedy: the vertex visiting order.
  VertexOrder vertex_order = VertexOrder::natural;
  /// greedy: even the color sizes afterwards (balance_coloring(): same number of colors,
  /// the smallest color no smaller), as Suchoski 2012's future work suggests.
  bool balance = false;
  /// level_cyclic: the number of colors (raised to max degree + 1 where needed).
  int colors = 8;
};

/// Options of the IC(0) factorization. The matrix is scaled symmetrically to unit
/// diagonal; on breakdown (a pivot <= 0 or not finite) the factorization is retried on
/// A + shift I with shift = initial_shift, then doubled each retry (Manteuffel 1980;
/// Lin & More 1999; as Eigen's IncompleteCholesky).
struct Ic0Options {
  double initial_shift = 1e-3;
  int max_shift_retries = 30;
  Ic0Factorization factorization = Ic0Factorization::automatic;
  /// `mixed` needs the color-set solve (trisolve auto or colorset).
  Precision precision = Precision::fp64;
};

/// Preconditioner choice and its options.
/// Options of the block IC(0) preconditioner (`block_ic`): BIC(0) on blocks of
/// consecutive unknowns, dense inside a block, with ic0's scaling and shift retry
/// (PreconditionerOptions::ic0's initial_shift and max_shift_retries, which a problem
/// file sets for types ic0 and auto only: with type block_ic it takes their defaults).
struct BlockIcOptions {
  /// Unknowns per block (per FEM node), the last block shorter where it does not divide
  /// the rows; 0: node blocks found from the pattern (runs of rows with one pattern).
  int block_size = 0;
  /// Largest supernode: the blocks aggregated with their most strongly coupled neighbours
  /// into dense diagonal blocks of up to this many rows (aggregate_blocks); 0: the blocks
  /// as they are.
  int supernode = 0;
  /// mixed: the off-diagonal blocks of the solves in float (solve inverted: the color-set
  /// solves' operators W and V; trsv: the factor's blocks L_IJ), the diagonal blocks and
  /// the sums in double.
  Precision precision = Precision::fp64;
  /// How the solves apply the diagonal blocks.
  BlockIcSolve solve = BlockIcSolve::inverted;
  /// Where the factorization and the solves' operators are computed: host, backend (in
  /// its memory, block row by block row of a color at once), or automatic.
  Ic0Factorization factorization = Ic0Factorization::automatic;
};

/// Thresholds of find_lines() (include/prism/lines.hpp), the lines of line_jacobi; each
/// is checked (ConfigError) on use.
struct LineOptions {
  /// A row's chosen couplings (its strongest one or two) must each be at least this
  /// many times stronger than every coupling it does not choose; > 1. At 4 the couplings
  /// left out are all "weak" in the sense of classical AMG (below a quarter of the
  /// weakest chosen one, Ruge-Stueben theta = 0.25), and exact ties never pass, so a row
  /// with three equal couplings (isotropic Laplacian) chooses none.
  double dominance = 4.0;
  /// Smallest strength |a_ij| / sqrt(a_ii a_jj) a link may have; in [0, 1). A chain of
  /// links no stronger than s has a scaled block within [1 - 2s, 1 + 2s] (Gershgorin),
  /// so below 0.1 an exact line solve gains at most a factor 1.5 over the diagonal.
  double min_strength = 0.1;
  /// Longest line; a longer chain is cut into ceil(length / max_length) pieces of
  /// nearly equal length. >= 1.
  index_t max_length = std::numeric_limits<index_t>::max();
};

struct PreconditionerOptions {
  /// A registered name ("none", "jacobi", "ic0", "block_ic", "line_jacobi", "line_ic",
  /// "user") or "auto": block_ic where the matrix has node blocks (of 2 rows or more on
  /// average, or block_ic.block_size >= 2) and the other options allow it, else line_ic
  /// where lines (find_lines with `lines`) of 4 rows or more on average hold at least 90%
  /// of the rows and half the off-diagonal sum |a_ij| and `ordering` is automatic, else ic0;
  /// Solver::setup resolves it per matrix and SolveReport::plan says why. The options of
  /// the type it picks apply.
  std::string type = "auto";
  Ordering ordering = Ordering::automatic;
  ColoringOptions coloring;
  TrisolveAlgorithm trisolve = TrisolveAlgorithm::automatic;
  ColorsetLayout colorset_layout = ColorsetLayout::automatic;
  Ic0Options ic0;
  BlockIcOptions block_ic;
  LineOptions lines;
};

/// The ordering a preconditioner runs with: `ordering` itself unless it is `automatic`,
/// then `color` for "ic0", "block_ic" and "auto" (both of its choices), `natural` for
/// every other type.
Ordering resolved_ordering(const PreconditionerOptions& options);

/// Whether `method` gives greedy's coloring by Boost's sequential coloring or its equal
/// (`greedy`, `auto`): what the block and line preconditioners color with.
inline bool greedy_coloring(ColoringMethod method) {
  return method == ColoringMethod::greedy || method == ColoringMethod::automatic;
}

/// What setup() and refactor() check of the matrix.
enum class MatrixCheck {
  full,     ///< "full": storage, symmetric pattern and values (symmetry_tolerance), finite
            ///< values, positive diagonal; new values again at each refactor
  pattern,  ///< "pattern": storage, symmetric pattern, stored diagonal; values are not read
            ///< (a bad value shows as a failed factorization or a CG breakdown)
  none,     ///< "none": storage alone (nothing read out of bounds); the caller vouches for
            ///< the rest
};

/// Stopping rule and limits of the conjugate gradient iteration.
struct SolverOptions {
  double tolerance = 1e-8;  ///< stop when ||r_k|| <= tolerance * ||b||
  /// ... or when ||r_k|| <= absolute_tolerance (in the units of b; 0: relative only), for a
  /// time loop whose right-hand sides shrink towards a steady state.
  double absolute_tolerance = 0.0;
  int max_iterations = 1000;  ///< stop after this many iterations
  /// Read the residual back (and test convergence) every this many iterations; the
  /// iterations in between run without a host round trip.
  int check_every = 1;
  TimingMode timing = TimingMode::phases;
  SpmvAlgorithm spmv = SpmvAlgorithm::automatic;
  GraphMode graph = GraphMode::automatic;
  MatrixCheck check = MatrixCheck::full;
  /// check full: |a_ij - a_ji| <= symmetry_tolerance * max|a|; in [0, 1).
  double symmetry_tolerance = 1e-12;
  /// The recurrences of a distributed solve (CgVariant).
  CgVariant cg_variant = CgVariant::automatic;
  /// The transport of a distributed solve's GPU ranks (DistributedTransport).
  DistributedTransport transport = DistributedTransport::automatic;
  /// Where setup() builds the solver's storage (SetupSite).
  SetupSite setup = SetupSite::automatic;
};

/// Everything a Solver needs besides the matrix.
struct SolverConfig {
  SolverOptions solver;
  PreconditionerOptions preconditioner;
  BackendKind backend = BackendKind::automatic;
  /// The kernels the cpu backend runs (also where `auto` falls back to it).
  CpuKernels cpu_kernels = CpuKernels::threaded;
  /// The CUDA device the solver works on (backend cuda, or auto where it takes cuda): -1
  /// the calling thread's current device when the solver is constructed (0 unless the
  /// caller chose another). Every call of the solver makes it current and gives the
  /// caller's device back on return.
  int device = -1;
  /// A cudaStream_t the solver queues all its work on, created and owned by the caller on
  /// `device` and alive for the solver's life (not the legacy default stream, which
  /// cannot be recorded into graphs); nullptr: a stream of the solver's own. Work the
  /// caller queues on it before a call is ordered before the solver's.
  void* stream = nullptr;
  /// How the matrix checks' messages number rows and columns (C++ only, no YAML key):
  /// from 0, as the arrays given to setup() index them, or from 1 (prism's command line,
  /// whose Matrix Market files count from 1).
  Numbering numbering = Numbering::from_zero;
};

}  // namespace prism
