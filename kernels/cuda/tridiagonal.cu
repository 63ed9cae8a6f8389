// Batched tridiagonal solves near the memory bandwidth: a one-pass solver for systems that
// fit a thread block or a cluster of up to 16 blocks (every row of a system in some thread's
// registers), and a two-pass partition method with a recursively solved reduced system for
// longer ones. See kernels/cuda/tridiagonal.hpp.
//
// Memory traffic per row of every system (T = element type):
//   one pass:  reads a, b, c, d once and writes x once: 5 sizeof(T), the floor.
//   two pass:  pass 1 reads a, b, c, d; pass 2 reads them again and writes x: 9 sizeof(T),
//              plus the reduced system (2 rows per kReduceRows rows, solved recursively).
//
// The partition method inside a block (Laszlo, Giles and Appleyard, "Manycore algorithms
// for batch scalar and block tridiagonal solvers", ACM TOMS 42(4), 2016) replaces the
// in-shared PCR steps of Kim et al. (ICPP 2011): one PCR step over every row costs about
// one more memory pass in shared-memory traffic, the partition method's elimination runs
// in registers. Thread q of a unit owns rows lo..hi of it (chunk of n rows) and reduces
// them, with x_lo and x_hi kept as unknowns, to
//   top:    x_lo + a^ x_{lo-1} + c^ x_hi     = d^    (bottom-up elimination)
//   bottom: x_hi + a~ x_lo     + c~ x_{hi+1} = d~    (top-down elimination)
// and every interior row to x_j = d''_j - a''_j x_lo - c''_j x_hi. The 2 p equations of a
// unit form a tridiagonal system in (x_lo, x_hi) of all its chunks; one cyclic-reduction
// step leaves one equation per thread in w_q = x_hi(q), solved by PCR (warp shuffles when
// the unit's threads are one warp segment, else shared memory). Pass 1 merges the p chunks'
// equations instead into the two of the whole unit.
//
// Every kernel is a programmatic dependent launch (dependent_launch.cuh): it may be scheduled
// while the kernel ahead of it on the stream drains, waits for it before it reads anything,
// and lets the next one be scheduled at once. The two-pass path's launches (pass 1, the
// reduced systems' solves, pass 2) then overlap their starts with the ends before them.
//
// Every thread loads its chunk straight from global memory into registers and stores x
// straight back, with all its loads issued before the first is used. The previous version
// staged whole tiles through shared memory with cp.async: its per-element index arithmetic
// and shared-memory round trips made it issue-bound at 42-54 % of the copy bandwidth.

#include "kernels/cuda/tridiagonal.hpp"

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/dependent_launch.cuh"

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <string>
#include <type_traits>

#include <prism/errors.hpp>

namespace prism::kernels::cuda {
namespace {

// Rows per thread of both kernels, kept in registers (4 L values per thread): with 8
// doubles or 16 floats a thread needs about 115 or 106 registers (sm_90), so four 128-thread
// blocks, 16 warps, stay resident per SM (4 per scheduler). Shorter chunks free registers
// for more warps but lengthen the reduced systems: with L = 4 in double every shape of the
// benchmark got slower on an H200 (N = 64: 57.8 -> 79.6 us; N = 2^22: 127 -> 151 us).
template <typename T>
constexpr int kChunkRows = sizeof(T) == 8 ? 8 : 16;
// Rows per thread of the partition pass (pass 1) and per unit of pass 2 (4 threads of
// kChunkRows each): the reduced system has 2 rows per kReduceRows rows, 1/16 of the data
// in double, and the pass-1 dependency chain (kReduceRows steps) stays short.
template <typename T>
constexpr int kReduceRows = 4 * kChunkRows<T>;
// Threads per block. A thread loads, computes, then stores, so an SM needs several resident
// blocks for the loads of some to overlap the compute of others: both kernels aim at 128
// threads (about 15 K registers in double, 4 blocks and 16 warps per SM). A system of p
// chunks needs p threads of one block; one_pass_threads() caps them (at most kMaxThreads).
constexpr int kTargetThreads = 128;
constexpr int kMaxThreads = 512;
// The one-pass solve of interleaved data aims at 256 threads: twice the neighbouring
// systems per block, so a warp's load of one row spans twice the bytes in half the
// segments. H100, same run, 128 -> 256 threads: N = 64 63.8 -> 61.7 us, N = 256 76.7 ->
// 70.9 (512: 66.4 and 70.3); pass 1 and 2 of the two-pass path (4 threads a unit, already
// 32 systems a block) got 3 - 7 % slower with 256, so they keep 128.
constexpr int kInterleavedOnePassThreads = 256;
// Blocks of cluster_solve_kernel: kClusterThreads (four blocks per SM, as the single-block
// solves) in clusters of up to kPortableClusterBlocks; a system longer than those hold takes
// blocks of kWideClusterThreads in clusters of up to kMaxClusterBlocks (16 is beyond the
// portable size: only where the device runs it). The wide blocks span twice the rows with the
// same blocks, whose count the barrier and the interface sweep grow with. H100, double, same
// run (us), 128-thread blocks / 256-thread blocks / two passes: contiguous N = 4096 80.4
// (C = 4) / 86.7 (2) / -, 8192 85.2 (8) / 93.1 (4) / -, 16384 98.0 (16) / 100.5 (8) / 116.6,
// 32768 - / 114.3 (16) / 117.2; interleaved N = 1024 88.3 (4) / 95.5 (2) / -, 2048 93.9
// (8) / 97.5 - 99.5 (4) / -, 4096 109.7 (16) / 103.2 (8) / 116.0, 8192 - / 116.3 (16) / 117.9.
constexpr int kClusterThreads = kTargetThreads;
constexpr int kWideClusterThreads = 2 * kTargetThreads;
constexpr int kPortableClusterBlocks = 8;
constexpr int kMaxClusterBlocks = 16;

// i / d for 0 <= i, d < 2^16 as one multiply (thread index / threads per unit): with mul =
// ceil(2^40 / d) the error of i mul / 2^40 is below 2^-24, less than the distance 1/d from i/d to
// the next integer.
struct SmallDiv {
  std::uint64_t mul = 0;
  SmallDiv() = default;
  explicit SmallDiv(int d)
      : mul(((std::uint64_t{1} << 40) + static_cast<std::uint64_t>(d) - 1) /
            static_cast<std::uint64_t>(d)) {}
  __device__ int operator()(int i) const {
    return static_cast<int>((static_cast<std::uint64_t>(i) * mul) >> 40);
  }
};

// What a launch of either kernel works on. Element (s, i) lives at s sys_stride + i row_stride.
// Systems are cut into units of unit_rows rows (the last one shorter); a block takes
// G = 2^glog units, p threads each (chunk_thread: which thread holds which chunk). With
// clog > 0 (cluster_solve_kernel) a cluster of 2^clog blocks takes G units, each block p
// threads of each: chunk q of a unit is in block rank q / p.
struct LaunchArgs {
  std::int64_t n;  // rows per system
  std::int64_t m;  // systems
  std::int64_t sys_stride;
  std::int64_t row_stride;
  std::int64_t unit_rows;
  std::int64_t units_per_sys;  // ceil(n / unit_rows)
  std::int64_t units_total;    // m * units_per_sys
  int glog;                    // log2 of the units per block
  int p;                       // threads per full unit (per block of a cluster)
  int clog;                    // log2 of the blocks per cluster (0: no cluster)
  bool row_fastest;            // row_stride == 1 (contiguous data)
  bool vector_rows;            // row_fastest and every array 16-byte aligned
  bool reverse_blocks;         // block i takes the units of block gridDim.x - 1 - i
  SmallDiv div_p;              // / p
};

// Per-unit facts, computed once per block (64-bit divisions) and kept in shared memory.
template <typename T>
struct Unit {
  std::int64_t base;  // offset of the unit's first row
  std::int64_t out;   // pass 1: the unit's first reduced row (s * 2 units_per_sys + 2 k)
  int len;            // rows
  int pu;             // threads that work on it (0: no unit)
  int cbase;          // chunk q: cbase + (q < crem) rows from q cbase + min(q, crem)
  int crem;
  int first;  // the unit starts its system (a of its first row is ignored)
  int last;   // the unit ends its system (c of its last row is ignored)
  T xl;       // pass 2: x just before the unit (0 at a system start)
  T xr;       // pass 2: x just after it
};

__host__ __device__ constexpr std::size_t units_bytes(int g, std::size_t unit_size) {
  return (static_cast<std::size_t>(g) * unit_size + 15) / 16 * 16;
}

// Unit u in system-major order for row_fastest (contiguous) data, else system-fastest
// (interleaved data: the G units of a block are G neighbouring systems, coalesced).
// z: reduced solution of pass 1 (pass 2 only), system s at s * 2 units_per_sys.
template <typename T>
__device__ Unit<T> make_unit(const LaunchArgs& p, std::int64_t u, int rows_per_thread, const T* z) {
  Unit<T> un{};
  if (u >= p.units_total) return un;
  std::int64_t s, k;
  if (p.row_fastest) {
    s = u / p.units_per_sys;
    k = u - s * p.units_per_sys;
  } else {
    k = u / p.m;
    s = u - k * p.m;
  }
  const std::int64_t lo = k * p.unit_rows;
  un.len = static_cast<int>(min(p.unit_rows, p.n - lo));
  un.base = s * p.sys_stride + lo * p.row_stride;
  un.out = s * 2 * p.units_per_sys + 2 * k;
  un.pu = un.len <= rows_per_thread ? 1 : (un.len + rows_per_thread - 1) / rows_per_thread;
  un.cbase = un.len / un.pu;
  un.crem = un.len - un.cbase * un.pu;
  un.first = k == 0;
  un.last = k == p.units_per_sys - 1;
  if (z != nullptr) {
    const std::int64_t zs = s * 2 * p.units_per_sys;
    un.xl = un.first ? T(0) : z[zs + 2 * k - 1];
    un.xr = un.last ? T(0) : z[zs + 2 * k + 2];
  }
  return un;
}

// A thread's chunk of L rows as whole 16-byte vectors (double2 / float4): used when the
// chunk is full, its rows are contiguous and its first row is 16-byte aligned.
template <int L>
__device__ void load_vectors(const double* src, double (&r)[L]) {
#pragma unroll
  for (int k = 0; k < L / 2; ++k) {
    const double2 v = reinterpret_cast<const double2*>(src)[k];
    r[2 * k] = v.x;
    r[2 * k + 1] = v.y;
  }
}
template <int L>
__device__ void load_vectors(const float* src, float (&r)[L]) {
#pragma unroll
  for (int k = 0; k < L / 4; ++k) {
    const float4 v = reinterpret_cast<const float4*>(src)[k];
    r[4 * k] = v.x;
    r[4 * k + 1] = v.y;
    r[4 * k + 2] = v.z;
    r[4 * k + 3] = v.w;
  }
}
template <int L>
__device__ void store_vectors(double* dst, const double (&r)[L]) {
#pragma unroll
  for (int k = 0; k < L / 2; ++k) {
    reinterpret_cast<double2*>(dst)[k] = make_double2(r[2 * k], r[2 * k + 1]);
  }
}
template <int L>
__device__ void store_vectors(float* dst, const float (&r)[L]) {
#pragma unroll
  for (int k = 0; k < L / 4; ++k) {
    reinterpret_cast<float4*>(dst)[k] =
        make_float4(r[4 * k], r[4 * k + 1], r[4 * k + 2], r[4 * k + 3]);
  }
}

// A thread's place in its block: chunk q of unit g, a unit's threads qs apart. Contiguous
// data: a unit's threads are adjacent (tid = g p + q); interleaved data: they are G apart
// (tid = q G + g), so consecutive threads hold neighbouring systems.
template <typename T>
struct ChunkThread {
  Unit<T> un;
  int q;   // chunk of the unit
  int ql;  // chunk within this block's share of the unit (q without clusters)
  int qs;
  int cl;            // rows of the chunk (0: idle thread)
  std::int64_t at0;  // offset of the chunk's first row
  bool vec;          // whole 16-byte vectors
};

// Unit facts into shared memory (by the first G threads), then the calling thread's chunk.
template <typename T, int L>
__device__ ChunkThread<T> chunk_thread(const LaunchArgs& p, Unit<T>* units, const T* z) {
  const int g_count = 1 << p.glog;
  const int tid = threadIdx.x;
  if (tid < g_count) {
    const std::int64_t block = p.reverse_blocks ? gridDim.x - 1 - blockIdx.x : blockIdx.x;
    units[tid] = make_unit<T>(p, (block >> p.clog) * g_count + tid, L, z);
  }
  __syncthreads();
  ChunkThread<T> t;
  int g;
  if (p.row_fastest) {
    g = p.div_p(tid);
    t.ql = tid - g * p.p;
    t.qs = 1;
  } else {
    g = tid & (g_count - 1);
    t.ql = tid >> p.glog;
    t.qs = g_count;
  }
  t.q = static_cast<int>(blockIdx.x & ((1u << p.clog) - 1u)) * p.p + t.ql;
  t.un = units[g];
  t.cl = t.q < t.un.pu ? t.un.cbase + (t.q < t.un.crem) : 0;
  t.at0 =
      t.un.base + static_cast<std::int64_t>(t.q * t.un.cbase + min(t.q, t.un.crem)) * p.row_stride;
  constexpr int kVec = 16 / static_cast<int>(sizeof(T));
  t.vec = p.vector_rows && t.cl == L && t.at0 % kVec == 0;
  return t;
}

// Loads the chunk into registers; rows past it become the identity x_j = 0. At a system's
// ends the ignored a[0] and c[N-1] become 0. The couplings out of a unit inside a system:
// with Keep (pass 1) they stay, as the unit's boundary equations keep x_{lo-1} and x_{hi+1}
// as unknowns; otherwise their known values (xl, xr: pass 2) move to the right-hand side.
// kFull: every chunk has L rows or none (the thread is idle), so no row is past the chunk;
// the registers of an idle thread are then left as they are (never used).
template <typename T, int L, bool Keep, bool kFull = false>
__device__ void load_chunk(const LaunchArgs& p, const ChunkThread<T>& t, const T* a, const T* b,
                           const T* c, const T* d, T (&ra)[L], T (&rb)[L], T (&rc)[L], T (&rd)[L]) {
  // All 4 L loads are issued before any is used: no branch between them (rows past the
  // chunk reload its last row and are masked below).
  if (t.vec) {
    load_vectors<L>(a + t.at0, ra);
    load_vectors<L>(b + t.at0, rb);
    load_vectors<L>(c + t.at0, rc);
    load_vectors<L>(d + t.at0, rd);
  } else if (t.cl > 0) {
#pragma unroll
    for (int j = 0; j < L; ++j) {
      const std::int64_t at =
          t.at0 + static_cast<std::int64_t>(kFull ? j : min(j, t.cl - 1)) * p.row_stride;
      ra[j] = a[at];
      rb[j] = b[at];
      rc[j] = c[at];
      rd[j] = d[at];
    }
  }
  // Selects only: a conditional store to row cl - 1 of a register array would become a
  // runtime index (local memory).
  const bool starts_unit = t.cl > 0 && t.q == 0 && (!Keep || t.un.first);
  const bool ends_unit = t.cl > 0 && t.q == t.un.pu - 1 && (!Keep || t.un.last);
#pragma unroll
  for (int j = 0; j < L; ++j) {
    const bool in = kFull || j < t.cl;
    const bool first = starts_unit && j == 0;
    const bool last = ends_unit && j == (kFull ? L : t.cl) - 1;
    T dj = rd[j];
    if (!Keep) {
      if (j == 0 && !t.un.first) dj = first ? dj - ra[0] * t.un.xl : dj;
      dj = last && !t.un.last ? dj - rc[j] * t.un.xr : dj;
    }
    rd[j] = in ? dj : T(0);
    ra[j] = in && !first ? ra[j] : T(0);
    rb[j] = in ? rb[j] : T(1);
    rc[j] = in && !last ? rc[j] : T(0);
  }
}

// The boundary equations of a chunk of cl >= 1 rows with x_lo and x_hi kept as unknowns
// (file comment): top: x_lo + A x_{lo-1} + C x_hi = D, bottom: x_hi + a x_lo + c x_{hi+1} = d.
template <typename T>
struct Boundary {
  T ta = 0, tc = 0, td = 0;
  T ba = 0, bc = 0, bd = 0;
};

// Partition elimination of the chunk in registers: returns its boundary equations and
// leaves every interior row as x_j = rd_j - ra_j x_lo - rc_j x_hi. Needs cl >= 2 except
// for a one-row chunk, whose top equation is the row and bottom one x_hi = x_lo.
template <typename T, int L>
__device__ Boundary<T> partition_chunk(int cl, T (&ra)[L], const T (&rb)[L], T (&rc)[L],
                                       T (&rd)[L]) {
  Boundary<T> e;
  if (cl == 1) {
    const T r = T(1) / rb[0];
    e.ta = ra[0] * r;
    e.tc = rc[0] * r;  // 0 when the row ends its unit (its c moved or dropped)
    e.td = rd[0] * r;
    e.ba = -1;
    return e;
  }
  // Top-down with x_lo kept (rows 1..n-1): x_j + c'_j x_{j+1} + a'_j x_lo = d'_j,
  //   r = 1 / (b_j - a_j c'_{j-1}), c'_j = c_j r, a'_j = -a_j a'_{j-1} r,
  //   d'_j = (d_j - a_j d'_{j-1}) r   (row 1: r = 1 / b_1, a'_1 = a_1 r).
#pragma unroll
  for (int j = 1; j < L; ++j) {
    if (j == 1) {
      const T r = T(1) / rb[1];
      rd[1] *= r;
      ra[1] *= r;
      rc[1] *= r;
    } else if (j < cl) {
      const T r = T(1) / (rb[j] - ra[j] * rc[j - 1]);
      rd[j] = (rd[j] - ra[j] * rd[j - 1]) * r;
      ra[j] = -ra[j] * ra[j - 1] * r;
      rc[j] *= r;
    }
    if (j < cl) {  // the last row's values stay: the bottom equation
      e.ba = ra[j];
      e.bc = rc[j];
      e.bd = rd[j];
    }
  }
  // Bottom-up with x_hi kept (rows n-3..1): x_j = d''_j - a''_j x_lo - c''_j x_hi,
  //   d''_j = d'_j - c'_j d''_{j+1}, a''_j = a'_j - c'_j a''_{j+1}, c''_j = -c'_j c''_{j+1}.
#pragma unroll
  for (int j = L - 3; j >= 1; --j) {
    if (j <= cl - 3) {
      rd[j] -= rc[j] * rd[j + 1];
      ra[j] -= rc[j] * ra[j + 1];
      rc[j] = -rc[j] * rc[j + 1];
    }
  }
  // Row lo with x_{lo+1} substituted (for n = 2, x_{lo+1} is x_hi itself).
  T a1 = 0, c1 = -1, d1 = 0;
  if (cl >= 3) {
    a1 = ra[1];
    c1 = rc[1];
    d1 = rd[1];
  }
  const T r0 = T(1) / (rb[0] - rc[0] * a1);
  e.ta = ra[0] * r0;
  e.tc = -rc[0] * c1 * r0;
  e.td = (rd[0] - rc[0] * d1) * r0;
  return e;
}

// The boundary equations of two adjacent row ranges S1 = [L1, R1] and S2 = [L2 = R1 + 1, R2]
// merged into those of [L1, R2]: the interface unknowns x_R1 and x_L2 are eliminated from
// S1's bottom and S2's top equation (den = 1 - A2 c1),
//   x_R1 = (d1 - c1 D2 - a1 x_L1 + c1 C2 x_R2) / den,
//   x_L2 = (D2 - A2 d1 + A2 a1 x_L1 - C2 x_R2) / den,
// and substituted into S1's top and S2's bottom equation, each renormalized to a unit
// coefficient on its own unknown (block cyclic reduction of the two ranges).
template <typename T>
__device__ Boundary<T> merge_boundaries(const Boundary<T>& s1, const Boundary<T>& s2) {
  const T rden = T(1) / (T(1) - s2.ta * s1.bc);
  const T ur = (s1.bd - s1.bc * s2.td) * rden;  // x_R1 = ur - ar x_L1 + cr x_R2
  const T ar = s1.ba * rden;
  const T cr = s1.bc * s2.tc * rden;
  const T ul = (s2.td - s2.ta * s1.bd) * rden;  // x_L2 = ul + al x_L1 - cl x_R2
  const T al = s2.ta * s1.ba * rden;
  const T cl = s2.tc * rden;
  Boundary<T> e;
  const T rs = T(1) / (T(1) - s1.tc * ar);
  e.ta = s1.ta * rs;
  e.tc = s1.tc * cr * rs;
  e.td = (s1.td - s1.tc * ur) * rs;
  const T rt = T(1) / (T(1) - s2.ba * cl);
  e.ba = s2.ba * al * rt;
  e.bc = s2.bc * rt;
  e.bd = (s2.bd - s2.ba * ul) * rt;
  return e;
}

// The reduced-system equation of a chunk (one per thread, unknown w_q = x_hi(q)), scaled
// to a unit diagonal: x_lo(q) from its own top equation and x_lo(q+1) from the next chunk's
// (na, nc, nd; zero for the unit's last chunk) substituted into its bottom equation
// (solve_kernel comment), then divided by B.
template <typename T>
__device__ void reduced_equation(const Boundary<T>& e, T na, T nc, T nd, T& a, T& c, T& d) {
  const T r = T(1) / (T(1) - e.ba * e.tc - e.bc * na);
  a = -e.ba * e.ta * r;
  c = -e.bc * nc * r;
  d = (e.bd - e.ba * e.td - e.bc * nd) * r;
}

// The PCR step of pcr_step (below) with two more right-hand sides f and g, eliminated
// alongside d (cluster_solve_kernel).
template <typename T>
__device__ void pcr_step3(T& a, T& c, T& d, T& f, T& g, T am, T cm, T dm, T fm, T gm, T ap, T cp,
                          T dp, T fp, T gp) {
  const T r = T(1) / (T(1) - cm * a - ap * c);
  const T na = -am * a * r;
  const T nc = -cp * c * r;
  d = (d - dm * a - dp * c) * r;
  f = (f - fm * a - fp * c) * r;
  g = (g - gm * a - gp * c) * r;
  a = na;
  c = nc;
}

// One PCR step of equation (a, 1, c, d) with its neighbours at distance h, (am, 1, cm, dm)
// before and (ap, 1, cp, dp) after it (the null equation 0, 1, 0, 0 outside the unit), all
// scaled to a unit diagonal: with k1 = a and k2 = c the eliminated equation is
//   (-am a) x_{q-2h} + (1 - cm a - ap c) x_q + (-cp c) x_{q+2h} = d - dm a - dp c,
// scaled back to a unit diagonal by one reciprocal. Against the unscaled step (k1 = a / bm,
// k2 = c / bp: two divisions, and b exchanged too) on an H100: contiguous N = 1024, one
// pass, 73.2 -> 62.5 us; N = 256 68.1 -> 61.3; the two-pass shapes 3 - 4 % faster.
template <typename T>
__device__ void pcr_step(T& a, T& c, T& d, T am, T cm, T dm, T ap, T cp, T dp) {
  T f = 0, g = 0;  // unused: the compiler drops their arithmetic
  pcr_step3(a, c, d, f, g, am, cm, dm, T(0), T(0), ap, cp, dp, T(0), T(0));
}

// Shared memory of either kernel: the units, then per thread the reduced-system planes of
// solve_kernel (4 values) or the chunk equations of reduce_kernel (6 values).
template <typename T>
std::size_t kernel_shared_bytes(int units, int threads) {
  return units_bytes(units, sizeof(Unit<T>)) +
         static_cast<std::size_t>(threads) * sizeof(Boundary<T>);
}

// Interior rows of a partitioned chunk from its reduced solution: x_hi = w, x_lo from the
// top equation with wm = x_hi of the chunk before, x_j = d''_j - a''_j x_lo - c''_j x_hi.
template <typename T, int L>
__device__ void back_substitute(const Boundary<T>& e, int cl, T w, T wm, const T (&ra)[L],
                                const T (&rc)[L], T (&rd)[L]) {
  const T xlo = e.td - e.ta * wm - e.tc * w;
#pragma unroll
  for (int j = 0; j < L; ++j) {
    rd[j] = j == 0 ? xlo : (j == cl - 1 ? w : rd[j] - ra[j] * xlo - rc[j] * w);
  }
}

// Stores the chunk's x (rd) as it was loaded: 16-byte vectors or element by element.
template <typename T, int L, bool kFull = false>
__device__ void store_chunk(const LaunchArgs& p, const ChunkThread<T>& t, const T (&rd)[L], T* x) {
  if (t.vec) {
    store_vectors<L>(x + t.at0, rd);
  } else if (kFull) {
    if (t.cl > 0) {
#pragma unroll
      for (int j = 0; j < L; ++j) x[t.at0 + j * p.row_stride] = rd[j];
    }
  } else {
#pragma unroll
    for (int j = 0; j < L; ++j) {
      if (j < t.cl) x[t.at0 + j * p.row_stride] = rd[j];
    }
  }
}

// The interface system of a unit spread over the C blocks of a cluster (cluster_solve_kernel),
// solved by C adjacent lanes of a warp (C = width, a power of two; every lane of the warp
// takes part in the shuffles). Each block r has reduced every w of its range to
// w = D + F u_r + G v_r, with u_r the last w of block r - 1 and v_r the first row of block
// r + 1. Lane r passes block r's first and last w's expressions, ends = (Df, Ff, Gf, Dl, Fl,
// Gl), and block r + 1's first top equation x_lo + ta' x_{lo-1} + tc' x_hi = td' (zero for
// the last block), and gets l = l_r (block r's last w, u_{r+1}) and v = v_r:
//   f_r = Df + Ff l_{r-1} + Gf v_r,  l_r = Dl + Fl l_{r-1} + Gl v_r,
//   v_r = td' - ta' l_r - tc' f_{r+1}.
// v_r eliminated: l_r = Dl* + Fl* l_{r-1} + Gl* f_{r+1}, f_r = Df* + Ff* l_{r-1} + Gf* f_{r+1}.
// Forward, with l_{r-1} = al_{r-1} + be_{r-1} f_r (al_{-1} = be_{-1} = 0): f_r = ph_r +
// ps_r f_{r+1} and l_r = al_r + be_r f_{r+1}. With al_r = An_r / E_r, be_r = Bn_r / E_r the
// state s_r = (An_r, Bn_r, E_r) is linear in s_{r-1} (s_{-1} = (0, 0, 1)):
//   s_r = M_r s_{r-1},
//   M_r = [Fl*, Fl* Df* - Dl* Ff*, Dl*;  0, Fl* Gf* - Gl* Ff*, Gl*;  0, -Ff*, 1],
// so every s_r is a prefix product, formed by a scan over the lanes. Then
//   ph_r = (Df* E_{r-1} + Ff* An_{r-1}) / E_r,  ps_r = Gf* E_{r-1} / E_r,
// and f_r, from f_C = 0, is a suffix scan of the affine maps f -> ph_r + ps_r f.
template <typename T>
__device__ void interface_sweep(int r, int width, const T (&ends)[6], T ta, T tc, T td, T& l,
                                T& v) {
  const T df0 = ends[0], ff0 = ends[1], gf0 = ends[2], dl0 = ends[3], fl0 = ends[4], gl0 = ends[5];
  const T kl = T(1) / (T(1) + gl0 * ta);
  const T dl = (dl0 + gl0 * td) * kl;
  const T fl = fl0 * kl;
  const T gl = -gl0 * tc * kl;
  const T df = df0 + gf0 * (td - ta * dl);
  const T ff = ff0 - gf0 * ta * fl;
  const T gf = -gf0 * (ta * gl + tc);
  // Inclusive scan of P_r = M_r ... M_0 (rows 1 and 2 of every product keep a zero first
  // column: seven entries); s_r is its last column.
  T m00 = fl, m01 = fl * df - dl * ff, m02 = dl, m11 = fl * gf - gl * ff, m12 = gl, m21 = -ff,
    m22 = 1;
  constexpr unsigned kAll = 0xffffffffu;
  for (int h = 1; h < width; h <<= 1) {
    const T b00 = __shfl_up_sync(kAll, m00, h, width);
    const T b01 = __shfl_up_sync(kAll, m01, h, width);
    const T b02 = __shfl_up_sync(kAll, m02, h, width);
    const T b11 = __shfl_up_sync(kAll, m11, h, width);
    const T b12 = __shfl_up_sync(kAll, m12, h, width);
    const T b21 = __shfl_up_sync(kAll, m21, h, width);
    const T b22 = __shfl_up_sync(kAll, m22, h, width);
    if (r >= h) {
      const T n01 = m00 * b01 + m01 * b11 + m02 * b21;
      const T n02 = m00 * b02 + m01 * b12 + m02 * b22;
      const T n11 = m11 * b11 + m12 * b21;
      const T n12 = m11 * b12 + m12 * b22;
      const T n21 = m21 * b11 + m22 * b21;
      const T n22 = m21 * b12 + m22 * b22;
      m00 *= b00;
      m01 = n01;
      m02 = n02;
      m11 = n11;
      m12 = n12;
      m21 = n21;
      m22 = n22;
    }
  }
  const T an = m02, bn = m12, en = m22;  // s_r
  T an_prev = __shfl_up_sync(kAll, an, 1, width);
  T e_prev = __shfl_up_sync(kAll, en, 1, width);
  if (r == 0) {
    an_prev = 0;
    e_prev = 1;
  }
  const T re = T(1) / en;
  T ph = (df * e_prev + ff * an_prev) * re;
  T ps = gf * e_prev * re;
  // Suffix scan: (ph, ps) of lane r becomes the map f_{r'} -> f_r for the first r' past
  // its span; f_r = ph once the span reaches f_C = 0.
  for (int h = 1; h < width; h <<= 1) {
    const T ph_n = __shfl_down_sync(kAll, ph, h, width);
    const T ps_n = __shfl_down_sync(kAll, ps, h, width);
    if (r + h < width) {
      ph += ps * ph_n;
      ps *= ps_n;
    }
  }
  T f_next = __shfl_down_sync(kAll, ph, 1, width);  // f_{r+1}
  if (r + 1 == width) f_next = 0;
  l = (an + bn * f_next) * re;
  v = td - ta * l - tc * f_next;
}

// One-pass solve of every unit of the block (pass 2 of the partition method too, with the
// reduced solution z giving x just outside each unit). A thread loads its chunk of at most
// L rows straight into registers (load_chunk) and stores its x straight back: coalesced
// element by element in the interleaved layout, 16-byte vectors where aligned in the
// contiguous one. It solves the chunk by Thomas if it owns the whole unit, else by the
// partition elimination, the reduced system of the unit in shared memory (one equation per
// thread, one cyclic-reduction step then PCR), and back substitution.
template <typename T, int L, bool kFull>
__global__ void __launch_bounds__(kMaxThreads)
    solve_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                 const T* d, T* x, const T* __restrict__ z, LaunchArgs p) {
  wait_for_previous();
  allow_next();
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int g_count = 1 << p.glog;
  const int nthreads = blockDim.x;
  Unit<T>* units = reinterpret_cast<Unit<T>*>(smem_raw);
  T* const ea = reinterpret_cast<T*>(smem_raw + units_bytes(g_count, sizeof(Unit<T>)));
  T* const ec = ea + nthreads;
  T* const ed = ec + nthreads;
  T* const ew = ed + nthreads;
  const int tid = threadIdx.x;
  const ChunkThread<T> t = chunk_thread<T, L>(p, units, z);
  const Unit<T>& un = t.un;
  const int q = t.q;
  const int qs = t.qs;
  // Rows of the chunk where it is active: a constant with kFull.
  const int cl = kFull ? L : t.cl;
  T ra[L], rb[L], rc[L], rd[L];
  load_chunk<T, L, false, kFull>(p, t, a, b, c, d, ra, rb, rc, rd);

  const bool active = t.cl > 0;
  const bool partition = active && un.pu > 1;
  Boundary<T> e;
  if (active && un.pu == 1) {
    // Thomas: c'_j = c_j / (b_j - a_j c'_{j-1}), d'_j = (d_j - a_j d'_{j-1}) / (same),
    // x_j = d'_j - c'_j x_{j+1}.
#pragma unroll
    for (int j = 0; j < L; ++j) {
      if (j == 0) {
        const T r = T(1) / rb[0];
        rc[0] *= r;
        rd[0] *= r;
      } else if (j < cl) {
        const T r = T(1) / (rb[j] - ra[j] * rc[j - 1]);
        rc[j] *= r;
        rd[j] = (rd[j] - ra[j] * rd[j - 1]) * r;
      }
    }
#pragma unroll
    for (int j = L - 2; j >= 0; --j) {
      if (j < cl - 1) rd[j] -= rc[j] * rd[j + 1];
    }
  } else if (partition) {
    e = partition_chunk<T, L>(cl, ra, rb, rc, rd);
  }

  if (p.p > 1) {
    // Reduced system of each unit, one equation per thread in w_q = x_hi(q): x_lo(q) from
    // the top equation of q and x_lo(q+1) from that of q+1 substituted into the bottom one
    // (reduced_equation):
    //   A = -bot_a top_a,  B = 1 - bot_a top_c - bot_c top_a(q+1),  C = -bot_c top_c(q+1),
    //   D = bot_d - bot_a top_d - bot_c top_d(q+1),
    // each divided by B. Then PCR with distance h on these unit-diagonal equations
    // (pcr_step; out-of-unit neighbours are the null equation), after which w_q = D_q.
    // A unit's neighbours come by warp shuffles when its threads are the p adjacent lanes of
    // a p-wide warp segment (contiguous data, p a power of two <= 32), else through shared
    // memory with block barriers.
    const bool in_warp = p.row_fastest && p.p <= 32 && (p.p & (p.p - 1)) == 0;
    const bool has_next = partition && q + 1 < un.pu;
    T ea_r = 0, ec_r = 0, ed_r = 0;  // the null equation x = 0 (unit diagonal)
    T w = 0, wm = 0;
    if (in_warp) {
      // Blocks of fewer than 32 threads (G p, both powers of two) fill part of a warp.
      const unsigned kAll = blockDim.x >= 32 ? 0xffffffffu : (1u << blockDim.x) - 1u;
      const int width = p.p;
      const T na = __shfl_down_sync(kAll, e.ta, 1, width);
      const T nc = __shfl_down_sync(kAll, e.tc, 1, width);
      const T nd = __shfl_down_sync(kAll, e.td, 1, width);
      if (partition) {
        reduced_equation(e, has_next ? na : T(0), has_next ? nc : T(0), has_next ? nd : T(0), ea_r,
                         ec_r, ed_r);
      }
      for (int h = 1; h < p.p; h <<= 1) {
        const T am0 = __shfl_up_sync(kAll, ea_r, h, width);
        const T cm0 = __shfl_up_sync(kAll, ec_r, h, width);
        const T dm0 = __shfl_up_sync(kAll, ed_r, h, width);
        const T ap0 = __shfl_down_sync(kAll, ea_r, h, width);
        const T cp0 = __shfl_down_sync(kAll, ec_r, h, width);
        const T dp0 = __shfl_down_sync(kAll, ed_r, h, width);
        if (partition) {
          const bool lo = q - h >= 0, hi = q + h < un.pu;
          pcr_step(ea_r, ec_r, ed_r, lo ? am0 : T(0), lo ? cm0 : T(0), lo ? dm0 : T(0),
                   hi ? ap0 : T(0), hi ? cp0 : T(0), hi ? dp0 : T(0));
        }
      }
      w = ed_r;
      const T up = __shfl_up_sync(kAll, w, 1, width);
      wm = q > 0 ? up : T(0);
    } else {
      ea[tid] = e.ta;
      ec[tid] = e.tc;
      ed[tid] = e.td;
      __syncthreads();
      if (partition) {
        T na = 0, nc = 0, nd = 0;
        if (has_next) {
          na = ea[tid + qs];
          nc = ec[tid + qs];
          nd = ed[tid + qs];
        }
        reduced_equation(e, na, nc, nd, ea_r, ec_r, ed_r);
      }
      for (int h = 1; h < p.p; h <<= 1) {
        __syncthreads();
        ea[tid] = ea_r;
        ec[tid] = ec_r;
        ed[tid] = ed_r;
        __syncthreads();
        if (partition) {
          T am = 0, cm = 0, dm = 0, ap = 0, cp = 0, dp = 0;
          if (q - h >= 0) {
            const int k = tid - h * qs;
            am = ea[k];
            cm = ec[k];
            dm = ed[k];
          }
          if (q + h < un.pu) {
            const int k = tid + h * qs;
            ap = ea[k];
            cp = ec[k];
            dp = ed[k];
          }
          pcr_step(ea_r, ec_r, ed_r, am, cm, dm, ap, cp, dp);
        }
      }
      w = ed_r;
      ew[tid] = w;
      __syncthreads();
      wm = partition && q > 0 ? ew[tid - qs] : T(0);
    }
    if (partition) back_substitute<T, L>(e, cl, w, wm, ra, rc, rd);
  }
  store_chunk<T, L, kFull>(p, t, rd, x);
}

// Thread-block clusters (sm_90 on): the two halves of a cluster barrier and the address of a
// shared variable in another block of the cluster. cluster_arrive releases this thread's
// shared-memory writes (cluster_arrive_relaxed: no ordering, a sign that the block runs);
// cluster_wait acquires those of every thread that arrived.
__device__ __forceinline__ void cluster_arrive() {
#if __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void cluster_arrive_relaxed() {
#if __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void cluster_wait() {
#if __CUDA_ARCH__ >= 900
  asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
#endif
}
template <typename T>
__device__ __forceinline__ T* cluster_map(T* at, int rank) {
#if __CUDA_ARCH__ >= 900
  using U = std::remove_const_t<T>;
  return cooperative_groups::this_cluster().map_shared_rank(const_cast<U*>(at), rank);
#else
  return at;
#endif
}

// Shared memory of cluster_solve_kernel: the units, five planes per thread (a, c, d, f, g;
// the first then holds w), and per unit, from each block of the cluster, the block's first
// top equation (3 values) and the expressions of its first and last w (6), then the w just
// outside this block (2).
template <typename T>
std::size_t cluster_shared_bytes(int units, int threads) {
  return units_bytes(units, sizeof(Unit<T>)) +
         (5 * static_cast<std::size_t>(threads) +
          (9 * kMaxClusterBlocks + 2) * static_cast<std::size_t>(units)) *
             sizeof(T);
}

// One-pass solve of systems longer than a block takes, in a cluster of C = 2^clog blocks
// (the partition method of solve_kernel, the reduced system split over the cluster). Each
// block holds chunks [rank p, rank p + p) of each of the cluster's G systems.
//  1. Load and partition the chunks; the reduced equations (solve_kernel), except that a
//     block's last chunk keeps x just past the block, v (the next block's first row), as
//     an unknown instead of reading the next chunk's top equation.
//  2. In each block, PCR on its p equations with the unknowns just outside its range,
//     u = w_{rank p - 1} and v, as two more right-hand sides (the first equation's
//     coupling to u moved to f, the last one's to v moved to g): every w of the block
//     becomes w = D + F u + G v.
//  3. Each block writes its first top equation (which ties v_r to block r's last w and
//     block r + 1's first) and the expressions of its first and last w into the shared
//     memory of every block of the cluster. After one cluster barrier one lane per (block,
//     system) forms that block's terms of the interface system from them, and the C lanes of
//     a system solve it by two scans (a forward and a backward sweep over the blocks as warp
//     shuffles) for each block's u and v.
//  4. Back substitution and store as in solve_kernel. No block reads another's shared
//     memory, so none waits for the others to leave; the first remote write waits until
//     every block of the cluster runs (an arrive at the start, its wait after PCR).
// H100, double, same runs (us): contiguous N = 4096 (clusters of 4) / 8192 (8), interleaved
// N = 1024 (4) / 2048 (8):
//   - one thread per system reading block after block remotely after the barrier: 92.2 /
//     108.9 / 107.6 / 123.5;
//   - one thread per (block, system) reading at once, the sweep by one thread in shared
//     memory: 88.9 / 94.2 / 96.9 / 105.0;
//   - the sweep by the scans: 85.7 / 88.8 / 93.7 / 100.0 (without any sweep, wrong but a
//     bound: 77.6 at N = 4096);
//   - the terms written to every block before the barrier instead of read after it, and no
//     wait at the end: 80.6 / 85.1 / 88.5 / 93.4. A fast reciprocal (rcp.approx and two
//     Newton steps) for the sweep's two divisions took 0.2 - 0.6 more off: not kept.
// One cluster barrier that waits for other blocks' work (the other, arrived at the start,
// only makes sure they run), against one per PCR step when PCR spans the cluster (which
// measured 1.3 - 1.7x slower than two passes). H100, double, against two passes in the same
// run: contiguous N = 4096 (clusters of 4) 115.5 -> 95.7 us, N = 8192 (8) 115.7 -> 108.3;
// interleaved N = 1024 (4) 116.8 -> 108.1; N = 65536 and 2^20, whose 4096-row reduced systems
// take clusters of 4, 3 - 4.5 % faster. (Those with a first cluster barrier for the next chunk's
// top equation; without it, same run: N = 4096 95.7 -> 92.0 us, interleaved N = 1024 108.3 ->
// 106.8, N = 8192 the same.) Against a single block of 256 threads at N = 2048, two blocks of 128
// were slower (87.4 against 67.7 us), so a cluster only takes what one block cannot.
template <typename T, int L, bool kFull>
__global__ void __launch_bounds__(kWideClusterThreads)
    cluster_solve_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                         const T* d, T* x, LaunchArgs p) {
  wait_for_previous();
  allow_next();
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int g_count = 1 << p.glog;
  const int nthreads = blockDim.x;
  Unit<T>* units = reinterpret_cast<Unit<T>*>(smem_raw);
  T* const pa = reinterpret_cast<T*>(smem_raw + units_bytes(g_count, sizeof(Unit<T>)));
  T* const pc = pa + nthreads;
  T* const pd = pc + nthreads;
  T* const pf = pd + nthreads;
  T* const pg = pf + nthreads;
  // From every block r of the cluster: tops [r][g][3], ends [r][g][6] (D, F, G of its first w,
  // then of its last); this block's u and v: outside [g][2].
  T* const tops = pg + nthreads;
  T* const ends = tops + 3 * kMaxClusterBlocks * g_count;
  T* const outside = ends + 6 * kMaxClusterBlocks * g_count;
  const int tid = threadIdx.x;
  const int clusters = 1 << p.clog;
  const int rank = static_cast<int>(blockIdx.x & (clusters - 1u));
  cluster_arrive_relaxed();  // this block runs (waited for before the first remote write)
  const ChunkThread<T> t = chunk_thread<T, L>(p, units, static_cast<const T*>(nullptr));
  const Unit<T>& un = t.un;
  const int q = t.q;
  const int ql = t.ql;
  const int qs = t.qs;
  const int g = p.row_fastest ? tid / p.p : tid & (g_count - 1);
  T ra[L], rb[L], rc[L], rd[L];
  load_chunk<T, L, false, kFull>(p, t, a, b, c, d, ra, rb, rc, rd);
  const bool partition = t.cl > 0 && un.pu > 1;
  const int cl = kFull ? L : t.cl;  // where the chunk is active
  Boundary<T> e;
  if (partition) e = partition_chunk<T, L>(cl, ra, rb, rc, rd);

  // 1. Reduced equations. A block's last chunk keeps x just past the block, v (the first
  // row of the next block), as an unknown instead of taking the next chunk's top equation.
  pa[tid] = e.ta;
  pc[tid] = e.tc;
  pd[tid] = e.td;
  __syncthreads();
  T ea = 0, ec = 0, ed = 0, ef = 0, eg = 0;  // the null equation w = 0
  if (partition) {
    T na = 0, nc = 0, nd = 0;
    if (q + 1 < un.pu && ql + 1 < p.p) {
      na = pa[tid + qs];
      nc = pc[tid + qs];
      nd = pd[tid + qs];
    }
    reduced_equation(e, na, nc, nd, ea, ec, ed);
    if (ql == p.p - 1) eg = -e.bc / (T(1) - e.ba * e.tc);  // v's coefficient, moved right
  }
  if (ql == 0) {
    ef = -ea;
    ea = 0;
  }

  // 2. PCR in the block with u and v as right-hand sides.
  for (int h = 1; h < p.p; h <<= 1) {
    __syncthreads();
    pa[tid] = ea;
    pc[tid] = ec;
    pd[tid] = ed;
    pf[tid] = ef;
    pg[tid] = eg;
    __syncthreads();
    T am = 0, cm = 0, dm = 0, fm = 0, gm = 0, ap = 0, cp = 0, dp = 0, fp = 0, gp = 0;
    if (ql - h >= 0) {
      const int k = tid - h * qs;
      am = pa[k];
      cm = pc[k];
      dm = pd[k];
      fm = pf[k];
      gm = pg[k];
    }
    if (ql + h < p.p) {
      const int k = tid + h * qs;
      ap = pa[k];
      cp = pc[k];
      dp = pd[k];
      fp = pf[k];
      gp = pg[k];
    }
    pcr_step3(ea, ec, ed, ef, eg, am, cm, dm, fm, gm, ap, cp, dp, fp, gp);
  }

  // 3. The interface system of the blocks (interface_sweep): block r's first and last w,
  // and v_r, the first row of block r + 1, from that block's first top equation.
  cluster_wait();  // every block of the cluster runs: its shared memory may be written
  if (ql == 0 || ql == p.p - 1) {
    const int slot = rank * g_count + g;
    for (int dst = 0; dst < clusters; ++dst) {
      T* const end = cluster_map(ends + 6 * slot, dst);
      if (ql == 0) {
        T* const top = cluster_map(tops + 3 * slot, dst);
        top[0] = e.ta;
        top[1] = e.tc;
        top[2] = e.td;
        end[0] = ed;
        end[1] = ef;
        end[2] = eg;
      } else {
        end[3] = ed;
        end[4] = ef;
        end[5] = eg;
      }
    }
  }
  cluster_arrive();
  cluster_wait();
  // Lane r of a C-lane segment per system takes block r's end expressions and block r + 1's
  // first top equation and forms M_r; whole warps take part in the shuffles (G C <= 128
  // threads: G <= 8 systems, C <= 8 blocks of 128 threads or 16 of 256).
  if (tid < (((clusters << p.glog) + 31) & ~31)) {
    const int r = tid & (clusters - 1);
    const int gi = tid >> p.clog;
    T ends_r[6] = {0, 0, 0, 0, 0, 0}, ta = 0, tc = 0, td = 0;
    if (gi < g_count) {
      const T* end = ends + 6 * (r * g_count + gi);  // Df Ff Gf Dl Fl Gl
      if (r + 1 < clusters) {
        const T* top = tops + 3 * ((r + 1) * g_count + gi);
        ta = top[0];
        tc = top[1];
        td = top[2];
      }
#pragma unroll
      for (int k = 0; k < 6; ++k) ends_r[k] = end[k];
    }
    T l, v;
    interface_sweep(r, clusters, ends_r, ta, tc, td, l, v);
    if (gi < g_count) {
      if (r + 1 == rank) outside[2 * gi] = l;  // u = l_{rank-1}
      if (r == rank) {
        if (rank == 0) outside[2 * gi] = 0;
        outside[2 * gi + 1] = v;
      }
    }
  }
  __syncthreads();

  // 4. w, the w of the chunk before, back substitution, store.
  const T u = outside[2 * g];
  const T w = ed + ef * u + eg * outside[2 * g + 1];
  pa[tid] = w;
  __syncthreads();
  const T wm = ql > 0 ? pa[tid - qs] : u;
  if (partition) back_substitute<T, L>(e, cl, w, wm, ra, rc, rd);
  store_chunk<T, L, kFull>(p, t, rd, x);
}

// Pass 1 of the partition method: every unit (kReduceRows rows of a system) is reduced to
// its two boundary equations, written as rows 2k (top) and 2k+1 (bottom) of the reduced
// system of its system s (contiguous, 2 units_per_sys rows each, unit diagonal). Its p
// threads load their chunks as solve_kernel does and reduce them (partition_chunk); the
// first thread of the unit merges the p chunk equations, left to right, from shared memory.
template <typename T, int L, bool kFull>
__global__ void __launch_bounds__(kMaxThreads)
    reduce_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                  const T* __restrict__ d, T* __restrict__ ra_out, T* __restrict__ rb_out,
                  T* __restrict__ rc_out, T* __restrict__ rd_out, LaunchArgs p) {
  wait_for_previous();
  allow_next();
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int g_count = 1 << p.glog;
  Unit<T>* units = reinterpret_cast<Unit<T>*>(smem_raw);
  Boundary<T>* eq =
      reinterpret_cast<Boundary<T>*>(smem_raw + units_bytes(g_count, sizeof(Unit<T>)));
  const ChunkThread<T> t = chunk_thread<T, L>(p, units, static_cast<const T*>(nullptr));
  T ra[L], rb[L], rc[L], rd[L];
  load_chunk<T, L, true, kFull>(p, t, a, b, c, d, ra, rb, rc, rd);
  Boundary<T> e;
  if (t.cl > 0) e = partition_chunk<T, L>(kFull ? L : t.cl, ra, rb, rc, rd);
  const int tid = threadIdx.x;
  if (p.p > 1) {
    eq[tid] = e;
    __syncthreads();
    if (t.cl > 0 && t.q == 0) {
      for (int k = 1; k < t.un.pu; ++k) e = merge_boundaries(e, eq[tid + k * t.qs]);
    }
  }
  if (t.cl > 0 && t.q == 0) {
    const std::int64_t out = t.un.out;
    ra_out[out] = e.ta;
    rb_out[out] = 1;
    rc_out[out] = e.tc;
    rd_out[out] = e.td;
    ra_out[out + 1] = e.ba;
    rb_out[out + 1] = 1;
    rc_out[out + 1] = e.bc;
    rd_out[out + 1] = e.bd;
  }
}

// Whether every chunk of a launch has kChunkRows rows (or none: an idle thread), so that the
// kernels take their kFull form: no row past a chunk to mask, every test of a chunk's length
// folded away. The units' rows (the system, or kReduceRows of it) and the system's rows are
// then multiples of the chunk (make_unit: pu = len / L, cbase = L, crem = 0). In double the
// solve kernel then takes 100 registers instead of 120, the cluster kernel 114. H200, against
// the kernels that test the length (same run, two runs each, `bench_tridiagonal
// --no-cusparse`, us): contiguous N = 1024 54.2 / 54.0 -> 51.2 / 51.1, N = 256 46.4 / 46.4 ->
// 45.2 / 44.6, N = 4096 (cluster) 76.0 / 76.2 -> 74.7 / 74.2; interleaved N = 64 47.5 / 47.7
// -> 45.3 / 45.3; the two-pass shapes 3 - 7 % faster, except interleaved N = 2^20 (M = 4),
// 112.4 / 113.1 -> 116.7 / 116.6.
template <typename T>
bool all_chunks_full(const LaunchArgs& args) {
  constexpr int kL = kChunkRows<T>;
  return args.n % kL == 0 && args.unit_rows % kL == 0;
}

struct DeviceLimits {
  int sms = 0;
};

DeviceLimits device_limits() {
  int dev = 0;
  PRISM_CUDA_CHECK(cudaGetDevice(&dev));
  int sms = 0;
  PRISM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  return {sms};
}

int floor_log2(std::int64_t v) {
  int k = 0;
  while ((std::int64_t{2} << k) <= v) ++k;
  return k;
}

// One kernel launch: its arguments, grid and shared memory.
struct Launch {
  LaunchArgs args{};
  std::int64_t blocks = 0;
  int threads = 0;
  std::size_t shared_bytes = 0;
};

// Fewest units per block for coalesced loads: 1 when a unit's rows are contiguous; with
// interleaved data a warp's load of one row spans G neighbouring systems, so G fills a
// 32-byte sector (4 doubles, 8 floats) or holds every system.
template <typename T>
int min_units_per_block(std::int64_t row_stride, std::int64_t m) {
  if (row_stride == 1) return 1;
  const int sector = static_cast<int>(32 / sizeof(T));
  int g = 1;
  while (g < sector && g < m) g *= 2;
  return g;
}

// The arguments that place the units of unit_rows rows of (n, m) in memory; the thread
// layout (glog, p, clog) is the caller's.
LaunchArgs unit_args(std::int64_t n, std::int64_t m, std::int64_t sys_stride,
                     std::int64_t row_stride, std::int64_t unit_rows) {
  LaunchArgs p{};
  p.n = n;
  p.m = m;
  p.sys_stride = sys_stride;
  p.row_stride = row_stride;
  p.unit_rows = unit_rows;
  p.units_per_sys = (n + unit_rows - 1) / unit_rows;
  p.units_total = m * p.units_per_sys;
  p.row_fastest = row_stride == 1;
  return p;
}

// Shapes a launch of either kernel over the units of (n, m) cut into units of unit_rows
// rows, with up to L = kChunkRows rows per thread (p threads per unit) and about
// kTargetThreads threads per block (kInterleavedOnePassThreads for one-pass solves of
// interleaved data; G a power of two, at least min_units_per_block). G then
// shrinks while the grid would leave SMs with fewer than two blocks, so small batches
// spread over the GPU instead of piling into a few blocks.
template <typename T>
Launch shape_launch(std::int64_t n, std::int64_t m, std::int64_t sys_stride,
                    std::int64_t row_stride, std::int64_t unit_rows, const DeviceLimits& dev) {
  Launch l;
  LaunchArgs& p = l.args;
  p = unit_args(n, m, sys_stride, row_stride, unit_rows);
  constexpr int kL = kChunkRows<T>;
  p.p = unit_rows <= kL ? 1 : static_cast<int>((unit_rows + kL - 1) / kL);
  if (p.p > kMaxThreads) throw ConfigError("tridiagonal_solve: unit too long for one block");
  p.div_p = SmallDiv(p.p);
  const int glog_min = floor_log2(min_units_per_block<T>(row_stride, m));
  const bool interleaved_one_pass = row_stride != 1 && unit_rows >= n;
  const int target = interleaved_one_pass ? kInterleavedOnePassThreads : kTargetThreads;
  int glog = std::max(glog_min, floor_log2(std::max(1, target / p.p)));
  while (glog > glog_min &&
         ((p.units_total + (std::int64_t{1} << glog) - 1) >> glog) < 2 * dev.sms) {
    --glog;
  }
  p.glog = glog;
  const int g = 1 << glog;
  l.threads = g * p.p;
  l.blocks = (p.units_total + g - 1) >> glog;
  l.shared_bytes = kernel_shared_bytes<T>(g, l.threads);
  return l;
}

// The launch of cluster_solve_kernel for (n, m): G = min_units_per_block systems per cluster
// of 2^clog blocks of `threads`, p = threads / G threads of each system in each block (p and
// G powers of two; p 2^clog >= ceil(n / L)).
template <typename T>
Launch cluster_launch(std::int64_t n, std::int64_t m, std::int64_t sys_stride,
                      std::int64_t row_stride, int clog, int threads) {
  Launch l;
  LaunchArgs& p = l.args;
  p = unit_args(n, m, sys_stride, row_stride, n);
  const int g = min_units_per_block<T>(row_stride, m);
  p.glog = floor_log2(g);
  p.p = threads / g;
  p.clog = clog;
  p.div_p = SmallDiv(p.p);
  l.threads = threads;
  l.blocks = ((m + g - 1) >> p.glog) << clog;
  l.shared_bytes = cluster_shared_bytes<T>(g, l.threads);
  return l;
}

// compute(device) for the current device, computed once per device (the first 64; beyond,
// every call computes it) and kept in `cache` (positive values only).
constexpr int kCachedDevices = 64;
template <typename Compute>
int cached_per_device(std::atomic<int> (&cache)[kCachedDevices], Compute compute) {
  int dev = 0;
  PRISM_CUDA_CHECK(cudaGetDevice(&dev));
  std::atomic<int>* slot = dev < kCachedDevices ? &cache[dev] : nullptr;
  if (slot != nullptr) {
    const int known = slot->load(std::memory_order_relaxed);
    if (known > 0) return known;
  }
  const int value = compute(dev);
  if (slot != nullptr) slot->store(value, std::memory_order_relaxed);
  return value;
}

// A launch of `blocks` blocks of `threads` threads in clusters of `cluster` blocks, after the
// previous kernel (programmatic serialization, as launch_after_previous); the returned
// configuration points to `attrs`, which hold the cluster size and that permission.
cudaLaunchConfig_t cluster_config(unsigned blocks, unsigned threads, std::size_t shared_bytes,
                                  unsigned cluster, cudaStream_t stream,
                                  cudaLaunchAttribute (&attrs)[2]) {
  attrs[0] = {};
  attrs[0].id = cudaLaunchAttributeClusterDimension;
  attrs[0].val.clusterDim.x = cluster;
  attrs[0].val.clusterDim.y = 1;
  attrs[0].val.clusterDim.z = 1;
  // As launch_after_previous (dependent_launch.cuh): the kernel waits for the one ahead.
  attrs[1] = {};
  attrs[1].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attrs[1].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(blocks);
  config.blockDim = dim3(threads);
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  config.attrs = attrs;
  config.numAttrs = 2;
  return config;
}

// Most blocks of `Threads` in a cluster of cluster_solve_kernel: the largest size (16, 8, 4 or
// 2) of which the device runs at least one at a time (cudaOccupancyMaxActiveClusters); 1
// where the device has no clusters (before sm_90) or the kernel was not compiled for sm_90
// (its barriers and remote writes are empty there: a build for an older architecture run as
// PTX on a newer GPU must not take this path). Cached per device.
template <typename T, int Threads>
int max_cluster_blocks() {
  static std::atomic<int> cache[kCachedDevices] = {};
  return cached_per_device(cache, [](int dev) {
    int supported = 0;
    PRISM_CUDA_CHECK(cudaDeviceGetAttribute(&supported, cudaDevAttrClusterLaunch, dev));
    if (supported == 0) return 1;
    const void* kernel =
        reinterpret_cast<const void*>(&cluster_solve_kernel<T, kChunkRows<T>, false>);
    cudaFuncAttributes compiled = {};
    PRISM_CUDA_CHECK(cudaFuncGetAttributes(&compiled, kernel));
    if (compiled.ptxVersion < 90) return 1;
    // Sizes past the portable one only where the kernel may take them.
    int largest = kMaxClusterBlocks;
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) !=
        cudaSuccess) {
      cudaGetLastError();  // clear it
      largest = kPortableClusterBlocks;
    }
    for (int c = largest; c >= 2; c /= 2) {
      cudaLaunchAttribute attrs[2] = {};
      const auto size = static_cast<unsigned>(c);
      // The most systems a cluster takes: min_units_per_block's sector of elements.
      const int units = static_cast<int>(32 / sizeof(T));
      const cudaLaunchConfig_t config = cluster_config(
          size, Threads, cluster_shared_bytes<T>(units, Threads), size, nullptr, attrs);
      int clusters = 0;
      if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &config) != cudaSuccess) {
        cudaGetLastError();  // clear it: this size is not available
        clusters = 0;
      }
      if (clusters >= 1) return c;
    }
    return 1;
  });
}

// Most threads of a one-pass block: the largest of kMaxThreads, kMaxThreads / 2, ...,
// kTargetThreads at which two blocks of solve_kernel stay resident per SM (occupancy API;
// about 256 threads with sm_90's register file). A block loads, then computes, then stores:
// alone on its SM it cannot overlap one phase with another, and two passes do as well (on
// an H200, 4096-row systems: 106 us either way; 2048 rows: 85 us in one pass against 106 in
// two). Cached per device.
template <typename T>
int one_pass_threads() {
  static std::atomic<int> cache[kCachedDevices] = {};
  return cached_per_device(cache, [](int) {
    const void* kernel = reinterpret_cast<const void*>(&solve_kernel<T, kChunkRows<T>, false>);
    int threads = kMaxThreads;
    for (; threads > kTargetThreads; threads /= 2) {
      const std::size_t bytes = kernel_shared_bytes<T>(threads, threads);
      int blocks = 0;
      PRISM_CUDA_CHECK(
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, bytes));
      if (blocks >= 2) break;
    }
    return threads;
  });
}

// Rule for the path: one pass in one block when the fewest systems a coalesced block holds
// (min_units_per_block, G), p = ceil(N / L) threads each, fit one_pass_threads() (the solve
// kernel keeps chunks in registers, so shared memory does not limit it); one pass in a
// cluster of 2^clog blocks of kClusterThreads when at most kPortableClusterBlocks of them
// hold the systems, else of kWideClusterThreads when they fit the largest cluster
// (max_cluster_blocks); else the two-pass partition method (2 rows per kReduceRows rows
// reduced), recursively until the reduced systems (contiguous) fit.
struct OnePass {
  bool fits = false;
  int clog = 0;     // > 0: cluster_solve_kernel on clusters of 2^clog blocks
  int threads = 0;  // of each block of the cluster
};

template <typename T>
OnePass one_pass_plan(std::int64_t n, std::int64_t m, std::int64_t row_stride) {
  const std::int64_t g = min_units_per_block<T>(row_stride, m);
  const std::int64_t p = (n + kChunkRows<T> - 1) / kChunkRows<T>;
  if (g * p <= one_pass_threads<T>()) return {true, 0, 0};
  for (const int threads : {kClusterThreads, kWideClusterThreads}) {
    if (g >= threads) continue;
    const std::int64_t per_block = threads / g;
    int clog = 1;
    while ((per_block << clog) < p) ++clog;
    const int most = threads == kClusterThreads ? std::min(kPortableClusterBlocks,
                                                           max_cluster_blocks<T, kClusterThreads>())
                                                : max_cluster_blocks<T, kWideClusterThreads>();
    if ((1 << clog) <= most) return {true, clog, threads};
  }
  return {false, 0, 0};
}

template <typename T>
std::int64_t reduced_rows(std::int64_t n) {
  return 2 * ((n + kReduceRows<T> - 1) / kReduceRows<T>);
}

// Elements of workspace for (n, m): the reduced system's a, b, c, d (its x overwrites d)
// and what its own solve needs.
template <typename T>
std::int64_t workspace_elems(std::int64_t n, std::int64_t m, std::int64_t row_stride) {
  if (one_pass_plan<T>(n, m, row_stride).fits) return 0;
  const std::int64_t n2 = reduced_rows<T>(n);
  return 4 * n2 * m + workspace_elems<T>(n2, m, 1);
}

template <typename T>
Launch one_pass_launch(std::int64_t n, std::int64_t m, std::int64_t sys_stride,
                       std::int64_t row_stride, const DeviceLimits& dev) {
  const OnePass plan = one_pass_plan<T>(n, m, row_stride);
  if (plan.clog > 0) {
    return cluster_launch<T>(n, m, sys_stride, row_stride, plan.clog, plan.threads);
  }
  return shape_launch<T>(n, m, sys_stride, row_stride, n, dev);
}

bool aligned16(const void* ptr) {
  return reinterpret_cast<std::uintptr_t>(ptr) % 16 == 0;
}

void set_shared(const void* kernel, std::size_t bytes) {
  if (bytes > 48 * 1024) {
    PRISM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(bytes)));
  }
}

template <typename T>
void launch_solve(Launch l, const T* a, const T* b, const T* c, const T* d, T* x, const T* z,
                  cudaStream_t stream) {
  if (l.blocks > 0x7fffffff) throw ConfigError("tridiagonal_solve: too many systems");
  l.args.vector_rows = l.args.row_fastest && aligned16(a) && aligned16(b) && aligned16(c) &&
                       aligned16(d) && aligned16(x);
  constexpr int kL = kChunkRows<T>;
  if (l.args.clog > 0) {
    void (*kernel)(const T*, const T*, const T*, const T*, T*, LaunchArgs) =
        all_chunks_full<T>(l.args) ? cluster_solve_kernel<T, kL, true>
                                   : cluster_solve_kernel<T, kL, false>;
    set_shared(reinterpret_cast<const void*>(kernel), l.shared_bytes);
    if ((1 << l.args.clog) > kPortableClusterBlocks) {  // as max_cluster_blocks allowed
      PRISM_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                            cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    }
    cudaLaunchAttribute attrs[2] = {};
    const cudaLaunchConfig_t config =
        cluster_config(static_cast<unsigned>(l.blocks), static_cast<unsigned>(l.threads),
                       l.shared_bytes, 1u << l.args.clog, stream, attrs);
    PRISM_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, a, b, c, d, x, l.args));
    return;
  }
  const auto kernel =
      all_chunks_full<T>(l.args) ? solve_kernel<T, kL, true> : solve_kernel<T, kL, false>;
  set_shared(reinterpret_cast<const void*>(kernel), l.shared_bytes);
  launch_after_previous_shared(kernel, static_cast<unsigned>(l.blocks),
                               static_cast<unsigned>(l.threads), l.shared_bytes, stream, a, b, c, d,
                               x, z, l.args);
}

template <typename T>
void solve_level(std::int64_t n, std::int64_t m, std::int64_t sys_stride, std::int64_t row_stride,
                 const T* a, const T* b, const T* c, const T* d, T* x, T* work,
                 const DeviceLimits& dev, cudaStream_t stream) {
  if (one_pass_plan<T>(n, m, row_stride).fits) {
    launch_solve(one_pass_launch<T>(n, m, sys_stride, row_stride, dev), a, b, c, d, x,
                 static_cast<const T*>(nullptr), stream);
    return;
  }
  const std::int64_t n2 = reduced_rows<T>(n);
  T* ra = work;
  T* rb = ra + n2 * m;
  T* rc = rb + n2 * m;
  T* rd = rc + n2 * m;
  Launch l1 = shape_launch<T>(n, m, sys_stride, row_stride, kReduceRows<T>, dev);
  if (l1.blocks > 0x7fffffff) throw ConfigError("tridiagonal_solve: too many systems");
  l1.args.vector_rows =
      l1.args.row_fastest && aligned16(a) && aligned16(b) && aligned16(c) && aligned16(d);
  constexpr int kL = kChunkRows<T>;
  const auto reduce =
      all_chunks_full<T>(l1.args) ? reduce_kernel<T, kL, true> : reduce_kernel<T, kL, false>;
  set_shared(reinterpret_cast<const void*>(reduce), l1.shared_bytes);
  launch_after_previous_shared(reduce, static_cast<unsigned>(l1.blocks),
                               static_cast<unsigned>(l1.threads), l1.shared_bytes, stream, a, b, c,
                               d, ra, rb, rc, rd, l1.args);
  solve_level<T>(n2, m, n2, 1, ra, rb, rc, rd, rd, rd + n2 * m, dev, stream);
  // Pass 2 takes the units last to first: blocks start roughly in index order, so it
  // begins with the units pass 1 read last, while they are still in L2.
  Launch l2 = shape_launch<T>(n, m, sys_stride, row_stride, kReduceRows<T>, dev);
  l2.args.reverse_blocks = true;
  launch_solve(l2, a, b, c, d, x, static_cast<const T*>(rd), stream);
}

template <typename T>
TridiagonalPlan make_plan(TridiagonalLayout layout, index_t n_in, index_t m_in) {
  TridiagonalPlan plan;
  if (n_in <= 0 || m_in <= 0) return plan;
  const DeviceLimits dev = device_limits();
  const std::int64_t m = m_in;
  std::int64_t n = n_in;
  const bool contiguous = layout == TridiagonalLayout::contiguous;
  std::int64_t row_stride = contiguous ? 1 : m;
  plan.workspace_bytes = static_cast<std::size_t>(workspace_elems<T>(n, m, row_stride)) * sizeof(T);
  while (!one_pass_plan<T>(n, m, row_stride).fits) {
    if (plan.levels == 0) plan.reduce_rows = kReduceRows<T>;
    ++plan.levels;
    n = reduced_rows<T>(n);
    row_stride = 1;
  }
  const Launch l = one_pass_launch<T>(n, m, row_stride == 1 ? n : 1, row_stride, dev);
  plan.reduced_rows = plan.levels > 0 ? n : 0;
  plan.chunk_rows = kChunkRows<T>;
  plan.cluster_blocks = 1 << l.args.clog;
  plan.threads_per_system = l.args.p << l.args.clog;
  plan.systems_per_block = 1 << l.args.glog;
  plan.block_threads = l.threads;
  plan.shared_bytes = l.shared_bytes;
  constexpr int kL = kChunkRows<T>;
  const bool full = all_chunks_full<T>(l.args);
  const void* kernel =
      l.args.clog > 0 ? reinterpret_cast<const void*>(full ? &cluster_solve_kernel<T, kL, true>
                                                           : &cluster_solve_kernel<T, kL, false>)
                      : reinterpret_cast<const void*>(full ? &solve_kernel<T, kL, true>
                                                           : &solve_kernel<T, kL, false>);
  set_shared(kernel, l.shared_bytes);
  PRISM_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&plan.blocks_per_sm, kernel,
                                                                 l.threads, l.shared_bytes));
  return plan;
}

template <typename T>
void solve(TridiagonalLayout layout, index_t n_in, index_t m_in, const T* a, const T* b, const T* c,
           const T* d, T* x, void* workspace, std::size_t workspace_bytes, cudaStream_t stream) {
  if (n_in < 0 || m_in < 0) throw ConfigError("tridiagonal_solve: negative n or m");
  if (n_in == 0 || m_in == 0) return;
  const DeviceLimits dev = device_limits();
  const std::int64_t n = n_in;
  const std::int64_t m = m_in;
  const bool contiguous = layout == TridiagonalLayout::contiguous;
  const std::size_t needed =
      static_cast<std::size_t>(workspace_elems<T>(n, m, contiguous ? 1 : m)) * sizeof(T);
  if (needed > 0 && (workspace == nullptr || workspace_bytes < needed)) {
    throw ConfigError("tridiagonal_solve: workspace of " + std::to_string(workspace_bytes) +
                      " bytes given, " + std::to_string(needed) + " needed");
  }
  solve_level<T>(n, m, contiguous ? n : 1, contiguous ? 1 : m, a, b, c, d, x,
                 static_cast<T*>(workspace), dev, stream);
}

}  // namespace

TridiagonalPlan tridiagonal_plan(TridiagonalLayout layout, index_t n, index_t m,
                                 std::size_t elem_size) {
  if (elem_size == sizeof(float)) return make_plan<float>(layout, n, m);
  if (elem_size == sizeof(double)) return make_plan<double>(layout, n, m);
  throw ConfigError("tridiagonal_plan: element size must be 4 or 8 bytes");
}

std::size_t tridiagonal_workspace_bytes(TridiagonalLayout layout, index_t n, index_t m,
                                        std::size_t elem_size) {
  return tridiagonal_plan(layout, n, m, elem_size).workspace_bytes;
}

void tridiagonal_solve(TridiagonalLayout layout, index_t n, index_t m, const double* a,
                       const double* b, const double* c, const double* d, double* x,
                       void* workspace, std::size_t workspace_bytes, cudaStream_t stream) {
  solve(layout, n, m, a, b, c, d, x, workspace, workspace_bytes, stream);
}

void tridiagonal_solve(TridiagonalLayout layout, index_t n, index_t m, const float* a,
                       const float* b, const float* c, const float* d, float* x, void* workspace,
                       std::size_t workspace_bytes, cudaStream_t stream) {
  solve(layout, n, m, a, b, c, d, x, workspace, workspace_bytes, stream);
}

}  // namespace prism::kernels::cuda
