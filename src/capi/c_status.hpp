#pragma once
// The C APIs' one place where exceptions stop (prism.h, and prism_mpi.h in MPI builds): a
// status for each exception type and the message, kept per thread for prism_last_error().

#include <prism/prism.h>
#include <prism/errors.hpp>
#include <prism/report.hpp>

#include <exception>
#include <new>
#include <string>

namespace prism::capi {

/// The message of the last failing call on this thread (one string for both APIs).
inline std::string& last_error() {
  thread_local std::string message;
  return message;
}

inline prism_status fail(prism_status status, const std::string& message) {
  last_error() = message;
  return status;
}

/// Runs `body`, mapping what it throws to a status and the message.
template <typename Body>
prism_status guarded(Body&& body) {
  try {
    body();
    last_error().clear();
    return PRISM_OK;
  } catch (const InputError& e) {
    return fail(PRISM_ERROR_INPUT, e.what());
  } catch (const ConfigError& e) {
    return fail(PRISM_ERROR_CONFIG, e.what());
  } catch (const InvalidMatrixError& e) {
    return fail(PRISM_ERROR_MATRIX, e.what());
  } catch (const NumericalError& e) {
    return fail(PRISM_ERROR_NUMERICAL, e.what());
  } catch (const DeviceMemoryError& e) {
    return fail(PRISM_ERROR_DEVICE_MEMORY, e.what());
  } catch (const BackendError& e) {
    return fail(PRISM_ERROR_BACKEND, e.what());
  } catch (const IoError& e) {
    return fail(PRISM_ERROR_IO, e.what());
  } catch (const std::bad_alloc&) {
    return fail(PRISM_ERROR_OTHER, "out of host memory");
  } catch (const std::exception& e) {
    return fail(PRISM_ERROR_OTHER, e.what());
  } catch (...) {
    return fail(PRISM_ERROR_OTHER, "unknown error");
  }
}

/// A SolveStatus as a prism_solve_status.
inline int solve_status(SolveStatus s) {
  switch (s) {
    case SolveStatus::converged:
      return PRISM_SOLVE_CONVERGED;
    case SolveStatus::max_iterations:
      return PRISM_SOLVE_MAX_ITERATIONS;
    case SolveStatus::breakdown:
      return PRISM_SOLVE_BREAKDOWN;
    case SolveStatus::stagnated:
      return PRISM_SOLVE_STAGNATED;
    case SolveStatus::stopped:
      return PRISM_SOLVE_STOPPED;
  }
  return PRISM_SOLVE_BREAKDOWN;
}

}  // namespace prism::capi
