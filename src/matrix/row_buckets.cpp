#include "matrix/row_buckets.hpp"

#include "common/parallel.hpp"
#include "matrix/csr_rows.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace prism {
namespace {

// Triplets a bucket holds about (2 MiB): its counting sort by row runs in cache.
constexpr long long kTripletsPerBucket = 1LL << 17;
// Bounds the per-piece counts a block's bucketing keeps.
constexpr long long kMostBuckets = 4096;

}  // namespace

RowBuckets::RowBuckets(index_t rows, index_t cols, long long expected) : rows_(rows), cols_(cols) {
  const long long target = std::clamp(expected / kTripletsPerBucket, 1LL, kMostBuckets);
  const long long last = std::max<long long>(rows - 1, 0);
  while ((last >> shift_) + 1 > target) ++shift_;
  buckets_.resize(static_cast<std::size_t>((last >> shift_) + 1));
  const auto each = static_cast<std::size_t>(expected / static_cast<long long>(buckets_.size()));
  for (auto& bucket : buckets_) bucket.reserve(each + each / 8);
}

void RowBuckets::append(const std::vector<std::vector<Triplet>*>& pieces) {
  const std::size_t count = buckets_.size();
  // Where each piece's triplets go in each bucket: after the bucket's earlier triplets
  // and the earlier pieces', so every bucket keeps the order appended.
  std::vector<std::vector<std::size_t>> at(pieces.size(), std::vector<std::size_t>(count, 0));
  common::parallel_for(pieces.size(), 1, [&](std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) {
      for (const Triplet& t : *pieces[k]) ++at[k][bucket_of(t.row)];
    }
  });
  for (std::size_t b = 0; b < count; ++b) {
    std::size_t size = buckets_[b].size();
    for (std::vector<std::size_t>& piece : at) {
      const std::size_t mine = piece[b];
      piece[b] = size;
      size += mine;
    }
    buckets_[b].resize(size);
  }
  common::parallel_for(pieces.size(), 1, [&](std::size_t begin, std::size_t end) {
    for (std::size_t k = begin; k < end; ++k) {
      std::vector<std::size_t>& next = at[k];
      for (const Triplet& t : *pieces[k]) {
        const std::size_t b = bucket_of(t.row);
        buckets_[b][next[b]++] = t;
      }
      pieces[k]->clear();
    }
  });
}

CsrMatrix<double> RowBuckets::build() {
  const std::size_t count = buckets_.size();
  std::vector<std::size_t> base(count + 1, 0);
  for (std::size_t b = 0; b < count; ++b) base[b + 1] = base[b] + buckets_[b].size();

  // Offsets stay 64-bit: duplicates may still bring more than 2^31 - 1 triplets down to
  // a matrix that fits (csr_from_row_ranges checks).
  std::vector<std::int64_t> start(static_cast<std::size_t>(rows_) + 1, 0);
  std::vector<index_t> col(base[count]);
  std::vector<double> val(base[count]);
  common::parallel_for(count, 1, [&](std::size_t first, std::size_t last) {
    std::vector<std::int64_t> next;
    for (std::size_t b = first; b < last; ++b) {
      const std::size_t row0 = b << shift_;
      const auto all = static_cast<std::size_t>(rows_);
      const std::size_t rows = std::min(all, (b + 1) << shift_) - std::min(all, row0);
      // A counting sort by row within the bucket: file order within each row.
      next.assign(rows, 0);
      for (const Triplet& t : buckets_[b]) ++next[static_cast<std::size_t>(t.row) - row0];
      auto offset = static_cast<std::int64_t>(base[b]);
      for (std::size_t r = 0; r < rows; ++r) {
        offset += std::exchange(next[r], offset);
        start[row0 + r + 1] = offset;
      }
      for (const Triplet& t : buckets_[b]) {
        const auto pos = static_cast<std::size_t>(next[static_cast<std::size_t>(t.row) - row0]++);
        col[pos] = t.col;
        val[pos] = t.value;
      }
      common::HostArray<Triplet>().swap(buckets_[b]);
    }
  });
  return csr_from_row_ranges(rows_, cols_, start, std::move(col), std::move(val));
}

}  // namespace prism
