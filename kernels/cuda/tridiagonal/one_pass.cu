// The one-pass solve in one thread block (also pass 2 of the two-pass path).

#include "kernels/cuda/tridiagonal/chunks.cuh"
#include "kernels/cuda/tridiagonal/launch.cuh"
#include "kernels/cuda/tridiagonal/partition.cuh"

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/cuda/launch_config.hpp"

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>

namespace prism::kernels::cuda::tridiagonal {
namespace {

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
  const BlockShared<T> sh = block_shared<T>(smem_raw, p);
  // Planes: the reduced equations (a, c, d), then w.
  const int nthreads = blockDim.x;
  T* const ea = sh.planes;
  T* const ec = ea + nthreads;
  T* const ed = ec + nthreads;
  T* const ew = ed + nthreads;
  const int tid = threadIdx.x;
  const ChunkThread<T> t = chunk_thread<T, L>(p, sh.units, z);
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

}  // namespace

template <typename T>
const void* one_pass_kernel(bool full) {
  constexpr int kL = kChunkRows<T>;
  return full ? kernel_id(&solve_kernel<T, kL, true>) : kernel_id(&solve_kernel<T, kL, false>);
}

template <typename T>
int one_pass_threads() {
  static std::atomic<int> cache[kCachedDevices] = {};
  return cached_per_device(cache, [](int) {
    const void* kernel = reinterpret_cast<const void*>(&solve_kernel<T, kChunkRows<T>, false>);
    int threads = kMaxThreads;
    for (; threads > kTargetThreads; threads /= 2) {
      const std::size_t bytes = kernel_shared_bytes<T>(threads, threads);
      if (blocks_per_multiprocessor(kernel, threads, bytes) >= 2) break;
    }
    return threads;
  });
}

template <typename T>
void launch_one_pass(const Launch& l, const T* a, const T* b, const T* c, const T* d, T* x,
                     const T* z, cudaStream_t stream) {
  constexpr int kL = kChunkRows<T>;
  const auto kernel =
      all_chunks_full<T>(l.args) ? solve_kernel<T, kL, true> : solve_kernel<T, kL, false>;
  launch_shaped(kernel, l, stream, a, b, c, d, x, z, l.args);
}

template const void* one_pass_kernel<float>(bool);
template const void* one_pass_kernel<double>(bool);
template int one_pass_threads<float>();
template int one_pass_threads<double>();
template void launch_one_pass<float>(const Launch&, const float*, const float*, const float*,
                                     const float*, float*, const float*, cudaStream_t);
template void launch_one_pass<double>(const Launch&, const double*, const double*, const double*,
                                      const double*, double*, const double*, cudaStream_t);

}  // namespace prism::kernels::cuda::tridiagonal
