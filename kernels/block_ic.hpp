#pragma once
// Block IC(0) computed where the solves run (src/precond/block_ic): A's values scaled into
// dense blocks, the block rows factored level by level (a block row reads only block rows
// of earlier levels; in a block-colored order the levels are the colors), and the four
// operators of the solves (src/precond/block_ic/block_sweeps.hpp) formed from the factor.
// The layout is BlockFactor's (src/precond/block_ic/block_factor.hpp): per block row I its
// blocks L_IJ (b_I x b_J, row-major) for J < I, then L_II (b_I x b_I, row-major).

#include <prism/types.hpp>

#include <cstdint>
#include <vector>

namespace prism::kernels {

/// The pattern arrays the kernels read (host arrays for the reference, device arrays
/// for the CUDA twins).
struct BlockIcView {
  index_t rows = 0;
  index_t blocks = 0;
  index_t entries = 0;                     ///< off-diagonal blocks L_IJ
  const index_t* block_ptr = nullptr;      ///< rows of block b: [block_ptr[b], block_ptr[b + 1])
  const index_t* row_ptr = nullptr;        ///< block row b's entries: [row_ptr[b], row_ptr[b + 1])
  const index_t* col = nullptr;            ///< block column J < I of each entry, ascending
  const index_t* entry_row = nullptr;      ///< block row I of each entry
  const std::int64_t* offset = nullptr;    ///< where each entry's values start
  const std::int64_t* diagonal = nullptr;  ///< where each L_bb starts
  const std::int64_t* inverse = nullptr;   ///< where each L_bb^{-1} starts (b x b)
  /// Rows of V's row before entry e's columns: the sizes of the block rows I' < I that
  /// couple to J (V lists, after the unit diagonal, the block rows coupling to J).
  const index_t* transpose_prefix = nullptr;
  const index_t* a_row_ptr = nullptr;  ///< A's pattern (the solver's order)
  const index_t* a_col = nullptr;
  const std::int64_t* scatter = nullptr;  ///< value of each entry of A in the factor, -1 above
  const index_t* a_diagonal = nullptr;    ///< entry of A holding a_ii
  const index_t* forward_ptr = nullptr;   ///< row pointers of I + W
  const index_t* backward_ptr = nullptr;  ///< ... of I + V
  const index_t* forward_diagonal_ptr = nullptr;   ///< ... of F
  const index_t* backward_diagonal_ptr = nullptr;  ///< ... of B
  const index_t* level_blocks = nullptr;           ///< the blocks, level by level
  /// The transpose's block pattern, for the backward solve (block_ic_backward_row): block
  /// J's entries e (col[e] = J) are transpose_entry[transpose_ptr[J] .. transpose_ptr[J + 1]),
  /// by ascending block row.
  const index_t* transpose_ptr = nullptr;
  const index_t* transpose_entry = nullptr;
  index_t uniform_block = 0;  ///< the blocks' size when all have one, else 0
};

/// The same arrays, owned, with the sizes and the levels (built once per pattern).
struct BlockIcPlan {
  index_t rows = 0;
  std::vector<index_t> block_ptr, row_ptr, col, entry_row, transpose_prefix;
  std::vector<std::int64_t> offset, diagonal, inverse, scatter;
  std::vector<index_t> a_row_ptr, a_col, a_diagonal;
  std::vector<index_t> forward_ptr, backward_ptr, forward_diagonal_ptr, backward_diagonal_ptr;
  std::vector<index_t> level_ptr;  ///< level l: level_blocks[level_ptr[l] .. level_ptr[l + 1])
  std::vector<index_t> level_blocks;
  std::vector<index_t> transpose_ptr, transpose_entry;
  /// Whether the four operators are formed (block_ic.solve: inverted); without them the
  /// operators' row pointers are empty and the factor is applied by block_ic_forward_row
  /// and block_ic_backward_row (block_ic.solve: trsv).
  bool operators = true;
  bool float_solves = false;       ///< the trsv solves read a float copy of the factor
  std::int64_t value_count = 0;    ///< factor values
  std::int64_t inverse_count = 0;  ///< inverse values
  index_t largest_block = 0;
  index_t uniform_block = 0;  ///< the blocks' size when all have one, else 0

  index_t blocks() const { return static_cast<index_t>(block_ptr.size()) - 1; }
  index_t entries() const { return static_cast<index_t>(col.size()); }
  BlockIcView view() const;
};

/// Outcome of one factorization attempt.
struct BlockIcStatus {
  index_t failed_block = -1;  ///< a block whose Schur complement is not positive definite
  bool bad_input = false;     ///< A's own diagonal is not positive and finite (no shift helps)
  bool ok() const noexcept { return failed_block < 0; }
};

/// The largest block the device kernels take (a warp's lanes loop over its rows).
inline constexpr index_t kBlockIcMaxBlock = 4096;

}  // namespace prism::kernels

namespace prism::kernels::reference {

/// scale[i] = 1 / sqrt(a_ii), entry k of A being a[source[k]] (source nullptr: a[k]);
/// the first row whose a_ii is not positive and finite, or -1.
index_t block_ic_scale(const BlockIcView& p, const double* a, const index_t* source, double* scale);

/// values = the factor's blocks of S A S (zeros where A has no entry), + shift on the
/// diagonal.
void block_ic_load(const BlockIcView& p, const double* a, const index_t* source,
                   const double* scale, double shift, std::int64_t value_count, double* values);

/// Factors the loaded values in place, level by level, and writes each L_bb^{-1} into
/// `inverse`. On failure: the smallest failed block of the first level that has one (the
/// later levels are not computed).
BlockIcStatus block_ic_factor(const BlockIcView& p, const std::vector<index_t>& level_ptr,
                              double* values, double* inverse);

/// The four operators' values in their CSR orders (block_sweeps.hpp) from the factor.
void block_ic_operators(const BlockIcView& p, const double* values, const double* inverse,
                        const double* scale, double* forward_diagonal, double* forward,
                        double* backward_diagonal, double* backward);

// The independent steps of block_ic_factor and block_ic_operators, which the threaded
// twins (kernels/host) run at once on several blocks.

/// Block row `block` of the factor (its block columns already factored); false when its
/// diagonal block is not positive definite.
bool block_ic_factor_row(const BlockIcView& p, index_t block, double* values, double* inverse);

/// Block b's rows of F and B, and the unit diagonals of I + W and I + V.
void block_ic_block_operators(const BlockIcView& p, index_t b, const double* inverse,
                              const double* scale, double* forward_diagonal, double* forward,
                              double* backward_diagonal, double* backward);

/// Entry e's values in I + W and I + V.
void block_ic_entry_operators(const BlockIcView& p, index_t e, const double* values,
                              const double* inverse, const double* scale, double* forward,
                              double* backward);

// The factor applied as it is (block_ic.solve: trsv), z = M^{-1} r = S L^{-T} L^{-1} S r
// with the diagonal blocks' triangular solves done by substitution. The off-diagonal
// blocks L_IJ are read from `blocks`, the factor's values in T (double, or float for
// block_ic.precision: mixed), the diagonal blocks from `values` (double); sums in double.

/// Block row I of the forward solve u = L^{-1} S r: u_I = L_II^{-1} (S_I r_I - sum_J L_IJ u_J),
/// reading u of the block rows J < I that couple to I.
template <typename T>
void block_ic_forward_row(const BlockIcView& p, index_t block, const double* values,
                          const T* blocks, const double* scale, const double* r, double* u);

/// Block row J of the backward solve w = L^{-T} u, z = S w:
/// w_J = L_JJ^{-T} (u_J - sum_I L_IJ^T w_I) over the block rows I > J that couple to J.
template <typename T>
void block_ic_backward_row(const BlockIcView& p, index_t block, const double* values,
                           const T* blocks, const double* scale, const double* u, double* w,
                           double* z);

/// Both sweeps, block row by block row: u, then w and z.
template <typename T>
void block_ic_solve(const BlockIcView& p, const double* values, const T* blocks,
                    const double* scale, const double* r, double* u, double* w, double* z);

}  // namespace prism::kernels::reference
