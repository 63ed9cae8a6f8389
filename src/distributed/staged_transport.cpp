// GPU ranks over MPI. Where the MPI is CUDA-aware (MPIX_Query_cuda_support() says so at run
// time), the halo travels by MPI_Isend/MPI_Irecv straight from and to device memory;
// otherwise through pinned host buffers: the packed halo values come to the host, travel
// while the GPU runs the interior SpMV, and the ghosts go back to the device before the
// boundary rows. Either way the dot products come to the host for MPI_Allreduce (the host
// needs them anyway for the stopping test, and three numbers cost a latency wherever they
// are summed).

#include "distributed/device_transport.hpp"
#include "distributed/mpi_support.hpp"

#include "kernels/cuda/device_memory.hpp"

#if defined(__has_include)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI's MPIX_Query_cuda_support
#endif
#endif

#include <vector>

namespace prism::distributed {
namespace {

using kernels::cuda::PinnedBuffer;

constexpr int kDeviceHaloTag = 8;

class MpiTransport final : public DeviceTransport {
 public:
  MpiTransport(MPI_Comm comm, const Halo& halo, cudaStream_t stream, bool device_buffers)
      : comm_(comm),
        halo_(halo),
        stream_(stream),
        device_buffers_(device_buffers),
        send_(device_buffers ? 0 : static_cast<std::size_t>(halo.send_offsets().back())),
        recv_(device_buffers ? 0 : static_cast<std::size_t>(halo.ghost_count())),
        sums_(8),
        requests_(halo.recv_ranks().size() + halo.send_ranks().size(), MPI_REQUEST_NULL) {}

  ~MpiTransport() override {
    // Abandoned mid-exchange: complete it, so that no message lands in freed memory.
    if (pending_)
      MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
  }

  std::string name() const override {
    return device_buffers_ ? "mpi (CUDA-aware)" : "mpi (host-staged)";
  }

  void begin_halo(const double* send, double* ghosts) override {
    if (requests_.empty()) return;
    if (!device_buffers_ && send_.size() > 0) {
      PRISM_CUDA_CHECK(cudaMemcpyAsync(send_.data(), send, send_.size() * sizeof(double),
                                       cudaMemcpyDeviceToHost, stream_));
    }
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the packed values, complete
    pending_ = true;
    // Device memory itself where MPI reads it, else the pinned copies.
    double* recv_base = device_buffers_ ? ghosts : recv_.data();
    const double* send_base = device_buffers_ ? send : send_.data();
    std::size_t r = 0;
    const auto& ro = halo_.recv_offsets();
    for (std::size_t q = 0; q < halo_.recv_ranks().size(); ++q, ++r) {
      PRISM_MPI_CHECK(MPI_Irecv(recv_base + ro[q], ro[q + 1] - ro[q], MPI_DOUBLE,
                                halo_.recv_ranks()[q], kDeviceHaloTag, comm_, &requests_[r]));
    }
    const auto& so = halo_.send_offsets();
    for (std::size_t q = 0; q < halo_.send_ranks().size(); ++q, ++r) {
      PRISM_MPI_CHECK(MPI_Isend(send_base + so[q], so[q + 1] - so[q], MPI_DOUBLE,
                                halo_.send_ranks()[q], kDeviceHaloTag, comm_, &requests_[r]));
    }
  }

  void finish_halo(double* ghosts, bool wait) override {
    if (!pending_) return;
    pending_ = false;
    PRISM_MPI_CHECK(
        MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE));
    if (!device_buffers_ && recv_.size() > 0) {
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
  bool device_buffers_;                      // CUDA-aware MPI: no send_ and recv_
  PinnedBuffer<double> send_, recv_, sums_;  // the host copies
  std::vector<MPI_Request> requests_;
  bool pending_ = false;
};

}  // namespace

bool mpi_is_cuda_aware() {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
  return MPIX_Query_cuda_support() == 1;
#else
  return false;  // no way to ask this MPI: host staging is always safe
#endif
}

std::unique_ptr<DeviceTransport> make_mpi_transport(MPI_Comm comm, const Halo& halo,
                                                    cudaStream_t stream, bool cuda_aware) {
  return std::make_unique<MpiTransport>(comm, halo, stream, cuda_aware);
}

}  // namespace prism::distributed
