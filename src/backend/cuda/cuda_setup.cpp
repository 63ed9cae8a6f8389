#include "backend/cuda/cuda_setup.hpp"

#include "backend/cuda/cuda_handles.hpp"
#include "backend/cuda/device_ordered.hpp"

#include <prism/errors.hpp>

#include "kernels/color_order.hpp"
#include "kernels/cuda/blas1.hpp"
#include "kernels/cuda/block_coloring.hpp"
#include "kernels/cuda/check.hpp"
#include "kernels/cuda/choice_scans.hpp"
#include "kernels/cuda/color_order.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/matrix_values.hpp"
#include "kernels/cuda/parallel_coloring.hpp"
#include "kernels/cuda/setup_checks.hpp"
#include "kernels/cuda/setup_permute.hpp"
#include "kernels/cuda/staged_upload.hpp"
#include "kernels/setup_checks.hpp"

#include "analysis/line_links.hpp"
#include "common/setup_steps.hpp"

#include <cmath>

namespace prism::backend::cuda {
namespace {

namespace k = kernels::cuda;

class CudaSetupSession final : public SetupSession {
 public:
  CudaSetupSession(const CsrMatrix<double>& a, cudaStream_t stream, const CsrView32* resident)
      : a_(a), stream_(stream), resident_(resident) {}

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
    // The values go up on a stream of their own while the pattern pass runs (it reads the
    // pattern alone): the copy engine and the kernel overlap instead of taking turns.
    if (full) upload_values_beside();
    // The values pass reads the mirror map, complete only where the pattern is sound.
    if (k::download_and_wait(verdict, stream_)[0] != kernels::kNoDefect) return false;
    if (full) {
      k::DeviceBuffer<double> partials(k::kReductionBlocks), partials2(k::kReductionBlocks),
          scratch(2);
      k::first_bad_value(a_.nnz(), values_.data(), mirror_.data(), symmetry_tolerance,
                         partials.data(), partials2.data(), scratch.data(), verdict.data() + 1,
                         stream_);
      if (k::download_and_wait(verdict, stream_)[1] != k::kNoBadEntry) return false;
    }
    checked_ = true;
    diagonal_proven_ = full;  // the values check rejects a diagonal not positive and finite
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

  bool color_blocks(const std::vector<index_t>& grouping, const BlockPartition& blocks,
                    VertexOrder order, BlockColoring& out) override {
    // Smallest-last is Boost's sequential ordering: no device twin.
    if (!checked_ || order == VertexOrder::smallest_last || !fits(grouping, blocks)) return false;
    try {
      return color_blocks_on_device(grouping, blocks, order, out);
    } catch (const DeviceMemoryError&) {
      return false;
    }
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

  bool find_node_blocks(index_t max_size, BlockPartition& blocks) override {
    if (!checked_ || max_size < 1) return false;  // the host names what is wrong
    try {
      k::DeviceBuffer<index_t> ptr(static_cast<std::size_t>(a_.rows) + 1);
      const index_t count = k::node_block_ptr(view(), max_size, ptr.data(), stream_);
      blocks.ptr = k::download_and_wait(ptr.data(), static_cast<std::size_t>(count) + 1, stream_);
    } catch (const DeviceMemoryError&) {
      return false;
    }
    return true;
  }

  bool first_bad_diagonal(index_t& row) override {
    if (!checked_) return false;
    try {
      row = diagonal_proven_ ? -1 : invert_diagonal();
    } catch (const DeviceMemoryError&) {
      return false;
    }
    return true;
  }

  index_t rows_choosing_links(const LineOptions& options) override {
    // Options find_lines refuses, and bad diagonals, go to the host, which throws.
    if (!checked_ || !valid(options)) return -1;
    try {
      if (invert_diagonal() >= 0) return -1;
      k::DeviceBuffer<index_t> count(1);
      k::rows_choosing_links(view(), r_.data(), options.dominance, options.min_strength,
                             count.data(), stream_);
      const index_t choosing = k::download_and_wait(count, stream_)[0];
      r_ = k::DeviceBuffer<double>();  // the last reader: the coloring and permutation come next
      return choosing;
    } catch (const DeviceMemoryError&) {
      return -1;
    }
  }

  bool find_lines(const LineOptions& options, Lines& out) override {
    if (!checked_ || !valid(options)) return false;  // the host throws
    std::vector<index_t> links;
    try {
      common::StepTimer step("lines: choices, links (device)", true);
      if (invert_diagonal() >= 0) {
        step.cancel();
        return false;
      }
      const auto entries = 2 * static_cast<std::size_t>(a_.rows);
      k::DeviceBuffer<index_t> chosen(entries), device_links(entries);
      k::chosen_links(view(), r_.data(), options.dominance, options.min_strength, chosen.data(),
                      stream_);
      k::mutual_links(a_.rows, chosen.data(), device_links.data(), stream_);
      links = k::download_and_wait(device_links, stream_);
      r_ = k::DeviceBuffer<double>();  // the last reader, as in rows_choosing_links()
    } catch (const DeviceMemoryError&) {
      return false;
    }
    out = analysis::lines_from_links(a_, links, options.max_length);
    return true;
  }

 private:
  /// Options find_lines accepts (its check_options()).
  static bool valid(const LineOptions& o) {
    return o.dominance > 1.0 && std::isfinite(o.dominance) && o.min_strength >= 0.0 &&
           o.min_strength < 1.0 && o.max_length >= 1;
  }

  /// P A P^T on the device (kernels/cuda/setup_permute.hpp); null where `permutation` has
  /// the wrong size (the host's check names it). Throws DeviceMemoryError.
  std::unique_ptr<DeviceOrdered> permuted(const std::vector<index_t>& permutation) {
    const auto n = static_cast<std::size_t>(a_.rows);
    if (permutation.size() != n) return nullptr;
    upload_pattern();
    upload_values();
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

  /// Whether `grouping` (empty or one entry a row) and `blocks` fit A as color_blocks needs
  /// (the host's require_fit names what does not).
  bool fits(const std::vector<index_t>& grouping, const BlockPartition& blocks) const {
    if (a_.rows != a_.cols ||
        !(grouping.empty() || grouping.size() == static_cast<std::size_t>(a_.rows)) ||
        blocks.ptr.empty() || blocks.ptr.front() != 0 || blocks.rows() != a_.rows) {
      return false;
    }
    for (std::size_t b = 1; b < blocks.ptr.size(); ++b) {
      if (blocks.ptr[b] <= blocks.ptr[b - 1]) return false;
    }
    return true;
  }

  /// color_blocks() on fitting blocks: the quotient pattern, the ordered greedy rounds on
  /// it (false where they pass their limit), the colors by size and the blocks' rows in
  /// their order. Throws DeviceMemoryError.
  bool color_blocks_on_device(const std::vector<index_t>& grouping, const BlockPartition& blocks,
                              VertexOrder order, BlockColoring& out) {
    const index_t count = blocks.count();
    k::DevicePattern quotient;
    k::DeviceBuffer<index_t> device_grouping, block_ptr;
    {
      const common::StepTimer step("coloring: blocks quotient pattern (device)", true);
      upload_pattern();
      device_grouping = k::upload_and_wait(grouping, stream_);
      block_ptr = k::upload_and_wait(blocks.ptr, stream_);
      quotient = k::quotient_pattern(view(), a_.nnz(), grouping_or_null(device_grouping), count,
                                     block_ptr.data(), stream_);
    }
    k::DeviceBuffer<int> colors(static_cast<std::size_t>(count));
    kernels::GreedyColoring result;
    {
      const common::StepTimer step("coloring: blocks ordered rounds (device)", true);
      k::DeviceBuffer<index_t> rank;
      if (order == VertexOrder::largest_first) {
        rank = k::DeviceBuffer<index_t>(static_cast<std::size_t>(count));
        k::largest_first_rank(count, quotient.row_ptr.data(), quotient.col_idx.data(), rank.data(),
                              stream_);
      }
      if (count > 0) {
        result = k::ordered_greedy_coloring(quotient.view(), rank.data(),
                                            kernels::kGreedyRoundLimit, colors.data(), stream_);
      }
    }
    if (!result.exact) return false;
    const common::StepTimer step("coloring: blocks by color, permutation (device)", true);
    k::DeviceBuffer<index_t> sizes(static_cast<std::size_t>(result.colors));
    k::color_sizes(count, colors.data(), result.colors, sizes.data(), stream_);
    const std::vector<index_t> size = k::download_and_wait(sizes, stream_);
    const std::vector<int> new_id = kernels::colors_by_size(size);  // color_matrix's renumbering
    const k::DeviceBuffer<int> device_new_id = k::upload_and_wait(new_id, stream_);
    k::DeviceBuffer<index_t> block_order(static_cast<std::size_t>(count));
    k::order_by_color(count, colors.data(), device_new_id.data(), result.colors, block_order.data(),
                      stream_);
    k::DeviceBuffer<index_t> permutation(static_cast<std::size_t>(a_.rows));
    k::DeviceBuffer<index_t> new_ptr(static_cast<std::size_t>(count) + 1);
    k::rows_in_block_order(a_.rows, count, block_ptr.data(), grouping_or_null(device_grouping),
                           block_order.data(), new_ptr.data(), permutation.data(), stream_);
    out.num_colors = result.colors;
    out.color_ptr = kernels::renumbered_color_ptr(size, new_id);
    out.permutation = k::download_and_wait(permutation, stream_);
    out.blocks.ptr = k::download_and_wait(new_ptr, stream_);
    out.color_rows.clear();
    for (const index_t first : out.color_ptr) out.color_rows.push_back(out.blocks.ptr[first]);
    permutation_ = std::move(permutation);
    permutation_on_host_ = out.permutation.data();
    return true;
  }
  static const index_t* grouping_or_null(const k::DeviceBuffer<index_t>& grouping) {
    return grouping.size() > 0 ? grouping.data() : nullptr;
  }

  void upload_values() {
    if (values_.size() == a_.values.size()) return;  // check() uploads them at level full
    values_ = k::DeviceBuffer<double>(a_.values.size());
    put(values_.data(), a_.values.data(), resident_ ? resident_->values : nullptr, values_.size(),
        stream_);
  }
  /// reference::inverse_sqrt_diagonal into r_ (again only where r_ went); the first bad
  /// row, -1 when none.
  index_t invert_diagonal() {
    if (first_bad_row_ != kUnscanned && r_.size() == static_cast<std::size_t>(a_.rows)) {
      return first_bad_row_;
    }
    upload_values();
    r_ = k::DeviceBuffer<double>(static_cast<std::size_t>(a_.rows));
    k::DeviceBuffer<int> first_bad(1);
    k::inverse_sqrt_diagonal(view(), r_.data(), first_bad.data(), stream_);
    const int bad = k::download_and_wait(first_bad, stream_)[0];
    first_bad_row_ = bad == k::kNoBadEntry ? -1 : static_cast<index_t>(bad);
    return first_bad_row_;
  }

  /// values_ <- A's values on a side stream, which stream_ then waits for.
  void upload_values_beside() {
    values_ = k::DeviceBuffer<double>(a_.values.size());
    const Stream side = make_stream();
    const Event uploaded = make_event();
    put(values_.data(), a_.values.data(), resident_ ? resident_->values : nullptr, values_.size(),
        side.get());
    PRISM_CUDA_CHECK(cudaEventRecord(uploaded.get(), side.get()));
    PRISM_CUDA_CHECK(cudaStreamWaitEvent(stream_, uploaded.get(), 0));
  }

  void upload_pattern() {
    if (uploaded_) return;
    uploaded_ = true;
    row_ptr_ = k::DeviceBuffer<index_t>(a_.row_ptr.size());
    col_idx_ = k::DeviceBuffer<index_t>(a_.col_idx.size());
    put(row_ptr_.data(), a_.row_ptr.data(), resident_ ? resident_->row_ptr : nullptr,
        row_ptr_.size(), stream_);
    put(col_idx_.data(), a_.col_idx.data(), resident_ ? resident_->col_idx : nullptr,
        col_idx_.size(), stream_);
  }
  /// to[0, n) <- the caller's array: from `resident` (memory the device reads) by a device
  /// copy where there is one, else from the host array through page-locked staging (several
  /// GB/s more than a plain copy from pageable memory).
  template <typename T>
  static void put(T* to, const T* host, const T* resident, std::size_t n, cudaStream_t stream) {
    if (resident == nullptr) {
      k::staged_upload(to, host, n, stream);
    } else if (n > 0) {
      PRISM_CUDA_CHECK(cudaMemcpyAsync(to, resident, n * sizeof(T), cudaMemcpyDefault, stream));
    }
  }
  kernels::CsrView<double> view() const {
    return {a_.rows, a_.cols, row_ptr_.data(), col_idx_.data(), values_.data()};
  }

  const CsrMatrix<double>& a_;
  cudaStream_t stream_;
  const CsrView32* resident_;  // a in device memory (setup_on_backend), or null
  k::DeviceBuffer<index_t> row_ptr_, col_idx_, mirror_;
  k::DeviceBuffer<double> values_;
  // The permutation of the last ordered_coloring() and the data of the copy it returned.
  k::DeviceBuffer<index_t> permutation_;
  const index_t* permutation_on_host_ = nullptr;
  bool uploaded_ = false;
  // check() passed (the device scans may read the arrays); at level full, which proved
  // every diagonal entry positive and finite.
  bool checked_ = false, diagonal_proven_ = false;
  // 1 / sqrt(a_ii) for rows_choosing_links(), and the first bad row of its scan.
  static constexpr index_t kUnscanned = -2;
  k::DeviceBuffer<double> r_;
  index_t first_bad_row_ = kUnscanned;
};

}  // namespace

std::unique_ptr<SetupSession> make_cuda_setup_session(const CsrMatrix<double>& a,
                                                      cudaStream_t stream,
                                                      const CsrView32* resident) {
  return std::make_unique<CudaSetupSession>(a, stream, resident);
}

}  // namespace prism::backend::cuda
