#pragma once
// A 64 x 64 output tile of a product of two operands staged in shared memory, accumulated
// in registers by 256 threads: acc += A(0:64, 0:kK) B(0:kK, 0:64) with As[k][r] (leading
// dimension kGemmLdA) and Bs[k][c] (kGemmLdB), or acc -= A B (kSubtract). Used by the trsm
// (dense_triangular/trsm.cu) and by the trailing updates and row blocks of the batched
// factorizations (batched_factor/updates.cu).
//
// Generic (float): SIMT, thread (ty, tx) of 16 x 16 owns rows 4 ty + i (one 4-wide vector
// read of As per k) and columns tx + 16 j. Double: FP64 tensor cores (mma.sync m8n8k4,
// sm_80 and later); warp w owns the 32 x 16 block at rows 32 (w & 1), columns 16 (w >> 1):
// 4 x 2 fragments of 8 x 8. Fragments (PTX ISA, m8n8k4 .f64): A(g, t), B(t, g),
// C(g, 2t + {0, 1}) with g = lane / 4, t = lane % 4.

#include <cuda_runtime.h>

namespace prism::kernels::cuda {

constexpr int kGemmTile = 64;            // rows and columns of the output tile
constexpr int kGemmThreads = 256;        // threads that share one tile
constexpr int kGemmLdA = kGemmTile + 4;  // As[k][r]: rows 16-byte aligned for vector reads
constexpr int kGemmLdB = kGemmTile + 1;  // Bs[k][c]

template <typename T>
struct TileGemm {
  T acc[4][4];

  __device__ void zero() {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
#pragma unroll
      for (int j = 0; j < 4; ++j) acc[i][j] = T(0);
    }
  }

  template <int kK, bool kSubtract = false>
  __device__ void mma(const T* As, const T* Bs, int tid) {
    const T* as = As + 4 * (tid >> 4);
    const T* bs = Bs + (tid & 15);
#pragma unroll 8
    for (int k = 0; k < kK; ++k) {
      T av[4];
      load4(as + k * kGemmLdA, av);
      if (kSubtract) {
#pragma unroll
        for (int i = 0; i < 4; ++i) av[i] = -av[i];
      }
      T bv[4];
#pragma unroll
      for (int j = 0; j < 4; ++j) bv[j] = bs[k * kGemmLdB + 16 * j];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] += av[i] * bv[j];
      }
    }
  }

  /// Calls f(r, c, acc(r, c)) for every output of this thread (r, c in [0, 64)); f may
  /// take the accumulator by reference (to set it, e.g. to C before acc -= A B).
  template <typename F>
  __device__ void for_each(int tid, F&& f) {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
#pragma unroll
      for (int j = 0; j < 4; ++j) f(4 * (tid >> 4) + i, (tid & 15) + 16 * j, acc[i][j]);
    }
  }

  __device__ static void load4(const double* p, double (&v)[4]) {
    const double2 lo = *reinterpret_cast<const double2*>(p);
    const double2 hi = *reinterpret_cast<const double2*>(p + 2);
    v[0] = lo.x;
    v[1] = lo.y;
    v[2] = hi.x;
    v[3] = hi.y;
  }
  __device__ static void load4(const float* p, float (&v)[4]) {
    const float4 q = *reinterpret_cast<const float4*>(p);
    v[0] = q.x;
    v[1] = q.y;
    v[2] = q.z;
    v[3] = q.w;
  }
};

template <>
struct TileGemm<double> {
  double acc[4][2][2];

  __device__ void zero() {
#pragma unroll
    for (int i = 0; i < 4; ++i) {
#pragma unroll
      for (int j = 0; j < 2; ++j) acc[i][j][0] = acc[i][j][1] = 0.0;
    }
  }

  template <int kK, bool kSubtract = false>
  __device__ void mma(const double* As, const double* Bs, int tid) {
    static_assert(kK % 4 == 0, "k steps of 4");
    const int lane = tid & 31;
    const int warp = tid >> 5;
    const double* as = As + (lane & 3) * kGemmLdA + 32 * (warp & 1) + (lane >> 2);
    const double* bs = Bs + (lane & 3) * kGemmLdB + 16 * (warp >> 1) + (lane >> 2);
#pragma unroll 4
    for (int k = 0; k < kK; k += 4) {
      double a[4], b[2];
#pragma unroll
      for (int i = 0; i < 4; ++i)
        a[i] = kSubtract ? -as[k * kGemmLdA + 8 * i] : as[k * kGemmLdA + 8 * i];
#pragma unroll
      for (int j = 0; j < 2; ++j) b[j] = bs[k * kGemmLdB + 8 * j];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
#pragma unroll
        for (int j = 0; j < 2; ++j) {
          asm volatile(
              "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
              : "+d"(acc[i][j][0]), "+d"(acc[i][j][1])
              : "d"(a[i]), "d"(b[j]));
        }
      }
    }
  }

  template <typename F>
  __device__ void for_each(int tid, F&& f) {
    const int lane = tid & 31;
    const int warp = tid >> 5;
    const int r0 = 32 * (warp & 1) + (lane >> 2);
    const int c0 = 16 * (warp >> 1) + 2 * (lane & 3);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
#pragma unroll
      for (int j = 0; j < 2; ++j) {
#pragma unroll
        for (int h = 0; h < 2; ++h) f(r0 + 8 * i, c0 + 8 * j + h, acc[i][j][h]);
      }
    }
  }
};

}  // namespace prism::kernels::cuda
