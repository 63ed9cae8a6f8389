#pragma once
// The launch schedule of the GPU color-set solves (kernels/cuda/colorset.hpp), planned on
// the host from the pattern alone: which rows each launch takes, with how many threads a
// row, which rows are long, and which small steps share one launch. Host code, so it is
// built and tested without CUDA.

#include "kernels/csr_view.hpp"

#include <vector>

namespace prism::kernels::cuda {

/// One launch of a color-set solve: rows [begin, end), threads_per_row in {1,...,32}.
/// Rows of more than long_row_entries entries (the step's long rows, listed in the plan's
/// long_rows[long_begin, long_end)) get a block of their own in the same launch instead.
struct ColorsetStep {
  index_t begin;
  index_t end;
  int threads_per_row;
  index_t long_row_entries;
  index_t long_begin;
  index_t long_end;
};

/// Steps [first, first + count) of a plan: one launch per step, or (fused) one launch of
/// a single block that runs them all, with a block barrier between steps.
struct ColorsetRun {
  int first;
  int count;
  bool fused;
};

/// Entries a lane of a row's threads may walk before the row counts as long and is summed
/// by a block of its own (colorset_schedule): a row that long would hold its launch for 8
/// times the steps of a row of the step's mean length. Without it, rows of graph
/// Laplacians with hubs (a preferential-attachment graph: rows of up to 797 entries in
/// colors of mean 3) make each launch last as long as its longest row. A row is long only above 8
/// times its step's mean (above 512 entries where a warp takes a row): the grid and FEM matrices of
/// the benchmark suite have none, in greedy or level-cyclic colors; bcsstk08 (rows of mean 12 and
/// up to 339 entries) has some.
inline constexpr int kLongRowLaneEntries = 16;

/// Rows of a step that a fused run takes: one pass of a block of this many threads (the
/// hardware's largest block), threads per row lowered to fit.
inline constexpr index_t kFusedStepRows = 1024;

/// Entries of its row a lane reads before its launch waits for the one ahead
/// (colorset_solve): with this many per lane, a row's entries need no load after the wait
/// but the gather of x.
inline constexpr int kColorsetLaneEntries = 2;

/// Entries a lane of a fused run may hold on average (the step's entries over its rows
/// times its lowered threads per row). A fused run puts the step on one multiprocessor and
/// each lane walks its entries one after another, so a small color of long rows does
/// better in a launch of its own, which spreads it over the GPU with the step's full
/// threads per row. Q1 hexahedral elasticity (elasticity3d: 3 unknowns a node, about 37
/// strict entries a row) from 10^3 elements on (9.3 entries a lane and more, fused) gains
/// much from its own launches (docs/kernels/colorset.md); below the bound, 8^3 (4.6 a lane)
/// stays fused, as do bcsstk13's steps (at most 3.6 lower and 6.5 upper entries a lane),
/// which fusing serves well. The bound, 4 x kColorsetLaneEntries, lies between 6.5 and
/// 9.3; not tuned.
inline constexpr int kFusedLaneEntries = 4 * kColorsetLaneEntries;

/// The launches of a color-set solve. Steps are in block order; every maximal sequence of
/// at least two consecutive small steps is a fused run, a step being small when it has at
/// most kFusedStepRows rows and, with its threads per row lowered to fit one pass, at most
/// kFusedLaneEntries entries a lane. A launch costs a few microseconds however little it
/// does, and a step of so few rows is done by one block in one pass: on matrices with many
/// small colors (bcsstk13: 41 colors of about 50 rows) one launch per color leaves the
/// solve launch-bound, and fused runs take most of those launches away.
struct ColorsetSchedule {
  std::vector<ColorsetStep> steps;
  std::vector<ColorsetRun> runs;
  std::vector<index_t> long_rows;
};

/// The schedule for a strict triangle (host row pointers) and its block pointers, on the
/// host (no device needed). threads_per_row is the smallest power of two whose lanes hold
/// the block's mean entries per row at kColorsetLaneEntries each, at most 32 (one warp per
/// row); in a fused run at most kFusedStepRows / rows. A row of more than
/// kLongRowLaneEntries * threads_per_row entries is a long row (listed in long_rows, in
/// row order, step by step); a step with a long row is never fused.
ColorsetSchedule colorset_schedule(const index_t* host_row_ptr,
                                   const std::vector<index_t>& block_ptr);

}  // namespace prism::kernels::cuda
