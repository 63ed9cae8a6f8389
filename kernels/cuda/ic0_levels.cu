#include "kernels/cuda/ic0_levels.hpp"

#include "kernels/cuda/check.hpp"
#include "kernels/cuda/launch_config.hpp"

#include <algorithm>
#include <string>

namespace prism::kernels::cuda {
namespace {

// One block of 1024 threads a multiprocessor (512 or 256 threads a block do as well).
constexpr int kThreads = 1024;

/// Products a lane forms at once; a group of g lanes forms kRound * g, kept in shared
/// memory for its first lane to subtract in order.
constexpr int kRound = 4;

/// What a group's lane reads of its slot before the values: the slot's entry, row and
/// pivot, its products and the positions of the lane's products of the first round
/// (-1: none).
struct SlotWork {
  index_t p = 0, i = 0, pivot = 0, t0 = 0, t1 = 0;
  index_t x[kRound], y[kRound];
};

__device__ __forceinline__ void fetch_positions(const Ic0Levels& plan, index_t base, index_t end,
                                                int lanes, int part, index_t* x, index_t* y) {
#pragma unroll
  for (int r = 0; r < kRound; ++r) {
    const index_t t = base + r * lanes + part;
    x[r] = t < end ? plan.product_x[t] : -1;
    y[r] = t < end ? plan.product_y[t] : -1;
  }
}

__device__ __forceinline__ SlotWork fetch_slot(const Ic0Levels& plan, index_t slot, int part,
                                               int lanes) {
  SlotWork w;
  w.p = plan.entry[slot];
  w.i = plan.row[slot];
  w.pivot = plan.pivot[slot];
  w.t0 = plan.product_ptr[slot];
  w.t1 = plan.product_ptr[slot + 1];
  fetch_positions(plan, w.t0, w.t1, lanes, part, w.x, w.y);
  return w;
}

/// A level's share of the grid for this thread: groups of `lanes` lanes (a power of two,
/// so groups never span warps), each taking items (attempt-major: neighbouring groups
/// take neighbouring slots) first, first + stride, ...
struct LevelShare {
  int lanes = 1, part = 0;
  unsigned group = 0;
  index_t begin = 0;
  unsigned width = 0, items = 0, first = 0, stride = 0;
};

__device__ __forceinline__ LevelShare level_share(const Ic0Levels& plan, index_t l, int count,
                                                  unsigned thread, unsigned threads) {
  LevelShare s;
  s.lanes = plan.lanes[l];
  const int lane = static_cast<int>(threadIdx.x % 32);
  s.part = lane & (s.lanes - 1);
  s.group = s.lanes == 32 ? 0xffffffffu : ((1u << s.lanes) - 1u) << (lane & ~(s.lanes - 1));
  s.begin = plan.level_ptr[l];
  s.width = static_cast<unsigned>(plan.level_ptr[l + 1] - s.begin);
  s.items = s.width * static_cast<unsigned>(count);
  s.first = thread / static_cast<unsigned>(s.lanes);
  s.stride = threads / static_cast<unsigned>(s.lanes);
  return s;
}

/// The blocks arrived so far, read with acquire semantics (the writes of the blocks that
/// arrived are visible after it).
__device__ __forceinline__ unsigned arrived_so_far(const unsigned* arrived) {
  unsigned count = 0;
  asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(count) : "l"(arrived) : "memory");
  return count;
}

/// Level after level, a grid barrier between levels (*arrived counts the blocks done with
/// each level; it starts at 0). A group's lanes form kRound * lanes products at once into
/// shared memory, and its first lane subtracts them in order from the sum, round after
/// round, then stores. Between arriving at the barrier and waiting at it each group reads
/// what its first slot of the next level needs that no level writes (the slot, the
/// positions of its first round), so after it only the values are loaded: those reads
/// hide behind the wait for the other blocks instead of following a plain grid.sync().
__global__ void __launch_bounds__(kThreads, 1)
    ic0_levels(Ic0Levels plan, double* values, int* failed_row, Ic0Attempts ladder,
               unsigned* arrived) {
  __shared__ double formed[kThreads * kRound];
  const unsigned threads = gridDim.x * blockDim.x;
  const unsigned thread = blockIdx.x * blockDim.x + threadIdx.x;
  LevelShare share = level_share(plan, 0, ladder.count, thread, threads);
  SlotWork ahead;
  if (share.first < share.items) {
    ahead = fetch_slot(plan, share.begin + share.first % share.width, share.part, share.lanes);
  }
  for (index_t l = 0; l < plan.levels; ++l) {
    const int g = share.lanes;
    // The group's kRound * g slots of `formed`, product j of a round at j.
    double* own_formed = formed + (threadIdx.x - share.part) * kRound;
    for (unsigned item = share.first; item < share.items; item += share.stride) {
      const unsigned attempt = item / share.width;
      SlotWork w = item == share.first
                       ? ahead
                       : fetch_slot(plan, share.begin + item % share.width, share.part, g);
      double* v = values + static_cast<std::size_t>(attempt) * ladder.stride;
      const bool diagonal = w.pivot == w.p;
      // l_ii = sqrt(a_ii + shift - sum_{j<i} l_ij^2), or l_ik = (a_ik - sum_{j<k} l_ij
      // l_kj) / l_kk with the products in column order, as the reference kernel.
      double sum = diagonal ? v[w.p] + ladder.shifts[attempt] : v[w.p];
      const double divisor = diagonal ? 1.0 : v[w.pivot];
      for (index_t base = w.t0; base < w.t1; base += kRound * g) {
        if (base != w.t0) fetch_positions(plan, base, w.t1, g, share.part, w.x, w.y);
#pragma unroll
        for (int r = 0; r < kRound; ++r) {
          if (w.x[r] >= 0) own_formed[r * g + share.part] = __dmul_rn(v[w.x[r]], v[w.y[r]]);
        }
        __syncwarp(share.group);
        if (share.part == 0) {
          const index_t n = w.t1 - base < kRound * g ? w.t1 - base : kRound * g;
#pragma unroll 8
          for (index_t j = 0; j < n; ++j) sum = __dsub_rn(sum, own_formed[j]);
        }
        __syncwarp(share.group);
      }
      if (share.part != 0) continue;
      if (!diagonal) {
        v[w.p] = sum / divisor;
      } else if (!(sum > 0.0) || !isfinite(sum)) {
        v[w.p] = sum;
        atomicMin(failed_row + attempt, static_cast<int>(w.i));
      } else {
        v[w.p] = sqrt(sum);
      }
    }
    if (l + 1 == plan.levels) break;
    // The grid barrier, split: the block arrives once its level is stored, reads ahead
    // while the others arrive, then waits for all of them.
    __syncthreads();
    if (threadIdx.x == 0) {
      __threadfence();
      atomicAdd(arrived, 1u);
    }
    share = level_share(plan, l + 1, ladder.count, thread, threads);
    if (share.first < share.items) {
      ahead = fetch_slot(plan, share.begin + share.first % share.width, share.part, share.lanes);
    }
    if (threadIdx.x == 0) {
      const unsigned all = static_cast<unsigned>(l + 1) * gridDim.x;
      while (arrived_so_far(arrived) < all) {
      }
    }
    __syncthreads();
  }
}

/// One block a multiprocessor (where one fits), all resident at once.
long long launch_blocks() {
  const int multiprocessors = multiprocessor_count();
  const int per_multiprocessor = blocks_per_multiprocessor(kernel_id(ic0_levels), kThreads);
  return static_cast<long long>(multiprocessors) * std::min(per_multiprocessor, 1);
}

}  // namespace

bool ic0_levels_supported() {
  int device = 0, cooperative = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return false;
  if (cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device) != cudaSuccess) {
    return false;
  }
  return cooperative != 0;
}

std::vector<std::uint8_t> ic0_level_lanes(const Ic0LevelPlan& plan, int attempts) {
  const long long threads = launch_blocks() * kThreads;
  std::vector<std::uint8_t> lanes(static_cast<std::size_t>(plan.levels()));
  for (index_t l = 0; l < plan.levels(); ++l) {
    // Rounds of the grid times the dependent steps of one entry (its rounds of products,
    // and one for its slot and its store); the fewer lanes on a tie.
    const long long items =
        static_cast<long long>(plan.level_ptr[l + 1] - plan.level_ptr[l]) * std::max(attempts, 1);
    const long long chain = plan.chain[l];
    int best = 1;
    long long best_cost = -1;
    for (int g = 1; g <= 32; g *= 2) {
      const long long rounds = (items * g + threads - 1) / threads;
      const long long cost = rounds * ((chain + kRound * g - 1) / (kRound * g) + 1);
      if (best_cost < 0 || cost < best_cost) {
        best = g;
        best_cost = cost;
      }
    }
    lanes[l] = static_cast<std::uint8_t>(best);
  }
  return lanes;
}

Ic0LevelTable::Ic0LevelTable(const Ic0LevelPlan& plan, int attempts, cudaStream_t stream)
    : attempts(attempts),
      level_ptr(upload_and_wait(plan.level_ptr, stream)),
      entry(upload_and_wait(plan.entry, stream)),
      row(upload_and_wait(plan.row, stream)),
      pivot(upload_and_wait(plan.pivot, stream)),
      product_ptr(upload_and_wait(plan.product_ptr, stream)),
      product_x(upload_and_wait(plan.product_x, stream)),
      product_y(upload_and_wait(plan.product_y, stream)),
      lanes(upload_and_wait(ic0_level_lanes(plan, attempts), stream)),
      levels(plan.levels()) {}

void ic0_factor_levels(Ic0LevelTable& table, double* values, int* failed_row,
                       const Ic0Attempts& attempts, cudaStream_t stream) {
  if (!table.valid() || attempts.shifts == nullptr || attempts.count < 1 ||
      attempts.count > table.attempts) {
    throw ConfigError("ic0_factor_levels: needs a level table and 1 to " +
                      std::to_string(table.attempts) + " attempts with their shifts");
  }
  const Ic0Levels levels = table.view();
  // Every block resident at once, as the barrier needs (ic0_level_lanes counted on them).
  const auto blocks = static_cast<unsigned>(std::max(1LL, launch_blocks()));
  Ic0Levels plan = levels;
  Ic0Attempts ladder = attempts;
  unsigned* arrived = table.arrived.data();
  PRISM_CUDA_CHECK(cudaMemsetAsync(arrived, 0, sizeof(unsigned), stream));
  void* args[] = {&plan, &values, &failed_row, &ladder, &arrived};
  PRISM_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(ic0_levels),
                                               dim3(blocks), dim3(kThreads), args, 0, stream));
}

}  // namespace prism::kernels::cuda
