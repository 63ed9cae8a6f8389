// GPU ranks over NCCL: the halo as one group of ncclSend/ncclRecv on a stream of its own
// (ordered after the packing by an event, and the boundary SpMV after it by another), so
// the interior SpMV runs while the halo travels. The dot products come to the host in one
// small copy and are summed there by MPI_Allreduce: the host needs them anyway, and a few
// doubles cost MPI's host latency, several times less than an ncclAllReduce (measured in
// docs/distributed.md). Built with PRISM_WITH_NCCL; without it make_nccl_transport throws
// ConfigError.

#include "distributed/device_transport.hpp"
#include "distributed/mpi_support.hpp"

#include <prism/errors.hpp>

#ifdef PRISM_HAVE_NCCL
#include "kernels/cuda/device_memory.hpp"

#include <nccl.h>
#endif

namespace prism::distributed {

#ifdef PRISM_HAVE_NCCL
namespace {

using kernels::cuda::PinnedBuffer;

void check_nccl(ncclResult_t result, const char* call, const char* file, int line) {
  if (result == ncclSuccess) return;
  throw BackendError(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                     ncclGetErrorString(result));
}
#define PRISM_NCCL_CHECK(call) check_nccl((call), #call, __FILE__, __LINE__)

class NcclTransport final : public DeviceTransport {
 public:
  NcclTransport(MPI_Comm comm, const Halo& halo, cudaStream_t stream)
      : comm_(comm), halo_(halo), stream_(stream), sums_(8) {
    ncclUniqueId id{};
    if (comm_rank(comm) == 0) PRISM_NCCL_CHECK(ncclGetUniqueId(&id));
    PRISM_MPI_CHECK(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, comm));
    PRISM_NCCL_CHECK(ncclCommInitRank(&nccl_, comm_size(comm), id, comm_rank(comm)));
    PRISM_CUDA_CHECK(cudaStreamCreateWithFlags(&halo_stream_, cudaStreamNonBlocking));
    PRISM_CUDA_CHECK(cudaEventCreateWithFlags(&packed_, cudaEventDisableTiming));
    PRISM_CUDA_CHECK(cudaEventCreateWithFlags(&received_, cudaEventDisableTiming));
  }
  ~NcclTransport() override {
    cudaStreamSynchronize(halo_stream_);
    cudaEventDestroy(received_);
    cudaEventDestroy(packed_);
    cudaStreamDestroy(halo_stream_);
    ncclCommDestroy(nccl_);
  }
  NcclTransport(const NcclTransport&) = delete;
  NcclTransport& operator=(const NcclTransport&) = delete;

  std::string name() const override { return "nccl"; }

  void begin_halo(const double* send, double* ghosts) override {
    if (halo_.recv_ranks().empty() && halo_.send_ranks().empty()) return;
    PRISM_CUDA_CHECK(cudaEventRecord(packed_, stream_));
    PRISM_CUDA_CHECK(cudaStreamWaitEvent(halo_stream_, packed_, 0));
    const auto& ro = halo_.recv_offsets();
    const auto& so = halo_.send_offsets();
    PRISM_NCCL_CHECK(ncclGroupStart());
    for (std::size_t q = 0; q < halo_.recv_ranks().size(); ++q) {
      PRISM_NCCL_CHECK(ncclRecv(ghosts + ro[q], static_cast<std::size_t>(ro[q + 1] - ro[q]),
                                ncclDouble, halo_.recv_ranks()[q], nccl_, halo_stream_));
    }
    for (std::size_t q = 0; q < halo_.send_ranks().size(); ++q) {
      PRISM_NCCL_CHECK(ncclSend(send + so[q], static_cast<std::size_t>(so[q + 1] - so[q]),
                                ncclDouble, halo_.send_ranks()[q], nccl_, halo_stream_));
    }
    PRISM_NCCL_CHECK(ncclGroupEnd());
    PRISM_CUDA_CHECK(cudaEventRecord(received_, halo_stream_));
    pending_ = true;
  }

  void finish_halo(double* /*ghosts*/, bool wait) override {
    if (!pending_) return;
    pending_ = false;
    // The boundary rows wait for the ghosts; the next packing (on stream_, after them)
    // cannot overwrite a send buffer still in flight.
    PRISM_CUDA_CHECK(cudaStreamWaitEvent(stream_, received_, 0));
    if (wait) PRISM_CUDA_CHECK(cudaEventSynchronize(received_));
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
  cudaStream_t halo_stream_ = nullptr;
  cudaEvent_t packed_ = nullptr, received_ = nullptr;
  ncclComm_t nccl_ = nullptr;
  PinnedBuffer<double> sums_;
  bool pending_ = false;
};

}  // namespace

std::unique_ptr<DeviceTransport> make_nccl_transport(MPI_Comm comm, const Halo& halo,
                                                     cudaStream_t stream) {
  return std::make_unique<NcclTransport>(comm, halo, stream);
}

#else

std::unique_ptr<DeviceTransport> make_nccl_transport(MPI_Comm, const Halo&, cudaStream_t) {
  throw ConfigError("solver.transport: nccl: prism was built without NCCL (PRISM_WITH_NCCL)");
}

#endif

}  // namespace prism::distributed
