#include "backend/cuda/cuda_setup.hpp"

#include "backend/cuda/device_ordered.hpp"

#include <prism/errors.hpp>

#include "kernels/color_order.hpp"
#include "kernels/cuda/blas1.hpp"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/color_order.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/matrix_values.hpp"
#include "kernels/cuda/parallel_coloring.hpp"
#include "kernels/cuda/setup_checks.hpp"
#include "kernels/cuda/setup_permute.hpp"
#include "kernels/cuda/staged_upload.hpp"
#include "kernels/setup_checks.hpp"

#include "common/setup_steps.hpp"

namespace prism::backend::cuda {
namespace {

namespace k = kernels::cuda;

class CudaSetupSession final : public SetupSession {
 public:
  CudaSetupSession(const CsrMatrix<double>& a, cudaStream_t stream) : a_(a), stream_(stream) {}

  bool check(MatrixCheck level, double symmetry_tolerance) override {
    // The sizes the kernels rely on; a matrix that breaks them goes to the host check.
    const auto n = static_cast<std::size_t>(a_.rows);
    if (a_.rows < 0 || a_.rows != a_.cols || a_.row_ptr.size() != n + 1 ||
        a_.values.size() != a_.col_idx.size() || a_.row_ptr.front() != 0 ||
        a_.row_ptr.back() != a_.nnz()) {
      return false;
    }
    upload_pattern();
    const bool full = level == MatrixCheck::full;
    const bool structure = level != MatrixCheck::none;
    if (structure && mirror_.size() != a_.col_idx.size()) {
      mirror_ = k::DeviceBuffer<index_t>(a_.col_idx.size());
    }
    k::DeviceBuffer<int> verdict(2);  // pattern defects, first bad value
    k::pattern_defects(view(), a_.nnz(), structure, mirror_.data(), verdict.data(), stream_);
    // The values pass reads the mirror map, complete only where the pattern is sound.
    if (k::download_and_wait(verdict, stream_)[0] != kernels::kNoDefect) return false;
    if (full) {
      values_ = k::DeviceBuffer<double>(a_.values.size());
      k::staged_upload(values_.data(), a_.values.data(), values_.size(), stream_);
      k::DeviceBuffer<double> partials(k::kReductionBlocks), partials2(k::kReductionBlocks),
          scratch(2);
      k::first_bad_value(a_.nnz(), values_.data(), mirror_.data(), symmetry_tolerance,
                         partials.data(), partials2.data(), scratch.data(), verdict.data() + 1,
                         stream_);
      if (k::download_and_wait(verdict, stream_)[1] != k::kNoBadEntry) return false;
    }
    return true;
  }

  int color_rows(std::vector<int>& colors) override {
    upload_pattern();
    k::DeviceBuffer<int> device(static_cast<std::size_t>(a_.rows));
    const int count = k::jones_plassmann_coloring(view(), device.data(), stream_);
    colors = k::download_and_wait(device, stream_);
    return count;
  }

  kernels::GreedyColoring color_rows_in_order(const std::vector<index_t>& rank,
                                              std::vector<int>& colors) override {
    upload_pattern();
    k::DeviceBuffer<index_t> device_rank(rank.size());
    device_rank.upload(rank.data(), stream_);
    k::DeviceBuffer<int> device(static_cast<std::size_t>(a_.rows));
    const kernels::GreedyColoring result =
        k::ordered_greedy_coloring(view(), rank.empty() ? nullptr : device_rank.data(),
                                   kernels::kGreedyRoundLimit, device.data(), stream_);
    colors = k::download_and_wait(device, stream_);
    return result;
  }

  bool ordered_coloring(ColoringMethod method, const std::vector<index_t>& rank, bool with_colors,
                        Coloring& coloring, kernels::GreedyColoring& result) override {
    if (method != ColoringMethod::jones_plassmann && method != ColoringMethod::parallel_greedy) {
      return false;
    }
    const auto n = static_cast<std::size_t>(a_.rows);
    k::DeviceBuffer<int> colors(n);
    {
      const bool jones_plassmann = method == ColoringMethod::jones_plassmann;
      const common::StepTimer step(jones_plassmann ? "coloring: Jones-Plassmann rounds (device)"
                                                   : "coloring: ordered rounds (device)",
                                   true);
      upload_pattern();
      result = kernels::GreedyColoring{};
      if (jones_plassmann) {
        result.colors = k::jones_plassmann_coloring(view(), colors.data(), stream_);
      } else {
        const k::DeviceBuffer<index_t> device_rank = k::upload_and_wait(rank, stream_);
        result = k::ordered_greedy_coloring(view(), rank.empty() ? nullptr : device_rank.data(),
                                            kernels::kGreedyRoundLimit, colors.data(), stream_);
      }
    }
    const common::StepTimer step("coloring: colors by size, permutation (device)", true);
    const int count = result.colors;
    k::DeviceBuffer<index_t> sizes(static_cast<std::size_t>(count));
    k::color_sizes(a_.rows, colors.data(), count, sizes.data(), stream_);
    const std::vector<index_t> size = k::download_and_wait(sizes, stream_);
    const std::vector<int> new_id = kernels::colors_by_size(size);  // the host's renumbering
    const k::DeviceBuffer<int> device_new_id = k::upload_and_wait(new_id, stream_);
    permutation_ = k::DeviceBuffer<index_t>(n);
    k::order_by_color(a_.rows, colors.data(), device_new_id.data(), count, permutation_.data(),
                      stream_);
    coloring.num_colors = count;
    coloring.color_ptr = kernels::renumbered_color_ptr(size, new_id);
    coloring.permutation = k::download_and_wait(permutation_, stream_);
    coloring.color = with_colors ? k::download_and_wait(colors, stream_) : std::vector<int>{};
    // Kept for permute() only when exact: the solver drops an inexact automatic coloring
    // for Boost's, whose permutation may come at the freed one's address.
    permutation_on_host_ = result.exact ? coloring.permutation.data() : nullptr;
    if (!result.exact) permutation_ = k::DeviceBuffer<index_t>();
    return true;
  }

  bool permute(const std::vector<index_t>& permutation, CsrMatrix<double>& ordered,
               std::vector<index_t>& source) override {
    try {
      std::unique_ptr<DeviceOrdered> b = permuted(permutation);
      if (!b) return false;
      ordered.rows = ordered.cols = b->n;
      ordered.row_ptr = k::download_and_wait(b->row_ptr, stream_);
      ordered.col_idx = k::download_and_wait(b->col_idx, stream_);
      ordered.values = k::download_and_wait(b->values, stream_);
      source = k::download_and_wait(b->source, stream_);
    } catch (const DeviceMemoryError&) {
      return false;
    }
    return true;
  }

  std::unique_ptr<OrderedMatrix> permute_kept(const std::vector<index_t>& permutation) override {
    try {
      std::unique_ptr<DeviceOrdered> b = permuted(permutation);
      if (!b) return nullptr;
      b->caller_values = std::move(values_);  // the session ends with the permutation
      return b;
    } catch (const DeviceMemoryError&) {
      return nullptr;
    }
  }

 private:
  /// P A P^T on the device (kernels/cuda/setup_permute.hpp); null where `permutation` has
  /// the wrong size (the host's check names it). Throws DeviceMemoryError.
  std::unique_ptr<DeviceOrdered> permuted(const std::vector<index_t>& permutation) {
    const auto n = static_cast<std::size_t>(a_.rows);
    if (permutation.size() != n) return nullptr;
    upload_pattern();
    if (values_.size() != a_.values.size()) {  // check() uploads them for level full only
      values_ = k::DeviceBuffer<double>(a_.values.size());
      k::staged_upload(values_.data(), a_.values.data(), values_.size(), stream_);
    }
    // ordered_coloring()'s permutation is here already.
    const bool kept = permutation_.size() == n && permutation.data() == permutation_on_host_;
    k::DeviceBuffer<index_t> uploaded;
    if (!kept) uploaded = k::upload_and_wait(permutation, stream_);
    const index_t* perm = kept ? permutation_.data() : uploaded.data();
    auto b = std::make_unique<DeviceOrdered>();
    b->n = a_.rows;
    b->row_ptr = k::DeviceBuffer<index_t>(n + 1);
    b->col_idx = k::DeviceBuffer<index_t>(a_.col_idx.size());
    b->source = k::DeviceBuffer<index_t>(a_.col_idx.size());
    b->values = k::DeviceBuffer<double>(a_.values.size());
    k::permute_symmetric(view(), a_.nnz(), perm, b->row_ptr.data(), b->col_idx.data(),
                         b->values.data(), b->source.data(), stream_);
    return b;
  }

  void upload_pattern() {
    if (uploaded_) return;
    uploaded_ = true;
    row_ptr_ = k::DeviceBuffer<index_t>(a_.row_ptr.size());
    col_idx_ = k::DeviceBuffer<index_t>(a_.col_idx.size());
    // From the caller's pageable arrays through page-locked staging (several GB/s more).
    k::staged_upload(row_ptr_.data(), a_.row_ptr.data(), row_ptr_.size(), stream_);
    k::staged_upload(col_idx_.data(), a_.col_idx.data(), col_idx_.size(), stream_);
  }
  kernels::CsrView<double> view() const {
    return {a_.rows, a_.cols, row_ptr_.data(), col_idx_.data(), values_.data()};
  }

  const CsrMatrix<double>& a_;
  cudaStream_t stream_;
  k::DeviceBuffer<index_t> row_ptr_, col_idx_, mirror_;
  k::DeviceBuffer<double> values_;
  // The permutation of the last ordered_coloring() and the data of the copy it returned.
  k::DeviceBuffer<index_t> permutation_;
  const index_t* permutation_on_host_ = nullptr;
  bool uploaded_ = false;
};

}  // namespace

std::unique_ptr<SetupSession> make_cuda_setup_session(const CsrMatrix<double>& a,
                                                      cudaStream_t stream) {
  return std::make_unique<CudaSetupSession>(a, stream);
}

}  // namespace prism::backend::cuda
