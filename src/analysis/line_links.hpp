#pragma once
// find_lines' steps after the links (src/analysis/lines.cpp), for a backend that finds the
// links where the matrix already is (backend::SetupSession::find_lines): the chains are
// traced, cut and ordered, and the report made, on the host.

#include <prism/csr_matrix.hpp>
#include <prism/lines.hpp>

#include <vector>

namespace prism::analysis {

inline constexpr index_t kNoLink = -1;

/// prism::find_lines(a, options) from its mutual links: links[2 i] and links[2 i + 1] the
/// rows that row i and they chose each other, in the order of row i's choice (the stronger
/// first), kNoLink after the last. `a` square with every diagonal entry positive and finite
/// and options checked (max_length >= 1): find_lines' own checks come before the links.
Lines lines_from_links(const CsrMatrix<double>& a, const std::vector<index_t>& links,
                       index_t max_length);

}  // namespace prism::analysis
