#include "kernels/cuda/sell_layout.hpp"

#include <prism/errors.hpp>

#include "kernels/cuda/check.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include <cub/device/device_scan.cuh>

namespace prism::kernels::cuda {
namespace {

constexpr int kThreads = 256;

/// A warp per slice: blocks for `slices` warps.
int blocks_for_slices(index_t slices) {
  return static_cast<int>((32LL * slices + kThreads - 1) / kThreads);
}

/// The ranges on the device: range r holds rows [range_ptr[r], range_ptr[r + 1]) and
/// slices [range_slice[r], range_slice[r + 1]).
struct Ranges {
  const index_t* range_ptr;
  const index_t* range_slice;
  int ranges;
  index_t slice;
};

struct SliceRows {
  index_t first, last;
};

/// The rows of slice s: its range is the last one starting at or before s (a non-empty
/// one, since s < range_slice[r + 1]; empty ranges repeat an offset).
__device__ SliceRows slice_rows(index_t s, const Ranges& r) {
  int lo = 0, hi = r.ranges;  // range_slice[lo] <= s < range_slice[hi]
  while (hi - lo > 1) {
    const int mid = lo + (hi - lo) / 2;
    if (r.range_slice[mid] <= s) {
      lo = mid;
    } else {
      hi = mid;
    }
  }
  const long long first = r.range_ptr[lo] + static_cast<long long>(s - r.range_slice[lo]) * r.slice;
  const long long last =
      first + r.slice < r.range_ptr[lo + 1] ? first + r.slice : r.range_ptr[lo + 1];
  return {static_cast<index_t>(first), static_cast<index_t>(last)};
}

/// size[s] = C x the longest row of slice s: a warp a slice, its lanes striding the rows.
__global__ void slice_sizes(index_t slices, const index_t* __restrict__ row_ptr, Ranges ranges,
                            long long* __restrict__ size) {
  const long long warp = (static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (warp >= slices) return;  // the whole warp: one warp, one slice
  const auto s = static_cast<index_t>(warp);
  const SliceRows rows = slice_rows(s, ranges);
  index_t width = 0;
  for (index_t i = rows.first + lane; i < rows.last; i += 32) {
    width = max(width, row_ptr[i + 1] - row_ptr[i]);
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    width = max(width, __shfl_xor_sync(0xffffffffu, width, offset));
  }
  if (lane == 0) size[s] = static_cast<long long>(width) * ranges.slice;
}

/// Slice s's entries: entry t of lane l at offset[s] + C t + l, the row's t-th entry or
/// padding (-1) past its end; lanes past the range's last row are all padding.
__global__ void fill_slices(index_t slices, const index_t* __restrict__ row_ptr,
                            const index_t* __restrict__ col_idx, Ranges ranges,
                            const long long* __restrict__ offset, index_t* __restrict__ slice_ptr,
                            index_t* __restrict__ out_col, index_t* __restrict__ out_source) {
  const long long warp = (static_cast<long long>(blockIdx.x) * kThreads + threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x % 32);
  if (warp >= slices) return;
  const auto s = static_cast<index_t>(warp);
  const SliceRows rows = slice_rows(s, ranges);
  const long long base = offset[s];
  const auto width = static_cast<index_t>((offset[s + 1] - base) / ranges.slice);
  if (lane == 0) {
    slice_ptr[s] = static_cast<index_t>(base);
    if (s == slices - 1) slice_ptr[slices] = static_cast<index_t>(offset[slices]);
  }
  for (index_t l = lane; l < ranges.slice; l += 32) {
    const index_t i = rows.first + l;
    index_t begin = 0, length = 0;
    if (i < rows.last) {
      begin = row_ptr[i];
      length = row_ptr[i + 1] - begin;
    }
    for (index_t t = 0; t < width; ++t) {
      const long long at = base + static_cast<long long>(t) * ranges.slice + l;
      const bool entry = t < length;
      out_col[at] = entry ? col_idx[begin + t] : -1;
      out_source[at] = entry ? begin + t : -1;
    }
  }
}

/// The reference's checks (kernels/reference/sell.cpp), with its messages.
void check_ranges(const std::vector<index_t>& range_ptr, index_t rows, index_t slice) {
  if (range_ptr.size() < 2 || range_ptr.front() != 0 || range_ptr.back() != rows) {
    throw ConfigError("sell_layout: ranges must start at 0 and end at rows");
  }
  if (slice < 1) throw ConfigError("sell_layout: the slice must have at least one row");
  for (std::size_t r = 0; r + 1 < range_ptr.size(); ++r) {
    if (range_ptr[r + 1] < range_ptr[r]) throw ConfigError("sell_layout: bad ranges");
  }
}

/// range_slice: each range's first slice, ceil(rows / C) slices a range.
std::vector<index_t> range_slices(const std::vector<index_t>& range_ptr, index_t slice) {
  std::vector<index_t> range_slice{0};
  for (std::size_t r = 0; r + 1 < range_ptr.size(); ++r) {
    const index_t rows = range_ptr[r + 1] - range_ptr[r];
    range_slice.push_back(range_slice.back() + (rows + slice - 1) / slice);
  }
  return range_slice;
}

/// The slices' offsets (slices + 1 of them, the last the stored count) on the device.
struct SliceOffsets {
  DeviceBuffer<index_t> range_ptr, range_slice;
  DeviceBuffer<long long> offset;
  long long stored = 0;
};

SliceOffsets slice_offsets(const index_t* row_ptr, const std::vector<index_t>& range_ptr,
                           const std::vector<index_t>& range_slice, index_t slice,
                           cudaStream_t stream) {
  SliceOffsets out;
  const index_t slices = range_slice.back();
  if (slices == 0) return out;
  out.range_ptr = upload_and_wait(range_ptr, stream);
  out.range_slice = upload_and_wait(range_slice, stream);
  const Ranges ranges{out.range_ptr.data(), out.range_slice.data(),
                      static_cast<int>(range_ptr.size()) - 1, slice};
  out.offset = DeviceBuffer<long long>(static_cast<std::size_t>(slices) + 1);
  // The sizes in offset[0, slices), the last made 0: their exclusive sum is the offsets.
  PRISM_CUDA_CHECK(cudaMemsetAsync(out.offset.data() + slices, 0, sizeof(long long), stream));
  slice_sizes<<<blocks_for_slices(slices), kThreads, 0, stream>>>(slices, row_ptr, ranges,
                                                                  out.offset.data());
  PRISM_CUDA_CHECK_LAUNCH();
  std::size_t scan_bytes = 0;
  PRISM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, out.offset.data(),
                                                 out.offset.data(), slices + 1, stream));
  {
    // Never null: CUB takes a null scratch pointer for a size query. Freed in stream
    // order: no wait of its own.
    StreamScratch<unsigned char> scratch(std::max<std::size_t>(scan_bytes, 1), stream);
    PRISM_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scratch.data(), scan_bytes, out.offset.data(),
                                                   out.offset.data(), slices + 1, stream));
  }
  PRISM_CUDA_CHECK(cudaMemcpyAsync(&out.stored, out.offset.data() + slices, sizeof(long long),
                                   cudaMemcpyDeviceToHost, stream));
  PRISM_CUDA_CHECK(cudaStreamSynchronize(stream));
  return out;
}

}  // namespace

std::int64_t sell_stored_device(const index_t* row_ptr, const std::vector<index_t>& range_ptr,
                                index_t slice, cudaStream_t stream) {
  const index_t rows = range_ptr.empty() ? 0 : range_ptr.back();
  check_ranges(range_ptr, rows, slice);
  return slice_offsets(row_ptr, range_ptr, range_slices(range_ptr, slice), slice, stream).stored;
}

DeviceSellLayout sell_layout_device(const index_t* row_ptr, const index_t* col_idx, index_t rows,
                                    const std::vector<index_t>& range_ptr, index_t slice,
                                    cudaStream_t stream) {
  check_ranges(range_ptr, rows, slice);
  DeviceSellLayout s;
  s.rows = rows;
  s.slice = slice;
  s.range_ptr = range_ptr;
  s.range_slice = range_slices(range_ptr, slice);
  const index_t slices = s.range_slice.back();
  SliceOffsets offsets = slice_offsets(row_ptr, range_ptr, s.range_slice, slice, stream);
  if (offsets.stored > std::numeric_limits<index_t>::max()) {
    throw Error("sell_layout: the layout would store " + std::to_string(offsets.stored) +
                " entries, more than a 32-bit index counts");
  }
  s.slice_ptr = DeviceBuffer<index_t>(static_cast<std::size_t>(slices) + 1);
  s.col_idx = DeviceBuffer<index_t>(static_cast<std::size_t>(offsets.stored));
  s.source = DeviceBuffer<index_t>(static_cast<std::size_t>(offsets.stored));
  if (slices == 0) {
    PRISM_CUDA_CHECK(cudaMemsetAsync(s.slice_ptr.data(), 0, sizeof(index_t), stream));
    return s;
  }
  const Ranges ranges{offsets.range_ptr.data(), offsets.range_slice.data(),
                      static_cast<int>(range_ptr.size()) - 1, slice};
  fill_slices<<<blocks_for_slices(slices), kThreads, 0, stream>>>(
      slices, row_ptr, col_idx, ranges, offsets.offset.data(), s.slice_ptr.data(), s.col_idx.data(),
      s.source.data());
  PRISM_CUDA_CHECK_LAUNCH();
  // offsets' buffers are freed on return; cudaFree waits for the fill.
  return s;
}

}  // namespace prism::kernels::cuda
