#include "backend/cuda/cuda_backend.hpp"

#include <prism/errors.hpp>

#include "backend/cuda/colorset_trisolve.hpp"
#include "backend/cuda/cuda_block_ic_factor.hpp"
#include "backend/cuda/cuda_block_ic_setup.hpp"
#include "backend/cuda/cuda_column_loop.hpp"
#include "backend/cuda/cuda_graphs.hpp"
#include "backend/cuda/cuda_handles.hpp"
#include "backend/cuda/cuda_ic0_factor.hpp"
#include "backend/cuda/cuda_level_report.hpp"
#include "backend/cuda/cuda_line_ic.hpp"
#include "backend/cuda/cuda_line_ic_engine.hpp"
#include "backend/cuda/cuda_matrix.hpp"
#include "backend/cuda/cuda_setup.hpp"
#include "backend/cuda/cuda_timer.hpp"
#include "backend/cuda/cuda_vector.hpp"
#include "backend/cuda/cusparse_trisolve.hpp"
#include "backend/cuda/device_csr.hpp"
#include "backend/cuda/device_ordered.hpp"
#include "backend/split_triangle.hpp"
#include "kernels/bsr.hpp"
#include "kernels/cuda/blas1.hpp"
#include "kernels/cuda/bsr.hpp"
#include "kernels/cuda/cg_loop.hpp"
#include "kernels/cuda/columns.hpp"
#include "kernels/cuda/device_info.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/cuda/matrix_values.hpp"
#include "kernels/cuda/sell.hpp"
#include "kernels/cuda/spmv.hpp"
#include "kernels/cuda/tridiagonal.hpp"
#include "kernels/sell.hpp"

#include <prism/blocks.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

namespace prism::backend {
namespace cuda {
namespace {

using kernels::cuda::DeviceBuffer;
using kernels::cuda::PinnedBuffer;
namespace k = kernels::cuda;

const CudaMatrix& cast_matrix(const Matrix& m) {
  return dynamic_cast<const CudaMatrix&>(m);
}

/// The kept matrix of this backend's set-up session (cuda_setup.cpp).
const DeviceOrdered& cast_ordered(const OrderedMatrix& a) {
  const auto* d = dynamic_cast<const DeviceOrdered*>(&a);
  if (d == nullptr) throw Error("backend cuda: the kept matrix is not in this backend's memory");
  return *d;
}
DeviceOrdered& cast_ordered(OrderedMatrix& a) {
  return const_cast<DeviceOrdered&>(cast_ordered(static_cast<const OrderedMatrix&>(a)));
}

class CudaIndexMap final : public IndexMap {
 public:
  CudaIndexMap(const std::vector<index_t>& indices, cudaStream_t stream)
      : data(k::upload_and_wait(indices, stream)) {}
  index_t size() const override { return static_cast<index_t>(data.size()); }
  DeviceBuffer<index_t> data;
};

class CudaColumnSet final : public ColumnSet {
 public:
  CudaColumnSet(index_t rows, const std::vector<index_t>& columns, cudaStream_t stream)
      : rows_(rows), columns_(columns), device_(k::upload_and_wait(columns, stream)) {}
  index_t rows() const override { return rows_; }
  const std::vector<index_t>& columns() const override { return columns_; }
  const index_t* backend_columns() const override { return device_.data(); }
  /// The device list with -1 for the columns not in `live` (kernels/cuda/columns.hpp), after
  /// the work queued so far on `stream`, complete on return.
  void mask(const std::vector<index_t>& live, cudaStream_t stream) {
    std::vector<index_t> list = columns_;
    for (index_t& j : list) {
      if (!std::binary_search(live.begin(), live.end(), j)) j = -1;
    }
    device_.upload(list.data(), stream);
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
  }

 private:
  index_t rows_;
  std::vector<index_t> columns_;
  DeviceBuffer<index_t> device_;
};

const CudaIndexMap& cast_map(const IndexMap& m) {
  return dynamic_cast<const CudaIndexMap&>(m);
}

void check_size(const Vector& x, const Vector& y, const char* op) {
  if (x.size() != y.size()) {
    throw Error(std::string(op) + ": vector sizes differ (" + std::to_string(x.size()) + " vs " +
                std::to_string(y.size()) + ")");
  }
}

/// `trisolve: auto` takes the color-set solve up to this many independent row blocks:
/// that many launches cost about as much as one bandwidth-bound solve of a few million
/// rows, and greedy colorings of FEM and circuit matrices stay far below.
constexpr int kMaxAutoColorsetBlocks = 256;

/// The batches by the batched tridiagonal solver (kernels/cuda/tridiagonal.hpp), a call
/// per batch on the contiguous systems; one workspace for the largest batch.
class CudaTridiagonalSolver final : public TridiagonalSolver {
 public:
  CudaTridiagonalSolver(TridiagonalBatches batches, cudaStream_t stream)
      : batches_(std::move(batches)),
        stream_(stream),
        lower_(static_cast<std::size_t>(batches_.rows)),
        diagonal_(static_cast<std::size_t>(batches_.rows)),
        upper_(static_cast<std::size_t>(batches_.rows)) {
    std::size_t bytes = 0;
    for (std::size_t k = 0; k < batches_.first.size(); ++k) {
      bytes = std::max(bytes, k::tridiagonal_workspace_bytes(kernels::TridiagonalLayout::contiguous,
                                                             batches_.length[k], batches_.count[k],
                                                             sizeof(double)));
    }
    workspace_ = k::DeviceBuffer<unsigned char>(bytes);
  }
  void update_values(const std::vector<double>& lower, const std::vector<double>& diagonal,
                     const std::vector<double>& upper) override {
    lower_.upload(lower.data(), stream_);
    diagonal_.upload(diagonal.data(), stream_);
    upper_.upload(upper.data(), stream_);
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));  // the host vectors may go
  }
  void solve(const Vector& r, Vector& z) override {
    for (std::size_t k = 0; k < batches_.first.size(); ++k) {
      const index_t at = batches_.first[k];
      k::tridiagonal_solve(kernels::TridiagonalLayout::contiguous, batches_.length[k],
                           batches_.count[k], lower_.data() + at, diagonal_.data() + at,
                           upper_.data() + at, r.data() + at, z.data() + at, workspace_.data(),
                           workspace_.size(), stream_);
    }
  }

 private:
  TridiagonalBatches batches_;
  cudaStream_t stream_;
  k::DeviceBuffer<double> lower_, diagonal_, upper_;
  k::DeviceBuffer<unsigned char> workspace_;
};

class CudaBackend final : public Backend {
 public:
  /// On `device` (current while this runs), queuing on `stream` (the caller's) or, where
  /// that is null, on a stream of its own.
  CudaBackend(int device, cudaStream_t stream)
      : device_(device),
        owned_stream_(stream == nullptr ? make_stream() : Stream()),
        stream_(stream == nullptr ? owned_stream_.get() : stream),
        sparse_(make_sparse_handle(stream_)),
        partials_(k::kReductionBlocks),
        partials2_(k::kReductionBlocks),
        scalars_(kNumScalars),
        host_scalars_(kNumScalars),
        scalars_ready_(make_event()),
        timer_(stream_) {
    PRISM_CUDA_CHECK(cudaMemsetAsync(scalars_.data(), 0, kNumScalars * sizeof(double), stream_));
    cudaDeviceProp prop{};
    PRISM_CUDA_CHECK(cudaGetDeviceProperties(&prop, device_));
    device_name_ = prop.name;
    if (kernels::cuda::device_count() > 1)
      device_name_ += " (device " + std::to_string(device_) + ")";
  }
  ~CudaBackend() override {
    int previous = -1;
    if (cudaGetDevice(&previous) == cudaSuccess && previous != device_ &&
        cudaSetDevice(device_) == cudaSuccess) {
      restore_.previous = previous;
    }
    cudaStreamSynchronize(stream_);
  }

  int make_device_current() override {
    int previous = 0;
    PRISM_CUDA_CHECK(cudaGetDevice(&previous));
    if (previous == device_) return -1;  // nothing to give back
    PRISM_CUDA_CHECK(cudaSetDevice(device_));
    return previous;
  }

  std::string name() const override { return "cuda"; }
  Kind kind() const override { return Kind::device; }
  std::string device_name() const override { return device_name_; }
  std::unique_ptr<SetupSession> begin_setup(const CsrMatrix<double>& a,
                                            const CsrView32* resident) override {
    return make_cuda_setup_session(a, stream_, resident);
  }
  void download(const void* from, void* to, std::size_t bytes) override {
    if (bytes == 0) return;
    PRISM_CUDA_CHECK(cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToHost, stream_));
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  std::unique_ptr<Vector> make_vector(index_t n) override {
    auto v = std::make_unique<CudaVector>(n);
    if (n > 0) {
      PRISM_CUDA_CHECK(cudaMemsetAsync(v->data(), 0, n * sizeof(double), stream_));
    }
    return v;
  }
  std::unique_ptr<Vector> view(double* data, index_t n) override {
    return std::make_unique<CudaVector>(data, n);
  }
  SpmvAlgorithm pick_spmv(const CsrMatrix<double>& a, SpmvAlgorithm requested) const override {
    return requested == SpmvAlgorithm::automatic ? pick_spmv_algorithm(a) : requested;
  }
  std::unique_ptr<Matrix> make_matrix(const CsrMatrix<double>& a,
                                      SpmvAlgorithm algorithm) override {
    return std::make_unique<CudaMatrix>(a, algorithm, sparse_.get(), stream_);
  }
  SpmvAlgorithm pick_spmv_on_backend(const OrderedMatrix& a,
                                     SpmvAlgorithm requested) const override {
    return requested == SpmvAlgorithm::automatic ? pick_spmv_algorithm(cast_ordered(a), stream_)
                                                 : requested;
  }
  std::unique_ptr<Matrix> make_matrix_on_backend(OrderedMatrix& a,
                                                 SpmvAlgorithm algorithm) override {
    return std::make_unique<CudaMatrix>(cast_ordered(a), algorithm, sparse_.get(), stream_);
  }
  std::vector<index_t> level_ptr_on_backend(const OrderedMatrix& a,
                                            const std::vector<index_t>& independent) override {
    return level_ptr_on_device(cast_ordered(a), independent, stream_);
  }
  double block_weight_on_backend(const OrderedMatrix& a, const BlockPartition& blocks) override {
    return cuda_block_weight(cast_ordered(a), blocks, stream_);
  }
  BlockIcStorage make_block_ic_on_backend(const OrderedMatrix& a, const BlockPartition& blocks,
                                          const TrisolveSpec& spec, bool operators,
                                          bool float_solves) override {
    return make_cuda_block_ic_storage(cast_ordered(a), blocks, spec, operators, float_solves,
                                      sparse_.get(), stream_);
  }
  /// The color-set solve pays one launch per independent row block: few blocks (a
  /// multicolor order) make it the fast choice, many (a natural order) a slow one.
  TrisolveAlgorithm pick_trisolve(int independent_blocks, Precision precision) const override {
    if (precision == Precision::mixed) return TrisolveAlgorithm::colorset;
    return independent_blocks <= kMaxAutoColorsetBlocks ? TrisolveAlgorithm::colorset
                                                        : TrisolveAlgorithm::cusparse;
  }
  std::unique_ptr<TriangularSolver> make_triangular_solver(const CsrMatrix<double>& t,
                                                           Triangle triangle,
                                                           const TrisolveSpec& spec) override {
    const TrisolveAlgorithm algorithm = spec.algorithm;
    if (spec.precision == Precision::mixed) {
      if (algorithm != TrisolveAlgorithm::automatic && algorithm != TrisolveAlgorithm::colorset) {
        throw_mixed_needs_colorset(algorithm);
      }
      return make_colorset_trisolve(SplitTriangle(t, triangle, spec.precision), spec.layout,
                                    stream_);
    }
    switch (algorithm) {
      case TrisolveAlgorithm::automatic: {
        SplitTriangle split(t, triangle);
        if (pick_trisolve(split.num_blocks(), spec.precision) == TrisolveAlgorithm::colorset) {
          return make_colorset_trisolve(std::move(split), spec.layout, stream_);
        }
        return make_cusparse_trisolve(t, triangle, sparse_.get(), stream_);
      }
      case TrisolveAlgorithm::colorset:
        return make_colorset_trisolve(SplitTriangle(t, triangle), spec.layout, stream_);
      case TrisolveAlgorithm::cusparse:
        return make_cusparse_trisolve(t, triangle, sparse_.get(), stream_);
      case TrisolveAlgorithm::reference:
        break;
    }
    throw ConfigError("trisolve '" + std::string(to_string(algorithm)) +
                      "' runs on the cpu backend only; the cuda backend has: auto, cusparse, "
                      "colorset");
  }
  std::unique_ptr<BlockIcFactor> make_block_ic_factor(const kernels::BlockIcPlan& plan) override {
    return make_cuda_block_ic_factor(plan, stream_);
  }
  std::unique_ptr<TridiagonalSolver> make_tridiagonal_solver(
      const TridiagonalBatches& batches) override {
    return std::make_unique<CudaTridiagonalSolver>(batches, stream_);
  }
  std::unique_ptr<LineIcSolver> make_line_ic_solver(const LineIcFactor& factor) override {
    return make_cuda_line_ic_solver(factor, stream_);
  }
  std::unique_ptr<LineIcEngine> make_line_ic_on_backend(
      const OrderedMatrix& a, const BlockPartition& lines,
      const std::vector<index_t>& color_ptr) override {
    return make_cuda_line_ic_engine(cast_ordered(a), lines, color_ptr, stream_);
  }
  std::unique_ptr<Ic0Factor> make_ic0_factor(const CsrMatrix<double>& lower,
                                             const CsrMatrix<double>& upper,
                                             const std::vector<index_t>& upper_source,
                                             const std::vector<index_t>& lower_source,
                                             const TrisolveSpec& spec) override {
    return make_cuda_ic0_factor(lower, upper, upper_source, lower_source, spec, scalars_.data(),
                                stream_);
  }
  std::unique_ptr<Ic0Factor> make_ic0_factor_on_backend(const OrderedMatrix& a,
                                                        const TrisolveSpec& spec) override {
    const auto* ordered = dynamic_cast<const DeviceOrdered*>(&a);
    if (ordered == nullptr) throw Error("cuda backend: the kept matrix is not in device memory");
    return make_cuda_ic0_factor(*ordered, spec, scalars_.data(), stream_);
  }
  void copy_from_host(const std::vector<double>& src, Vector& dst) override {
    if (static_cast<index_t>(src.size()) != dst.size()) {
      throw Error("copy_from_host: size " + std::to_string(src.size()) + " does not match " +
                  std::to_string(dst.size()));
    }
    PRISM_CUDA_CHECK(cudaMemcpyAsync(cast(dst).data(), src.data(), src.size() * sizeof(double),
                                     cudaMemcpyHostToDevice, stream_));
  }
  void copy_to_host(const Vector& src, std::vector<double>& dst) override {
    dst.resize(static_cast<std::size_t>(src.size()));
    PRISM_CUDA_CHECK(cudaMemcpyAsync(dst.data(), cast(src).data(), dst.size() * sizeof(double),
                                     cudaMemcpyDeviceToHost, stream_));
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }

  const double* stage(const std::vector<double>& values) override {
    if (staged_.size() != values.size()) staged_ = DeviceBuffer<double>(values.size());
    // From pageable memory: the call returns once `values` has been read, so the caller
    // may change it; the kernels after it on the stream see the copy.
    if (!values.empty()) staged_.upload(values.data(), stream_);
    return staged_.data();
  }
  bool reads(const void* values) const override {
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, values) != cudaSuccess) {
      cudaGetLastError();  // an unknown pointer: clear the error, answer no
      return false;
    }
    // Device memory of another GPU would need peer access the solver does not set up.
    return (attributes.type == cudaMemoryTypeDevice && attributes.device == device_) ||
           attributes.type == cudaMemoryTypeManaged;
  }
  std::unique_ptr<IndexMap> make_index_map(const std::vector<index_t>& indices) override {
    return std::make_unique<CudaIndexMap>(indices, stream_);
  }
  void gather(const double* src, const IndexMap& map, Vector& dst) override {
    if (map.size() != dst.size()) {
      throw Error("gather: map of " + std::to_string(map.size()) + " entries for " +
                  std::to_string(dst.size()) + " values");
    }
    k::gather_values(dst.size(), cast_map(map).data.data(), src, cast(dst).data(), stream_);
  }
  void queue_value_check(const double* values, const IndexMap& mirror, double tolerance) override {
    k::first_bad_value(mirror.size(), values, cast_map(mirror).data.data(), tolerance,
                       partials_.data(), partials2_.data(), check_scratch_.data(),
                       check_flag_.data(), stream_);
  }
  index_t value_check_result() override { return read_flag(check_flag_); }
  index_t invert_positive(Vector& x) override {
    k::invert_positive(x.size(), cast(x).data(), flag_.data(), stream_);
    return read_flag(flag_);
  }
  double largest_finite_magnitude(const double* values, std::size_t count) override {
    k::largest_finite_magnitude(static_cast<index_t>(count), values, partials_.data(),
                                largest_.data(), stream_);
    double largest = 0.0;
    PRISM_CUDA_CHECK(cudaMemcpyAsync(&largest, largest_.data(), sizeof(double),
                                     cudaMemcpyDeviceToHost, stream_));
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    return largest;
  }
  void copy_to_host(const double* src, std::size_t count, std::vector<double>& dst) override {
    dst.resize(count);
    PRISM_CUDA_CHECK(
        cudaMemcpyAsync(dst.data(), src, count * sizeof(double), cudaMemcpyDeviceToHost, stream_));
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
  }
  void synchronize() override { PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

  void spmv(const Matrix& a, const Vector& x, Vector& y) override {
    cast_matrix(a).multiply(cast(x), cast(y));
  }
  void spmv_dot(const Matrix& a, const Vector& x, Vector& y, Scalar out) override {
    const CudaMatrix& m = cast_matrix(a);
    if (m.is_sell()) {
      const int blocks = m.multiply_dot(cast(x), cast(y), partials_.data());
      k::sum_partials(partials_.data(), blocks, scalars_.data(), static_cast<int>(out), stream_);
      return;
    }
    spmv(a, x, y);
    dot(x, y, out);
  }
  bool fuses_spmv_dot(const Matrix& a) const override { return cast_matrix(a).is_sell(); }
  void dot(const Vector& x, const Vector& y, Scalar out) override {
    check_size(x, y, "dot");
    k::dot(x.size(), cast(x).data(), cast(y).data(), partials_.data(), scalars_.data(),
           static_cast<int>(out), stream_);
  }
  void axpy(double a, const Vector& x, Vector& y) override {
    check_size(x, y, "axpy");
    k::axpy(x.size(), a, cast(x).data(), cast(y).data(), stream_);
  }
  void copy(const Vector& x, Vector& y) override {
    check_size(x, y, "copy");
    if (x.size() == 0) return;
    PRISM_CUDA_CHECK(cudaMemcpyAsync(cast(y).data(), cast(x).data(), x.size() * sizeof(double),
                                     cudaMemcpyDeviceToDevice, stream_));
  }
  void pointwise_multiply(const Vector& d, const Vector& x, Vector& y) override {
    check_size(d, x, "pointwise_multiply");
    k::pointwise_multiply(x.size(), cast(d).data(), cast(x).data(), cast(y).data(), stream_);
  }
  void cg_update(const Vector& p, const Vector& q, Vector& x, Vector& r) override {
    check_size(p, x, "cg_update");
    k::cg_update(p.size(), cast(p).data(), cast(q).data(), cast(x).data(), cast(r).data(),
                 partials_.data(), scalars_.data(), stream_);
  }
  void cg_direction(const Vector& z, Vector& p) override {
    check_size(z, p, "cg_direction");
    k::cg_direction(z.size(), cast(z).data(), cast(p).data(), scalars_.data(), stream_);
  }
  void cg_step(const Matrix& a, const Vector& p, Vector& q, Vector& r) override {
    check_size(p, r, "cg_step");
    const CudaMatrix& m = cast_matrix(a);
    int count = 0;
    if (m.is_sell()) {
      count = m.multiply_dot(cast(p), cast(q), partials_.data());
    } else {
      m.multiply(cast(p), cast(q));
      count = k::dot_partials(p.size(), cast(p).data(), cast(q).data(), partials_.data(), stream_);
    }
    rr_count_ = k::cg_residual(r.size(), cast(q).data(), cast(r).data(), partials_.data(), count,
                               partials2_.data(), scalars_.data(), !defer_rr_, stream_);
  }
  void cg_direction_dot(const Vector& r, const Vector& z, Vector& p, Vector& x) override {
    check_size(z, p, "cg_direction_dot");
    k::cg_direction_dot(z.size(), cast(r).data(), cast(z).data(), cast(p).data(), cast(x).data(),
                        partials_.data(), scalars_.data(), stream_);
  }
  void cg_direction_x(const Vector& z, Vector& p, Vector& x) override {
    check_size(z, p, "cg_direction_x");
    k::cg_direction_x(z.size(), cast(z).data(), cast(p).data(), cast(x).data(), scalars_.data(),
                      stream_);
  }
  void cg_finish(const Vector& p, Vector& x) override {
    check_size(p, x, "cg_finish");
    k::cg_finish(x.size(), cast(p).data(), cast(x).data(), scalars_.data(), stream_);
  }
  // The multi-column operations (backend/columns.hpp, kernels/cuda/columns.hpp).
  std::unique_ptr<ColumnSet> make_column_set(index_t rows,
                                             const std::vector<index_t>& columns) override {
    return std::make_unique<CudaColumnSet>(rows, columns, stream_);
  }
  void spmm(const Matrix& a, const Vector& x, Vector& y, const ColumnSet& set) override {
    cast_matrix(a).multiply_columns(x, y, set);
  }
  void spmm_dot(const Matrix& a, const Vector& x, Vector& y, const ColumnSet& set, Vector& s,
                Scalar out) override {
    cast_matrix(a).multiply_columns_dot(x, y, set, column_partials(set), s.data(),
                                        static_cast<int>(out));
  }
  void column_dot(const Vector& x, const Vector& y, const ColumnSet& set, Vector& s,
                  Scalar out) override {
    k::dot_columns(set.rows(), set.backend_columns(), set.count(), x.data(), y.data(),
                   column_partials(set), s.data(), static_cast<int>(out), stream_);
  }
  void column_axpy(double a, const Vector& x, Vector& y, const ColumnSet& set) override {
    k::axpy_columns(set.rows(), set.backend_columns(), set.count(), a, x.data(), y.data(), stream_);
  }
  void column_copy(const Vector& x, Vector& y, const ColumnSet& set) override {
    k::copy_columns(set.rows(), set.backend_columns(), set.count(), x.data(), y.data(), stream_);
  }
  void column_pointwise_multiply(const Vector& d, const Vector& x, Vector& y,
                                 const ColumnSet& set) override {
    k::pointwise_multiply_columns(set.rows(), set.backend_columns(), set.count(), d.data(),
                                  x.data(), y.data(), stream_);
  }
  void column_pointwise_multiply_dot(const Vector& d, const Vector& x, Vector& y,
                                     const ColumnSet& set, Vector& s, Scalar out) override {
    k::pointwise_multiply_dot_columns(set.rows(), set.backend_columns(), set.count(), d.data(),
                                      x.data(), y.data(), column_partials(set), s.data(),
                                      static_cast<int>(out), stream_);
  }
  void column_cg_update(const Vector& p, const Vector& q, Vector& x, Vector& r,
                        const ColumnSet& set, Vector& s) override {
    k::cg_update_columns(set.rows(), set.backend_columns(), set.count(), p.data(), q.data(),
                         x.data(), r.data(), column_partials(set), s.data(), stream_);
  }
  void column_cg_direction(const Vector& z, Vector& p, const ColumnSet& set, Vector& s) override {
    k::cg_direction_columns(set.rows(), set.backend_columns(), set.count(), z.data(), p.data(),
                            s.data(), stream_);
  }
  void column_cg_residual(const Vector&, const Vector& q, Vector&, Vector& r, const ColumnSet& set,
                          Vector& s) override {
    k::cg_residual_columns(set.rows(), set.backend_columns(), set.count(), q.data(), r.data(),
                           column_partials(set), s.data(), stream_);
  }
  void column_cg_direction_x(const Vector& z, Vector& p, Vector& x, const ColumnSet& set,
                             Vector& s) override {
    k::cg_direction_x_columns(set.rows(), set.backend_columns(), set.count(), z.data(), p.data(),
                              x.data(), s.data(), stream_);
  }
  void column_cg_finish(const Vector& p, Vector& x, const ColumnSet& set, Vector& s) override {
    k::cg_finish_columns(set.rows(), set.backend_columns(), set.count(), p.data(), x.data(),
                         s.data(), stream_);
  }
  /// BSR multiplies column by column through the host's list.
  bool can_mask_columns(const Matrix& a) const override { return !cast_matrix(a).is_bsr(); }
  void mask_columns(ColumnSet& set, const std::vector<index_t>& live) override {
    std::vector<index_t> sorted = live;
    std::sort(sorted.begin(), sorted.end());
    dynamic_cast<CudaColumnSet&>(set).mask(sorted, stream_);
  }
  bool can_loop_columns() const override { return loops_; }
  std::unique_ptr<ColumnLoop> record_column_loop(const std::function<void()>& body,
                                                 const ColumnSet& set, Vector& s,
                                                 const std::vector<double>& targets,
                                                 int check_every, int max_iterations) override {
    if (!loops_) throw BackendError("the CUDA driver runs no graph while nodes (needs 12.4+)");
    return make_cuda_column_loop(stream_, body, set, s, targets, check_every, max_iterations);
  }

  ScalarValues read_scalars() override {
    // Pinned copy + one event: waits for this stream's work only, not the device.
    PRISM_CUDA_CHECK(cudaMemcpyAsync(host_scalars_.data(), scalars_.data(),
                                     kNumScalars * sizeof(double), cudaMemcpyDeviceToHost,
                                     stream_));
    PRISM_CUDA_CHECK(cudaEventRecord(scalars_ready_.get(), stream_));
    PRISM_CUDA_CHECK(cudaEventSynchronize(scalars_ready_.get()));
    ScalarValues s{};
    std::copy(host_scalars_.data(), host_scalars_.data() + kNumScalars, s.begin());
    return s;
  }

  PhaseTimer& timer() override { return timer_; }

  bool can_record() const override { return true; }
  std::unique_ptr<Recording> record(const std::function<void()>& body) override {
    return std::make_unique<CudaRecording>(capture(stream_, body), stream_);
  }
  bool can_loop() const override { return loops_; }
  std::unique_ptr<Loop> record_loop(const std::function<void()>& body, double target,
                                    int max_iterations, bool watched) override {
    if (!loops_) throw BackendError("the CUDA driver runs no graph while nodes (needs 12.4+)");
    // Inside the loop body cg_step leaves r . r to the loop's check kernel, which sums
    // its partials and decides in one launch.
    defer_rr_ = true;
    rr_count_ = 0;
    const auto check = [this, target, max_iterations](cudaGraphConditionalHandle handle,
                                                      kernels::LoopState* state, double* history,
                                                      k::LoopWatch* watch) {
      k::cg_loop_check(handle, scalars_.data(), partials2_.data(), rr_count_, state, history, watch,
                       target, max_iterations, stream_);
    };
    try {
      auto loop = make_cuda_loop(stream_, body, check, max_iterations, watched);
      defer_rr_ = false;
      return loop;
    } catch (...) {
      defer_rr_ = false;
      throw;
    }
  }

  double reference_bandwidth() override {
    if (bandwidth_ == 0.0) bandwidth_ = measure_copy_bandwidth();
    return bandwidth_;
  }
  std::size_t device_bytes() const override { return kernels::cuda::device_bytes_held(); }

 private:
  /// The workspace of a reduction over the set's columns (one list position a row of
  /// kReductionBlocks partial sums); growing it frees the old one, which waits for its users.
  double* column_partials(const ColumnSet& set) {
    const std::size_t size = k::column_partials_size(set.count());
    if (column_partials_.size() < size) column_partials_ = DeviceBuffer<double>(size);
    return column_partials_.data();
  }
  /// The verdict of a check kernel: the index it found, -1 for kNoBadEntry.
  index_t read_flag(const DeviceBuffer<int>& flag) {
    PRISM_CUDA_CHECK(cudaMemcpyAsync(host_flag_.data(), flag.data(), sizeof(int),
                                     cudaMemcpyDeviceToHost, stream_));
    PRISM_CUDA_CHECK(cudaStreamSynchronize(stream_));
    const int found = host_flag_.data()[0];
    return found == k::kNoBadEntry ? -1 : static_cast<index_t>(found);
  }

  /// Median of 10 device-to-device copies of 256 MiB (read + write counted), after
  /// warm-up: the achievable bandwidth every % of bound in prism refers to.
  double measure_copy_bandwidth() {
    constexpr std::size_t kBytes = std::size_t{256} << 20;
    DeviceBuffer<char> src(kBytes), dst(kBytes);
    Event start = make_event(), stop = make_event();
    std::vector<float> ms;
    for (int i = 0; i < 13; ++i) {
      PRISM_CUDA_CHECK(cudaEventRecord(start.get(), stream_));
      PRISM_CUDA_CHECK(
          cudaMemcpyAsync(dst.data(), src.data(), kBytes, cudaMemcpyDeviceToDevice, stream_));
      PRISM_CUDA_CHECK(cudaEventRecord(stop.get(), stream_));
      PRISM_CUDA_CHECK(cudaEventSynchronize(stop.get()));
      float t = 0.0f;
      PRISM_CUDA_CHECK(cudaEventElapsedTime(&t, start.get(), stop.get()));
      if (i >= 3) ms.push_back(t);
    }
    std::sort(ms.begin(), ms.end());
    const double median_s = 1e-3 * 0.5 * (ms[ms.size() / 2 - 1] + ms[ms.size() / 2]);
    return 2.0 * static_cast<double>(kBytes) / median_s;
  }

  // Declared first, so destroyed last: the destructor makes the backend's device current
  // for the members' frees, and this gives the caller's back after them.
  struct DeviceRestore {
    int previous = -1;
    ~DeviceRestore() {
      if (previous >= 0) cudaSetDevice(previous);
    }
  } restore_;
  int device_;
  Stream owned_stream_;  // empty when the caller gave the stream
  cudaStream_t stream_;  // the one every operation queues on
  SparseHandle sparse_;
  DeviceBuffer<double> partials_;
  DeviceBuffer<double> partials2_;        // a second pass's partial sums while partials_ is read
  DeviceBuffer<double> column_partials_;  // the multi-column reductions', grown on demand
  DeviceBuffer<double> scalars_;
  PinnedBuffer<double> host_scalars_;
  Event scalars_ready_;
  DeviceBuffer<double> check_scratch_{2};
  DeviceBuffer<double> largest_{1};  // largest_finite_magnitude's result
  DeviceBuffer<double> staged_;      // stage(): host values refactor() hands to the device path
  DeviceBuffer<int> flag_{1};
  DeviceBuffer<int> check_flag_{1};  // queue_value_check's, kept while other checks run
  PinnedBuffer<int> host_flag_{1};
  CudaTimer timer_;
  std::string device_name_;
  double bandwidth_ = 0.0;
  bool loops_ = driver_runs_while_nodes();
  bool defer_rr_ = false;  // recording a loop body: its check kernel finishes r . r
  int rr_count_ = 0;       // partial sums of r . r the last cg_step left in partials2_
};

}  // namespace
}  // namespace cuda

std::unique_ptr<Backend> make_cuda_backend(const DevicePlacement& placement) {
  const int count = kernels::cuda::device_count();
  if (count == 0) {
    throw BackendError("backend 'cuda' requested but no CUDA device is available");
  }
  int current = 0;
  PRISM_CUDA_CHECK(cudaGetDevice(&current));
  const int device = placement.device < 0 ? current : placement.device;
  if (placement.device < -1 || device >= count) {
    throw ConfigError("device " + std::to_string(placement.device) + ": this machine has " +
                      std::to_string(count) + " CUDA device" + (count == 1 ? "" : "s") +
                      ", numbered from 0 (-1: the current one)");
  }
  const auto stream = static_cast<cudaStream_t>(placement.stream);
  if (stream == cudaStreamLegacy) {
    throw ConfigError(
        "stream: the legacy default stream cannot be recorded into CUDA graphs; pass a stream "
        "created with cudaStreamCreate, or none for one of the solver's own");
  }
  if (stream != nullptr) {
    int stream_device = -1;
    if (cudaStreamGetDevice(stream, &stream_device) != cudaSuccess) {
      cudaGetLastError();  // clear it: the stream is the caller's mistake, not a failure
      throw ConfigError("stream: not a CUDA stream this process can use");
    }
    if (stream_device != device) {
      throw ConfigError("stream: it belongs to device " + std::to_string(stream_device) +
                        ", the solver works on device " + std::to_string(device));
    }
  }
  PRISM_CUDA_CHECK(cudaSetDevice(device));
  try {
    auto backend = std::make_unique<cuda::CudaBackend>(device, stream);
    cudaSetDevice(current);
    return backend;
  } catch (...) {
    cudaSetDevice(current);
    throw;
  }
}

}  // namespace prism::backend
