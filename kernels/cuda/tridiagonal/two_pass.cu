// Pass 1 of the two-pass partition method: every unit reduced to its two boundary
// equations, the rows of the reduced systems that plan.cu solves before pass 2.

#include "kernels/cuda/tridiagonal/chunks.cuh"
#include "kernels/cuda/tridiagonal/launch.cuh"
#include "kernels/cuda/tridiagonal/partition.cuh"

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/dependent_launch.cuh"
#include "kernels/cuda/launch_config.hpp"

#include <cuda_runtime.h>

#include <cstdint>

namespace prism::kernels::cuda::tridiagonal {
namespace {

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

}  // namespace

template <typename T>
void launch_reduce(const Launch& l, const T* a, const T* b, const T* c, const T* d, T* ra, T* rb,
                   T* rc, T* rd, cudaStream_t stream) {
  constexpr int kL = kChunkRows<T>;
  const auto reduce =
      all_chunks_full<T>(l.args) ? reduce_kernel<T, kL, true> : reduce_kernel<T, kL, false>;
  launch_shaped(reduce, l, stream, a, b, c, d, ra, rb, rc, rd, l.args);
}

template void launch_reduce<float>(const Launch&, const float*, const float*, const float*,
                                   const float*, float*, float*, float*, float*, cudaStream_t);
template void launch_reduce<double>(const Launch&, const double*, const double*, const double*,
                                    const double*, double*, double*, double*, double*,
                                    cudaStream_t);

}  // namespace prism::kernels::cuda::tridiagonal
