#pragma once
// The halo exchange of the distributed SpMV: each rank receives the ghosts (other ranks'
// values its boundary rows read) straight into the tail of the SpMV's input vector, and
// sends the owned values the other ranks read, with non-blocking point-to-point messages
// so that the interior product runs while they travel. The plan (who sends what to whom)
// is built once at set-up; GPU ranks send the same plan's device buffers over NCCL or
// through host buffers (cuda_engine.cpp).

#include "distributed/local_rows.hpp"
#include "distributed/row_partition.hpp"

#include <mpi.h>

#include <vector>

namespace prism::distributed {

class Halo {
 public:
  Halo() = default;
  /// Collective: tells each owner which of its rows this rank reads (MPI_Alltoall of the
  /// counts, MPI_Alltoallv of the global row numbers).
  Halo(MPI_Comm comm, const RowRanges& ranges, const LocalSystem& system, std::int64_t row_begin);
  Halo(const Halo&) = delete;
  Halo& operator=(const Halo&) = delete;
  Halo(Halo&&) = default;
  Halo& operator=(Halo&&) = default;
  ~Halo();

  /// Posts the receives into `ghosts` (ghost_count() values), packs the values of `owned`
  /// (the rank's order) that others read and posts the sends. finish() before reading
  /// `ghosts` or writing `owned`.
  void begin(const double* owned, double* ghosts);
  /// Waits for this rank's messages of the exchange begun.
  void finish();

  index_t ghost_count() const { return recv_offsets_.empty() ? 0 : recv_offsets_.back(); }
  /// Ranks this rank receives from or sends to (the larger of the two counts).
  int neighbors() const;

  // The plan, for a transport of device buffers (cuda_engine.cpp): the ghosts of
  // recv_ranks()[q] land at [recv_offsets()[q], recv_offsets()[q + 1]) of the ghosts; the
  // values sent to send_ranks()[q] are send_rows() (positions in the rank's order)
  // [send_offsets()[q], send_offsets()[q + 1]).
  const std::vector<int>& recv_ranks() const { return recv_ranks_; }
  const std::vector<int>& send_ranks() const { return send_ranks_; }
  const std::vector<index_t>& recv_offsets() const { return recv_offsets_; }
  const std::vector<index_t>& send_offsets() const { return send_offsets_; }
  const std::vector<index_t>& send_rows() const { return send_rows_; }

 private:
  MPI_Comm comm_ = MPI_COMM_NULL;
  std::vector<int> recv_ranks_, send_ranks_;
  std::vector<index_t> recv_offsets_, send_offsets_;  // per neighbor, then the total
  std::vector<index_t> send_rows_;                    // positions in the rank's order
  std::vector<double> send_buffer_;
  std::vector<MPI_Request> requests_;
  bool pending_ = false;
};

}  // namespace prism::distributed
