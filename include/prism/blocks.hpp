#pragma once
/// @file
/// Partitions of the unknowns into blocks of consecutive rows, for block preconditioners
/// (docs/how-it-works.md): node blocks found from the pattern (supervariables: the
/// unknowns of one FEM node share their couplings), uniform blocks when the caller knows
/// the unknowns per node, the quotient graph of the blocks and its multicolor ordering,
/// which keeps the rows of a block together.

#include <prism/analysis.hpp>
#include <prism/csr_matrix.hpp>
#include <prism/options.hpp>

#include <vector>

namespace prism {

/// Block b is rows [ptr[b], ptr[b + 1]); ptr[0] = 0, ptr.back() = rows, no block empty.
struct BlockPartition {
  std::vector<index_t> ptr{0};

  index_t count() const { return static_cast<index_t>(ptr.size()) - 1; }
  index_t rows() const { return ptr.back(); }
  /// block_of()[i]: the block holding row i.
  std::vector<index_t> block_of() const;
};

/// Node blocks: maximal runs of consecutive rows with the same column pattern, at most
/// `max_size` rows each (a longer run is cut into pieces of max_size, the last shorter);
/// a row in no run is a block of its own. On 3D elasticity with the unknowns of a node
/// numbered together the blocks are the nodes' 3 x 3. Throws InvalidMatrixError if A is
/// not square, ConfigError when max_size < 1.
BlockPartition find_node_blocks(const CsrMatrix<double>& a, index_t max_size = 64);

/// Blocks of `size` consecutive rows, the last one shorter where size does not divide
/// rows. Throws ConfigError when size < 1.
BlockPartition uniform_blocks(index_t rows, index_t size);

/// The quotient matrix of A over the blocks: entry (I, J) is stored when some entry of A
/// couples a row of block I to a row of block J, and holds the sum of their |a_ij| (the
/// strength of the coupling). Structurally symmetric when A is. Throws
/// InvalidMatrixError if the partition does not fit A.
CsrMatrix<double> quotient_matrix(const CsrMatrix<double>& a, const BlockPartition& blocks);

/// A multicolor ordering of the blocks: no two blocks of one color are coupled.
struct BlockColoring {
  int num_colors = 0;
  std::vector<index_t> permutation;  ///< rows: permutation[new] = old; a block's rows stay
                                     ///< together and in order
  BlockPartition blocks;             ///< the blocks in the new row order
  std::vector<index_t> color_ptr;    ///< blocks [color_ptr[c], color_ptr[c + 1]) of color c
  std::vector<index_t> color_rows;   ///< rows [color_rows[c], color_rows[c + 1]) of color c
};

/// Greedy coloring (color_matrix, in `order`) of the quotient graph, expanded to rows.
/// Colors are renumbered by decreasing number of blocks, as color_matrix does.
BlockColoring color_blocks(const CsrMatrix<double>& a, const BlockPartition& blocks,
                           VertexOrder order);

/// Blocks grouped into supernodes, with the row order that makes each one consecutive.
struct Aggregation {
  std::vector<index_t> permutation;  ///< rows: permutation[new] = old
  BlockPartition blocks;             ///< the supernodes, in the new row order
};

/// Supernodes: each block, in order, not yet taken starts one and takes in turn the
/// neighbouring untaken block most strongly coupled to it (|A_IJ| / sqrt(|A_II| |A_JJ|)
/// on the quotient matrix) that still fits, until max_rows rows or no neighbour fits. A
/// supernode lists its blocks in the order taken, their rows in order. Dense diagonal
/// blocks of a few dozen rows take in the strong couplings that an FEM matrix's unknown
/// numbering leaves outside its node blocks (bcsstk13, b = ones, block_ic-PCG to 1e-8: 528
/// iterations on its node blocks, 90 on supernodes of up to 48 rows). Throws ConfigError
/// when max_rows < 1,
/// InvalidMatrixError if the blocks do not fit A.
Aggregation aggregate_blocks(const CsrMatrix<double>& a, const BlockPartition& blocks,
                             index_t max_rows);

/// The share of sum |a_ij| that lies inside the diagonal blocks (1 for one block, the
/// diagonal's share for blocks of one row).
double diagonal_block_weight(const CsrMatrix<double>& a, const BlockPartition& blocks);

}  // namespace prism
