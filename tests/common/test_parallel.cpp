#include "common/parallel.hpp"

#include "common/host_threads.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace prism {
namespace {

using Parts = std::vector<std::pair<std::size_t, std::size_t>>;

Parts parts_of(std::size_t n, std::size_t grain) {
  Parts parts;
  std::mutex mutex;
  common::parallel_for(n, grain, [&](std::size_t begin, std::size_t end) {
    const std::lock_guard<std::mutex> lock(mutex);
    parts.emplace_back(begin, end);
  });
  std::sort(parts.begin(), parts.end());
  return parts;
}

TEST(HostThreads, EnvironmentOverridesAndBadValuesAreIgnored) {
  {
    const test::ScopedHostThreads threads(3);
    EXPECT_EQ(common::host_threads(), 3);
  }
  {
    const test::ScopedHostThreads threads(1000);
    EXPECT_EQ(common::host_threads(), 64);
  }
  ::unsetenv("PRISM_HOST_THREADS");
  const int hardware = common::host_threads();
  EXPECT_GE(hardware, 1);
  EXPECT_LE(hardware, 64);
  for (const char* bad : {"0", "-2", "four", "4x", ""}) {
    ::setenv("PRISM_HOST_THREADS", bad, 1);
    EXPECT_EQ(common::host_threads(), hardware) << "'" << bad << "'";
  }
  ::unsetenv("PRISM_HOST_THREADS");
}

// The parts cover [0, n) once, in contiguous pieces of at least `grain` items, at most
// one a thread.
TEST(ParallelFor, PartsCoverTheRangeOnce) {
  const test::ScopedHostThreads threads(4);
  EXPECT_TRUE(parts_of(0, 10).empty());
  EXPECT_EQ(parts_of(5, 10), (Parts{{0, 5}}));    // fewer than a grain: one part
  EXPECT_EQ(parts_of(19, 10), (Parts{{0, 19}}));  // fewer than two grains
  EXPECT_EQ(parts_of(20, 10), (Parts{{0, 10}, {10, 20}}));
  for (const std::size_t n : {std::size_t{7}, std::size_t{1000}, std::size_t{1001}}) {
    const Parts parts = parts_of(n, 1);
    ASSERT_EQ(parts.size(), std::min<std::size_t>(n, 4));
    std::size_t next = 0;
    for (const auto& [begin, end] : parts) {
      EXPECT_EQ(begin, next);
      EXPECT_LT(begin, end);
      next = end;
    }
    EXPECT_EQ(next, n);
  }
}

TEST(ParallelFor, EveryItemRunsOnceAcrossThreads) {
  const test::ScopedHostThreads threads(8);
  std::vector<std::atomic<int>> hits(100000);
  common::parallel_for(hits.size(), 1000, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i) ++hits[i];
  });
  for (const auto& h : hits) ASSERT_EQ(h.load(), 1);
}

// Every part runs even when some throw; the earliest part's exception comes back.
TEST(ParallelFor, RethrowsTheEarliestPartsException) {
  const test::ScopedHostThreads threads(4);
  std::atomic<int> ran{0};
  try {
    common::parallel_for(4, 1, [&](std::size_t begin, std::size_t) {
      ++ran;
      if (begin >= 1) throw std::runtime_error("part " + std::to_string(begin));
    });
    FAIL() << "no exception";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), "part 1");
  }
  EXPECT_EQ(ran.load(), 4);
}

}  // namespace
}  // namespace prism
