// The one-pass solve of systems longer than a thread block takes, in a thread-block cluster
// (sm_90 and later) whose blocks solve their shares' interface system together through
// distributed shared memory.

#include "kernels/cuda/tridiagonal/chunks.cuh"
#include "kernels/cuda/tridiagonal/launch.cuh"
#include "kernels/cuda/tridiagonal/partition.cuh"

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/cuda/launch_config.hpp"

#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <type_traits>

namespace prism::kernels::cuda::tridiagonal {
namespace {

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
// Each of those choices beat the simpler alternative (docs/kernels/tridiagonal.md): the
// interface terms are written into every block before the barrier rather than read
// remotely after it, one lane per (block, system) forms them rather than one thread per
// system, the sweep runs as warp scans rather than in one thread, and the sweep's two
// divisions stay exact (a fast reciprocal gains too little to give up exactness). There is
// one cluster barrier that waits for other blocks' work (the other, arrived at the start,
// only makes sure they run), not one per PCR step as when PCR spans the cluster, which
// loses even to two passes. With that the cluster beats the two-pass path on the systems it
// takes, and the reduced systems of longer ones gain from it too; a single block still
// beats a cluster where it holds the system, so a cluster only takes what one block
// cannot.
template <typename T, int L, bool kFull>
__global__ void __launch_bounds__(kWideClusterThreads)
    cluster_solve_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                         const T* d, T* x, LaunchArgs p) {
  wait_for_previous();
  allow_next();
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const BlockShared<T> sh = block_shared<T>(smem_raw, p);
  const int g_count = 1 << p.glog;
  // Planes: the equations (a, c, d) with two more right-hand sides (f, g); a then holds w.
  const int nthreads = blockDim.x;
  T* const pa = sh.planes;
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
  const ChunkThread<T> t = chunk_thread<T, L>(p, sh.units, static_cast<const T*>(nullptr));
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

}  // namespace

template <typename T>
const void* cluster_kernel(bool full) {
  constexpr int kL = kChunkRows<T>;
  return full ? kernel_id(&cluster_solve_kernel<T, kL, true>)
              : kernel_id(&cluster_solve_kernel<T, kL, false>);
}

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

template <typename T>
void launch_cluster(const Launch& l, const T* a, const T* b, const T* c, const T* d, T* x,
                    cudaStream_t stream) {
  constexpr int kL = kChunkRows<T>;
  void (*kernel)(const T*, const T*, const T*, const T*, T*, LaunchArgs) =
      all_chunks_full<T>(l.args) ? cluster_solve_kernel<T, kL, true>
                                 : cluster_solve_kernel<T, kL, false>;
  reserve_dynamic_shared(kernel_id(kernel), l.shared_bytes, "tridiagonal_solve");
  if ((1 << l.args.clog) > kPortableClusterBlocks) {  // as max_cluster_blocks allowed
    PRISM_CUDA_CHECK(cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel),
                                          cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  }
  cudaLaunchAttribute attrs[2] = {};
  const cudaLaunchConfig_t config =
      cluster_config(static_cast<unsigned>(l.blocks), static_cast<unsigned>(l.threads),
                     l.shared_bytes, 1u << l.args.clog, stream, attrs);
  PRISM_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, a, b, c, d, x, l.args));
}

template const void* cluster_kernel<float>(bool);
template const void* cluster_kernel<double>(bool);
template int max_cluster_blocks<float, kClusterThreads>();
template int max_cluster_blocks<float, kWideClusterThreads>();
template int max_cluster_blocks<double, kClusterThreads>();
template int max_cluster_blocks<double, kWideClusterThreads>();
template void launch_cluster<float>(const Launch&, const float*, const float*, const float*,
                                    const float*, float*, cudaStream_t);
template void launch_cluster<double>(const Launch&, const double*, const double*, const double*,
                                     const double*, double*, cudaStream_t);

}  // namespace prism::kernels::cuda::tridiagonal
