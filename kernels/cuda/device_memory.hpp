#pragma once
// RAII owners of device and pinned host memory: no naked cudaFree anywhere else.

#include "kernels/cuda/check.hpp"

#include <atomic>
#include <cstddef>
#include <utility>
#include <vector>

namespace prism::kernels::cuda {

/// Bytes of device memory the DeviceBuffers of this process hold now (SetupReport's
/// device_bytes); every cudaMalloc prism keeps goes through DeviceBuffer.
inline std::atomic<std::size_t>& device_bytes_held() {
  static std::atomic<std::size_t> bytes{0};
  return bytes;
}

/// n elements of T in device memory (cudaMalloc), freed on destruction.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t n) : size_(n) {
    if (n > 0) {
      PRISM_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&data_), n * sizeof(T)));
      device_bytes_held() += n * sizeof(T);
    }
  }
  ~DeviceBuffer() { deallocate(); }
  DeviceBuffer(DeviceBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept {
    if (this != &other) {
      deallocate();
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }

  /// Asynchronous copy of size() elements from host memory on `stream`.
  void upload(const T* host, cudaStream_t stream) {
    if (size_ > 0) {
      PRISM_CUDA_CHECK(
          cudaMemcpyAsync(data_, host, size_ * sizeof(T), cudaMemcpyHostToDevice, stream));
    }
  }

 private:
  void deallocate() noexcept {
    if (!data_) return;
    cudaFree(data_);
    device_bytes_held() -= size_ * sizeof(T);
  }
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// n elements of T of scratch in stream order (cudaMallocAsync on `stream`), given back in
/// the stream's order on destruction: neither waits for the device, where a DeviceBuffer's
/// cudaFree does. For scratch only the work queued on `stream` uses.
/// (Plain cudaMalloc where the device has no memory pools.)
template <typename T>
class StreamScratch {
 public:
  StreamScratch(std::size_t n, cudaStream_t stream)
      : stream_(stream), pooled_(memory_pools()), size_(n) {
    if (n == 0) return;
    void** out = reinterpret_cast<void**>(&data_);
    PRISM_CUDA_CHECK(pooled_ ? cudaMallocAsync(out, n * sizeof(T), stream)
                             : cudaMalloc(out, n * sizeof(T)));
  }
  ~StreamScratch() {
    if (data_) pooled_ ? cudaFreeAsync(data_, stream_) : cudaFree(data_);
  }
  StreamScratch(const StreamScratch&) = delete;
  StreamScratch& operator=(const StreamScratch&) = delete;

  T* data() noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }

 private:
  static bool memory_pools() {
    int device = 0, pools = 0;
    if (cudaGetDevice(&device) != cudaSuccess) return false;
    if (cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess) {
      return false;
    }
    return pools != 0;
  }
  cudaStream_t stream_;
  bool pooled_;
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

/// A device copy of `host`, complete on return (the host vector may change or go away).
template <typename T, typename Allocator>
DeviceBuffer<T> upload_and_wait(const std::vector<T, Allocator>& host, cudaStream_t stream) {
  DeviceBuffer<T> d(host.size());
  d.upload(host.data(), stream);
  PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return d;
}

/// A host copy of n elements at `device`, complete on return (after the work queued on
/// `stream`).
template <typename T>
std::vector<T> download_and_wait(const T* device, std::size_t n, cudaStream_t stream) {
  std::vector<T> host(n);
  if (!host.empty()) {
    PRISM_CUDA_CHECK(cudaMemcpyAsync(host.data(), device, host.size() * sizeof(T),
                                     cudaMemcpyDeviceToHost, stream));
  }
  PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return host;
}

/// A host copy of `device`, complete on return (after the work queued on `stream`).
template <typename T>
std::vector<T> download_and_wait(const DeviceBuffer<T>& device, cudaStream_t stream) {
  return download_and_wait(device.data(), device.size(), stream);
}

/// n elements of T in page-locked host memory (cudaMallocHost), for async readback.
template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  explicit PinnedBuffer(std::size_t n) : size_(n) {
    if (n > 0) PRISM_CUDA_CHECK(cudaMallocHost(reinterpret_cast<void**>(&data_), n * sizeof(T)));
  }
  ~PinnedBuffer() {
    if (data_) cudaFreeHost(data_);
  }
  PinnedBuffer(PinnedBuffer&& other) noexcept
      : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}
  PinnedBuffer& operator=(PinnedBuffer&& other) noexcept {
    if (this != &other) {
      if (data_) cudaFreeHost(data_);
      data_ = std::exchange(other.data_, nullptr);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }

 private:
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace prism::kernels::cuda
