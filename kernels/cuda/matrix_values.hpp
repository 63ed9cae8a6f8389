#pragma once
// Device twins of kernels/matrix_values.hpp. Each returns its verdict through device
// memory (`first_bad`, one int, set to kNoBadEntry by the call itself); the caller copies
// it back. Deterministic: the verdict is the smallest offending index.

#include <prism/types.hpp>

#include <cuda_runtime.h>

namespace prism::kernels::cuda {

/// The value of *first_bad when nothing was found (larger than any index prism accepts).
inline constexpr int kNoBadEntry = 0x7f7f7f7f;

/// *first_bad = reference::first_bad_value(n, values, mirror, tolerance) (kNoBadEntry for -1).
/// One pass finds non-finite values, max|v| and the largest |v - v_mirror| (a bad diagonal
/// counts as infinite); only when that exceeds the tolerance does a second pass look for
/// the smallest offending index (valid values cost one pass).
/// `partials`, `partials2`: kReductionBlocks doubles each (blas1.hpp); `scratch`: 2 doubles.
void first_bad_value(index_t n, const double* values, const index_t* mirror, double tolerance,
                     double* partials, double* partials2, double* scratch, int* first_bad,
                     cudaStream_t stream);

/// *largest = reference::largest_finite_magnitude(n, x) (exact: a max, in any order).
/// `partials`: kReductionBlocks doubles (blas1.hpp).
void largest_finite_magnitude(index_t n, const double* x, double* partials, double* largest,
                              cudaStream_t stream);

/// x_i = 1 / x_i where x_i is positive and finite; *first_bad = the smallest i where it is
/// not (kNoBadEntry when none).
void invert_positive(index_t n, double* x, int* first_bad, cudaStream_t stream);

/// dst[k] = T(src[map[k]]) for k < n (0 where map[k] < 0): values into a solve's storage.
template <typename T>
void gather_values(index_t n, const double* src, const index_t* map, T* dst, cudaStream_t stream);

/// dst[i] = T(1 / src[map[i]]) for i < n: an inverted diagonal into a solve's storage.
template <typename T>
void gather_inverse(index_t n, const double* src, const index_t* map, T* dst, cudaStream_t stream);

/// dst[k] = value for k < n (a solve's storage before its first values).
template <typename T>
void fill_values(index_t n, T value, T* dst, cudaStream_t stream);

}  // namespace prism::kernels::cuda
