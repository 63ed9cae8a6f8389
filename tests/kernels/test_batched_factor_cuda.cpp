// CUDA batched getrf / potrf / getrs / potrs against the reference loops on the same data:
// this file holds SharedMemoryEdges; test_batched_getrf_cuda.cpp and
// test_batched_potrf_cuda.cpp the rest, batched_factor_cuda_checks.hpp the checks.
//
// What is covered (every test skips without a device):
//  - getrf, every path and technique switch (GetrfOptions): the defaults, the register
//    kernels up to n = 64 (with and without the prefetch of the 16-lane kernel; batches
//    beyond the resident grid for it too), the shared-memory whole-matrix kernel
//    (n <= 128), and the
//    blocked path for every n with the register, recursive shared-memory and classic
//    panels, parallel and serial swaps, trtri + gemm and trsm, update depths 1, 2 and 4,
//    64 x 64 (tensor-core) and 32 x 32 trailing-update tiles, the register row block of
//    32-column panels on and off, the last panel by the warp kernel or the panel kernel;
//    n in {1, 2, 7, 16, 20, 31, 32, 33, 44, 64, 100, 128, 255, 512}, batches {1, 3, 1000} for
//    n <= 128 and {1, 3, 24} for n = 255, 512 (the reference and the host-side checks,
//    O(n^3) per matrix, would dominate); random, pivot-forcing and singular matrices, both
//    precisions, strided and pointer-array batches, lda = n and lda = n + 3.
//  - potrf, every path (PotrfOptions): the defaults, the register kernels up to n = 64,
//    shared-memory whole matrix, blocked with the register or the shared-memory panel,
//    update depths 1, 2 and 4, 64 x 64 and 32 x 32 syrk tiles; the same sizes and batches; SPD
//    and non-SPD matrices.
//  - getrf_vbatched (n[b] <= 128), and its per-matrix rejection of n[b] < 0, n[b] > max_n
//    and lda[b] < n[b]; getrs and potrs (1, 3, 17 right-hand sides).
//  - getrf with a column of NaNs on every path: pivots in range, NaN exactly where due.
//  - SharedMemoryEdges (the executable's first test, so that it runs in a fresh process
//    before any larger launch of the same kernels: this file is its first source): the sizes whose
//    dynamic shared memory is at most 48 KiB while dynamic plus static is above it, the launches
//    the first GPU run failed on (getrf recursive panel at n - j = 192 in double, 380..384 in
//    float; the float shared-memory getrf and getrf_vbatched at n = 110), and n = 192, 200, 383,
//    384 for getrf and potrf with every panel in both precisions.
//
// Every GPU output matrix is checked: info equal to the reference's (exact: singular
// matrices have an exactly zero column, non-SPD ones a negative diagonal entry); padding
// rows and the gaps between matrices untouched; pivots in range, factors finite; where the
// pivots equal the reference's (always required in double: ties, as in a zero column, go
// to the first row on both sides), the factors within 1e3 n eps of the reference's
// (relative, Frobenius, O(n^2) per matrix; potrf: 1e2 n eps where info = 0, the strictly
// upper triangle untouched); the backward error ||P A - L U||_F <= 4 n eps ||A||_F
// (||A - L L^T||_F for potrf; bounds documented in test_batched_factor.cpp) for every
// matrix whose pivots differ (float near-ties), for all matrices when n <= 32, else for a
// sample (the first 8 and the last; first and last for n > 128). getrs / potrs:
// ||A X - B||_F <= 8 n eps ||A||_F ||X||_F. The reference and the host checks run on all
// cores (std::thread).

#include <gtest/gtest.h>

#include "common/gpu.hpp"
#include "kernels/batched_factor_cuda_checks.hpp"

namespace {

using namespace prism::test::batched;

TEST(BatchedFactorCuda, SharedMemoryEdges) {
  PRISM_SKIP_WITHOUT_GPU();
  // getrf_shared_kernel<float> at n = 110: 111 * 110 * 4 = 48840 dynamic bytes.
  check_vbatched<float>({110, 37, 1, 0, 109}, 110);
  if (HasFailure()) return;
  gpu::GetrfOptions shared;
  shared.register_max_n = 0;
  shared.shared_max_n = 128;
  {
    GetrfCase<float> gc(Kind::pivoting, 110, 3);
    check_getrf<float>({"shared<=128", shared}, gc);
  }
  if (HasFailure()) return;
  // getrf_panel_kernel: (n - j) * 32 * sizeof(T) = 49152 at n - j = 192 (double) and 384
  // (float), 49024 at 383 (float). Recursive shared-memory panel first, then the others.
  gpu::GetrfOptions recursive;
  recursive.register_panel = false;
  std::vector<GetrfConfig> panels = {{"blocked-recursive-panel", recursive}};
  for (const GetrfConfig& c : getrf_configs()) panels.push_back(c);
  for (index_t n : {192, 200, 384}) {
    GetrfCase<double> gc(Kind::pivoting, n, 3);
    for (const GetrfConfig& c : panels) check_getrf<double>(c, gc);
    if (HasFailure()) return;
  }
  for (index_t n : {383, 384, 192, 200}) {
    GetrfCase<float> gc(Kind::pivoting, n, 3);
    for (const GetrfConfig& c : panels) check_getrf<float>(c, gc);
    if (HasFailure()) return;
  }
  for (index_t n : {192, 200, 383, 384}) {
    PotrfCase<double> pd(Kind::spd, n, 3);
    PotrfCase<float> pf(Kind::spd, n, 3);
    for (const PotrfConfig& c : potrf_configs()) {
      check_potrf<double>(c, pd);
      check_potrf<float>(c, pf);
    }
    if (HasFailure()) return;
  }
}

}  // namespace
