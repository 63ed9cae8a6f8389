#include "distributed/halo.hpp"

#include "distributed/mpi_support.hpp"

#include <prism/errors.hpp>

#include <algorithm>
#include <string>

namespace prism::distributed {
namespace {

constexpr int kHaloTag = 7;

/// The ranks with a non-zero count, and the running offsets of their counts.
void neighbors_of(const std::vector<int>& counts, std::vector<int>& ranks,
                  std::vector<index_t>& offsets) {
  ranks.clear();
  offsets.assign(1, 0);
  for (std::size_t q = 0; q < counts.size(); ++q) {
    if (counts[q] == 0) continue;
    ranks.push_back(static_cast<int>(q));
    offsets.push_back(offsets.back() + counts[q]);
  }
}

std::vector<int> displacements(const std::vector<int>& counts) {
  std::vector<int> out(counts.size(), 0);
  for (std::size_t q = 1; q < counts.size(); ++q) out[q] = out[q - 1] + counts[q - 1];
  return out;
}

}  // namespace

Halo::Halo(MPI_Comm comm, const RowRanges& ranges, const LocalSystem& system,
           std::int64_t row_begin)
    : comm_(comm) {
  const int size = comm_size(comm);
  // The ghosts increase, so those of one owner are contiguous and in owner order.
  std::vector<int> recv_counts(static_cast<std::size_t>(size), 0);
  for (const std::int64_t g : system.ghosts) ++recv_counts[ranges.owner(g)];
  std::vector<int> send_counts(static_cast<std::size_t>(size), 0);
  PRISM_MPI_CHECK(
      MPI_Alltoall(recv_counts.data(), 1, MPI_INT, send_counts.data(), 1, MPI_INT, comm));
  const std::vector<int> recv_displs = displacements(recv_counts);
  const std::vector<int> send_displs = displacements(send_counts);
  std::vector<std::int64_t> requested(
      static_cast<std::size_t>(send_displs.back() + send_counts.back()));
  PRISM_MPI_CHECK(MPI_Alltoallv(system.ghosts.data(), recv_counts.data(), recv_displs.data(),
                                MPI_INT64_T, requested.data(), send_counts.data(),
                                send_displs.data(), MPI_INT64_T, comm));

  std::vector<index_t> position(static_cast<std::size_t>(system.rows));
  for (index_t k = 0; k < system.rows; ++k) position[system.order[k]] = k;
  send_rows_.reserve(requested.size());
  for (const std::int64_t row : requested) {
    const std::int64_t local = row - row_begin;
    if (local < 0 || local >= system.rows) {  // the owner search above makes this impossible
      throw Error("halo: rank asked for row " + std::to_string(row) + " it does not own");
    }
    send_rows_.push_back(position[local]);
  }
  neighbors_of(recv_counts, recv_ranks_, recv_offsets_);
  neighbors_of(send_counts, send_ranks_, send_offsets_);
  send_buffer_.resize(send_rows_.size());
  requests_.assign(recv_ranks_.size() + send_ranks_.size(), MPI_REQUEST_NULL);
}

Halo::~Halo() {
  if (!pending_) return;
  // Abandoned mid-exchange (an exception between begin and finish): complete it, so
  // that no message lands in freed memory.
  MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE);
}

void Halo::begin(const double* owned, double* ghosts) {
  pending_ = !requests_.empty();
  std::size_t r = 0;
  for (std::size_t q = 0; q < recv_ranks_.size(); ++q, ++r) {
    PRISM_MPI_CHECK(MPI_Irecv(ghosts + recv_offsets_[q], recv_offsets_[q + 1] - recv_offsets_[q],
                              MPI_DOUBLE, recv_ranks_[q], kHaloTag, comm_, &requests_[r]));
  }
  for (std::size_t k = 0; k < send_rows_.size(); ++k) send_buffer_[k] = owned[send_rows_[k]];
  for (std::size_t q = 0; q < send_ranks_.size(); ++q, ++r) {
    PRISM_MPI_CHECK(MPI_Isend(send_buffer_.data() + send_offsets_[q],
                              send_offsets_[q + 1] - send_offsets_[q], MPI_DOUBLE, send_ranks_[q],
                              kHaloTag, comm_, &requests_[r]));
  }
}

void Halo::finish() {
  if (!pending_) return;
  pending_ = false;
  PRISM_MPI_CHECK(
      MPI_Waitall(static_cast<int>(requests_.size()), requests_.data(), MPI_STATUSES_IGNORE));
}

int Halo::neighbors() const {
  return static_cast<int>(std::max(recv_ranks_.size(), send_ranks_.size()));
}

}  // namespace prism::distributed
