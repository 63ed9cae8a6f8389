// Batched tridiagonal solves near the memory bandwidth: a one-pass tile solver for systems
// that fit a thread block's shared memory, and a two-pass partition method with a
// recursively solved reduced system for longer ones. See kernels/cuda/tridiagonal.hpp.
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
// step leaves one equation per thread in w_q = x_hi(q), solved by PCR in shared memory.

#include "kernels/cuda/tridiagonal.hpp"

#include "kernels/cuda/check.hpp"

#include <cuda_pipeline_primitives.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include <prism/errors.hpp>

namespace prism::kernels::cuda {
namespace {

// Rows per thread of the one-pass solve, kept in registers (4 L values per thread): with 8
// doubles or 16 floats a thread needs about 110 or 95 registers (sm_90), so four 128-thread
// blocks, 16 warps, stay resident per SM (4 per scheduler). More threads per system (shorter
// chunks) would not shorten a block's critical path: it is dominated by the log2(p) PCR
// steps of the reduced system, not by the L-row chunk sweeps.
template <typename T>
constexpr int kChunkRows = sizeof(T) == 8 ? 8 : 16;
// Rows per thread of the partition pass (pass 1) and per unit of pass 2 (4 threads of
// kChunkRows each): the reduced system has 2 rows per kReduceRows rows, 1/16 of the data
// in double, and the pass-1 dependency chain (kReduceRows steps) stays short.
template <typename T>
constexpr int kReduceRows = 4 * kChunkRows<T>;
// Threads per block. A block loads its tile, computes, then stores, so an SM needs several
// resident blocks for the loads of some to overlap the compute of others: the one-pass
// solve aims at 128 threads (about 37 KB of shared memory and 14 K registers in double,
// 4 blocks and 16 warps per SM), pass 1 at 32 (one chunk of kReduceRows rows each, about
// 34 KB in double, 6 blocks per SM).
constexpr int kTargetThreads = 128;
constexpr int kReduceThreads = 32;
constexpr int kMaxThreads = 512;

// i / d for 0 <= i, d < 2^16 as one multiply: with mul = ceil(2^40 / d) the error of
// i mul / 2^40 is below 2^-24, less than the distance 1/d from i/d to the next integer.
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
constexpr int kSmallDivLimit = 1 << 16;

// What a launch of either kernel works on. Element (s, i) lives at s sys_stride + i row_stride.
// Systems are cut into units of unit_rows rows (the last one shorter); a block takes
// G = 2^glog units, p threads each; thread (g, q) is threadIdx.x = q G + g, so a unit's
// threads are G apart and consecutive threads hold consecutive units (conflict-free
// shared rows, pitch odd).
struct TileArgs {
  std::int64_t n;  // rows per system
  std::int64_t m;  // systems
  std::int64_t sys_stride;
  std::int64_t row_stride;
  std::int64_t unit_rows;
  std::int64_t units_per_sys;  // ceil(n / unit_rows)
  std::int64_t units_total;    // m * units_per_sys
  int glog;                    // log2 of the units per block
  int p;                       // threads per full unit
  int pitch;                   // shared slots per thread (odd)
  bool row_fastest;            // row_stride == 1: tile loads walk rows, else units
  SmallDiv div_pitch;          // / pitch
  SmallDiv div_unit;           // / (p pitch)
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
__device__ Unit<T> make_unit(const TileArgs& p, std::int64_t u, int rows_per_thread, const T* z) {
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

// Calls f(shared slot, global offset) for every row of the block's tile, in an order where
// consecutive threads touch consecutive global addresses. The slot of row j of thread
// (g, q)'s chunk is (q G + g) pitch + j.
template <typename T, typename F>
__device__ void for_each_row(const TileArgs& p, const Unit<T>* units, F&& f) {
  const int g_count = 1 << p.glog;
  const int per_unit = p.p * p.pitch;
  const int total = g_count * per_unit;
  for (int i = threadIdx.x; i < total; i += blockDim.x) {
    int g, q, j;
    if (p.row_fastest) {
      g = p.div_unit(i);
      const int r = i - g * per_unit;
      q = p.div_pitch(r);
      j = r - q * p.pitch;
    } else {
      g = i & (g_count - 1);
      const int t = i >> p.glog;
      q = p.div_pitch(t);
      j = t - q * p.pitch;
    }
    const Unit<T>& un = units[g];
    if (q >= un.pu || j >= un.cbase + (q < un.crem)) continue;
    const int row = q * un.cbase + min(q, un.crem) + j;
    f((q * g_count + g) * p.pitch + j, un.base + row * p.row_stride);
  }
}

// Block prologue of both kernels: unit facts, then the tile of a, b, c, d into shared
// memory with asynchronous copies (the whole tile in flight at once, no registers held).
template <typename T>
__device__ void load_tile(const TileArgs& p, int rows_per_thread, const T* z, Unit<T>* units,
                          const T* a, const T* b, const T* c, const T* d, T* sa, T* sb, T* sc,
                          T* sd) {
  const int g_count = 1 << p.glog;
  if (static_cast<int>(threadIdx.x) < g_count) {
    units[threadIdx.x] = make_unit<T>(
        p, static_cast<std::int64_t>(blockIdx.x) * g_count + threadIdx.x, rows_per_thread, z);
  }
  __syncthreads();
  for_each_row(p, units, [&](int e, std::int64_t at) {
    __pipeline_memcpy_async(sa + e, a + at, sizeof(T));
    __pipeline_memcpy_async(sb + e, b + at, sizeof(T));
    __pipeline_memcpy_async(sc + e, c + at, sizeof(T));
    __pipeline_memcpy_async(sd + e, d + at, sizeof(T));
  });
  __pipeline_commit();
  __pipeline_wait_prior(0);
  __syncthreads();
}

// One-pass solve of every unit of the block (pass 2 of the partition method too, with the
// reduced solution z giving x just outside each unit). A thread holds its chunk of at most
// L rows in registers: Thomas if it owns the whole unit, else the partition elimination
// (file comment), the reduced system of the unit in shared memory, and back substitution.
// x is written back over d in shared memory and stored coalesced.
template <typename T, int L>
__global__ void __launch_bounds__(kMaxThreads)
    solve_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                 const T* d, T* x, const T* __restrict__ z, TileArgs p) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int g_count = 1 << p.glog;
  const int nthreads = blockDim.x;
  Unit<T>* units = reinterpret_cast<Unit<T>*>(smem_raw);
  T* sa = reinterpret_cast<T*>(smem_raw + units_bytes(g_count, sizeof(Unit<T>)));
  const int plane = nthreads * p.pitch;
  T* sb = sa + plane;
  T* sc = sb + plane;
  T* sd = sc + plane;
  load_tile(p, L, z, units, a, b, c, d, sa, sb, sc, sd);

  const int tid = threadIdx.x;
  const int q = tid >> p.glog;
  const Unit<T> un = units[tid & (g_count - 1)];
  const bool active = q < un.pu;
  const int cl = active ? un.cbase + (q < un.crem) : 0;
  const int e0 = tid * p.pitch;

  // Couplings out of the unit: known values (pass 2) move to the right-hand side; at a
  // system's ends they are the ignored a[0] and c[N-1]. Done on the thread's own rows in
  // shared memory: row cl-1 of a register array would need a runtime index (local memory).
  if (active && q == 0) {
    if (!un.first) sd[e0] -= sa[e0] * un.xl;
    sa[e0] = 0;
  }
  if (active && q == un.pu - 1) {
    const int e = e0 + cl - 1;
    if (!un.last) sd[e] -= sc[e] * un.xr;
    sc[e] = 0;
  }
  T ra[L], rb[L], rc[L], rd[L];
#pragma unroll
  for (int j = 0; j < L; ++j) {
    ra[j] = 0;
    rb[j] = 1;
    rc[j] = 0;
    rd[j] = 0;
    if (j < cl) {
      ra[j] = sa[e0 + j];
      rb[j] = sb[e0 + j];
      rc[j] = sc[e0 + j];
      rd[j] = sd[e0 + j];
    }
  }

  const bool partition = active && un.pu > 1;
  T top_a = 0, top_c = 0, top_d = 0;  // x_lo + top_a x_{lo-1} + top_c x_hi = top_d
  T bot_a = 0, bot_c = 0, bot_d = 0;  // x_hi + bot_a x_lo + bot_c x_{hi+1} = bot_d
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
        bot_a = ra[j];
        bot_c = rc[j];
        bot_d = rd[j];
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
    top_a = ra[0] * r0;
    top_c = -rc[0] * c1 * r0;
    top_d = (rd[0] - rc[0] * d1) * r0;
  }

  if (p.p > 1) {
    // Reduced system of each unit, one equation per thread in w_q = x_hi(q): x_lo(q) from
    // the top equation of q and x_lo(q+1) from that of q+1 substituted into the bottom one:
    //   A = -bot_a top_a,  B = 1 - bot_a top_c - bot_c top_a(q+1),  C = -bot_c top_c(q+1),
    //   D = bot_d - bot_a top_d - bot_c top_d(q+1).
    // Every chunk is in registers now: sa, sb, sc hold the reduced equations.
    T* ea = sa;
    T* eb = sb;
    T* ec = sc;
    T* ed = sa + nthreads;
    T* ew = sb + nthreads;
    __syncthreads();
    ea[tid] = top_a;
    ec[tid] = top_c;
    ed[tid] = top_d;
    __syncthreads();
    T ea_r = 0, eb_r = 1, ec_r = 0, ed_r = 0;
    if (partition) {
      T na = 0, nc = 0, nd = 0;
      if (q + 1 < un.pu) {
        na = ea[tid + g_count];
        nc = ec[tid + g_count];
        nd = ed[tid + g_count];
      }
      ea_r = -bot_a * top_a;
      eb_r = T(1) - bot_a * top_c - bot_c * na;
      ec_r = -bot_c * nc;
      ed_r = bot_d - bot_a * top_d - bot_c * nd;
    }
    // PCR with distance h (out-of-unit neighbours are the null equation):
    //   k1 = A_q / B_{q-h}, k2 = C_q / B_{q+h}, A' = -A_{q-h} k1, C' = -C_{q+h} k2,
    //   B' = B_q - C_{q-h} k1 - A_{q+h} k2, D' = D_q - D_{q-h} k1 - D_{q+h} k2.
    for (int h = 1; h < p.p; h <<= 1) {
      __syncthreads();
      ea[tid] = ea_r;
      eb[tid] = eb_r;
      ec[tid] = ec_r;
      ed[tid] = ed_r;
      __syncthreads();
      if (partition) {
        T am = 0, bm = 1, cm = 0, dm = 0, ap = 0, bp = 1, cp = 0, dp = 0;
        if (q - h >= 0) {
          const int e = tid - h * g_count;
          am = ea[e];
          bm = eb[e];
          cm = ec[e];
          dm = ed[e];
        }
        if (q + h < un.pu) {
          const int e = tid + h * g_count;
          ap = ea[e];
          bp = eb[e];
          cp = ec[e];
          dp = ed[e];
        }
        const T k1 = ea_r / bm;
        const T k2 = ec_r / bp;
        ea_r = -am * k1;
        ec_r = -cp * k2;
        eb_r = eb_r - cm * k1 - ap * k2;
        ed_r = ed_r - dm * k1 - dp * k2;
      }
    }
    const T w = ed_r / eb_r;
    ew[tid] = w;
    __syncthreads();
    if (partition) {
      const T wm = q > 0 ? ew[tid - g_count] : T(0);
      const T xlo = top_d - top_a * wm - top_c * w;
#pragma unroll
      for (int j = 1; j < L; ++j) {
        if (j < cl - 1) sd[e0 + j] = rd[j] - ra[j] * xlo - rc[j] * w;
      }
      sd[e0] = xlo;
      sd[e0 + cl - 1] = w;
    }
  }
  if (active && un.pu == 1) {
#pragma unroll
    for (int j = 0; j < L; ++j) {
      if (j < cl) sd[e0 + j] = rd[j];
    }
  }
  __syncthreads();
  for_each_row(p, units, [&](int e, std::int64_t at) { x[at] = sd[e]; });
}

// Pass 1 of the partition method: one thread per unit (chunk) of up to unit_rows rows
// reduces it to its top and bottom equations (file comment) by a bottom-up and a top-down
// elimination, interleaved so the two dependency chains overlap, reading the tile from
// shared memory. Writes them as rows 2k (top) and 2k+1 (bottom) of the reduced system of
// system s (contiguous, 2 units_per_sys rows each), unit diagonal.
template <typename T>
__global__ void __launch_bounds__(kReduceThreads)
    reduce_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                  const T* __restrict__ d, T* __restrict__ ra, T* __restrict__ rb,
                  T* __restrict__ rc, T* __restrict__ rd, TileArgs p) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const int g_count = 1 << p.glog;
  Unit<T>* units = reinterpret_cast<Unit<T>*>(smem_raw);
  T* sa = reinterpret_cast<T*>(smem_raw + units_bytes(g_count, sizeof(Unit<T>)));
  const int plane = static_cast<int>(blockDim.x) * p.pitch;
  T* sb = sa + plane;
  T* sc = sb + plane;
  T* sd = sc + plane;
  load_tile<T>(p, p.pitch, nullptr, units, a, b, c, d, sa, sb, sc, sd);

  const Unit<T> un = units[threadIdx.x];
  if (un.pu == 0) return;
  const int n = un.len;
  const int e0 = threadIdx.x * p.pitch;
  auto a_at = [&](int j) { return j == 0 && un.first ? T(0) : sa[e0 + j]; };
  auto c_at = [&](int j) { return j == n - 1 && un.last ? T(0) : sc[e0 + j]; };
  T top_a, top_c, top_d, bot_a, bot_c, bot_d;
  if (n == 1) {
    // Only a system's last unit can have one row (c ignored): the top equation is the row,
    // the bottom one says x_hi = x_lo.
    const T r = T(1) / sb[e0];
    top_a = a_at(0) * r;
    top_c = 0;
    top_d = sd[e0] * r;
    bot_a = -1;
    bot_c = 0;
    bot_d = 0;
  } else {
    // Top-down from row 1: x_j + bot_c x_{j+1} + bot_a x_lo = bot_d (recurrences as in
    // solve_kernel); bottom-up from row n-2: x_j + top_a x_{j-1} + top_c x_hi = top_d,
    //   r = 1 / (b_j - c_j top_a), top_a = a_j r, top_c = -c_j top_c r,
    //   top_d = (d_j - c_j top_d) r.
    T r = T(1) / sb[e0 + 1];
    bot_a = sa[e0 + 1] * r;
    bot_c = c_at(1) * r;
    bot_d = sd[e0 + 1] * r;
    r = T(1) / sb[e0 + n - 2];
    top_a = a_at(n - 2) * r;
    top_c = sc[e0 + n - 2] * r;
    top_d = sd[e0 + n - 2] * r;
    for (int t = 2; t < n; ++t) {
      const int j = e0 + t;
      const T aj = sa[j];
      const T rj = T(1) / (sb[j] - aj * bot_c);
      bot_d = (sd[j] - aj * bot_d) * rj;
      bot_a = -aj * bot_a * rj;
      bot_c = c_at(t) * rj;
      const int i = e0 + n - 1 - t;
      const T ci = sc[i];
      const T ri = T(1) / (sb[i] - ci * top_a);
      top_d = (sd[i] - ci * top_d) * ri;
      top_c = -ci * top_c * ri;
      top_a = a_at(n - 1 - t) * ri;
    }
  }
  ra[un.out] = top_a;
  rb[un.out] = 1;
  rc[un.out] = top_c;
  rd[un.out] = top_d;
  ra[un.out + 1] = bot_a;
  rb[un.out + 1] = 1;
  rc[un.out + 1] = bot_c;
  rd[un.out + 1] = bot_d;
}

struct DeviceLimits {
  int sms = 0;
  std::size_t smem_optin = 0;
};

DeviceLimits device_limits() {
  int dev = 0;
  PRISM_CUDA_CHECK(cudaGetDevice(&dev));
  int sms = 0;
  int optin = 0;
  PRISM_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  PRISM_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev));
  return {sms, static_cast<std::size_t>(optin)};
}

int floor_log2(std::int64_t v) {
  int k = 0;
  while ((std::int64_t{2} << k) <= v) ++k;
  return k;
}

// One kernel launch: its arguments, grid and shared memory.
struct Launch {
  TileArgs args{};
  std::int64_t blocks = 0;
  int threads = 0;
  std::size_t shared_bytes = 0;
};

// Fewest units per block for coalesced tiles: 1 when a unit's rows are contiguous; with
// interleaved data a tile row holds G neighbouring systems, so G fills a 32-byte sector
// (4 doubles, 8 floats) or holds every system.
template <typename T>
int min_units_per_block(std::int64_t row_stride, std::int64_t m) {
  if (row_stride == 1) return 1;
  const int sector = static_cast<int>(32 / sizeof(T));
  int g = 1;
  while (g < sector && g < m) g *= 2;
  return g;
}

// Shapes a launch over the units of (n, m) cut into units of unit_rows rows, with up to
// rows_per_thread rows per thread (p threads per unit) and about target_threads threads per
// block (G a power of two, at least min_units_per_block). G then shrinks while the grid
// would leave SMs with fewer than two blocks, so small batches spread over the GPU instead
// of piling into a few blocks.
template <typename T>
Launch shape_launch(std::int64_t n, std::int64_t m, std::int64_t sys_stride,
                    std::int64_t row_stride, std::int64_t unit_rows, int rows_per_thread,
                    int target_threads, int sms) {
  Launch l;
  TileArgs& p = l.args;
  p.n = n;
  p.m = m;
  p.sys_stride = sys_stride;
  p.row_stride = row_stride;
  p.unit_rows = unit_rows;
  p.units_per_sys = (n + unit_rows - 1) / unit_rows;
  p.units_total = m * p.units_per_sys;
  p.row_fastest = row_stride == 1;
  p.p = unit_rows <= rows_per_thread
            ? 1
            : static_cast<int>((unit_rows + rows_per_thread - 1) / rows_per_thread);
  p.pitch = static_cast<int>((unit_rows + p.p - 1) / p.p) | 1;  // longest chunk, made odd
  const int glog_min = floor_log2(min_units_per_block<T>(row_stride, m));
  int glog = std::max(glog_min, floor_log2(std::max(1, target_threads / p.p)));
  while (glog > glog_min && ((p.units_total + (std::int64_t{1} << glog) - 1) >> glog) < 2 * sms) {
    --glog;
  }
  p.glog = glog;
  const int g = 1 << glog;
  l.threads = g * p.p;
  l.blocks = (p.units_total + g - 1) >> glog;
  l.shared_bytes = units_bytes(g, sizeof(Unit<T>)) +
                   4 * static_cast<std::size_t>(l.threads) * p.pitch * sizeof(T);
  // Slot indices of a tile stay below kSmallDivLimit (kMaxThreads x an odd pitch of at
  // most kReduceRows + 1).
  if (l.threads * p.pitch >= kSmallDivLimit) throw ConfigError("tridiagonal_solve: tile too large");
  p.div_pitch = SmallDiv(p.pitch);
  p.div_unit = SmallDiv(p.p * p.pitch);
  return l;
}

// Rule for the path: one pass when the fewest systems a coalesced block holds
// (min_units_per_block) fit one block of at most kMaxThreads threads in half the shared
// memory an SM has (so two such blocks overlap loads with compute), else the two-pass
// partition method (2 rows per kReduceRows rows reduced), recursively until the reduced
// systems (contiguous) fit.
template <typename T>
bool fits_one_pass(std::int64_t n, std::int64_t m, std::int64_t row_stride,
                   const DeviceLimits& dev) {
  const std::int64_t g = min_units_per_block<T>(row_stride, m);
  const std::int64_t p = (n + kChunkRows<T> - 1) / kChunkRows<T>;
  if (g * p > kMaxThreads) return false;
  const std::int64_t pitch = ((n + p - 1) / p) | 1;
  const std::size_t bytes =
      units_bytes(static_cast<int>(g), sizeof(Unit<T>)) +
      4 * static_cast<std::size_t>(g * p) * static_cast<std::size_t>(pitch) * sizeof(T);
  return bytes <= std::max<std::size_t>(48 * 1024, dev.smem_optin / 2);
}

template <typename T>
std::int64_t reduced_rows(std::int64_t n) {
  return 2 * ((n + kReduceRows<T> - 1) / kReduceRows<T>);
}

// Elements of workspace for (n, m): the reduced system's a, b, c, d (its x overwrites d)
// and what its own solve needs.
template <typename T>
std::int64_t workspace_elems(std::int64_t n, std::int64_t m, std::int64_t row_stride,
                             const DeviceLimits& dev) {
  if (fits_one_pass<T>(n, m, row_stride, dev)) return 0;
  const std::int64_t n2 = reduced_rows<T>(n);
  return 4 * n2 * m + workspace_elems<T>(n2, m, 1, dev);
}

template <typename T>
Launch one_pass_launch(std::int64_t n, std::int64_t m, std::int64_t sys_stride,
                       std::int64_t row_stride, const DeviceLimits& dev) {
  return shape_launch<T>(n, m, sys_stride, row_stride, n, kChunkRows<T>, kTargetThreads, dev.sms);
}

void set_shared(const void* kernel, std::size_t bytes) {
  if (bytes > 48 * 1024) {
    PRISM_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(bytes)));
  }
}

template <typename T>
void launch_solve(const Launch& l, const T* a, const T* b, const T* c, const T* d, T* x, const T* z,
                  cudaStream_t stream) {
  if (l.blocks > 0x7fffffff) throw ConfigError("tridiagonal_solve: too many systems");
  constexpr int kL = kChunkRows<T>;
  set_shared(reinterpret_cast<const void*>(&solve_kernel<T, kL>), l.shared_bytes);
  solve_kernel<T, kL><<<static_cast<unsigned>(l.blocks), l.threads, l.shared_bytes, stream>>>(
      a, b, c, d, x, z, l.args);
  PRISM_CUDA_CHECK_LAUNCH();
}

template <typename T>
void solve_level(std::int64_t n, std::int64_t m, std::int64_t sys_stride, std::int64_t row_stride,
                 const T* a, const T* b, const T* c, const T* d, T* x, T* work,
                 const DeviceLimits& dev, cudaStream_t stream) {
  if (fits_one_pass<T>(n, m, row_stride, dev)) {
    launch_solve(one_pass_launch<T>(n, m, sys_stride, row_stride, dev), a, b, c, d, x,
                 static_cast<const T*>(nullptr), stream);
    return;
  }
  const std::int64_t n2 = reduced_rows<T>(n);
  T* ra = work;
  T* rb = ra + n2 * m;
  T* rc = rb + n2 * m;
  T* rd = rc + n2 * m;
  const Launch l1 = shape_launch<T>(n, m, sys_stride, row_stride, kReduceRows<T>, kReduceRows<T>,
                                    kReduceThreads, dev.sms);
  if (l1.blocks > 0x7fffffff) throw ConfigError("tridiagonal_solve: too many systems");
  set_shared(reinterpret_cast<const void*>(&reduce_kernel<T>), l1.shared_bytes);
  reduce_kernel<T><<<static_cast<unsigned>(l1.blocks), l1.threads, l1.shared_bytes, stream>>>(
      a, b, c, d, ra, rb, rc, rd, l1.args);
  PRISM_CUDA_CHECK_LAUNCH();
  solve_level<T>(n2, m, n2, 1, ra, rb, rc, rd, rd, rd + n2 * m, dev, stream);
  const Launch l2 = shape_launch<T>(n, m, sys_stride, row_stride, kReduceRows<T>, kChunkRows<T>,
                                    kTargetThreads, dev.sms);
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
  plan.workspace_bytes =
      static_cast<std::size_t>(workspace_elems<T>(n, m, row_stride, dev)) * sizeof(T);
  while (!fits_one_pass<T>(n, m, row_stride, dev)) {
    if (plan.levels == 0) plan.reduce_rows = kReduceRows<T>;
    ++plan.levels;
    n = reduced_rows<T>(n);
    row_stride = 1;
  }
  const Launch l = one_pass_launch<T>(n, m, row_stride == 1 ? n : 1, row_stride, dev);
  plan.reduced_rows = plan.levels > 0 ? n : 0;
  plan.chunk_rows = kChunkRows<T>;
  plan.threads_per_system = l.args.p;
  plan.systems_per_block = 1 << l.args.glog;
  plan.block_threads = l.threads;
  plan.shared_bytes = l.shared_bytes;
  constexpr int kL = kChunkRows<T>;
  const void* kernel = reinterpret_cast<const void*>(&solve_kernel<T, kL>);
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
      static_cast<std::size_t>(workspace_elems<T>(n, m, contiguous ? 1 : m, dev)) * sizeof(T);
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
