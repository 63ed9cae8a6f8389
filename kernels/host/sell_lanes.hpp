#pragma once
// The lane loop of the host SELL-8 kernels (kernels/host/sell.cpp: the SpMV,
// kernels/host/colorset.cpp: the color-set solve): a slice's rows summed at once, the
// lanes in SIMD registers, each row in the reference's order.

#include "kernels/sell.hpp"

#include <cstdint>
#include <cstring>

// A slice loop compiled for AVX-512 and AVX2 beside the baseline, picked at load time
// (GCC's function multiversioning), so that a portable build still runs the host's widest
// vectors.
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__) && defined(__linux__)
#define PRISM_SIMD_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define PRISM_SIMD_CLONES
#endif

namespace prism::kernels::host::detail {

inline constexpr index_t kLanes = kHostSellSlice;

/// v, or +0 where !keep: a bit mask, so that the lane loop has no branch to vectorize
/// and a padding entry adds +0 whatever x holds.
inline double keep_if(bool keep, double v) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  bits &= ~static_cast<std::uint64_t>(0) * static_cast<std::uint64_t>(keep);
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

/// sum[l] += lane l's entries of the slice stored at [begin, end), in order. A padding
/// entry (column -1) reads x[0] and adds +0, which leaves a sum started at +0 as it was
/// (such a sum is never -0), so each lane's sum has the bits of its row's CSR sum. The
/// lane loop is the vectorized one (contiguous values and columns, a gather of x);
/// unroll 1 keeps it a loop, which GCC would otherwise unroll into scalar code.
inline void add_slice(index_t begin, index_t end, const index_t* col_idx, const double* values,
                      const double* x, double* sum) {
  for (index_t k = begin; k < end; k += kLanes) {
    const index_t* col = col_idx + k;
    const double* val = values + k;
#pragma GCC unroll 1
    for (index_t l = 0; l < kLanes; ++l) {
      const index_t c = col[l];
      sum[l] += keep_if(c >= 0, val[l] * x[c < 0 ? 0 : c]);
    }
  }
}

}  // namespace prism::kernels::host::detail
