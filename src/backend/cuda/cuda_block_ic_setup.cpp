#include "backend/cuda/cuda_block_ic_setup.hpp"

#include <prism/errors.hpp>

#include "backend/cuda/cuda_block_ic_factor.hpp"
#include "backend/cuda/device_operators.hpp"
#include "backend/cuda/device_ordered.hpp"
#include "common/setup_steps.hpp"
#include "kernels/cuda/block_ic_analysis.hpp"
#include "kernels/cuda/device_memory.hpp"

#include <string>
#include <utility>

namespace prism::backend::cuda {
namespace {

using kernels::cuda::DeviceBuffer;

/// The host's check of the blocks against A (quotient_matrix, diagonal_block_weight), in
/// its words.
void require_fit(index_t rows, const BlockPartition& blocks, const char* who) {
  bool valid = !blocks.ptr.empty() && blocks.ptr.front() == 0 && blocks.rows() == rows;
  for (std::size_t b = 1; valid && b < blocks.ptr.size(); ++b) {
    valid = blocks.ptr[b] > blocks.ptr[b - 1];
  }
  if (!valid) {
    throw InvalidMatrixError(std::string(who) +
                             ": the blocks do not partition the matrix's rows into consecutive, "
                             "non-empty runs");
  }
}

DeviceBuffer<index_t> device_copy(const DeviceBuffer<index_t>& from, cudaStream_t stream) {
  DeviceBuffer<index_t> to(from.size());
  if (from.size() > 0) {
    PRISM_CUDA_CHECK(cudaMemcpyAsync(to.data(), from.data(), from.size() * sizeof(index_t),
                                     cudaMemcpyDeviceToDevice, stream));
  }
  return to;
}

/// The four operators on the plan's patterns: their columns taken, their row pointers
/// copied (the engine keeps the plan's, to form the operators' values).
void make_operators(kernels::cuda::DeviceBlockIcPlan& plan, const TrisolveSpec& spec,
                    cusparseHandle_t handle, cudaStream_t stream, BlockIcStorage& out) {
  const index_t n = plan.rows;
  const auto matrix = [&](kernels::cuda::DevicePattern& p) {
    return make_cuda_matrix_from_device(n, n, device_copy(p.row_ptr, stream), std::move(p.col_idx),
                                        SpmvAlgorithm::automatic, handle, stream);
  };
  const auto solver = [&](kernels::cuda::DevicePattern& p, Triangle triangle) {
    return make_cuda_colorset_from_device(n, device_copy(p.row_ptr, stream), std::move(p.col_idx),
                                          triangle, spec, stream);
  };
  out.forward_diagonal = matrix(plan.forward_diagonal);
  out.backward_diagonal = matrix(plan.backward_diagonal);
  out.forward = solver(plan.forward, Triangle::lower);
  out.backward = solver(plan.backward, Triangle::upper);
  out.diagonal_nnz = static_cast<double>(plan.operator_nnz[0]);
  out.strict_nnz = static_cast<double>(plan.operator_nnz[1] - n);
}

}  // namespace

BlockIcStorage make_cuda_block_ic_storage(const DeviceOrdered& a, const BlockPartition& blocks,
                                          const TrisolveSpec& spec, bool operators,
                                          bool float_solves, cusparseHandle_t handle,
                                          cudaStream_t stream) {
  require_fit(a.n, blocks, "quotient_matrix");
  common::StepTimer analysis_step("analysis: block_ic pattern, plan (device)", true);
  kernels::cuda::DeviceBlockIcPlan plan = kernels::cuda::block_ic_analysis(
      a.view(), a.nnz(), blocks.ptr, operators, float_solves, stream);
  analysis_step.stop();
  BlockIcStorage out;
  out.missing_diagonal = plan.missing_diagonal;
  if (plan.missing_diagonal >= 0) return out;
  out.value_count = plan.value_count;
  out.entries = plan.entries;
  out.block_weight = plan.block_weight;
  if (operators) {
    make_operators(plan, spec, handle, stream, out);
  } else {
    double stored = 0.0;  // the diagonal blocks' triangles, of b^2 stored values
    for (index_t b = 0; b < blocks.count(); ++b) {
      const double size = blocks.ptr[b + 1] - blocks.ptr[b];
      out.diagonal_nnz += 0.5 * size * (size + 1.0);
      stored += size * size;
    }
    out.strict_nnz = static_cast<double>(plan.value_count) - stored;
  }
  // The kept storage goes to the SpMV matrix after the first factorization: the engine
  // keeps its own copy of the map to the caller's entries.
  out.engine = make_cuda_block_ic_factor(std::move(plan), device_copy(a.source, stream), stream);
  return out;
}

double cuda_block_weight(const DeviceOrdered& a, const BlockPartition& blocks,
                         cudaStream_t stream) {
  require_fit(a.n, blocks, "diagonal_block_weight");
  return kernels::cuda::diagonal_block_weight(a.view(), blocks.ptr, stream);
}

}  // namespace prism::backend::cuda
