#pragma once
// How the threaded host kernels split their work: a team of threads (an OpenMP parallel
// region), each taking one contiguous part of the fixed chunks of kReductionChunk
// entries, and the sums in the fixed order of kernels/host/threaded.hpp.

#include "kernels/host/threaded.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace prism::kernels::host::detail {

/// Chunks a thread takes at least: a team is not worth starting for less work.
inline constexpr index_t kChunksPerThread = 4;

/// Runs body(rank, size) on a team of at most `threads` threads, the calling thread as
/// rank 0; returns when all are done. The body must not throw.
template <typename Body>
void run_team(int threads, const Body& body) {
#ifdef _OPENMP
  if (threads > 1) {
#pragma omp parallel num_threads(threads)
    body(omp_get_thread_num(), omp_get_num_threads());
    return;
  }
#endif
  body(0, 1);
}

/// Waits for every thread of the team the caller runs in (a no-op in a team of one).
inline void team_barrier() {
#ifdef _OPENMP
#pragma omp barrier
#endif
}

inline index_t chunk_count(index_t n) {
  return (n + kReductionChunk - 1) / kReductionChunk;
}

/// The team worth starting for `chunks` chunks of work.
inline int team_size(int threads, index_t chunks) {
  return static_cast<int>(std::clamp<index_t>(chunks / kChunksPerThread, 1, threads));
}

/// Element `part` of `count` items split into `parts` contiguous parts.
inline index_t part_start(index_t count, int part, int parts) {
  return static_cast<index_t>(static_cast<std::int64_t>(count) * part / parts);
}

/// The first entry of chunk c of n entries (n for c = chunk_count(n)).
inline index_t chunk_begin(index_t c, index_t n) {
  return static_cast<index_t>(
      std::min<std::int64_t>(n, static_cast<std::int64_t>(c) * kReductionChunk));
}

/// The sum of f(i) over [begin, end) in the fixed order of every host reduction: lane
/// (i - begin) mod 4 adds its terms in index order, the lanes add as (0 + 1) + (2 + 3).
/// f may also write element i; the calls run in index order.
template <typename F>
double chunk_sum(index_t begin, index_t end, const F& f) {
  double lane[4] = {0.0, 0.0, 0.0, 0.0};
  index_t i = begin;
  for (; i + 4 <= end; i += 4) {
    lane[0] += f(i);
    lane[1] += f(i + 1);
    lane[2] += f(i + 2);
    lane[3] += f(i + 3);
  }
  for (int l = 0; i < end; ++i, ++l) lane[l] += f(i);
  return (lane[0] + lane[1]) + (lane[2] + lane[3]);
}

inline double sum_in_order(const std::vector<double>& partials) {
  double sum = 0.0;
  for (double p : partials) sum += p;
  return sum;
}

/// The sum of f(i) over [0, n): the chunk sums (chunk_sum) added in chunk order.
template <typename F>
double reduce(int threads, index_t n, const F& f) {
  const index_t chunks = chunk_count(n);
  std::vector<double> partials(static_cast<std::size_t>(chunks));
  run_team(team_size(threads, chunks), [&](int rank, int size) {
    const index_t last = part_start(chunks, rank + 1, size);
    for (index_t c = part_start(chunks, rank, size); c < last; ++c) {
      partials[c] = chunk_sum(chunk_begin(c, n), chunk_begin(c + 1, n), f);
    }
  });
  return sum_in_order(partials);
}

/// The range of part `rank` of `size` over [0, n), in whole chunks.
inline void part_range(index_t n, int rank, int size, index_t& begin, index_t& end) {
  const index_t chunks = chunk_count(n);
  begin = chunk_begin(part_start(chunks, rank, size), n);
  end = chunk_begin(part_start(chunks, rank + 1, size), n);
}

/// body(begin, end) on contiguous parts of [0, n), one per thread of the team.
template <typename Body>
void for_parts(int threads, index_t n, const Body& body) {
  run_team(team_size(threads, chunk_count(n)), [&](int rank, int size) {
    index_t begin = 0, end = 0;
    part_range(n, rank, size, begin, end);
    if (begin < end) body(begin, end);
  });
}

/// scan(begin, end) on contiguous parts of [0, n), one per thread; the results in part
/// order (`empty` for a thread without a part).
template <typename T, typename Scan>
std::vector<T> scan_parts(int threads, index_t n, T empty, const Scan& scan) {
  const int team = team_size(threads, chunk_count(n));
  std::vector<T> results(static_cast<std::size_t>(team), empty);
  run_team(team, [&](int rank, int size) {
    index_t begin = 0, end = 0;
    part_range(n, rank, size, begin, end);
    if (begin < end) results[static_cast<std::size_t>(rank)] = scan(begin, end);
  });
  return results;
}

/// body(rank, begin, end) on contiguous parts of [0, n) of at least `grain` items each
/// (one part when n < 2 grain), one per thread of a team of at most `threads`; returns
/// the team's size. For work per item far above a vector element's: rows of a
/// factorization, dense blocks.
template <typename Body>
int for_items(int threads, index_t n, index_t grain, const Body& body) {
  const int team = static_cast<int>(std::clamp<index_t>(n / grain, 1, std::max(threads, 1)));
  run_team(team, [&](int rank, int size) {
    const index_t begin = part_start(n, rank, size), end = part_start(n, rank + 1, size);
    if (begin < end) body(rank, begin, end);
  });
  return team;
}

/// scan(begin, end) on the parts of for_items; the results in part order (`empty` for a
/// thread without a part).
template <typename T, typename Scan>
std::vector<T> scan_items(int threads, index_t n, index_t grain, T empty, const Scan& scan) {
  std::vector<T> results(static_cast<std::size_t>(std::max(threads, 1)), empty);
  const int team = for_items(threads, n, grain, [&](int rank, index_t begin, index_t end) {
    results[static_cast<std::size_t>(rank)] = scan(begin, end);
  });
  results.resize(static_cast<std::size_t>(team), empty);
  return results;
}

/// The least index that scan(begin, end) reports over the parts of [0, n) (each returns
/// the first index of its part that qualifies, or -1); -1 when none does.
template <typename Scan>
index_t first_index(int threads, index_t n, const Scan& scan) {
  for (index_t found : scan_parts<index_t>(threads, n, -1, scan)) {
    if (found >= 0) return found;
  }
  return -1;
}

}  // namespace prism::kernels::host::detail
