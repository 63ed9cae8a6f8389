// CUDA batched tridiagonal solve (one-pass partition tile solver, two-pass partition method
// for long systems) against the reference Thomas solver: every N in
// {1, 2, 3, 31, 32, 33, 1000, 4097, 100000} x M in {1, 5, 1024}, both layouts, both
// precisions, diagonally dominant and shifted-Laplacian systems, plus the edges of each path
// (sizes around the chunk, the one-pass limit and the two-pass chunk, batches that are not
// a multiple of the systems per block, N = 4M with M = 1, M = 10^6). Criterion: the documented
// backward-error bound (tridiagonal_test_systems.hpp: eta <= 16 (log2 N + 2) u per system),
// which the reference meets too, and for the dominant systems (kappa_inf <= 11) closeness to
// the reference solution. The partition eliminations, the cyclic-reduction step, each PCR
// step and each two-pass level are backward stable on these systems and add O(u) each, at
// most log2 N of them, which the log2 N term covers. Skips without a device.

#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/gpu.hpp"
#include "kernels/cuda/tridiagonal.hpp"
#include "kernels/tridiagonal.hpp"
#include "tridiagonal_test_systems.hpp"

namespace {

using prism::index_t;
using prism::kernels::TridiagonalLayout;
using prism::test::make_tri_systems;
using prism::test::TriKind;
using prism::test::TriSystems;

void check(cudaError_t err, const char* what) {
  ASSERT_EQ(err, cudaSuccess) << what << ": " << cudaGetErrorString(err);
}

class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t bytes) : bytes_(bytes) {
    if (bytes > 0 && cudaMalloc(&ptr_, bytes) != cudaSuccess) {
      ptr_ = nullptr;
      ADD_FAILURE() << "cudaMalloc of " << bytes << " bytes failed";
    }
  }
  ~DeviceBuffer() {
    if (ptr_ != nullptr) cudaFree(ptr_);
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  template <typename T>
  T* as() const {
    return static_cast<T*>(ptr_);
  }
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

template <typename T>
void upload(DeviceBuffer& dst, const std::vector<T>& src) {
  check(cudaMemcpy(dst.get(), src.data(), src.size() * sizeof(T), cudaMemcpyHostToDevice),
        "upload");
}

template <typename T>
std::vector<T> download(const DeviceBuffer& src, std::size_t count) {
  std::vector<T> out(count);
  check(cudaMemcpy(out.data(), src.get(), count * sizeof(T), cudaMemcpyDeviceToHost), "download");
  return out;
}

// Solves on the GPU (out of place into a NaN-poisoned x, or in place over d) and checks
// the result; also checks a, b, c (and d when out of place) are untouched. With offset > 0
// every array starts `offset` elements into its allocation (not 16-byte aligned for
// offsets that are not multiples of 16 / sizeof(T)).
template <typename T>
void check_case(TriKind kind, TridiagonalLayout layout, index_t n, index_t m, bool in_place,
                std::size_t offset = 0) {
  SCOPED_TRACE(::testing::Message()
               << "n=" << n << " m=" << m << " layout="
               << (layout == TridiagonalLayout::contiguous ? "contiguous" : "interleaved")
               << " kind=" << (kind == TriKind::dominant ? "dominant" : "laplacian") << " "
               << sizeof(T) * 8 << "-bit" << (in_place ? " in-place" : "") << " offset " << offset);
  const auto s = make_tri_systems<T>(kind, layout, n, m, 1000003ULL * n + 7ULL * m + 1);
  const std::size_t count = s.d.size();
  std::vector<T> pad(offset, T(0));
  const auto padded = [&pad](const std::vector<T>& v) {
    std::vector<T> out = pad;
    out.insert(out.end(), v.begin(), v.end());
    return out;
  };
  const std::size_t bytes = (count + offset) * sizeof(T);
  DeviceBuffer a(bytes), b(bytes), c(bytes), d(bytes), x(bytes);
  upload(a, padded(s.a));
  upload(b, padded(s.b));
  upload(c, padded(s.c));
  upload(d, padded(s.d));
  upload(x, std::vector<T>(count + offset, std::numeric_limits<T>::quiet_NaN()));
  const std::size_t ws_bytes =
      prism::kernels::cuda::tridiagonal_workspace_bytes(layout, n, m, sizeof(T));
  DeviceBuffer ws(ws_bytes);
  T* out = (in_place ? d.as<T>() : x.as<T>()) + offset;
  prism::kernels::cuda::tridiagonal_solve(layout, n, m, a.as<T>() + offset, b.as<T>() + offset,
                                          c.as<T>() + offset, d.as<T>() + offset, out, ws.get(),
                                          ws_bytes, nullptr);
  check(cudaDeviceSynchronize(), "solve");
  const std::vector<T> got_padded = download<T>(in_place ? d : x, count + offset);
  const std::vector<T> got(got_padded.begin() + static_cast<std::ptrdiff_t>(offset),
                           got_padded.end());

  std::vector<T> ref(count);
  prism::kernels::reference::tridiagonal_solve(layout, n, m, s.a.data(), s.b.data(), s.c.data(),
                                               s.d.data(), ref.data());
  const double bound = prism::test::tri_residual_bound<T>(n);
  const double eta = prism::test::tri_backward_error(s, got);
  const double eta_ref = prism::test::tri_backward_error(s, ref);
  EXPECT_LE(eta, bound) << "reference eta " << eta_ref;  // NaN (unwritten x) fails too
  if (kind == TriKind::dominant) {
    double diff = 0.0, norm = 0.0;
    for (std::size_t i = 0; i < count; ++i) {
      diff = std::max(diff, std::abs(static_cast<double>(got[i]) - static_cast<double>(ref[i])));
      norm = std::max(norm, std::abs(static_cast<double>(ref[i])));
    }
    EXPECT_LE(diff, 40.0 * bound * norm);
  }
  EXPECT_EQ(download<T>(a, count + offset), padded(s.a));
  EXPECT_EQ(download<T>(b, count + offset), padded(s.b));
  EXPECT_EQ(download<T>(c, count + offset), padded(s.c));
  if (!in_place) EXPECT_EQ(download<T>(d, count + offset), padded(s.d));
  ::testing::Test::RecordProperty("eta_n" + std::to_string(n) + "_m" + std::to_string(m) + "_" +
                                      std::to_string(sizeof(T)) +
                                      (layout == TridiagonalLayout::contiguous ? "c" : "i") +
                                      (kind == TriKind::dominant ? "d" : "l"),
                                  std::to_string(eta));
}

template <typename T>
void check_all_sizes(TridiagonalLayout layout) {
  for (index_t n : {1, 2, 3, 31, 32, 33, 1000, 4097, 100000}) {
    for (index_t m : {1, 5, 1024}) {
      for (TriKind kind : {TriKind::dominant, TriKind::laplacian}) {
        check_case<T>(kind, layout, n, m, /*in_place=*/false);
        if (::testing::Test::HasFatalFailure()) return;
      }
    }
  }
}

TEST(TridiagonalCuda, DoubleContiguousIsEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  check_all_sizes<double>(TridiagonalLayout::contiguous);
}

TEST(TridiagonalCuda, DoubleInterleavedIsEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  check_all_sizes<double>(TridiagonalLayout::interleaved);
}

TEST(TridiagonalCuda, FloatContiguousIsEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  check_all_sizes<float>(TridiagonalLayout::contiguous);
}

TEST(TridiagonalCuda, FloatInterleavedIsEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  check_all_sizes<float>(TridiagonalLayout::interleaved);
}

// Largest N that the plan solves in one pass (levels == 0) for M systems, by bisection.
index_t one_pass_limit(TridiagonalLayout layout, index_t m, std::size_t elem_size) {
  using prism::kernels::cuda::tridiagonal_plan;
  index_t lo = 1, hi = 1 << 22;
  while (hi - lo > 1) {
    const index_t mid = lo + (hi - lo) / 2;
    if (tridiagonal_plan(layout, mid, m, elem_size).levels == 0) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// Small set, also run under compute-sanitizer: in-place solves and both paths. Double:
// N = 4097 is two-pass with a one-row last chunk, 20000 two-pass, 60000 two-pass with two
// levels; float: 20000 is two-pass. N = 255, 257 are not multiples of the chunk; M = 5 and
// 33 not of the systems per block.
TEST(TridiagonalCuda, PlantedCases) {
  PRISM_SKIP_WITHOUT_GPU();
  for (TridiagonalLayout layout : {TridiagonalLayout::contiguous, TridiagonalLayout::interleaved}) {
    for (index_t n : {1, 2, 33, 255, 257, 4097}) {
      for (index_t m : {1, 5}) {
        check_case<double>(TriKind::dominant, layout, n, m, /*in_place=*/true);
        check_case<float>(TriKind::laplacian, layout, n, m, /*in_place=*/true);
      }
    }
    check_case<double>(TriKind::dominant, layout, 9, 33, /*in_place=*/true);
    check_case<float>(TriKind::dominant, layout, 20000, 3, /*in_place=*/true);
    check_case<double>(TriKind::laplacian, layout, 20000, 3, /*in_place=*/false);
    check_case<double>(TriKind::dominant, layout, 60000, 2, /*in_place=*/true);
  }
}

// The edges of each path, from the plan: N around the rows per thread L (one thread per
// system up to L, then the partition method with chunks of unequal length), around the
// one-pass limit, around multiples of the two-pass chunk (last chunk of 1, 2 and L + 1
// rows), with batches that are not a multiple of the systems per block.
template <typename T>
void check_path_edges(TridiagonalLayout layout) {
  using prism::kernels::cuda::tridiagonal_plan;
  const auto small = tridiagonal_plan(layout, 64, 1000, sizeof(T));
  const index_t l = small.chunk_rows;
  const index_t limit = one_pass_limit(layout, 1, sizeof(T));
  const auto big = tridiagonal_plan(layout, limit + 1, 1, sizeof(T));
  ASSERT_EQ(big.levels, 1);
  const index_t r = static_cast<index_t>(big.reduce_rows);
  for (index_t n : {l - 1, l, l + 1, 2 * l + 1, 3 * l - 1}) {
    for (index_t m : {1, 7, 3 * small.systems_per_block + 1}) {
      check_case<T>(TriKind::dominant, layout, n, m, /*in_place=*/false);
    }
  }
  // The limit depends on M for interleaved data (a block holds several systems).
  for (index_t m : {1, 3, 6}) {
    const index_t limit_m = one_pass_limit(layout, m, sizeof(T));
    for (index_t n : {limit_m - 1, limit_m, limit_m + 1}) {
      check_case<T>(TriKind::laplacian, layout, n, m, /*in_place=*/true);
    }
  }
  const index_t base = (limit / r + 1) * r;
  for (index_t n : {base + 1, base + 2, base + l + 1, base + r - 1}) {
    for (index_t m : {1, 6}) check_case<T>(TriKind::dominant, layout, n, m, /*in_place=*/false);
  }
}

// The contiguous solve loads whole chunks as 16-byte vectors when the arrays are 16-byte
// aligned and element by element otherwise: arrays that start off alignment take the
// element path everywhere (in both passes), aligned ones mix both where N is odd.
TEST(TridiagonalCuda, MisalignedArraysAreEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  for (TridiagonalLayout layout : {TridiagonalLayout::contiguous, TridiagonalLayout::interleaved}) {
    for (index_t n : {64, 255, 1000, 20000}) {
      for (index_t m : {3, 33}) {
        check_case<double>(TriKind::dominant, layout, n, m, /*in_place=*/false, 1);
        check_case<double>(TriKind::laplacian, layout, n, m, /*in_place=*/true, 1);
        for (std::size_t offset : {1, 2, 3}) {
          check_case<float>(TriKind::dominant, layout, n, m, /*in_place=*/false, offset);
        }
      }
    }
  }
}

TEST(TridiagonalCuda, DoublePathEdgesAreEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  check_path_edges<double>(TridiagonalLayout::contiguous);
  check_path_edges<double>(TridiagonalLayout::interleaved);
}

TEST(TridiagonalCuda, FloatPathEdgesAreEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  check_path_edges<float>(TridiagonalLayout::contiguous);
  check_path_edges<float>(TridiagonalLayout::interleaved);
}

// The largest N of the issue, one system: the two-pass path at its deepest recursion.
TEST(TridiagonalCuda, OneHugeSystem) {
  PRISM_SKIP_WITHOUT_GPU();
  for (TridiagonalLayout layout : {TridiagonalLayout::contiguous, TridiagonalLayout::interleaved}) {
    check_case<double>(TriKind::dominant, layout, 1 << 22, 1, /*in_place=*/false);
    check_case<float>(TriKind::laplacian, layout, 1 << 22, 1, /*in_place=*/true);
  }
}

// The largest batch, M = 10^6, with short systems in both layouts (one thread per
// system for N <= L, the partition method above it; grids of thousands of blocks) and a
// batch one past a multiple of the systems per block.
TEST(TridiagonalCuda, MillionSystems) {
  PRISM_SKIP_WITHOUT_GPU();
  for (TridiagonalLayout layout : {TridiagonalLayout::contiguous, TridiagonalLayout::interleaved}) {
    check_case<double>(TriKind::dominant, layout, 2, 1000000, /*in_place=*/false);
    check_case<double>(TriKind::laplacian, layout, 17, 1000001, /*in_place=*/true);
    check_case<float>(TriKind::dominant, layout, 5, 1000000, /*in_place=*/false);
  }
}

// Largest N that the plan solves in one pass in a single block for M systems.
index_t one_block_limit(TridiagonalLayout layout, index_t m, std::size_t elem_size) {
  using prism::kernels::cuda::tridiagonal_plan;
  index_t lo = 1, hi = 1 << 22;
  while (hi - lo > 1) {
    const index_t mid = lo + (hi - lo) / 2;
    const auto plan = tridiagonal_plan(layout, mid, m, elem_size);
    if (plan.levels == 0 && plan.cluster_blocks == 1) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  return lo;
}

// One-pass solves in thread-block clusters (systems longer than a block takes): N from just
// past the single-block limit (2 blocks) through each doubling of the cluster to the
// one-pass limit, with M not a multiple of the systems per cluster. (Two-pass solves whose
// reduced systems take a cluster: PlantedCases' N = 60000, N = 100000 above.) Where the
// device has no clusters the same sizes run two-pass, and the test still checks them.
template <typename T>
void check_cluster_edges(TridiagonalLayout layout) {
  using prism::kernels::cuda::tridiagonal_plan;
  for (index_t m : {1, 3, 6}) {
    const index_t block = one_block_limit(layout, m, sizeof(T));
    const index_t limit = one_pass_limit(layout, m, sizeof(T));
    const auto past = tridiagonal_plan(layout, block + 1, m, sizeof(T));
    if (past.levels == 0) {
      EXPECT_GE(past.cluster_blocks, 2);
      EXPECT_EQ(past.block_threads * past.cluster_blocks,
                past.threads_per_system * past.systems_per_block);
    }
    for (index_t n = block + 1; n <= limit; n = 2 * n + 1) {
      check_case<T>(TriKind::laplacian, layout, n, m, /*in_place=*/true);
      check_case<T>(TriKind::dominant, layout, n + past.chunk_rows / 2, m, /*in_place=*/false);
    }
    check_case<T>(TriKind::dominant, layout, limit, m, /*in_place=*/false);
  }
}

// Contiguous systems of several warps in one block (p = 64, 128, ... up to the single-block
// limit: the reduced system in shared memory), with every chunk full (N = p L, the kernel's
// full-chunk form) and not (N = p L - L / 2 - 1, the same p), and batches that leave part
// of the last block idle.
template <typename T>
void check_block_warps() {
  using prism::kernels::cuda::tridiagonal_plan;
  const auto layout = TridiagonalLayout::contiguous;
  const index_t l = tridiagonal_plan(layout, 64, 1, sizeof(T)).chunk_rows;
  int checked = 0;
  for (index_t p = 64; p * l <= one_block_limit(layout, 1, sizeof(T)); p *= 2) {
    for (index_t n : {p * l, p * l - l / 2 - 1}) {
      for (index_t m : {1, 3, 5}) {
        const auto plan = tridiagonal_plan(layout, n, m, sizeof(T));
        ASSERT_EQ(plan.threads_per_system, p);
        ASSERT_EQ(plan.cluster_blocks, 1);
        check_case<T>(TriKind::dominant, layout, n, m, /*in_place=*/false);
        check_case<T>(TriKind::laplacian, layout, n, m, /*in_place=*/true);
      }
    }
    ++checked;
  }
  EXPECT_GE(checked, 2);
}

TEST(TridiagonalCuda, SeveralWarpsPerSystemAreEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  check_block_warps<double>();
  check_block_warps<float>();
}

TEST(TridiagonalCuda, ClusterOnePassIsEquivalentToReference) {
  PRISM_SKIP_WITHOUT_GPU();
  for (TridiagonalLayout layout : {TridiagonalLayout::contiguous, TridiagonalLayout::interleaved}) {
    check_cluster_edges<double>(layout);
    check_cluster_edges<float>(layout);
  }
}

TEST(TridiagonalCuda, PlanPicksPathsByShape) {
  PRISM_SKIP_WITHOUT_GPU();
  using prism::kernels::cuda::tridiagonal_plan;
  const auto many_small = tridiagonal_plan(TridiagonalLayout::contiguous, 64, 65536, 8);
  EXPECT_EQ(many_small.levels, 0);
  EXPECT_EQ(many_small.workspace_bytes, 0u);
  EXPECT_EQ(many_small.threads_per_system * many_small.chunk_rows, 64);
  EXPECT_EQ(many_small.cluster_blocks, 1);
  EXPECT_EQ(many_small.block_threads, many_small.threads_per_system * many_small.systems_per_block);
  const auto one_huge = tridiagonal_plan(TridiagonalLayout::contiguous, 1 << 22, 1, 8);
  EXPECT_GE(one_huge.levels, 2);
  EXPECT_GT(one_huge.reduce_rows, 1);
  EXPECT_GT(one_huge.workspace_bytes, 0u);
  // The reduced systems are a small fraction of the data.
  EXPECT_LT(one_huge.workspace_bytes, (1u << 22) * 8u);
  EXPECT_GE(one_pass_limit(TridiagonalLayout::contiguous, 1, 8), 1000);
  EXPECT_GE(one_pass_limit(TridiagonalLayout::interleaved, 1024, 8), 256);
}

}  // namespace
