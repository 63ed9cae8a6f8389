#pragma once
/// @file
/// Basic types shared by every part of prism.

#include <cstdint>

namespace prism {

/// Row/column index and nonzero offset type. 32-bit, as cuSPARSE's CSR routines use;
/// matrices with more than 2^31 - 1 stored entries are rejected at assembly.
using index_t = std::int32_t;

}  // namespace prism
