#pragma once
// Operations on k columns at once (the multi-column PCG, solver/pcg_columns.hpp): blocks of
// k columns stored column-major in one Vector of k * rows doubles (column j at
// data() + j * rows), each operation restricted to a ColumnSet, the columns still
// iterating, with per-column CG scalars in a Vector of k * kNumScalars doubles (column j's
// slot s at j * kNumScalars + s). Each column is computed as the one-column operation
// computes it (kernels/columns.hpp); the matrix is read once per row for all of them.

#include "backend/handles.hpp"

#include <functional>
#include <memory>
#include <vector>

namespace prism::backend {

/// The columns an operation works on: the host's list and the same list where the
/// backend's kernels read it. Made by ColumnOperations::make_column_set.
class ColumnSet {
 public:
  virtual ~ColumnSet() = default;
  /// Rows of a column: column j of a block starts at j * rows.
  virtual index_t rows() const = 0;
  virtual const std::vector<index_t>& columns() const = 0;
  int count() const { return static_cast<int>(columns().size()); }
  /// The list in the backend's memory (cuda: device memory; cpu: the host list).
  virtual const index_t* backend_columns() const = 0;
};

/// z = M^{-1} r (or any operation on one column) for each column of a set, one column at
/// a time on views of the blocks: the fallback where no operation takes all columns at once.
template <typename Backend, typename Body>
void for_each_column(Backend& backend, const Vector& r, Vector& z, const ColumnSet& set,
                     const Body& body) {
  const index_t n = set.rows();
  for (const index_t j : set.columns()) {
    const std::ptrdiff_t at = static_cast<std::ptrdiff_t>(j) * n;
    const std::unique_ptr<const Vector> rj = backend.view_input(r.data() + at, n);
    const std::unique_ptr<Vector> zj = backend.view(z.data() + at, n);
    body(*rj, *zj);
  }
}

/// Where a device-side loop over columns stopped (ColumnOperations::record_column_loop).
struct ColumnLoopOutcome {
  int iteration = 0;  ///< the last iteration completed, a check point
  /// The set's residual norms sqrt(s[j][rr]) at each check point the loop passed (first + 1
  /// .. iteration), the last one included: row i, the set's column c at i * count + c
  /// (unspecified where c is masked).
  std::vector<double> residual_norms;
};

/// Iterations over a set of columns that the backend repeats by itself (cuda: a CUDA graph
/// with a while node), checking every listed column at each check point (an iteration that
/// is a multiple of check_every, or max_iterations) by kernels::cg_stop(s[j][rz],
/// s[j][pq], sqrt(s[j][rr]), target_j, k, max_iterations), with no host round trip between.
/// Columns masked in the set (ColumnOperations::mask_columns) are left out, checks included.
class ColumnLoop {
 public:
  virtual ~ColumnLoop() = default;
  /// Runs iterations first + 1, first + 2, ... and stops at the first check point where a
  /// column is no longer running, or at the first one at least `chunk` iterations on.
  /// x owes nothing when it starts (column_cg_residual): settle with column_cg_finish.
  virtual ColumnLoopOutcome run(int first, int chunk) = 0;
};

/// The multi-column operations of a backend.
class ColumnOperations {
 public:
  virtual ~ColumnOperations() = default;
  /// A set of the given columns (each below the blocks' column count) of blocks of `rows`.
  virtual std::unique_ptr<ColumnSet> make_column_set(index_t rows,
                                                     const std::vector<index_t>& columns) = 0;
  /// Y_j = A X_j, reading A once per row for all the columns (CSR, or the SELL copy where
  /// the matrix's SpMV is SELL; cuda BSR: column by column through spmv()).
  virtual void spmm(const Matrix& a, const Vector& x, Vector& y, const ColumnSet& set) = 0;
  /// spmm, then s[j][out] = X_j . Y_j (CG's q = A p and p . q); in one pass over the matrix
  /// and X where the backend fuses them (cuda SELL: each column as spmv_dot computes it).
  virtual void spmm_dot(const Matrix& a, const Vector& x, Vector& y, const ColumnSet& set,
                        Vector& s, Scalar out) {
    spmm(a, x, y, set);
    column_dot(x, y, set, s, out);
  }
  /// s[j][out] = X_j . Y_j
  virtual void column_dot(const Vector& x, const Vector& y, const ColumnSet& set, Vector& s,
                          Scalar out) = 0;
  /// Y_j += a X_j
  virtual void column_axpy(double a, const Vector& x, Vector& y, const ColumnSet& set) = 0;
  /// Y_j = X_j
  virtual void column_copy(const Vector& x, Vector& y, const ColumnSet& set) = 0;
  /// Y_j = d .* X_j, d (one column) read once per row for all the columns
  virtual void column_pointwise_multiply(const Vector& d, const Vector& x, Vector& y,
                                         const ColumnSet& set) = 0;
  /// column_pointwise_multiply, then s[j][out] = X_j . Y_j (Jacobi's z = d .* r and
  /// r . z); in one pass where the backend fuses them (cuda: the same bits as the two).
  virtual void column_pointwise_multiply_dot(const Vector& d, const Vector& x, Vector& y,
                                             const ColumnSet& set, Vector& s, Scalar out) {
    column_pointwise_multiply(d, x, y, set);
    column_dot(x, y, set, s, out);
  }
  /// cg_update per column with its own scalars: alpha_j = s[j][rz] / s[j][pq] (0 unless
  /// both are positive and finite); x_j += alpha_j p_j; r_j -= alpha_j q_j; s[j][rr]
  virtual void column_cg_update(const Vector& p, const Vector& q, Vector& x, Vector& r,
                                const ColumnSet& set, Vector& s) = 0;
  /// cg_direction per column: beta_j = s[j][rz_new] / s[j][rz] (0 unless s[j][rz] is
  /// positive and finite); p_j = z_j + beta_j p_j; s[j][rz] = s[j][rz_new]
  virtual void column_cg_direction(const Vector& z, Vector& p, const ColumnSet& set, Vector& s) = 0;
  // x lagging one step, as in the fused one-column steps (Backend::cg_step): where the
  // backend defers it (cuda), column_cg_residual leaves x_j owing alpha_j p_j (kept in
  // s[j][alpha]), which column_cg_direction_x adds on its read of p and column_cg_finish
  // alone; each x_j gets column_cg_update's sums. Elsewhere they are column_cg_update,
  // column_cg_direction and nothing.
  /// column_cg_update, x_j += alpha_j p_j owed where the backend defers it.
  virtual void column_cg_residual(const Vector& p, const Vector& q, Vector& x, Vector& r,
                                  const ColumnSet& set, Vector& s) {
    column_cg_update(p, q, x, r, set, s);
  }
  /// column_cg_direction, first adding to x_j what it owes.
  virtual void column_cg_direction_x(const Vector& z, Vector& p, Vector& x, const ColumnSet& set,
                                     Vector& s) {
    (void)x;
    column_cg_direction(z, p, set, s);
  }
  /// x_j += what it owes.
  virtual void column_cg_finish(const Vector& p, Vector& x, const ColumnSet& set, Vector& s) {
    (void)p, (void)x, (void)set, (void)s;
  }
  /// Whether mask_columns() works on sets that multiply `a` and go through a preconditioner
  /// that applies all columns at once (cuda: SELL or CSR; cpu: no).
  virtual bool can_mask_columns(const Matrix& a) const {
    (void)a;
    return false;
  }
  /// Leaves the columns of `set` not in `live` out of every operation on the set from now
  /// on, in the backend's list only (count() and columns() stay): a ColumnLoop recorded on
  /// the set goes on with the live columns, recorded once. Throws BackendError where
  /// can_mask_columns() is false.
  virtual void mask_columns(ColumnSet& set, const std::vector<index_t>& live);
  /// Whether record_column_loop() works here (cuda: with graph while nodes; cpu: no).
  virtual bool can_loop_columns() const { return false; }
  /// Records `body` (one iteration over `set`'s columns; it must only queue work, as
  /// Recorder::record's body) as the body of a ColumnLoop whose checks read the scalars `s`
  /// and `targets` (one per column of the blocks, by column index). `set` and `s` must
  /// outlive the loop. Throws BackendError where can_loop_columns() is false.
  virtual std::unique_ptr<ColumnLoop> record_column_loop(const std::function<void()>& body,
                                                         const ColumnSet& set, Vector& s,
                                                         const std::vector<double>& targets,
                                                         int check_every, int max_iterations);
};

}  // namespace prism::backend
