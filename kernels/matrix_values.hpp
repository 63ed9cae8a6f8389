#pragma once
// Kernels on a matrix's values when they arrive in the backend's memory (refactor with
// new values on a known pattern): the symmetry / positivity check of
// prism::check_spd_candidate_values as one pass with the mirror map, and the inversion of a
// positive vector (Jacobi). The CUDA twins are in kernels/cuda/matrix_values.hpp.

#include <prism/types.hpp>

namespace prism::kernels {

/// Default relative tolerance of the symmetry check (solver.symmetry_tolerance):
/// |a_ij - a_ji| <= tolerance * max|a|, the rule of prism::check_spd_candidate_values.
inline constexpr double kSymmetryTolerance = 1e-12;

}  // namespace prism::kernels

namespace prism::kernels::reference {

/// The first entry k < n that the values check rejects, -1 when none: a value that is
/// not finite, a diagonal entry (mirror[k] == k) that is not positive, or an entry with
/// |v_k - v_mirror[k]| > tolerance * max_k |v_k|. Non-finite values are found before the
/// others (any non-finite value makes the tolerance meaningless).
index_t first_bad_value(index_t n, const double* values, const index_t* mirror, double tolerance);

/// The largest |x_i| over the finite x_i (0 when none): where a solve's vectors lie, to
/// scale them into the range where their squared norms are finite.
double largest_finite_magnitude(index_t n, const double* x);

/// x_i = 1 / x_i; returns the first i whose x_i is not positive or not finite (x is then
/// unspecified), -1 when all are.
index_t invert_positive(index_t n, double* x);

}  // namespace prism::kernels::reference
