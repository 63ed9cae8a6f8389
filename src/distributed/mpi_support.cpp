#include "distributed/mpi_support.hpp"

#include <prism/errors.hpp>

#include <limits>
#include <new>

namespace prism::distributed {
namespace {

enum class ErrorKind : int { error, config, invalid_matrix, numerical, io, backend };

ErrorKind kind_of(const std::exception_ptr& error, std::string& message) {
  try {
    std::rethrow_exception(error);
  } catch (const ConfigError& e) {
    message = e.what();
    return ErrorKind::config;
  } catch (const InvalidMatrixError& e) {
    message = e.what();
    return ErrorKind::invalid_matrix;
  } catch (const NumericalError& e) {
    message = e.what();
    return ErrorKind::numerical;
  } catch (const IoError& e) {
    message = e.what();
    return ErrorKind::io;
  } catch (const BackendError& e) {
    message = e.what();
    return ErrorKind::backend;
  } catch (const std::bad_alloc&) {
    message = "out of memory";
  } catch (const std::exception& e) {
    message = e.what();
  } catch (...) {
    message = "an unknown exception";
  }
  return ErrorKind::error;
}

[[noreturn]] void throw_as(ErrorKind kind, const std::string& message) {
  switch (kind) {
    case ErrorKind::config:
      throw ConfigError(message);
    case ErrorKind::invalid_matrix:
      throw InvalidMatrixError(message);
    case ErrorKind::numerical:
      throw NumericalError(message);
    case ErrorKind::io:
      throw IoError(message);
    case ErrorKind::backend:
      throw BackendError(message);
    case ErrorKind::error:
      break;
  }
  throw Error(message);
}

}  // namespace

void check_mpi(int code, const char* call, const char* file, int line) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw BackendError(std::string(call) + " failed at " + file + ":" + std::to_string(line) + ": " +
                     std::string(text, static_cast<std::size_t>(length)));
}

void agree(MPI_Comm comm, const std::exception_ptr& error) {
  const int rank = comm_rank(comm);
  const int size = comm_size(comm);
  int first = error ? rank : size;
  PRISM_MPI_CHECK(MPI_Allreduce(MPI_IN_PLACE, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) return;
  // The lowest failing rank tells the others what it threw.
  int header[2] = {0, 0};  // kind, message length
  std::string message;
  if (rank == first) {
    header[0] = static_cast<int>(kind_of(error, message));
    message = "rank " + std::to_string(rank) + ": " + message;
    header[1] = static_cast<int>(message.size());
  }
  PRISM_MPI_CHECK(MPI_Bcast(header, 2, MPI_INT, first, comm));
  message.resize(static_cast<std::size_t>(header[1]));
  PRISM_MPI_CHECK(MPI_Bcast(message.data(), header[1], MPI_CHAR, first, comm));
  throw_as(static_cast<ErrorKind>(header[0]), message);
}

std::vector<std::int64_t> allgather(MPI_Comm comm, std::int64_t value) {
  std::vector<std::int64_t> out(static_cast<std::size_t>(comm_size(comm)));
  PRISM_MPI_CHECK(MPI_Allgather(&value, 1, MPI_INT64_T, out.data(), 1, MPI_INT64_T, comm));
  return out;
}

int comm_rank(MPI_Comm comm) {
  int rank = 0;
  PRISM_MPI_CHECK(MPI_Comm_rank(comm, &rank));
  return rank;
}

int comm_size(MPI_Comm comm) {
  int size = 0;
  PRISM_MPI_CHECK(MPI_Comm_size(comm, &size));
  return size;
}

int mpi_count(std::int64_t count, const char* what) {
  if (count < 0 || count > std::numeric_limits<int>::max()) {
    throw ConfigError(std::string(what) + ": " + std::to_string(count) +
                      " values do not fit one MPI message (at most 2^31 - 1)");
  }
  return static_cast<int>(count);
}

}  // namespace prism::distributed
