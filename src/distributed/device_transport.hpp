#pragma once
// How GPU ranks exchange the halo and sum the dot products, on device buffers: NCCL
// (grouped ncclSend/ncclRecv on a stream of its own, so the interior SpMV runs meanwhile;
// ncclAllReduce on the rank's stream), or MPI through pinned host buffers (a copy each way;
// the interior SpMV runs on the GPU while the host waits for the messages). The halo plan
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
  /// "nccl" or "mpi (host-staged)".
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

/// MPI through pinned host buffers; works with any MPI.
std::unique_ptr<DeviceTransport> make_staged_mpi_transport(MPI_Comm comm, const Halo& halo,
                                                           cudaStream_t stream);

/// NCCL, its communicator bootstrapped over `comm` (rank 0's ncclGetUniqueId broadcast);
/// collective. Throws ConfigError in a build without NCCL.
std::unique_ptr<DeviceTransport> make_nccl_transport(MPI_Comm comm, const Halo& halo,
                                                     cudaStream_t stream);

}  // namespace prism::distributed
