#pragma once
// bench_pcg --on-backend: the solve on vectors already where the backend computes
// (Solver::solve_on_backend: device memory on cuda, host memory on cpu) beside the solve
// on host std::vectors, with the settings of bench_pcg's timed solves (timing: total).
// Each is timed as the whole call (wall clock: the host solve's reordering and PCIe
// copies included) and as its report's solve_seconds (the iteration loop alone). x starts
// from the problem's x0 before every call, set outside the time. Medians of --repeats
// calls after a warm-up.

#include <prism/errors.hpp>
#include <prism/problem.hpp>
#include <prism/solver.hpp>

#include "bench_columns.hpp"

#if defined(PRISM_BENCH_CUDA)
#include <cuda_runtime.h>
#endif

#include <chrono>
#include <string>
#include <vector>

namespace bench {

struct OnBackendTiming {
  bool measured = false;
  bool same_x = false;     ///< the two solves' x equal bit for bit (as documented)
  int iterations = 0;      ///< of solve_on_backend (the host solve's are the row's)
  double call = 0.0;       ///< solve_on_backend(), the whole call, seconds
  double loop = 0.0;       ///< its report's solve_seconds
  double host_call = 0.0;  ///< solve(b, x) on std::vectors, the whole call
  double host_loop = 0.0;  ///< its report's solve_seconds
};

/// n doubles where `backend` ("cuda" or "cpu") computes; on cuda freed by the destructor.
class BackendArray {
 public:
  BackendArray(const std::string& backend, std::size_t n) : n_(n) {
#if defined(PRISM_BENCH_CUDA)
    if (backend == "cuda") {
      if (cudaMalloc(reinterpret_cast<void**>(&device_), n * sizeof(double)) != cudaSuccess) {
        throw prism::BackendError("bench_pcg --on-backend: cannot allocate device memory");
      }
      return;
    }
#endif
    if (backend != "cpu") throw prism::ConfigError("--on-backend: unknown backend " + backend);
    host_.resize(n);
  }
  ~BackendArray() {
#if defined(PRISM_BENCH_CUDA)
    if (device_ != nullptr) cudaFree(device_);
#endif
  }
  BackendArray(const BackendArray&) = delete;
  BackendArray& operator=(const BackendArray&) = delete;

  double* data() {
    return device_ != nullptr ? device_ : host_.data();
  }
  /// Copies `v` in and waits for the copy.
  void set(const std::vector<double>& v) {
#if defined(PRISM_BENCH_CUDA)
    if (device_ != nullptr) {
      if (cudaMemcpy(device_, v.data(), n_ * sizeof(double), cudaMemcpyHostToDevice) !=
              cudaSuccess ||
          cudaDeviceSynchronize() != cudaSuccess) {
        throw prism::BackendError("bench_pcg --on-backend: cannot copy to device memory");
      }
      return;
    }
#endif
    host_ = v;
  }
  std::vector<double> get() const {
#if defined(PRISM_BENCH_CUDA)
    if (device_ != nullptr) {
      std::vector<double> v(n_);
      if (cudaMemcpy(v.data(), device_, n_ * sizeof(double), cudaMemcpyDeviceToHost) !=
          cudaSuccess) {
        throw prism::BackendError("bench_pcg --on-backend: cannot copy from device memory");
      }
      return v;
    }
#endif
    return host_;
  }

 private:
  std::size_t n_;
  double* device_ = nullptr;
  std::vector<double> host_;
};

/// Times both solves, alternating, on a set-up solver (its options as the caller set them).
inline OnBackendTiming time_on_backend(prism::Solver& solver, const prism::Problem& p,
                                       int repeats) {
  using clock = std::chrono::steady_clock;
  const auto since = [](clock::time_point t) {
    return std::chrono::duration<double>(clock::now() - t).count();
  };
  const std::size_t n = p.b.size();
  BackendArray b(solver.backend_name(), n), x(solver.backend_name(), n);
  b.set(p.b);
  OnBackendTiming t;
  t.measured = true;
  std::vector<double> call, loop, host_call, host_loop, x_host;
  for (int rep = 0; rep <= repeats; ++rep) {  // rep 0: warm-up
    x.set(p.x0);
    auto start = clock::now();
    const prism::SolveReport on_backend = solver.solve_on_backend(b.data(), x.data(), n);
    const double call_seconds = since(start);
    x_host = p.x0;
    start = clock::now();
    const prism::SolveReport host = solver.solve(p.b, x_host);
    const double host_seconds = since(start);
    if (rep == 0) continue;
    call.push_back(call_seconds);
    loop.push_back(on_backend.solve_seconds);
    host_call.push_back(host_seconds);
    host_loop.push_back(host.solve_seconds);
    t.iterations = on_backend.iterations;
  }
  t.same_x = x.get() == x_host;
  t.call = median_of(call);
  t.loop = median_of(loop);
  t.host_call = median_of(host_call);
  t.host_loop = median_of(host_loop);
  return t;
}

}  // namespace bench
