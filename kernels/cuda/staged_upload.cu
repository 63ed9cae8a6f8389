#include "kernels/cuda/staged_upload.hpp"

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/device_memory.hpp"

#include <algorithm>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

namespace prism::kernels::cuda {
namespace {

/// A CUDA event without timing, destroyed with its owner.
class Event {
 public:
  Event() { PRISM_CUDA_CHECK(cudaEventCreateWithFlags(&event_, cudaEventDisableTiming)); }
  ~Event() {
    if (event_ != nullptr) cudaEventDestroy(event_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const noexcept { return event_; }

 private:
  cudaEvent_t event_ = nullptr;
};

/// One lane's two staging buffers, each with the event recorded after the last copy out of
/// it (so the lane refills it only once the copy engine has read it).
struct Lane {
  explicit Lane(std::size_t chunk)
      : buffer{PinnedBuffer<unsigned char>(chunk), PinnedBuffer<unsigned char>(chunk)} {}
  PinnedBuffer<unsigned char> buffer[2];
  Event copied[2];
  bool in_flight[2] = {false, false};
  int next = 0;  ///< the buffer it fills next
};

/// The process's staging buffers.
class Staging {
 public:
  Staging(std::size_t chunk, int lanes) : chunk_(chunk) {
    for (int t = 0; t < lanes; ++t) lanes_.push_back(std::make_unique<Lane>(chunk));
  }
  ~Staging() {
    // The copy engine may still read the buffers of the last copy: wait before freeing.
    for (const auto& lane : lanes_) {
      for (int b = 0; b < 2; ++b) {
        if (lane->in_flight[b]) cudaEventSynchronize(lane->copied[b].get());
      }
    }
  }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;

  bool fits(std::size_t chunk, int lanes) const {
    return chunk == chunk_ && lanes == static_cast<int>(lanes_.size());
  }

  /// Lane t of `lanes` copies chunks t, t + lanes, ... of the source; lanes past the first
  /// run on threads of their own, which make the calling thread's device current. The
  /// copies of all lanes go to `stream` (in any order: they write disjoint bytes).
  void upload(unsigned char* device, const unsigned char* host, std::size_t bytes,
              cudaStream_t stream) {
    const std::size_t chunks = (bytes + chunk_ - 1) / chunk_;
    // cudaStreamPerThread names another stream on each thread: the calling one copies alone.
    const std::size_t most = stream == cudaStreamPerThread ? 1 : lanes_.size();
    const int lanes = static_cast<int>(std::min(most, chunks));
    int current = 0;
    PRISM_CUDA_CHECK(cudaGetDevice(&current));
    std::vector<std::exception_ptr> failed(static_cast<std::size_t>(lanes));
    auto run = [&](int t, bool own_thread) {
      try {
        if (own_thread) PRISM_CUDA_CHECK(cudaSetDevice(current));
        for (std::size_t c = static_cast<std::size_t>(t); c < chunks;
             c += static_cast<std::size_t>(lanes)) {
          const std::size_t offset = c * chunk_;
          fill_and_send(*lanes_[t], device + offset, host + offset,
                        std::min(chunk_, bytes - offset), stream);
        }
      } catch (...) {
        failed[static_cast<std::size_t>(t)] = std::current_exception();
      }
    };
    std::vector<std::thread> threads;
    threads.reserve(static_cast<std::size_t>(lanes));  // no reallocation once threads run
    int started = 1;
    try {
      for (; started < lanes; ++started) threads.emplace_back(run, started, true);
    } catch (const std::system_error&) {  // no thread to be had: this one runs the rest
    }
    run(0, false);
    for (int t = started; t < lanes; ++t) run(t, false);
    for (std::thread& thread : threads) thread.join();
    for (const std::exception_ptr& e : failed) {
      if (e) std::rethrow_exception(e);
    }
  }

 private:
  /// Copies `bytes` (at most a chunk) host -> the lane's next buffer -> device.
  static void fill_and_send(Lane& lane, unsigned char* device, const unsigned char* host,
                            std::size_t bytes, cudaStream_t stream) {
    const int b = lane.next;
    lane.next = 1 - b;
    if (lane.in_flight[b]) {
      PRISM_CUDA_CHECK(cudaEventSynchronize(lane.copied[b].get()));
      lane.in_flight[b] = false;
    }
    std::memcpy(lane.buffer[b].data(), host, bytes);
    PRISM_CUDA_CHECK(
        cudaMemcpyAsync(device, lane.buffer[b].data(), bytes, cudaMemcpyHostToDevice, stream));
    PRISM_CUDA_CHECK(cudaEventRecord(lane.copied[b].get(), stream));
    lane.in_flight[b] = true;
  }

  std::size_t chunk_;
  std::vector<std::unique_ptr<Lane>> lanes_;
};

std::mutex& staging_mutex() {
  static std::mutex mutex;
  return mutex;
}

/// Kept for the process, guarded by staging_mutex().
std::unique_ptr<Staging>& staging() {
  static std::unique_ptr<Staging> kept;
  return kept;
}

int lanes_of(const StagingPlan& plan) {
  if (plan.lanes > 0) return plan.lanes;
  const int cores = static_cast<int>(std::thread::hardware_concurrency());
  return cores >= 2 * kStagingLanes ? kStagingLanes : std::max(1, cores / 2);
}

void straight(void* device, const void* host, std::size_t bytes, cudaStream_t stream) {
  if (bytes > 0) {
    PRISM_CUDA_CHECK(cudaMemcpyAsync(device, host, bytes, cudaMemcpyHostToDevice, stream));
  }
}

}  // namespace

void staged_upload_bytes(void* device, const void* host, std::size_t bytes, cudaStream_t stream,
                         const StagingPlan& plan) {
  if (bytes == 0 || bytes < plan.min_bytes || plan.chunk_bytes == 0) {
    straight(device, host, bytes, stream);
    return;
  }
  std::unique_lock<std::mutex> lock(staging_mutex(), std::try_to_lock);
  if (!lock.owns_lock()) {  // another thread is staging: no waiting for it
    straight(device, host, bytes, stream);
    return;
  }
  const int lanes = lanes_of(plan);
  std::unique_ptr<Staging>& kept = staging();
  if (!kept || !kept->fits(plan.chunk_bytes, lanes)) {
    kept.reset();  // the old buffers first: both sets need not fit at once
    try {
      kept = std::make_unique<Staging>(plan.chunk_bytes, lanes);
    } catch (const BackendError&) {  // no page-locked memory to be had: the plain copy
      straight(device, host, bytes, stream);
      return;
    }
  }
  kept->upload(static_cast<unsigned char*>(device), static_cast<const unsigned char*>(host), bytes,
               stream);
}

}  // namespace prism::kernels::cuda
