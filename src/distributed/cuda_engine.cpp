// The engine of GPU ranks: the rank's vectors in device memory, its SpMV parts as the cuda
// backend's matrices, its block of the preconditioner a Solver on the same stream, the
// vector operations as the backend's kernels (kernels/cuda/blas1.hpp) on that stream, and
// the halo and the all-reduce through a DeviceTransport (NCCL or MPI via host buffers).
// Everything the rank queues is ordered by its one stream; the host waits where it needs
// the dot products (every all-reduce) and, when timing phases, at each phase's end.

#include "distributed/device_transport.hpp"
#include "distributed/mpi_support.hpp"
#include "distributed/rank_engine.hpp"

#include <prism/errors.hpp>

#include "backend/backend.hpp"
#include "common/parallel.hpp"
#include "kernels/cg_scalars.hpp"
#include "kernels/cuda/blas1.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/gear.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <utility>

namespace prism::distributed {
namespace {

namespace k = kernels::cuda;
using k::DeviceBuffer;
using Clock = std::chrono::steady_clock;

double since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

/// The part's rows with each row's columns sorted (cuSPARSE's CSR wants them so; the sum
/// of a row on the GPU is not term for term the host's anyway); rows in parts on the host
/// threads.
CsrMatrix<double> sorted_rows(const LocalCsr& part) {
  CsrMatrix<double> a;
  a.rows = part.rows;
  a.cols = part.cols;
  a.row_ptr = part.row_ptr;
  a.col_idx.resize(part.col_idx.size());
  a.values.resize(part.values.size());
  const auto sort_rows = [&](std::size_t first, std::size_t last) {
    std::vector<std::pair<index_t, double>> row;
    for (auto i = static_cast<index_t>(first); i < static_cast<index_t>(last); ++i) {
      row.clear();
      for (index_t e = part.row_ptr[i]; e < part.row_ptr[i + 1]; ++e) {
        row.emplace_back(part.col_idx[e], part.values[e]);
      }
      std::sort(row.begin(), row.end());
      index_t e = part.row_ptr[i];
      for (const auto& [c, v] : row) {
        a.col_idx[e] = c;
        a.values[e++] = v;
      }
    }
  };
  common::parallel_for(static_cast<std::size_t>(part.rows), common::kRowsPerPart, sort_rows);
  return a;
}

/// The SpMV of the parts: what solver.spmv asks for, but bsr (square blocks) as auto.
SpmvAlgorithm part_spmv(SpmvAlgorithm requested) {
  return requested == SpmvAlgorithm::bsr ? SpmvAlgorithm::automatic : requested;
}

class CudaEngine final : public RankEngine {
 public:
  CudaEngine(const EngineParts& p, const DevicePlan& plan)
      : comm_(p.comm),
        nccl_(plan.nccl),
        cuda_aware_(plan.cuda_aware_mpi),
        matrix_(p.matrix),
        block_(p.block),
        stream_(static_cast<cudaStream_t>(plan.stream)),
        timed_(p.config->solver.timing == TimingMode::phases),
        backend_(backend::make_backend(BackendKind::cuda, nullptr, CpuKernels::threaded,
                                       {plan.device, plan.stream})),
        device_name_(backend_->device_name() + " (device " + std::to_string(plan.device) + ")"),
        spmv_(part_spmv(p.config->solver.spmv)),
        sums_(kSumSlots),
        coefficients_(kernels::kCgScalarCount),
        partials_(2 * k::kReductionBlocks) {
    refresh_matrix();
    const Halo& halo = matrix_->halo();
    if (!halo.send_rows().empty()) {
      send_map_ = backend_->make_index_map(halo.send_rows());
      send_ = DeviceBuffer<double>(halo.send_rows().size());
    }
    PRISM_CUDA_CHECK(cudaMemsetAsync(sums_.data(), 0, kSumSlots * sizeof(double), stream_));
    synchronize();
  }

  void connect() override {
    transport_ = nccl_ ? make_nccl_transport(comm_, matrix_->halo(), stream_)
                       : make_mpi_transport(comm_, matrix_->halo(), stream_, cuda_aware_);
    warm_up();
  }

  // The parts go to the device whole (a refactor's new values too: a fresh upload costs
  // about what the values' copy would, and keeps one path).
  void refresh_matrix() override {
    LocalSystem& s = matrix_->system();
    interior_.reset();
    boundary_.reset();
    if (s.interior.rows > 0) interior_ = backend_->make_matrix(sorted_rows(s.interior), spmv_);
    if (s.boundary.rows > 0) boundary_ = backend_->make_matrix(sorted_rows(s.boundary), spmv_);
    s.interior = LocalCsr{};  // on the device now
    s.boundary = LocalCsr{};
  }

  std::string backend() const override { return "cuda"; }
  std::string device() const override { return device_name_; }
  std::string transport() const override { return transport_->name(); }
  bool times_phases() const override { return timed_; }

  RankVector make_vector(index_t n) override {
    auto owner = std::make_shared<DeviceBuffer<double>>(static_cast<std::size_t>(n));
    if (n > 0) {
      PRISM_CUDA_CHECK(cudaMemsetAsync(owner->data(), 0, n * sizeof(double), stream_));
    }
    double* data = owner->data();
    return {std::move(owner), data, n};
  }
  void upload(const std::vector<double>& host, RankVector& v) override {
    if (!host.empty()) {
      PRISM_CUDA_CHECK(cudaMemcpyAsync(v.data(), host.data(), host.size() * sizeof(double),
                                       cudaMemcpyHostToDevice, stream_));
    }
    synchronize();
  }
  void download(const RankVector& v, std::vector<double>& host) override {
    host.resize(static_cast<std::size_t>(v.size()));
    if (!host.empty()) {
      PRISM_CUDA_CHECK(cudaMemcpyAsync(host.data(), v.data(), host.size() * sizeof(double),
                                       cudaMemcpyDeviceToHost, stream_));
    }
    synchronize();
  }

  void dot(index_t n, const double* x, const double* y, int slot) override {
    if (n == 0) {
      PRISM_CUDA_CHECK(cudaMemsetAsync(sums_.data() + slot, 0, sizeof(double), stream_));
      return;
    }
    k::dot(n, x, y, partials_.data(), sums_.data(), slot, stream_);
  }
  // The backend's kernels take alpha and beta from scalars in device memory: they are set
  // there (rz and pq for alpha = rz / pq; rz = 1 and rz_new = b for beta = b) by one
  // small copy from pageable memory, which returns once the values are staged.
  void cg_update(index_t n, double rz, double pq, const double* p, const double* q, double* x,
                 double* r, int slot) override {
    if (n == 0) {
      PRISM_CUDA_CHECK(cudaMemsetAsync(sums_.data() + slot, 0, sizeof(double), stream_));
      return;
    }
    std::array<double, kernels::kCgScalarCount> c{};
    c[kernels::kCgRz] = rz;
    c[kernels::kCgPq] = pq;
    set_coefficients(c);
    k::cg_update(n, p, q, x, r, partials_.data(), coefficients_.data(), stream_);
    PRISM_CUDA_CHECK(cudaMemcpyAsync(sums_.data() + slot, coefficients_.data() + kernels::kCgRr,
                                     sizeof(double), cudaMemcpyDeviceToDevice, stream_));
  }
  // One pass each; alpha and beta go to the kernel by value.
  void gear_update(index_t n, double gamma, double denominator, double beta, bool first,
                   const double* u, const double* w, double* p, double* s, double* x, double* r,
                   int slot) override {
    if (n == 0) {
      PRISM_CUDA_CHECK(cudaMemsetAsync(sums_.data() + slot, 0, sizeof(double), stream_));
      return;
    }
    // As cg_update's kernel: alpha 0 unless both are positive and finite.
    const auto positive = [](double v) { return v > 0.0 && std::isfinite(v); };
    const double alpha = positive(gamma) && positive(denominator) ? gamma / denominator : 0.0;
    k::gear_update(n, alpha, beta, first, u, w, p, s, x, r, partials_.data(), sums_.data(), slot,
                   stream_);
  }
  void gear_dots(index_t n, const double* r, const double* u, const double* w, int slot) override {
    if (n == 0) {
      PRISM_CUDA_CHECK(cudaMemsetAsync(sums_.data() + slot, 0, 2 * sizeof(double), stream_));
      return;
    }
    k::gear_dots(n, r, u, w, partials_.data(), sums_.data(), slot, stream_);
  }
  void axpy(index_t n, double a, const double* x, double* y) override {
    if (n > 0) k::axpy(n, a, x, y, stream_);
  }
  void xpay(index_t n, const double* x, double b, double* y) override {
    if (n == 0) return;
    std::array<double, kernels::kCgScalarCount> c{};
    c[kernels::kCgRz] = 1.0;
    c[kernels::kCgRzNew] = b;
    set_coefficients(c);
    k::cg_direction(n, x, y, coefficients_.data(), stream_);
  }
  void copy(index_t n, const double* x, double* y) override {
    if (n > 0 && x != y) {
      PRISM_CUDA_CHECK(
          cudaMemcpyAsync(y, x, n * sizeof(double), cudaMemcpyDeviceToDevice, stream_));
    }
  }
  void reduce(int count, double* out, DistributedPhases& t) override {
    const auto start = Clock::now();
    transport_->all_reduce(sums_.data(), count, out);
    t.reductions += since(start);
  }

  void multiply(double* x, double* y, DistributedPhases& t) override {
    const index_t rows = matrix_->rows();
    const index_t extended = matrix_->extended_rows();
    double* ghosts = x + rows;
    auto t0 = Clock::now();
    if (send_.size() > 0) {
      auto view = backend_->view(send_.data(), static_cast<index_t>(send_.size()));
      backend_->gather(x, *send_map_, *view);
    }
    transport_->begin_halo(send_.data(), ghosts);
    t.halo += since(t0);

    t0 = Clock::now();
    const index_t interior_rows = matrix_->system().interior_rows;
    if (interior_) {
      auto in = backend_->view(x, rows);
      auto out = backend_->view(y, interior_rows);
      backend_->spmv(*interior_, *in, *out);
    }
    if (timed_) synchronize();
    t.spmv_interior += since(t0);

    t0 = Clock::now();
    transport_->finish_halo(ghosts, timed_);
    t.halo += since(t0);

    t0 = Clock::now();
    if (boundary_) {
      auto in = backend_->view(x, extended);
      auto out = backend_->view(y + interior_rows, rows - interior_rows);
      backend_->spmv(*boundary_, *in, *out);
    }
    if (timed_) synchronize();
    t.spmv_boundary += since(t0);
  }
  void precondition(const double* r, double* z) override {
    // The block's Solver queues on this stream: the next steps are ordered after it.
    if (block_)
      block_->queue_preconditioner_on_backend(r, z, static_cast<std::size_t>(matrix_->rows()));
  }
  void synchronize() override { PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  // One halo exchange and one all-reduce, their values thrown away: NCCL connects a pair of
  // ranks on their first message (hundreds of ms on 2 GPUs), which belongs to set-up, not to
  // the first solve's first iterations.
  void warm_up() {
    const index_t ghosts = matrix_->extended_rows() - matrix_->rows();
    DeviceBuffer<double> scratch(static_cast<std::size_t>(ghosts));
    transport_->begin_halo(send_.data(), scratch.data());
    transport_->finish_halo(scratch.data(), true);
    std::array<double, kSumSlots> discarded{};
    transport_->all_reduce(sums_.data(), kSumSlots, discarded.data());
    PRISM_CUDA_CHECK(cudaMemsetAsync(sums_.data(), 0, kSumSlots * sizeof(double), stream_));
    synchronize();
  }
  void set_coefficients(const std::array<double, kernels::kCgScalarCount>& c) {
    PRISM_CUDA_CHECK(
        cudaMemcpyAsync(coefficients_.data(), c.data(), sizeof c, cudaMemcpyHostToDevice, stream_));
  }

  MPI_Comm comm_;
  bool nccl_;        // the transport connect() makes: NCCL, or MPI
  bool cuda_aware_;  // MPI on the device buffers, else through host buffers
  DistributedMatrix* matrix_;
  Solver* block_;
  cudaStream_t stream_;
  bool timed_;
  std::unique_ptr<backend::Backend> backend_;
  std::string device_name_;
  SpmvAlgorithm spmv_;
  std::unique_ptr<backend::Matrix> interior_, boundary_;
  std::unique_ptr<backend::IndexMap> send_map_;
  DeviceBuffer<double> send_;
  DeviceBuffer<double> sums_;          // the dot-product slots
  DeviceBuffer<double> coefficients_;  // alpha's and beta's operands for the kernels
  DeviceBuffer<double> partials_;      // the reductions' workspace (gear_dots: two sums)
  std::unique_ptr<DeviceTransport> transport_;
};

}  // namespace

bool cuda_engine_built() {
  return true;
}

bool nccl_built() {
#ifdef PRISM_HAVE_NCCL
  return true;
#else
  return false;
#endif
}

bool every_rank_has_a_device(MPI_Comm comm) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();  // no driver, or no device: not an error here
    count = 0;
  }
  int all = count > 0 ? 1 : 0;
  PRISM_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &all, 1, MPI_INT, MPI_MIN, comm));
  return all == 1;
}

DevicePlan plan_device(MPI_Comm comm, const SolverConfig& config) {
  // The rank's index among the ranks of its node, and the devices they take.
  MPI_Comm node = MPI_COMM_NULL;
  PRISM_MPI_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  const int local_rank = comm_rank(node);
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess) {
    cudaGetLastError();
    count = 0;
  }
  const int device = config.device >= 0 ? config.device : (count > 0 ? local_rank % count : -1);
  std::vector<int> devices(static_cast<std::size_t>(comm_size(node)));
  const int mine = device;
  MPI_Allgather(&mine, 1, MPI_INT, devices.data(), 1, MPI_INT, node);
  MPI_Comm_free(&node);
  int shared = 0;  // some GPU serves two ranks of one node
  for (std::size_t a = 0; a < devices.size(); ++a) {
    for (std::size_t b = a + 1; b < devices.size(); ++b) shared |= devices[a] == devices[b] ? 1 : 0;
  }
  PRISM_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &shared, 1, MPI_INT, MPI_MAX, comm));
  // Device buffers for MPI only where every rank's MPI takes them.
  int cuda_aware = mpi_is_cuda_aware() ? 1 : 0;
  PRISM_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &cuda_aware, 1, MPI_INT, MPI_MIN, comm));

  if (count == 0) throw BackendError("backend cuda: no usable CUDA device on this rank");
  if (device >= count) {
    throw ConfigError("device " + std::to_string(device) + ": the rank's node has " +
                      std::to_string(count) + " CUDA devices");
  }
  DevicePlan plan;
  plan.device = device;
  plan.cuda_aware_mpi = cuda_aware == 1;
  switch (config.solver.transport) {
    case DistributedTransport::mpi:
      plan.nccl = false;
      break;
    case DistributedTransport::nccl:
      if (!nccl_built()) {
        throw ConfigError("solver.transport: nccl: prism was built without NCCL (PRISM_WITH_NCCL)");
      }
      if (shared != 0) {
        throw ConfigError(
            "solver.transport: nccl: two ranks share a GPU, which NCCL refuses (run one rank "
            "per GPU, or solver.transport: mpi)");
      }
      plan.nccl = true;
      break;
    case DistributedTransport::automatic:
      plan.nccl = nccl_built() && shared == 0;
      break;
  }
  PRISM_CUDA_CHECK(cudaSetDevice(device));
  cudaStream_t stream = nullptr;
  PRISM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  plan.stream = stream;
  return plan;
}

void release_device_plan(DevicePlan& plan) noexcept {
  if (plan.stream != nullptr) cudaStreamDestroy(static_cast<cudaStream_t>(plan.stream));
  plan.stream = nullptr;
}

std::unique_ptr<RankEngine> make_cuda_engine(const EngineParts& parts, const DevicePlan& plan) {
  return std::make_unique<CudaEngine>(parts, plan);
}

}  // namespace prism::distributed
