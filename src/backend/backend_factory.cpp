#include <prism/capabilities.hpp>
#include <prism/errors.hpp>

#include "backend/backend.hpp"
#include "backend/cpu_backend.hpp"
#include "backend/setup.hpp"

#include <cstring>

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

void restore_current_device(int device) noexcept {
#ifdef PRISM_HAVE_CUDA
  if (device >= 0) kernels::cuda::set_current_device(device);
#else
  static_cast<void>(device);
#endif
}

std::unique_ptr<SetupSession> Backend::begin_setup(const CsrMatrix<double>& a,
                                                   const CsrView32* resident) {
  static_cast<void>(a);
  static_cast<void>(resident);
  return nullptr;
}

void Backend::download(const void* from, void* to, std::size_t bytes) {
  if (bytes > 0) std::memcpy(to, from, bytes);  // host memory: what a host backend reads
}

namespace {
[[noreturn]] void no_kept_matrix(const Backend& backend) {
  throw Error("backend " + backend.name() + ": no set-up session keeps a matrix in its memory");
}
}  // namespace

SpmvAlgorithm Backend::pick_spmv_on_backend(const OrderedMatrix& a, SpmvAlgorithm requested) const {
  static_cast<void>(a);
  static_cast<void>(requested);
  no_kept_matrix(*this);
}

std::unique_ptr<Matrix> Backend::make_matrix_on_backend(OrderedMatrix& a, SpmvAlgorithm algorithm) {
  static_cast<void>(a);
  static_cast<void>(algorithm);
  no_kept_matrix(*this);
}

std::unique_ptr<Ic0Factor> Backend::make_ic0_factor_on_backend(const OrderedMatrix& a,
                                                               const TrisolveSpec& spec) {
  static_cast<void>(a);
  static_cast<void>(spec);
  no_kept_matrix(*this);
}

std::vector<index_t> Backend::level_ptr_on_backend(const OrderedMatrix& a,
                                                   const std::vector<index_t>& independent) {
  static_cast<void>(a);
  static_cast<void>(independent);
  no_kept_matrix(*this);
}

double Backend::block_weight_on_backend(const OrderedMatrix& a, const BlockPartition& blocks) {
  static_cast<void>(a);
  static_cast<void>(blocks);
  no_kept_matrix(*this);
}

std::unique_ptr<LineIcEngine> Backend::make_line_ic_on_backend(
    const OrderedMatrix& a, const BlockPartition& lines, const std::vector<index_t>& color_ptr) {
  static_cast<void>(a);
  static_cast<void>(lines);
  static_cast<void>(color_ptr);
  no_kept_matrix(*this);
}

BlockIcStorage Backend::make_block_ic_on_backend(const OrderedMatrix& a,
                                                 const BlockPartition& blocks,
                                                 const TrisolveSpec& spec, bool operators,
                                                 bool float_solves) {
  static_cast<void>(a);
  static_cast<void>(blocks);
  static_cast<void>(spec);
  static_cast<void>(operators);
  static_cast<void>(float_solves);
  no_kept_matrix(*this);
}

std::unique_ptr<Backend> make_backend(BackendKind kind, std::string* reason, CpuKernels cpu_kernels,
                                      const DevicePlacement& placement) {
  std::string ignored;  // a caller that does not ask why
  if (reason == nullptr) reason = &ignored;
  reason->clear();
  switch (kind) {
    case BackendKind::cpu:
      return make_cpu_backend(cpu_kernels);
    case BackendKind::automatic:
#ifdef PRISM_HAVE_CUDA
      if (cuda_available()) {
        // A device in exclusive use by another process, or lost, fails here: the CPU
        // takes the problem instead.
        try {
          std::unique_ptr<Backend> cuda = make_cuda_backend(placement);
          *reason = "backend: auto chose cuda (" + cuda->device_name() + ")";
          return cuda;
        } catch (const BackendError& e) {
          *reason =
              std::string("backend: auto chose cpu: the CUDA device cannot be used: ") + e.what();
          return make_cpu_backend(cpu_kernels);
        }
      }
#endif
      *reason = "backend: auto chose cpu: no CUDA device";
      return make_cpu_backend(cpu_kernels);
    case BackendKind::cuda:
#ifdef PRISM_HAVE_CUDA
      return make_cuda_backend(placement);
#else
      static_cast<void>(placement);
      throw BackendError("backend 'cuda' requested but prism was built without CUDA");
#endif
  }
  throw BackendError("unknown backend kind");
}

}  // namespace backend
}  // namespace prism
