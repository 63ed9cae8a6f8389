#pragma once
// How GPU ranks exchange the halo and sum the dot products, on device buffers: NCCL
// (grouped ncclSend/ncclRecv on a stream of its own, so the interior SpMV runs meanwhile;
// the dot products summed on the host by MPI), or MPI, on the device buffers where the MPI is
// CUDA-aware, else through pinned host buffers (a copy each way); with MPI the interior
// SpMV runs on the GPU while the host waits for the messages. The halo plan
// is the Halo's (halo.hpp), built once at set-up. Built with CUDA only.

#include "distributed/halo.hpp"

#include <cuda_runtime.h>
#include <mpi.h>

#include <memory>
#include <string>

namespace prism::distributed {

class DeviceTransport {
 public:
  virtual ~DeviceTransport() = default;
  /// "nccl", "mpi (CUDA-aware)" or "mpi (host-staged)".
  virtual std::string name() const = 0;
  /// Sends send[] (the packed values, queued on the rank's stream before this call) and
  /// receives the ghosts into ghosts[], as the halo plan says.
  virtual void begin_halo(const double* send, double* ghosts) = 0;
  /// Makes the rank's stream wait for the ghosts; with `wait`, the host waits too.
  virtual void finish_halo(double* ghosts, bool wait) = 0;
  /// Sums sums[0, count) (device memory, queued on the rank's stream) over the ranks and
  /// returns them in `out` (host); waits.
  virtual void all_reduce(double* sums, int count, double* out) = 0;
};

/// Whether this process's MPI reads and writes device memory (Open MPI's
/// MPIX_Query_cuda_support(); false where the MPI offers no such query).
bool mpi_is_cuda_aware();

/// MPI: the halo on the device buffers where `cuda_aware`, else through pinned host
/// buffers (which works with any MPI); the dot products through the host.
std::unique_ptr<DeviceTransport> make_mpi_transport(MPI_Comm comm, const Halo& halo,
                                                    cudaStream_t stream, bool cuda_aware);

/// NCCL, its communicator bootstrapped over `comm` (rank 0's ncclGetUniqueId broadcast);
/// collective. Throws ConfigError in a build without NCCL.
std::unique_ptr<DeviceTransport> make_nccl_transport(MPI_Comm comm, const Halo& halo,
                                                     cudaStream_t stream);

}  // namespace prism::distributed
