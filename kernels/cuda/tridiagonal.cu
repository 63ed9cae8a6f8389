// Tiled PCR + p-Thomas (Kim, Wu, Chang, Hwu, ICPP 2011) for batched tridiagonal systems.
//
// Memory traffic per row of every system (T = element type):
//   in-shared path: reads a, b, c, d once and writes x once: 5 sizeof(T) bytes, the floor.
//   tiled path:     window PCR reads 4 and writes 4, then the in-shared path reads 4 and
//                   writes 1: 13 sizeof(T) (plus 2 (2^k - 1) halo rows per segment).
// One PCR step with distance h (rows outside the system are the null equation x = 0):
//   k1 = a_i / b_{i-h},  k2 = c_i / b_{i+h}
//   a'_i = -a_{i-h} k1,  c'_i = -c_{i+h} k2
//   b'_i = b_i - c_{i-h} k1 - a_{i+h} k2,  d'_i = d_i - d_{i-h} k1 - d_{i+h} k2
// After k steps, rows j, j + 2^k, j + 2 2^k, ... form an independent system (phase j).

#include "kernels/cuda/tridiagonal.hpp"

#include "kernels/cuda/check.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include <prism/errors.hpp>

namespace prism::kernels::cuda {
namespace {

// Rows of one thread in the in-shared PCR steps, kept in registers between barriers:
// 4 equations of 32 bytes fit the 64 registers a 1024-thread block allows.
template <typename T>
constexpr int kRowsPerThread = 32 / sizeof(T);
// Shared memory an in-shared block aims for: 2 to 3 blocks per SM on Hopper (228 KB),
// so one block loads while another computes.
constexpr std::size_t kSharedBudget = 96 * 1024;
// PCR steps of the window kernel; its block has >= 2^k threads (at most 1024).
constexpr int kMaxWindowSteps = 10;
constexpr int kMinWindowThreads = 256;

// Subsystem q, row r -> original system s = q >> kl, phase j = q mod 2^kl,
// original row i = j + r 2^kl; element at s * sys_stride + i * row_stride.
struct SubsystemView {
  std::int64_t sys_stride;
  std::int64_t row_stride;
  int kl;
  __device__ std::int64_t at(std::int64_t q, std::int64_t r) const {
    const std::int64_t s = q >> kl;
    const std::int64_t j = q & ((std::int64_t{1} << kl) - 1);
    return s * sys_stride + (j + (r << kl)) * row_stride;
  }
  // Rows of subsystem q when the original systems have n rows.
  __device__ std::int64_t length(std::int64_t q, std::int64_t n) const {
    const std::int64_t j = q & ((std::int64_t{1} << kl) - 1);
    return (n - j + (std::int64_t{1} << kl) - 1) >> kl;
  }
};

struct InSharedArgs {
  SubsystemView in;
  SubsystemView out;
  bool in_row_fastest;  // consecutive rows of a subsystem are adjacent in memory
  bool out_row_fastest;
  std::int64_t n;        // rows of the original systems
  std::int64_t q_total;  // number of subsystems
  int g;                 // subsystems per block
  int pitch;             // shared row pitch (odd: spreads banks)
  int nmax;              // longest subsystem
  int k_shared;
};

// Maps flat index f of the block's G x nmax elements to (subsystem g, row r) so that
// consecutive f touch consecutive global addresses.
__device__ inline void flat_to_gr(int f, bool row_fastest, int g_count, int nmax, int& g, int& r) {
  if (row_fastest) {
    g = f / nmax;
    r = f - g * nmax;
  } else {
    r = f / g_count;
    g = f - r * g_count;
  }
}

// In-shared path: read G subsystems once, k_shared PCR steps in shared memory, p-Thomas
// (one thread per resulting subsystem), write x once. Padded rows are null equations.
template <typename T>
__global__ void __launch_bounds__(1024)
    in_shared_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                     const T* d, T* x, InSharedArgs p) {
  extern __shared__ unsigned char smem_raw[];
  const int plane = p.nmax * p.pitch;
  T* sa = reinterpret_cast<T*>(smem_raw);
  T* sb = sa + plane;
  T* sc = sb + plane;
  T* sd = sc + plane;
  const std::int64_t q0 = static_cast<std::int64_t>(blockIdx.x) * p.g;
  const int total = p.nmax * p.g;

  // Unrolled so that several rows' loads are in flight before the shared stores.
#pragma unroll 4
  for (int f = threadIdx.x; f < total; f += blockDim.x) {
    int g, r;
    flat_to_gr(f, p.in_row_fastest, p.g, p.nmax, g, r);
    const std::int64_t q = q0 + g;
    T va = 0, vb = 1, vc = 0, vd = 0;
    if (q < p.q_total) {
      const std::int64_t len = p.in.length(q, p.n);
      if (r < len) {
        const std::int64_t at = p.in.at(q, r);
        vb = b[at];
        vd = d[at];
        va = r == 0 ? T(0) : a[at];
        vc = r == len - 1 ? T(0) : c[at];
      }
    }
    const int e = r * p.pitch + g;
    sa[e] = va;
    sb[e] = vb;
    sc[e] = vc;
    sd[e] = vd;
  }
  __syncthreads();

  // k_shared PCR steps; each thread updates up to kRowsPerThread rows between barriers.
  for (int s = 0; s < p.k_shared; ++s) {
    const int h = 1 << s;
    T na[kRowsPerThread<T>], nb[kRowsPerThread<T>], nc[kRowsPerThread<T>], nd[kRowsPerThread<T>];
#pragma unroll
    for (int k = 0; k < kRowsPerThread<T>; ++k) {
      const int f = threadIdx.x + k * blockDim.x;
      if (f < total) {
        const int r = f / p.g;
        const int e = r * p.pitch + (f - r * p.g);
        T am = 0, bm = 1, cm = 0, dm = 0;
        T ap = 0, bp = 1, cp = 0, dp = 0;
        if (r - h >= 0) {
          const int em = e - h * p.pitch;
          am = sa[em];
          bm = sb[em];
          cm = sc[em];
          dm = sd[em];
        }
        if (r + h < p.nmax) {
          const int ep = e + h * p.pitch;
          ap = sa[ep];
          bp = sb[ep];
          cp = sc[ep];
          dp = sd[ep];
        }
        const T k1 = sa[e] / bm;
        const T k2 = sc[e] / bp;
        na[k] = -am * k1;
        nc[k] = -cp * k2;
        nb[k] = sb[e] - cm * k1 - ap * k2;
        nd[k] = sd[e] - dm * k1 - dp * k2;
      }
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kRowsPerThread<T>; ++k) {
      const int f = threadIdx.x + k * blockDim.x;
      if (f < total) {
        const int r = f / p.g;
        const int e = r * p.pitch + (f - r * p.g);
        sa[e] = na[k];
        sb[e] = nb[k];
        sc[e] = nc[k];
        sd[e] = nd[k];
      }
    }
    __syncthreads();
  }

  // p-Thomas: thread (g, j) solves rows j, j + 2^k_shared, ... of subsystem g in place
  // (c' over c, d' over d, then x over d').
  const int phases = 1 << p.k_shared;
  if (static_cast<int>(threadIdx.x) < p.g * phases) {
    const int g = threadIdx.x % p.g;
    const int j = threadIdx.x / p.g;
    if (j < p.nmax) {
      const int step = phases * p.pitch;
      const int count = (p.nmax - j + phases - 1) / phases;
      int e = j * p.pitch + g;
      T inv = T(1) / sb[e];
      T cprev = sc[e] * inv;
      T dprev = sd[e] * inv;
      sc[e] = cprev;
      sd[e] = dprev;
      for (int t = 1; t < count; ++t) {
        e += step;
        const T ai = sa[e];
        inv = T(1) / (sb[e] - ai * cprev);
        cprev = sc[e] * inv;
        dprev = (sd[e] - ai * dprev) * inv;
        sc[e] = cprev;
        sd[e] = dprev;
      }
      T xnext = dprev;
      for (int t = count - 2; t >= 0; --t) {
        e -= step;
        xnext = sd[e] - sc[e] * xnext;
        sd[e] = xnext;
      }
    }
  }
  __syncthreads();

#pragma unroll 4
  for (int f = threadIdx.x; f < total; f += blockDim.x) {
    int g, r;
    flat_to_gr(f, p.out_row_fastest, p.g, p.nmax, g, r);
    const std::int64_t q = q0 + g;
    if (q < p.q_total && r < p.out.length(q, p.n)) x[p.out.at(q, r)] = sd[r * p.pitch + g];
  }
}

struct WindowArgs {
  std::int64_t n;
  std::int64_t m;
  std::int64_t sys_stride;  // input layout
  std::int64_t row_stride;
  std::int64_t segments;  // windows per system
  std::int64_t seg_len;   // output rows per window
  int k;                  // PCR steps
};

// Tiled PCR with the buffered sliding window (paper Sec. III-A, Fig. 9-10). One block
// slides over one segment of one system in sub-tiles of B = blockDim.x rows. Level s of
// the pipeline lags the loads by 2^s - 1 rows; the last 2^(s+1) level-s equations of a
// sub-tile are cached for the next one, so no halo is reloaded or recomputed inside a
// segment (2 (2^k - 1) rows are loaded twice per segment boundary, Fig. 11b).
// work: [cache of level s (2^(s+1) rows) | B new level-s rows]; caches for all levels:
// 2 (2^k - 1) rows. Writes the level-k equations to w* (contiguous: s n + i).
template <typename T>
__global__ void __launch_bounds__(1024)
    window_pcr_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                      const T* __restrict__ d, T* __restrict__ wa, T* __restrict__ wb,
                      T* __restrict__ wc, T* __restrict__ wd, WindowArgs p) {
  extern __shared__ unsigned char smem_raw[];
  const int bsz = blockDim.x;
  const int tid = threadIdx.x;
  const int work_len = bsz + (1 << p.k);
  const int cache_len = (2 << p.k) - 2;
  T* xa = reinterpret_cast<T*>(smem_raw);
  T* xb = xa + work_len;
  T* xc = xb + work_len;
  T* xd = xc + work_len;
  T* ca = xd + work_len;
  T* cb = ca + cache_len;
  T* cc = cb + cache_len;
  T* cd = cc + cache_len;

  const std::int64_t sys = blockIdx.x / p.segments;
  const std::int64_t seg = blockIdx.x - sys * p.segments;
  if (sys >= p.m) return;
  const std::int64_t r0 = seg * p.seg_len;
  const std::int64_t r1 = min(p.n, r0 + p.seg_len);
  const std::int64_t lag = (std::int64_t{1} << p.k) - 1;
  const std::int64_t base = sys * p.sys_stride;

  // Equations before the window's first load start as the null equation: exact before
  // row 0; elsewhere they only reach outputs below r0, which are not stored.
  for (int i = tid; i < cache_len; i += bsz) {
    ca[i] = 0;
    cb[i] = 1;
    cc[i] = 0;
    cd[i] = 0;
  }
  __syncthreads();

  for (std::int64_t t0 = r0 - lag; t0 - lag < r1; t0 += bsz) {
    {
      const std::int64_t i = t0 + tid;
      T va = 0, vb = 1, vc = 0, vd = 0;
      if (i >= 0 && i < p.n) {
        const std::int64_t at = base + i * p.row_stride;
        vb = b[at];
        vd = d[at];
        va = i == 0 ? T(0) : a[at];
        vc = i == p.n - 1 ? T(0) : c[at];
      }
      xa[2 + tid] = va;
      xb[2 + tid] = vb;
      xc[2 + tid] = vc;
      xd[2 + tid] = vd;
      if (tid < 2) {
        xa[tid] = ca[tid];
        xb[tid] = cb[tid];
        xc[tid] = cc[tid];
        xd[tid] = cd[tid];
      }
    }
    __syncthreads();
    for (int s = 0; s < p.k; ++s) {
      const int h = 1 << s;
      const int cached = 2 * h;  // level-s rows kept from the previous sub-tile
      // Level s+1 row t0 - (2^(s+1) - 1) + tid: centre at tid + h in the work buffer.
      const int e = tid + h;
      const T k1 = xa[e] / xb[e - h];
      const T k2 = xc[e] / xb[e + h];
      const T na = -xa[e - h] * k1;
      const T nc = -xc[e + h] * k2;
      const T nb = xb[e] - xc[e - h] * k1 - xa[e + h] * k2;
      const T nd = xd[e] - xd[e - h] * k1 - xd[e + h] * k2;
      const int coff = cached - 2;  // start of level s in the caches
      if (tid < cached) {
        ca[coff + tid] = xa[bsz + tid];
        cb[coff + tid] = xb[bsz + tid];
        cc[coff + tid] = xc[bsz + tid];
        cd[coff + tid] = xd[bsz + tid];
      }
      __syncthreads();
      if (s + 1 < p.k) {
        const int next_cached = 2 * cached;
        xa[next_cached + tid] = na;
        xb[next_cached + tid] = nb;
        xc[next_cached + tid] = nc;
        xd[next_cached + tid] = nd;
        if (tid < next_cached) {
          const int noff = next_cached - 2;
          xa[tid] = ca[noff + tid];
          xb[tid] = cb[noff + tid];
          xc[tid] = cc[noff + tid];
          xd[tid] = cd[noff + tid];
        }
        __syncthreads();
      } else {
        const std::int64_t i = t0 - lag + tid;
        if (i >= r0 && i < r1) {
          const std::int64_t at = sys * p.n + i;
          wa[at] = na;
          wb[at] = nb;
          wc[at] = nc;
          wd[at] = nd;
        }
      }
    }
  }
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

std::int64_t floor_pow2(std::int64_t v) {
  std::int64_t p = 1;
  while (p * 2 <= v) p *= 2;
  return p;
}

template <typename T>
int window_blocks_per_sm(int threads, std::size_t smem) {
  if (smem > 48 * 1024) {
    PRISM_CUDA_CHECK(cudaFuncSetAttribute(
        window_pcr_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  }
  int blocks = 0;
  PRISM_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, window_pcr_kernel<T>, threads, smem));
  return std::max(blocks, 1);
}

template <typename T>
int in_shared_blocks_per_sm(int threads, std::size_t smem) {
  if (smem > 48 * 1024) {
    PRISM_CUDA_CHECK(cudaFuncSetAttribute(
        in_shared_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  }
  int blocks = 0;
  PRISM_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, in_shared_kernel<T>, threads, smem));
  return std::max(blocks, 1);
}

// The rule for k (paper Sec. III-D, re-derived for Hopper). Parallelism P of the GPU is
// SMs x resident threads. The in-shared kernel holds G systems per block: G is as large
// as the shared budget allows but small enough that M / G blocks give every SM at least
// two blocks (so loads of one overlap the compute of another); k_shared is then the
// largest k with 2^k (subsystems) <= resident threads, so few systems (small M) get many
// PCR steps and many systems get few or none (pure p-Thomas). Systems too long for shared memory
// first take the fewest window PCR steps k_tiled that make their 2^k_tiled subsystems fit;
// more steps would not add parallelism (the subsystems' bytes, hence blocks, stay the same)
// but would add arithmetic and halo.
template <typename T>
TridiagonalPlan make_plan(index_t n_in, index_t m_in) {
  TridiagonalPlan plan;
  if (n_in <= 0 || m_in <= 0) return plan;
  const DeviceLimits dev = device_limits();
  const std::int64_t n = n_in;
  const std::int64_t m = m_in;
  const std::size_t row_bytes = 4 * sizeof(T);
  const std::size_t budget = std::min(kSharedBudget, dev.smem_optin);
  const std::int64_t row_cap = std::min<std::int64_t>(
      static_cast<std::int64_t>(dev.smem_optin / row_bytes), kRowsPerThread<T> * 1024);

  int kl = 0;
  std::int64_t nmax = n;
  if (static_cast<std::size_t>(n) * row_bytes > budget) {
    plan.tiled = true;
    while (kl<kMaxWindowSteps&& static_cast<std::size_t>((n + (std::int64_t{1} << kl) - 1) >> kl) *
              row_bytes>
               budget) {
      ++kl;
    }
    nmax = (n + (std::int64_t{1} << kl) - 1) >> kl;
    if (nmax > row_cap) {
      throw ConfigError("tridiagonal_solve: N = " + std::to_string(n) +
                        " is too large for this device (at most " +
                        std::to_string(row_cap << kMaxWindowSteps) + ")");
    }
  }
  const std::int64_t q_total = m << kl;
  const std::size_t budget_s = std::max(budget, static_cast<std::size_t>(nmax) * row_bytes);

  // G: shared budget (with the padded pitch), filling the SMs, at most 256.
  std::int64_t g_smem = std::max<std::int64_t>(
      1, static_cast<std::int64_t>(budget_s / (row_bytes * static_cast<std::size_t>(nmax))));
  while (g_smem > 1 && static_cast<std::size_t>(g_smem | 1) * nmax * row_bytes > budget_s) --g_smem;
  const std::int64_t g_fill = std::max<std::int64_t>(1, q_total / (2 * dev.sms));
  const std::int64_t g = floor_pow2(std::min({g_smem, g_fill, std::int64_t{256}}));
  const std::int64_t pitch = g | 1;
  std::int64_t threads = (g * nmax + kRowsPerThread<T> - 1) / kRowsPerThread<T>;
  threads = std::max(threads, g);
  threads = std::min<std::int64_t>(1024, std::max<std::int64_t>(32, (threads + 31) / 32 * 32));
  plan.shared_bytes = 4 * static_cast<std::size_t>(nmax * pitch) * sizeof(T);
  // Paper Sec. III-D: the most PCR steps k with 2^k Q <= P, P = threads the in-shared
  // kernel keeps resident on the whole GPU (occupancy x SMs). Each PCR step costs as much
  // as several Thomas passes (2 divisions, 12 shared loads per row; measured on an H200:
  // every extra step over all rows costs about one more full memory pass), so steps are
  // taken only while they still add parallelism.
  const std::int64_t resident =
      static_cast<std::int64_t>(dev.sms) *
      in_shared_blocks_per_sm<T>(static_cast<int>(threads), plan.shared_bytes) * threads;
  int ks = 0;
  while ((g << (ks + 1)) <= threads && (std::int64_t{2} << (ks + 1)) <= nmax &&
         (q_total << (ks + 1)) <= resident) {
    ++ks;
  }

  plan.k_tiled = kl;
  plan.k_shared = ks;
  plan.systems_per_block = static_cast<int>(g);
  plan.shared_threads = static_cast<int>(threads);

  if (plan.tiled) {
    const int bsz = std::max(kMinWindowThreads, 1 << kl);
    const std::size_t smem = (4 * static_cast<std::size_t>(bsz + (1 << kl)) +
                              4 * static_cast<std::size_t>((2 << kl) - 2)) *
                             sizeof(T);
    const std::int64_t target =
        static_cast<std::int64_t>(dev.sms) * window_blocks_per_sm<T>(bsz, smem);
    const std::int64_t segs = std::max<std::int64_t>(1, (target + m - 1) / m);
    const std::int64_t min_len = std::max<std::int64_t>(bsz, 8 * (std::int64_t{1} << kl));
    std::int64_t seg_len = std::max(min_len, (n + segs - 1) / segs);
    seg_len = (seg_len + bsz - 1) / bsz * bsz;
    plan.window_threads = bsz;
    plan.segments = (n + seg_len - 1) / seg_len;
    plan.segment_rows = seg_len;
    plan.workspace_bytes =
        4 * static_cast<std::size_t>(n) * static_cast<std::size_t>(m) * sizeof(T);
  }
  return plan;
}

template <typename T>
void solve(TridiagonalLayout layout, index_t n_in, index_t m_in, const T* a, const T* b, const T* c,
           const T* d, T* x, void* workspace, std::size_t workspace_bytes, cudaStream_t stream) {
  if (n_in < 0 || m_in < 0) throw ConfigError("tridiagonal_solve: negative n or m");
  if (n_in == 0 || m_in == 0) return;
  const TridiagonalPlan plan = make_plan<T>(n_in, m_in);
  const std::int64_t n = n_in;
  const std::int64_t m = m_in;
  const bool contiguous = layout == TridiagonalLayout::contiguous;
  const std::int64_t sys_stride = contiguous ? n : 1;
  const std::int64_t row_stride = contiguous ? 1 : m;

  InSharedArgs p{};
  p.n = n;
  p.q_total = m << plan.k_tiled;
  p.g = plan.systems_per_block;
  p.pitch = plan.systems_per_block | 1;
  p.nmax = static_cast<int>((n + (std::int64_t{1} << plan.k_tiled) - 1) >> plan.k_tiled);
  p.k_shared = plan.k_shared;
  p.out = SubsystemView{sys_stride, row_stride, plan.k_tiled};
  p.out_row_fastest = plan.k_tiled == 0 && row_stride == 1;
  const T* ia = a;
  const T* ib = b;
  const T* ic = c;
  const T* id = d;

  if (plan.tiled) {
    if (workspace == nullptr || workspace_bytes < plan.workspace_bytes) {
      throw ConfigError("tridiagonal_solve: workspace of " + std::to_string(workspace_bytes) +
                        " bytes given, " + std::to_string(plan.workspace_bytes) + " needed");
    }
    T* w = static_cast<T*>(workspace);
    const std::int64_t plane = n * m;
    WindowArgs wp{n, m, sys_stride, row_stride, plan.segments, plan.segment_rows, plan.k_tiled};
    const int kl = plan.k_tiled;
    const std::size_t smem = (4 * static_cast<std::size_t>(plan.window_threads + (1 << kl)) +
                              4 * static_cast<std::size_t>((2 << kl) - 2)) *
                             sizeof(T);
    if (smem > 48 * 1024) {
      PRISM_CUDA_CHECK(cudaFuncSetAttribute(window_pcr_kernel<T>,
                                            cudaFuncAttributeMaxDynamicSharedMemorySize,
                                            static_cast<int>(smem)));
    }
    const std::int64_t blocks = plan.segments * m;
    if (blocks > 0x7fffffff) throw ConfigError("tridiagonal_solve: too many systems");
    window_pcr_kernel<T><<<static_cast<unsigned>(blocks), plan.window_threads, smem, stream>>>(
        a, b, c, d, w, w + plane, w + 2 * plane, w + 3 * plane, wp);
    PRISM_CUDA_CHECK_LAUNCH();
    ia = w;
    ib = w + plane;
    ic = w + 2 * plane;
    id = w + 3 * plane;
    p.in = SubsystemView{n, 1, plan.k_tiled};
    p.in_row_fastest = false;
  } else {
    p.in = SubsystemView{sys_stride, row_stride, 0};
    p.in_row_fastest = row_stride == 1;
  }

  if (plan.shared_bytes > 48 * 1024) {
    PRISM_CUDA_CHECK(cudaFuncSetAttribute(in_shared_kernel<T>,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize,
                                          static_cast<int>(plan.shared_bytes)));
  }
  const std::int64_t blocks = (p.q_total + p.g - 1) / p.g;
  if (blocks > 0x7fffffff) throw ConfigError("tridiagonal_solve: too many systems");
  in_shared_kernel<T>
      <<<static_cast<unsigned>(blocks), plan.shared_threads, plan.shared_bytes, stream>>>(
          ia, ib, ic, id, x, p);
  PRISM_CUDA_CHECK_LAUNCH();
}

}  // namespace

TridiagonalPlan tridiagonal_plan(TridiagonalLayout /*layout*/, index_t n, index_t m,
                                 std::size_t elem_size) {
  if (elem_size == sizeof(float)) return make_plan<float>(n, m);
  if (elem_size == sizeof(double)) return make_plan<double>(n, m);
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
