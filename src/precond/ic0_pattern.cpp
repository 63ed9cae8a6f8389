#include "precond/ic0_pattern.hpp"

#include <prism/errors.hpp>

#include "common/host_array.hpp"
#include "common/parallel.hpp"
#include "kernels/ic0.hpp"
#include "precond/row_error.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <optional>

namespace prism::precond {

Ic0Pattern::Ic0Pattern(const CsrMatrix<double>& a) : rows_(a.rows), a_nnz_(a.nnz()) {
  const auto n = static_cast<std::size_t>(a.rows);
  // Columns are sorted, so the lower triangle of a row is a prefix ending at the
  // diagonal: found for every row first, then copied, rows in parts on host threads.
  common::HostArray<index_t> diagonal(n);  // written by the threads that read it
  common::parallel_for(n, common::kRowsPerPart, [&](std::size_t first, std::size_t last) {
    for (auto i = static_cast<index_t>(first); i < static_cast<index_t>(last); ++i) {
      const index_t* begin = a.col_idx.data() + a.row_ptr[i];
      const index_t* end = a.col_idx.data() + a.row_ptr[i + 1];
      const index_t* d = std::lower_bound(begin, end, i);
      if (d == end || *d != i) {
        throw RowError<InvalidMatrixError>(RowText() << "ic0: diagonal entry of row " << Row{i}
                                                     << " is missing");
      }
      diagonal[i] = static_cast<index_t>(d - a.col_idx.data());
    }
  });
  lower_.rows = lower_.cols = a.rows;
  lower_.row_ptr.assign(n + 1, 0);
  for (index_t i = 0; i < a.rows; ++i) {
    lower_.row_ptr[i + 1] = lower_.row_ptr[i] + (diagonal[i] - a.row_ptr[i] + 1);
  }
  const auto lower_nnz = static_cast<std::size_t>(lower_.row_ptr[n]);
  lower_.col_idx.resize(lower_nnz);
  lower_source_.resize(lower_nnz);
  common::parallel_for(n, common::kRowsPerPart, [&](std::size_t first, std::size_t last) {
    for (auto i = static_cast<index_t>(first); i < static_cast<index_t>(last); ++i) {
      index_t out = lower_.row_ptr[i];
      for (index_t k = a.row_ptr[i]; k <= diagonal[i]; ++k, ++out) {
        lower_.col_idx[out] = a.col_idx[k];
        lower_source_[out] = k;
      }
    }
  });
  lower_.values.assign(lower_nnz, 0.0);

  // U = L^T: U's row c holds the rows r >= c whose L row has column c, in increasing r,
  // the diagonal first.
  upper_.rows = upper_.cols = a.rows;
  upper_.col_idx.resize(lower_nnz);
  upper_.values.assign(lower_nnz, 0.0);
  upper_source_.resize(lower_nnz);
  if (!upper_from_a(a, diagonal)) transpose_lower();
}

bool Ic0Pattern::upper_from_a(const CsrMatrix<double>& a,
                              const common::HostArray<index_t>& diagonal) {
  const auto n = static_cast<std::size_t>(a.rows);
  // With a symmetric pattern (every matrix Solver::setup accepts) U's row c is A's row c
  // from the diagonal on, and each entry's place in L a binary search in L's row r: rows
  // in parts on host threads. A's upper half maps one to one into L, so when it has as
  // many entries as L and every one is found, it is all of L^T.
  upper_.row_ptr.assign(n + 1, 0);
  for (index_t i = 0; i < a.rows; ++i) {
    upper_.row_ptr[i + 1] = upper_.row_ptr[i] + (a.row_ptr[i + 1] - diagonal[i]);
  }
  if (upper_.row_ptr[n] != lower_.row_ptr[n]) return false;
  std::atomic<bool> found{true};
  common::parallel_for(n, common::kRowsPerPart, [&](std::size_t first, std::size_t last) {
    for (auto c = static_cast<index_t>(first); c < static_cast<index_t>(last); ++c) {
      index_t out = upper_.row_ptr[c];
      for (index_t k = diagonal[c]; k < a.row_ptr[c + 1]; ++k, ++out) {
        const index_t r = a.col_idx[k];
        const index_t* begin = lower_.col_idx.data() + lower_.row_ptr[r];
        const index_t* end = lower_.col_idx.data() + lower_.row_ptr[r + 1];
        const index_t* at = std::lower_bound(begin, end, c);
        if (at == end || *at != c) {
          found = false;
          return;
        }
        upper_.col_idx[out] = r;
        upper_source_[out] = static_cast<index_t>(at - lower_.col_idx.data());
      }
    }
  });
  return found;
}

void Ic0Pattern::transpose_lower() {
  // A counting sort: scanning L's rows in order keeps U's columns sorted, and the
  // diagonal (largest column of each L row) lands first.
  upper_.row_ptr.assign(static_cast<std::size_t>(rows_) + 1, 0);
  for (index_t c : lower_.col_idx) ++upper_.row_ptr[c + 1];
  for (index_t i = 0; i < rows_; ++i) upper_.row_ptr[i + 1] += upper_.row_ptr[i];
  std::vector<index_t> next(upper_.row_ptr.begin(), upper_.row_ptr.end() - 1);
  for (index_t i = 0; i < rows_; ++i) {
    for (index_t k = lower_.row_ptr[i]; k < lower_.row_ptr[i + 1]; ++k) {
      const index_t dst = next[lower_.col_idx[k]]++;
      upper_.col_idx[dst] = i;
      upper_source_[dst] = k;
    }
  }
}

namespace {

void throw_bad_diagonal(const kernels::Ic0Status& status) {
  throw RowError<InvalidMatrixError>(RowText()
                                     << "ic0: diagonal entry of row " << Row{status.failed_row}
                                     << " is not positive (" << status.pivot << ")");
}

}  // namespace

void Ic0Pattern::scale(const CsrMatrix<double>& a, std::vector<double>& scaled,
                       std::vector<double>& row_scale) const {
  if (a.rows != rows_ || a.nnz() != a_nnz_) {
    throw InvalidMatrixError("ic0: matrix does not have the analyzed sparsity pattern");
  }
  scaled.resize(lower_.col_idx.size());
  row_scale.resize(static_cast<std::size_t>(rows_));
  const kernels::CsrView<double> pattern{lower_.rows, lower_.cols, lower_.row_ptr.data(),
                                         lower_.col_idx.data(), nullptr};
  const kernels::Ic0Status status = kernels::reference::ic0_scale(
      pattern, lower_source_.data(), a.values.data(), scaled.data(), row_scale.data());
  if (!status.ok()) throw_bad_diagonal(status);
}

template <typename First, typename Retries>
FactorizationReport Ic0Pattern::retry(const Ic0Options& options, First&& first, Retries&& retries,
                                      FirstAttempt start, int first_ladder) const {
  FactorizationReport report;
  report.performed = true;
  // Every attempt's shift in order: none, then initial_shift, doubled on each retry.
  std::vector<double> shifts{0.0};
  for (int r = 0; r < options.max_shift_retries; ++r) {
    shifts.push_back(std::max(2.0 * shifts.back(), options.initial_shift));
  }
  std::size_t done = 0;  // attempts with a verdict
  kernels::Ic0Status status;
  // Takes the next verdict; true where it ends the retries (a success).
  const auto take = [&](const kernels::Ic0Status& verdict) {
    status = verdict;
    ++done;
    if (status.bad_input) throw_bad_diagonal(status);  // no shift repairs the input
    if (!status.ok()) return false;
    report.retries = static_cast<int>(done - 1);
    report.shift = shifts[done - 1];
    return true;
  };
  if (start == FirstAttempt::alone && take(first())) return report;
  for (int ladder = first_ladder; done < shifts.size(); ladder = 0) {
    const int left = static_cast<int>(shifts.size() - done);
    const std::vector<kernels::Ic0Status> verdicts =
        retries(shifts.data() + done, ladder > 0 ? std::min(left, ladder) : left);
    if (verdicts.empty()) throw Error("ic0: the factorization returned no verdict");
    for (const kernels::Ic0Status& verdict : verdicts) {
      if (take(verdict)) return report;
    }
  }
  report.retries = static_cast<int>(done - 1);
  throw RowError<NumericalError>(RowText() << "ic0: factorization broke down at row "
                                           << Row{status.failed_row} << " (pivot " << status.pivot
                                           << ") with diagonal shift " << shifts[done - 1]
                                           << " after " << report.retries << " retries");
}

FactorizationReport Ic0Pattern::factorize(const CsrMatrix<double>& a, const Ic0Options& options) {
  std::vector<double> scaled, row_scale;
  scale(a, scaled, row_scale);
  const kernels::CsrView<double> pattern{lower_.rows, lower_.cols, lower_.row_ptr.data(),
                                         lower_.col_idx.data(), nullptr};
  const auto attempt = [&](double shift) {
    lower_.values = scaled;
    return kernels::reference::ic0_factorize(pattern, lower_.values.data(), shift);
  };
  const FactorizationReport report = retry(
      options, [&] { return attempt(0.0); },
      [&](const double* shifts, int count) {
        std::vector<kernels::Ic0Status> verdicts;
        for (int k = 0; k < count && (verdicts.empty() || !verdicts.back().ok()); ++k) {
          verdicts.push_back(attempt(shifts[k]));
        }
        return verdicts;
      });
  // L = S^{-1} L_s: row i scaled by sqrt(a_ii).
  for (index_t i = 0; i < rows_; ++i) {
    for (index_t k = lower_.row_ptr[i]; k < lower_.row_ptr[i + 1]; ++k) {
      lower_.values[k] *= row_scale[i];
    }
  }
  upper_.values.resize(upper_source_.size());  // release_values() may have freed them
  for (std::size_t k = 0; k < upper_.values.size(); ++k) {
    upper_.values[k] = lower_.values[upper_source_[k]];
  }
  return report;
}

FactorizationReport Ic0Pattern::factorize(const CsrMatrix<double>& a, const Ic0Options& options,
                                          backend::Ic0Factor& engine) {
  std::vector<double> scaled, row_scale;
  scale(a, scaled, row_scale);
  engine.load(scaled, row_scale);
  const FactorizationReport report = retry(
      options, [&] { return engine.attempt(0.0); },
      [&](const double* shifts, int count) { return engine.attempts(shifts, count); });
  engine.finish();
  return report;
}

FactorizationReport Ic0Pattern::factorize(const backend::SourceValues& a, const Ic0Options& options,
                                          backend::Ic0Factor& engine, FirstAttempt first,
                                          int first_ladder) {
  queue_factorize(a, engine, first);
  return finish_factorize(options, engine, first, first_ladder);
}

void Ic0Pattern::queue_factorize(const backend::SourceValues& a, backend::Ic0Factor& engine,
                                 FirstAttempt first) const {
  if (a.source != nullptr && static_cast<index_t>(a.source->size()) != a_nnz_) {
    throw InvalidMatrixError("ic0: " + std::to_string(a.source->size()) +
                             " values for a pattern of " + std::to_string(a_nnz_) + " entries");
  }
  engine.load(a);
  if (first == FirstAttempt::alone) engine.queue_attempt(0.0);  // retry's first shift
}

FactorizationReport Ic0Pattern::finish_factorize(const Ic0Options& options,
                                                 backend::Ic0Factor& engine, FirstAttempt first,
                                                 int first_ladder) {
  const FactorizationReport report = retry(
      options, [&] { return engine.attempt_result(); },
      [&](const double* shifts, int count) { return engine.attempts(shifts, count); }, first,
      first_ladder);
  engine.finish();
  return report;
}

}  // namespace prism::precond
