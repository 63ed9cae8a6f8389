#include <prism/capabilities.hpp>
#include <prism/errors.hpp>

#include "backend/backend.hpp"
#include "backend/cpu_backend.hpp"

#ifdef PRISM_HAVE_CUDA
#include "backend/cuda/cuda_backend.hpp"
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
      return make_cpu_backend();
    case BackendKind::automatic:
#ifdef PRISM_HAVE_CUDA
      if (cuda_available()) return make_cuda_backend();
#endif
      return make_cpu_backend();
    case BackendKind::cuda:
#ifdef PRISM_HAVE_CUDA
      return make_cuda_backend();
#else
      throw BackendError("backend 'cuda' requested but prism was built without CUDA");
#endif
  }
  throw BackendError("unknown backend kind");
}

}  // namespace backend
}  // namespace prism
