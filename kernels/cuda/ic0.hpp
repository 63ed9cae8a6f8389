#pragma once
// IC(0) factorization on the device, one independent block of rows (a color) per
// launch: the rows of a block only read rows of earlier blocks, so its rows run in
// parallel, each the same up-looking Crout step as the reference kernel
// (kernels/ic0.hpp), writing the factor straight into the color-set solves' storage.

#include "kernels/csr_view.hpp"
#include "kernels/cuda/device_memory.hpp"
#include "kernels/ic0_staging.hpp"

#include <cuda_runtime.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

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
/// lower_dest nothing is written. Entries l_ik in columns k < scaled_end go into the lower
/// copy times the inverse diagonal of row k as written there, l_ik * dl_k (in float, of
/// both rounded to float; kernels/cuda/sell.hpp, sell_colorset_solve, first_scaled):
/// scaled_end is the end of the first row block, or 0.
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
  index_t scaled_end = 0;
};

/// The symbolic half of the factorization, the same for every set of values on one
/// pattern: for each entry p of L (row i, column k < i), the entries a of row i left of p
/// and b of row k left of its diagonal that share a column, in column order (the
/// products l_ia l_kb that l_ik subtracts); entry p's pairs are q in [ptr[p], ptr[p + 1])
/// (none for a diagonal entry), own[q] = a - row_ptr[i] and other[q] = b; pivot[p]: the
/// position of l_kk (p itself for a diagonal entry). The entries left of a row's diagonal
/// split into runs, the fewest stretches of consecutive entries none of which subtracts
/// a product of another entry of its stretch (in a color-ordered factor no more than the
/// colors left of the row, since entries of one color never pair), so the entries of a
/// run can be computed at once; run_end[p] is the end of p's run, relative to row_ptr[i]
/// (for a diagonal entry, its own offset).
struct Ic0Matches {
  const index_t* ptr = nullptr;
  const std::uint16_t* own = nullptr;
  const index_t* other = nullptr;
  const index_t* pivot = nullptr;
  const std::uint16_t* run_end = nullptr;
};

/// Rows of at most this many entries fit a match's 16-bit offsets.
inline constexpr index_t kIc0MatchRowLimit = 65536;

/// The device storage of an Ic0Matches, 10 bytes per entry of L and 6 per pair (27-point
/// Poisson 100^3 with a largest-first greedy coloring: 3.4 pairs per off-diagonal entry,
/// so 3.3 times L's values; bcsstk13 colored the same way: 8.4 pairs per off-diagonal
/// entry).
struct Ic0MatchTable {
  DeviceBuffer<index_t> ptr;
  DeviceBuffer<std::uint16_t> own;
  DeviceBuffer<index_t> other;
  DeviceBuffer<index_t> pivot;
  DeviceBuffer<std::uint16_t> run_end;

  /// False where ic0_match_table could not build one.
  bool valid() const { return ptr.size() > 0; }
  Ic0Matches view() const {
    return {ptr.data(), own.data(), other.data(), pivot.data(), run_end.data()};
  }
};

/// Finds the matches of every entry of `lower` (nnz entries; entry_row[p]: the row of
/// entry p; longest_row: the most entries of a row, diagonal included): one thread per
/// entry merges rows i and k twice, once to count and once to store, with the counts'
/// prefix sum taken on the device in between (the host waits for the stream once, for
/// the pairs' count). Returns an invalid (empty) table where no entry has a pair (7-point grids in
/// 2 colors, G3_circuit: merging finds nothing either, as fast, with no table to store), where a
/// row is longer than kIc0MatchRowLimit, where the pairs would exceed index_t or where
/// the table would take more than half the free device memory; the factorization then
/// merges rows as it goes.
Ic0MatchTable ic0_match_table(CsrView<double> lower, index_t nnz, const index_t* entry_row,
                              index_t longest_row, cudaStream_t stream);

/// How ic0_factor_rows computes a row (every method gives the reference factor bit for
/// bit):
/// - merge: one thread per row walks its row and merges it with each row it reads:
///   about m^2 dependent steps for m entries, each a scattered load.
/// - warp_merge: one warp per row looks 32 entries up at once (binary search, ordered
///   shuffles): about m (log m + 32) cheap steps, for long rows in small blocks
///   (ic0_warp_per_row).
/// - staged: a warp copies all a few consecutive rows read (their entries, and the
///   factors of the products they subtract, Ic0Matches) into shared memory at once, then
///   32 / rows_per_warp lanes take each row there, run by run, the entries of a run
///   spread over the row's lanes (Ic0Staging).
enum class Ic0Method { merge, warp_merge, staged };

/// A block of rows that only read earlier rows, [begin, end), and how to factor it.
struct Ic0Rows {
  index_t begin = 0;
  index_t end = 0;
  Ic0Method method = Ic0Method::merge;
  Ic0Staging staging;  // Ic0Method::staged
};

/// Several attempts at one block of rows in one launch (the shift retries of a
/// factorization, run together): attempt a, a < count, factors its own copy of the values
/// at values + a * stride with the diagonal shifted by shifts[a] (device memory) and
/// records its failures in failed_row[a]. Each attempt computes exactly what a launch of
/// its own would.
struct Ic0Attempts {
  int count = 1;
  const double* shifts = nullptr;
  std::size_t stride = 0;
};

/// The values ic0_factor_rows factors, read from the caller's values instead of from
/// `values` (the work of ic0_scale folded into the factorization: no pass of its own over
/// L): row i finds s_i = 1 / sqrt(a_ii) itself and stores it in inverse_scale[i] (and
/// sqrt(a_ii) in row_scale[i]) for the rows after it; then the rows of a warp (Ic0Method::
/// merge) or the warp of a row (warp_merge) write their entries, __dmul_rn(__dmul_rn(
/// a[source[p]], s_i), s_k) as ic0_scale forms them, into `values` with coalesced loads
/// before factoring them there; a staged warp copies a[source[p]] and s_k into shared
/// memory with the rest and scales there. A row whose a_ii is not positive or not finite
/// min-reduces its index into *bad_diagonal and *failed_row (the later blocks of the
/// attempt then return), and does so even in a lost attempt, so *bad_diagonal ends as
/// ic0_scale's verdict. Every entry of `values` is written (L, or a failed row's pivot)
/// by an attempt that is not lost. The coalesced pass pays for itself in the refactor:
/// each row reading its own entries one at a time as it walks them (a sector per row and
/// step) costs more than the pass.
struct Ic0Source {
  const double* a = nullptr;
  const index_t* source = nullptr;
  double* row_scale = nullptr;
  double* inverse_scale = nullptr;
  int* bad_diagonal = nullptr;
};

/// Factors rows.begin..rows.end of `lower` (diagonal last; values in `values`, tril(A)
/// in, L out) with the diagonal shifted by `shift`. A row whose pivot is <= 0 or not
/// finite min-reduces its index into *failed_row and leaves the pivot in its diagonal
/// slot. If *failed_row already holds a row below rows.begin (an earlier block failed, so
/// the attempt is lost), the launch returns without computing anything, which makes the
/// rest of a failed attempt cheap (its later blocks still launch). Ic0Method::staged requires
/// `matches` and rows.staging (ConfigError otherwise); the others do not read them. With `output`,
/// the solves' copies of L are written too (Ic0Output), so no gather pass follows.
/// With `attempts` (shifts set), its attempts run instead, `shift` unused; they cannot
/// write an output (ConfigError): ic0_emit writes the one that is kept. With `source`
/// (a set), the input values come from there (Ic0Source; not with `attempts`:
/// ConfigError), and `values` is only written.
void ic0_factor_rows(const Ic0Rows& rows, CsrView<double> lower, double* values, double shift,
                     int* failed_row, cudaStream_t stream, const Ic0Matches* matches = nullptr,
                     const Ic0Output* output = nullptr, const Ic0Attempts* attempts = nullptr,
                     const Ic0Source* source = nullptr);

/// A ladder's starting values (Ic0Attempts): `values` (n entries) copied into `count`
/// slots of `stride` entries at `copies`, in one launch.
void ic0_replicate(const double* values, std::size_t n, int count, std::size_t stride,
                   double* copies, cudaStream_t stream);

/// A ladder's failed pivots in one launch, so that one copy reads them back: for each
/// attempt a < count whose failed_row[a] is a row i (not kNoFailedRow), the pivot it left
/// in i's diagonal slot, values[a * stride + row_ptr[i + 1] - 1], into pivots[a]; 0 for an
/// attempt that did not fail.
void ic0_failed_pivots(const int* failed_row, int count, const double* values, std::size_t stride,
                       const index_t* row_ptr, double* pivots, cudaStream_t stream);

/// The factor a ladder keeps, chosen on the device (so that it is written out before the
/// host reads the verdicts): the first attempt a < count whose failed_row[a] is
/// kNoFailedRow, its values at `values` + a * stride, copied into kept `values`; none
/// where every attempt failed.
struct Ic0Kept {
  const int* failed_row = nullptr;
  int count = 0;
  std::size_t stride = 0;
  double* values = nullptr;
};

/// Writes a finished factor (`values` on the pattern of `lower`, nnz entries; entry_row[p]:
/// the row of entry p) into the solves' storage, as ic0_factor_rows with `output` does
/// while it factors: the same values, bit for bit. Nothing without output.lower_dest.
/// With `kept`, the factor is the ladder's attempt it chooses at `values` (and is copied
/// into kept->values too), or nothing is written where every attempt failed.
void ic0_emit(CsrView<double> lower, index_t nnz, const index_t* entry_row, const double* values,
              const Ic0Output& output, cudaStream_t stream, const Ic0Kept* kept = nullptr);

/// The choice between Ic0Method::merge and warp_merge for a block of `rows` rows whose
/// longest row has m = `entries` entries left of the diagonal, on a GPU holding
/// `resident` threads at once: a cost model in waves of resident threads times the
/// steps of the longest row. One thread per row: m^2 merge steps, each a dependent load
/// (~30 cycles); one warp per row: 32 times the threads, m (log2 m + 32) steps, mostly
/// shuffles (~5 cycles, so a sixth of the weight). The warp kernel pays where blocks are
/// small and rows long (bcsstk13: blocks of ~50 rows, m up to 80); where one thread per
/// row already fills the GPU (27-point Poisson 100^3: 125k rows per color, m = 26), warps
/// lose.
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
