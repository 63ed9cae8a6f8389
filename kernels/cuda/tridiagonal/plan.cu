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
// Every kernel is a programmatic dependent launch (dependent_launch.cuh): it may be scheduled
// while the kernel ahead of it on the stream drains, waits for it before it reads anything,
// and lets the next one be scheduled at once. The two-pass path's launches (pass 1, the
// reduced systems' solves, pass 2) then overlap their starts with the ends before them.
//
// This file plans a solve (which kernels, in which shapes) and runs it: one_pass.cu,
// cluster.cu and two_pass.cu hold the kernels.

#include "kernels/cuda/tridiagonal.hpp"

#include "kernels/cuda/tridiagonal/chunks.cuh"
#include "kernels/cuda/tridiagonal/launch.cuh"
#include "kernels/cuda/tridiagonal/partition.cuh"

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/launch_config.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include <prism/errors.hpp>

namespace prism::kernels::cuda {
namespace tridiagonal {
namespace {

struct DeviceLimits {
  int sms = 0;
};

DeviceLimits device_limits() {
  return {multiprocessor_count()};
}

int floor_log2(std::int64_t v) {
  int k = 0;
  while ((std::int64_t{2} << k) <= v) ++k;
  return k;
}

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

template <typename T>
void launch_solve(Launch l, const T* a, const T* b, const T* c, const T* d, T* x, const T* z,
                  cudaStream_t stream) {
  if (l.blocks > 0x7fffffff) throw ConfigError("tridiagonal_solve: too many systems");
  l.args.vector_rows = l.args.row_fastest && aligned16(a) && aligned16(b) && aligned16(c) &&
                       aligned16(d) && aligned16(x);
  if (l.args.clog > 0) {
    launch_cluster<T>(l, a, b, c, d, x, stream);
    return;
  }
  launch_one_pass<T>(l, a, b, c, d, x, z, stream);
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
  launch_reduce<T>(l1, a, b, c, d, ra, rb, rc, rd, stream);
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
  const bool full = all_chunks_full<T>(l.args);
  const void* kernel = l.args.clog > 0 ? cluster_kernel<T>(full) : one_pass_kernel<T>(full);
  reserve_dynamic_shared(kernel, l.shared_bytes, "tridiagonal_plan");
  plan.blocks_per_sm = blocks_per_multiprocessor(kernel, l.threads, l.shared_bytes);
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
}  // namespace tridiagonal

// The entry points below hand their work to the implementation above.
using tridiagonal::make_plan;
using tridiagonal::solve;

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
