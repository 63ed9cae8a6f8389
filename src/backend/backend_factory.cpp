#include "backend/backend.hpp"
#include "backend/cpu_backend.hpp"

#include <prism/errors.hpp>
#include <prism/solver.hpp>

#ifdef PRISM_HAVE_CUDA
#include "kernels/cuda/device_info.hpp"
#endif

namespace prism {

bool cuda_available() {
#ifdef PRISM_HAVE_CUDA
  return kernels::cuda::device_count() > 0;
#else
  return false;
#endif
}

namespace backend {

std::unique_ptr<Backend> make_backend(BackendKind kind) {
  switch (kind) {
    case BackendKind::cpu:
    case BackendKind::automatic:
      // The CUDA backend is not part of this build yet: `auto` runs on the CPU.
      return make_cpu_backend();
    case BackendKind::cuda:
#ifdef PRISM_HAVE_CUDA
      if (!cuda_available()) {
        throw BackendError("backend 'cuda' requested but no CUDA device is available");
      }
      throw BackendError("backend 'cuda' is not implemented yet in this version of prism");
#else
      throw BackendError("backend 'cuda' requested but prism was built without CUDA");
#endif
  }
  throw BackendError("unknown backend kind");
}

}  // namespace backend
}  // namespace prism
