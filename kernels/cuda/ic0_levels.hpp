#pragma once
// IC(0) factorization level by level (kernels/ic0_levels.hpp) in one cooperative launch:
// every entry of a level at once, a few lanes each, across rows and colors, a grid-wide
// barrier between levels. Where colors are small and rows long (bcsstk13: 41 colors of
// 1-215 rows with up to 90 entries), the color-by-color kernels (kernels/cuda/ic0.hpp)
// take one launch per color and, inside it, one step per run of a row: 852 dependent
// steps on bcsstk13 against 81 levels here.

#include "kernels/csr_view.hpp"
#include "kernels/cuda/ic0.hpp"
#include "kernels/ic0_levels.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace prism::kernels::cuda {

/// A level plan (Ic0LevelPlan) in device memory, with the lanes that take an entry in
/// each level (ic0_level_lanes).
struct Ic0Levels {
  const index_t* level_ptr = nullptr;
  const index_t* entry = nullptr;
  const index_t* row = nullptr;
  const index_t* pivot = nullptr;
  const index_t* product_ptr = nullptr;
  const index_t* product_x = nullptr;
  const index_t* product_y = nullptr;
  const std::uint8_t* lanes = nullptr;
  index_t levels = 0;
};

/// An Ic0LevelPlan uploaded, with the lanes for up to `attempts` attempts at once.
struct Ic0LevelTable {
  int attempts = 0;
  DeviceBuffer<index_t> level_ptr, entry, row, pivot, product_ptr, product_x, product_y;
  DeviceBuffer<std::uint8_t> lanes;
  DeviceBuffer<unsigned> arrived{1};  // the launch's grid barrier: blocks arrived
  index_t levels = 0;

  Ic0LevelTable() = default;
  Ic0LevelTable(const Ic0LevelPlan& plan, int attempts, cudaStream_t stream);
  bool valid() const { return levels > 0; }
  Ic0Levels view() const {
    return {level_ptr.data(), entry.data(),     row.data(),   pivot.data(), product_ptr.data(),
            product_x.data(), product_y.data(), lanes.data(), levels};
  }
};

/// The lanes an entry takes in each level of `plan` on the current device, for up to
/// `attempts` attempts at once: a power of two up to 32. The lanes of an entry form its
/// products a round at a time (4 each), then one lane subtracts them in order; more lanes
/// take fewer rounds for the level's longest chain of products, but once the level's
/// entries of all attempts outgrow the launch's threads, more passes over them. The count
/// with the fewest passes times rounds (plus one for the slot) wins, the fewer on a tie.
std::vector<std::uint8_t> ic0_level_lanes(const Ic0LevelPlan& plan, int attempts);

/// Whether the current device can run ic0_factor_levels (cooperative launches).
bool ic0_levels_supported();

/// Factors L (values in `values`: tril(A) in, L out) by the levels of `levels`, each
/// entry computed as the reference kernel computes it (kernels/ic0.hpp), bit for bit:
/// its products subtracted in column order without fused multiply-adds, then divided by
/// l_kk; a diagonal from the squares of its row in order. Runs the attempts of
/// `attempts` (shifts in device memory) at once, each on its own copy of the values with
/// its own failure flag, as ic0_factor_rows does: a pivot <= 0 or not finite min-reduces
/// its row into the attempt's failed_row and stays in the diagonal slot. Rows before the
/// first failed row are the reference's; later rows are computed on regardless and hold
/// unspecified values (their own failures are rows after it). ConfigError without a
/// table, without shifts, or with more attempts than the table's.
void ic0_factor_levels(Ic0LevelTable& table, double* values, int* failed_row,
                       const Ic0Attempts& attempts, cudaStream_t stream);

}  // namespace prism::kernels::cuda
