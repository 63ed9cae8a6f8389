#pragma once
// What one rank computes with and talks through during the distributed PCG: its vectors,
// the vector operations, the SpMV with its halo exchange, its block of the preconditioner
// and the all-reduce of the dot products. Two engines: cpu ranks (host vectors, the host
// kernels, MPI) and cuda ranks (device vectors, the cuda backend, NCCL or MPI through host
// buffers; cuda_engine.cpp, built with CUDA).
//
// The dot products land in numbered slots of the engine (in device memory on a GPU), and
// reduce() sums the first slots over the ranks in one call, so an iteration's dots reach the
// host in one all-reduce.

#include <prism/distributed.hpp>
#include <prism/options.hpp>
#include <prism/solver.hpp>

#include "distributed/local_operations.hpp"

#include <mpi.h>

#include <memory>
#include <string>
#include <vector>

namespace prism::distributed {

/// A vector of the rank: host memory (cpu ranks) or device memory (cuda ranks).
class RankVector {
 public:
  RankVector() = default;
  RankVector(std::shared_ptr<void> owner, double* data, index_t size)
      : owner_(std::move(owner)), data_(data), size_(size) {}
  double* data() { return data_; }
  const double* data() const { return data_; }
  index_t size() const { return size_; }

 private:
  std::shared_ptr<void> owner_;
  double* data_ = nullptr;
  index_t size_ = 0;
};

/// The number of dot-product slots an engine has.
inline constexpr int kSumSlots = 4;

class RankEngine {
 public:
  virtual ~RankEngine() = default;

  /// "cpu" or "cuda".
  virtual std::string backend() const = 0;
  /// The device, in words (the GPU's name and "(device 1)", or "host CPU").
  virtual std::string device() const = 0;
  /// How halos and reductions travel: "mpi", "mpi (host-staged)", "mpi (CUDA-aware)",
  /// "nccl".
  virtual std::string transport() const = 0;
  /// Whether the phase times are measured (a GPU rank waits for its queued work at each
  /// phase's end to time it; with solver.timing total it does not, and leaves them 0).
  virtual bool times_phases() const = 0;

  /// Sets up the transport's collective state (NCCL's communicator). Called on every rank
  /// once every rank has built its engine, so that a rank whose set-up failed never leaves
  /// the others waiting in a collective.
  virtual void connect() {}

  /// Takes the matrix's new values (refactor(): the interior and boundary parts replaced in
  /// the DistributedMatrix, their pattern unchanged).
  virtual void refresh_matrix() {}

  /// A vector of n zeros in the engine's memory.
  virtual RankVector make_vector(index_t n) = 0;
  virtual void upload(const std::vector<double>& host, RankVector& v) = 0;
  virtual void download(const RankVector& v, std::vector<double>& host) = 0;

  /// slot = (x, y) over the rank's n values.
  virtual void dot(index_t n, const double* x, const double* y, int slot) = 0;
  /// alpha = rz / pq; x += alpha p; r -= alpha q; slot = (r, r).
  virtual void cg_update(index_t n, double rz, double pq, const double* p, const double* q,
                         double* x, double* r, int slot) = 0;
  virtual void axpy(index_t n, double a, const double* x, double* y) = 0;
  /// y = x + b y
  virtual void xpay(index_t n, const double* x, double b, double* y) = 0;
  virtual void copy(index_t n, const double* x, double* y) = 0;
  /// The Chronopoulos-Gear step: p = u + beta p and s = w + beta s (with `first`: p = u,
  /// s = w), then cg_update(gamma, denominator) of x and r along p and s; slot = (r, r).
  /// These operations in turn unless an engine fuses them.
  virtual void gear_update(index_t n, double gamma, double denominator, double beta, bool first,
                           const double* u, const double* w, double* p, double* s, double* x,
                           double* r, int slot) {
    if (first) {
      copy(n, u, p);
      copy(n, w, s);
    } else {
      xpay(n, u, beta, p);
      xpay(n, w, beta, s);
    }
    cg_update(n, gamma, denominator, p, s, x, r, slot);
  }
  /// slot = (r, u) and slot + 1 = (w, u).
  virtual void gear_dots(index_t n, const double* r, const double* u, const double* w, int slot) {
    dot(n, r, u, slot);
    dot(n, w, u, slot + 1);
  }
  /// Sums slots [0, count) over the ranks (one all-reduce) and returns them in `out`; adds
  /// the all-reduce's time (and any wait for slower ranks) to t.reductions.
  virtual void reduce(int count, double* out, DistributedPhases& t) = 0;

  /// y = A x for the owned rows; x holds rows() owned values and room for the ghosts.
  /// Adds its times to t (spmv_interior, halo, spmv_boundary).
  virtual void multiply(double* x, double* y, DistributedPhases& t) = 0;
  /// z = M^{-1} r on the rank's rows (block Jacobi).
  virtual void precondition(const double* r, double* z) = 0;
  /// Waits for the work queued so far (a no-op on the host).
  virtual void synchronize() = 0;
};

/// Everything an engine is built from; `block` is the rank's preconditioner (null when
/// the rank has no rows), its Solver on the engine's backend.
struct EngineParts {
  MPI_Comm comm = MPI_COMM_NULL;
  DistributedMatrix* matrix = nullptr;  ///< a cuda engine copies its rows and frees them here
  Solver* block = nullptr;
  const SolverConfig* config = nullptr;
};

/// cpu ranks: the host kernels (SolverConfig::cpu_kernels) and MPI.
std::unique_ptr<RankEngine> make_host_engine(const EngineParts& parts);

/// Where a cuda rank works and how it talks: chosen collectively before set-up.
struct DevicePlan {
  int device = 0;
  void* stream = nullptr;       ///< the rank's cudaStream_t, shared with its block Solver
  bool nccl = false;            ///< NCCL; else MPI
  bool cuda_aware_mpi = false;  ///< MPI on device buffers (every rank's MPI is CUDA-aware)
};

/// Whether a cuda engine can be made in this build.
bool cuda_engine_built();
/// Whether NCCL is built in.
bool nccl_built();

/// Collective: picks the rank's device (SolverConfig::device, else the rank's index among
/// the ranks of its node modulo the node's device count) and the transport
/// (solver.transport: nccl needs a device per rank, which auto checks), makes the device
/// current and creates the rank's stream. Throws ConfigError / BackendError (agreed by the
/// caller) when there is no device or nccl cannot run.
DevicePlan plan_device(MPI_Comm comm, const SolverConfig& config);
/// Whether every rank of `comm` has a usable CUDA device (collective).
bool every_rank_has_a_device(MPI_Comm comm);
/// Destroys the plan's stream.
void release_device_plan(DevicePlan& plan) noexcept;

/// cuda ranks: device vectors, the cuda backend's SpMV on plan.stream, the transport of the
/// plan. Collective (NCCL's communicator is bootstrapped over parts.comm).
std::unique_ptr<RankEngine> make_cuda_engine(const EngineParts& parts, const DevicePlan& plan);

}  // namespace prism::distributed
