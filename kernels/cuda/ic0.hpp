#pragma once
// IC(0) factorization on the device, one independent block of rows (a color) per
// launch: the rows of a block only read rows of earlier blocks, so each row is one
// thread running the same up-looking Crout step as the reference kernel
// (kernels/ic0.hpp), writing the factor straight into the color-set solves' storage.

#include "kernels/csr_view.hpp"

#include <cuda_runtime.h>

#include <cmath>

namespace prism::kernels::cuda {

/// No failure recorded: the initial value of `failed_row`, which a byte-wise
/// cudaMemset(0x7f) writes (larger than any row index prism accepts).
inline constexpr int kNoFailedRowByte = 0x7f;
inline constexpr int kNoFailedRow = 0x7f7f7f7f;

/// Where ic0_factor_rows also writes the finished factor for the solves, as each row is
/// done: entry p of row i of L = S^{-1} L_s, __dmul_rn(l_s(p), row_scale[i]), at
/// lower[lower_dest[p]] and upper[upper_dest[p]] (-1: not stored there, as for the
/// diagonal), and 1 / (l_s(ii) row_scale[i]) into both inverse diagonals; in double, or
/// rounded to float where the *32 pointers are set instead (precision: mixed). A failed
/// attempt leaves them partly written; the next one writes them all again. Without
/// lower_dest nothing is written.
struct Ic0Output {
  const index_t* lower_dest = nullptr;
  const index_t* upper_dest = nullptr;
  const double* row_scale = nullptr;
  double* lower = nullptr;
  double* upper = nullptr;
  double* lower_inverse = nullptr;
  double* upper_inverse = nullptr;
  float* lower32 = nullptr;
  float* upper32 = nullptr;
  float* lower_inverse32 = nullptr;
  float* upper_inverse32 = nullptr;
};

/// Factors rows [begin, end) of `lower` (diagonal last; values in `values`, tril(A) in,
/// L out) with the diagonal shifted by `shift`. A row whose pivot is <= 0 or not finite
/// min-reduces its index into *failed_row and leaves the pivot in its diagonal slot.
/// One thread per row walks its row and merges it with each row it reads: about m^2
/// dependent steps for m entries. With warp_per_row one warp takes a row and looks up
/// 32 entries at once (binary search, ordered shuffles): about m (log m + 32) cheap
/// steps, the faster choice for long rows in small blocks (ic0_warp_per_row). Both
/// give the reference factor bit for bit. With `output`, the solves' copies of L are
/// written too (Ic0Output), so no gather pass follows.
void ic0_factor_rows(index_t begin, index_t end, CsrView<double> lower, double* values,
                     double shift, int* failed_row, cudaStream_t stream, bool warp_per_row = false,
                     const Ic0Output* output = nullptr);

/// The choice of ic0_factor_rows for a block of `rows` rows whose longest row has m =
/// `entries` entries left of the diagonal, on a GPU holding `resident` threads at once:
/// a cost model in waves of resident threads times the steps of the longest row. One
/// thread per row: m^2 merge steps, each a dependent load (~30 cycles); one warp per
/// row: 32 times the threads, m (log2 m + 32) steps, mostly shuffles (~5 cycles, so a
/// sixth of the weight). On an H200 the warp kernel took bcsstk13's set-up from 232 to
/// 50 ms (blocks of ~50 rows, m up to 80); on 27-point Poisson 100^3 (125k rows per
/// color, m = 26), where one thread per row already fills the GPU, warps in the last
/// four colors made refactor_on_backend 3.1 ms against 2.3 ms with threads.
inline bool ic0_warp_per_row(index_t entries, index_t rows, int resident) {
  if (entries < 2 || rows <= 0 || resident <= 0) return false;
  const double m = static_cast<double>(entries);
  const double r = static_cast<double>(resident);
  const double thread_waves = std::ceil(static_cast<double>(rows) / r);
  const double warp_waves = std::ceil(32.0 * static_cast<double>(rows) / r);
  return warp_waves * m * (std::log2(m) + 32.0) / 6.0 < thread_waves * m * m;
}

/// The device twin of reference::ic0_scale: row_scale[i] = sqrt(a_ii), s_i =
/// inverse_scale[i] = 1 / row_scale[i] and scaled[k] = a[source[k]] s_i s_j, one thread
/// per entry (entry_row[k]: the row of entry k), in the reference's operation order, so
/// bit for bit the same. `nnz`: the entries of `lower`; diagonal_source[i] = the source
/// of row i's diagonal entry (source[row_ptr[i + 1] - 1], composed once by the caller).
/// A row whose a_ii is not positive or not finite min-reduces its index into
/// *failed_row (which the call sets to kNoFailedRow first).
void ic0_scale(CsrView<double> lower, index_t nnz, const index_t* entry_row, const index_t* source,
               const index_t* diagonal_source, const double* a, double* scaled, double* row_scale,
               double* inverse_scale, int* failed_row, cudaStream_t stream);

}  // namespace prism::kernels::cuda
