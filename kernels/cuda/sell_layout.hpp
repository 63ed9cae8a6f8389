#pragma once
// The SELL-C layout (kernels/sell.hpp) built on the device from a CSR pattern in device
// memory: the set-up keeps P A P^T there (issue 47), and laying SELL out on the host would
// mean downloading the pattern and uploading the layout. The reference is
// kernels::sell_layout; the arrays are equal entry for entry.

#include "kernels/cuda/device_memory.hpp"
#include "kernels/sell.hpp"

#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

namespace prism::kernels::cuda {

/// kernels::SellLayout with its per-entry arrays in device memory (the ranges, a few
/// entries a color, stay on the host, where the launches are planned).
struct DeviceSellLayout {
  index_t rows = 0;
  index_t slice = kSellSlice;
  std::vector<index_t> range_ptr, range_slice;       // host, as kernels::SellLayout's
  DeviceBuffer<index_t> slice_ptr, col_idx, source;  // device; -1 padding in col_idx/source

  index_t stored() const { return static_cast<index_t>(col_idx.size()); }
};

/// kernels::sell_stored on a device row_ptr (range_ptr.back() + 1 entries): the entries
/// the layout with these ranges would store, without building it. Waits for the result.
std::int64_t sell_stored_device(const index_t* row_ptr, const std::vector<index_t>& range_ptr,
                                index_t slice, cudaStream_t stream);

/// kernels::sell_layout of the device pattern (row_ptr: rows + 1 entries, col_idx) with
/// slices inside each range of range_ptr (first 0, last rows): a kernel takes each slice's
/// width, a scan its offset, a second kernel fills the slices. Waits for the stored count
/// (to allocate); the fill is asynchronous on `stream`. Throws ConfigError on bad ranges
/// or slice, as the reference, and Error where the layout would store more entries than
/// index_t counts.
DeviceSellLayout sell_layout_device(const index_t* row_ptr, const index_t* col_idx, index_t rows,
                                    const std::vector<index_t>& range_ptr, index_t slice,
                                    cudaStream_t stream);

}  // namespace prism::kernels::cuda
