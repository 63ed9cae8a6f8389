#pragma once
// What every GPU benchmark program in tools/ shares: CUDA-event timing of repeated runs
// (median and min after a warm-up), the device-to-device copy bandwidth every "% of
// copy bandwidth" refers to, and a reproducible uniform random number generator.
//
// Two ways to time a run (`--timing`, every benchmark program):
// - launch (default): the events and the work are enqueued on an idle stream, so the time
//   includes whatever part of the host's API calls the GPU waits for (a kernel launch
//   costs the host a few microseconds; an empty kernel: 5.7 us this way on an H100, 3.4
//   us queued).
// - queued: a kernel that holds the stream until the host has enqueued the start event, the
//   work and the stop event (nvbench's "blocking kernel"), so the time is the GPU's alone:
//   its own launch latency counts, the host's does not. This is what a call costs inside
//   a stream that is kept busy, or in a CUDA graph, and what the 1 GiB copy that "% of
//   copy bandwidth" refers to costs either way. A hold that the work itself defeats (a
//   synchronising call inside it) times out after a second and is reported.

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/device_memory.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <stdexcept>
#include <string>
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

enum class Timing { launch, queued };

/// The mode every time_runs of this program uses; set once from the command line.
inline Timing& timing_mode() {
  static Timing mode = Timing::launch;
  return mode;
}

inline const char* timing_name(Timing t) {
  return t == Timing::queued ? "queued" : "launch";
}

/// Parses the value of `--timing`; throws on anything else.
inline Timing parse_timing(const std::string& s) {
  if (s == "launch") return Timing::launch;
  if (s == "queued") return Timing::queued;
  throw std::invalid_argument("--timing takes launch or queued, not '" + s + "'");
}

/// Holds its stream until the host sets *release (or timeout_ns passes; then *timed_out).
__global__ void hold_stream_kernel(const volatile int* release, volatile int* timed_out,
                                   unsigned long long timeout_ns) {
  unsigned long long t0 = 0, t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  while (*release == 0) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    if (t - t0 > timeout_ns) {
      *timed_out = 1;
      return;
    }
    __nanosleep(256);
  }
}

/// One flag per held run, in mapped pinned memory the GPU polls.
class StreamHolds {
 public:
  explicit StreamHolds(int runs) : runs_(runs) {
    PRISM_CUDA_CHECK(cudaHostAlloc(&flags_, sizeof(int) * (runs + 1), cudaHostAllocMapped));
    std::fill(flags_, flags_ + runs + 1, 0);
  }
  ~StreamHolds() { cudaFreeHost(flags_); }
  StreamHolds(const StreamHolds&) = delete;
  StreamHolds& operator=(const StreamHolds&) = delete;

  void hold(int i, cudaStream_t stream) {
    hold_stream_kernel<<<1, 1, 0, stream>>>(flags_ + i, flags_ + runs_, 1000000000ULL);
    PRISM_CUDA_CHECK(cudaGetLastError());
  }
  void release(int i) {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    reinterpret_cast<volatile int*>(flags_)[i] = 1;
  }
  bool any_timed_out() const { return reinterpret_cast<volatile int*>(flags_)[runs_] != 0; }

 private:
  int runs_;
  int* flags_ = nullptr;
};

/// Times `reps` runs of work() with events on `stream` after `warmup` untimed runs;
/// before() is enqueued untimed ahead of every run (to restore inputs, say). With
/// Timing::queued every timed run waits behind a hold that the host releases once the
/// stop event is enqueued.
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
  const bool queued = timing_mode() == Timing::queued;
  std::unique_ptr<StreamHolds> holds;
  if (queued) holds = std::make_unique<StreamHolds>(reps);
  for (int i = 0; i < reps; ++i) {
    before();
    if (queued) holds->hold(i, stream);
    PRISM_CUDA_CHECK(cudaEventRecord(start[i]->e, stream));
    work();
    PRISM_CUDA_CHECK(cudaEventRecord(stop[i]->e, stream));
    if (queued) holds->release(i);
  }
  PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (queued && holds->any_timed_out()) {
    std::fprintf(stderr,
                 "warning: a queued timing's hold timed out; that run waited for the "
                 "host (the work synchronises)\n");
  }
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
