#include "kernels/cuda/launch_config.hpp"

#include "kernels/cuda/check.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include <prism/errors.hpp>

namespace prism::kernels::cuda {
namespace {

int current_device() {
  int device = 0;
  PRISM_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

// What is known of a kernel's dynamic shared memory on one device. The limit only grows,
// so the attribute is set once per kernel, device and new maximum.
struct SharedEntry {
  std::size_t capacity = 0;  // opt-in maximum less the static shared memory
  std::size_t limit = 0;     // the kernel's current cudaFuncAttributeMaxDynamicSharedMemorySize
};

std::mutex& shared_mutex() {
  static std::mutex m;
  return m;
}

// The entry of (kernel, current device), read from the kernel on first use; the caller
// holds shared_mutex(). std::map keeps references to its entries valid.
SharedEntry& shared_entry_locked(const void* kernel) {
  static std::map<std::pair<const void*, int>, SharedEntry> entries;
  const int device = current_device();
  const auto key = std::make_pair(kernel, device);
  auto it = entries.find(key);
  if (it == entries.end()) {
    cudaFuncAttributes attr{};
    PRISM_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
    int optin = 0;
    PRISM_CUDA_CHECK(
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    SharedEntry e;
    e.capacity = static_cast<std::size_t>(optin) - attr.sharedSizeBytes;
    e.limit = static_cast<std::size_t>(attr.maxDynamicSharedSizeBytes);
    it = entries.emplace(key, e).first;
  }
  return it->second;
}

}  // namespace

std::size_t dynamic_shared_capacity(const void* kernel) {
  std::lock_guard<std::mutex> lock(shared_mutex());
  return shared_entry_locked(kernel).capacity;
}

void reserve_dynamic_shared(const void* kernel, std::size_t bytes, const char* who) {
  if (bytes == 0) return;  // every kernel may be launched without dynamic shared memory
  std::lock_guard<std::mutex> lock(shared_mutex());
  SharedEntry& e = shared_entry_locked(kernel);
  if (bytes > e.capacity) {
    throw ConfigError(std::string(who) + ": needs " + std::to_string(bytes) +
                      " bytes of shared memory per block, the device allows " +
                      std::to_string(e.capacity));
  }
  if (bytes > e.limit) {
    PRISM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(bytes)));
    e.limit = bytes;
  }
}

int multiprocessor_count() {
  const int device = current_device();
  int sms = 0;
  PRISM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

int blocks_per_multiprocessor(const void* kernel, int threads, std::size_t dynamic_bytes) {
  int blocks = 0;
  PRISM_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, dynamic_bytes));
  return blocks;
}

int resident_blocks(const void* kernel, int threads) {
  static std::mutex mutex;
  static std::map<std::pair<const void*, int>, int> cache;
  const int device = current_device();
  std::lock_guard<std::mutex> lock(mutex);
  const auto key = std::make_pair(kernel, device);
  auto it = cache.find(key);
  if (it == cache.end()) {
    const int sms = multiprocessor_count();
    const int per_sm = blocks_per_multiprocessor(kernel, threads);
    it = cache.emplace(key, std::max(1, sms * per_sm)).first;
  }
  return it->second;
}

}  // namespace prism::kernels::cuda
