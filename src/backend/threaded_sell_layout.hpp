#pragma once
// kernels::sell_layout (the plain reference) on host threads, for the set-up's layouts of
// large triangles: the same layout entry for entry, slices in parts.

#include "kernels/sell.hpp"

#include <vector>

namespace prism::backend {

/// kernels::sell_layout(a, range_ptr, slice), its slices filled in parts on host threads
/// (common::parallel_for). Throws the reference's ConfigError on bad ranges or slice.
kernels::SellLayout threaded_sell_layout(kernels::CsrView<double> a,
                                         const std::vector<index_t>& range_ptr,
                                         index_t slice = kernels::kSellSlice);

}  // namespace prism::backend
