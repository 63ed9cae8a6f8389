#pragma once
// What every GPU benchmark program in tools/ shares: CUDA-event timing of repeated runs
// (median and min after a warm-up), the device-to-device copy bandwidth every "% of
// copy bandwidth" refers to, and a reproducible uniform random number generator.

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/device_memory.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

namespace prism::bench {

struct Event {
  cudaEvent_t e{};
  Event() { PRISM_CUDA_CHECK(cudaEventCreate(&e)); }
  ~Event() { cudaEventDestroy(e); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
};

struct Stats {
  double median_us = 0, min_us = 0;
};

inline Stats stats(std::vector<double> us) {
  std::sort(us.begin(), us.end());
  const std::size_t k = us.size();
  return {k % 2 ? us[k / 2] : 0.5 * (us[k / 2 - 1] + us[k / 2]), us.front()};
}

/// Times `reps` runs of work() with events on `stream` after `warmup` untimed runs;
/// before() is enqueued untimed ahead of every run (to restore inputs, say).
template <typename Before, typename Work>
Stats time_runs(int warmup, int reps, cudaStream_t stream, Before before, Work work) {
  for (int i = 0; i < warmup; ++i) {
    before();
    work();
  }
  std::vector<std::unique_ptr<Event>> start(reps), stop(reps);
  for (int i = 0; i < reps; ++i) {
    start[i] = std::make_unique<Event>();
    stop[i] = std::make_unique<Event>();
  }
  for (int i = 0; i < reps; ++i) {
    before();
    PRISM_CUDA_CHECK(cudaEventRecord(start[i]->e, stream));
    work();
    PRISM_CUDA_CHECK(cudaEventRecord(stop[i]->e, stream));
  }
  PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<double> us(reps);
  for (int i = 0; i < reps; ++i) {
    float ms = 0;
    PRISM_CUDA_CHECK(cudaEventElapsedTime(&ms, start[i]->e, stop[i]->e));
    us[i] = 1e3 * ms;
  }
  return stats(us);
}

/// Achievable bandwidth in GB/s: the median device-to-device copy of 1 GiB, bytes
/// read plus written.
inline double copy_bandwidth_gbs(int warmup, int reps, cudaStream_t stream) {
  const std::size_t bytes = std::size_t{1} << 30;
  kernels::cuda::DeviceBuffer<unsigned char> src(bytes), dst(bytes);
  PRISM_CUDA_CHECK(cudaMemset(src.data(), 1, bytes));
  const Stats t = time_runs(
      warmup, reps, stream, [] {},
      [&] {
        PRISM_CUDA_CHECK(
            cudaMemcpyAsync(dst.data(), src.data(), bytes, cudaMemcpyDeviceToDevice, stream));
      });
  return 2.0 * static_cast<double>(bytes) / (t.median_us * 1e-6) / 1e9;
}

/// Uniform in [0, 1) from SplitMix64: the same numbers on every platform.
inline double uniform() {
  static std::uint64_t state = 0x2545f4914f6cdd1dULL;
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return static_cast<double>((z ^ (z >> 31)) >> 11) * 0x1.0p-53;
}

}  // namespace prism::bench
