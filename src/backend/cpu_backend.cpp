#include "backend/cpu_backend.hpp"
#include "backend/cpu_columns.hpp"
#include "backend/host_block_ic_factor.hpp"
#include "backend/host_kernels.hpp"
#include "backend/host_line_ic.hpp"
#include "backend/host_sell.hpp"
#include "backend/split_triangle.hpp"
#include "common/host_array.hpp"
#include "common/memory.hpp"

#include <prism/errors.hpp>

#include "kernels/blas1.hpp"
#include "kernels/colorset.hpp"
#include "kernels/ic0.hpp"
#include "kernels/matrix_values.hpp"
#include "kernels/spmv.hpp"
#include "kernels/trisolve.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <optional>
#include <utility>

namespace prism::backend {
namespace {

namespace ref = prism::kernels::reference;

/// Its own values, or a view of the caller's (Backend::view).
class CpuVector final : public Vector {
 public:
  /// Zeros, first written by `placement`'s threads in the parts its kernels update.
  CpuVector(index_t n, const HostKernels& placement)
      : owned_(static_cast<std::size_t>(n)), data_(owned_.data()), size_(n) {
    placement.fill(n, 0.0, data_);
  }
  CpuVector(double* data, index_t n) : data_(data), size_(n) {}
  CpuVector(const CpuVector&) = delete;  // data_ may point into owned_
  CpuVector& operator=(const CpuVector&) = delete;
  index_t size() const override { return size_; }
  double* data() override { return data_; }
  const double* data() const override { return data_; }
  std::size_t host_bytes() const override { return common::bytes_of(owned_); }

 private:
  common::HostArray<double> owned_;  // empty for a view
  double* data_;
  index_t size_;
};

void check_value_count(std::size_t expected, std::size_t got) {
  if (expected != got) {
    throw InvalidMatrixError("update_values: expected " + std::to_string(expected) +
                             " values, got " + std::to_string(got));
  }
}

class CpuIndexMap final : public IndexMap {
 public:
  explicit CpuIndexMap(std::vector<index_t> indices) : data(std::move(indices)) {}
  index_t size() const override { return static_cast<index_t>(data.size()); }
  std::size_t host_bytes() const override { return common::bytes_of(data); }
  std::vector<index_t> data;
};

class CpuMatrix final : public Matrix {
 public:
  /// A copy of `a`, first written by `placement`'s threads in its SpMV's parts of rows;
  /// `algorithm`: "reference", "csr" for the threaded kernels' CSR SpMV, or "sell" for
  /// their SELL-8 SpMV (with a SELL copy beside the CSR one).
  CpuMatrix(const CsrMatrix<double>& a, const HostKernels& placement, std::string algorithm)
      : rows_(a.rows),
        cols_(a.cols),
        row_ptr_(a.row_ptr.size()),
        col_idx_(a.col_idx.size()),
        values_(a.values.size()),
        algorithm_(std::move(algorithm)) {
    if (a.row_ptr.empty()) return;
    placement.copy_csr({a.rows, a.cols, a.row_ptr.data(), a.col_idx.data(), a.values.data()},
                       row_ptr_.data(), col_idx_.data(), values_.data());
    if (algorithm_ == "sell") sell_.emplace(a, placement);
  }
  index_t rows() const override { return rows_; }
  index_t nnz() const override { return static_cast<index_t>(values_.size()); }
  std::string algorithm() const override { return algorithm_; }
  void update_values(const std::vector<double>& values) override {
    check_value_count(values_.size(), values.size());
    std::copy(values.begin(), values.end(), values_.begin());
    if (sell_) sell_->update_values(values_.data());
  }
  void update_values(const SourceValues& a) override {
    const std::vector<index_t>& source = *a.source;
    check_value_count(values_.size(), source.size());
    for (std::size_t k = 0; k < source.size(); ++k) values_[k] = a.values[source[k]];
    if (sell_) sell_->update_values(values_.data());
  }
  kernels::CsrView<double> view() const {
    return {rows_, cols_, row_ptr_.data(), col_idx_.data(), values_.data()};
  }
  double* values() { return values_.data(); }
  /// The SELL copy the threaded SpMV reads instead of view(); null for a CSR matrix.
  const HostSellMatrix* sell() const { return sell_ ? &*sell_ : nullptr; }
  std::size_t host_bytes() const override {
    return common::bytes_of(row_ptr_) + common::bytes_of(col_idx_) + common::bytes_of(values_) +
           (sell_ ? sell_->host_bytes() : 0);
  }

 private:
  index_t rows_, cols_;
  common::HostArray<index_t> row_ptr_, col_idx_;
  common::HostArray<double> values_;
  std::string algorithm_;
  std::optional<HostSellMatrix> sell_;
};

const CpuVector& cast(const Vector& v) {
  return dynamic_cast<const CpuVector&>(v);
}
CpuVector& cast(Vector& v) {
  return dynamic_cast<CpuVector&>(v);
}
const CpuMatrix& cast(const Matrix& m) {
  return dynamic_cast<const CpuMatrix&>(m);
}
const CpuIndexMap& cast(const IndexMap& m) {
  return dynamic_cast<const CpuIndexMap&>(m);
}

/// Row-by-row substitution with the reference kernels.
/// The reference solves. An upper triangle is kept with its rows in reverse order
/// (ref::upper_solve_reversed), so the backward substitution streams through it front to
/// back; `at_[k]` is where entry k of the caller's storage went.
class CpuTriangularSolver final : public TriangularSolver {
 public:
  CpuTriangularSolver(const CsrMatrix<double>& t, Triangle triangle)
      : matrix_(triangle == Triangle::lower ? t : reversed_rows(t, at_), calling_thread(),
                "reference"),
        triangle_(triangle) {}
  index_t rows() const override { return matrix_.rows(); }
  index_t nnz() const override { return matrix_.nnz(); }
  std::string algorithm() const override { return "reference"; }
  void update_values(const std::vector<double>& values) override {
    if (triangle_ == Triangle::lower) {
      matrix_.update_values(values);
      return;
    }
    check_value_count(at_.size(), values.size());
    double* stored = matrix_.values();
    for (std::size_t k = 0; k < values.size(); ++k) stored[at_[k]] = values[k];
  }
  void update_values_on_backend(const double* values) override {
    update_values(std::vector<double>(values, values + nnz()));
  }
  void solve(const Vector& b, Vector& x) override {
    if (triangle_ == Triangle::lower) {
      ref::lower_solve(matrix_.view(), cast(b).data(), cast(x).data());
    } else {
      ref::upper_solve_reversed(matrix_.view(), cast(b).data(), cast(x).data());
    }
  }
  std::size_t host_bytes() const override { return common::bytes_of(at_) + matrix_.host_bytes(); }

 private:
  // The substitution runs on the calling thread, so its copy is written there.
  static const HostKernels& calling_thread() {
    static const std::unique_ptr<HostKernels> reference = make_host_kernels(CpuKernels::reference);
    return *reference;
  }
  static CsrMatrix<double> reversed_rows(const CsrMatrix<double>& t, std::vector<index_t>& at) {
    CsrMatrix<double> r{t.rows, t.cols, {0}, {}, {}};
    r.row_ptr.reserve(t.row_ptr.size());
    r.col_idx.reserve(t.col_idx.size());
    r.values.reserve(t.values.size());
    at.resize(t.values.size());
    for (index_t i = t.rows - 1; i >= 0; --i) {
      for (index_t k = t.row_ptr[i]; k < t.row_ptr[i + 1]; ++k) {
        at[k] = static_cast<index_t>(r.col_idx.size());
        r.col_idx.push_back(t.col_idx[k]);
        r.values.push_back(t.values[k]);
      }
      r.row_ptr.push_back(static_cast<index_t>(r.col_idx.size()));
    }
    return r;
  }

  std::vector<index_t> at_;  // declared before matrix_: the constructor fills it first
  CpuMatrix matrix_;
  Triangle triangle_;
};

/// The SELL-8 copy of a split factor's strict triangle that the threaded kernels' color-set
/// solve reads: for colorset_layout sell, or auto where it moves no more bytes than CSR
/// (host_sell_colorset_pays). None for the reference kernels (their solve is the oracle's).
std::optional<HostSellColorset> sell_copy(const SplitTriangle& split, ColorsetLayout layout,
                                          const HostKernels& kernels) {
  if (kernels.kind() != CpuKernels::threaded || layout == ColorsetLayout::csr ||
      (layout == ColorsetLayout::automatic && !host_sell_colorset_pays(split))) {
    return std::nullopt;
  }
  return std::optional<HostSellColorset>(std::in_place, split, kernels);
}

/// T x = b on a split factor, on its SELL-8 copy where it has one.
void colorset_solve(const HostKernels& k, const SplitTriangle& s,
                    const std::optional<HostSellColorset>& sell, const double* b, double* x) {
  if (sell) {
    sell->solve(s, b, x);
    return;
  }
  k.colorset_solve(s.view(), s.inverse_diagonal().data(), s.block_ptr().data(), s.num_blocks(),
                   s.lower(), b, x);
}

/// The color-set solve, block by block (the twin of the CUDA color-set kernels): the
/// reference's, or the rows (SELL-8 slices) of each block on the threads.
class CpuColorsetSolver final : public TriangularSolver {
 public:
  CpuColorsetSolver(const CsrMatrix<double>& t, Triangle triangle, const TrisolveSpec& spec,
                    const HostKernels& kernels)
      : split_(t, triangle, spec.precision, &kernels),
        sell_(sell_copy(split_, spec.layout, kernels)),
        nnz_(t.nnz()),
        k_(kernels) {}
  index_t rows() const override { return split_.strict().rows; }
  index_t nnz() const override { return nnz_; }
  std::string algorithm() const override { return "colorset"; }
  std::string layout() const override { return sell_ ? "sell" : "csr"; }
  void update_values(const std::vector<double>& values) override {
    split_.update(values);
    if (sell_) sell_->update(split_);
  }
  void update_values_on_backend(const double* values) override {
    update_values(std::vector<double>(values, values + nnz_));
  }
  void solve(const Vector& b, Vector& x) override {
    colorset_solve(k_, split_, sell_, cast(b).data(), cast(x).data());
  }
  bool solves_columns() const override { return true; }
  void solve_columns(const Vector& b, Vector& x, const ColumnSet& set) override {
    HostColumnKernels(k_).colorset_solve(split_.view(), split_.inverse_diagonal().data(),
                                         split_.block_ptr().data(), split_.num_blocks(),
                                         split_.lower(), set, b.data(), x.data());
  }
  std::size_t host_bytes() const override {
    return split_.host_bytes() + (sell_ ? sell_->host_bytes() : 0);
  }

 private:
  SplitTriangle split_;
  std::optional<HostSellColorset> sell_;  // after split_: made from it
  index_t nnz_;
  const HostKernels& k_;  // the backend's
};

/// The color-set IC(0) engine on the host: the backend's kernels factor color by color
/// (the threaded ones a color's rows at once) and run the color-set solves. The twin of
/// the CUDA engine, so its logic is tested everywhere.
class CpuIc0Factor final : public Ic0Factor {
 public:
  CpuIc0Factor(const CsrMatrix<double>& lower, const CsrMatrix<double>& upper,
               const std::vector<index_t>& upper_source, const std::vector<index_t>& lower_source,
               const TrisolveSpec& spec, ScalarValues& scalars, const HostKernels& kernels)
      : scalars_(scalars),
        k_(kernels),
        lower_{lower.rows, lower.cols, lower.row_ptr, lower.col_idx, {}},
        upper_source_(upper_source),
        lower_source_(lower_source),
        lower_split_(SplitTriangle::unit_values(lower, Triangle::lower, spec.precision, &kernels)),
        upper_split_(SplitTriangle::unit_values(upper, Triangle::upper, spec.precision, &kernels)),
        lower_sell_(sell_copy(lower_split_, spec.layout, kernels)),
        upper_sell_(sell_copy(upper_split_, spec.layout, kernels)) {}

  void load(const std::vector<double>& scaled, const std::vector<double>& row_scale) override {
    scaled_ = scaled;
    row_scale_ = row_scale;
    loaded_ = {};
  }
  void load(const SourceValues& a) override {
    if (from_values_.empty()) from_values_ = compose_source(lower_source_, *a.source);
    scaled_.resize(lower_.col_idx.size());
    row_scale_.resize(static_cast<std::size_t>(lower_.rows));
    loaded_ =
        k_.ic0_scale(pattern(), from_values_.data(), a.values, scaled_.data(), row_scale_.data());
  }

  kernels::Ic0Status attempt(double shift) override {
    if (!loaded_.ok()) return loaded_;
    lower_.values = scaled_;
    // The lower solve's blocks: a row reads only rows of earlier blocks.
    return k_.ic0_factorize(pattern(), lower_split_.block_ptr().data(), lower_split_.num_blocks(),
                            lower_.values.data(), shift);
  }

  void finish() override {
    for (index_t i = 0; i < lower_.rows; ++i) {
      for (index_t k = lower_.row_ptr[i]; k < lower_.row_ptr[i + 1]; ++k) {
        lower_.values[k] *= row_scale_[i];
      }
    }
    std::vector<double> upper_values(upper_source_.size());
    for (std::size_t k = 0; k < upper_values.size(); ++k) {
      upper_values[k] = lower_.values[upper_source_[k]];
    }
    lower_split_.update(lower_.values);
    upper_split_.update(upper_values);
    if (lower_sell_) lower_sell_->update(lower_split_);
    if (upper_sell_) upper_sell_->update(upper_split_);
    // The splits hold the factor now; the next load() and attempt() refill these.
    common::release(lower_.values);
    common::release(scaled_);
    common::release(row_scale_);
  }
  std::size_t host_bytes() const override {
    return common::bytes_of(lower_) + common::bytes_of(upper_source_) +
           common::bytes_of(lower_source_) + common::bytes_of(from_values_) +
           common::bytes_of(scaled_) + common::bytes_of(row_scale_) + lower_split_.host_bytes() +
           upper_split_.host_bytes() + (lower_sell_ ? lower_sell_->host_bytes() : 0) +
           (upper_sell_ ? upper_sell_->host_bytes() : 0);
  }
  /// "sell" or "csr"; "sell, csr" (L's, then U's) where the rule parts the halves.
  std::string layout() const override {
    const std::string l = lower_sell_ ? "sell" : "csr", u = upper_sell_ ? "sell" : "csr";
    return l == u ? l : l + ", " + u;
  }

  void solve(Triangle triangle, const Vector& b, Vector& x) override {
    const bool lower = triangle == Triangle::lower;
    colorset_solve(k_, lower ? lower_split_ : upper_split_, lower ? lower_sell_ : upper_sell_,
                   cast(b).data(), cast(x).data());
  }
  bool solves_columns() const override { return true; }
  void solve_columns(Triangle triangle, const Vector& b, Vector& x, const ColumnSet& set) override {
    const SplitTriangle& s = triangle == Triangle::lower ? lower_split_ : upper_split_;
    HostColumnKernels(k_).colorset_solve(s.view(), s.inverse_diagonal().data(),
                                         s.block_ptr().data(), s.num_blocks(), s.lower(), set,
                                         b.data(), x.data());
  }
  // The halves form the dot as the CUDA engine does: (r, z) as |L^{-1} r|^2, here in
  // forward(), where work holds all of L^{-1} r; backward() is the plain solve.
  bool forms_dot() const override { return true; }
  void forward(const Vector& r, Vector& work, Vector& z, std::optional<Scalar> dot) override {
    Ic0Factor::forward(r, work, z, dot);
    if (dot) {
      const double* y = cast(work).data();
      scalars_[static_cast<int>(*dot)] = k_.dot(work.size(), y, y);
    }
  }

 private:
  kernels::CsrView<double> pattern() const {
    return {lower_.rows, lower_.cols, lower_.row_ptr.data(), lower_.col_idx.data(), nullptr};
  }
  ScalarValues& scalars_;    // the backend's CG scalars
  const HostKernels& k_;     // the backend's
  CsrMatrix<double> lower_;  // the pattern; values only between load() and finish()
  std::vector<index_t> upper_source_;
  std::vector<index_t> lower_source_;
  std::vector<index_t> from_values_;  // lower entry k reads a.values[from_values_[k]]
  std::vector<double> scaled_, row_scale_;
  kernels::Ic0Status loaded_;  // a bad diagonal found by load(), reported by attempt()
  SplitTriangle lower_split_;
  SplitTriangle upper_split_;
  std::optional<HostSellColorset> lower_sell_, upper_sell_;  // after the splits: made from them
};

class CpuTimer final : public PhaseTimer {
 public:
  void set_enabled(bool enabled) override { enabled_ = enabled; }
  void begin(Phase phase) override {
    if (enabled_) start_[static_cast<int>(phase)] = clock::now();
  }
  void end(Phase phase) override {
    if (!enabled_) return;
    const int p = static_cast<int>(phase);
    current_[p] += std::chrono::duration<double>(clock::now() - start_[p]).count();
  }
  void next_iteration() override {
    records_.push_back(current_);
    current_ = PhaseArray{};
  }
  std::vector<PhaseArray> per_iteration() override {
    current_ = PhaseArray{};
    return std::exchange(records_, {});
  }

 private:
  using clock = std::chrono::steady_clock;
  bool enabled_ = true;
  std::array<clock::time_point, kNumPhases> start_{};
  PhaseArray current_{};
  std::vector<PhaseArray> records_;
};

void check_size(const Vector& x, const Vector& y, const char* op) {
  if (x.size() != y.size()) {
    throw Error(std::string(op) + ": vector sizes differ (" + std::to_string(x.size()) + " vs " +
                std::to_string(y.size()) + ")");
  }
}

void check_map(const IndexMap& map, const Vector& dst, const char* op) {
  if (map.size() != dst.size()) {
    throw Error(std::string(op) + ": map of " + std::to_string(map.size()) + " entries for " +
                std::to_string(dst.size()) + " values");
  }
}

bool positive(double v) {
  return v > 0.0 && std::isfinite(v);
}

/// The device-side loop's twin: the body runs on the host, the same rule stops it.
class CpuLoop final : public Loop {
 public:
  CpuLoop(std::function<void()> body, const ScalarValues& scalars, double target,
          int max_iterations)
      : body_(std::move(body)), s_(scalars), target_(target), max_iterations_(max_iterations) {}
  LoopOutcome run(int first, const LoopProgress* progress) override {
    LoopOutcome out;
    out.iteration = first;
    do {
      body_();
      ++out.iteration;
      const double norm = std::sqrt(s_[static_cast<int>(Scalar::rr)]);
      out.residual_norms.push_back(norm);
      out.stop =
          kernels::cg_stop(s_[static_cast<int>(Scalar::rz)], s_[static_cast<int>(Scalar::pq)], norm,
                           target_, out.iteration, max_iterations_);
      if (progress != nullptr && !(*progress)(out.iteration, norm) &&
          out.stop == kernels::LoopStop::running) {
        out.stop = kernels::LoopStop::requested;
      }
    } while (out.stop == kernels::LoopStop::running);
    return out;
  }

 private:
  std::function<void()> body_;
  const ScalarValues& s_;
  double target_;
  int max_iterations_;
};

/// The batches by the backend's kernels (reference Thomas, or whole systems per thread).
class CpuTridiagonalSolver final : public TridiagonalSolver {
 public:
  CpuTridiagonalSolver(TridiagonalBatches batches, const HostKernels& kernels)
      : batches_(std::move(batches)), k_(kernels) {}
  void update_values(const std::vector<double>& lower, const std::vector<double>& diagonal,
                     const std::vector<double>& upper) override {
    lower_ = lower;
    diagonal_ = diagonal;
    upper_ = upper;
  }
  void solve(const Vector& r, Vector& z) override {
    for (std::size_t k = 0; k < batches_.first.size(); ++k) {
      const index_t at = batches_.first[k];
      k_.tridiagonal_solve(batches_.length[k], batches_.count[k], lower_.data() + at,
                           diagonal_.data() + at, upper_.data() + at, r.data() + at, z.data() + at);
    }
  }
  std::size_t host_bytes() const override {
    return common::bytes_of(lower_) + common::bytes_of(diagonal_) + common::bytes_of(upper_);
  }

 private:
  TridiagonalBatches batches_;
  const HostKernels& k_;  // the backend's
  std::vector<double> lower_, diagonal_, upper_;
};

class CpuBackend final : public Backend {
 public:
  explicit CpuBackend(std::unique_ptr<HostKernels> kernels) : k_(std::move(kernels)) {}
  std::string name() const override { return "cpu"; }
  Kind kind() const override { return Kind::host; }
  std::string device_name() const override { return "host CPU (" + k_->description() + ")"; }
  /// The threaded kernels factor color by color (level by level); the reference row by row.
  bool factors_in_parallel() const override { return threaded(); }

  std::unique_ptr<Vector> make_vector(index_t n) override {
    return std::make_unique<CpuVector>(n, *k_);
  }
  std::unique_ptr<Vector> view(double* data, index_t n) override {
    return std::make_unique<CpuVector>(data, n);
  }
  /// The threaded kernels: sell asked for, or auto where SELL-8 moves no more bytes than
  /// CSR (host_sell_pays), runs the SELL SpMV, anything else (cusparse aside) the CSR one
  /// (named csr_vector when auto picks it). The reference kernels have one CSR SpMV.
  SpmvAlgorithm pick_spmv(const CsrMatrix<double>& a, SpmvAlgorithm requested) const override {
    if (!threaded() || requested != SpmvAlgorithm::automatic) return requested;
    return host_sell_pays(a) ? SpmvAlgorithm::sell : SpmvAlgorithm::csr_vector;
  }
  std::unique_ptr<Matrix> make_matrix(const CsrMatrix<double>& a,
                                      SpmvAlgorithm algorithm) override {
    if (algorithm == SpmvAlgorithm::cusparse) {
      throw ConfigError(
          "spmv 'cusparse' needs the cuda backend; the cpu backend has: auto, sell, csr_vector "
          "(its CSR SpMV)");
    }
    if (!threaded()) return std::make_unique<CpuMatrix>(a, *k_, "reference");
    const bool sell = pick_spmv(a, algorithm) == SpmvAlgorithm::sell;
    return std::make_unique<CpuMatrix>(a, *k_, sell ? "sell" : "csr");
  }
  /// The color-set solve on threads; with the reference kernels the row-by-row
  /// reference, unless the factor is float: only the color-set solve stores it so.
  TrisolveAlgorithm pick_trisolve(int, Precision precision) const override {
    return threaded() || precision == Precision::mixed ? TrisolveAlgorithm::colorset
                                                       : TrisolveAlgorithm::reference;
  }
  std::unique_ptr<TriangularSolver> make_triangular_solver(const CsrMatrix<double>& t,
                                                           Triangle triangle,
                                                           const TrisolveSpec& spec) override {
    const TrisolveAlgorithm algorithm = spec.algorithm;
    const Precision precision = spec.precision;
    if (precision == Precision::mixed) {
      if (algorithm != TrisolveAlgorithm::automatic && algorithm != TrisolveAlgorithm::colorset) {
        throw_mixed_needs_colorset(algorithm);
      }
      return std::make_unique<CpuColorsetSolver>(t, triangle, spec, *k_);
    }
    switch (algorithm) {
      case TrisolveAlgorithm::automatic:
        if (threaded()) return std::make_unique<CpuColorsetSolver>(t, triangle, spec, *k_);
        return std::make_unique<CpuTriangularSolver>(t, triangle);
      case TrisolveAlgorithm::reference:
        return std::make_unique<CpuTriangularSolver>(t, triangle);
      case TrisolveAlgorithm::colorset:
        return std::make_unique<CpuColorsetSolver>(t, triangle, spec, *k_);
      case TrisolveAlgorithm::cusparse:
        break;
    }
    throw ConfigError("trisolve '" + std::string(to_string(algorithm)) +
                      "' needs the cuda backend; the cpu backend has: auto, reference, colorset");
  }
  std::unique_ptr<Ic0Factor> make_ic0_factor(const CsrMatrix<double>& lower,
                                             const CsrMatrix<double>& upper,
                                             const std::vector<index_t>& upper_source,
                                             const std::vector<index_t>& lower_source,
                                             const TrisolveSpec& spec) override {
    return std::make_unique<CpuIc0Factor>(lower, upper, upper_source, lower_source, spec, s_, *k_);
  }
  std::unique_ptr<BlockIcFactor> make_block_ic_factor(const kernels::BlockIcPlan& plan) override {
    return make_host_block_ic_factor(plan, *k_);
  }
  std::unique_ptr<TridiagonalSolver> make_tridiagonal_solver(
      const TridiagonalBatches& batches) override {
    return std::make_unique<CpuTridiagonalSolver>(batches, *k_);
  }
  std::unique_ptr<LineIcSolver> make_line_ic_solver(const LineIcFactor& factor) override {
    return make_host_line_ic_solver(factor, *k_);
  }
  void copy_from_host(const std::vector<double>& src, Vector& dst) override {
    if (static_cast<index_t>(src.size()) != dst.size()) {
      throw Error("copy_from_host: size " + std::to_string(src.size()) + " does not match " +
                  std::to_string(dst.size()));
    }
    std::copy(src.begin(), src.end(), cast(dst).data());
  }
  void copy_to_host(const Vector& src, std::vector<double>& dst) override {
    dst.assign(cast(src).data(), cast(src).data() + src.size());
  }

  bool reads(const void*) const override { return true; }
  const double* stage(const std::vector<double>& values) override { return values.data(); }
  std::unique_ptr<IndexMap> make_index_map(const std::vector<index_t>& indices) override {
    return std::make_unique<CpuIndexMap>(indices);
  }
  void gather(const double* src, const IndexMap& map, Vector& dst) override {
    check_map(map, dst, "gather");
    k_->gather(dst.size(), cast(map).data.data(), src, cast(dst).data());
  }
  void queue_value_check(const double* values, const IndexMap& mirror, double tolerance) override {
    check_result_ = k_->first_bad_value(mirror.size(), values, cast(mirror).data.data(), tolerance);
  }
  index_t value_check_result() override { return check_result_; }
  index_t invert_positive(Vector& x) override {
    return k_->invert_positive(x.size(), cast(x).data());
  }
  double largest_finite_magnitude(const double* values, std::size_t count) override {
    return k_->largest_finite_magnitude(static_cast<index_t>(count), values);
  }
  void copy_to_host(const double* src, std::size_t count, std::vector<double>& dst) override {
    dst.assign(src, src + count);
  }
  void synchronize() override {}

  void spmv(const Matrix& a, const Vector& x, Vector& y) override {
    if (const HostSellMatrix* sell = cast(a).sell()) {
      k_->sell_spmv(sell->view(), cast(x).data(), cast(y).data());
      return;
    }
    k_->spmv(cast(a).view(), cast(x).data(), cast(y).data());
  }
  void spmv_dot(const Matrix& a, const Vector& x, Vector& y, Scalar out) override {
    s_[static_cast<int>(out)] = spmv_dot_of(cast(a), cast(x).data(), cast(y).data());
  }
  bool fuses_spmv_dot(const Matrix&) const override { return k_->fuses_spmv_dot(); }
  void dot(const Vector& x, const Vector& y, Scalar out) override {
    check_size(x, y, "dot");
    s_[static_cast<int>(out)] = k_->dot(x.size(), cast(x).data(), cast(y).data());
  }
  void axpy(double a, const Vector& x, Vector& y) override {
    check_size(x, y, "axpy");
    k_->axpy(x.size(), a, cast(x).data(), cast(y).data());
  }
  void copy(const Vector& x, Vector& y) override {
    check_size(x, y, "copy");
    k_->copy(x.size(), cast(x).data(), cast(y).data());
  }
  void pointwise_multiply(const Vector& d, const Vector& x, Vector& y) override {
    check_size(d, x, "pointwise_multiply");
    k_->pointwise_multiply(x.size(), cast(d).data(), cast(x).data(), cast(y).data());
  }
  void cg_update(const Vector& p, const Vector& q, Vector& x, Vector& r) override {
    check_size(p, x, "cg_update");
    const double rz = s_[static_cast<int>(Scalar::rz)];
    const double pq = s_[static_cast<int>(Scalar::pq)];
    const double alpha = positive(rz) && positive(pq) ? rz / pq : 0.0;
    s_[static_cast<int>(Scalar::rr)] = k_->cg_update(
        p.size(), alpha, cast(p).data(), cast(q).data(), cast(x).data(), cast(r).data());
  }
  void cg_direction(const Vector& z, Vector& p) override {
    check_size(z, p, "cg_direction");
    double& rz = s_[static_cast<int>(Scalar::rz)];
    const double rz_new = s_[static_cast<int>(Scalar::rz_new)];
    const double beta = positive(rz) ? rz_new / rz : 0.0;
    k_->xpay(z.size(), cast(z).data(), beta, cast(p).data());
    rz = rz_new;
  }
  void cg_step(const Matrix& a, const Vector& p, Vector& q, Vector& r) override {
    check_size(p, r, "cg_step");
    const double pq = spmv_dot_of(cast(a), cast(p).data(), cast(q).data());
    const double rz = s_[static_cast<int>(Scalar::rz_new)];
    const double alpha = positive(rz) && positive(pq) ? rz / pq : 0.0;
    const double rr = k_->cg_residual(r.size(), alpha, cast(q).data(), cast(r).data());
    s_[static_cast<int>(Scalar::pq)] = pq;
    s_[static_cast<int>(Scalar::alpha)] = alpha;
    s_[static_cast<int>(Scalar::rz)] = rz;
    s_[static_cast<int>(Scalar::rr)] = rr;
  }
  void cg_direction_dot(const Vector& r, const Vector& z, Vector& p, Vector& x) override {
    check_size(z, p, "cg_direction_dot");
    const double rz_new = k_->dot(r.size(), cast(r).data(), cast(z).data());
    const double rz = s_[static_cast<int>(Scalar::rz)];
    const double beta = positive(rz) ? rz_new / rz : 0.0;
    k_->axpy_xpay(x.size(), s_[static_cast<int>(Scalar::alpha)], beta, cast(z).data(),
                  cast(p).data(), cast(x).data());
    s_[static_cast<int>(Scalar::rz_new)] = rz_new;
  }
  void cg_direction_x(const Vector& z, Vector& p, Vector& x) override {
    check_size(z, p, "cg_direction_x");
    const double rz = s_[static_cast<int>(Scalar::rz)];
    const double beta = positive(rz) ? s_[static_cast<int>(Scalar::rz_new)] / rz : 0.0;
    k_->axpy_xpay(x.size(), s_[static_cast<int>(Scalar::alpha)], beta, cast(z).data(),
                  cast(p).data(), cast(x).data());
  }
  void cg_finish(const Vector& p, Vector& x) override {
    k_->axpy(x.size(), s_[static_cast<int>(Scalar::alpha)], cast(p).data(), cast(x).data());
  }
  ScalarValues read_scalars() override { return s_; }

  // The multi-column operations (backend/columns.hpp).
  std::unique_ptr<ColumnSet> make_column_set(index_t rows,
                                             const std::vector<index_t>& columns) override {
    return make_host_column_set(rows, columns);
  }
  void spmm(const Matrix& a, const Vector& x, Vector& y, const ColumnSet& set) override {
    HostColumnKernels(*k_).spmm(cast(a).view(), set, x.data(), y.data());
  }
  void column_dot(const Vector& x, const Vector& y, const ColumnSet& set, Vector& s,
                  Scalar out) override {
    HostColumnKernels(*k_).dot(set, x.data(), y.data(), s.data(), static_cast<int>(out));
  }
  void column_axpy(double a, const Vector& x, Vector& y, const ColumnSet& set) override {
    HostColumnKernels(*k_).axpy(set, a, x.data(), y.data());
  }
  void column_copy(const Vector& x, Vector& y, const ColumnSet& set) override {
    HostColumnKernels(*k_).copy(set, x.data(), y.data());
  }
  void column_pointwise_multiply(const Vector& d, const Vector& x, Vector& y,
                                 const ColumnSet& set) override {
    HostColumnKernels(*k_).pointwise_multiply(set, d.data(), x.data(), y.data());
  }
  void column_cg_update(const Vector& p, const Vector& q, Vector& x, Vector& r,
                        const ColumnSet& set, Vector& s) override {
    HostColumnKernels(*k_).cg_update(set, p.data(), q.data(), x.data(), r.data(), s.data());
  }
  void column_cg_direction(const Vector& z, Vector& p, const ColumnSet& set, Vector& s) override {
    HostColumnKernels(*k_).cg_direction(set, z.data(), p.data(), s.data());
  }
  bool can_record() const override { return false; }
  std::unique_ptr<Recording> record(const std::function<void()>&) override {
    throw BackendError("the cpu backend does not record graphs");
  }
  bool can_loop() const override { return true; }
  std::unique_ptr<Loop> record_loop(const std::function<void()>& body, double target,
                                    int max_iterations, bool watched) override {
    static_cast<void>(watched);  // the host runs the loop: it always sees every iteration
    return std::make_unique<CpuLoop>(body, s_, target, max_iterations);
  }

  PhaseTimer& timer() override { return timer_; }
  double reference_bandwidth() override { return 0.0; }

 private:
  bool threaded() const { return k_->kind() == CpuKernels::threaded; }
  double spmv_dot_of(const CpuMatrix& a, const double* x, double* y) const {
    if (const HostSellMatrix* sell = a.sell()) return k_->sell_spmv_dot(sell->view(), x, y);
    return k_->spmv_dot(a.view(), x, y);
  }

  std::unique_ptr<HostKernels> k_;
  ScalarValues s_{};
  CpuTimer timer_;
  index_t check_result_ = -1;  // the last queue_value_check's verdict
};

}  // namespace

std::unique_ptr<Backend> make_cpu_backend(CpuKernels kernels, int threads) {
  return std::make_unique<CpuBackend>(make_host_kernels(kernels, threads));
}

}  // namespace prism::backend
