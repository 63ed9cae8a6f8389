#pragma once
// MPI plumbing of the distributed solver: checked calls, and errors agreed between the
// ranks so that a failure on one rank never leaves the others waiting in a collective.

#include <mpi.h>

#include <cstdint>
#include <exception>
#include <string>
#include <vector>

namespace prism::distributed {

/// Throws BackendError naming the call, file and line and MPI's error string when an MPI
/// call fails (prism's communicator returns errors instead of aborting).
void check_mpi(int code, const char* call, const char* file, int line);
#define PRISM_MPI_CHECK(call) ::prism::distributed::check_mpi((call), #call, __FILE__, __LINE__)

/// Collective: when `error` is set on any rank, every rank throws the same exception: the
/// type (ConfigError, InvalidMatrixError, NumericalError, IoError, BackendError, else
/// Error) and message of the lowest failing rank, the message prefixed "rank R: ".
/// Returns on every rank when no rank failed.
void agree(MPI_Comm comm, const std::exception_ptr& error);

/// Runs body() on every rank, then agree()s on what it threw.
template <typename Body>
void agreed(MPI_Comm comm, const Body& body) {
  std::exception_ptr error;
  try {
    body();
  } catch (...) {
    error = std::current_exception();
  }
  agree(comm, error);
}

/// MPI_Allgather of one int64 per rank.
std::vector<std::int64_t> allgather(MPI_Comm comm, std::int64_t value);

/// The communicator's rank and size.
int comm_rank(MPI_Comm comm);
int comm_size(MPI_Comm comm);

/// An int count for an MPI call; throws ConfigError when it does not fit.
int mpi_count(std::int64_t count, const char* what);

}  // namespace prism::distributed
