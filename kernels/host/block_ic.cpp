#include "kernels/block_ic.hpp"
#include "kernels/host/team.hpp"

#include <algorithm>
#include <cmath>

namespace prism::kernels::host {
namespace {

namespace ref = prism::kernels::reference;

/// Block rows (or operator blocks and entries) a thread takes at least: each is a few
/// dense products, so a level of fewer than twice this runs on the calling thread.
constexpr index_t kBlocksPerThread = 8;

/// Factor values a thread zeroes at least.
constexpr std::int64_t kValuesPerThread = 16 * kReductionChunk;

double entry(const double* a, const index_t* source, index_t k) {
  return a[source != nullptr ? source[k] : k];
}

void fill_zero(int threads, std::int64_t count, double* values) {
  const auto team =
      static_cast<int>(std::clamp<std::int64_t>(count / kValuesPerThread, 1, std::max(threads, 1)));
  detail::run_team(team, [&](int rank, int size) {
    std::fill(values + count * rank / size, values + count * (rank + 1) / size, 0.0);
  });
}

/// The smallest failed block of level_blocks[begin, end), every block factored (as the
/// reference does), or -1.
index_t factor_blocks(const BlockIcView& p, index_t begin, index_t end, double* values,
                      double* inverse) {
  index_t failed = -1;
  for (index_t k = begin; k < end; ++k) {
    const index_t block = p.level_blocks[k];
    if (!ref::block_ic_factor_row(p, block, values, inverse) && (failed < 0 || block < failed)) {
      failed = block;
    }
  }
  return failed;
}

index_t smallest_failed(const std::vector<index_t>& parts) {
  index_t failed = -1;
  for (index_t f : parts) {
    if (f >= 0 && (failed < 0 || f < failed)) failed = f;
  }
  return failed;
}

}  // namespace

index_t block_ic_scale(int threads, const BlockIcView& p, const double* a, const index_t* source,
                       double* scale) {
  return detail::first_index(threads, p.rows, [&](index_t begin, index_t end) {
    for (index_t i = begin; i < end; ++i) {
      const double d = entry(a, source, p.a_diagonal[i]);
      if (!(d > 0.0) || !std::isfinite(d)) return i;
      scale[i] = 1.0 / std::sqrt(d);
    }
    return index_t{-1};
  });
}

void block_ic_load(int threads, const BlockIcView& p, const double* a, const index_t* source,
                   const double* scale, double shift, std::int64_t value_count, double* values) {
  fill_zero(threads, value_count, values);
  // Each entry of A has its own place in the factor: the rows in parts.
  detail::for_parts(threads, p.rows, [&](index_t begin, index_t end) {
    for (index_t i = begin; i < end; ++i) {
      for (index_t k = p.a_row_ptr[i]; k < p.a_row_ptr[i + 1]; ++k) {
        if (p.scatter[k] < 0) continue;
        const index_t j = p.a_col[k];
        values[p.scatter[k]] = entry(a, source, k) * scale[i] * scale[j] + (i == j ? shift : 0.0);
      }
    }
  });
}

BlockIcStatus block_ic_factor(int threads, const BlockIcView& p,
                              const std::vector<index_t>& level_ptr, double* values,
                              double* inverse) {
  // Level by level: the block rows of a level read only earlier levels, so they run at
  // once; every block of a level is factored, then the smallest failure is the verdict.
  for (std::size_t l = 0; l + 1 < level_ptr.size(); ++l) {
    const index_t first = level_ptr[l], count = level_ptr[l + 1] - first;
    const index_t failed = smallest_failed(detail::scan_items<index_t>(
        threads, count, kBlocksPerThread, -1, [&](index_t begin, index_t end) {
          return factor_blocks(p, first + begin, first + end, values, inverse);
        }));
    if (failed >= 0) return {failed, false};
  }
  return {};
}

void block_ic_touch(int threads, const BlockIcView& p, const std::vector<index_t>& level_ptr,
                    double* values, double* inverse) {
  // Block row b's blocks are contiguous: its L_bJ in column order, then L_bb.
  const auto touch_row = [&](index_t b) {
    const std::int64_t size = p.block_ptr[b + 1] - p.block_ptr[b];
    const std::int64_t end = p.diagonal[b] + size * size;
    std::fill(values + (p.row_ptr[b] < p.row_ptr[b + 1] ? p.offset[p.row_ptr[b]] : p.diagonal[b]),
              values + end, 0.0);
    std::fill(inverse + p.inverse[b], inverse + p.inverse[b] + size * size, 0.0);
  };
  for (std::size_t l = 0; l + 1 < level_ptr.size(); ++l) {
    const index_t first = level_ptr[l];
    detail::for_items(threads, level_ptr[l + 1] - first, kBlocksPerThread,
                      [&](int, index_t begin, index_t end) {
                        for (index_t k = first + begin; k < first + end; ++k)
                          touch_row(p.level_blocks[k]);
                      });
  }
}

void block_ic_operators(int threads, const BlockIcView& p, const double* values,
                        const double* inverse, const double* scale, double* forward_diagonal,
                        double* forward, double* backward_diagonal, double* backward) {
  // Every block and every entry writes places of its own.
  detail::for_items(threads, p.blocks, kBlocksPerThread, [&](int, index_t begin, index_t end) {
    for (index_t b = begin; b < end; ++b) {
      ref::block_ic_block_operators(p, b, inverse, scale, forward_diagonal, forward,
                                    backward_diagonal, backward);
    }
  });
  detail::for_items(threads, p.entries, kBlocksPerThread, [&](int, index_t begin, index_t end) {
    for (index_t e = begin; e < end; ++e) {
      ref::block_ic_entry_operators(p, e, values, inverse, scale, forward, backward);
    }
  });
}

template <typename T>
void block_ic_forward(int threads, const BlockIcView& p, const std::vector<index_t>& level_ptr,
                      const double* values, const T* blocks, const double* scale, const double* r,
                      double* u) {
  for (std::size_t l = 0; l + 1 < level_ptr.size(); ++l) {
    const index_t first = level_ptr[l];
    detail::for_items(
        threads, level_ptr[l + 1] - first, kBlocksPerThread, [&](int, index_t begin, index_t end) {
          for (index_t k = first + begin; k < first + end; ++k) {
            ref::block_ic_forward_row(p, p.level_blocks[k], values, blocks, scale, r, u);
          }
        });
  }
}

template <typename T>
void block_ic_backward(int threads, const BlockIcView& p, const std::vector<index_t>& level_ptr,
                       const double* values, const T* blocks, const double* scale, const double* u,
                       double* w, double* z) {
  for (std::size_t l = level_ptr.size(); l-- > 1;) {
    const index_t first = level_ptr[l - 1];
    detail::for_items(
        threads, level_ptr[l] - first, kBlocksPerThread, [&](int, index_t begin, index_t end) {
          for (index_t k = first + begin; k < first + end; ++k) {
            ref::block_ic_backward_row(p, p.level_blocks[k], values, blocks, scale, u, w, z);
          }
        });
  }
}

#define PRISM_BLOCK_IC_SOLVE(T)                                                             \
  template void block_ic_forward<T>(int, const BlockIcView&, const std::vector<index_t>&,   \
                                    const double*, const T*, const double*, const double*,  \
                                    double*);                                               \
  template void block_ic_backward<T>(int, const BlockIcView&, const std::vector<index_t>&,  \
                                     const double*, const T*, const double*, const double*, \
                                     double*, double*);
PRISM_BLOCK_IC_SOLVE(double)
PRISM_BLOCK_IC_SOLVE(float)
#undef PRISM_BLOCK_IC_SOLVE

}  // namespace prism::kernels::host
