#include "backend/cuda/cuda_ic0_factor.hpp"

#include "backend/cuda/colorset_trisolve.hpp"
#include "backend/cuda/cuda_vector.hpp"
#include "backend/cuda/device_ordered.hpp"
#include "backend/split_triangle.hpp"
#include "common/memory.hpp"
#include "common/parallel.hpp"
#include "common/setup_steps.hpp"
#include "kernels/cuda/blas1.hpp"
#include "kernels/cuda/columns.hpp"
#include "kernels/cuda/device_info.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/ic0.hpp"
#include "kernels/cuda/ic0_analysis.hpp"
#include "kernels/cuda/ic0_levels.hpp"
#include "kernels/ic0_levels.hpp"

#include <algorithm>
#include <limits>

namespace prism::backend::cuda {
namespace {

using kernels::cuda::DeviceBuffer;
using kernels::cuda::PinnedBuffer;

// Entries a host thread maps at least in the set-up's loops over the factor's entries.
constexpr std::size_t kEntriesPerPart = std::size_t{1} << 18;

class CudaIc0Factor final : public Ic0Factor {
 public:
  CudaIc0Factor(const CsrMatrix<double>& lower, const CsrMatrix<double>& upper,
                const std::vector<index_t>& upper_source, const std::vector<index_t>& lower_source,
                const TrisolveSpec& spec, double* scalars, cudaStream_t stream)
      : stream_(stream), scalars_(scalars), rows_(lower.rows) {
    // Each step of this analysis is timed apart (SetupReport::steps).
    common::StepTimer split_step("analysis: triangle split, independent blocks");
    // A pattern has no values yet; the factorization writes them into the solves' storage.
    const SplitTriangle sl = SplitTriangle::pattern_only(lower, Triangle::lower);
    const SplitTriangle su = SplitTriangle::pattern_only(upper, Triangle::upper);
    split_step.stop();
    common::StepTimer blocks_step("analysis: factor's row blocks, pattern upload", true);
    // Rows of one block of the strict lower triangle never read each other: the
    // factorization runs block by block, like the forward solve.
    const std::vector<index_t>& blocks = sl.block_ptr();
    std::vector<index_t> longest(blocks.size() - 1, 0);
    for (std::size_t b = 0; b < longest.size(); ++b) {
      for (index_t i = blocks[b]; i < blocks[b + 1]; ++i) {
        longest[b] = std::max(longest[b], lower.row_ptr[i + 1] - lower.row_ptr[i] - 1);
      }
    }
    const index_t longest_row = plan_blocks(blocks, longest);
    l_row_ptr_ = kernels::cuda::upload_and_wait(lower.row_ptr, stream);
    l_col_idx_ = kernels::cuda::upload_and_wait(lower.col_idx, stream);
    l_values_ = DeviceBuffer<double>(lower.col_idx.size());
    host_row_ptr_ = lower.row_ptr;
    host_lower_source_ = lower_source;
    blocks_step.stop();

    common::StepTimer layout_step("analysis: color-set layouts (SELL), maps upload", true);
    // U's strict entries come from L through U's own map into L.
    // The set-up's maps are memory-bound: entries (rows) in parts on host threads.
    std::vector<index_t> from_l(su.strict_source().size());
    common::parallel_for(from_l.size(), kEntriesPerPart, [&](std::size_t first, std::size_t last) {
      for (std::size_t k = first; k < last; ++k) from_l[k] = upper_source[su.strict_source()[k]];
    });
    lower_ = DeviceColorset(sl, sl.strict_source(), spec.precision, spec.layout, stream);
    upper_ = DeviceColorset(su, from_l, spec.precision, spec.layout, stream);
    // The factorization writes L into both solves' storage as each row is done.
    lower_dest_ =
        kernels::cuda::upload_and_wait(lower_.factor_destinations(lower.col_idx.size()), stream);
    upper_dest_ =
        kernels::cuda::upload_and_wait(upper_.factor_destinations(lower.col_idx.size()), stream);
    lower_.release_host_maps();  // the factorization writes their storage (output())
    upper_.release_host_maps();
    finish_layouts();
    layout_step.stop();
    common::StepTimer entry_row_step("analysis: ic0 entry rows, upload", true);
    std::vector<index_t> entry_row(lower.col_idx.size());
    common::parallel_for(static_cast<std::size_t>(rows_), common::kRowsPerPart,
                         [&](std::size_t first, std::size_t last) {
                           for (auto i = static_cast<index_t>(first);
                                i < static_cast<index_t>(last); ++i) {
                             for (index_t k = lower.row_ptr[i]; k < lower.row_ptr[i + 1]; ++k) {
                               entry_row[k] = i;
                             }
                           }
                         });
    entry_row_ = kernels::cuda::upload_and_wait(entry_row, stream);
    entry_row_step.stop();
    plan_rows(longest_row);
  }

  /// The same factor from the pattern of P A P^T in device memory: the analysis runs there
  /// (kernels/cuda/ic0_analysis.hpp) and the host reads back only sizes and a few numbers
  /// a row block (the blocks' bounds, longest rows and staging extents). The maps into
  /// the caller's values are composed here, so load(SourceValues) with a.source's host
  /// copy composes nothing.
  CudaIc0Factor(const DeviceOrdered& a, const TrisolveSpec& spec, double* scalars,
                cudaStream_t stream)
      : stream_(stream), scalars_(scalars), rows_(a.n) {
    common::StepTimer pattern_step("analysis: ic0 pattern, triangle split (device)", true);
    kernels::cuda::DeviceIc0Pattern p = kernels::cuda::ic0_analysis(a.view(), a.nnz(), stream);
    pattern_step.stop();
    common::StepTimer reach_step("analysis: independent blocks (device)", true);
    RowBlocks found =
        independent_blocks_on_device(p.lower_reach.data(), p.upper_reach.data(), rows_, stream);
    std::vector<index_t> lower_blocks = std::move(found.lower);
    std::vector<index_t> upper_blocks = std::move(found.upper);
    reach_step.stop();
    common::StepTimer blocks_step("analysis: factor's row blocks (device)", true);
    const index_t longest_row = plan_blocks(
        lower_blocks, kernels::cuda::ic0_block_longest(p.l_row_ptr.data(), lower_blocks, stream));
    const std::size_t nnz = p.l_col_idx.size();
    // No host copy of L's row pointers: the host reads a row's end only for a failed
    // pivot (row_end) and the whole of them only to plan a ladder by levels.
    l_row_ptr_ = std::move(p.l_row_ptr);
    l_col_idx_ = std::move(p.l_col_idx);
    l_values_ = DeviceBuffer<double>(nnz);
    blocks_step.stop();

    common::StepTimer layout_step("analysis: color-set layouts, factor maps (device)", true);
    lower_ = DeviceColorset(
        {true, rows_, p.strict_nnz(), p.strict_lower_ptr.data(), p.strict_lower_col.data(),
         p.strict_lower_source.data(), std::move(lower_blocks)},
        nnz, lower_dest_, spec.precision, spec.layout, stream);
    upper_ = DeviceColorset(
        {false, rows_, static_cast<index_t>(p.strict_upper_col.size()), p.strict_upper_ptr.data(),
         p.strict_upper_col.data(), p.strict_upper_source.data(), std::move(upper_blocks)},
        nnz, upper_dest_, spec.precision, spec.layout, stream);
    finish_layouts();
    layout_step.stop();
    common::StepTimer maps_step("analysis: maps to the caller's values (device)", true);
    from_values_ = DeviceBuffer<index_t>(nnz);
    kernels::cuda::compose_maps(nnz, p.lower_source.data(), a.source.data(), from_values_.data(),
                                stream);
    diagonal_from_values_ = DeviceBuffer<index_t>(static_cast<std::size_t>(rows_));
    kernels::cuda::row_last_entries(rows_, l_row_ptr_.data(), from_values_.data(),
                                    diagonal_from_values_.data(), stream);
    // No host copy of diagonal_from_values_: a bad diagonal's message reads its one entry.
    maps_step.stop();
    entry_row_ = std::move(p.entry_row);
    plan_rows(longest_row);
    common::StepTimer scratch_step("analysis: scratch freed (device)", true);
    p = kernels::cuda::DeviceIc0Pattern{};  // its cudaFree calls wait for the device
  }

  // The loaded values go straight into the factor's storage; an attempt after a failed
  // one loads them again (from the host copy, or by scaling the caller's values again),
  // so the first attempt, almost always the only one, copies nothing. Values in device
  // memory are mostly scaled by the factorization itself as it reads them (Ic0Source,
  // scales_as_it_reads_): no pass of their own, and a retry reads them again the same way
  // (a ladder of retries scales them first, ic0_scale).
  void load(const std::vector<double>& scaled, const std::vector<double>& row_scale) override {
    host_scaled_ = scaled;
    source_values_ = nullptr;
    row_scale_.upload(row_scale.data(), stream_);
    fill_from_host();
  }
  void load(const SourceValues& a) override {
    if (from_values_.size() == 0 && a.source == nullptr) {
      throw Error("ic0 factor: no map to the caller's values (the matrix was not kept)");
    }
    if (from_values_.size() == 0) {
      // a.source is fixed per pattern: the maps are made once (at construction where the
      // analysis ran on the device), and the host keeps only the diagonal's
      // (attempt_result names a bad diagonal's value).
      const std::vector<index_t> from = compose_source(host_lower_source_, *a.source);
      from_values_ = kernels::cuda::upload_and_wait(from, stream_);
      host_diagonal_from_values_.resize(static_cast<std::size_t>(rows_));
      for (index_t i = 0; i < rows_; ++i) {
        host_diagonal_from_values_[i] = from[host_row_ptr_[i + 1] - 1];
      }
      diagonal_from_values_ = kernels::cuda::upload_and_wait(host_diagonal_from_values_, stream_);
      common::release(host_lower_source_);
    }
    host_scaled_.clear();
    source_values_ = a.values;
    if (scales_as_it_reads_) {
      fresh_ = false;  // the attempts read source_values_ (attempts(): ic0_scale first)
    } else {
      fill_from_values();
    }
  }

  kernels::Ic0Status attempt(double shift) override {
    queue_attempt(shift);
    return attempt_result();
  }
  /// Everything up to the copy of the verdicts to pinned host memory: no host wait, so
  /// that it can be recorded (with load(const SourceValues&) before it) and replayed.
  void queue_attempt(double shift) override {
    const bool from_source = source_values_ != nullptr && scales_as_it_reads_;
    if (!fresh_ && !from_source) source_values_ != nullptr ? fill_from_values() : fill_from_host();
    fresh_ = false;
    // Scaling as it reads, the factorization sets both verdicts; else ic0_scale or
    // fill_from_host() set the second.
    PRISM_CUDA_CHECK(cudaMemsetAsync(flags_.data(), kernels::cuda::kNoFailedRowByte,
                                     (from_source ? 2 : 1) * sizeof(int), stream_));
    const kernels::cuda::Ic0Output out = output();
    const kernels::cuda::Ic0Matches matches = matches_.view();
    const kernels::cuda::Ic0Source source{source_values_, from_values_.data(), row_scale_.data(),
                                          inverse_scale_.data(), flags_.data() + 1};
    for (const kernels::cuda::Ic0Rows& rows : blocks_) {
      kernels::cuda::ic0_factor_rows(rows, pattern(), l_values_.data(), shift, flags_.data(),
                                     stream_, &matches, &out, nullptr,
                                     from_source ? &source : nullptr);
    }
    // One read back for both verdicts: the factorization's and the scaling's.
    PRISM_CUDA_CHECK(cudaMemcpyAsync(host_flags_.data(), flags_.data(), 2 * sizeof(int),
                                     cudaMemcpyDeviceToHost, stream_));
  }
  kernels::Ic0Status attempt_result() override {
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const int bad_diagonal = host_flags_.data()[1];
    if (bad_diagonal != kernels::cuda::kNoFailedRow) {
      double a_ii = 0.0;
      copy_one(source_values_ + diagonal_from_value(bad_diagonal), a_ii);
      return {bad_diagonal, a_ii, true};
    }
    const int row = host_flags_.data()[0];
    if (row == kernels::cuda::kNoFailedRow) return {};
    // The failed row keeps its pivot in its diagonal slot.
    double pivot = 0.0;
    copy_one(l_values_.data() + row_end(row) - 1, pivot);
    return {row, pivot};
  }

  /// The retries run together, one launch per block for all of them (Ic0Attempts), when
  /// that many attempts of the widest block still fit the GPU's resident threads at once
  /// (then they cost the latency of one attempt, not one each: bcsstk13's 8 retries,
  /// blocks of a few dozen rows) and their copies of L fit a quarter of the free memory;
  /// at most kLadderWidth. Otherwise (large blocks, where the attempts would share the
  /// GPU) one at a time, each stopping where it breaks down. The verdicts are those of
  /// the attempts one after another, and the kept factor is the same bit for bit.
  std::vector<kernels::Ic0Status> attempts(const double* shifts, int count) override {
    const int width = ladder_width(count);
    if (width <= 1) return {attempt(shifts[0])};
    const std::size_t nnz = l_values_.size();
    const auto slots = static_cast<std::size_t>(width);
    if (ladder_values_.size() < slots * nnz) ladder_values_ = DeviceBuffer<double>(slots * nnz);
    if (ladder_flags_.size() == 0) {  // first retries of this factor
      ladder_shifts_ = DeviceBuffer<double>(kLadderWidth);
      ladder_flags_ = DeviceBuffer<int>(kLadderWidth);
      ladder_pivots_ = DeviceBuffer<double>(kLadderWidth);
      host_ladder_shifts_ = PinnedBuffer<double>(kLadderWidth);
      host_ladder_flags_ = PinnedBuffer<int>(kLadderWidth);
      host_ladder_pivots_ = PinnedBuffer<double>(kLadderWidth);
    }
    if (!fresh_) source_values_ != nullptr ? fill_from_values() : fill_from_host();
    fresh_ = false;
    kernels::cuda::ic0_replicate(l_values_.data(), nnz, width, nnz, ladder_values_.data(), stream_);
    for (std::size_t a = 0; a < slots; ++a) host_ladder_shifts_.data()[a] = shifts[a];
    PRISM_CUDA_CHECK(cudaMemcpyAsync(ladder_shifts_.data(), host_ladder_shifts_.data(),
                                     slots * sizeof(double), cudaMemcpyHostToDevice, stream_));
    PRISM_CUDA_CHECK(cudaMemsetAsync(ladder_flags_.data(), kernels::cuda::kNoFailedRowByte,
                                     slots * sizeof(int), stream_));
    const kernels::cuda::Ic0Matches matches = matches_.view();
    const kernels::cuda::Ic0Attempts ladder{width, ladder_shifts_.data(), nnz};
    if (ladder_by_levels()) {
      kernels::cuda::ic0_factor_levels(levels_, ladder_values_.data(), ladder_flags_.data(), ladder,
                                       stream_);
    } else {
      for (const kernels::cuda::Ic0Rows& rows : blocks_) {
        kernels::cuda::ic0_factor_rows(rows, pattern(), ladder_values_.data(), 0.0,
                                       ladder_flags_.data(), stream_, &matches, nullptr, &ladder);
      }
    }
    // The first attempt that succeeded, if one did, into the factor's storage and written
    // out for the solves; the verdicts and the failed attempts' pivots read back at once.
    const kernels::cuda::Ic0Kept kept{ladder_flags_.data(), width, nnz, l_values_.data()};
    kernels::cuda::ic0_emit(pattern(), static_cast<index_t>(nnz), entry_row_.data(),
                            ladder_values_.data(), output(), stream_, &kept);
    kernels::cuda::ic0_failed_pivots(ladder_flags_.data(), width, ladder_values_.data(), nnz,
                                     l_row_ptr_.data(), ladder_pivots_.data(), stream_);
    PRISM_CUDA_CHECK(cudaMemcpyAsync(host_ladder_flags_.data(), ladder_flags_.data(),
                                     slots * sizeof(int), cudaMemcpyDeviceToHost, stream_));
    PRISM_CUDA_CHECK(cudaMemcpyAsync(host_ladder_pivots_.data(), ladder_pivots_.data(),
                                     slots * sizeof(double), cudaMemcpyDeviceToHost, stream_));
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    std::vector<kernels::Ic0Status> verdicts;
    for (std::size_t a = 0; a < slots; ++a) {
      const int row = host_ladder_flags_.data()[a];
      if (row == kernels::cuda::kNoFailedRow) {  // kept (above)
        verdicts.push_back({});
        break;
      }
      verdicts.push_back({row, host_ladder_pivots_.data()[a]});
    }
    return verdicts;
  }

  // The successful attempt has already written L = S^{-1} L_s into both solves' storage
  // (each triangle keeps its own copy of the inverse diagonal).
  // The attempts are over: the host copy kept for a retry goes (the next load() sets it).
  void finish() override { common::release(host_scaled_); }

  void solve(Triangle triangle, const Vector& b, Vector& x) override {
    (triangle == Triangle::lower ? lower_ : upper_).solve(cast(b).data(), cast(x).data(), stream_);
  }
  bool solves_columns() const override { return true; }
  void solve_columns(Triangle triangle, const Vector& b, Vector& x, const ColumnSet& set) override {
    (triangle == Triangle::lower ? lower_ : upper_)
        .solve_columns(set.backend_columns(), set.count(), b.data(), x.data(), stream_);
  }
  // SELL in both triangles: the halves fold away two passes (DeviceColorset::forward_pair)
  // and can form the dot (r, z).
  bool forms_dot() const override { return DeviceColorset::pair_fuses(lower_, upper_); }
  void forward(const Vector& r, Vector& work, Vector& z, std::optional<Scalar> dot) override {
    if (!forms_dot()) {
      Ic0Factor::forward(r, work, z, dot);
      return;
    }
    forward_partials_ =
        DeviceColorset::forward_pair(lower_, upper_, cast(r).data(), cast(work).data(),
                                     cast(z).data(), dot ? dot_partials_.data() : nullptr, stream_);
  }
  void backward(const Vector& r, Vector& work, Vector& z, std::optional<Scalar> dot) override {
    if (!forms_dot()) {
      Ic0Factor::backward(r, work, z, dot);
      return;
    }
    const int count = DeviceColorset::backward_pair(
        lower_, upper_, cast(r).data(), cast(work).data(), cast(z).data(),
        dot ? dot_partials_.data() + forward_partials_ : nullptr, stream_);
    if (dot) {
      kernels::cuda::sum_many_partials(dot_partials_.data(), forward_partials_ + count, scalars_,
                                       static_cast<int>(*dot), stream_);
    }
  }
  // The halves on columns: folded and with the dot where forward() and backward() are.
  void forward_columns(const Vector& r, Vector& work, Vector& z, const ColumnSet& set, Vector* s,
                       std::optional<Scalar> dot) override {
    if (!forms_dot()) {
      Ic0Factor::forward_columns(r, work, z, set, s, dot);
      return;
    }
    double* partials = column_partials(set);  // made here, before any recording
    column_forward_partials_ = DeviceColorset::forward_pair_columns(
        lower_, upper_, set.backend_columns(), set.count(), r.data(), work.data(), z.data(),
        dot ? partials : nullptr, column_stride(), stream_);
  }
  void backward_columns(const Vector& r, Vector& work, Vector& z, const ColumnSet& set, Vector* s,
                        std::optional<Scalar> dot) override {
    if (!forms_dot()) {
      Ic0Factor::backward_columns(r, work, z, set, s, dot);
      return;
    }
    double* partials = dot ? column_partials(set) : nullptr;
    const int count = DeviceColorset::backward_pair_columns(
        lower_, upper_, set.backend_columns(), set.count(), r.data(), work.data(), z.data(),
        dot ? partials + column_forward_partials_ : nullptr, column_stride(), stream_);
    if (dot) {
      if (s == nullptr) throw Error("ic0 factor: backward_columns with a dot needs the scalars");
      kernels::cuda::finish_column_partials(set.backend_columns(), set.count(), partials,
                                            column_forward_partials_ + count, column_stride(),
                                            s->data(), static_cast<int>(*dot), stream_);
    }
  }
  double apply_bytes_saved() const override {
    return DeviceColorset::pair_fuses(lower_, upper_) ? DeviceColorset::pair_bytes_saved(lower_)
                                                      : 0.0;
  }
  std::string layout() const override { return lower_.layout(); }
  std::size_t host_bytes() const override {
    using common::bytes_of;
    return bytes_of(blocks_) + bytes_of(host_row_ptr_) + bytes_of(host_lower_source_) +
           bytes_of(host_diagonal_from_values_) + bytes_of(host_scaled_) + lower_.host_bytes() +
           upper_.host_bytes();
  }

 private:
  /// Retries run together at most: shifts from initial_shift to 2^15 initial_shift (32.8
  /// with the default 1e-3, on the unit-diagonal scaled matrix, where IC(0) is about
  /// Jacobi already).
  static constexpr int kLadderWidth = 16;
  /// Steps of the walk block by block that one level costs about as much as
  /// (ladder_by_levels).
  static constexpr int kLevelSteps = 5;

  kernels::CsrView<double> pattern() const {
    return {rows_, rows_, l_row_ptr_.data(), l_col_idx_.data(), nullptr};
  }
  /// blocks_ from the lower triangle's row blocks and each block's longest row (entries
  /// left of the diagonal): merge, or warp_merge for long rows in small blocks. Returns
  /// the longest row of all, its diagonal counted.
  index_t plan_blocks(const std::vector<index_t>& block_ptr, const std::vector<index_t>& longest) {
    const int resident = kernels::cuda::resident_threads();
    index_t longest_row = 0;
    for (std::size_t b = 0; b + 1 < block_ptr.size(); ++b) {
      kernels::cuda::Ic0Rows rows;
      rows.begin = block_ptr[b];
      rows.end = block_ptr[b + 1];
      if (kernels::cuda::ic0_warp_per_row(longest[b], rows.end - rows.begin, resident)) {
        rows.method = kernels::cuda::Ic0Method::warp_merge;
      }
      longest_row = std::max(longest_row, longest[b] + 1);
      blocks_.push_back(rows);
    }
    return longest_row;
  }
  /// After the two layouts: what the solves' storage needs besides.
  void finish_layouts() {
    // With SELL the forward steps read b, not b * dl, on the first color (its inverse
    // diagonal goes into L's entries as the factorization writes them).
    lower_.scale_first_range();
    if (forms_dot()) {
      dot_partials_ = DeviceBuffer<double>(
          static_cast<std::size_t>(DeviceColorset::pair_dot_capacity(lower_, upper_)));
    }
    row_scale_ = DeviceBuffer<double>(static_cast<std::size_t>(rows_));
    inverse_scale_ = DeviceBuffer<double>(static_cast<std::size_t>(rows_));
  }
  /// With the pattern and entry_row_ in place: the match table, each block's staging and
  /// whether loaded values are scaled as the factorization reads them (steps of their own).
  void plan_rows(index_t longest_row) {
    const auto nnz = static_cast<index_t>(l_values_.size());
    // The merges are the same for every set of values: found once here, every row of
    // every block then reads only the products it subtracts.
    common::StepTimer match_step("analysis: ic0 match table (device)", true);
    matches_ =
        kernels::cuda::ic0_match_table(pattern(), nnz, entry_row_.data(), longest_row, stream_);
    match_step.stop();
    if (matches_.valid()) {
      // Each block's staging from its groups' extents, found on the device for all blocks
      // at once (a few numbers a block read back, not the row and match pointers).
      common::StepTimer staging_step("analysis: ic0 staging extents (device)", true);
      std::vector<index_t> block_ptr{0};
      for (const kernels::cuda::Ic0Rows& rows : blocks_) block_ptr.push_back(rows.end);
      const std::vector<index_t> extents = kernels::cuda::ic0_staging_extents(
          l_row_ptr_.data(), matches_.ptr.data(), block_ptr, stream_);
      for (std::size_t b = 0; b < blocks_.size(); ++b) {
        kernels::cuda::Ic0Rows& rows = blocks_[b];
        rows.staging = kernels::cuda::ic0_staging_pick(extents.data() +
                                                       b * 2 * kernels::cuda::kIc0StagingChoices);
        if (rows.staging.rows_per_warp > 0) rows.method = kernels::cuda::Ic0Method::staged;
      }
    }
    // Values from the caller's memory are scaled as the factorization reads them
    // (Ic0Source), unless a block is staged with one row a warp (long rows, where the
    // scaling step lengthens each warp's serial walk more than the pass of its own costs;
    // with two rows a warp or more the pass costs more) or its rows do not fit the shared
    // memory with the scaling's 8 bytes an entry.
    scales_as_it_reads_ = std::all_of(blocks_.begin(), blocks_.end(), [](const auto& rows) {
      return rows.method != kernels::cuda::Ic0Method::staged ||
             (rows.staging.rows_per_warp > 1 &&
              kernels::cuda::ic0_staged_bytes(rows.staging.entries, rows.staging.pairs, true) <=
                  kernels::cuda::kIc0StagedSharedBytes);
    });
    for (const kernels::cuda::Ic0Rows& rows : blocks_) {
      const long long n = rows.end - rows.begin;
      const long long threads =
          rows.method == kernels::cuda::Ic0Method::warp_merge ? 32 * n
          : rows.method == kernels::cuda::Ic0Method::staged
              ? 32 * ((n + rows.staging.rows_per_warp - 1) / rows.staging.rows_per_warp)
              : n;
      widest_block_threads_ = std::max(widest_block_threads_, threads);
    }
  }
  /// Where the factorization writes L for the solves.
  kernels::cuda::Ic0Output output() {
    return DeviceColorset::pair_output(lower_, upper_, lower_dest_.data(), upper_dest_.data(),
                                       row_scale_.data());
  }
  /// Whether a ladder of retries runs by levels (kernels/cuda/ic0_levels.hpp, one
  /// cooperative launch for all blocks of rows), planned at the first ladder: where the
  /// device runs cooperative launches, the pattern has matches, the plan's counts fit
  /// index_t and its copy a quarter of the free memory, and its levels take fewer than a
  /// kLevelSteps-th of the steps of the walk block by block: a level costs a few steps'
  /// time (a grid-wide barrier), so few levels against many steps halve a ladder.
  bool ladder_by_levels() {
    if (!levels_planned_) {
      levels_planned_ = true;
      plan_levels();
    }
    return levels_.valid();
  }
  void plan_levels() {
    if (!matches_.valid() || !kernels::cuda::ic0_levels_supported()) return;
    const std::size_t nnz = l_values_.size();
    const auto limit = static_cast<std::size_t>(std::numeric_limits<index_t>::max());
    if (nnz * kLadderWidth > std::numeric_limits<unsigned>::max()) return;  // the launch's items
    const std::vector<index_t> match_ptr = kernels::cuda::download_and_wait(matches_.ptr, stream_);
    const auto products = static_cast<std::size_t>(match_ptr.back()) + nnz;  // pairs, squares
    std::size_t free_bytes = 0, total_bytes = 0;
    PRISM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::size_t table_bytes = (5 * nnz + 2 * products) * sizeof(index_t);
    if (products > limit || table_bytes > free_bytes / 4) return;
    const std::vector<index_t> col_idx = kernels::cuda::download_and_wait(l_col_idx_, stream_);
    const std::vector<std::uint16_t> own = kernels::cuda::download_and_wait(matches_.own, stream_);
    const std::vector<index_t> other = kernels::cuda::download_and_wait(matches_.other, stream_);
    std::vector<index_t> blocks{0};
    for (const kernels::cuda::Ic0Rows& rows : blocks_) blocks.push_back(rows.end);
    if (host_row_ptr_.empty()) {  // the device analysis keeps none
      host_row_ptr_ = kernels::cuda::download_and_wait(l_row_ptr_, stream_);
    }
    const kernels::CsrView<double> view{rows_, rows_, host_row_ptr_.data(), col_idx.data(),
                                        nullptr};
    const kernels::Ic0LevelPlan plan =
        kernels::ic0_level_plan(view, match_ptr.data(), own.data(), other.data(), blocks);
    if (static_cast<long long>(plan.levels()) * kLevelSteps >= plan.steps) return;
    levels_ = kernels::cuda::Ic0LevelTable(plan, kLadderWidth, stream_);
  }
  /// How many of `count` retries attempts() runs at once (1: one at a time).
  int ladder_width(int count) const {
    const long long fit_threads =
        widest_block_threads_ > 0 ? kernels::cuda::resident_threads() / widest_block_threads_ : 1;
    std::size_t free_bytes = 0, total_bytes = 0;
    PRISM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
    const std::size_t copy_bytes = std::max<std::size_t>(1, l_values_.size() * sizeof(double));
    const auto fit_memory = static_cast<long long>(free_bytes / 4 / copy_bytes);
    return static_cast<int>(
        std::min({static_cast<long long>(count), static_cast<long long>(kLadderWidth), fit_threads,
                  fit_memory}));
  }
  void fill_from_host() {
    l_values_.upload(host_scaled_.data(), stream_);
    PRISM_CUDA_CHECK(
        cudaMemsetAsync(flags_.data() + 1, kernels::cuda::kNoFailedRowByte, sizeof(int), stream_));
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the row scale was the caller's
    fresh_ = true;
  }
  void fill_from_values() {
    kernels::cuda::ic0_scale(pattern(), static_cast<index_t>(l_values_.size()), entry_row_.data(),
                             from_values_.data(), diagonal_from_values_.data(), source_values_,
                             l_values_.data(), row_scale_.data(), inverse_scale_.data(),
                             flags_.data() + 1, stream_);
    fresh_ = true;
  }
  /// L's row pointer row + 1 (the row's end): from the host copy where there is one.
  index_t row_end(index_t row) {
    if (!host_row_ptr_.empty()) return host_row_ptr_[row + 1];
    index_t end = 0;
    PRISM_CUDA_CHECK(cudaMemcpyAsync(&end, l_row_ptr_.data() + row + 1, sizeof(index_t),
                                     cudaMemcpyDeviceToHost, stream_));
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return end;
  }
  /// The caller's entry of row's diagonal: from the host copy where there is one.
  index_t diagonal_from_value(index_t row) {
    if (!host_diagonal_from_values_.empty()) return host_diagonal_from_values_[row];
    index_t entry = 0;
    PRISM_CUDA_CHECK(cudaMemcpyAsync(&entry, diagonal_from_values_.data() + row, sizeof(index_t),
                                     cudaMemcpyDeviceToHost, stream_));
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return entry;
  }
  void copy_one(const double* device_value, double& out) {
    PRISM_CUDA_CHECK(
        cudaMemcpyAsync(&out, device_value, sizeof(double), cudaMemcpyDeviceToHost, stream_));
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  cudaStream_t stream_;
  double* scalars_;  // the backend's CG scalars
  index_t rows_;
  std::vector<kernels::cuda::Ic0Rows> blocks_;  // the row blocks and how each is factored
  kernels::cuda::Ic0MatchTable matches_;
  std::vector<index_t> host_row_ptr_;       // the host analysis's; the device one's for levels
  std::vector<index_t> host_lower_source_;  // until load(SourceValues) composed from_values_
  std::vector<index_t> host_diagonal_from_values_;  // diagonal_from_values_'s host copy
  DeviceBuffer<index_t> l_row_ptr_, l_col_idx_, from_values_;
  DeviceBuffer<index_t> diagonal_from_values_;  // from_values_ of each row's diagonal
  DeviceBuffer<double> l_values_;
  std::vector<double> host_scaled_;        // load(host): kept for a retry
  const double* source_values_ = nullptr;  // load(SourceValues): read again on a retry
  bool fresh_ = false;                     // l_values_ holds the loaded values
  bool scales_as_it_reads_ = false;        // load(SourceValues): Ic0Source, no ic0_scale
  DeviceColorset lower_, upper_;
  DeviceBuffer<index_t> lower_dest_, upper_dest_;  // factor entry -> each solve's storage
  DeviceBuffer<double> row_scale_, inverse_scale_;
  DeviceBuffer<index_t> entry_row_;  // the row of each entry of L
  DeviceBuffer<int> flags_{2};       // first failed pivot row; first bad diagonal row
  PinnedBuffer<int> host_flags_{2};
  long long widest_block_threads_ = 0;  // threads of the widest block's launch
  // attempts(), allocated by its first call: a copy of L, a shift and a first failed row
  // per attempt.
  DeviceBuffer<double> ladder_values_, ladder_shifts_, ladder_pivots_;
  DeviceBuffer<int> ladder_flags_;
  PinnedBuffer<double> host_ladder_shifts_, host_ladder_pivots_;
  PinnedBuffer<int> host_ladder_flags_;
  kernels::cuda::Ic0LevelTable levels_;  // ladder_by_levels()
  bool levels_planned_ = false;
  DeviceBuffer<double> dot_partials_;  // forms_dot: the halves' partial sums of the dot
  int forward_partials_ = 0;           // how many the last forward() wrote
  // forward_columns / backward_columns with a dot: pair_dot_capacity partials a column,
  // grown to the largest set (a set's first apply runs before any recording).
  DeviceBuffer<double> column_partials_;
  int column_forward_partials_ = 0;  // how many (a column) the last forward_columns() wrote
  int column_stride() const { return DeviceColorset::pair_dot_capacity(lower_, upper_); }
  double* column_partials(const ColumnSet& set) {
    const std::size_t size = static_cast<std::size_t>(column_stride()) *
                             static_cast<std::size_t>(std::max(set.count(), 1));
    if (column_partials_.size() < size) column_partials_ = DeviceBuffer<double>(size);
    return column_partials_.data();
  }
};

}  // namespace

std::unique_ptr<Ic0Factor> make_cuda_ic0_factor(const DeviceOrdered& a, const TrisolveSpec& spec,
                                                double* scalars, cudaStream_t stream) {
  return std::make_unique<CudaIc0Factor>(a, spec, scalars, stream);
}

std::unique_ptr<Ic0Factor> make_cuda_ic0_factor(const CsrMatrix<double>& lower,
                                                const CsrMatrix<double>& upper,
                                                const std::vector<index_t>& upper_source,
                                                const std::vector<index_t>& lower_source,
                                                const TrisolveSpec& spec, double* scalars,
                                                cudaStream_t stream) {
  return std::make_unique<CudaIc0Factor>(lower, upper, upper_source, lower_source, spec, scalars,
                                         stream);
}

}  // namespace prism::backend::cuda
