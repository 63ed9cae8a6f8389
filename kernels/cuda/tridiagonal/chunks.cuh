#pragma once
// How the tridiagonal kernels (kernels/cuda/tridiagonal/) lay their work out: rows per
// thread and block sizes, the units a launch cuts the systems into (LaunchArgs, Unit), which
// thread holds which chunk of rows (ChunkThread), and the loads and stores of a chunk.
// Every thread loads its chunk straight from global memory into registers and stores x
// straight back, with all its loads issued before the first is used: staging tiles through
// shared memory instead costs per-element index arithmetic and shared-memory round trips
// that leave the kernels issue-bound. Internal to this folder.

#include "kernels/cuda/tridiagonal.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace prism::kernels::cuda::tridiagonal {

// Rows per thread of both kernels, kept in registers (4 L values per thread): with 8
// doubles or 16 floats a thread needs about 115 or 106 registers (sm_90), so four 128-thread
// blocks, 16 warps, stay resident per SM (4 per scheduler). Shorter chunks free registers
// for more warps but lengthen the reduced systems, which costs more than the warps bring
// (docs/kernels/tridiagonal.md).
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
// segments (512 threads gain nothing more). Pass 1 and 2 of the two-pass path (4 threads a
// unit, already 32 systems a block) keep 128: for them the larger blocks only cost
// resident blocks.
constexpr int kInterleavedOnePassThreads = 256;
// Blocks of cluster_solve_kernel: kClusterThreads (four blocks per SM, as the single-block
// solves) in clusters of up to kPortableClusterBlocks; a system longer than those hold takes
// blocks of kWideClusterThreads in clusters of up to kMaxClusterBlocks (16 is beyond the
// portable size: only where the device runs it). The wide blocks span twice the rows with the
// same blocks, whose count the barrier and the interface sweep grow with; while the narrow
// blocks fit a portable cluster they win, and past it the wide ones beat two passes
// (docs/kernels/tridiagonal.md).
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

// A block's dynamic shared memory as every kernel here lays it out: the G units' facts
// first (chunk_thread fills them), then the kernel's per-thread planes of T, blockDim.x
// values each.
template <typename T>
struct BlockShared {
  Unit<T>* units;
  T* planes;
};

template <typename T>
__device__ __forceinline__ BlockShared<T> block_shared(unsigned char* smem, const LaunchArgs& p) {
  return {reinterpret_cast<Unit<T>*>(smem),
          reinterpret_cast<T*>(smem + units_bytes(1 << p.glog, sizeof(Unit<T>)))};
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

}  // namespace prism::kernels::cuda::tridiagonal
