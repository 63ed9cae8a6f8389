#pragma once
/// @file
/// Host threads for set-up work (reading, checking and reordering matrices): a plain
/// fork-join over std::thread, so the library needs no threading runtime and keeps no
/// threads alive between calls.

#include <algorithm>
#include <cstddef>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

namespace prism::common {

/// Rows a host thread takes at least in the row loops of set-up (checks, permutation,
/// patterns): a few hundred microseconds of work, so that a matrix below twice this runs
/// on the calling thread alone.
inline constexpr std::size_t kRowsPerPart = 16384;

/// The most threads a parallel_for runs on (and the cpu backend's threaded kernels): the
/// environment variable PRISM_HOST_THREADS when it holds a positive integer, else the
/// cores the process may run on (its CPU affinity on Linux, else the hardware's threads;
/// 1 when unknown); at most 64 either way.
int host_threads();

/// Splits [0, n) into at most host_threads() contiguous parts of at least `grain` items
/// (one part when n < 2 grain) and calls body(begin, end) once per part, the first part
/// on the calling thread. Returns when every part is done. A part that throws does not
/// stop the others; the exception of the earliest part that threw is rethrown. Where a
/// thread cannot be started, the calling thread runs its part.
template <typename Body>
void parallel_for(std::size_t n, std::size_t grain, const Body& body) {
  const std::size_t most = n / std::max<std::size_t>(grain, 1);
  const std::size_t parts =
      std::max<std::size_t>(1, std::min(most, static_cast<std::size_t>(host_threads())));
  if (parts == 1) {
    if (n > 0) body(std::size_t{0}, n);
    return;
  }
  std::vector<std::exception_ptr> errors(parts);
  const auto run = [&](std::size_t part) {
    try {
      body(n * part / parts, n * (part + 1) / parts);
    } catch (...) {
      errors[part] = std::current_exception();
    }
  };
  std::vector<std::thread> workers;
  workers.reserve(parts - 1);
  std::size_t started = 1;
  for (; started < parts; ++started) {
    try {
      workers.emplace_back(run, started);
    } catch (const std::system_error&) {
      break;  // no more threads: the calling thread runs the rest
    }
  }
  run(0);
  for (std::size_t part = started; part < parts; ++part) run(part);
  for (std::thread& worker : workers) worker.join();
  for (const std::exception_ptr& error : errors) {
    if (error) std::rethrow_exception(error);
  }
}

}  // namespace prism::common
