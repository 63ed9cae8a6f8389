// The engine of cpu ranks: host vectors, the cpu backend's host kernels (LocalOps), the
// halo over MPI_Isend/MPI_Irecv (DistributedMatrix) and MPI_Allreduce on host values.

#include "distributed/mpi_support.hpp"
#include "distributed/rank_engine.hpp"

#include <chrono>

namespace prism::distributed {
namespace {

class HostEngine final : public RankEngine {
 public:
  explicit HostEngine(const EngineParts& p)
      : comm_(p.comm), matrix_(p.matrix), block_(p.block), ops_(p.config->cpu_kernels) {}

  std::string backend() const override { return "cpu"; }
  std::string device() const override { return "host CPU"; }
  std::string transport() const override { return "mpi"; }
  bool times_phases() const override { return true; }

  RankVector make_vector(index_t n) override {
    auto owner = std::make_shared<std::vector<double>>(static_cast<std::size_t>(n), 0.0);
    double* data = owner->data();
    return {std::move(owner), data, n};
  }
  void upload(const std::vector<double>& host, RankVector& v) override {
    ops_.copy(static_cast<index_t>(host.size()), host.data(), v.data());
  }
  void download(const RankVector& v, std::vector<double>& host) override {
    host.assign(v.data(), v.data() + v.size());
  }

  void dot(index_t n, const double* x, const double* y, int slot) override {
    sums_[slot] = ops_.dot(n, x, y);
  }
  void cg_update(index_t n, double rz, double pq, const double* p, const double* q, double* x,
                 double* r, int slot) override {
    sums_[slot] = ops_.cg_update(n, rz / pq, p, q, x, r);
  }
  void axpy(index_t n, double a, const double* x, double* y) override { ops_.axpy(n, a, x, y); }
  void xpay(index_t n, const double* x, double b, double* y) override { ops_.xpay(n, x, b, y); }
  void copy(index_t n, const double* x, double* y) override { ops_.copy(n, x, y); }
  void reduce(int count, double* out, DistributedPhases& t) override {
    const auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < count; ++k) out[k] = sums_[k];
    PRISM_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, out, count, MPI_DOUBLE, MPI_SUM, comm_));
    t.reductions += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  void multiply(double* x, double* y, DistributedPhases& t) override {
    matrix_->multiply(ops_, x, y, t);
  }
  void precondition(const double* r, double* z) override {
    if (block_)
      block_->apply_preconditioner_on_backend(r, z, static_cast<std::size_t>(matrix_->rows()));
  }
  void synchronize() override {}

 private:
  MPI_Comm comm_;
  DistributedMatrix* matrix_;
  Solver* block_;
  LocalOps ops_;
  double sums_[kSumSlots] = {};
};

}  // namespace

std::unique_ptr<RankEngine> make_host_engine(const EngineParts& parts) {
  return std::make_unique<HostEngine>(parts);
}

}  // namespace prism::distributed
