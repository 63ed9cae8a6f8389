#pragma once
// The register kernels' helpers. In those kernels every row of the matrix (or of the
// panel) stays in one thread's registers for the whole factorization; only the row or
// column a step broadcasts goes through shared memory (16-byte vector stores by its owner,
// broadcast vector loads by all), double-buffered so that one barrier per column suffices:
// the buffer written at step c + 2 was last read before every thread passed the barrier of
// step c + 1.
//
// Internal to kernels/cuda/batched_factor/ (getrf_registers.cu, potrf_registers.cu).

#include "kernels/cuda/batched_factor/common.cuh"

#include <cuda_runtime.h>

namespace prism::kernels::cuda::batched_factor {

// 16-byte vectors of T for the shared-memory broadcasts.
template <typename T>
struct Vec16;
template <>
struct Vec16<double> {
  using type = double2;
  static constexpr int size = 2;
  __device__ static type make(const double* r) { return make_double2(r[0], r[1]); }
  __device__ static double at(const type& v, int q) { return q == 0 ? v.x : v.y; }
};
template <>
struct Vec16<float> {
  using type = float4;
  static constexpr int size = 4;
  __device__ static type make(const float* r) { return make_float4(r[0], r[1], r[2], r[3]); }
  __device__ static float at(const type& v, int q) {
    return q == 0 ? v.x : (q == 1 ? v.y : (q == 2 ? v.z : v.w));
  }
};

// s[k] = r[k] for k >= first (a few entries before `first` too: whole vectors). `first` is
// a constant after unrolling, so every test here folds away and r stays in registers.
template <typename T, int N>
__device__ __forceinline__ void store_row_tail(T* s, const T (&r)[N], int first) {
  using V = Vec16<T>;
  static_assert(N % V::size == 0, "row length must be a multiple of the vector width");
#pragma unroll
  for (int k = 0; k < N; k += V::size) {
    if (k + V::size > first) *reinterpret_cast<typename V::type*>(s + k) = V::make(r + k);
  }
}

// r[k] -= m * u[k] for first <= k < N, restricted to kBegin <= k < kEnd (whole vectors; both
// multiples of the vector width); u in shared memory, the same for all threads.
// (A runtime, warp-uniform test per vector to skip those past a warp's last row would cost
// more than the work it skips.)
template <int kBegin, int kEnd, typename T, int N>
__device__ __forceinline__ void axpy_row_range(T (&r)[N], T m, const T* u, int first) {
  using V = Vec16<T>;
  static_assert(kBegin % V::size == 0 && kEnd % V::size == 0 && kEnd <= N, "vector range");
#pragma unroll
  for (int k = kBegin; k < kEnd; k += V::size) {
    if (k + V::size > first) {
      const typename V::type v = *reinterpret_cast<const typename V::type*>(u + k);
#pragma unroll
      for (int q = 0; q < V::size; ++q) {
        if (k + q >= first) r[k + q] -= m * V::at(v, q);
      }
    }
  }
}

template <typename T, int N>
__device__ __forceinline__ void axpy_row_tail(T (&r)[N], T m, const T* u, int first) {
  axpy_row_range<0, N>(r, m, u, first);
}

// Reduces (key, position) pairs over groups of `width` lanes (a power of two <= 32):
// larger key wins, ties go to the smaller position (idamax); every lane of a group gets
// the result. (A max reduction of the keys followed by a min of the positions holding it
// issues fewer instructions, but as two dependent chains it takes longer.)
template <typename T>
__device__ __forceinline__ void group_argmax(T& key, int& pos, int width) {
  for (int off = width / 2; off > 0; off /= 2) {
    const T ok = __shfl_xor_sync(0xffffffffu, key, off, width);
    const int op = __shfl_xor_sync(0xffffffffu, pos, off, width);
    argmax_merge(key, pos, ok, op);
  }
}

// Pivot search by the warp's integer reductions (redux.sync): the candidate's |x| as an
// unsigned key whose order is the order of the values (IEEE bits of a non-negative number),
// compared a 32-bit word at a time. PivotBits<T>::hi is the word that decides almost always
// (+1, so that 0 marks a lane without a candidate); `lo` (double only) breaks ties of `hi`.
// NaN counts as 0, as pivot_key does: a NaN is still a candidate, so a segment with a
// candidate row always has a winner (otherwise a column of NaNs would have none, and the
// step would read a stale pivot position).
template <typename T>
struct PivotBits;
template <>
struct PivotBits<double> {
  static constexpr bool kTwoWords = true;
  unsigned hi, lo;
  __device__ PivotBits(double x, bool candidate) {
    const auto bits = static_cast<unsigned long long>(__double_as_longlong(x));
    const bool number = x == x;
    hi = candidate ? (number ? (static_cast<unsigned>(bits >> 32) & 0x7fffffffu) + 1u : 1u) : 0u;
    lo = candidate && number ? static_cast<unsigned>(bits) : 0u;
  }
};
template <>
struct PivotBits<float> {
  static constexpr bool kTwoWords = false;
  unsigned hi, lo;
  __device__ PivotBits(float x, bool candidate) {
    hi = candidate ? (x == x ? (__float_as_uint(x) & 0x7fffffffu) + 1u : 1u) : 0u;
    lo = 0;
  }
};

// Max of v over each kLanes-lane segment of the warp (every lane gets its segment's): one
// redux.sync per segment, over the whole warp with the other segments' values zeroed.
template <int kLanes>
__device__ __forceinline__ unsigned segment_max(unsigned v) {
  constexpr int kSegments = 32 / kLanes;
  if constexpr (kSegments == 1) {
    return __reduce_max_sync(0xffffffffu, v);
  } else {
    const int mine = static_cast<int>(threadIdx.x % 32) / kLanes;
    unsigned out = 0;
#pragma unroll
    for (int s = 0; s < kSegments; ++s) {
      const unsigned m = __reduce_max_sync(0xffffffffu, mine == s ? v : 0u);
      out = mine == s ? m : out;
    }
    return out;
  }
}

// idamax over each kLanes-lane segment of the warp, exactly: the largest key wins, ties go
// to the smallest pos. Returns the winner's bit in the warp's lane mask, in every lane of
// the segment (0 where the segment has no candidate). The high word decides unless two
// lanes share it; the rare ties take one or two more reductions (warp-uniform branches).
// It beats group_argmax's shuffles on 16- and 32-lane segments. 8-lane segments (four
// reductions per warp) keep the shuffles, and so does the 64-thread rows kernel (two
// stages, one per warp and one over the warps' candidates): there the extra reductions
// cost more than they save.
template <typename T, int kLanes>
__device__ __forceinline__ unsigned segment_argmax(const PivotBits<T>& key, int pos) {
  const unsigned lane = threadIdx.x % 32;
  const unsigned segment =
      kLanes == 32 ? 0xffffffffu : ((1u << (kLanes % 32)) - 1u) << (lane / kLanes * kLanes);
  // (Every reduction is called by all lanes: never on the right of && or ?:.)
  // Whether some segment still has two winners: with one segment the ballot's mask, the
  // same in every lane, says so without a vote.
  const auto tie = [&](unsigned w) {
    if constexpr (kLanes == 32) {
      return (w & (w - 1u)) != 0u;
    } else {
      return __any_sync(0xffffffffu, __popc(w & segment) > 1);
    }
  };
  const unsigned max_hi = segment_max<kLanes>(key.hi);
  unsigned winners = __ballot_sync(0xffffffffu, key.hi != 0 && key.hi == max_hi);
  if (tie(winners)) {
    bool in = (winners >> lane) & 1u;
    if constexpr (PivotBits<T>::kTwoWords) {
      const unsigned lo = in ? key.lo : 0u;
      const unsigned max_lo = segment_max<kLanes>(lo);
      winners &= __ballot_sync(0xffffffffu, in && lo == max_lo);
      in = (winners >> lane) & 1u;
    }
    if (tie(winners)) {
      const unsigned not_pos = in ? ~static_cast<unsigned>(pos) : 0u;  // min pos = max ~pos
      const unsigned max_not_pos = segment_max<kLanes>(not_pos);
      winners &= __ballot_sync(0xffffffffu, in && not_pos == max_not_pos);
    }
  }
  return winners & segment;
}

}  // namespace prism::kernels::cuda::batched_factor
