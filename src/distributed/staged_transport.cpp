// GPU ranks over MPI through pinned host buffers: the packed halo values come to the host,
// travel by MPI_Isend/MPI_Irecv while the GPU runs the interior SpMV, and the ghosts go
// back to the device before the boundary rows; the dot products come to the host for
// MPI_Allreduce (the host needs them anyway for the stopping test).

#include "distributed/device_transport.hpp"
#include "distributed/mpi_support.hpp"

#include "kernels/cuda/device_memory.hpp"

#include <vector>

namespace prism::distributed {
namespace {

using kernels::cuda::PinnedBuffer;

constexpr int kDeviceHaloTag = 8;

class StagedMpiTransport final : public DeviceTransport {
 public:
  StagedMpiTransport(MPI_Comm comm, const Halo& halo, cudaStream_t stream)
      : comm_(comm),
        halo_(halo),
        stream_(stream),
        send_(static_cast<std::size_t>(halo.send_offsets().back())),
        recv_(static_cast<std::size_t>(halo.ghost_count())),
        sums_(8),
        requests_(halo.recv_ranks().size() + halo.send_ranks().size(), MPI_REQUEST_NULL) {}

  ~StagedMpiTransport() override {
    // Abandoned mid-exchange: complete it, so that no message lands in freed memory.
    if (pending_)
      MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  }

  std::string name() const override { return "mpi (host-staged)"; }

  void begin_halo(const double* send, double* /*ghosts*/) override {
    if (requests_.empty()) return;
    if (send_.size() > 0) {
      PRISM_CUDA_CHECK(cudaMemcpyAsync(send_.data(), send, send_.size() * sizeof(double),
                                       cudaMemcpyDeviceToHost, stream_));
    }
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the packed values, on the host
    pending_ = true;
    std::size_t r = 0;
    const auto& ro = halo_.recv_offsets();
    for (std::size_t q = 0; q < halo_.recv_ranks().size(); ++q, ++r) {
      PRISM_MPI_CHECK(MPI_Irecv(recv_.data() + ro[q], ro[q + 1] - ro[q], MPI_DOUBLE,
                                halo_.recv_ranks()[q], kDeviceHaloTag, comm_, &requests_[r]));
    }
    const auto& so = halo_.send_offsets();
    for (std::size_t q = 0; q < halo_.send_ranks().size(); ++q, ++r) {
      PRISM_MPI_CHECK(MPI_Isend(send_.data() + so[q], so[q + 1] - so[q], MPI_DOUBLE,
                                halo_.send_ranks()[q], kDeviceHaloTag, comm_, &requests_[r]));
    }
  }

  void finish_halo(double* ghosts, bool wait) override {
    if (!pending_) return;
    pending_ = false;
    PRISM_MPI_CHECK(
        MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE));
    if (recv_.size() > 0) {
      // The next exchange's receives refill recv_ only after begin_halo's synchronize, so
      // after this copy.
      PRISM_CUDA_CHECK(cudaMemcpyAsync(ghosts, recv_.data(), recv_.size() * sizeof(double),
                                       cudaMemcpyHostToDevice, stream_));
    }
    if (wait) PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  void all_reduce(double* sums, int count, double* out) override {
    PRISM_CUDA_CHECK(cudaMemcpyAsync(sums_.data(), sums,
                                     static_cast<std::size_t>(count) * sizeof(double),
                                     cudaMemcpyDeviceToHost, stream_));
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    for (int k = 0; k < count; ++k) out[k] = sums_.data()[k];
    PRISM_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, out, count, MPI_DOUBLE, MPI_SUM, comm_));
  }

 private:
  MPI_Comm comm_;
  const Halo& halo_;
  cudaStream_t stream_;
  PinnedBuffer<double> send_, recv_, sums_;
  std::vector<MPI_Request> requests_;
  bool pending_ = false;
};

}  // namespace

std::unique_ptr<DeviceTransport> make_staged_mpi_transport(MPI_Comm comm, const Halo& halo,
                                                           cudaStream_t stream) {
  return std::make_unique<StagedMpiTransport>(comm, halo, stream);
}

}  // namespace prism::distributed
