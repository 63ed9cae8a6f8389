#include <prism/errors.hpp>

#include "kernels/host/sell_lanes.hpp"
#include "kernels/host/team.hpp"

namespace prism::kernels::host {
namespace {

using detail::chunk_begin;
using detail::chunk_count;
using detail::kLanes;
using detail::run_team;
using detail::team_size;

constexpr index_t kSlicesPerChunk = kReductionChunk / kLanes;
static_assert(kReductionChunk % kLanes == 0, "a reduction chunk holds whole slices");

/// y over slices [first, last), each row reference::spmv's bits (detail::add_slice).
PRISM_SIMD_CLONES
void multiply_slices(const SellView& a, const double* x, double* y, index_t first, index_t last) {
  for (index_t s = first; s < last; ++s) {
    double sum[kLanes] = {};
    detail::add_slice(a.slice_ptr[s], a.slice_ptr[s + 1], a.col_idx, a.values, x, sum);
    const index_t row = s * kLanes;
    const index_t lanes = std::min<index_t>(kLanes, a.rows - row);
    for (index_t l = 0; l < lanes; ++l) y[row + l] = sum[l];
  }
}

/// The first chunk of part `part` of `parts` with about equal stored entries (the chunk
/// boundary nearest the slice where the part's share begins): whole chunks, so that
/// sell_spmv_dot's partial sums are those of dot().
index_t stored_part_start(const SellView& a, index_t chunks, int part, int parts) {
  if (part <= 0) return 0;
  if (part >= parts) return chunks;
  const index_t slices = a.slices(kLanes);
  const auto target =
      static_cast<index_t>(static_cast<std::int64_t>(a.slice_ptr[slices]) * part / parts);
  const auto slice = static_cast<index_t>(
      std::lower_bound(a.slice_ptr, a.slice_ptr + slices, target) - a.slice_ptr);
  return std::min(chunks, (slice + kSlicesPerChunk / 2) / kSlicesPerChunk);
}

/// body(first chunk, last chunk) on each thread's part of the chunks of rows.
template <typename Body>
void for_chunk_parts(int threads, const SellView& a, const Body& body) {
  const index_t chunks = chunk_count(a.rows);
  run_team(team_size(threads, chunks), [&](int rank, int size) {
    const index_t begin = stored_part_start(a, chunks, rank, size);
    const index_t end = stored_part_start(a, chunks, rank + 1, size);
    if (begin < end) body(begin, end);
  });
}

/// The first slice of chunk `chunk` (the slice count for chunk_count(rows)).
inline index_t first_slice(const SellView& a, index_t chunk) {
  return std::min(chunk * kSlicesPerChunk, a.slices(kLanes));
}

}  // namespace

void sell_spmv(int threads, SellView a, const double* x, double* y) {
  for_chunk_parts(threads, a, [&](index_t begin, index_t end) {
    multiply_slices(a, x, y, first_slice(a, begin), first_slice(a, end));
  });
}

double sell_spmv_dot(int threads, SellView a, const double* x, double* y) {
  const index_t chunks = chunk_count(a.rows);
  std::vector<double> partials(static_cast<std::size_t>(chunks));
  for_chunk_parts(threads, a, [&](index_t begin, index_t end) {
    for (index_t c = begin; c < end; ++c) {
      // The chunk's y, then its partial sum while y is still in cache.
      multiply_slices(a, x, y, first_slice(a, c), first_slice(a, c + 1));
      partials[c] = detail::chunk_sum(chunk_begin(c, a.rows), chunk_begin(c + 1, a.rows),
                                      [&](index_t i) { return x[i] * y[i]; });
    }
  });
  return detail::sum_in_order(partials);
}

void sell_place(int threads, const SellLayout& layout, index_t* slice_ptr, index_t* col_idx,
                index_t* source) {
  if (layout.slice != kLanes || layout.range_ptr.size() != 2) {
    throw ConfigError("sell_place: the host SELL SpMV takes one range of slices of " +
                      std::to_string(kLanes) + " rows");
  }
  const SellView a{layout.rows, 0, layout.slice_ptr.data(), layout.col_idx.data(), nullptr};
  const index_t slices = a.slices(kLanes);
  slice_ptr[slices] = layout.slice_ptr[static_cast<std::size_t>(slices)];
  for_chunk_parts(threads, a, [&](index_t begin, index_t end) {
    const index_t s0 = first_slice(a, begin), s1 = first_slice(a, end);
    std::copy(a.slice_ptr + s0, a.slice_ptr + s1, slice_ptr + s0);
    const index_t k0 = a.slice_ptr[s0], k1 = a.slice_ptr[s1];
    std::copy(layout.col_idx.begin() + k0, layout.col_idx.begin() + k1, col_idx + k0);
    std::copy(layout.source.begin() + k0, layout.source.begin() + k1, source + k0);
  });
}

void sell_values(int threads, SellView a, const index_t* source, const double* csr_values,
                 double* values) {
  for_chunk_parts(threads, a, [&](index_t begin, index_t end) {
    const index_t k0 = a.slice_ptr[first_slice(a, begin)];
    const index_t k1 = a.slice_ptr[first_slice(a, end)];
    for (index_t k = k0; k < k1; ++k) values[k] = source[k] >= 0 ? csr_values[source[k]] : 0.0;
  });
}

}  // namespace prism::kernels::host
