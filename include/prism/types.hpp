#pragma once
/// @file
/// Basic types shared by every part of prism.

#include <cstdint>

namespace prism {

/// Row/column index and nonzero offset type. 32-bit, as cuSPARSE's CSR routines use;
/// matrices with more than 2^31 - 1 stored entries are rejected at assembly.
using index_t = std::int32_t;

/// How error messages number the rows and columns of a matrix: from 0, as prism's API
/// indexes them (`row_ptr`, `col_idx`, vectors: the library's default), or from 1, as
/// Matrix Market files do (prism's command line chooses it: SolverConfig::numbering).
enum class Numbering { from_zero, from_one };

}  // namespace prism
