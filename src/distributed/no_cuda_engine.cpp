// A build without CUDA: the distributed solver has cpu ranks only.

#include "distributed/rank_engine.hpp"

#include <prism/errors.hpp>

namespace prism::distributed {

bool cuda_engine_built() {
  return false;
}

bool nccl_built() {
  return false;
}

bool every_rank_has_a_device(MPI_Comm) {
  return false;  // every rank runs this build: none has a device it can use
}

DevicePlan plan_device(MPI_Comm, const SolverConfig&) {
  throw BackendError("backend 'cuda' requested but prism was built without CUDA");
}

void release_device_plan(DevicePlan&) noexcept {}

std::unique_ptr<RankEngine> make_cuda_engine(const EngineParts&, const DevicePlan&) {
  throw BackendError("backend 'cuda' requested but prism was built without CUDA");
}

}  // namespace prism::distributed
