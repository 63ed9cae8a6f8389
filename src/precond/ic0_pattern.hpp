#pragma once
// Host IC(0) with symmetric unit-diagonal scaling and the diagonal-shift retry of
// Manteuffel (1980) / Lin & More (1999), as Eigen's IncompleteCholesky does:
//   A_s = S A S with S = diag(a_ii)^{-1/2};  factor A_s + shift I = L_s L_s^T;
//   on breakdown shift = max(2 shift, initial_shift) and retry;  L = S^{-1} L_s.
// So L L^T ~ A + shift S^{-2}: the shift is relative to each diagonal entry.

#include <prism/csr_matrix.hpp>
#include <prism/options.hpp>
#include <prism/report.hpp>

#include "backend/backend.hpp"
#include "common/host_array.hpp"
#include "common/memory.hpp"

#include <vector>

namespace prism::precond {

/// The pattern of an IC(0) factor and the maps that fill it from A's values.
class Ic0Pattern {
 public:
  /// Takes the pattern of A (square, full diagonal, sorted columns).
  explicit Ic0Pattern(const CsrMatrix<double>& a);
  /// For a factor built from a matrix the backend keeps (Backend::make_ic0_factor_on_backend):
  /// A's size alone, no host pattern; only the factorizations from the backend's memory
  /// (factorize(const backend::SourceValues&, ...), queue/finish_factorize) work.
  Ic0Pattern(index_t rows, index_t a_nnz) : rows_(rows), a_nnz_(a_nnz) {}

  /// L (diagonal last in each row) with A's lower-triangle values copied in.
  const CsrMatrix<double>& lower() const { return lower_; }
  /// U = L^T (diagonal first in each row), values unset.
  const CsrMatrix<double>& upper() const { return upper_; }

  /// Factors A's values into L and U, retrying with a growing shift on breakdown.
  /// Throws InvalidMatrixError when a.values do not fit the pattern or a diagonal
  /// entry is not positive, NumericalError when every allowed shift fails.
  FactorizationReport factorize(const CsrMatrix<double>& a, const Ic0Options& options);

  /// The same scaling and shift retry, with each attempt run by a backend's factor
  /// (lower() and upper() keep no values then).
  FactorizationReport factorize(const CsrMatrix<double>& a, const Ic0Options& options,
                                backend::Ic0Factor& engine);

  /// How a factorization from the backend's memory starts: with the unshifted attempt
  /// alone (queued, then its verdict read), or with the shift retries from the start, the
  /// unshifted attempt the first of them (Ic0Factor::attempts, which runs attempts
  /// together where they fit the GPU): for values that needed a shift before, so that
  /// the unshifted attempt that will most likely break down costs no pass and no host
  /// round trip of its own. Either way the verdicts, the shift and the factor are the same.
  enum class FirstAttempt { alone, with_retries };

  /// The same with A's values in the backend's memory: the engine scales them there.
  /// `first_ladder` > 0 asks the first Ic0Factor::attempts call for at most that many
  /// attempts (a refactor: the set-up's successful attempt and one more), the later calls
  /// for all that are left; 0 asks for all. The verdicts, shift and factor are the same.
  FactorizationReport factorize(const backend::SourceValues& a, const Ic0Options& options,
                                backend::Ic0Factor& engine,
                                FirstAttempt first = FirstAttempt::alone, int first_ladder = 0);
  /// That factorize() in two parts: queue_factorize() loads the values and queues the first
  /// attempt (shift 0, FirstAttempt::alone) without waiting for it, so that a backend can
  /// record and replay both; finish_factorize() reads that attempt's verdict and goes on
  /// as factorize() does. Both parts take the same `first`.
  void queue_factorize(const backend::SourceValues& a, backend::Ic0Factor& engine,
                       FirstAttempt first = FirstAttempt::alone) const;
  FactorizationReport finish_factorize(const Ic0Options& options, backend::Ic0Factor& engine,
                                       FirstAttempt first = FirstAttempt::alone,
                                       int first_ladder = 0);

  /// upper().values[k] = lower().values[upper_source()[k]]
  const std::vector<index_t>& upper_source() const { return upper_source_; }
  /// lower().values[k] = a.values[lower_source()[k]] (before scaling)
  const std::vector<index_t>& lower_source() const { return lower_source_; }

  /// For a backend's factor (made from upper() and upper_source()): drops them and
  /// lower()'s values; factorize(a, options, engine) needs only lower()'s pattern and
  /// lower_source().
  void keep_only_lower_pattern() {
    upper_ = CsrMatrix<double>{};
    common::release(upper_source_);
    common::release(lower_.values);
  }
  /// After a backend's factor took its first values from the host: lower()'s pattern and
  /// lower_source(), which only factorize(a, options, engine) reads (the backend's factor
  /// keeps its own); a later one needs a new Ic0Pattern(a).
  void release_pattern() {
    lower_ = CsrMatrix<double>{};
    common::release(lower_source_);
  }
  bool has_pattern() const { return !lower_source_.empty(); }
  /// After the host factor went to the triangular solvers: its values, which the next
  /// host factorize() writes again.
  void release_values() {
    common::release(lower_.values);
    common::release(upper_.values);
  }
  std::size_t host_bytes() const {
    return common::bytes_of(lower_source_) + common::bytes_of(upper_source_) +
           common::bytes_of(lower_) + common::bytes_of(upper_);
  }

 private:
  /// U from A's upper half, on host threads; false (U's arrays left half written) where
  /// A's pattern is not symmetric. `diagonal` holds each row's diagonal position in A.
  bool upper_from_a(const CsrMatrix<double>& a, const common::HostArray<index_t>& diagonal);
  /// U as the transpose of L by a counting sort (any pattern), on the calling thread.
  void transpose_lower();
  /// tril(S A S) on the lower pattern and row_scale[i] = 1 / S_ii = sqrt(a_ii).
  void scale(const CsrMatrix<double>& a, std::vector<double>& scaled,
             std::vector<double>& row_scale) const;
  /// first() factors without a shift; on breakdown retries(shifts, count) runs attempts
  /// with the growing shifts, in order, and returns their verdicts up to the first
  /// success (possibly fewer: it is called again with the rest). Throws NumericalError
  /// when every retry broke down, InvalidMatrixError on bad input. With
  /// FirstAttempt::with_retries first() is not called: retries() starts with shift 0. The
  /// first retries() call asks for at most `first_ladder` attempts where it is > 0.
  template <typename First, typename Retries>
  FactorizationReport retry(const Ic0Options& options, First&& first, Retries&& retries,
                            FirstAttempt start = FirstAttempt::alone, int first_ladder = 0) const;

  index_t rows_ = 0;
  index_t a_nnz_ = 0;
  std::vector<index_t> lower_source_;  // lower_.values[k] = a.values[lower_source_[k]]
  std::vector<index_t> upper_source_;  // upper_.values[k] = lower_.values[upper_source_[k]]
  CsrMatrix<double> lower_;
  CsrMatrix<double> upper_;
};

}  // namespace prism::precond
