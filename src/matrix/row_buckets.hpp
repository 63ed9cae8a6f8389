#pragma once
/// @file
/// Triplets sorted into buckets of consecutive rows as they arrive (a block of a file at
/// a time), then built into a CSR matrix bucket by bucket on host threads: the counting
/// sort by row runs in cache-sized pieces, and the bucketing overlaps the reading.

#include <prism/csr_matrix.hpp>

#include "common/host_array.hpp"

#include <cstddef>
#include <vector>

namespace prism {

class RowBuckets {
 public:
  /// Buckets for a rows x cols matrix of about `expected` triplets (only a hint).
  RowBuckets(index_t rows, index_t cols, long long expected);

  /// Appends the triplets of `pieces` (in order, each in its order) and clears them
  /// (their capacity kept for the next block); the pieces are bucketed on host threads.
  /// Indices must lie in the matrix.
  void append(const std::vector<std::vector<Triplet>*>& pieces);

  /// The matrix of every triplet appended: exactly what csr_from_triplets gives for the
  /// triplets in the order appended (duplicates summed in that order). Empties the
  /// buckets. Throws InvalidMatrixError when more than 2^31 - 1 entries remain.
  CsrMatrix<double> build();

 private:
  std::size_t bucket_of(index_t row) const { return static_cast<std::size_t>(row) >> shift_; }

  index_t rows_;
  index_t cols_;
  int shift_ = 0;  // bucket b holds rows [b << shift_, (b + 1) << shift_)
  std::vector<common::HostArray<Triplet>> buckets_;
};

}  // namespace prism
